`default_nettype none
// simt_div: one lane's DIV/DIVU/REM/REMU, restoring division one quotient bit a cycle (32 cycles
// after start). Signs are taken off before and put back after, so the corner cases come out as
// the RISC-V spec wants: x/0 gives all ones (DIV and DIVU) and x%0 gives x; INT_MIN/-1 gives
// INT_MIN with remainder 0 (no trap in either case). Iterative because a combinational 32-bit
// divider per lane would be larger than the rest of the lane.
module simt_div (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        start_i,   // takes the operands; the result is ready 32 cycles later
  input  wire [31:0] a_i,       // dividend (rs1)
  input  wire [31:0] b_i,       // divisor (rs2)
  input  wire [1:0]  op_i,      // funct3[1:0]: 0 DIV, 1 DIVU, 2 REM, 3 REMU
  output wire        done_o,    // level: no division running
  output wire [31:0] result_o
);
  reg [31:0] q_q, r_q, b_q;
  reg [5:0]  n_q;
  reg        q_neg_q, r_neg_q, rem_q, b_zero_q;

  wire sgn = ~op_i[0];
  wire [31:0] a_mag = (sgn & a_i[31]) ? 32'd0 - a_i : a_i;
  wire [31:0] b_mag = (sgn & b_i[31]) ? 32'd0 - b_i : b_i;

  wire [32:0] r_sh = {r_q, q_q[31]};
  wire        ge   = (r_sh >= {1'b0, b_q});
  wire [32:0] diff = r_sh - {1'b0, b_q};

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      n_q <= 6'd0;
    end else if (start_i) begin
      q_q      <= a_mag;
      r_q      <= 32'd0;
      b_q      <= b_mag;
      n_q      <= 6'd32;
      q_neg_q  <= sgn & (a_i[31] ^ b_i[31]);
      r_neg_q  <= sgn & a_i[31];
      rem_q    <= op_i[1];
      b_zero_q <= (b_i == 32'd0);
    end else if (n_q != 6'd0) begin
      r_q <= ge ? diff[31:0] : r_sh[31:0];
      q_q <= {q_q[30:0], ge};
      n_q <= n_q - 6'd1;
    end
  end

  assign done_o = (n_q == 6'd0);
  assign result_o = rem_q ? (r_neg_q ? 32'd0 - r_q : r_q)
                          : (b_zero_q ? 32'hFFFF_FFFF : (q_neg_q ? 32'd0 - q_q : q_q));

  wire unused_ok = &{1'b0, diff[32]};
endmodule

`default_nettype wire
