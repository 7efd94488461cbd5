`default_nettype none
// Simulation models of the ECP5 primitives the board's netlist uses and Yosys's cells_sim.v
// leaves as black boxes (cells_bb.v), for the gate-level check (board/ulx3s/gatelevel/README.md).
// Each is the behaviour the design relies on, written here from Lattice's primitive descriptions
// (FPGA-TN-02032 "ECP5 sysCLOCK PLL/DLL", FPGA-TN-02035 "ECP5 High-Speed I/O Interface"), and
// no more: nothing in the netlist is simulated by a model of the RTL it came from.
//
// EHXPLLL: the harness drives clk_25mhz with the design clock itself (as sim-board does), so
// CLKOP is CLKI: the PLL's multiplication is not simulated, only its lock. The parameters are
// checked for the one configuration board_pll.v makes (feedback from CLKOP, f_out = f_in *
// CLKFB_DIV / CLKI_DIV, VCO = f_out * CLKOP_DIV inside 400..800 MHz for the 25 MHz input), so
// a netlist with other divider settings stops the simulation instead of passing silently.
// LOCK rises LOCK_CYCLES cycles of CLKI after the start (the lock counter starts from zero: the
// real PLL is unlocked at configuration), and RST clears it.
module EHXPLLL #(
  parameter integer CLKI_DIV = 1, parameter integer CLKFB_DIV = 1, parameter integer CLKOP_DIV = 8,
  parameter integer CLKOS_DIV = 8, parameter integer CLKOS2_DIV = 8, parameter integer CLKOS3_DIV = 8,
  parameter CLKOP_ENABLE = "ENABLED", parameter CLKOS_ENABLE = "DISABLED",
  parameter CLKOS2_ENABLE = "DISABLED", parameter CLKOS3_ENABLE = "DISABLED",
  parameter integer CLKOP_CPHASE = 0, parameter integer CLKOS_CPHASE = 0,
  parameter integer CLKOS2_CPHASE = 0, parameter integer CLKOS3_CPHASE = 0,
  parameter integer CLKOP_FPHASE = 0, parameter integer CLKOS_FPHASE = 0,
  parameter integer CLKOS2_FPHASE = 0, parameter integer CLKOS3_FPHASE = 0,
  parameter FEEDBK_PATH = "CLKOP", parameter CLKOP_TRIM_POL = "RISING",
  parameter integer CLKOP_TRIM_DELAY = 0, parameter CLKOS_TRIM_POL = "RISING",
  parameter integer CLKOS_TRIM_DELAY = 0, parameter OUTDIVIDER_MUXA = "DIVA",
  parameter OUTDIVIDER_MUXB = "DIVB", parameter OUTDIVIDER_MUXC = "DIVC",
  parameter OUTDIVIDER_MUXD = "DIVD", parameter integer PLL_LOCK_MODE = 0,
  parameter integer PLL_LOCK_DELAY = 200, parameter STDBY_ENABLE = "DISABLED",
  parameter REFIN_RESET = "DISABLED", parameter SYNC_ENABLE = "DISABLED",
  parameter INT_LOCK_STICKY = "ENABLED", parameter DPHASE_SOURCE = "DISABLED",
  parameter PLLRST_ENA = "DISABLED", parameter INTFB_WAKE = "DISABLED"
) (
  input  wire CLKI, CLKFB,
  input  wire PHASESEL1, PHASESEL0, PHASEDIR, PHASESTEP, PHASELOADREG,
  input  wire STDBY, PLLWAKESYNC,
  input  wire RST, ENCLKOP, ENCLKOS, ENCLKOS2, ENCLKOS3,
  output wire CLKOP, CLKOS, CLKOS2, CLKOS3,
  output wire LOCK, INTLOCK,
  output wire REFCLK, CLKINTFB
);
  localparam integer LOCK_CYCLES = 8;
  localparam integer F_IN_KHZ    = 25000;
  localparam integer F_OUT_KHZ   = F_IN_KHZ * CLKFB_DIV / CLKI_DIV;
  localparam integer F_VCO_KHZ   = F_OUT_KHZ * CLKOP_DIV;
  initial begin
    if (FEEDBK_PATH != "CLKOP" || CLKOP_ENABLE != "ENABLED" || F_VCO_KHZ < 400000 ||
        F_VCO_KHZ > 800000) begin
      $display("EHXPLLL model: unsupported configuration (FEEDBK_PATH %s, CLKI_DIV %0d, CLKFB_DIV %0d, CLKOP_DIV %0d: VCO %0d kHz)",
               FEEDBK_PATH, CLKI_DIV, CLKFB_DIV, CLKOP_DIV, F_VCO_KHZ);
      $stop;
    end
  end
  reg [3:0] lock_cnt_q = 4'd0;
  always @(posedge CLKI or posedge RST)
    if (RST)                          lock_cnt_q <= 4'd0;
    else if (lock_cnt_q != LOCK_CYCLES) lock_cnt_q <= lock_cnt_q + 4'd1;
  assign CLKOP    = CLKI;
  assign CLKOS    = 1'b0;
  assign CLKOS2   = 1'b0;
  assign CLKOS3   = 1'b0;
  assign LOCK     = lock_cnt_q == LOCK_CYCLES;
  assign INTLOCK  = LOCK;
  assign REFCLK   = CLKI;
  assign CLKINTFB = 1'b0;
endmodule

// ODDRX1F: one-to-two output DDR register. D0 and D1 are taken at SCLK's rising edge; Q shows
// D0 for the high half of the next SCLK cycle and D1 for its low half (D1 passes a falling-edge
// register so that Q changes only at SCLK's edges). RST (asynchronous, active high) clears
// both. Power-up state: zero (GSR).
module ODDRX1F #(
  parameter GSR = "ENABLED"
) (
  input  wire SCLK, RST, D0, D1,
  output wire Q
);
  reg d0_q = 1'b0, d1_q = 1'b0, d1_fall_q = 1'b0;
  always @(posedge SCLK or posedge RST)
    if (RST) begin
      d0_q <= 1'b0;
      d1_q <= 1'b0;
    end else begin
      d0_q <= D0;
      d1_q <= D1;
    end
  always @(negedge SCLK or posedge RST)
    if (RST) d1_fall_q <= 1'b0;
    else     d1_fall_q <= d1_q;
  assign Q = SCLK ? d0_q : d1_fall_q;
endmodule

// TRELLIS_IO: Yosys's model (cells_sim.v) with one change. Its T input goes through
// `T === 1'bz` (an unconnected T reads as "drive"), which Verilator 5.006 takes for a tristate
// on T and refuses ("tristate in top-level IO"); here T is a plain input, as it is in this
// netlist, where every I/O cell's T is driven. gen_gatelevel_top.py leaves Yosys's TRELLIS_IO
// out of the cell library it copies, so this one is the only definition.
module TRELLIS_IO #(
  parameter DIR = "INPUT"
) (
  inout  wire B,
  input  wire I,
  input  wire T,
  output wire O
);
  generate
    if (DIR == "INPUT") begin : g_in
      assign B = 1'bz;
      assign O = B;
    end else if (DIR == "OUTPUT") begin : g_out
      assign B = T ? 1'bz : I;
      assign O = 1'bx;
    end else if (DIR == "BIDIR") begin : g_bidir
      assign B = T ? 1'bz : I;
      assign O = B;
    end else begin : g_bad
      initial begin
        $display("TRELLIS_IO model: unknown DIR %s", DIR);
        $stop;
      end
    end
  endgenerate
