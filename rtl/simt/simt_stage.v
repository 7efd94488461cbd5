`default_nettype none
// simt_stage: an optional register stage. With REG 1, q_o is d_i one cycle later; with REG 0 it
// is d_i itself (a wire). The unit's FPGA register stages (EXEC_REG, SH_AMO_REG) put one of
// these where a long path is cut, so the simulated device, built without them, keeps its
// cycle counts.
module simt_stage #(
  parameter integer W = 1,    // width
  parameter integer REG = 1   // 1: registered; 0: straight through
) (
  input  wire         clk_i,
  input  wire [W-1:0] d_i,
  output wire [W-1:0] q_o
);
  generate
    if (REG != 0) begin : g_reg
      reg [W-1:0] q;
      always @(posedge clk_i) q <= d_i;
      assign q_o = q;
    end else begin : g_wire
      assign q_o = d_i;
      // the clock is not used without the register
      /* verilator lint_off UNUSEDSIGNAL */
      wire unused_clk = clk_i;
      /* verilator lint_on UNUSEDSIGNAL */
    end
  endgenerate
endmodule
`default_nettype wire
