`default_nettype none
// board_pll: the design clock from the board's 25 MHz oscillator. In synthesis an ECP5 EHXPLLL
// (defaults: 25 MHz x 2 / 1 = 50 MHz, VCO 25 * CLKFB_DIV * CLKOP_DIV = 600 MHz, inside the
// 400..800 MHz range); in simulation the input clock passes through and "lock" rises after a
// few cycles, so Verilator runs the board top with the design clock on clk_i.
module board_pll #(
  // The simulation model has no dividers: the parameters only configure the real PLL.
  /* verilator lint_off UNUSEDPARAM */
  parameter integer CLKI_DIV  = 1,   // reference divider
  parameter integer CLKFB_DIV = 2,   // feedback divider: f_out = f_in * CLKFB_DIV / CLKI_DIV
  parameter integer CLKOP_DIV = 12   // output divider: f_vco = f_out * CLKOP_DIV
  /* verilator lint_on UNUSEDPARAM */
) (
  input  wire clk_i,    // 25 MHz board oscillator
  output wire clk_o,    // design clock
  output wire locked_o  // clk_o is stable
);
`ifdef SYNTHESIS
  wire clkop;
  EHXPLLL #(
    .PLLRST_ENA      ("DISABLED"),
    .INTFB_WAKE      ("DISABLED"),
    .STDBY_ENABLE    ("DISABLED"),
    .DPHASE_SOURCE   ("DISABLED"),
    .OUTDIVIDER_MUXA ("DIVA"),
    .OUTDIVIDER_MUXB ("DIVB"),
    .OUTDIVIDER_MUXC ("DIVC"),
    .OUTDIVIDER_MUXD ("DIVD"),
    .CLKI_DIV        (CLKI_DIV),
    .CLKOP_ENABLE    ("ENABLED"),
    .CLKOP_DIV       (CLKOP_DIV),
    .CLKOP_CPHASE    (CLKOP_DIV / 2 - 1),
    .CLKOP_FPHASE    (0),
    .FEEDBK_PATH     ("CLKOP"),
    .CLKFB_DIV       (CLKFB_DIV)
  ) u_pll (
    .RST          (1'b0),
    .STDBY        (1'b0),
    .CLKI         (clk_i),
    .CLKOP        (clkop),
    .CLKFB        (clkop),
    .CLKINTFB     (),
    .PHASESEL0    (1'b0),
    .PHASESEL1    (1'b0),
    .PHASEDIR     (1'b1),
    .PHASESTEP    (1'b1),
    .PHASELOADREG (1'b1),
    .PLLWAKESYNC  (1'b0),
    .ENCLKOP      (1'b0),
    .LOCK         (locked_o)
  );
  assign clk_o = clkop;
`else
  // Simulation model: the shift register fills with ones whatever it started with.
  reg [3:0] lock_q;
  always @(posedge clk_i) lock_q <= {lock_q[2:0], 1'b1};
  assign clk_o    = clk_i;
  assign locked_o = lock_q[3];
`endif
endmodule
