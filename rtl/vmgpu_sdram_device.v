`default_nettype none
// vmgpu_sdram_device: the device as the board has it. vmgpu_top with its memory outside
// (EXT_MEM) and rtl/sdram_ctrl.v on that port, with the controller's parameters derived from
// the clock, the memory size and the CAS latency. The board's top level (board/ulx3s/ulx3s_top.v:
// PLL, reset, UART bridge, sdram_phy, LEDs around it) and the in-process model's SDRAM
// configuration (sim/vmgpu_sdram_top.v: the chip model on the pins) both build this one module,
// so the memory system the bitstream has and the one the fast simulation measures cannot drift
// apart. The SDRAM pins are the controller's: data out, its output enable and data in are
// separate; sdram_phy (board) or the simulation joins them.
module vmgpu_sdram_device #(
  parameter integer CLK_HZ            = 50000000,  // design clock: the controller's timings in cycles
  parameter integer MEM_BYTES         = 33554432,  // the SDRAM: 33554432 (32 MB) or 67108864 (64 MB)
  parameter integer SDRAM_CAS_LATENCY = 2,         // 2 or 3
  parameter integer TLB_ENTRIES       = 16,
  parameter integer N_RINGS           = 2,
  parameter integer MEM_RSP_REG       = 1,
  parameter integer MEM_ARB_REG       = 1,
  parameter integer MMU_REQ_REG       = 1,
  parameter integer GFX_ENGINE        = 1,
  parameter integer SIMT_LANES        = 0,
  parameter integer SIMT_WARPS        = 4,
  parameter integer SIMT_SHARED_BYTES = 4096,
  parameter integer SIMT_F            = 1,
  parameter integer SIMT_FDIV         = 1,
  parameter integer SIMT_SCHED_REG    = 0,
  parameter integer SIMT_EXEC_REG     = 0
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // CSR port
  input  wire        csr_req_i,
  input  wire        csr_we_i,
  input  wire [11:0] csr_addr_i,
  input  wire [31:0] csr_wdata_i,
  output wire        csr_ack_o,
  output wire [31:0] csr_rdata_o,
  // host port (pages whose PTE has the HOST bit)
  output wire        host_req_valid_o,
  input  wire        host_req_ready_i,
  output wire        host_req_we_o,
  output wire [31:0] host_req_addr_o,
  output wire [31:0] host_req_wdata_o,
  output wire [3:0]  host_req_be_o,
  input  wire        host_rsp_valid_i,
  input  wire [31:0] host_rsp_data_i,
  output wire        irq_o,
  output wire        idle_o,
  output wire        fault_o,
  output wire        init_done_o,   // the SDRAM's initialisation sequence is over
  // SDRAM, controller side
  output wire        sdram_cke_o,
  output wire        sdram_cs_no,
  output wire        sdram_ras_no,
  output wire        sdram_cas_no,
  output wire        sdram_we_no,
  output wire [1:0]  sdram_ba_o,
  output wire [12:0] sdram_a_o,
  output wire [1:0]  sdram_dqm_o,
  output wire [15:0] sdram_dq_o,
  output wire        sdram_dq_oe_o,
  input  wire [15:0] sdram_dq_i
);
  localparam integer AW             = $clog2(MEM_BYTES / 4);            // device word address
  localparam integer SDRAM_COL_BITS = (MEM_BYTES >= 67108864) ? 10 : 9;  // 1024 or 512 columns

  wire          mem_rd_valid, mem_rd_ready, mem_rsp_valid, mem_wr_valid, mem_wr_ready;
  wire [AW-1:0] mem_rd_addr, mem_wr_addr;
  wire [31:0]   mem_rsp_data, mem_wr_data;
  wire [3:0]    mem_wr_be;
  wire          refresh;

  vmgpu_top #(
    .MEM_BYTES   (MEM_BYTES),
    .TLB_ENTRIES (TLB_ENTRIES),
    .N_RINGS     (N_RINGS),
    .MEM_RSP_REG (MEM_RSP_REG),
    .MEM_ARB_REG (MEM_ARB_REG),
    .MMU_REQ_REG (MMU_REQ_REG),
    .GFX_ENGINE  (GFX_ENGINE),
    .EXT_MEM     (1),
    .SIMT_LANES  (SIMT_LANES),
    .SIMT_WARPS  (SIMT_WARPS),
    .SIMT_SHARED_BYTES (SIMT_SHARED_BYTES),
    .SIMT_F      (SIMT_F),
    .SIMT_FDIV   (SIMT_FDIV),
    .SIMT_SCHED_REG (SIMT_SCHED_REG),
    .SIMT_EXEC_REG  (SIMT_EXEC_REG)
  ) u_vmgpu (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .csr_req_i        (csr_req_i),
    .csr_we_i         (csr_we_i),
    .csr_addr_i       (csr_addr_i),
    .csr_wdata_i      (csr_wdata_i),
    .csr_ack_o        (csr_ack_o),
    .csr_rdata_o      (csr_rdata_o),
    .host_req_valid_o (host_req_valid_o),
    .host_req_ready_i (host_req_ready_i),
    .host_req_we_o    (host_req_we_o),
    .host_req_addr_o  (host_req_addr_o),
    .host_req_wdata_o (host_req_wdata_o),
    .host_req_be_o    (host_req_be_o),
    .host_rsp_valid_i (host_rsp_valid_i),
    .host_rsp_data_i  (host_rsp_data_i),
    .mem_rd_valid_o   (mem_rd_valid),
    .mem_rd_ready_i   (mem_rd_ready),
    .mem_rd_addr_o    (mem_rd_addr),
    .mem_rsp_valid_i  (mem_rsp_valid),
    .mem_rsp_data_i   (mem_rsp_data),
    .mem_wr_valid_o   (mem_wr_valid),
    .mem_wr_ready_i   (mem_wr_ready),
    .mem_wr_addr_o    (mem_wr_addr),
    .mem_wr_data_o    (mem_wr_data),
    .mem_wr_be_o      (mem_wr_be),
    .mem_refresh_i    (refresh),
    .irq_o            (irq_o),
    .idle_o           (idle_o),
    .fault_o          (fault_o)
  );

  // Timings from the data sheets, in ns, turned into cycles of CLK_HZ. Behind sdram_phy the
  // chip's clock is the design clock inverted, so a read beat is captured one cycle earlier
  // than with an in-phase clock (READ_DELAY).
  sdram_ctrl #(
    .CLK_HZ      (CLK_HZ),
    .ROW_BITS    (13),
    .COL_BITS    (SDRAM_COL_BITS),
    .BANK_BITS   (2),
    .CAS_LATENCY (SDRAM_CAS_LATENCY),
    .READ_DELAY  (SDRAM_CAS_LATENCY - 1)
  ) u_sdram (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .rd_valid_i     (mem_rd_valid),
    .rd_ready_o     (mem_rd_ready),
    .rd_addr_i      (mem_rd_addr),
    .rd_rsp_valid_o (mem_rsp_valid),
    .rd_rsp_data_o  (mem_rsp_data),
    .wr_valid_i     (mem_wr_valid),
    .wr_ready_o     (mem_wr_ready),
    .wr_addr_i      (mem_wr_addr),
    .wr_data_i      (mem_wr_data),
    .wr_be_i        (mem_wr_be),
    .init_done_o    (init_done_o),
    .stat_refresh_o (refresh),
    .sdram_cke_o    (sdram_cke_o),
    .sdram_cs_no    (sdram_cs_no),
    .sdram_ras_no   (sdram_ras_no),
    .sdram_cas_no   (sdram_cas_no),
    .sdram_we_no    (sdram_we_no),
    .sdram_ba_o     (sdram_ba_o),
    .sdram_a_o      (sdram_a_o),
    .sdram_dqm_o    (sdram_dqm_o),
    .sdram_dq_o     (sdram_dq_o),
    .sdram_dq_oe_o  (sdram_dq_oe_o),
    .sdram_dq_i     (sdram_dq_i)
  );
endmodule
`default_nettype wire
