`default_nettype none
// cells_tb: checks the cell models of ecp5_sim_extra.v (the gate-level check's) against what
// Lattice documents and what Yosys's mappings expect of them: DP16KD as the 36-bit pseudo dual
// port of the bridge's answer store (byte enables, read of the other port's written data), as a
// 9-bit true dual port in READBEFOREWRITE mode (the receive ring) and as an 18-bit port with
// byte enables in NORMAL and WRITETHROUGH mode; ODDRX1F's two halves; MULT18X18D signed and
// unsigned; EHXPLLL's lock. Block-RAM collisions read X, which is random here: not checked. Every mismatch prints FAIL and counts in fails_o; done_o rises at
// the end (cells_tb.cpp runs the clock and turns fails_o into the exit status).
module cells_tb (
  input  wire        clk_i,
  output reg  [15:0] fails_o,
  output reg         done_o,
  output wire        oddr_inv_o,   // ODDRX1F with D0 = 0, D1 = 1: cells_tb.cpp checks each half
  output wire        oddr_same_o   // ODDRX1F with D0 = 1, D1 = 0
);
  reg [31:0] cyc_q = 32'd0;
  initial begin
    fails_o = 16'd0;
    done_o  = 1'b0;
  end
  task automatic check(input [35:0] got, input [35:0] want, input [8*24-1:0] what);
    if (got !== want) begin
      $display("FAIL cycle %0d %0s: got %09h, want %09h", cyc_q, what, got, want);
      fails_o = fails_o + 16'd1;
    end
  endtask

  // ---- DP16KD 512 x 36, A writes (byte enables on ADA[3:0]), B reads
  reg  [35:0] w36_d = 36'd0;
  reg  [8:0]  w36_a = 9'd0, r36_a = 9'd0;
  reg  [3:0]  w36_be = 4'd0;
  wire [35:0] r36;
  DP16KD #(.DATA_WIDTH_A(36), .DATA_WIDTH_B(36), .RESETMODE("ASYNC"), .ASYNC_RESET_RELEASE("ASYNC"),
           .GSR("DISABLED")) u_pdp (
    .DIA0(w36_d[0]), .DIA1(w36_d[1]), .DIA2(w36_d[2]), .DIA3(w36_d[3]), .DIA4(w36_d[4]), .DIA5(w36_d[5]), .DIA6(w36_d[6]), .DIA7(w36_d[7]), .DIA8(w36_d[8]), .DIA9(w36_d[9]), .DIA10(w36_d[10]), .DIA11(w36_d[11]), .DIA12(w36_d[12]), .DIA13(w36_d[13]), .DIA14(w36_d[14]), .DIA15(w36_d[15]), .DIA16(w36_d[16]), .DIA17(w36_d[17]),
    .DIB0(w36_d[18]), .DIB1(w36_d[19]), .DIB2(w36_d[20]), .DIB3(w36_d[21]), .DIB4(w36_d[22]), .DIB5(w36_d[23]), .DIB6(w36_d[24]), .DIB7(w36_d[25]), .DIB8(w36_d[26]), .DIB9(w36_d[27]), .DIB10(w36_d[28]), .DIB11(w36_d[29]), .DIB12(w36_d[30]), .DIB13(w36_d[31]), .DIB14(w36_d[32]), .DIB15(w36_d[33]), .DIB16(w36_d[34]), .DIB17(w36_d[35]),
    .ADA0(w36_be[0]), .ADA1(w36_be[1]), .ADA2(w36_be[2]), .ADA3(w36_be[3]), .ADA4(1'b0), .ADA5(w36_a[0]), .ADA6(w36_a[1]), .ADA7(w36_a[2]), .ADA8(w36_a[3]), .ADA9(w36_a[4]), .ADA10(w36_a[5]), .ADA11(w36_a[6]), .ADA12(w36_a[7]), .ADA13(w36_a[8]),
    .ADB0(1'b0), .ADB1(1'b0), .ADB2(1'b0), .ADB3(1'b0), .ADB4(1'b0), .ADB5(r36_a[0]), .ADB6(r36_a[1]), .ADB7(r36_a[2]), .ADB8(r36_a[3]), .ADB9(r36_a[4]), .ADB10(r36_a[5]), .ADB11(r36_a[6]), .ADB12(r36_a[7]), .ADB13(r36_a[8]),
    .CEA(1'b1), .OCEA(1'b0), .CLKA(clk_i), .WEA(1'b1), .RSTA(1'b0), .CSA2(1'b0), .CSA1(1'b0), .CSA0(1'b0),
    .CEB(1'b1), .OCEB(1'b1), .CLKB(clk_i), .WEB(1'b0), .RSTB(1'b0), .CSB2(1'b0), .CSB1(1'b0), .CSB0(1'b0),
    .DOA0(r36[0]), .DOA1(r36[1]), .DOA2(r36[2]), .DOA3(r36[3]), .DOA4(r36[4]), .DOA5(r36[5]), .DOA6(r36[6]), .DOA7(r36[7]), .DOA8(r36[8]), .DOA9(r36[9]), .DOA10(r36[10]), .DOA11(r36[11]), .DOA12(r36[12]), .DOA13(r36[13]), .DOA14(r36[14]), .DOA15(r36[15]), .DOA16(r36[16]), .DOA17(r36[17]),
    .DOB0(r36[18]), .DOB1(r36[19]), .DOB2(r36[20]), .DOB3(r36[21]), .DOB4(r36[22]), .DOB5(r36[23]), .DOB6(r36[24]), .DOB7(r36[25]), .DOB8(r36[26]), .DOB9(r36[27]), .DOB10(r36[28]), .DOB11(r36[29]), .DOB12(r36[30]), .DOB13(r36[31]), .DOB14(r36[32]), .DOB15(r36[33]), .DOB16(r36[34]), .DOB17(r36[35])
  );

  // ---- DP16KD 2048 x 9, both ports read and write, READBEFOREWRITE
  reg  [8:0]  a9_d = 9'd0, b9_d = 9'd0;
  reg  [10:0] a9_a = 11'd0, b9_a = 11'd0;
  reg         a9_we = 1'b0, b9_we = 1'b0;
  wire [17:0] a9_q, b9_q;
  DP16KD #(.DATA_WIDTH_A(9), .DATA_WIDTH_B(9), .WRITEMODE_A("READBEFOREWRITE"),
           .WRITEMODE_B("READBEFOREWRITE"), .RESETMODE("ASYNC"), .GSR("DISABLED")) u_tdp9 (
    .DIA0(a9_d[0]), .DIA1(a9_d[1]), .DIA2(a9_d[2]), .DIA3(a9_d[3]), .DIA4(a9_d[4]), .DIA5(a9_d[5]), .DIA6(a9_d[6]), .DIA7(a9_d[7]), .DIA8(a9_d[8]), .DIA9(1'b0), .DIA10(1'b0), .DIA11(1'b0), .DIA12(1'b0), .DIA13(1'b0), .DIA14(1'b0), .DIA15(1'b0), .DIA16(1'b0), .DIA17(1'b0),
    .DIB0(b9_d[0]), .DIB1(b9_d[1]), .DIB2(b9_d[2]), .DIB3(b9_d[3]), .DIB4(b9_d[4]), .DIB5(b9_d[5]), .DIB6(b9_d[6]), .DIB7(b9_d[7]), .DIB8(b9_d[8]), .DIB9(1'b0), .DIB10(1'b0), .DIB11(1'b0), .DIB12(1'b0), .DIB13(1'b0), .DIB14(1'b0), .DIB15(1'b0), .DIB16(1'b0), .DIB17(1'b0),
    .ADA0(1'b0), .ADA1(1'b0), .ADA2(1'b0), .ADA3(a9_a[0]), .ADA4(a9_a[1]), .ADA5(a9_a[2]), .ADA6(a9_a[3]), .ADA7(a9_a[4]), .ADA8(a9_a[5]), .ADA9(a9_a[6]), .ADA10(a9_a[7]), .ADA11(a9_a[8]), .ADA12(a9_a[9]), .ADA13(a9_a[10]),
    .ADB0(1'b0), .ADB1(1'b0), .ADB2(1'b0), .ADB3(b9_a[0]), .ADB4(b9_a[1]), .ADB5(b9_a[2]), .ADB6(b9_a[3]), .ADB7(b9_a[4]), .ADB8(b9_a[5]), .ADB9(b9_a[6]), .ADB10(b9_a[7]), .ADB11(b9_a[8]), .ADB12(b9_a[9]), .ADB13(b9_a[10]),
    .CEA(1'b1), .OCEA(1'b1), .CLKA(clk_i), .WEA(a9_we), .RSTA(1'b0), .CSA2(1'b0), .CSA1(1'b0), .CSA0(1'b0),
    .CEB(1'b1), .OCEB(1'b1), .CLKB(clk_i), .WEB(b9_we), .RSTB(1'b0), .CSB2(1'b0), .CSB1(1'b0), .CSB0(1'b0),
    .DOA0(a9_q[0]), .DOA1(a9_q[1]), .DOA2(a9_q[2]), .DOA3(a9_q[3]), .DOA4(a9_q[4]), .DOA5(a9_q[5]), .DOA6(a9_q[6]), .DOA7(a9_q[7]), .DOA8(a9_q[8]), .DOA9(a9_q[9]), .DOA10(a9_q[10]), .DOA11(a9_q[11]), .DOA12(a9_q[12]), .DOA13(a9_q[13]), .DOA14(a9_q[14]), .DOA15(a9_q[15]), .DOA16(a9_q[16]), .DOA17(a9_q[17]),
    .DOB0(b9_q[0]), .DOB1(b9_q[1]), .DOB2(b9_q[2]), .DOB3(b9_q[3]), .DOB4(b9_q[4]), .DOB5(b9_q[5]), .DOB6(b9_q[6]), .DOB7(b9_q[7]), .DOB8(b9_q[8]), .DOB9(b9_q[9]), .DOB10(b9_q[10]), .DOB11(b9_q[11]), .DOB12(b9_q[12]), .DOB13(b9_q[13]), .DOB14(b9_q[14]), .DOB15(b9_q[15]), .DOB16(b9_q[16]), .DOB17(b9_q[17])
  );

  // ---- DP16KD 1024 x 18 with byte enables: A in WRITETHROUGH, B in NORMAL
  reg  [17:0] a18_d = 18'd0, b18_d = 18'd0;
  reg  [9:0]  a18_a = 10'd0, b18_a = 10'd0;
  reg  [1:0]  a18_be = 2'd0, b18_be = 2'd0;
  reg         a18_we = 1'b0, b18_we = 1'b0;
  wire [17:0] a18_q, b18_q;
  DP16KD #(.DATA_WIDTH_A(18), .DATA_WIDTH_B(18), .WRITEMODE_A("WRITETHROUGH"), .WRITEMODE_B("NORMAL"),
           .RESETMODE("SYNC"), .GSR("DISABLED"), .INITVAL_00(320'h0000000000000000000000000000000000000000000000000000000000000000000000000001bcde)) u_tdp18 (
    .DIA0(a18_d[0]), .DIA1(a18_d[1]), .DIA2(a18_d[2]), .DIA3(a18_d[3]), .DIA4(a18_d[4]), .DIA5(a18_d[5]), .DIA6(a18_d[6]), .DIA7(a18_d[7]), .DIA8(a18_d[8]), .DIA9(a18_d[9]), .DIA10(a18_d[10]), .DIA11(a18_d[11]), .DIA12(a18_d[12]), .DIA13(a18_d[13]), .DIA14(a18_d[14]), .DIA15(a18_d[15]), .DIA16(a18_d[16]), .DIA17(a18_d[17]),
    .DIB0(b18_d[0]), .DIB1(b18_d[1]), .DIB2(b18_d[2]), .DIB3(b18_d[3]), .DIB4(b18_d[4]), .DIB5(b18_d[5]), .DIB6(b18_d[6]), .DIB7(b18_d[7]), .DIB8(b18_d[8]), .DIB9(b18_d[9]), .DIB10(b18_d[10]), .DIB11(b18_d[11]), .DIB12(b18_d[12]), .DIB13(b18_d[13]), .DIB14(b18_d[14]), .DIB15(b18_d[15]), .DIB16(b18_d[16]), .DIB17(b18_d[17]),
    .ADA0(a18_be[0]), .ADA1(a18_be[1]), .ADA2(1'b0), .ADA3(1'b0), .ADA4(a18_a[0]), .ADA5(a18_a[1]), .ADA6(a18_a[2]), .ADA7(a18_a[3]), .ADA8(a18_a[4]), .ADA9(a18_a[5]), .ADA10(a18_a[6]), .ADA11(a18_a[7]), .ADA12(a18_a[8]), .ADA13(a18_a[9]),
    .ADB0(b18_be[0]), .ADB1(b18_be[1]), .ADB2(1'b0), .ADB3(1'b0), .ADB4(b18_a[0]), .ADB5(b18_a[1]), .ADB6(b18_a[2]), .ADB7(b18_a[3]), .ADB8(b18_a[4]), .ADB9(b18_a[5]), .ADB10(b18_a[6]), .ADB11(b18_a[7]), .ADB12(b18_a[8]), .ADB13(b18_a[9]),
    .CEA(1'b1), .OCEA(1'b1), .CLKA(clk_i), .WEA(a18_we), .RSTA(1'b0), .CSA2(1'b0), .CSA1(1'b0), .CSA0(1'b0),
    .CEB(1'b1), .OCEB(1'b1), .CLKB(clk_i), .WEB(b18_we), .RSTB(1'b0), .CSB2(1'b0), .CSB1(1'b0), .CSB0(1'b0),
    .DOA0(a18_q[0]), .DOA1(a18_q[1]), .DOA2(a18_q[2]), .DOA3(a18_q[3]), .DOA4(a18_q[4]), .DOA5(a18_q[5]), .DOA6(a18_q[6]), .DOA7(a18_q[7]), .DOA8(a18_q[8]), .DOA9(a18_q[9]), .DOA10(a18_q[10]), .DOA11(a18_q[11]), .DOA12(a18_q[12]), .DOA13(a18_q[13]), .DOA14(a18_q[14]), .DOA15(a18_q[15]), .DOA16(a18_q[16]), .DOA17(a18_q[17]),
    .DOB0(b18_q[0]), .DOB1(b18_q[1]), .DOB2(b18_q[2]), .DOB3(b18_q[3]), .DOB4(b18_q[4]), .DOB5(b18_q[5]), .DOB6(b18_q[6]), .DOB7(b18_q[7]), .DOB8(b18_q[8]), .DOB9(b18_q[9]), .DOB10(b18_q[10]), .DOB11(b18_q[11]), .DOB12(b18_q[12]), .DOB13(b18_q[13]), .DOB14(b18_q[14]), .DOB15(b18_q[15]), .DOB16(b18_q[16]), .DOB17(b18_q[17])
  );

  // ---- ODDRX1F: D0 = 0, D1 = 1 (the SDRAM clock), and D0 = 1, D1 = 0
  wire oddr_inv, oddr_same;
  ODDRX1F u_oddr_inv  (.SCLK(clk_i), .RST(1'b0), .D0(1'b0), .D1(1'b1), .Q(oddr_inv));
  ODDRX1F u_oddr_same (.SCLK(clk_i), .RST(1'b0), .D0(1'b1), .D1(1'b0), .Q(oddr_same));

  // ---- MULT18X18D, unsigned and signed
  reg  [17:0] ma = 18'd0, mb = 18'd0;
  reg         msigned = 1'b0;
  wire [35:0] mp;
  MULT18X18D u_mul (
    .A0(ma[0]), .A1(ma[1]), .A2(ma[2]), .A3(ma[3]), .A4(ma[4]), .A5(ma[5]), .A6(ma[6]), .A7(ma[7]), .A8(ma[8]), .A9(ma[9]), .A10(ma[10]), .A11(ma[11]), .A12(ma[12]), .A13(ma[13]), .A14(ma[14]), .A15(ma[15]), .A16(ma[16]), .A17(ma[17]),
    .B0(mb[0]), .B1(mb[1]), .B2(mb[2]), .B3(mb[3]), .B4(mb[4]), .B5(mb[5]), .B6(mb[6]), .B7(mb[7]), .B8(mb[8]), .B9(mb[9]), .B10(mb[10]), .B11(mb[11]), .B12(mb[12]), .B13(mb[13]), .B14(mb[14]), .B15(mb[15]), .B16(mb[16]), .B17(mb[17]),
    .C0(1'b0), .C1(1'b0), .C2(1'b0), .C3(1'b0), .C4(1'b0), .C5(1'b0), .C6(1'b0), .C7(1'b0), .C8(1'b0), .C9(1'b0), .C10(1'b0), .C11(1'b0), .C12(1'b0), .C13(1'b0), .C14(1'b0), .C15(1'b0), .C16(1'b0), .C17(1'b0),
    .SIGNEDA(msigned), .SIGNEDB(msigned), .SOURCEA(1'b0), .SOURCEB(1'b0),
    .CLK0(1'b0), .CLK1(1'b0), .CLK2(1'b0), .CLK3(1'b0), .CE0(1'b0), .CE1(1'b0), .CE2(1'b0), .CE3(1'b0),
    .RST0(1'b0), .RST1(1'b0), .RST2(1'b0), .RST3(1'b0),
    .SRIA0(1'b0), .SRIA1(1'b0), .SRIA2(1'b0), .SRIA3(1'b0), .SRIA4(1'b0), .SRIA5(1'b0), .SRIA6(1'b0), .SRIA7(1'b0), .SRIA8(1'b0), .SRIA9(1'b0), .SRIA10(1'b0), .SRIA11(1'b0), .SRIA12(1'b0), .SRIA13(1'b0), .SRIA14(1'b0), .SRIA15(1'b0), .SRIA16(1'b0), .SRIA17(1'b0),
    .SRIB0(1'b0), .SRIB1(1'b0), .SRIB2(1'b0), .SRIB3(1'b0), .SRIB4(1'b0), .SRIB5(1'b0), .SRIB6(1'b0), .SRIB7(1'b0), .SRIB8(1'b0), .SRIB9(1'b0), .SRIB10(1'b0), .SRIB11(1'b0), .SRIB12(1'b0), .SRIB13(1'b0), .SRIB14(1'b0), .SRIB15(1'b0), .SRIB16(1'b0), .SRIB17(1'b0),
    .P0(mp[0]), .P1(mp[1]), .P2(mp[2]), .P3(mp[3]), .P4(mp[4]), .P5(mp[5]), .P6(mp[6]), .P7(mp[7]), .P8(mp[8]), .P9(mp[9]), .P10(mp[10]), .P11(mp[11]), .P12(mp[12]), .P13(mp[13]), .P14(mp[14]), .P15(mp[15]), .P16(mp[16]), .P17(mp[17]), .P18(mp[18]), .P19(mp[19]), .P20(mp[20]), .P21(mp[21]), .P22(mp[22]), .P23(mp[23]), .P24(mp[24]), .P25(mp[25]), .P26(mp[26]), .P27(mp[27]), .P28(mp[28]), .P29(mp[29]), .P30(mp[30]), .P31(mp[31]), .P32(mp[32]), .P33(mp[33]), .P34(mp[34]), .P35(mp[35])
  );

  // ---- EHXPLLL as board_pll.v configures it (25 MHz x 2)
  wire pll_clk, pll_lock;
  EHXPLLL #(.CLKI_DIV(1), .CLKFB_DIV(2), .CLKOP_DIV(12), .CLKOP_CPHASE(5), .FEEDBK_PATH("CLKOP")) u_pll (
    .CLKI(clk_i), .CLKFB(pll_clk), .PHASESEL1(1'b0), .PHASESEL0(1'b0), .PHASEDIR(1'b1), .PHASESTEP(1'b1),
    .PHASELOADREG(1'b1), .STDBY(1'b0), .PLLWAKESYNC(1'b0), .RST(1'b0), .ENCLKOP(1'b0), .ENCLKOS(1'b0),
    .ENCLKOS2(1'b0), .ENCLKOS3(1'b0), .CLKOP(pll_clk), .CLKOS(), .CLKOS2(), .CLKOS3(), .LOCK(pll_lock),
    .INTLOCK(), .REFCLK(), .CLKINTFB());

  assign oddr_inv_o  = oddr_inv;
  assign oddr_same_o = oddr_same;

  // Stimulus and checks: each case sets inputs at one rising edge and checks what the
  // cells show after the next ones (NOREG block RAM: data one edge after the address).
  always @(posedge clk_i) begin
    cyc_q  <= cyc_q + 32'd1;
    w36_be <= 4'd0;
    a9_we  <= 1'b0;
    b9_we  <= 1'b0;
    a18_we <= 1'b0;
    b18_we <= 1'b0;
    case (cyc_q)
      // 36 wide: full word, then only bytes 1 and 3 of the same word, then another word
      32'd1: begin w36_a <= 9'd5; w36_d <= 36'h123456789; w36_be <= 4'b1111; end
      32'd2: begin w36_a <= 9'd5; w36_d <= 36'hfedcba987; w36_be <= 4'b1010; end
      32'd3: begin w36_a <= 9'd6; w36_d <= 36'h0a5a5a5a5; w36_be <= 4'b1111; r36_a <= 9'd5; end
      32'd5: begin r36_a <= 9'd6; check(r36, 36'hfeb47a989, "36: bytes 1, 3 rewritten"); end
      32'd7: check(r36, 36'h0a5a5a5a5, "36: second word");
      // 9 wide: A writes 0x1a5 at 7, B reads it; A writes 0x033 at 7 while reading (old data)
      32'd10: begin a9_a <= 11'd7; a9_d <= 9'h1a5; a9_we <= 1'b1; end
      32'd11: begin b9_a <= 11'd7; a9_a <= 11'd3; end   // A reads elsewhere before its write
      32'd13: begin check({27'd0, b9_q[8:0]}, 36'h1a5, "9: B reads A's write");
                    b9_a <= 11'd9; a9_a <= 11'd7; a9_d <= 9'h033; a9_we <= 1'b1; end
      32'd15: check({27'd0, a9_q[8:0]}, 36'h1a5, "9: read before write");
      32'd16: begin check({27'd0, a9_q[8:0]}, 36'h033, "9: new data after");
                    b9_a <= 11'd8; b9_d <= 9'h0ff; b9_we <= 1'b1; end
      32'd17: a9_a <= 11'd8;
      32'd19: check({27'd0, a9_q[8:0]}, 36'h0ff, "9: A reads B's write");
      // 18 wide: INITVAL word 0; A writes the low byte only (WRITETHROUGH shows it), B
      // writes with NORMAL (its output keeps the old read)
      32'd20: begin a18_a <= 10'd0; b18_a <= 10'd0; end
      32'd22: begin check({18'd0, a18_q}, 36'h01bcde, "18: INITVAL");
                    a18_d <= 18'h3ffff; a18_be <= 2'b01; a18_we <= 1'b1; end
      32'd24: check({18'd0, a18_q}, {18'd0, 9'h0de, 9'h1ff}, "18: write-through low byte");
      32'd25: begin b18_d <= 18'h00000; b18_be <= 2'b10; b18_we <= 1'b1; a18_a <= 10'd1; end
      32'd27: check({18'd0, b18_q}, {18'd0, 9'h0de, 9'h1ff}, "18: NORMAL keeps output");
      32'd28: a18_a <= 10'd0;
      32'd30: check({18'd0, a18_q}, {18'd0, 9'h000, 9'h1ff}, "18: high byte written");
      // multiplier
      32'd32: begin ma <= 18'd1000; mb <= 18'd3000; msigned <= 1'b0; end
      32'd33: begin check(mp, 36'd3000000, "mul unsigned");
                    ma <= 18'h3ffff; mb <= 18'd2; msigned <= 1'b1; end   // -1 * 2
      32'd34: begin check(mp, 36'hffffffffe, "mul signed -1*2");
                    msigned <= 1'b0; end
      32'd35: check(mp, 36'h00007fffe, "mul unsigned 0x3ffff*2");
      32'd40: begin
        check({35'd0, pll_lock}, 36'd1, "PLL locked");
        done_o <= 1'b1;
      end
      default: ;
    endcase
    if (cyc_q < 7 && pll_lock) check(36'd1, 36'd0, "PLL locked too early");
  end
endmodule
`default_nettype wire
