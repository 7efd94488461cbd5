`default_nettype none
// simt_fpu: one lane's single-precision unit (RISC-V F without fdiv/fsqrt), two stages.
//
//   stage 1 (inputs -> s1 registers): decode, normalize the multiplicands' significands (a
//     subnormal one is shifted up so its leading one is bit 23, its exponent extended below
//     -126), the 24 x 24 significand product (ECP5: MULT18X18D blocks).
//   stage 2 (s1 registers -> result_o, combinational): the addend aligned against the product
//     with a sticky bit, add or subtract, normalize with the subnormal limit, round once, pack;
//     and every other operation (compare, min/max, sign injection, class, moves, conversions).
//
// Everything arithmetic is one fused path a*b + c: fmadd/fmsub/fnmadd/fnmsub as they are;
// fadd/fsub are a*1.0 + b; fmul is a*b + (a zero of the product's sign), so a zero product keeps
// its sign in every rounding mode. fcvt.s.w/wu enter the same normalize-and-round path. So there
// is exactly one rounding, and subnormals are exact (no flush): inputs are normalized in stage
// 1 and the result is denormalized by limiting the normalization shift at exponent -126.
//
// Why the sum is exact enough: both significands have their leading one at bit 47 of a 48-bit
// field (the product's is renormalized by one bit); the smaller is shifted right into a window
// with 3 bits below the field, whatever falls out becomes a sticky bit in the lowest one. A
// shift of 0 or 1 loses nothing (so massive cancellation is exact); a shift of 2 or more cancels
// at most one leading bit, so the 24 kept bits and the round bit lie far above the sticky bit.
//
// NaN results are canonical: 0x7fc00000 (RISC-V), or 0x7fffffff with nvnan_i (what NVIDIA's
// GPUs produce; the PTX translator sets it, CSR 0x801). nvnan_i also makes fcvt.w[u].s of a NaN
// give 0, as PTX's cvt.*.f32 to an integer does; RISC-V gives the largest integer.
// Exception flags are not computed (fflags reads 0; docs/cores.md).
module simt_fpu (
  input  wire        clk_i,
  input  wire        en_i,        // take the inputs into stage 1 (else stage 1 holds)
  input  wire [31:0] inst_i,      // the F instruction (OP-FP or one of the four FMA opcodes)
  input  wire [2:0]  rm_i,        // rounding mode (static, or frm where the instruction says 7)
  input  wire        nvnan_i,     // NVIDIA's NaN conventions (see above)
  input  wire [31:0] a_i,         // f[rs1]
  input  wire [31:0] b_i,         // f[rs2]
  input  wire [31:0] c_i,         // f[rs3]
  input  wire [31:0] x_i,         // x[rs1] (fcvt.s.w[u], fmv.w.x)
  output reg  [31:0] result_o     // a cycle after en_i, held while en_i is low
);
  localparam [2:0] RNE = 3'd0, RTZ = 3'd1, RDN = 3'd2, RUP = 3'd3;   // 4: RMM

  // ---------------------------------------------------------------- decode
  wire [6:0] opcode = inst_i[6:0];
  wire [4:0] f5 = inst_i[31:27];
  wire       fused = (opcode[6:4] == 3'b100);   // 1000011 1000111 1001011 1001111
  // operation codes carried to stage 2
  localparam [3:0] K_FMA = 4'd0, K_SGNJ = 4'd1, K_MINMAX = 4'd2, K_CMP = 4'd3, K_CVTWS = 4'd4,
                   K_CVTSW = 4'd5, K_MVXW = 4'd6, K_CLASS = 4'd7, K_MVWX = 4'd8;
  reg [3:0] kind;
  reg       prod_neg, c_neg, c_absent, b_one;
  always @(*) begin
    kind = K_FMA;
    prod_neg = 1'b0;
    c_neg = 1'b0;
    c_absent = 1'b0;
    b_one = 1'b0;
    if (fused) begin
      prod_neg = opcode[3];                    // fnmsub 1001011, fnmadd 1001111
      c_neg = opcode[2];                       // fmsub 1000111, fnmadd 1001111
    end else begin
      case (f5)
        5'b00000: b_one = 1'b1;                         // fadd: a*1 + b
        5'b00001: begin b_one = 1'b1; c_neg = 1'b1; end // fsub
        5'b00010: c_absent = 1'b1;                      // fmul
        5'b00100: kind = K_SGNJ;
        5'b00101: kind = K_MINMAX;
        5'b10100: kind = K_CMP;
        5'b11000: kind = K_CVTWS;
        5'b11010: kind = K_CVTSW;
        5'b11100: kind = inst_i[12] ? K_CLASS : K_MVXW;
        default:  kind = K_MVWX;                         // 5'b11110
      endcase
    end
  end

  // ---------------------------------------------------------------- stage 1: significand product
  function automatic [4:0] lzc23(input [22:0] f);
    integer i;
    begin
      lzc23 = 5'd23;
      for (i = 0; i < 23; i = i + 1)
        if (f[i]) lzc23 = 5'd22 - i[4:0];
    end
  endfunction
  // leading-one exponent (unbiased) and significand with the leading one at bit 23
  function automatic [35:0] unpack(input [30:0] v);   // {exp[11:0], sig[23:0]}
    reg [4:0] lz;
    begin
      if (v[30:23] != 8'd0) begin
        unpack = {{4'd0, v[30:23]} - 12'd127, 1'b1, v[22:0]};
      end else begin
        // a subnormal f * 2^-149: its leading one moved to bit 23, the exponent below -126
        lz = lzc23(v[22:0]);
        unpack = {-12'd127 - {7'd0, lz}, {v[22:0], 1'b0} << lz};
      end
    end
  endfunction

  wire [31:0] b_eff = b_one ? 32'h3F80_0000 : b_i;
  wire [35:0] ua = unpack(a_i[30:0]);
  wire [35:0] ub = unpack(b_eff[30:0]);

  reg [47:0] s1_prod;
  reg [11:0] s1_pexp;
  reg [31:0] s1_a, s1_b, s1_c, s1_x;
  reg [3:0]  s1_kind;
  reg [2:0]  s1_rm, s1_f3;
  reg        s1_pneg, s1_cneg, s1_cabs, s1_nvnan, s1_unsigned;
  always @(posedge clk_i) begin
    if (en_i) begin
      s1_prod <= ua[23:0] * ub[23:0];
      s1_pexp <= ua[35:24] + ub[35:24];
      s1_a <= a_i;
      s1_b <= b_eff;
      s1_c <= b_one ? b_i : c_i;
      s1_x <= x_i;
      s1_kind <= kind;
      s1_rm <= rm_i;
      s1_f3 <= inst_i[14:12];
      s1_pneg <= prod_neg;
      s1_cneg <= c_neg;
      s1_cabs <= c_absent;
      s1_nvnan <= nvnan_i;
      s1_unsigned <= inst_i[20];
    end
  end

  // ---------------------------------------------------------------- stage 2: classification
  wire [31:0] qnan = s1_nvnan ? 32'h7FFF_FFFF : 32'h7FC0_0000;
  wire a_zero = (s1_a[30:0] == 31'd0), b_zero = (s1_b[30:0] == 31'd0), c_zero = (s1_c[30:0] == 31'd0);
  wire a_inf = (s1_a[30:0] == 31'h7F80_0000), b_inf = (s1_b[30:0] == 31'h7F80_0000),
       c_inf = (s1_c[30:0] == 31'h7F80_0000);
  wire a_nan = (s1_a[30:23] == 8'hFF) && (s1_a[22:0] != 23'd0);
  wire b_nan = (s1_b[30:23] == 8'hFF) && (s1_b[22:0] != 23'd0);
  wire c_nan = (s1_c[30:23] == 8'hFF) && (s1_c[22:0] != 23'd0);

  // ---------------------------------------------------------------- stage 2: a*b + c
  wire        p_sign = s1_a[31] ^ s1_b[31] ^ s1_pneg;
  wire        p_zero = a_zero | b_zero;
  wire        p_inf = a_inf | b_inf;
  wire        cz = s1_cabs | c_zero;
  wire        c_sign = s1_cabs ? p_sign : (s1_c[31] ^ s1_cneg);
  wire        cinf = !s1_cabs && c_inf;
  wire        fma_nan = a_nan | b_nan | (!s1_cabs & c_nan) | (a_inf & b_zero) | (a_zero & b_inf) |
                        (p_inf & cinf & (p_sign != c_sign));
  wire        fma_inf = p_inf | cinf;
  wire        inf_sign = p_inf ? p_sign : c_sign;

  // the product with its leading one at bit 47; a zero operand sits far below everything
  wire [47:0]        p_sig = s1_prod[47] ? s1_prod : {s1_prod[46:0], 1'b0};
  wire signed [11:0] p_exp = p_zero ? -12'sd1024 : $signed(s1_pexp) + (s1_prod[47] ? 12'sd1 : 12'sd0);
  wire [35:0]        uc = unpack(s1_c[30:0]);
  wire [47:0]        c_sig = s1_cabs ? 48'd0 : {uc[23:0], 24'd0};
  wire signed [11:0] c_exp = cz ? -12'sd1024 : $signed(uc[35:24]);

  wire               c_big = (c_exp > p_exp);
  wire [47:0]        x_sig = c_big ? c_sig : p_sig;
  wire [47:0]        y_sig = c_big ? p_sig : c_sig;
  wire signed [11:0] x_exp = c_big ? c_exp : p_exp;
  wire               x_sign = c_big ? c_sign : p_sign;
  wire               y_sign = c_big ? p_sign : c_sign;
  wire [11:0]        align_dist = x_exp - (c_big ? p_exp : c_exp);
  wire [5:0]         dsh = (align_dist > 12'd52) ? 6'd52 : align_dist[5:0];
  // window: bit 51 carry, bits 50..3 the 48-bit field, 2..0 below it (0 takes the sticky)
  wire [103:0]       y_wide = {1'b0, y_sig, 3'b000, 52'd0} >> dsh;
  wire [51:0]        y_win = {y_wide[103:53], y_wide[52] | (|y_wide[51:0])};
  wire [51:0]        x_win = {1'b0, x_sig, 3'b000};
  wire               sub = x_sign ^ y_sign;
  wire [52:0]        sum = sub ? {1'b0, x_win} - {1'b0, y_win} : {1'b0, x_win} + {1'b0, y_win};
  wire               neg = sum[52];
  wire [51:0]        fma_mag = neg ? (~sum[51:0] + 52'd1) : sum[51:0];
  wire               fma_sign = neg ? y_sign : x_sign;

  // fcvt.s.w/wu enters the same path: |x| at bits 51..20, bit 51 weighing 2^31
  wire               ci_neg = !s1_unsigned && s1_x[31];
  wire [31:0]        ci_mag = ci_neg ? (~s1_x + 32'd1) : s1_x;
  wire               is_cvtsw = (s1_kind == K_CVTSW);
  wire [51:0]        mag = is_cvtsw ? {ci_mag, 20'd0} : fma_mag;
  wire signed [11:0] mexp = is_cvtsw ? 12'sd30 : x_exp;       // bit 50's weight
  wire               msign = is_cvtsw ? ci_neg : fma_sign;

  // normalize, round once, pack (simt_fround; simt_fdiv rounds its quotients the same way)
  wire [31:0]  rounded;
  simt_fround u_round (
    .mag_i    (mag),
    .exp_i    (mexp),
    .sign_i   (msign),
    .rm_i     (s1_rm),
    .result_o (rounded)
  );
  wire         zero_sign = is_cvtsw ? 1'b0 : ((p_sign == c_sign) ? p_sign : (s1_rm == RDN));
  reg  [31:0]  fma_res;
  always @(*) begin
    if (!is_cvtsw && fma_nan)       fma_res = qnan;
    else if (!is_cvtsw && fma_inf)  fma_res = {inf_sign, 31'h7F80_0000};
    else if (mag == 52'd0)          fma_res = {zero_sign, 31'd0};
    else                            fma_res = rounded;
  end

  // ---------------------------------------------------------------- stage 2: the rest
  wire both_zero = a_zero & b_zero;
  wire mag_lt = (s1_a[30:0] < s1_b[30:0]);
  wire mag_eq = (s1_a[30:0] == s1_b[30:0]);
  wire unord = a_nan | b_nan;
  // IEEE order (+0 == -0) for the compares; -0 < +0 for min/max
  wire ieee_eq = !unord && (mag_eq && (s1_a[31] == s1_b[31]) || both_zero);
  wire ieee_lt = !unord && !both_zero &&
                 ((s1_a[31] != s1_b[31]) ? s1_a[31] : (s1_a[31] ? (!mag_lt && !mag_eq) : mag_lt));
  wire tot_lt = (s1_a[31] != s1_b[31]) ? s1_a[31] : (s1_a[31] ? (!mag_lt && !mag_eq) : mag_lt);
  reg [31:0] minmax;
  always @(*) begin
    if (a_nan && b_nan)  minmax = qnan;
    else if (a_nan)      minmax = s1_b;
    else if (b_nan)      minmax = s1_a;
    else                 minmax = (tot_lt ^ s1_f3[0]) ? s1_a : s1_b;   // f3 0 min, 1 max
  end
  reg cmp;
  always @(*) begin
    case (s1_f3[1:0])
      2'd2:    cmp = ieee_eq;
      2'd1:    cmp = ieee_lt;
      default: cmp = ieee_lt | ieee_eq;
    endcase
  end
  reg [31:0] sgnj;
  always @(*) begin
    case (s1_f3[1:0])
      2'd0:    sgnj = {s1_b[31], s1_a[30:0]};
      2'd1:    sgnj = {~s1_b[31], s1_a[30:0]};
      default: sgnj = {s1_a[31] ^ s1_b[31], s1_a[30:0]};
    endcase
  end
  wire a_sub = (s1_a[30:23] == 8'd0) && !a_zero;
  wire a_norm = (s1_a[30:23] != 8'd0) && (s1_a[30:23] != 8'hFF);
  wire [9:0] fclass = {a_nan & s1_a[22], a_nan & !s1_a[22],
                       !s1_a[31] & a_inf, !s1_a[31] & a_norm, !s1_a[31] & a_sub, !s1_a[31] & a_zero,
                       s1_a[31] & a_zero, s1_a[31] & a_sub, s1_a[31] & a_norm, s1_a[31] & a_inf};

  // fcvt.w[u].s: |a| as fixed point with 32 fraction bits, rounded, then saturated
  wire [35:0] ua2 = unpack(s1_a[30:0]);
  wire signed [11:0] ae = $signed(ua2[35:24]);
  wire [5:0]  csh = (ae < -12'sd2) ? 6'd0 : (ae > 12'sd31) ? 6'd40 : ae[5:0] + 6'd9;
  wire [63:0] cfix = {40'd0, ua2[23:0]} << csh;
  wire        tiny = (ae < -12'sd2) && !a_zero;              // below 0.25: sticky only
  wire [31:0] ci_int = (ae < -12'sd2) ? 32'd0 : cfix[63:32];
  wire        ci_g = (ae < -12'sd2) ? 1'b0 : cfix[31];
  wire        ci_s = (ae < -12'sd2) ? tiny : (|cfix[30:0]);
  reg         ci_up;
  always @(*) begin
    case (s1_rm)
      RNE:     ci_up = ci_g & (ci_s | ci_int[0]);
      RTZ:     ci_up = 1'b0;
      RDN:     ci_up = s1_a[31] & (ci_g | ci_s);
      RUP:     ci_up = !s1_a[31] & (ci_g | ci_s);
      default: ci_up = ci_g;
    endcase
  end
  wire [32:0] ci_r = {1'b0, ci_int} + {32'd0, ci_up};
  wire        ci_big = (ae > 12'sd31) || a_inf;               // beyond 2^32 before rounding
  reg  [31:0] cvtws;
  always @(*) begin
    if (a_nan)
      cvtws = s1_nvnan ? 32'd0 : (s1_unsigned ? 32'hFFFF_FFFF : 32'h7FFF_FFFF);
    else if (s1_unsigned)
      cvtws = s1_a[31] ? 32'd0 : ((ci_big || ci_r[32]) ? 32'hFFFF_FFFF : ci_r[31:0]);
    else if (s1_a[31])
      cvtws = (ci_big || ci_r > 33'h0_8000_0000) ? 32'h8000_0000 : (~ci_r[31:0] + 32'd1);
    else
      cvtws = (ci_big || ci_r > 33'h0_7FFF_FFFF) ? 32'h7FFF_FFFF : ci_r[31:0];
  end

  always @(*) begin
    case (s1_kind)
      K_SGNJ:   result_o = sgnj;
      K_MINMAX: result_o = minmax;
      K_CMP:    result_o = {31'd0, cmp};
      K_CVTWS:  result_o = cvtws;
      K_MVXW:   result_o = s1_a;
      K_CLASS:  result_o = {22'd0, fclass};
      K_MVWX:   result_o = s1_x;
      default:  result_o = fma_res;                            // K_FMA, K_CVTSW
    endcase
  end

  // Unused on purpose: the register fields (simt_core reads the registers), funct3[2].
  wire unused_ok = &{1'b0, opcode[1:0], inst_i[26:21], inst_i[19:15], inst_i[11:7], s1_f3[2]};
endmodule

`default_nettype wire
