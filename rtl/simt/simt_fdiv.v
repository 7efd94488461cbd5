`default_nettype none
// simt_fdiv: one lane's fdiv.s and fsqrt.s, one result bit a cycle, 27 cycles after start for
// every operand, special ones too (simt_core takes lane 0's done for all lanes, as for
// simt_div). The 27 bits (the leading one, 23 more, and three for rounding) and a sticky bit
// from the final remainder go through simt_fround, so the result is correctly rounded in
// every mode, subnormal results included, with one rounding, as IEEE 754 requires of division
// and square root (and as PTX's div.rn.f32 and sqrt.rn.f32 compute).
// Iterative for the same reason as simt_div: an array divider per lane would outweigh the lane.
//
//   fdiv: the significands a, b in [2^23, 2^24) (subnormals normalized first): restoring
//     division q = a / b, bit 0 weighing 2^0, then 26 fraction bits; remainder < b always.
//   fsqrt: a's significand shifted so that its exponent is even, times 2^28: the restoring
//     square root takes two radicand bits per step and gives a 27-bit root.
// NaN results are canonical like simt_fpu's: 0x7fc00000, or 0x7fffffff with nvnan_i.
module simt_fdiv (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        start_i,   // takes the operands
  input  wire        sqrt_i,    // 1: fsqrt.s a; 0: fdiv.s a / b
  input  wire [2:0]  rm_i,      // rounding mode (resolved: never 7)
  input  wire        nvnan_i,
  input  wire [31:0] a_i,
  input  wire [31:0] b_i,
  output wire        done_o,    // level: nothing running (result_o holds the last result)
  output wire [31:0] result_o
);
  function automatic [4:0] lzc23(input [22:0] f);
    integer i;
    begin
      lzc23 = 5'd23;
      for (i = 0; i < 23; i = i + 1)
        if (f[i]) lzc23 = 5'd22 - i[4:0];
    end
  endfunction
  // {exponent of the leading one (unbiased), significand with the leading one at bit 23}
  function automatic [35:0] unpack(input [30:0] v);
    reg [4:0] lz;
    begin
      if (v[30:23] != 8'd0) begin
        unpack = {{4'd0, v[30:23]} - 12'd127, 1'b1, v[22:0]};
      end else begin
        lz = lzc23(v[22:0]);
        unpack = {-12'd127 - {7'd0, lz}, {v[22:0], 1'b0} << lz};
      end
    end
  endfunction

  wire [35:0] ua = unpack(a_i[30:0]);
  wire [35:0] ub = unpack(b_i[30:0]);
  wire signed [11:0] ea = $signed(ua[35:24]), eb = $signed(ub[35:24]);
  wire a_zero = (a_i[30:0] == 31'd0), b_zero = (b_i[30:0] == 31'd0);
  wire a_inf = (a_i[30:0] == 31'h7F80_0000), b_inf = (b_i[30:0] == 31'h7F80_0000);
  wire a_nan = (a_i[30:23] == 8'hFF) && !a_inf, b_nan = (b_i[30:23] == 8'hFF) && !b_inf;
  wire [31:0] qnan = nvnan_i ? 32'h7FFF_FFFF : 32'h7FC0_0000;
  wire q_sign = a_i[31] ^ b_i[31];

  // special operands: the answer without iterating
  reg        special;
  reg [31:0] special_res;
  always @(*) begin
    special = 1'b1;
    special_res = qnan;
    if (sqrt_i) begin
      if (a_nan || (a_i[31] && !a_zero)) special_res = qnan;      // NaN, or below zero
      else if (a_zero || a_inf)          special_res = a_i;       // +-0, +inf
      else                               special = 1'b0;
    end else begin
      if (a_nan || b_nan || (a_zero && b_zero) || (a_inf && b_inf)) special_res = qnan;
      else if (a_inf || b_zero)          special_res = {q_sign, 31'h7F80_0000};
      else if (a_zero || b_inf)          special_res = {q_sign, 31'd0};
      else                               special = 1'b0;
    end
  end

  // fsqrt: value = sig * 2^e with e = ea - 23; an odd e gives one bit to the radicand, which is
  // then sig << 28 or << 29 (54 bits) against the even exponent e - 28 or e - 29
  wire signed [11:0] e_lsb = ea - 12'sd23;
  wire               odd = e_lsb[0];
  wire [53:0]        radicand = odd ? {1'b0, ua[23:0], 29'd0} : {2'b0, ua[23:0], 28'd0};
  wire signed [11:0] e_even = odd ? e_lsb - 12'sd1 : e_lsb;

  reg [5:0]          n_q;
  reg                sqrt_q, sign_q, special_q;
  reg [31:0]         special_res_q;
  reg [2:0]          rm_q;
  reg [26:0]         q_q;        // quotient or root bits so far
  reg [29:0]         r_q;        // remainder
  reg [23:0]         b_q;        // divisor significand
  reg [53:0]         x_q;        // radicand bits not yet taken (square root)
  reg signed [11:0]  exp_q;      // weight of bit 50 of the magnitude handed to simt_fround

  // one step of each
  wire [29:0] div_diff = r_q - {6'd0, b_q};
  wire        div_ge = (r_q >= {6'd0, b_q});
  wire [29:0] sq_rem = {r_q[27:0], x_q[53:52]};
  wire [29:0] sq_trial = {1'b0, q_q, 2'b01};
  wire        sq_ge = (sq_rem >= sq_trial);

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      n_q <= 6'd0;
    end else if (start_i) begin
      sqrt_q <= sqrt_i;
      sign_q <= sqrt_i ? 1'b0 : q_sign;
      special_q <= special;
      special_res_q <= special_res;
      rm_q <= rm_i;
      q_q <= 27'd0;
      r_q <= sqrt_i ? 30'd0 : {6'd0, ua[23:0]};
      b_q <= ub[23:0];
      x_q <= radicand;
      // the quotient's bit 25 weighs 2^(ea-eb-1); the root's bit 25 weighs 2^(e_even/2 + 11)
      exp_q <= sqrt_i ? (e_even >>> 1) + 12'sd11 : ea - eb - 12'sd1;
      n_q <= 6'd27;   // specials too: every lane of a warp finishes in the same cycle
    end else if (n_q != 6'd0) begin
      n_q <= n_q - 6'd1;
      if (sqrt_q) begin
        q_q <= {q_q[25:0], sq_ge};
        r_q <= sq_ge ? sq_rem - sq_trial : sq_rem;
        x_q <= {x_q[51:0], 2'b00};
      end else begin
        q_q <= {q_q[25:0], div_ge};
        r_q <= {div_ge ? div_diff[28:0] : r_q[28:0], 1'b0};
      end
    end
  end

  wire [31:0] rounded;
  simt_fround u_round (
    .mag_i    ({q_q, 24'd0, r_q != 30'd0}),
    .exp_i    (exp_q),
    .sign_i   (sign_q),
    .rm_i     (rm_q),
    .result_o (rounded)
  );

  assign done_o = (n_q == 6'd0);
  assign result_o = special_q ? special_res_q : rounded;

  // Unused on purpose: the top of the step results (the remainders stay below 2^29), the
  // other operand's sign (only the quotient's sign uses it).
  wire unused_ok = &{1'b0, div_diff[29], ub[35:35], sq_rem[29:29]};
endmodule

`default_nettype wire
