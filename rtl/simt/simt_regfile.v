`default_nettype none
// simt_regfile: one lane's registers for every warp (WARPS x 32 words), two synchronous read ports
// and one write port. Written as two copies of a 1-write/1-read memory so that Yosys maps each to
// one ECP5 DP16KD (512 x 36 holds up to 16 warps) or to distributed RAM; both copies take every
// write. x0 is not special here: simt_core never writes it and reads it as zero.
module simt_regfile #(
  parameter integer WARPS = 4  // warps sharing the lane; address = {warp, register}
) (
  input  wire                         clk_i,
  input  wire [$clog2(WARPS)+4:0]     raddr1_i,
  input  wire [$clog2(WARPS)+4:0]     raddr2_i,
  output reg  [31:0]                  rdata1_o,   // a cycle after raddr1_i
  output reg  [31:0]                  rdata2_o,
  input  wire                         we_i,
  input  wire [$clog2(WARPS)+4:0]     waddr_i,
  input  wire [31:0]                  wdata_i
);
  localparam integer DEPTH = WARPS * 32;
  reg [31:0] bank1 [0:DEPTH-1];
  reg [31:0] bank2 [0:DEPTH-1];

  always @(posedge clk_i) begin
    if (we_i) bank1[waddr_i] <= wdata_i;
    rdata1_o <= bank1[raddr1_i];
  end
  always @(posedge clk_i) begin
    if (we_i) bank2[waddr_i] <= wdata_i;
    rdata2_o <= bank2[raddr2_i];
  end
endmodule

`default_nettype wire
