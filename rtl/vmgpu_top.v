`default_nettype none
// vmgpu_top: the whole accelerator. A CSR port in, a host port out, and inside: the CSR block,
// the command processor, the DMA, compute and graphics engines, the MMU (TLB + page-table walker), the
// memory fabric and device memory. docs/architecture.md draws it and states every contract.
//
// Device memory is inside (EXT_MEM 0: block RAM answering every read in one cycle, the
// simulated device's fast option) or outside behind the mem_* port (EXT_MEM 1: ready/valid
// requests and read answers in request order after any latency; the board's SDRAM controller,
// board/ulx3s/ulx3s_top.v). The fabric times block RAM itself and uses the handshake otherwise.
module vmgpu_top #(
  parameter integer MEM_BYTES   = 16777216,  // device memory bytes, a power of two
  parameter integer TLB_ENTRIES = 16,        // fully associative TLB entries
  parameter integer N_RINGS     = 2,         // command rings: 2 or 4
  parameter integer MEM_RSP_REG = 0,         // 1: device-memory reads answer a cycle later (FPGA timing)
  parameter integer MEM_ARB_REG = 0,         // 1: the fabric's grants come from flip-flops (FPGA timing)
  parameter integer MMU_REQ_REG = 0,         // 1: translation requests registered before the TLB (FPGA timing)
  parameter integer GFX_ENGINE  = 1,         // 0: no graphics engine (CAPS.GFX reads 0, GFX_* commands are BAD_COMMAND)
  parameter integer EXT_MEM     = 0,         // 1: device memory outside, on the mem_* port; 0: block RAM inside
  parameter integer SIMT_LANES  = 0,         // lanes per warp of the SIMT compute unit (rtl/simt); 0: no
                                             // unit (CAPS.SIMT reads 0, LAUNCH_PROG is BAD_COMMAND)
  parameter integer SIMT_WARPS  = 4,         // its warps (a block has at most SIMT_LANES x SIMT_WARPS threads)
  parameter integer SIMT_SHARED_BYTES = 4096, // its shared memory (block RAM, a power of two)
  parameter integer SIMT_F      = 1,         // 1: the unit has the F extension (rtl/simt/simt_fpu.v)
  parameter integer SIMT_FDIV   = 1,         // 1 (with SIMT_F): and fdiv.s/fsqrt.s (rtl/simt/simt_fdiv.v)
  parameter integer SIMT_SCHED_REG = 0,      // 1: the unit's warp pick registered (FPGA timing; simt_core SCHED_REG)
  parameter integer SIMT_EXEC_REG  = 0       // 1: the unit's lane results registered, 2: its operands too (FPGA timing; simt_core EXEC_REG)
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
  // host port
  output wire        host_req_valid_o,
  input  wire        host_req_ready_i,
  output wire        host_req_we_o,
  output wire [31:0] host_req_addr_o,
  output wire [31:0] host_req_wdata_o,
  output wire [3:0]  host_req_be_o,
  input  wire        host_rsp_valid_i,
  input  wire [31:0] host_rsp_data_i,
  // device-memory port (EXT_MEM 1; with EXT_MEM 0 the outputs are 0 and the inputs unused).
  // Word addresses; a request is taken in a cycle where its valid and ready are both high; every
  // read is answered once, in the order they were taken, at least one cycle later. Unlike the
  // other inputs these are not registered at the boundary (a registered ready would be a cycle
  // stale): the memory must drive mem_*_ready_i and the answer from its flip-flops.
  output wire        mem_rd_valid_o,
  input  wire        mem_rd_ready_i,
  output wire [$clog2(MEM_BYTES / 4)-1:0] mem_rd_addr_o,
  input  wire        mem_rsp_valid_i,
  input  wire [31:0] mem_rsp_data_i,
  output wire        mem_wr_valid_o,
  input  wire        mem_wr_ready_i,
  output wire [$clog2(MEM_BYTES / 4)-1:0] mem_wr_addr_o,
  output wire [31:0] mem_wr_data_o,
  output wire [3:0]  mem_wr_be_o,
  input  wire        mem_refresh_i,   // the memory is held for refresh (counted in MEM_REFRESH_CYCLES)
  // status
  output wire        irq_o,
  output wire        idle_o,
  output wire        fault_o
);
  `include "vmgpu_regs.vh"

  localparam integer AW = $clog2(MEM_BYTES / 4);  // device word-address width
  // Fabric masters, highest priority first. The SIMT unit is a seventh only when it is built,
  // so a device without it has the same fabric as before.
  localparam integer SIMT_ON = (SIMT_LANES != 0) ? 1 : 0;
  localparam integer M_WALK = 0, M_WIN = 1, M_CP = 2, M_DMA = 3, M_CU = 4, M_GFX = 5,
                     M_SIMT = 6, NM = 6 + SIMT_ON;

  // ---- fabric master buses ----
  wire [NM-1:0]    m_rd_valid, m_rd_ready, m_rd_host, m_rsp_valid;
  wire [NM-1:0]    m_wr_valid, m_wr_ready, m_wr_host;
  wire [NM*32-1:0] m_rd_addr, m_rsp_data, m_wr_addr, m_wr_data;
  wire [NM*4-1:0]  m_wr_be;

  // ---- command processor <-> the rest ----
  wire        ring_we, ring_re;
  wire [1:0]  ring_idx;
  wire [5:0]  ring_off;
  wire [31:0] ring_wdata, ring_rdata;
  wire [63:0] cycle;
  wire        ctx_valid;
  wire [7:0]  ctx_asid;
  wire [31:0] ctx_root;
  wire        inv_valid, inv_done;
  wire [1:0]  inv_mode;
  wire [7:0]  inv_asid;
  wire [31:0] inv_va, inv_size;
  wire        cp_idle;
  wire [N_RINGS-1:0] ring_busy, ring_fault, fence_irq, fault_irq;

  wire        dma_start, dma_op, dma_busy, dma_done, dma_fault, dma_fault_write;
  wire [31:0] dma_src_va, dma_dst_va, dma_width, dma_height, dma_src_pitch, dma_dst_pitch;
  wire [31:0] dma_pattern, dma_fault_va;
  wire [1:0]  dma_pattern_size;
  wire [3:0]  dma_fault_reason;

  wire        cu_start, cu_busy, cu_done, cu_fault, cu_fault_write;
  wire [7:0]  cu_kernel;
  wire [31:0] cu_args_va, cu_fault_va;
  wire [3:0]  cu_fault_reason;

  wire        simt_start, simt_busy, simt_done, simt_fault;
  wire [31:0] simt_code_va, simt_args_va, simt_stack_va, simt_fault_va, simt_fault_pc;
  wire [4:0]  simt_stack_log2;
  wire [15:0] simt_grid_x, simt_grid_y, simt_grid_z;
  wire [9:0]  simt_block_x, simt_block_y, simt_block_z;
  wire [29:0] simt_threads;
  wire [1:0]  simt_fault_access;
  wire [3:0]  simt_fault_reason;
  wire [7:0]  simt_fault_lane, simt_fault_warp;
  wire [31:0] simt_perf_cycles, simt_perf_lane_instrs, simt_perf_warp_instrs;  // SIMT_* counters
  wire        simt_lock_req;   // the SIMT port asks to hold device memory for an AMO
  reg         simt_lock_q;     // granted: every other master's device requests wait

  wire        gfx_start, gfx_busy, gfx_done, gfx_fault, gfx_fault_write;
  wire [1:0]  gfx_op;
  wire [31:0] gfx_src_va, gfx_src_pitch, gfx_src_w, gfx_src_h;
  wire [31:0] gfx_dst_va, gfx_dst_pitch, gfx_dst_w, gfx_dst_h, gfx_color, gfx_fault_va;
  wire [3:0]  gfx_fault_reason;

  // ---- translation ports ----
  wire        tr0_req_valid, tr0_req_ready, tr0_req_write, tr0_rsp_valid, tr0_rsp_host, tr0_rsp_fault;
  wire [31:0] tr0_req_va, tr0_rsp_pa;
  wire [3:0]  tr0_rsp_reason;
  wire        tr1_req_valid, tr1_req_ready, tr1_req_write, tr1_rsp_valid, tr1_rsp_host, tr1_rsp_fault;
  wire [31:0] tr1_req_va, tr1_rsp_pa;
  wire [3:0]  tr1_rsp_reason;
  // The compute and graphics engines share MMU port 1 (tr_port_arb, compute first); the SIMT
  // unit, when built, shares the compute engine's side of it (a second tr_port_arb). The
  // command processor runs one command at a time, so at most one of them asks at once.
  wire        cu_tr_req_valid, cu_tr_req_ready, cu_tr_req_write, cu_tr_rsp_valid;
  wire [31:0] cu_tr_req_va;
  wire        ce_tr_req_valid, ce_tr_req_ready, ce_tr_req_write, ce_tr_rsp_valid;
  wire [31:0] ce_tr_req_va;
  wire        gfx_tr_req_valid, gfx_tr_req_ready, gfx_tr_req_write, gfx_tr_rsp_valid;
  wire [31:0] gfx_tr_req_va;

  // ---- MMU statistics and events ----
  wire        stat_hit, stat_miss, stat_evict, stat_walk;
  wire        evt_valid, evt_write;
  wire [3:0]  evt_kind, evt_reason;
  wire [7:0]  evt_asid;
  wire [31:0] evt_va, evt_pte;

  // ---- device memory ----
  wire          dm_rd_en, dm_wr_en;
  wire [AW-1:0] dm_rd_addr, dm_wr_addr;
  wire [31:0]   dm_rd_data, dm_wr_data;
  wire [3:0]    dm_wr_be;
  wire          dm_rd_ready, dm_wr_ready, dm_rsp_valid;

  assign fault_o = |ring_fault;

  // ---- port boundary: registered inputs ----
  // Everything that enters from outside is registered once, so no logic inside depends
  // combinationally on the ports (clean board timing, and a Verilator model whose input
  // evaluation is trivial). The CSR handshake tolerates the extra cycle by design.
  reg        csr_req_q, csr_we_q;
  reg [11:0] csr_addr_q;
  reg [31:0] csr_wdata_q;
  reg        host_rsp_valid_q;
  reg [31:0] host_rsp_data_q;
  reg        mem_refresh_q;
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      csr_req_q <= 1'b0;
      host_rsp_valid_q <= 1'b0;
      mem_refresh_q <= 1'b0;
    end else begin
      csr_req_q <= csr_req_i;
      host_rsp_valid_q <= host_rsp_valid_i;
      mem_refresh_q <= (EXT_MEM != 0) && mem_refresh_i;
    end
    csr_we_q        <= csr_we_i;
    csr_addr_q      <= csr_addr_i;
    csr_wdata_q     <= csr_wdata_i;
    host_rsp_data_q <= host_rsp_data_i;
  end

  // Host-port requests leave through a two-entry FIFO (see sync_fifo).
  wire        fab_host_valid, fab_host_ready, fab_host_we;
  wire [31:0] fab_host_addr, fab_host_wdata;
  wire [3:0]  fab_host_be;
  sync_fifo #(
    .WIDTH (69),
    .DEPTH (2)
  ) u_host_req_fifo (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (fab_host_valid),
    .in_ready_o  (fab_host_ready),
    .in_data_i   ({fab_host_we, fab_host_be, fab_host_addr, fab_host_wdata}),
    .out_valid_o (host_req_valid_o),
    .out_ready_i (host_req_ready_i),
    .out_data_o  ({host_req_we_o, host_req_be_o, host_req_addr_o, host_req_wdata_o})
  );

  csr_block #(
    .MEM_BYTES   (MEM_BYTES),
    .TLB_ENTRIES (TLB_ENTRIES),
    .N_RINGS     (N_RINGS),
    .GFX_ENGINE  (GFX_ENGINE),
    .EXT_MEM     (EXT_MEM),
    .SIMT_LANES  (SIMT_LANES),
    .SIMT_WARPS  (SIMT_WARPS),
    .SIMT_SHARED_BYTES (SIMT_SHARED_BYTES),
    .SIMT_F      (SIMT_F)
  ) u_csr (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .csr_req_i       (csr_req_q),
    .csr_we_i        (csr_we_q),
    .csr_addr_i      (csr_addr_q),
    .csr_wdata_i     (csr_wdata_q),
    .csr_ack_o       (csr_ack_o),
    .csr_rdata_o     (csr_rdata_o),
    .ring_we_o       (ring_we),
    .ring_re_o       (ring_re),
    .ring_idx_o      (ring_idx),
    .ring_off_o      (ring_off),
    .ring_wdata_o    (ring_wdata),
    .ring_rdata_i    (ring_rdata),
    .win_rd_valid_o  (m_rd_valid[M_WIN]),
    .win_rd_ready_i  (m_rd_ready[M_WIN]),
    .win_rd_addr_o   (m_rd_addr[32*M_WIN +: 32]),
    .win_rsp_valid_i (m_rsp_valid[M_WIN]),
    .win_rsp_data_i  (m_rsp_data[32*M_WIN +: 32]),
    .win_wr_valid_o  (m_wr_valid[M_WIN]),
    .win_wr_ready_i  (m_wr_ready[M_WIN]),
    .win_wr_addr_o   (m_wr_addr[32*M_WIN +: 32]),
    .win_wr_data_o   (m_wr_data[32*M_WIN +: 32]),
    .cp_idle_i       (cp_idle),
    .dma_busy_i      (dma_busy),
    .cu_busy_i       (cu_busy | simt_busy),
    .gfx_busy_i      (gfx_busy),
    .ring_busy_i     (ring_busy),
    .ring_fault_i    (ring_fault),
    .fence_irq_i     (fence_irq),
    .fault_irq_i     (fault_irq),
    .stat_hit_i      (stat_hit),
    .stat_miss_i     (stat_miss),
    .stat_evict_i    (stat_evict),
    .stat_walk_i     (stat_walk),
    .stat_mem_refresh_i (mem_refresh_q),
    .simt_perf_cycles_i      (simt_perf_cycles),
    .simt_perf_lane_instrs_i (simt_perf_lane_instrs),
    .simt_perf_warp_instrs_i (simt_perf_warp_instrs),
    .evt_valid_i     (evt_valid),
    .evt_kind_i      (evt_kind),
    .evt_reason_i    (evt_reason),
    .evt_write_i     (evt_write),
    .evt_asid_i      (evt_asid),
    .evt_va_i        (evt_va),
    .evt_pte_i       (evt_pte),
    .cycle_o         (cycle),
    .idle_o          (idle_o),
    .irq_o           (irq_o)
  );
  assign m_rd_host[M_WIN] = 1'b0;
  assign m_wr_host[M_WIN] = 1'b0;
  assign m_wr_be[4*M_WIN +: 4] = 4'hF;

  command_processor #(
    .MEM_BYTES  (MEM_BYTES),
    .N_RINGS    (N_RINGS),
    .GFX_ENGINE (GFX_ENGINE),
    .SIMT_SLOTS (SIMT_LANES * SIMT_WARPS),
    .SIMT_SHARED_BYTES (SIMT_SHARED_BYTES)
  ) u_cp (
    .clk_i              (clk_i),
    .rst_ni             (rst_ni),
    .reg_we_i           (ring_we),
    .reg_re_i           (ring_re),
    .reg_ring_i         (ring_idx),
    .reg_off_i          (ring_off),
    .reg_wdata_i        (ring_wdata),
    .reg_rdata_o        (ring_rdata),
    .cycle_i            (cycle),
    .mem_rd_valid_o     (m_rd_valid[M_CP]),
    .mem_rd_ready_i     (m_rd_ready[M_CP]),
    .mem_rd_addr_o      (m_rd_addr[32*M_CP +: 32]),
    .mem_rsp_valid_i    (m_rsp_valid[M_CP]),
    .mem_rsp_data_i     (m_rsp_data[32*M_CP +: 32]),
    .mem_wr_valid_o     (m_wr_valid[M_CP]),
    .mem_wr_ready_i     (m_wr_ready[M_CP]),
    .mem_wr_addr_o      (m_wr_addr[32*M_CP +: 32]),
    .mem_wr_data_o      (m_wr_data[32*M_CP +: 32]),
    .ctx_valid_o        (ctx_valid),
    .ctx_asid_o         (ctx_asid),
    .ctx_root_o         (ctx_root),
    .inv_valid_o        (inv_valid),
    .inv_mode_o         (inv_mode),
    .inv_asid_o         (inv_asid),
    .inv_va_o           (inv_va),
    .inv_size_o         (inv_size),
    .inv_done_i         (inv_done),
    .dma_start_o        (dma_start),
    .dma_op_o           (dma_op),
    .dma_src_va_o       (dma_src_va),
    .dma_dst_va_o       (dma_dst_va),
    .dma_width_o        (dma_width),
    .dma_height_o       (dma_height),
    .dma_src_pitch_o    (dma_src_pitch),
    .dma_dst_pitch_o    (dma_dst_pitch),
    .dma_pattern_o      (dma_pattern),
    .dma_pattern_size_o (dma_pattern_size),
    .dma_done_i         (dma_done),
    .dma_fault_i        (dma_fault),
    .dma_fault_va_i     (dma_fault_va),
    .dma_fault_write_i  (dma_fault_write),
    .dma_fault_reason_i (dma_fault_reason),
    .cu_start_o         (cu_start),
    .cu_kernel_o        (cu_kernel),
    .cu_args_va_o       (cu_args_va),
    .cu_done_i          (cu_done),
    .cu_fault_i         (cu_fault),
    .cu_fault_va_i      (cu_fault_va),
    .cu_fault_write_i   (cu_fault_write),
    .cu_fault_reason_i  (cu_fault_reason),
    .simt_start_o       (simt_start),
    .simt_code_va_o     (simt_code_va),
    .simt_args_va_o     (simt_args_va),
    .simt_stack_va_o    (simt_stack_va),
    .simt_stack_log2_o  (simt_stack_log2),
    .simt_grid_x_o      (simt_grid_x),
    .simt_grid_y_o      (simt_grid_y),
    .simt_grid_z_o      (simt_grid_z),
    .simt_block_x_o     (simt_block_x),
    .simt_block_y_o     (simt_block_y),
    .simt_block_z_o     (simt_block_z),
    .simt_threads_o     (simt_threads),
    .simt_done_i        (simt_done),
    .simt_fault_i       (simt_fault),
    .simt_fault_va_i    (simt_fault_va),
    .simt_fault_access_i(simt_fault_access),
    .simt_fault_reason_i(simt_fault_reason),
    .simt_fault_lane_i  (simt_fault_lane),
    .simt_fault_warp_i  (simt_fault_warp),
    .simt_fault_pc_i    (simt_fault_pc),
    .gfx_start_o        (gfx_start),
    .gfx_op_o           (gfx_op),
    .gfx_src_va_o       (gfx_src_va),
    .gfx_src_pitch_o    (gfx_src_pitch),
    .gfx_src_w_o        (gfx_src_w),
    .gfx_src_h_o        (gfx_src_h),
    .gfx_dst_va_o       (gfx_dst_va),
    .gfx_dst_pitch_o    (gfx_dst_pitch),
    .gfx_dst_w_o        (gfx_dst_w),
    .gfx_dst_h_o        (gfx_dst_h),
    .gfx_color_o        (gfx_color),
    .gfx_done_i         (gfx_done),
    .gfx_fault_i        (gfx_fault),
    .gfx_fault_va_i     (gfx_fault_va),
    .gfx_fault_write_i  (gfx_fault_write),
    .gfx_fault_reason_i (gfx_fault_reason),
    .idle_o             (cp_idle),
    .ring_busy_o        (ring_busy),
    .ring_fault_o       (ring_fault),
    .fence_irq_o        (fence_irq),
    .fault_irq_o        (fault_irq)
  );
  assign m_rd_host[M_CP] = 1'b0;
  assign m_wr_host[M_CP] = 1'b0;
  assign m_wr_be[4*M_CP +: 4] = 4'hF;

  dma_engine u_dma (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .start_i         (dma_start),
    .op_i            (dma_op),
    .src_va_i        (dma_src_va),
    .dst_va_i        (dma_dst_va),
    .width_i         (dma_width),
    .height_i        (dma_height),
    .src_pitch_i     (dma_src_pitch),
    .dst_pitch_i     (dma_dst_pitch),
    .pattern_i       (dma_pattern),
    .pattern_size_i  (dma_pattern_size),
    .busy_o          (dma_busy),
    .done_o          (dma_done),
    .fault_o         (dma_fault),
    .fault_va_o      (dma_fault_va),
    .fault_write_o   (dma_fault_write),
    .fault_reason_o  (dma_fault_reason),
    .tr_req_valid_o  (tr0_req_valid),
    .tr_req_ready_i  (tr0_req_ready),
    .tr_req_va_o     (tr0_req_va),
    .tr_req_write_o  (tr0_req_write),
    .tr_rsp_valid_i  (tr0_rsp_valid),
    .tr_rsp_pa_i     (tr0_rsp_pa),
    .tr_rsp_host_i   (tr0_rsp_host),
    .tr_rsp_fault_i  (tr0_rsp_fault),
    .tr_rsp_reason_i (tr0_rsp_reason),
    .mem_rd_valid_o  (m_rd_valid[M_DMA]),
    .mem_rd_ready_i  (m_rd_ready[M_DMA]),
    .mem_rd_addr_o   (m_rd_addr[32*M_DMA +: 32]),
    .mem_rd_host_o   (m_rd_host[M_DMA]),
    .mem_rsp_valid_i (m_rsp_valid[M_DMA]),
    .mem_rsp_data_i  (m_rsp_data[32*M_DMA +: 32]),
    .mem_wr_valid_o  (m_wr_valid[M_DMA]),
    .mem_wr_ready_i  (m_wr_ready[M_DMA]),
    .mem_wr_addr_o   (m_wr_addr[32*M_DMA +: 32]),
    .mem_wr_host_o   (m_wr_host[M_DMA]),
    .mem_wr_data_o   (m_wr_data[32*M_DMA +: 32]),
    .mem_wr_be_o     (m_wr_be[4*M_DMA +: 4])
  );

  // Simulation speed only, as for the SIMT unit below: in the Verilator model the compute
  // engine's clock runs from a start to one edge after busy falls (and in reset), so its idle
  // logic is not evaluated every cycle. The enable is a flop, so it rises just after the edge
  // that should have taken the start; the engine's first edge then comes in the same
  // evaluation, after the other flops were updated, and sees the start in cu_start_late_q
  // (its operands are the command processor's, held while the engine runs). A second look at
  // start_i, one edge later, finds the engine busy and is ignored. sim/vmgpu_sim.cpp lowers this
  // clock's remembered value at skipped falling edges. Other tools clock it with clk_i.
  wire cu_clk, cu_start_eff;
