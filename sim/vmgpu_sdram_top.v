`default_nettype none
// vmgpu_sdram_top: the in-process model's SDRAM configuration (VMGPU_SIM_MEMORY=sdram). The
// board's device — vmgpu_top with EXT_MEM and the board's timing options, rtl/sdram_ctrl.v on
// its memory port with the bitstream's controller parameters — behind the simulated device's
// own CSR and host ports instead of the UART bridge. The SDRAM pins come out to the C++ chip
// model (sim/sdram_chip.h), which sim/vmgpu_sim.cpp clocks as sdram_phy clocks the real chip
// (the design clock inverted) and which reports every broken timing rule.
//
// Why: sim-board runs the same memory system, but every host access crosses the 3 Mbaud link,
// so a benchmark of the memory itself (sdram_copy_efficiency, tlb_miss_cycles with page tables
// in SDRAM) or a lesson about it runs here in seconds with the same cycle counts on the device.
// Its parameters are the ones ulx3s_top gives vmgpu_sdram_device, with the bitstream's values
// (defaults here, MEM_BYTES from the build); ctest sim_sdram_params checks that they stay so.
module vmgpu_sdram_top #(
  parameter integer CLK_HZ            = 50000000,
  parameter integer MEM_BYTES         = 33554432,
  parameter integer SDRAM_CAS_LATENCY = 2,
  parameter integer TLB_ENTRIES       = 16,
  parameter integer N_RINGS           = 2,
  parameter integer MEM_RSP_REG       = 1,
  parameter integer MEM_ARB_REG       = 1,
  parameter integer MMU_REQ_REG       = 1,
  parameter integer GFX_ENGINE        = 1,
  parameter integer SIMT_LANES        = 0,
  parameter integer SIMT_WARPS        = 4,
  parameter integer SIMT_SHARED_BYTES = 4096,
  parameter integer SIMT_F            = 0,
  parameter integer SIMT_FDIV         = 0,
  parameter integer SIMT_SCHED_REG    = 1,
  parameter integer SIMT_EXEC_REG     = 2
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        csr_req_i,
  input  wire        csr_we_i,
  input  wire [11:0] csr_addr_i,
  input  wire [31:0] csr_wdata_i,
  output wire        csr_ack_o,
  output wire [31:0] csr_rdata_o,
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
  output wire        init_done_o,
  // the chip's pins
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
  input  wire [15:0] chip_dq_i,
  input  wire        chip_dq_oe_i
);
  // The chip drives DQ while it answers a read; otherwise the controller's own output is what
  // the pins carry (as sdram_phy's tristate buffer gives it on the board).
  wire [15:0] dq_in = chip_dq_oe_i ? chip_dq_i : sdram_dq_o;

  vmgpu_sdram_device #(
    .CLK_HZ            (CLK_HZ),
    .MEM_BYTES         (MEM_BYTES),
    .SDRAM_CAS_LATENCY (SDRAM_CAS_LATENCY),
    .TLB_ENTRIES       (TLB_ENTRIES),
    .N_RINGS           (N_RINGS),
    .MEM_RSP_REG       (MEM_RSP_REG),
    .MEM_ARB_REG       (MEM_ARB_REG),
    .MMU_REQ_REG       (MMU_REQ_REG),
    .GFX_ENGINE        (GFX_ENGINE),
    .SIMT_LANES        (SIMT_LANES),
    .SIMT_WARPS        (SIMT_WARPS),
    .SIMT_SHARED_BYTES (SIMT_SHARED_BYTES),
    .SIMT_F            (SIMT_F),
    .SIMT_FDIV         (SIMT_FDIV),
    .SIMT_SCHED_REG    (SIMT_SCHED_REG),
    .SIMT_EXEC_REG     (SIMT_EXEC_REG)
  ) u_dev (
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
    .irq_o            (irq_o),
    .idle_o           (idle_o),
    .fault_o          (fault_o),
    .init_done_o      (init_done_o),
    .sdram_cke_o      (sdram_cke_o),
    .sdram_cs_no      (sdram_cs_no),
    .sdram_ras_no     (sdram_ras_no),
    .sdram_cas_no     (sdram_cas_no),
    .sdram_we_no      (sdram_we_no),
    .sdram_ba_o       (sdram_ba_o),
    .sdram_a_o        (sdram_a_o),
    .sdram_dqm_o      (sdram_dqm_o),
    .sdram_dq_o       (sdram_dq_o),
    .sdram_dq_oe_o    (sdram_dq_oe_o),
    .sdram_dq_i       (dq_in)
  );
endmodule
`default_nettype wire
