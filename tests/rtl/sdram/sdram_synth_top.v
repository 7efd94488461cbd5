`default_nettype none
// Test-only top for the ECP5 synthesis check (synth_sdram.py): sdram_ctrl with the board's
// sdram_phy, every port brought out so nothing is optimised away.
module sdram_synth_top #(
  parameter integer CLK_HZ      = 50000000,  // sdram_ctrl's clock
  parameter integer COL_BITS    = 9,         // sdram_ctrl's column bits (9: 32 MB, 10: 64 MB)
  parameter integer CAS_LATENCY = 2,         // sdram_ctrl's CAS latency
  parameter integer AW          = 13 + 2 + COL_BITS - 1  // word-address width (derived)
) (
  input  wire          clk_i,
  input  wire          rst_ni,
  input  wire          rd_valid_i,
  output wire          rd_ready_o,
  input  wire [AW-1:0] rd_addr_i,
  output wire          rd_rsp_valid_o,
  output wire [31:0]   rd_rsp_data_o,
  input  wire          wr_valid_i,
  output wire          wr_ready_o,
  input  wire [AW-1:0] wr_addr_i,
  input  wire [31:0]   wr_data_i,
  input  wire [3:0]    wr_be_i,
  output wire          init_done_o,
  output wire          stat_refresh_o,
  output wire          sdram_clk,
  output wire          sdram_cke,
  output wire          sdram_csn,
  output wire          sdram_rasn,
  output wire          sdram_casn,
  output wire          sdram_wen,
  output wire [1:0]    sdram_ba,
  output wire [12:0]   sdram_a,
  output wire [1:0]    sdram_dqm,
  inout  wire [15:0]   sdram_d
);
  wire [15:0] dq_out, dq_in;
  wire        dq_oe;

  sdram_ctrl #(
    .CLK_HZ      (CLK_HZ),
    .COL_BITS    (COL_BITS),
    .CAS_LATENCY (CAS_LATENCY),
    .READ_DELAY  (CAS_LATENCY - 1)
  ) u_ctrl (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .rd_valid_i     (rd_valid_i),
    .rd_ready_o     (rd_ready_o),
    .rd_addr_i      (rd_addr_i),
    .rd_rsp_valid_o (rd_rsp_valid_o),
    .rd_rsp_data_o  (rd_rsp_data_o),
    .wr_valid_i     (wr_valid_i),
    .wr_ready_o     (wr_ready_o),
    .wr_addr_i      (wr_addr_i),
    .wr_data_i      (wr_data_i),
    .wr_be_i        (wr_be_i),
    .init_done_o    (init_done_o),
    .stat_refresh_o (stat_refresh_o),
    .sdram_cke_o    (sdram_cke),
    .sdram_cs_no    (sdram_csn),
    .sdram_ras_no   (sdram_rasn),
    .sdram_cas_no   (sdram_casn),
    .sdram_we_no    (sdram_wen),
    .sdram_ba_o     (sdram_ba),
    .sdram_a_o      (sdram_a),
    .sdram_dqm_o    (sdram_dqm),
    .sdram_dq_o     (dq_out),
    .sdram_dq_oe_o  (dq_oe),
    .sdram_dq_i     (dq_in)
  );

  sdram_phy u_phy (
    .clk_i       (clk_i),
    .sdram_clk_o (sdram_clk),
    .dq_out_i    (dq_out),
    .dq_oe_i     (dq_oe),
    .dq_in_o     (dq_in),
    .sdram_dq_io (sdram_d)
  );
endmodule
`default_nettype wire