`ifdef VERILATOR
  reg cu_clk_en_q, cu_start_late_q;
  always @(posedge clk_i) begin
    cu_clk_en_q     <= !rst_ni || cu_start || cu_busy;
    cu_start_late_q <= rst_ni && cu_start;
  end
  assign cu_clk       = clk_i & cu_clk_en_q;
  assign cu_start_eff = cu_start | cu_start_late_q;
`else
  assign cu_clk       = clk_i;
  assign cu_start_eff = cu_start;
`endif

  compute_engine u_cu (
    .clk_i           (cu_clk),
    .rst_ni          (rst_ni),
    .start_i         (cu_start_eff),
    .kernel_i        (cu_kernel),
    .args_va_i       (cu_args_va),
    .busy_o          (cu_busy),
    .done_o          (cu_done),
    .fault_o         (cu_fault),
    .fault_va_o      (cu_fault_va),
    .fault_write_o   (cu_fault_write),
    .fault_reason_o  (cu_fault_reason),
    .tr_req_valid_o  (ce_tr_req_valid),
    .tr_req_ready_i  (ce_tr_req_ready),
    .tr_req_va_o     (ce_tr_req_va),
    .tr_req_write_o  (ce_tr_req_write),
    .tr_rsp_valid_i  (ce_tr_rsp_valid),
    .tr_rsp_pa_i     (tr1_rsp_pa),
    .tr_rsp_host_i   (tr1_rsp_host),
    .tr_rsp_fault_i  (tr1_rsp_fault),
    .tr_rsp_reason_i (tr1_rsp_reason),
    .mem_rd_valid_o  (m_rd_valid[M_CU]),
    .mem_rd_ready_i  (m_rd_ready[M_CU]),
    .mem_rd_addr_o   (m_rd_addr[32*M_CU +: 32]),
    .mem_rd_host_o   (m_rd_host[M_CU]),
    .mem_rsp_valid_i (m_rsp_valid[M_CU]),
    .mem_rsp_data_i  (m_rsp_data[32*M_CU +: 32]),
    .mem_wr_valid_o  (m_wr_valid[M_CU]),
    .mem_wr_ready_i  (m_wr_ready[M_CU]),
    .mem_wr_addr_o   (m_wr_addr[32*M_CU +: 32]),
    .mem_wr_host_o   (m_wr_host[M_CU]),
    .mem_wr_data_o   (m_wr_data[32*M_CU +: 32]),
    .mem_wr_be_o     (m_wr_be[4*M_CU +: 4])
  );

  // The SIMT compute unit (rtl/simt) behind the MMU: simt_mmu_port translates its virtual
  // addresses on MMU port 1 (shared with the compute engine) and reaches memory as fabric
  // master M_SIMT. Only with SIMT_LANES.
  generate
    if (SIMT_LANES != 0) begin : g_simt
      wire        sm_req_valid, sm_req_ready, sm_rsp_valid, sm_rsp_fault;
      wire [31:0] sm_req_va, sm_req_wdata, sm_rsp_data, sm_req_cmp;
      wire [4:0]  sm_req_amo;
      wire [2:0]  sm_req_op;
      wire [3:0]  sm_req_be, sm_rsp_reason;
      wire        sm_tr_req_valid, sm_tr_req_ready, sm_tr_req_write, sm_tr_rsp_valid;
      wire [31:0] sm_tr_req_va;
      wire [31:0] perf_cycles, perf_lane_instrs, perf_warp_instrs;
      reg         simt_busy_q;

      wire        unit_busy, unit_clk;
      reg         start_hold_q;

      // busy from the start pulse to done, so STATUS and idle_o see the launch at once
      always @(posedge clk_i) begin
        if (!rst_ni) simt_busy_q <= 1'b0;
        else if (simt_start) simt_busy_q <= 1'b1;
        else if (simt_done) simt_busy_q <= 1'b0;
      end
      assign simt_busy = simt_busy_q;

      // The start pulse, held until the unit has taken it (it answers busy).
      always @(posedge clk_i) begin
        if (!rst_ni) start_hold_q <= 1'b0;
        else if (simt_start) start_hold_q <= 1'b1;
        else if (unit_busy) start_hold_q <= 1'b0;
      end

`ifdef VERILATOR
      // Simulation speed only: in the Verilator model the unit's clock runs only from a start
      // to one edge after its done pulse (and in reset). Verilator evaluates a block's logic
      // when its clock has an edge, and the idle unit otherwise cost the model 60 % of its
      // speed (docs/cores.md). The enable is a flop, so it rises after an edge and the unit's
      // first edge of a launch comes in the same evaluation, after the other flops were
      // updated: it sees start_hold_q set and starts; from then on its edges are clk_i's.
      // sim/vmgpu_sim.cpp, which skips the evaluation at falling edges, lowers this clock's
      // remembered value there as it does clk_i's. Other tools (synthesis, Icarus) clock the
      // unit with clk_i: a gated clock has no place on the FPGA.
      reg clk_en_q;
      always @(posedge clk_i)
        clk_en_q <= !rst_ni || simt_start || start_hold_q || unit_busy || simt_done;
      assign unit_clk = clk_i & clk_en_q;
