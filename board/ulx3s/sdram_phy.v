`default_nettype none
// sdram_phy: the ECP5 end of the SDRAM pins: the chip's clock and the bidirectional data bus.
// The controller (rtl/sdram_ctrl.v) stays technology-neutral; everything else it drives (CKE,
// CS#, RAS#, CAS#, WE#, BA, A, DQM) comes from its own flip-flops and goes to the pads as is.
//
// Clock phase: the chip's clock is the design clock inverted, made by an ODDRX1F (D0 = 0 for
// the first half of each cycle, D1 = 1 for the second) so it leaves through the same kind of
// I/O cell as the signals it clocks, with no second PLL output and no clock-domain crossing.
// The chip's rising edge then falls in the middle of the controller's cycle:
//  - commands and write beats, launched at the controller's rising edge, are sampled half a
//    cycle later: setup T/2 - tCO - board delay (10 ns - about 5 ns at 50 MHz, 7.7 - 5 at 65)
//    against the chips' 1.5 ns, hold T/2 + tCO against 0.8 ns;
//  - a read beat, launched by the chip's edge and valid tAC later (at most 6 ns with CAS
//    latency 2, 5.4 ns with 3), is captured at the controller's next rising edge, T/2 after
//    the chip's edge: setup T/2 - tAC - board and input delay, about 2.5 ns at 50 MHz. So the
//    controller runs with READ_DELAY = CAS_LATENCY - 1 behind this PHY (its beats arrive one
//    cycle earlier than with an in-phase chip clock). At 65 MHz the half period leaves about
//    0.8 ns with CAS latency 3 and nothing with 2: use CAS latency 3 there, or move the chip's
//    edge earlier with a phase-shifted PLL output (EHXPLLL CLKOS) and re-derive READ_DELAY.
// The chip model (tests/rtl/sdram) runs the controller against this phase (the chip clocked on
// the falling edge) as well as against an in-phase chip clock.
module sdram_phy (
  input  wire        clk_i,        // design clock, the controller's
  output wire        sdram_clk_o,  // to the chip's CLK pin
  // controller side
  input  wire [15:0] dq_out_i,     // write beat
  input  wire        dq_oe_i,      // drive the bus
  output wire [15:0] dq_in_o,      // what the bus carries (registered by the controller)
  // chip side
  inout  wire [15:0] sdram_dq_io
);
`ifdef SYNTHESIS
  ODDRX1F u_clk_oddr (
    .SCLK (clk_i),
    .RST  (1'b0),
    .D0   (1'b0),
    .D1   (1'b1),
    .Q    (sdram_clk_o)
  );
  genvar i;
  generate
    for (i = 0; i < 16; i = i + 1) begin : g_dq
      BB u_dq_bb (
        .I (dq_out_i[i]),
        .T (!dq_oe_i),
        .O (dq_in_o[i]),
        .B (sdram_dq_io[i])
      );
    end
  endgenerate
`else
  // Simulation: the inverted clock and a plain tristate bus.
  assign sdram_clk_o = !clk_i;
  assign sdram_dq_io = dq_oe_i ? dq_out_i : 16'hzzzz;
  assign dq_in_o     = sdram_dq_io;
`endif
endmodule
`default_nettype wire