endmodule

// MULT18X18D: 18x18 multiplier, only as Yosys's DSP mapping (dsp_map.v) instantiates it: no
// input, pipeline or output register (every REG_*_CLK "NONE"), operands from the A/B pins
// (SOURCEA/SOURCEB 0), SIGNEDA/SIGNEDB choosing each operand's signedness; P = A * B, 36 bits.
// Any other configuration stops the simulation. The shift-chain and register outputs (SRO*,
// RO*) are not modelled: they read X (random in Verilator with --x-assign unique), so a netlist
// that used them would fail instead of passing on made-up values.
module MULT18X18D #(
  parameter REG_INPUTA_CLK = "NONE",
  parameter REG_INPUTA_CE = "CE0",
  parameter REG_INPUTA_RST = "RST0",
  parameter REG_INPUTB_CLK = "NONE",
  parameter REG_INPUTB_CE = "CE0",
  parameter REG_INPUTB_RST = "RST0",
  parameter REG_INPUTC_CLK = "NONE",
  parameter REG_INPUTC_CE = "CE0",
  parameter REG_INPUTC_RST = "RST0",
  parameter REG_PIPELINE_CLK = "NONE",
  parameter REG_PIPELINE_CE = "CE0",
  parameter REG_PIPELINE_RST = "RST0",
  parameter REG_OUTPUT_CLK = "NONE",
  parameter REG_OUTPUT_CE = "CE0",
  parameter REG_OUTPUT_RST = "RST0",
  parameter CLK0_DIV = "ENABLED",
  parameter CLK1_DIV = "ENABLED",
  parameter CLK2_DIV = "ENABLED",
  parameter CLK3_DIV = "ENABLED",
  parameter HIGHSPEED_CLK = "NONE",
  parameter GSR = "ENABLED",
  parameter CAS_MATCH_REG = "FALSE",
  parameter SOURCEB_MODE = "B_SHIFT",
  parameter MULT_BYPASS = "DISABLED",
  parameter RESETMODE = "SYNC"
) (
  input  wire A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17,
  input  wire B0, B1, B2, B3, B4, B5, B6, B7, B8, B9, B10, B11, B12, B13, B14, B15, B16, B17,
  input  wire C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15, C16, C17,
  input  wire SIGNEDA, SIGNEDB, SOURCEA, SOURCEB,
  input  wire CLK0, CLK1, CLK2, CLK3,
  input  wire CE0, CE1, CE2, CE3,
  input  wire RST0, RST1, RST2, RST3,
  input  wire SRIA0, SRIA1, SRIA2, SRIA3, SRIA4, SRIA5, SRIA6, SRIA7, SRIA8, SRIA9, SRIA10, SRIA11, SRIA12, SRIA13, SRIA14, SRIA15, SRIA16, SRIA17,
  input  wire SRIB0, SRIB1, SRIB2, SRIB3, SRIB4, SRIB5, SRIB6, SRIB7, SRIB8, SRIB9, SRIB10, SRIB11, SRIB12, SRIB13, SRIB14, SRIB15, SRIB16, SRIB17,
  output wire SROA0, SROA1, SROA2, SROA3, SROA4, SROA5, SROA6, SROA7, SROA8, SROA9, SROA10, SROA11, SROA12, SROA13, SROA14, SROA15, SROA16, SROA17,
  output wire SROB0, SROB1, SROB2, SROB3, SROB4, SROB5, SROB6, SROB7, SROB8, SROB9, SROB10, SROB11, SROB12, SROB13, SROB14, SROB15, SROB16, SROB17,
  output wire ROA0, ROA1, ROA2, ROA3, ROA4, ROA5, ROA6, ROA7, ROA8, ROA9, ROA10, ROA11, ROA12, ROA13, ROA14, ROA15, ROA16, ROA17,
  output wire ROB0, ROB1, ROB2, ROB3, ROB4, ROB5, ROB6, ROB7, ROB8, ROB9, ROB10, ROB11, ROB12, ROB13, ROB14, ROB15, ROB16, ROB17,
  output wire ROC0, ROC1, ROC2, ROC3, ROC4, ROC5, ROC6, ROC7, ROC8, ROC9, ROC10, ROC11, ROC12, ROC13, ROC14, ROC15, ROC16, ROC17,
  output wire P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14, P15, P16, P17, P18, P19, P20, P21, P22, P23, P24, P25, P26, P27, P28, P29, P30, P31, P32, P33, P34, P35,
  output wire SIGNEDP
);
  initial begin
    if (REG_INPUTA_CLK != "NONE" || REG_INPUTB_CLK != "NONE" || REG_INPUTC_CLK != "NONE" ||
        REG_PIPELINE_CLK != "NONE" || REG_OUTPUT_CLK != "NONE" || MULT_BYPASS != "DISABLED") begin
      $display("MULT18X18D model: only the combinational multiplier is modelled");
      $stop;
    end
  end
  wire [17:0] a = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
  wire [17:0] b = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
  // Sign-extend each operand as SIGNEDA/SIGNEDB say, then one 36-bit product.
  wire [35:0] a_ext = {{18{SIGNEDA & a[17]}}, a};
  wire [35:0] b_ext = {{18{SIGNEDB & b[17]}}, b};
  wire [35:0] p     = a_ext * b_ext;
  assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = p;
  assign SIGNEDP = SIGNEDA | SIGNEDB;
  assign {SROA17, SROA16, SROA15, SROA14, SROA13, SROA12, SROA11, SROA10, SROA9, SROA8, SROA7, SROA6, SROA5, SROA4, SROA3, SROA2, SROA1, SROA0} = 18'bx;
  assign {SROB17, SROB16, SROB15, SROB14, SROB13, SROB12, SROB11, SROB10, SROB9, SROB8, SROB7, SROB6, SROB5, SROB4, SROB3, SROB2, SROB1, SROB0} = 18'bx;
  assign {ROA17, ROA16, ROA15, ROA14, ROA13, ROA12, ROA11, ROA10, ROA9, ROA8, ROA7, ROA6, ROA5, ROA4, ROA3, ROA2, ROA1, ROA0} = 18'bx;
  assign {ROB17, ROB16, ROB15, ROB14, ROB13, ROB12, ROB11, ROB10, ROB9, ROB8, ROB7, ROB6, ROB5, ROB4, ROB3, ROB2, ROB1, ROB0} = 18'bx;
  assign {ROC17, ROC16, ROC15, ROC14, ROC13, ROC12, ROC11, ROC10, ROC9, ROC8, ROC7, ROC6, ROC5, ROC4, ROC3, ROC2, ROC1, ROC0} = 18'bx;
  // The sources and controls of the unmodelled parts are read by nothing.
  wire unused = &{1'b0, SOURCEA, SOURCEB, CLK0, CLK1, CLK2, CLK3, CE0, CE1, CE2, CE3, RST0, RST1, RST2, RST3,
                  C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15, C16, C17,
                  SRIA0, SRIA1, SRIA2, SRIA3, SRIA4, SRIA5, SRIA6, SRIA7, SRIA8, SRIA9, SRIA10, SRIA11, SRIA12, SRIA13, SRIA14, SRIA15, SRIA16, SRIA17,
                  SRIB0, SRIB1, SRIB2, SRIB3, SRIB4, SRIB5, SRIB6, SRIB7, SRIB8, SRIB9, SRIB10, SRIB11, SRIB12, SRIB13, SRIB14, SRIB15, SRIB16, SRIB17};