`else
      assign unit_clk = clk_i;
`endif

      simt_core #(
        .LANES        (SIMT_LANES),
        .WARPS        (SIMT_WARPS),
        .SHARED_BYTES (SIMT_SHARED_BYTES),
        .SHARED_BASE  (SIMT_SHARED_BASE),
        .F_EXT        (SIMT_F),
        .F_DIV        (SIMT_FDIV),
        .SCHED_REG    (SIMT_SCHED_REG),
        .EXEC_REG     (SIMT_EXEC_REG)
      ) u_simt (
        .clk_i              (unit_clk),
        .rst_ni             (rst_ni),
        .start_i            (start_hold_q),
        .entry_pc_i         (simt_code_va),
        .args_i             (simt_args_va),
        .stack_base_i       (simt_stack_va),
        .stack_log2_i       (simt_stack_log2),
        .grid_x_i           (simt_grid_x),
        .grid_y_i           (simt_grid_y),
        .grid_z_i           (simt_grid_z),
        .block_x_i          (simt_block_x),
        .block_y_i          (simt_block_y),
        .block_z_i          (simt_block_z),
        .threads_i          (simt_threads),
        .busy_o             (unit_busy),
        .done_o             (simt_done),
        .fault_o            (simt_fault),
        .fault_va_o         (simt_fault_va),
        .fault_access_o     (simt_fault_access),
        .fault_reason_o     (simt_fault_reason),
        .fault_lane_o       (simt_fault_lane),
        .fault_warp_o       (simt_fault_warp),
        .fault_pc_o         (simt_fault_pc),
        .perf_cycles_o      (perf_cycles),
        .perf_lane_instrs_o (perf_lane_instrs),
        .perf_warp_instrs_o (perf_warp_instrs),
        .mem_req_valid_o    (sm_req_valid),
        .mem_req_ready_i    (sm_req_ready),
        .mem_req_va_o       (sm_req_va),
        .mem_req_op_o       (sm_req_op),
        .mem_req_wdata_o    (sm_req_wdata),
        .mem_req_be_o       (sm_req_be),
        .mem_req_amo_o      (sm_req_amo),
        .mem_req_cmp_o      (sm_req_cmp),
        .mem_rsp_valid_i    (sm_rsp_valid),
        .mem_rsp_data_i     (sm_rsp_data),
        .mem_rsp_fault_i    (sm_rsp_fault),
        .mem_rsp_reason_i   (sm_rsp_reason)
      );

      simt_mmu_port u_simt_port (
        .clk_i           (clk_i),
        .rst_ni          (rst_ni),
        .clear_i         (simt_start),
        .req_valid_i     (sm_req_valid),
        .req_ready_o     (sm_req_ready),
        .req_va_i        (sm_req_va),
        .req_op_i        (sm_req_op),
        .req_wdata_i     (sm_req_wdata),
        .req_be_i        (sm_req_be),
        .req_amo_i       (sm_req_amo),
        .req_cmp_i       (sm_req_cmp),
        .lock_req_o      (simt_lock_req),
        .lock_gnt_i      (simt_lock_q),
        .rsp_valid_o     (sm_rsp_valid),
        .rsp_data_o      (sm_rsp_data),
        .rsp_fault_o     (sm_rsp_fault),
        .rsp_reason_o    (sm_rsp_reason),
        .tr_req_valid_o  (sm_tr_req_valid),
        .tr_req_ready_i  (sm_tr_req_ready),
        .tr_req_va_o     (sm_tr_req_va),
        .tr_req_write_o  (sm_tr_req_write),
        .tr_rsp_valid_i  (sm_tr_rsp_valid),
        .tr_rsp_pa_i     (tr1_rsp_pa),
        .tr_rsp_host_i   (tr1_rsp_host),
        .tr_rsp_fault_i  (tr1_rsp_fault),
        .tr_rsp_reason_i (tr1_rsp_reason),
        .mem_rd_valid_o  (m_rd_valid[M_SIMT]),
        .mem_rd_ready_i  (m_rd_ready[M_SIMT]),
        .mem_rd_addr_o   (m_rd_addr[32*M_SIMT +: 32]),
        .mem_rd_host_o   (m_rd_host[M_SIMT]),
        .mem_rsp_valid_i (m_rsp_valid[M_SIMT]),
        .mem_rsp_data_i  (m_rsp_data[32*M_SIMT +: 32]),
        .mem_wr_valid_o  (m_wr_valid[M_SIMT]),
        .mem_wr_ready_i  (m_wr_ready[M_SIMT]),
        .mem_wr_addr_o   (m_wr_addr[32*M_SIMT +: 32]),
        .mem_wr_host_o   (m_wr_host[M_SIMT]),
        .mem_wr_data_o   (m_wr_data[32*M_SIMT +: 32]),
        .mem_wr_be_o     (m_wr_be[4*M_SIMT +: 4])
      );

      tr_port_arb u_tr1_simt_arb (
        .clk_i         (clk_i),
        .rst_ni        (rst_ni),
        .a_req_valid_i (ce_tr_req_valid),
        .a_req_ready_o (ce_tr_req_ready),
        .a_req_va_i    (ce_tr_req_va),
        .a_req_write_i (ce_tr_req_write),
        .a_rsp_valid_o (ce_tr_rsp_valid),
        .b_req_valid_i (sm_tr_req_valid),
        .b_req_ready_o (sm_tr_req_ready),
        .b_req_va_i    (sm_tr_req_va),
        .b_req_write_i (sm_tr_req_write),
        .b_rsp_valid_o (sm_tr_rsp_valid),
        .req_valid_o   (cu_tr_req_valid),
        .req_ready_i   (cu_tr_req_ready),
        .req_va_o      (cu_tr_req_va),
        .req_write_o   (cu_tr_req_write),
        .rsp_valid_i   (cu_tr_rsp_valid)
      );
      // The last launch's counters: registers SIMT_CYCLES, SIMT_LANE_INSTRS, SIMT_WARP_INSTRS.
      assign simt_perf_cycles = perf_cycles;
      assign simt_perf_lane_instrs = perf_lane_instrs;
      assign simt_perf_warp_instrs = perf_warp_instrs;
    end else begin : g_no_simt
      assign simt_busy = 1'b0;
      assign simt_done = 1'b0;
      assign simt_fault = 1'b0;
      assign simt_fault_va = 32'd0;
      assign simt_fault_access = 2'd0;
      assign simt_fault_reason = 4'd0;
      assign simt_fault_lane = 8'd0;
      assign simt_fault_warp = 8'd0;
      assign simt_fault_pc = 32'd0;
      assign simt_perf_cycles = 32'd0;
      assign simt_perf_lane_instrs = 32'd0;
      assign simt_perf_warp_instrs = 32'd0;
      assign simt_lock_req = 1'b0;
      assign cu_tr_req_valid = ce_tr_req_valid;
      assign ce_tr_req_ready = cu_tr_req_ready;
      assign cu_tr_req_va = ce_tr_req_va;
      assign cu_tr_req_write = ce_tr_req_write;
      assign ce_tr_rsp_valid = cu_tr_rsp_valid;
      // The command processor's launch operands have no receiver in this configuration.
      /* verilator lint_off UNUSEDSIGNAL */
      wire unused_simt = &{1'b0, simt_start, simt_code_va, simt_args_va, simt_stack_va,
                           simt_stack_log2, simt_grid_x, simt_grid_y, simt_grid_z, simt_block_x,
                           simt_block_y, simt_block_z, simt_threads};
      /* verilator lint_on UNUSEDSIGNAL */
    end
  endgenerate

  // The graphics engine and its share of MMU port 1 exist only with GFX_ENGINE (the smallest
  // FPGA builds leave them out; the command processor then refuses GFX_* commands).
  generate
    if (GFX_ENGINE != 0) begin : g_gfx
      // The engine's clock in the Verilator model: as the compute engine's above.
      wire gfx_clk, gfx_start_eff;
