`default_nettype none
// CSR block: the register file seen on the CSR port. Global registers, counters and the MMU
// event FIFO live here; ring registers are forwarded to the command processor; MEM_DATA reaches
// device memory through the fabric as its own master (the "window"), which is how the driver
// writes command rings and reads results over any transport.
module csr_block #(
  parameter integer MEM_BYTES   = 16777216,  // device memory bytes (reported, window range)
  parameter integer TLB_ENTRIES = 16,        // reported in CAPS
  parameter integer N_RINGS     = 2,         // reported in CAPS; ring blocks that answer
  parameter integer EVT_DEPTH   = 16,        // MMU event FIFO entries (power of two)
  parameter integer GFX_ENGINE  = 1,         // reported in CAPS.GFX
  parameter integer EXT_MEM     = 0,         // reported in CAPS.EXT_MEM (device memory is the SDRAM)
  parameter integer SIMT_LANES  = 0,         // reported in CAPS.SIMT and SIMT_CONFIG (0: no SIMT unit)
  parameter integer SIMT_WARPS  = 4,         // reported in SIMT_CONFIG
  parameter integer SIMT_SHARED_BYTES = 4096, // reported in SIMT_CONFIG (KiB)
  parameter integer SIMT_F      = 0          // reported in CAPS.SIMT_F (with the unit)
) (
  input  wire               clk_i,
  input  wire               rst_ni,
  // CSR port
  input  wire               csr_req_i,
  input  wire               csr_we_i,
  input  wire [11:0]        csr_addr_i,
  input  wire [31:0]        csr_wdata_i,
  output reg                csr_ack_o,
  output reg  [31:0]        csr_rdata_o,
  // ring registers in the command processor
  output wire               ring_we_o,
  output wire               ring_re_o,    // a ring register is being read this cycle
  output wire [1:0]         ring_idx_o,
  output wire [5:0]         ring_off_o,
  output wire [31:0]        ring_wdata_o,
  input  wire [31:0]        ring_rdata_i,
  // memory window master (device memory only, whole words)
  output reg                win_rd_valid_o,
  input  wire               win_rd_ready_i,
  output wire [31:0]        win_rd_addr_o,
  input  wire               win_rsp_valid_i,
  input  wire [31:0]        win_rsp_data_i,
  output reg                win_wr_valid_o,
  input  wire               win_wr_ready_i,
  output wire [31:0]        win_wr_addr_o,
  output reg  [31:0]        win_wr_data_o,
  // status
  input  wire               cp_idle_i,
  input  wire               dma_busy_i,
  input  wire               cu_busy_i,
  input  wire               gfx_busy_i,
  input  wire [N_RINGS-1:0] ring_busy_i,
  input  wire [N_RINGS-1:0] ring_fault_i,
  input  wire [N_RINGS-1:0] fence_irq_i,
  input  wire [N_RINGS-1:0] fault_irq_i,
  // MMU statistics and events
  input  wire               stat_hit_i,
  input  wire               stat_miss_i,
  input  wire               stat_evict_i,
  input  wire               stat_walk_i,
  input  wire               stat_mem_refresh_i,  // device memory held for refresh this cycle
  input  wire [31:0]        simt_perf_cycles_i,       // the SIMT unit's last launch: busy cycles,
  input  wire [31:0]        simt_perf_lane_instrs_i,  // lane instructions retired,
  input  wire [31:0]        simt_perf_warp_instrs_i,  // warp instructions retired (0 without it)
  input  wire               evt_valid_i,
  input  wire [3:0]         evt_kind_i,
  input  wire [3:0]         evt_reason_i,
  input  wire               evt_write_i,
  input  wire [7:0]         evt_asid_i,
  input  wire [31:0]        evt_va_i,
  input  wire [31:0]        evt_pte_i,
  // to the rest of the device
  output reg  [63:0]        cycle_o,
  output wire               idle_o,
  output wire               irq_o
);
  `include "vmgpu_regs.vh"

  localparam integer EW = $clog2(EVT_DEPTH);
  localparam [31:0] MEM_BYTES_W = MEM_BYTES;
  localparam [31:0] TLB_ENTRIES_W = TLB_ENTRIES;
  localparam [31:0] N_RINGS_W = N_RINGS;
  localparam integer RING_SPACE_END_I = {20'd0, REG_RING_BASE} + REG_RING_MAX * {20'd0, REG_RING_STRIDE};
  localparam [11:0] RING_SPACE_END = RING_SPACE_END_I[11:0];

  localparam [1:0] S_IDLE = 2'd0, S_WIN_RD = 2'd1, S_WIN_RSP = 2'd2, S_WIN_WR = 2'd3;

  reg [1:0]  state_q;
  // After an acknowledge, csr_req_i must be seen low before the next request is taken, so a
  // requester that drops its request a few cycles late is never served twice.
  reg        wait_release_q;
  wire       take = (state_q == S_IDLE) && csr_req_i && !csr_ack_o && !wait_release_q;
  reg [31:0] mem_addr_q, scratch_q, int_enable_q, cycle_hi_q;
  reg [11:0] int_status_q;
  reg [31:0] tlb_hits_q, tlb_misses_q, tlb_evictions_q, walk_cycles_q;
  reg [31:0] mem_refresh_q;

  // MMU event FIFO: {info, va, pte} per entry. It keeps the newest EVT_DEPTH events: an event
  // arriving while it is full overwrites the oldest, because the events a reader needs most are
  // the last ones (the fault that stopped a command comes after all of its fills). The losses
  // are counted (DROPPED, saturating) until the next pop, so the driver can say how many of the
  // events before the ones it reads are gone; counting them per pop, not per empty FIFO, makes
  // the state clear as soon as software has read it once.
  localparam integer DW = 15;  // EVT_COUNT.DROPPED width
  reg [95:0]  evt_q [0:EVT_DEPTH-1];
  reg [EW-1:0] evt_rd_q, evt_wr_q;
  reg [EW:0]   evt_count_q;
  reg [DW-1:0] evt_dropped_q;
  wire         evt_full = (evt_count_q == EVT_DEPTH[EW:0]);
  wire [95:0]  evt_head = evt_q[evt_rd_q];
  wire         evt_empty = (evt_count_q == 0);

  wire in_ring_space = (csr_addr_i >= REG_RING_BASE) && (csr_addr_i < RING_SPACE_END);
  // The four ring blocks span 256 bytes, so the low byte of the offset is enough.
  wire [7:0]  ring_rel = csr_addr_i[7:0] - REG_RING_BASE[7:0];
  assign ring_idx_o   = ring_rel[7:6];
  assign ring_off_o   = ring_rel[5:0];
  assign ring_wdata_o = csr_wdata_i;
  assign win_rd_addr_o = mem_addr_q;
  assign win_wr_addr_o = mem_addr_q;

  wire [N_RINGS-1:0] fence_bits = int_status_q[REG_INT_STATUS_FENCE_LSB +: N_RINGS];
  wire [N_RINGS-1:0] fault_bits = int_status_q[REG_INT_STATUS_FAULT_LSB +: N_RINGS];
  assign idle_o = cp_idle_i && !dma_busy_i && !cu_busy_i && !gfx_busy_i;
  assign irq_o  = |(int_status_q & int_enable_q[11:0]);

  wire window_in_range = (mem_addr_q < MEM_BYTES_W);

  // Ring status bits padded to the register's 4-bit fields.
  wire [3:0] ring_fault4, ring_busy4;
  generate
    if (N_RINGS == 4) begin : g_ring4
      assign ring_fault4 = ring_fault_i;
      assign ring_busy4  = ring_busy_i;
    end else begin : g_ring_pad
      assign ring_fault4 = {{(4-N_RINGS){1'b0}}, ring_fault_i};
      assign ring_busy4  = {{(4-N_RINGS){1'b0}}, ring_busy_i};
    end
  endgenerate

  // SIMT_CONFIG: lanes, warps, shared KiB (all 0 without the unit).
  localparam integer SIMT_ON = (SIMT_LANES != 0) ? 1 : 0;
  localparam [31:0] SIMT_CONFIG_W = (SIMT_ON * (SIMT_SHARED_BYTES / 1024)) * 65536 +
                                    (SIMT_ON * SIMT_WARPS) * 256 + SIMT_LANES;

  // Register reads that need no memory access.
  reg [31:0] rdata;
  // Computed only for a read being taken, so the model does no work for it in other cycles.
  always @(*) begin
    rdata = 32'd0;
    if (!take || csr_we_i) rdata = 32'd0;
    else if (in_ring_space) rdata = ring_rdata_i;
    else begin
      case (csr_addr_i)
        REG_ID:            rdata = VMGPU_ID_MAGIC;
        REG_VERSION:       rdata = VMGPU_HW_VERSION;
        REG_CAPS:          rdata = {3'd0, SIMT_LANES != 0 && SIMT_F != 0, SIMT_LANES != 0, SIMT_LANES != 0, EXT_MEM != 0, GFX_ENGINE != 0, 8'd12, TLB_ENTRIES_W[7:0], 4'd0, N_RINGS_W[3:0]};  // bit 24: graphics engine, 25: SDRAM, 26: SIMT unit, 27: its atomics, 28: its F
        REG_MEM_SIZE:      rdata = MEM_BYTES_W;
        REG_CYCLE_LO:      rdata = cycle_o[31:0];
        REG_CYCLE_HI:      rdata = cycle_hi_q;
        REG_INT_STATUS:    rdata = {20'd0, int_status_q};
        REG_INT_ENABLE:    rdata = int_enable_q;
        REG_MEM_ADDR:      rdata = mem_addr_q;
        REG_STATUS:        rdata = {12'd0, ring_fault4, 4'd0, ring_busy4, 4'd0, gfx_busy_i, cu_busy_i, dma_busy_i, idle_o};
        REG_TLB_HITS:      rdata = tlb_hits_q;
        REG_TLB_MISSES:    rdata = tlb_misses_q;
        REG_TLB_EVICTIONS: rdata = tlb_evictions_q;
        REG_WALK_CYCLES:   rdata = walk_cycles_q;
        REG_MEM_REFRESH_CYCLES: rdata = mem_refresh_q;
        REG_EVT_COUNT:     rdata = {evt_dropped_q != {DW{1'b0}}, evt_dropped_q, {(16-EW-1){1'b0}}, evt_count_q};
        REG_EVT_INFO:      rdata = evt_empty ? 32'd0 : evt_head[95:64];
        REG_EVT_VA:        rdata = evt_empty ? 32'd0 : evt_head[63:32];
        REG_EVT_PTE:       rdata = evt_empty ? 32'd0 : evt_head[31:0];
        REG_SCRATCH:       rdata = scratch_q;
        REG_SIMT_CONFIG:   rdata = SIMT_CONFIG_W;
        REG_SIMT_CYCLES:      rdata = simt_perf_cycles_i;
        REG_SIMT_LANE_INSTRS: rdata = simt_perf_lane_instrs_i;
        REG_SIMT_WARP_INSTRS: rdata = simt_perf_warp_instrs_i;
        default:           rdata = 32'd0;
      endcase
    end
  end

  // Ring-register writes reach the command processor in the same edge that acknowledges them,
  // so a doorbell is visible (the device is no longer idle) as soon as the write completes.
  assign ring_we_o = take && csr_we_i && in_ring_space;
  assign ring_re_o = take && !csr_we_i && in_ring_space;
  wire evt_pop  = take && csr_we_i && (csr_addr_i == REG_EVT_POP);
  // While full, an event either takes the slot a pop frees in the same cycle or replaces the
  // oldest entry; either way both pointers advance and the count stays.
  wire evt_push = evt_valid_i;
  wire evt_drop = evt_valid_i && evt_full && !evt_pop;
  wire evt_take = evt_pop && !evt_empty;

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q <= S_IDLE;
      wait_release_q <= 1'b0;
      csr_ack_o <= 1'b0; csr_rdata_o <= 32'd0;
      win_rd_valid_o <= 1'b0; win_wr_valid_o <= 1'b0; win_wr_data_o <= 32'd0;
      mem_addr_q <= 32'd0; scratch_q <= 32'd0; int_enable_q <= 32'd0; cycle_hi_q <= 32'd0;
      int_status_q <= 12'd0;
      tlb_hits_q <= 32'd0; tlb_misses_q <= 32'd0; tlb_evictions_q <= 32'd0; walk_cycles_q <= 32'd0;
      mem_refresh_q <= 32'd0;
      evt_rd_q <= {EW{1'b0}}; evt_wr_q <= {EW{1'b0}}; evt_count_q <= {(EW+1){1'b0}};
      evt_dropped_q <= {DW{1'b0}};
      cycle_o <= 64'd0;
    end else begin
      cycle_o   <= cycle_o + 64'd1;
      csr_ack_o <= 1'b0;
      // A request seen low releases, even in the acknowledge cycle itself.
      if (!csr_req_i) wait_release_q <= 1'b0;
      else if (csr_ack_o) wait_release_q <= 1'b1;

      // Counters and interrupt sources.
      if (stat_hit_i)   tlb_hits_q      <= tlb_hits_q + 32'd1;
      if (stat_miss_i)  tlb_misses_q    <= tlb_misses_q + 32'd1;
      if (stat_evict_i) tlb_evictions_q <= tlb_evictions_q + 32'd1;
      if (stat_walk_i)  walk_cycles_q   <= walk_cycles_q + 32'd1;
      if (stat_mem_refresh_i) mem_refresh_q <= mem_refresh_q + 32'd1;

      if (evt_push) begin
        evt_q[evt_wr_q] <= {8'd0, evt_asid_i, 7'd0, evt_write_i, evt_reason_i, evt_kind_i,
                            evt_va_i, evt_pte_i};
        evt_wr_q <= evt_wr_q + 1'b1;
      end
      if (evt_take || evt_drop) evt_rd_q <= evt_rd_q + 1'b1;
      if (evt_pop) evt_dropped_q <= {DW{1'b0}};
      else if (evt_drop && evt_dropped_q != {DW{1'b1}}) evt_dropped_q <= evt_dropped_q + 1'b1;
      evt_count_q <= evt_count_q + {{EW{1'b0}}, evt_push && !evt_drop} - {{EW{1'b0}}, evt_take};

      case (state_q)
        S_IDLE: if (take) begin
          if (csr_we_i) begin
            if (!in_ring_space) begin
              case (csr_addr_i)
                REG_INT_ENABLE: int_enable_q <= csr_wdata_i;
                REG_MEM_ADDR:   mem_addr_q   <= {csr_wdata_i[31:2], 2'b00};
                REG_SCRATCH:    scratch_q    <= csr_wdata_i;
                default: ;
              endcase
            end
            if (!in_ring_space && csr_addr_i == REG_MEM_DATA && window_in_range) begin
              win_wr_valid_o <= 1'b1;
              win_wr_data_o  <= csr_wdata_i;
              state_q <= S_WIN_WR;
            end else begin
              // Out-of-range window writes are dropped; the address still advances.
              if (!in_ring_space && csr_addr_i == REG_MEM_DATA) mem_addr_q <= mem_addr_q + 32'd4;
              csr_ack_o <= 1'b1;
            end
          end else begin
            if (!in_ring_space && csr_addr_i == REG_MEM_DATA && window_in_range) begin
              win_rd_valid_o <= 1'b1;
              state_q <= S_WIN_RD;
            end else begin
              if (!in_ring_space && csr_addr_i == REG_MEM_DATA) mem_addr_q <= mem_addr_q + 32'd4;
              if (!in_ring_space && csr_addr_i == REG_CYCLE_LO) cycle_hi_q <= cycle_o[63:32];
              csr_rdata_o <= rdata;
              csr_ack_o   <= 1'b1;
            end
          end
        end
        S_WIN_RD: if (win_rd_ready_i) begin
          win_rd_valid_o <= 1'b0;
          state_q <= S_WIN_RSP;
        end
        S_WIN_RSP: if (win_rsp_valid_i) begin
          csr_rdata_o <= win_rsp_data_i;
          csr_ack_o   <= 1'b1;
          mem_addr_q  <= mem_addr_q + 32'd4;
          state_q     <= S_IDLE;
        end
        S_WIN_WR: if (win_wr_ready_i) begin
          win_wr_valid_o <= 1'b0;
          csr_ack_o  <= 1'b1;
          mem_addr_q <= mem_addr_q + 32'd4;
          state_q    <= S_IDLE;
        end
        default: state_q <= S_IDLE;
      endcase

      // Interrupt sources set bits after software's clear, so no event is lost.
      int_status_q[REG_INT_STATUS_FENCE_LSB +: N_RINGS] <= (take && csr_we_i && csr_addr_i == REG_INT_STATUS ? fence_bits & ~csr_wdata_i[REG_INT_STATUS_FENCE_LSB +: N_RINGS] : fence_bits) | fence_irq_i;
      int_status_q[REG_INT_STATUS_FAULT_LSB +: N_RINGS] <= (take && csr_we_i && csr_addr_i == REG_INT_STATUS ? fault_bits & ~csr_wdata_i[REG_INT_STATUS_FAULT_LSB +: N_RINGS] : fault_bits) | fault_irq_i;
    end
  end
endmodule
