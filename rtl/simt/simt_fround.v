`default_nettype none
// simt_fround: normalize, round once and pack a binary32 result, combinational. The value is
// mag_i * 2^(exp_i - 50): bit 50 of the 52-bit magnitude weighs 2^exp_i, bit 51 (a carry)
// twice that, and bit 0 may be a sticky bit standing for anything nonzero below it. The
// magnitude is shifted left by its leading zeros, but never past exponent -126: below that
// the result is subnormal and the shift turns right, with a sticky bit (gradual underflow,
// exactly as IEEE 754 wants). Then one rounding in rm_i (RNE, RTZ, RDN, RUP, RMM), and an
// overflow gives infinity or the largest finite number as the mode says. The caller handles a
// zero magnitude, infinities and NaNs. Used by simt_fpu (the fused path and fcvt.s.w) and
// simt_fdiv (quotients and square roots).
module simt_fround (
  input  wire [51:0]        mag_i,
  input  wire signed [11:0] exp_i,   // weight of bit 50
  input  wire               sign_i,
  input  wire [2:0]         rm_i,
  output wire [31:0]        result_o
);
  localparam [2:0] RNE = 3'd0, RTZ = 3'd1, RDN = 3'd2, RUP = 3'd3, RMM = 3'd4;

  // normalize: shift left by the leading zeros, but not below exponent -126 (subnormal)
  function automatic [5:0] lzc52(input [51:0] m);
    integer i;
    begin
      lzc52 = 6'd52;
      for (i = 0; i < 52; i = i + 1)
        if (m[i]) lzc52 = 6'd51 - i[5:0];
    end
  endfunction
  wire [5:0]         lz = lzc52(mag_i);
  wire signed [11:0] room = exp_i + 12'sd127;                // shift that puts bit 51 at -126
  wire signed [11:0] lsh = (room < $signed({6'd0, lz})) ? room : $signed({6'd0, lz});
  wire [11:0]        rsh_full = -lsh;
  wire [5:0]         rsh = (lsh >= 0) ? 6'd0 : ((rsh_full > 12'd52) ? 6'd52 : rsh_full[5:0]);
  wire [51:0]        left = mag_i << ((lsh >= 0) ? lsh[5:0] : 6'd0);
  wire [103:0]       right = {mag_i, 52'd0} >> rsh;
  wire [51:0]        norm = (lsh >= 0) ? left : right[103:52];
  wire               rsticky = (lsh < 0) && (|right[51:0]);
  wire [23:0]        sig = norm[51:28];
  wire               guard = norm[27];
  wire               sticky = (|norm[26:0]) | rsticky;
  // biased exponent of bit 51 after the shift, minus one (the hidden bit adds it back)
  wire signed [11:0] ebm1 = exp_i + 12'sd127 - lsh;          // = biased exponent - 1
  reg                rup;
  always @(*) begin
    case (rm_i)
      RNE:     rup = guard & (sticky | sig[0]);
      RTZ:     rup = 1'b0;
      RDN:     rup = sign_i & (guard | sticky);
      RUP:     rup = !sign_i & (guard | sticky);
      default: rup = guard;                                  // RMM
    endcase
  end
  // ebm1 >= 0 (the shift never passes -126); the hidden bit and a rounding carry add into the
  // exponent field, which also turns a subnormal rounded up to 2^-126 into the normal one
  wire [35:0]  pack_sum = {ebm1[11], ebm1, 23'd0} + {12'd0, sig} + {35'd0, rup};
  wire         ovf = (pack_sum[35:23] >= 13'd255);
  wire         ovf_inf = (rm_i == RNE) || (rm_i == RMM) || (rm_i == RDN && sign_i) ||
                         (rm_i == RUP && !sign_i);
  wire [31:0]  ovf_res = {sign_i, ovf_inf ? 31'h7F80_0000 : 31'h7F7F_FFFF};
  assign result_o = ovf ? ovf_res : {sign_i, pack_sum[30:0]};

  // pack_sum's bits above the exponent field are only looked at through ovf's compare
  wire unused_ok = &{1'b0, pack_sum[35:31]};
endmodule

`default_nettype wire