`ifdef VERILATOR
      reg gfx_clk_en_q, gfx_start_late_q;
      always @(posedge clk_i) begin
        gfx_clk_en_q     <= !rst_ni || gfx_start || gfx_busy;
        gfx_start_late_q <= rst_ni && gfx_start;
      end
      assign gfx_clk       = clk_i & gfx_clk_en_q;
      assign gfx_start_eff = gfx_start | gfx_start_late_q;
`else
      assign gfx_clk       = clk_i;
      assign gfx_start_eff = gfx_start;
`endif

      graphics_engine u_gfx (
        .clk_i           (gfx_clk),
        .rst_ni          (rst_ni),
        .start_i         (gfx_start_eff),
        .op_i            (gfx_op),
        .src_va_i        (gfx_src_va),
        .src_pitch_i     (gfx_src_pitch),
        .src_w_i         (gfx_src_w),
        .src_h_i         (gfx_src_h),
        .dst_va_i        (gfx_dst_va),
        .dst_pitch_i     (gfx_dst_pitch),
        .dst_w_i         (gfx_dst_w),
        .dst_h_i         (gfx_dst_h),
        .color_i         (gfx_color),
        .busy_o          (gfx_busy),
        .done_o          (gfx_done),
        .fault_o         (gfx_fault),
        .fault_va_o      (gfx_fault_va),
        .fault_write_o   (gfx_fault_write),
        .fault_reason_o  (gfx_fault_reason),
        .tr_req_valid_o  (gfx_tr_req_valid),
        .tr_req_ready_i  (gfx_tr_req_ready),
        .tr_req_va_o     (gfx_tr_req_va),
        .tr_req_write_o  (gfx_tr_req_write),
        .tr_rsp_valid_i  (gfx_tr_rsp_valid),
        .tr_rsp_pa_i     (tr1_rsp_pa),
        .tr_rsp_host_i   (tr1_rsp_host),
        .tr_rsp_fault_i  (tr1_rsp_fault),
        .tr_rsp_reason_i (tr1_rsp_reason),
        .mem_rd_valid_o  (m_rd_valid[M_GFX]),
        .mem_rd_ready_i  (m_rd_ready[M_GFX]),
        .mem_rd_addr_o   (m_rd_addr[32*M_GFX +: 32]),
        .mem_rd_host_o   (m_rd_host[M_GFX]),
        .mem_rsp_valid_i (m_rsp_valid[M_GFX]),
        .mem_rsp_data_i  (m_rsp_data[32*M_GFX +: 32]),
        .mem_wr_valid_o  (m_wr_valid[M_GFX]),
        .mem_wr_ready_i  (m_wr_ready[M_GFX]),
        .mem_wr_addr_o   (m_wr_addr[32*M_GFX +: 32]),
        .mem_wr_host_o   (m_wr_host[M_GFX]),
        .mem_wr_data_o   (m_wr_data[32*M_GFX +: 32]),
        .mem_wr_be_o     (m_wr_be[4*M_GFX +: 4])
      );

      tr_port_arb u_tr1_arb (
        .clk_i         (clk_i),
        .rst_ni        (rst_ni),
        .a_req_valid_i (cu_tr_req_valid),
        .a_req_ready_o (cu_tr_req_ready),
        .a_req_va_i    (cu_tr_req_va),
        .a_req_write_i (cu_tr_req_write),
        .a_rsp_valid_o (cu_tr_rsp_valid),
        .b_req_valid_i (gfx_tr_req_valid),
        .b_req_ready_o (gfx_tr_req_ready),
        .b_req_va_i    (gfx_tr_req_va),
        .b_req_write_i (gfx_tr_req_write),
        .b_rsp_valid_o (gfx_tr_rsp_valid),
        .req_valid_o   (tr1_req_valid),
        .req_ready_i   (tr1_req_ready),
        .req_va_o      (tr1_req_va),
        .req_write_o   (tr1_req_write),
        .rsp_valid_i   (tr1_rsp_valid)
      );
    end else begin : g_no_gfx
      assign gfx_busy = 1'b0;
      assign gfx_done = 1'b0;
      assign gfx_fault = 1'b0;
      assign gfx_fault_write = 1'b0;
      assign gfx_fault_va = 32'd0;
      assign gfx_fault_reason = 4'd0;
      assign gfx_tr_req_valid = 1'b0;
      assign gfx_tr_req_write = 1'b0;
      assign gfx_tr_req_va = 32'd0;
      assign gfx_tr_req_ready = 1'b0;
      assign gfx_tr_rsp_valid = 1'b0;
      assign tr1_req_valid = cu_tr_req_valid;
      assign cu_tr_req_ready = tr1_req_ready;
      assign tr1_req_va = cu_tr_req_va;
      assign tr1_req_write = cu_tr_req_write;
      assign cu_tr_rsp_valid = tr1_rsp_valid;
      assign m_rd_valid[M_GFX] = 1'b0;
      assign m_rd_addr[32*M_GFX +: 32] = 32'd0;
      assign m_rd_host[M_GFX] = 1'b0;
      assign m_wr_valid[M_GFX] = 1'b0;
      assign m_wr_addr[32*M_GFX +: 32] = 32'd0;
      assign m_wr_host[M_GFX] = 1'b0;
      assign m_wr_data[32*M_GFX +: 32] = 32'd0;
      assign m_wr_be[4*M_GFX +: 4] = 4'h0;
      // The command processor's graphics operands have no receiver in this configuration.
      /* verilator lint_off UNUSEDSIGNAL */
      wire unused_gfx = &{1'b0, gfx_start, gfx_op, gfx_src_va, gfx_src_pitch, gfx_src_w,
                          gfx_src_h, gfx_dst_va, gfx_dst_pitch, gfx_dst_w, gfx_dst_h, gfx_color,
                          gfx_tr_req_valid, gfx_tr_req_ready, gfx_tr_req_write, gfx_tr_rsp_valid,
                          gfx_tr_req_va, m_rsp_data[32*M_GFX +: 32]};
      /* verilator lint_on UNUSEDSIGNAL */
    end
  endgenerate

  mmu #(
    .MEM_BYTES   (MEM_BYTES),
    .TLB_ENTRIES (TLB_ENTRIES),
    .REQ_REG     (MMU_REQ_REG)
  ) u_mmu (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .ctx_valid_i      (ctx_valid),
    .ctx_asid_i       (ctx_asid),
    .ctx_root_i       (ctx_root),
    .tr0_req_valid_i  (tr0_req_valid),
    .tr0_req_ready_o  (tr0_req_ready),
    .tr0_req_va_i     (tr0_req_va),
    .tr0_req_write_i  (tr0_req_write),
    .tr0_rsp_valid_o  (tr0_rsp_valid),
    .tr0_rsp_pa_o     (tr0_rsp_pa),
    .tr0_rsp_host_o   (tr0_rsp_host),
    .tr0_rsp_fault_o  (tr0_rsp_fault),
    .tr0_rsp_reason_o (tr0_rsp_reason),
    .tr1_req_valid_i  (tr1_req_valid),
    .tr1_req_ready_o  (tr1_req_ready),
    .tr1_req_va_i     (tr1_req_va),
    .tr1_req_write_i  (tr1_req_write),
    .tr1_rsp_valid_o  (tr1_rsp_valid),
    .tr1_rsp_pa_o     (tr1_rsp_pa),
    .tr1_rsp_host_o   (tr1_rsp_host),
    .tr1_rsp_fault_o  (tr1_rsp_fault),
    .tr1_rsp_reason_o (tr1_rsp_reason),
    .inv_valid_i      (inv_valid),
    .inv_mode_i       (inv_mode),
    .inv_asid_i       (inv_asid),
    .inv_va_i         (inv_va),
    .inv_size_i       (inv_size),
    .inv_done_o       (inv_done),
    .pt_rd_valid_o    (m_rd_valid[M_WALK]),
    .pt_rd_ready_i    (m_rd_ready[M_WALK]),
    .pt_rd_addr_o     (m_rd_addr[32*M_WALK +: 32]),
    .pt_rsp_valid_i   (m_rsp_valid[M_WALK]),
    .pt_rsp_data_i    (m_rsp_data[32*M_WALK +: 32]),
    .stat_hit_o       (stat_hit),
    .stat_miss_o      (stat_miss),
    .stat_evict_o     (stat_evict),
    .stat_walk_o      (stat_walk),
    .evt_valid_o      (evt_valid),
    .evt_kind_o       (evt_kind),
    .evt_reason_o     (evt_reason),
    .evt_write_o      (evt_write),
    .evt_asid_o       (evt_asid),
    .evt_va_o         (evt_va),
    .evt_pte_o        (evt_pte)
  );
  // The walker only reads device memory.
  assign m_rd_host[M_WALK] = 1'b0;
  assign m_wr_valid[M_WALK] = 1'b0;
  assign m_wr_host[M_WALK] = 1'b0;
  assign m_wr_addr[32*M_WALK +: 32] = 32'd0;
  assign m_wr_data[32*M_WALK +: 32] = 32'd0;
  assign m_wr_be[4*M_WALK +: 4] = 4'h0;

  // The SIMT unit's atomics: while simt_lock_q is high, every other master's device-memory
  // requests are kept from the fabric (they wait, unchanged, as for any master that is not
  // granted), so the AMO's read and write of device memory have nothing between them. The lock
  // is granted at an edge after which no other master's device request is left presented and
  // not taken by the memory (block RAM takes every request at once; the SDRAM controller runs
  // the requests it took in order, so they all come before the AMO's read). Host-port requests
  // are not held: AMOs on host-aperture pages are refused (simt_mmu_port).
  wire          dm_other_waits = (EXT_MEM != 0) &&
                                 ((dm_rd_en && !dm_rd_ready) || (dm_wr_en && !dm_wr_ready));
  always @(posedge clk_i) begin
    if (!rst_ni) simt_lock_q <= 1'b0;
    else simt_lock_q <= simt_lock_req && (simt_lock_q || !dm_other_waits);
  end
  reg [NM-1:0] lock_hold;
  always @(*) begin
    lock_hold = {NM{simt_lock_q}};
    if (SIMT_ON != 0) lock_hold[NM-1] = 1'b0;   // M_SIMT, the holder
  end
  wire [NM-1:0] fab_rd_valid = m_rd_valid & ~(lock_hold & ~m_rd_host);
  wire [NM-1:0] fab_wr_valid = m_wr_valid & ~(lock_hold & ~m_wr_host);

  mem_fabric #(
    .NM            (NM),
    .MEM_BYTES     (MEM_BYTES),
    .RSP_REG       (MEM_RSP_REG),
    .ARB_REG       (MEM_ARB_REG),
    .DEV_HANDSHAKE (EXT_MEM)
  ) u_fabric (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .m_rd_valid_i     (fab_rd_valid),
    .m_rd_ready_o     (m_rd_ready),
    .m_rd_addr_i      (m_rd_addr),
    .m_rd_host_i      (m_rd_host),
    .m_rsp_valid_o    (m_rsp_valid),
    .m_rsp_data_o     (m_rsp_data),
    .m_wr_valid_i     (fab_wr_valid),
    .m_wr_ready_o     (m_wr_ready),
    .m_wr_addr_i      (m_wr_addr),
    .m_wr_host_i      (m_wr_host),
    .m_wr_data_i      (m_wr_data),
    .m_wr_be_i        (m_wr_be),
    .dm_rd_en_o       (dm_rd_en),
    .dm_rd_ready_i    (dm_rd_ready),
    .dm_rd_addr_o     (dm_rd_addr),
    .dm_rsp_valid_i   (dm_rsp_valid),
    .dm_rd_data_i     (dm_rd_data),
    .dm_wr_en_o       (dm_wr_en),
    .dm_wr_ready_i    (dm_wr_ready),
    .dm_wr_addr_o     (dm_wr_addr),
    .dm_wr_data_o     (dm_wr_data),
    .dm_wr_be_o       (dm_wr_be),
    .host_req_valid_o (fab_host_valid),
    .host_req_ready_i (fab_host_ready),
    .host_req_we_o    (fab_host_we),
    .host_req_addr_o  (fab_host_addr),
    .host_req_wdata_o (fab_host_wdata),
    .host_req_be_o    (fab_host_be),
    .host_rsp_valid_i (host_rsp_valid_q),
    .host_rsp_data_i  (host_rsp_data_q)
  );

  generate
    if (EXT_MEM != 0) begin : g_ext_mem
      assign mem_rd_valid_o = dm_rd_en;
      assign mem_rd_addr_o  = dm_rd_addr;
      assign mem_wr_valid_o = dm_wr_en;
      assign mem_wr_addr_o  = dm_wr_addr;
      assign mem_wr_data_o  = dm_wr_data;
      assign mem_wr_be_o    = dm_wr_be;
      assign dm_rd_ready    = mem_rd_ready_i;
      assign dm_wr_ready    = mem_wr_ready_i;
      assign dm_rsp_valid   = mem_rsp_valid_i;
      assign dm_rd_data     = mem_rsp_data_i;
    end else begin : g_int_mem
      device_memory #(
        .MEM_BYTES (MEM_BYTES)
      ) u_mem (
        .clk_i     (clk_i),
        .rd_en_i   (dm_rd_en),
        .rd_addr_i (dm_rd_addr),
        .rd_data_o (dm_rd_data),
        .wr_en_i   (dm_wr_en),
        .wr_addr_i (dm_wr_addr),
        .wr_data_i (dm_wr_data),
        .wr_be_i   (dm_wr_be)
      );
      // Block RAM: always ready, answered one cycle after the grant (timed by the fabric).
      assign dm_rd_ready    = 1'b1;
      assign dm_wr_ready    = 1'b1;
      assign dm_rsp_valid   = 1'b0;
      assign mem_rd_valid_o = 1'b0;
      assign mem_rd_addr_o  = {AW{1'b0}};
      assign mem_wr_valid_o = 1'b0;
      assign mem_wr_addr_o  = {AW{1'b0}};
      assign mem_wr_data_o  = 32'd0;
      assign mem_wr_be_o    = 4'h0;
      /* verilator lint_off UNUSEDSIGNAL */
      wire unused_ext_mem = &{1'b0, mem_rd_ready_i, mem_wr_ready_i, mem_rsp_valid_i,
                              mem_rsp_data_i};
      /* verilator lint_on UNUSEDSIGNAL */
    end
  endgenerate
endmodule