endmodule

// DP16KD: the ECP5's 18 Kbit block RAM (EBR). Yosys's cells_sim.v declares only its parameters
// (no behaviour: its outputs would float), so it is modelled here from Lattice's ECP5 memory
// usage guide (FPGA-TN-02204), for the configurations Yosys's block-RAM mapping (brams_map.v)
// makes, and no others (anything else stops the simulation):
//  - true dual port, each port 9 or 18 bits wide (2048 x 9: address AD[13:3]; 1024 x 18:
//    address AD[13:4], byte enables AD[1:0] for bits [8:0] and [17:9] of a write);
//  - 36 bits wide (512 x 36, pseudo dual port): port A writes, address ADA[13:5], byte enables
//    ADA[3:0] for the four 9-bit bytes of {DIB, DIA}; port B reads {DOB, DOA} at ADB[13:5];
//  - output registers bypassed (REGMODE NOREG): DO changes at the port's clock edge when CE is
//    high and CS[2:0] matches CSDECODE; WRITEMODE NORMAL keeps DO during a write, WRITETHROUGH
//    shows the new data, READBEFOREWRITE the old; RST clears DO (RESETMODE SYNC at the edge,
//    ASYNC at once);
//  - contents from INITVAL_00..3F at configuration (16 entries of 18 bits, in 20-bit slots, per
//    INITVAL), as the bitstream loads them.
// The storage is 1024 entries of 18 bits; a 9-bit word is one half of an entry (AD[3]), a 36-bit
// word two consecutive entries (low half first). A read of an entry the other port writes at
// the same edge reads X (random here): Lattice leaves that collision undefined (detected for
// ports on one clock, as every block RAM of this design is).
module DP16KD #(
  parameter integer DATA_WIDTH_A = 18,
  parameter integer DATA_WIDTH_B = 18,
  parameter REGMODE_A = "NOREG",
  parameter REGMODE_B = "NOREG",
  parameter RESETMODE = "SYNC",
  parameter ASYNC_RESET_RELEASE = "SYNC",
  parameter CSDECODE_A = "0b000",
  parameter CSDECODE_B = "0b000",
  parameter WRITEMODE_A = "NORMAL",
  parameter WRITEMODE_B = "NORMAL",
  parameter CLKAMUX = "CLKA",
  parameter CLKBMUX = "CLKB",
  parameter DIA0MUX = "DIA0",
  parameter DIA1MUX = "DIA1",
  parameter DIA2MUX = "DIA2",
  parameter DIA3MUX = "DIA3",
  parameter DIA4MUX = "DIA4",
  parameter DIA5MUX = "DIA5",
  parameter DIA6MUX = "DIA6",
  parameter DIA7MUX = "DIA7",
  parameter DIA8MUX = "DIA8",
  parameter DIA9MUX = "DIA9",
  parameter DIA10MUX = "DIA10",
  parameter DIA11MUX = "DIA11",
  parameter DIA12MUX = "DIA12",
  parameter DIA13MUX = "DIA13",
  parameter DIA14MUX = "DIA14",
  parameter DIA15MUX = "DIA15",
  parameter DIA16MUX = "DIA16",
  parameter DIA17MUX = "DIA17",
  parameter ADA0MUX = "ADA0",
  parameter ADA1MUX = "ADA1",
  parameter ADA2MUX = "ADA2",
  parameter ADA3MUX = "ADA3",
  parameter ADA4MUX = "ADA4",
  parameter ADA5MUX = "ADA5",
  parameter ADA6MUX = "ADA6",
  parameter ADA7MUX = "ADA7",
  parameter ADA8MUX = "ADA8",
  parameter ADA9MUX = "ADA9",
  parameter ADA10MUX = "ADA10",
  parameter ADA11MUX = "ADA11",
  parameter ADA12MUX = "ADA12",
  parameter ADA13MUX = "ADA13",
  parameter CEAMUX = "CEA",
  parameter OCEAMUX = "OCEA",
  parameter WEAMUX = "WEA",
  parameter RSTAMUX = "RSTA",
  parameter CSA2MUX = "CSA2",
  parameter CSA1MUX = "CSA1",
  parameter CSA0MUX = "CSA0",
  parameter DOA0MUX = "DOA0",
  parameter DOA1MUX = "DOA1",
  parameter DOA2MUX = "DOA2",
  parameter DOA3MUX = "DOA3",
  parameter DOA4MUX = "DOA4",
  parameter DOA5MUX = "DOA5",
  parameter DOA6MUX = "DOA6",
  parameter DOA7MUX = "DOA7",
  parameter DOA8MUX = "DOA8",
  parameter DOA9MUX = "DOA9",
  parameter DOA10MUX = "DOA10",
  parameter DOA11MUX = "DOA11",
  parameter DOA12MUX = "DOA12",
  parameter DOA13MUX = "DOA13",
  parameter DOA14MUX = "DOA14",
  parameter DOA15MUX = "DOA15",
  parameter DOA16MUX = "DOA16",
  parameter DOA17MUX = "DOA17",
  parameter DIB0MUX = "DIB0",
  parameter DIB1MUX = "DIB1",
  parameter DIB2MUX = "DIB2",
  parameter DIB3MUX = "DIB3",
  parameter DIB4MUX = "DIB4",
  parameter DIB5MUX = "DIB5",
  parameter DIB6MUX = "DIB6",
  parameter DIB7MUX = "DIB7",
  parameter DIB8MUX = "DIB8",
  parameter DIB9MUX = "DIB9",
  parameter DIB10MUX = "DIB10",
  parameter DIB11MUX = "DIB11",
  parameter DIB12MUX = "DIB12",
  parameter DIB13MUX = "DIB13",
  parameter DIB14MUX = "DIB14",
  parameter DIB15MUX = "DIB15",
  parameter DIB16MUX = "DIB16",
  parameter DIB17MUX = "DIB17",
  parameter ADB0MUX = "ADB0",
  parameter ADB1MUX = "ADB1",
  parameter ADB2MUX = "ADB2",
  parameter ADB3MUX = "ADB3",
  parameter ADB4MUX = "ADB4",
  parameter ADB5MUX = "ADB5",
  parameter ADB6MUX = "ADB6",
  parameter ADB7MUX = "ADB7",
  parameter ADB8MUX = "ADB8",
  parameter ADB9MUX = "ADB9",
  parameter ADB10MUX = "ADB10",
  parameter ADB11MUX = "ADB11",
  parameter ADB12MUX = "ADB12",
  parameter ADB13MUX = "ADB13",
  parameter CEBMUX = "CEB",
  parameter OCEBMUX = "OCEB",
  parameter WEBMUX = "WEB",
  parameter RSTBMUX = "RSTB",
  parameter CSB2MUX = "CSB2",
  parameter CSB1MUX = "CSB1",
  parameter CSB0MUX = "CSB0",
  parameter DOB0MUX = "DOB0",
  parameter DOB1MUX = "DOB1",
  parameter DOB2MUX = "DOB2",
  parameter DOB3MUX = "DOB3",
  parameter DOB4MUX = "DOB4",
  parameter DOB5MUX = "DOB5",
  parameter DOB6MUX = "DOB6",
  parameter DOB7MUX = "DOB7",
  parameter DOB8MUX = "DOB8",
  parameter DOB9MUX = "DOB9",
  parameter DOB10MUX = "DOB10",
  parameter DOB11MUX = "DOB11",
  parameter DOB12MUX = "DOB12",
  parameter DOB13MUX = "DOB13",
  parameter DOB14MUX = "DOB14",
  parameter DOB15MUX = "DOB15",
  parameter DOB16MUX = "DOB16",
  parameter DOB17MUX = "DOB17",
  parameter integer WID = 0,
  parameter GSR = "ENABLED",
  parameter INIT_DATA = "STATIC",
  parameter [319:0] INITVAL_00 = 320'h0,
  parameter [319:0] INITVAL_01 = 320'h0,
  parameter [319:0] INITVAL_02 = 320'h0,
  parameter [319:0] INITVAL_03 = 320'h0,
  parameter [319:0] INITVAL_04 = 320'h0,
  parameter [319:0] INITVAL_05 = 320'h0,
  parameter [319:0] INITVAL_06 = 320'h0,
  parameter [319:0] INITVAL_07 = 320'h0,
  parameter [319:0] INITVAL_08 = 320'h0,
  parameter [319:0] INITVAL_09 = 320'h0,
  parameter [319:0] INITVAL_0A = 320'h0,
  parameter [319:0] INITVAL_0B = 320'h0,
  parameter [319:0] INITVAL_0C = 320'h0,
  parameter [319:0] INITVAL_0D = 320'h0,
  parameter [319:0] INITVAL_0E = 320'h0,
  parameter [319:0] INITVAL_0F = 320'h0,
  parameter [319:0] INITVAL_10 = 320'h0,
  parameter [319:0] INITVAL_11 = 320'h0,
  parameter [319:0] INITVAL_12 = 320'h0,
  parameter [319:0] INITVAL_13 = 320'h0,
  parameter [319:0] INITVAL_14 = 320'h0,
  parameter [319:0] INITVAL_15 = 320'h0,
  parameter [319:0] INITVAL_16 = 320'h0,
  parameter [319:0] INITVAL_17 = 320'h0,
  parameter [319:0] INITVAL_18 = 320'h0,
  parameter [319:0] INITVAL_19 = 320'h0,
  parameter [319:0] INITVAL_1A = 320'h0,
  parameter [319:0] INITVAL_1B = 320'h0,
  parameter [319:0] INITVAL_1C = 320'h0,
  parameter [319:0] INITVAL_1D = 320'h0,
  parameter [319:0] INITVAL_1E = 320'h0,
  parameter [319:0] INITVAL_1F = 320'h0,
  parameter [319:0] INITVAL_20 = 320'h0,
  parameter [319:0] INITVAL_21 = 320'h0,
  parameter [319:0] INITVAL_22 = 320'h0,
  parameter [319:0] INITVAL_23 = 320'h0,
  parameter [319:0] INITVAL_24 = 320'h0,
  parameter [319:0] INITVAL_25 = 320'h0,
  parameter [319:0] INITVAL_26 = 320'h0,
  parameter [319:0] INITVAL_27 = 320'h0,
  parameter [319:0] INITVAL_28 = 320'h0,
  parameter [319:0] INITVAL_29 = 320'h0,
  parameter [319:0] INITVAL_2A = 320'h0,
  parameter [319:0] INITVAL_2B = 320'h0,
  parameter [319:0] INITVAL_2C = 320'h0,
  parameter [319:0] INITVAL_2D = 320'h0,
  parameter [319:0] INITVAL_2E = 320'h0,
  parameter [319:0] INITVAL_2F = 320'h0,
  parameter [319:0] INITVAL_30 = 320'h0,
  parameter [319:0] INITVAL_31 = 320'h0,
  parameter [319:0] INITVAL_32 = 320'h0,
  parameter [319:0] INITVAL_33 = 320'h0,
  parameter [319:0] INITVAL_34 = 320'h0,
  parameter [319:0] INITVAL_35 = 320'h0,
  parameter [319:0] INITVAL_36 = 320'h0,
  parameter [319:0] INITVAL_37 = 320'h0,
  parameter [319:0] INITVAL_38 = 320'h0,
  parameter [319:0] INITVAL_39 = 320'h0,
  parameter [319:0] INITVAL_3A = 320'h0,
  parameter [319:0] INITVAL_3B = 320'h0,
  parameter [319:0] INITVAL_3C = 320'h0,
  parameter [319:0] INITVAL_3D = 320'h0,
  parameter [319:0] INITVAL_3E = 320'h0,
  parameter [319:0] INITVAL_3F = 320'h0
) (
  input  wire DIA0, DIA1, DIA2, DIA3, DIA4, DIA5, DIA6, DIA7, DIA8, DIA9, DIA10, DIA11, DIA12, DIA13, DIA14, DIA15, DIA16, DIA17,
  input  wire ADA0, ADA1, ADA2, ADA3, ADA4, ADA5, ADA6, ADA7, ADA8, ADA9, ADA10, ADA11, ADA12, ADA13,
  input  wire CEA, OCEA, CLKA, WEA, RSTA,
  input  wire CSA2, CSA1, CSA0,
  output wire DOA0, DOA1, DOA2, DOA3, DOA4, DOA5, DOA6, DOA7, DOA8, DOA9, DOA10, DOA11, DOA12, DOA13, DOA14, DOA15, DOA16, DOA17,
  input  wire DIB0, DIB1, DIB2, DIB3, DIB4, DIB5, DIB6, DIB7, DIB8, DIB9, DIB10, DIB11, DIB12, DIB13, DIB14, DIB15, DIB16, DIB17,
  input  wire ADB0, ADB1, ADB2, ADB3, ADB4, ADB5, ADB6, ADB7, ADB8, ADB9, ADB10, ADB11, ADB12, ADB13,
  input  wire CEB, OCEB, CLKB, WEB, RSTB,
  input  wire CSB2, CSB1, CSB0,
  output wire DOB0, DOB1, DOB2, DOB3, DOB4, DOB5, DOB6, DOB7, DOB8, DOB9, DOB10, DOB11, DOB12, DOB13, DOB14, DOB15, DOB16, DOB17
);
  initial begin
    if (!(DATA_WIDTH_A == 9 || DATA_WIDTH_A == 18 || DATA_WIDTH_A == 36) ||
        !(DATA_WIDTH_B == 9 || DATA_WIDTH_B == 18 || DATA_WIDTH_B == 36) ||
        ((DATA_WIDTH_A == 36) != (DATA_WIDTH_B == 36)) ||
        REGMODE_A != "NOREG" || REGMODE_B != "NOREG" ||
        (RESETMODE != "SYNC" && RESETMODE != "ASYNC") ||
        (CLKAMUX != "CLKA" && CLKAMUX != "INV") || (CLKBMUX != "CLKB" && CLKBMUX != "INV") ||
        DIA0MUX != "DIA0" ||
        DIA1MUX != "DIA1" ||
        DIA2MUX != "DIA2" ||
        DIA3MUX != "DIA3" ||
        DIA4MUX != "DIA4" ||
        DIA5MUX != "DIA5" ||
        DIA6MUX != "DIA6" ||
        DIA7MUX != "DIA7" ||
        DIA8MUX != "DIA8" ||
        DIA9MUX != "DIA9" ||
        DIA10MUX != "DIA10" ||
        DIA11MUX != "DIA11" ||
        DIA12MUX != "DIA12" ||
        DIA13MUX != "DIA13" ||
        DIA14MUX != "DIA14" ||
        DIA15MUX != "DIA15" ||
        DIA16MUX != "DIA16" ||
        DIA17MUX != "DIA17" ||
        ADA0MUX != "ADA0" ||
        ADA1MUX != "ADA1" ||
        ADA2MUX != "ADA2" ||
        ADA3MUX != "ADA3" ||
        ADA4MUX != "ADA4" ||
        ADA5MUX != "ADA5" ||
        ADA6MUX != "ADA6" ||
        ADA7MUX != "ADA7" ||
        ADA8MUX != "ADA8" ||
        ADA9MUX != "ADA9" ||
        ADA10MUX != "ADA10" ||
        ADA11MUX != "ADA11" ||
        ADA12MUX != "ADA12" ||
        ADA13MUX != "ADA13" ||
        CEAMUX != "CEA" ||
        OCEAMUX != "OCEA" ||
        WEAMUX != "WEA" ||
        RSTAMUX != "RSTA" ||
        CSA2MUX != "CSA2" ||
        CSA1MUX != "CSA1" ||
        CSA0MUX != "CSA0" ||
        DOA0MUX != "DOA0" ||
        DOA1MUX != "DOA1" ||
        DOA2MUX != "DOA2" ||
        DOA3MUX != "DOA3" ||
        DOA4MUX != "DOA4" ||
        DOA5MUX != "DOA5" ||
        DOA6MUX != "DOA6" ||
        DOA7MUX != "DOA7" ||
        DOA8MUX != "DOA8" ||
        DOA9MUX != "DOA9" ||
        DOA10MUX != "DOA10" ||
        DOA11MUX != "DOA11" ||
        DOA12MUX != "DOA12" ||
        DOA13MUX != "DOA13" ||
        DOA14MUX != "DOA14" ||
        DOA15MUX != "DOA15" ||
        DOA16MUX != "DOA16" ||
        DOA17MUX != "DOA17" ||
        DIB0MUX != "DIB0" ||
        DIB1MUX != "DIB1" ||
        DIB2MUX != "DIB2" ||
        DIB3MUX != "DIB3" ||
        DIB4MUX != "DIB4" ||
        DIB5MUX != "DIB5" ||
        DIB6MUX != "DIB6" ||
        DIB7MUX != "DIB7" ||
        DIB8MUX != "DIB8" ||
        DIB9MUX != "DIB9" ||
        DIB10MUX != "DIB10" ||
        DIB11MUX != "DIB11" ||
        DIB12MUX != "DIB12" ||
        DIB13MUX != "DIB13" ||
        DIB14MUX != "DIB14" ||
        DIB15MUX != "DIB15" ||
        DIB16MUX != "DIB16" ||
        DIB17MUX != "DIB17" ||
        ADB0MUX != "ADB0" ||
        ADB1MUX != "ADB1" ||
        ADB2MUX != "ADB2" ||
        ADB3MUX != "ADB3" ||
        ADB4MUX != "ADB4" ||
        ADB5MUX != "ADB5" ||
        ADB6MUX != "ADB6" ||
        ADB7MUX != "ADB7" ||
        ADB8MUX != "ADB8" ||
        ADB9MUX != "ADB9" ||
        ADB10MUX != "ADB10" ||
        ADB11MUX != "ADB11" ||
        ADB12MUX != "ADB12" ||
        ADB13MUX != "ADB13" ||
        CEBMUX != "CEB" ||
        OCEBMUX != "OCEB" ||
        WEBMUX != "WEB" ||
        RSTBMUX != "RSTB" ||
        CSB2MUX != "CSB2" ||
        CSB1MUX != "CSB1" ||
        CSB0MUX != "CSB0" ||
        DOB0MUX != "DOB0" ||
        DOB1MUX != "DOB1" ||
        DOB2MUX != "DOB2" ||
        DOB3MUX != "DOB3" ||
        DOB4MUX != "DOB4" ||
        DOB5MUX != "DOB5" ||
        DOB6MUX != "DOB6" ||
        DOB7MUX != "DOB7" ||
        DOB8MUX != "DOB8" ||
        DOB9MUX != "DOB9" ||
        DOB10MUX != "DOB10" ||
        DOB11MUX != "DOB11" ||
        DOB12MUX != "DOB12" ||
        DOB13MUX != "DOB13" ||
        DOB14MUX != "DOB14" ||
        DOB15MUX != "DOB15" ||
        DOB16MUX != "DOB16" ||
        DOB17MUX != "DOB17") begin
      $display("DP16KD model: configuration not modelled (widths %0d/%0d, REGMODE %s/%s)",
               DATA_WIDTH_A, DATA_WIDTH_B, REGMODE_A, REGMODE_B);
      $stop;
    end
  end

  wire [17:0] dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0}, dib = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
  wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0}, adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
  wire        clka = (CLKAMUX == "INV") ? ~CLKA : CLKA;
  wire        clkb = (CLKBMUX == "INV") ? ~CLKB : CLKB;
  wire        csa  = {CSA2, CSA1, CSA0} == csdecode(CSDECODE_A);
  wire        csb  = {CSB2, CSB1, CSB0} == csdecode(CSDECODE_B);
  wire        ena  = CEA && csa;
  wire        enb  = CEB && csb;
  localparam  WIDE = DATA_WIDTH_A == 36;  // pseudo dual port: A writes, B reads

  function automatic [2:0] csdecode(input [47:0] s);  // "0bXYZ" -> 3'bXYZ
    csdecode = {s[23:16] == "1", s[15:8] == "1", s[7:0] == "1"};
  endfunction

  reg [17:0] mem [0:1023];
  integer k;
  initial begin
    for (k = 0; k < 1024; k = k + 1) mem[k] = init_entry(k);
  end
  function automatic [17:0] init_entry(input integer e);
    reg [319:0] iv;
    begin
      case (e / 16)
        0: iv = INITVAL_00;
        1: iv = INITVAL_01;
        2: iv = INITVAL_02;
        3: iv = INITVAL_03;
        4: iv = INITVAL_04;
        5: iv = INITVAL_05;
        6: iv = INITVAL_06;
        7: iv = INITVAL_07;
        8: iv = INITVAL_08;
        9: iv = INITVAL_09;
        10: iv = INITVAL_0A;
        11: iv = INITVAL_0B;
        12: iv = INITVAL_0C;
        13: iv = INITVAL_0D;
        14: iv = INITVAL_0E;
        15: iv = INITVAL_0F;
        16: iv = INITVAL_10;
        17: iv = INITVAL_11;
        18: iv = INITVAL_12;
        19: iv = INITVAL_13;
        20: iv = INITVAL_14;
        21: iv = INITVAL_15;
        22: iv = INITVAL_16;
        23: iv = INITVAL_17;
        24: iv = INITVAL_18;
        25: iv = INITVAL_19;
        26: iv = INITVAL_1A;
        27: iv = INITVAL_1B;
        28: iv = INITVAL_1C;
        29: iv = INITVAL_1D;
        30: iv = INITVAL_1E;
        31: iv = INITVAL_1F;
        32: iv = INITVAL_20;
        33: iv = INITVAL_21;
        34: iv = INITVAL_22;
        35: iv = INITVAL_23;
        36: iv = INITVAL_24;
        37: iv = INITVAL_25;
        38: iv = INITVAL_26;
        39: iv = INITVAL_27;
        40: iv = INITVAL_28;
        41: iv = INITVAL_29;
        42: iv = INITVAL_2A;
        43: iv = INITVAL_2B;
        44: iv = INITVAL_2C;
        45: iv = INITVAL_2D;
        46: iv = INITVAL_2E;
        47: iv = INITVAL_2F;
        48: iv = INITVAL_30;
        49: iv = INITVAL_31;
        50: iv = INITVAL_32;
        51: iv = INITVAL_33;
        52: iv = INITVAL_34;
        53: iv = INITVAL_35;
        54: iv = INITVAL_36;
        55: iv = INITVAL_37;
        56: iv = INITVAL_38;
        57: iv = INITVAL_39;
        58: iv = INITVAL_3A;
        59: iv = INITVAL_3B;
        60: iv = INITVAL_3C;
        61: iv = INITVAL_3D;
        62: iv = INITVAL_3E;
        63: iv = INITVAL_3F;
        default: iv = 320'h0;
      endcase
      init_entry = iv[(e % 16) * 20 +: 18];
    end
  endfunction

  // Per port: the entry an address selects and the bits a write changes (9-bit halves).
  function automatic [9:0] entry_of(input integer width, input [13:0] ad);
    entry_of = width == 36 ? {ad[13:5], 1'b0} : ad[13:4];
  endfunction
  function automatic [1:0] halves_of(input integer width, input [13:0] ad);  // 18/9: written halves
    halves_of = width == 18 ? ad[1:0] : width == 9 ? (ad[3] ? 2'b10 : 2'b01) : 2'b11;
  endfunction
  function automatic [17:0] merge(input [17:0] old, input [17:0] data, input [1:0] halves);
    merge = {halves[1] ? data[17:9] : old[17:9], halves[0] ? data[8:0] : old[8:0]};
  endfunction
  // Write data placed in the entry's layout (a 9-bit write goes to the half AD[3] picks).
  function automatic [17:0] place(input integer width, input [13:0] ad, input [17:0] di);
    place = (width == 9) ? {di[8:0], di[8:0]} : di;
  endfunction
  // Read data out of an entry (a 9-bit read takes the half AD[3] picks, in DO[8:0]).
  function automatic [17:0] pick(input integer width, input [13:0] ad, input [17:0] e);
    pick = (width == 9) ? {9'bx, ad[3] ? e[17:9] : e[8:0]} : e;
  endfunction

  wire [9:0] ea = entry_of(DATA_WIDTH_A, ada);
  wire [9:0] eb = entry_of(DATA_WIDTH_B, adb);
  wire       wra = ena && WEA;
  wire       wrb = enb && WEB && !WIDE;
  // Whether a write changes any bits: 18 and 36 bits wide, the byte enables decide (Yosys ties
  // WEA high in the 36-bit mode and writes through them alone).
  wire       bits_a = wra && (WIDE ? |{ADA3, ADA2, ADA1, ADA0} : DATA_WIDTH_A == 18 ? |{ADA1, ADA0} : 1'b1);
  wire       bits_b = wrb && (DATA_WIDTH_B == 18 ? |{ADB1, ADB0} : 1'b1);
  // A collision: both ports on one entry (pair, when 36 wide) at the same edge, one writing.
  wire       same_entry = WIDE ? (ea[9:1] == eb[9:1]) : (ea == eb);
  wire       collide    = ena && enb && same_entry && (bits_a || bits_b) && clka && clkb;

  reg [17:0] doa_q = 18'd0, dob_q = 18'd0;
  reg [17:0] doa_wide_q = 18'd0;  // 36 wide: the low half of the read word comes out on DOA
  wire       rsta_async = RESETMODE == "ASYNC" && RSTA;
  wire       rstb_async = RESETMODE == "ASYNC" && RSTB;

  // Port A: writes (all widths); reads only as a true dual port.
  always @(posedge clka or posedge rsta_async) begin
    if (rsta_async) begin
      doa_q <= 18'd0;
    end else begin
      if (WIDE) begin
        if (wra) begin
          mem[{ea[9:1], 1'b0}] <= merge(mem[{ea[9:1], 1'b0}], dia, {ADA1, ADA0});
          mem[{ea[9:1], 1'b1}] <= merge(mem[{ea[9:1], 1'b1}], dib, {ADA3, ADA2});
        end
      end else if (ena) begin
        if (wra) mem[ea] <= merge(mem[ea], place(DATA_WIDTH_A, ada, dia), halves_of(DATA_WIDTH_A, ada));
        if (RESETMODE == "SYNC" && RSTA)              doa_q <= 18'd0;
        else if (collide && !bits_a)                   doa_q <= 18'bx;
        else if (!wra || WRITEMODE_A == "READBEFOREWRITE") doa_q <= pick(DATA_WIDTH_A, ada, mem[ea]);
        else if (WRITEMODE_A == "WRITETHROUGH")
          doa_q <= pick(DATA_WIDTH_A, ada, merge(mem[ea], place(DATA_WIDTH_A, ada, dia), halves_of(DATA_WIDTH_A, ada)));
      end
    end
  end
  // Port B: reads (all widths); writes only as a true dual port.
  always @(posedge clkb or posedge rstb_async) begin
    if (rstb_async) begin
      dob_q <= 18'd0;
      if (WIDE) doa_wide_q <= 18'd0;
    end else if (enb) begin
      if (WIDE) begin
        if (RESETMODE == "SYNC" && RSTB) begin
          doa_wide_q <= 18'd0;
          dob_q      <= 18'd0;
        end else if (collide) begin
          doa_wide_q <= 18'bx;
          dob_q      <= 18'bx;
        end else begin
          doa_wide_q <= mem[{eb[9:1], 1'b0}];
          dob_q      <= mem[{eb[9:1], 1'b1}];
        end
      end else begin
        if (wrb) mem[eb] <= merge(mem[eb], place(DATA_WIDTH_B, adb, dib), halves_of(DATA_WIDTH_B, adb));
        if (RESETMODE == "SYNC" && RSTB)              dob_q <= 18'd0;
        else if (collide && !bits_b)                   dob_q <= 18'bx;
        else if (!wrb || WRITEMODE_B == "READBEFOREWRITE") dob_q <= pick(DATA_WIDTH_B, adb, mem[eb]);
        else if (WRITEMODE_B == "WRITETHROUGH")
          dob_q <= pick(DATA_WIDTH_B, adb, merge(mem[eb], place(DATA_WIDTH_B, adb, dib), halves_of(DATA_WIDTH_B, adb)));
      end
    end
  end
  assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = WIDE ? doa_wide_q : doa_q;
  assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = dob_q;
  wire unused = &{1'b0, OCEA, OCEB};  // output enables act on the output registers only
endmodule
`default_nettype wire
