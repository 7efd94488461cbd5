`default_nettype none
// Device memory: one synchronous read port and one byte-enabled write port, 32 bits wide.
// Written so that Yosys maps it onto ECP5 block RAM (DP16KD) and Verilator keeps it as a
// plain array. A read returns the word as it was before a write to it in the same cycle.
module device_memory #(
  parameter integer MEM_BYTES = 16777216,  // size in bytes, a power of two
  parameter integer AW        = $clog2(MEM_BYTES / 4)  // word-address width (derived)
) (
  input  wire          clk_i,
  input  wire          rd_en_i,    // read the word at rd_addr_i; data next cycle
  input  wire [AW-1:0] rd_addr_i,  // word address
  output reg  [31:0]   rd_data_o,
  input  wire          wr_en_i,
  input  wire [AW-1:0] wr_addr_i,  // word address
  input  wire [31:0]   wr_data_i,
  input  wire [3:0]    wr_be_i     // byte enables
);
  localparam integer WORDS = MEM_BYTES / 4;

  reg [31:0] mem_q [0:WORDS-1];

  always @(posedge clk_i) begin
    if (wr_en_i) begin
      if (wr_be_i[0]) mem_q[wr_addr_i][7:0]   <= wr_data_i[7:0];
      if (wr_be_i[1]) mem_q[wr_addr_i][15:8]  <= wr_data_i[15:8];
      if (wr_be_i[2]) mem_q[wr_addr_i][23:16] <= wr_data_i[23:16];
      if (wr_be_i[3]) mem_q[wr_addr_i][31:24] <= wr_data_i[31:24];
    end
    if (rd_en_i) rd_data_o <= mem_q[rd_addr_i];
  end
endmodule
