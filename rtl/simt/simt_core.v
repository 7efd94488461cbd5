`default_nettype none
// simt_core: a programmable SIMT compute unit executing RV32IM, and F (single precision: simt_fpu,
// simt_fdiv) with F_EXT. WARPS warps of LANES threads; the lanes of a warp share fetch and
// issue, each lane has its own registers (simt_regfile) and PC.
//
// Issue: a barrel of four stages, one instruction of a warp in flight at a time, a different warp
// every cycle. That needs no forwarding or hazard logic, and four or more ready warps keep every
// lane busy each cycle:
//   S0 pick the next ready warp (round robin) and its min-PC lanes  ->  S1 instruction cache read
//   ->  S2 hit check, decode, register read  ->  S3 execute, write back, next PC per lane.
// For the FPGA's clock stages can be added (a seven-stage barrel wants seven or more warps):
// SCHED_REG registers the warp picked before its lowest PC is taken (S0 -> S0b -> S1), EXEC_REG
// the lanes' results before S3 acts on them (S2 -> S3e -> S3); EXEC_REG 2 also the register
// files' outputs before the lanes compute (S2 -> S3o -> S3e -> S3). None changes what a kernel
// computes, only when.
// Divergence: every lane keeps its own PC and the warp issues at the lowest PC among its live
// lanes, with the lanes at that PC; the others wait. Lanes that took different ways meet again
// where their PCs meet (for compiled if/else and loops, the join point is the higher address),
// so ordinary clang -O2 output runs with no split/join instructions (docs/cores.md argues it).
// Loads, stores, divisions and F operations leave the barrel: the warp waits (other warps go
// on) and, when the load data, quotient or F result is there, the same instruction is issued
// again and then writes it back ("replay"), so the single register write port (of each
// register file) is only ever driven by S3.
//
// Atomics (RV32A's AMOs and Zacas's amocas.w; not LR/SC, which are illegal instructions) go
// to the memory unit like stores, one request per lane, and come back like loads (the old word).
// amocas reads three registers, and the register file has two read ports: it is issued twice
// before its replay, first reading rd (the compare value) in place of rs2 (cas_half_q).
//
// Launch: start_i with a grid of blocks; the unit runs one block at a time, a block being up to
// WARPS*LANES threads (thread t in warp t/LANES, lane t%LANES); each thread starts at entry_pc_i.
// Before each block the thread ids are written, one warp a cycle.
// A thread ends with ECALL; done_o pulses when the last block's last thread ended or after a
// fault (fault_o then holds the report until the next start).
module simt_core #(
  parameter integer LANES = 4,                     // lanes per warp (power of two, >= 2)
  parameter integer WARPS = 4,                     // warps (power of two, >= 2; 4 fill the barrel)
  parameter integer SHARED_BYTES = 4096,           // shared memory in block RAM (power of two)
  parameter [31:0]  SHARED_BASE = 32'hFF00_0000,   // its VA window, aligned to SHARED_BYTES
  parameter integer ICACHE_WORDS = 256,            // direct-mapped instruction cache words
  parameter integer MAX_OUT = 8,                   // memory port requests in flight
  parameter integer F_EXT = 1,                     // 1: the F extension (simt_fpu per lane)
  parameter integer F_DIV = 1,                     // 1 (with F_EXT): fdiv.s, fsqrt.s (simt_fdiv)
  parameter integer SCHED_REG = 0,                 // 1: a register between picking the warp and
                                                   // taking its lowest PC (one more barrel stage),
                                                   // and the block-end and drain decisions
                                                   // registered (each a cycle later)
  parameter integer EXEC_REG = 0                   // 1: the lanes' results registered before S3
                                                   // acts on them (one more barrel stage); 2: and
                                                   // the register files' outputs before the
                                                   // lanes compute (two more); both for the
                                                   // FPGA's clock (docs/cores.md)
) (
  input  wire                 clk_i,
  input  wire                 rst_ni,
  // launch
  input  wire                 start_i,
  input  wire [31:0]          entry_pc_i,     // VA of the first instruction (crt0)
  input  wire [31:0]          args_i,         // VA of the kernel's argument block (CSR 0xCCE)
  input  wire [31:0]          stack_base_i,   // VA of the stacks: thread slot s has the bytes
  input  wire [4:0]           stack_log2_i,   //   below stack_base + (s+1) << stack_log2
  input  wire [15:0]          grid_x_i,       // blocks per grid
  input  wire [15:0]          grid_y_i,
  input  wire [15:0]          grid_z_i,
  input  wire [9:0]           block_x_i,      // threads per block (product <= WARPS*LANES)
  input  wire [9:0]           block_y_i,
  input  wire [9:0]           block_z_i,
  input  wire [29:0]          threads_i,      // block_x_i * block_y_i * block_z_i (the launcher's
                                              // product, from registers: not multiplied again here)
  output wire                 busy_o,
  output reg                  done_o,         // one-cycle pulse
  // fault report (held until the next start)
  output reg                  fault_o,
  output reg  [31:0]          fault_va_o,
  output reg  [1:0]           fault_access_o, // 0 read, 1 write, 2 fetch, 3 instruction/launch
  output reg  [3:0]           fault_reason_o, // FAULT_* (vmgpu_regs.vh)
  output reg  [7:0]           fault_lane_o,
  output reg  [7:0]           fault_warp_o,
  output reg  [31:0]          fault_pc_o,
  // counters since start
  output reg  [31:0]          perf_cycles_o,       // cycles busy
  output reg  [31:0]          perf_lane_instrs_o,  // instructions retired, summed over lanes
  output reg  [31:0]          perf_warp_instrs_o,  // instructions retired by warps
  // memory port (virtual addresses; see simt_lsu)
  output wire                 mem_req_valid_o,
  input  wire                 mem_req_ready_i,
  output wire [31:0]          mem_req_va_o,
  output wire [2:0]           mem_req_op_o,
  output wire [31:0]          mem_req_wdata_o,
  output wire [3:0]           mem_req_be_o,
  output wire [4:0]           mem_req_amo_o,  // op 3 (AMO): its funct5
  output wire [31:0]          mem_req_cmp_o,  // op 3, amocas: the compare value
  input  wire                 mem_rsp_valid_i,
  input  wire [31:0]          mem_rsp_data_i,
  input  wire                 mem_rsp_fault_i,
  input  wire [3:0]           mem_rsp_reason_i
);
  `include "vmgpu_regs.vh"

  localparam integer LW = (LANES > 1) ? $clog2(LANES) : 1;
  localparam integer WW = (WARPS > 1) ? $clog2(WARPS) : 1;
  localparam integer SLOTS = WARPS * LANES;
  localparam integer SW = $clog2(SLOTS);
  localparam integer IC_AW = $clog2(ICACHE_WORDS);
  localparam integer TAG_W = 30 - IC_AW;

  // CSRs (custom user read-only range 0xCC0.., custom read/write 0x800 for the barrier)
  localparam [11:0] CSR_TID_X = 12'hCC0, CSR_TID_Y = 12'hCC1, CSR_TID_Z = 12'hCC2,
                    CSR_NTID_X = 12'hCC3, CSR_NTID_Y = 12'hCC4, CSR_NTID_Z = 12'hCC5,
                    CSR_CTAID_X = 12'hCC6, CSR_CTAID_Y = 12'hCC7, CSR_CTAID_Z = 12'hCC8,
                    CSR_NCTAID_X = 12'hCC9, CSR_NCTAID_Y = 12'hCCA, CSR_NCTAID_Z = 12'hCCB,
                    CSR_LANE = 12'hCCC, CSR_WARP = 12'hCCD, CSR_ARGS = 12'hCCE,
                    CSR_STACK = 12'hCCF, CSR_SHARED_BASE = 12'hCD0, CSR_SHARED_SIZE = 12'hCD1,
                    CSR_TID_LINEAR = 12'hCD2, CSR_CYCLE = 12'hC00, CSR_BARRIER = 12'h800;
  // F: fflags (reads 0: flags are not recorded), frm, fcsr (frm in [7:5]), and the custom
  // fnan (bit 0: NVIDIA's NaN conventions, simt_fpu), all per thread
  localparam [11:0] CSR_FFLAGS = 12'h001, CSR_FRM = 12'h002, CSR_FCSR = 12'h003,
                    CSR_FNAN = 12'h801;

  localparam [1:0] ACC_READ = 2'd0, ACC_WRITE = 2'd1, ACC_FETCH = 2'd2, ACC_INSTR = 2'd3;

  // ---------------------------------------------------------------- launch state
  localparam [1:0] PH_IDLE = 2'd0, PH_INIT = 2'd1, PH_RUN = 2'd2, PH_DONE = 2'd3;
  reg [1:0]  phase_q;
  reg [31:0] entry_q, args_q, stack_base_q;
  reg [4:0]  stack_log2_q;
  reg [15:0] grid_x_q, grid_y_q, grid_z_q, bid_x_q, bid_y_q, bid_z_q;
  reg [9:0]  bdim_x_q, bdim_y_q, bdim_z_q;
  reg [SW:0] nthreads_q;
  reg [SW:0] walk_q;                 // INIT: thread whose ids are written
  reg [9:0]  walk_x_q, walk_y_q, walk_z_q;
  reg        halt_q;                 // a fault stopped the kernel
  reg [31:0] cycle_q;

  reg [9:0]  tid_x_q [0:SLOTS-1];
  reg [9:0]  tid_y_q [0:SLOTS-1];
  reg [9:0]  tid_z_q [0:SLOTS-1];

  // ---------------------------------------------------------------- per-thread and per-warp state
  reg [SLOTS*32-1:0] pc_q;
  reg [SLOTS-1:0]    live_q;         // thread has not ended
  reg [SLOTS-1:0]    parked_q;       // thread waits at the block barrier
  reg [WARPS-1:0]    inflight_q, wait_fetch_q, fetch_sent_q, wait_mem_q, mem_ready_q,
                     wait_div_q, wait_fpu_q, fpu_ready_q,
                     cas_half_q;     // amocas: the compare values went, now the second pass
  reg [SLOTS*3-1:0]  frm_q;          // F: rounding mode per thread
  reg [SLOTS-1:0]    fnan_q;         // F: NVIDIA's NaN conventions per thread
  reg [LW*WARPS-1:0] fetch_lane_q;   // lane named if the warp's fetch faults

  // A thread at the barrier leaves min-PC selection until the barrier opens, so lanes that
  // reach it at different times (clang often places a conditional body after the barrier that
  // follows it) still all arrive before any goes on.
  wire [SLOTS-1:0] avail = live_q & ~parked_q;
  wire [WARPS-1:0] warp_live, warp_avail;
  genvar gw;
  generate
    for (gw = 0; gw < WARPS; gw = gw + 1) begin : g_wl
      assign warp_live[gw]  = |live_q[gw*LANES +: LANES];
      assign warp_avail[gw] = |avail[gw*LANES +: LANES];
    end
  endgenerate

  // ---------------------------------------------------------------- S0: schedule
  wire running = (phase_q == PH_RUN) && !halt_q;
  reg          s0_v_q;        // SCHED_REG: the warp picked, in S0b
  reg [WW-1:0] s0_w_q;
  wire [WARPS-1:0] ready = warp_avail & ~inflight_q & ~wait_fetch_q & ~wait_mem_q &
                           ~wait_div_q & ~wait_fpu_q & {WARPS{running}};
  // With SCHED_REG the pick works from a registered copy of ready (its inputs are spread over
  // the unit): a warp becomes ready a cycle later, and the warp picked in the cycle before is
  // masked out (nothing else makes a warp that is not in flight unready, except a halt or a
  // launch, which the stages after the pick already drop). That warp is kept one-hot
  // (s0_oh_q) so that the mask needs no decoder.
  reg  [WARPS-1:0] ready_q;
  reg  [WARPS-1:0] s0_oh_q;     // SCHED_REG: the warp in S0b, one-hot (zero when none)
  wire [WARPS-1:0] ready_pick = (SCHED_REG != 0) ? (ready_q & ~s0_oh_q) : ready;
  always @(posedge clk_i) ready_q <= ready;
  reg             sel_v;
  reg [WW-1:0]    sel_w;
  reg [WARPS-1:0] sel_oh;       // the warp picked, one-hot (zero when none)
  generate
    if (SCHED_REG == 0) begin : g_rr_loop
      reg [WW-1:0] rr_q;        // the warp picked last
      reg [WW-1:0] cand;
      always @(*) begin
        sel_v = 1'b0;
        sel_w = {WW{1'b0}};
        cand = rr_q;
        // the warp after the last one picked comes first (WARPS is a power of two: cand wraps)
        for (integer k = WARPS; k >= 1; k = k - 1) begin
          cand = rr_q + k[WW-1:0];
          if (ready_pick[cand]) begin
            sel_v = 1'b1;
            sel_w = cand;
          end
        end
        sel_oh = sel_v ? ({{(WARPS-1){1'b0}}, 1'b1} << sel_w) : {WARPS{1'b0}};
      end
      always @(posedge clk_i)
        if (!rst_ni) rr_q <= {WW{1'b0}};
        else if (sel_v) rr_q <= sel_w;
    end else begin : g_rr_masked
      // The same choice without a chain of WARPS candidates (for the FPGA's clock): the lowest
      // ready warp above the last one picked, else the lowest ready warp. Both are one-hot,
      // x & -x (a carry chain); the round robin keeps the warps above the last pick as a mask,
      // so no step decodes a warp number.
      reg  [WARPS-1:0] rr_above_q;  // the warps above the one picked last (warp 0 after reset)
      wire [WARPS-1:0] above = ready_pick & rr_above_q;
      wire [WARPS-1:0] above_lo = above & (~above + {{(WARPS-1){1'b0}}, 1'b1});
      wire [WARPS-1:0] all_lo = ready_pick & (~ready_pick + {{(WARPS-1){1'b0}}, 1'b1});
      reg  [WARPS-1:0] at_or_above;  // the warp picked and those above it
      always @(*) begin
        sel_v = |ready_pick;
        sel_oh = (|above) ? above_lo : all_lo;
        sel_w = {WW{1'b0}};
        for (integer w = 0; w < WARPS; w = w + 1)
          if (sel_oh[w]) sel_w = sel_w | w[WW-1:0];
        at_or_above = sel_oh;
        for (integer w = 1; w < WARPS; w = w + 1)
          at_or_above[w] = at_or_above[w - 1] | sel_oh[w];
      end
      always @(posedge clk_i)
        if (!rst_ni) rr_above_q <= ~{{(WARPS-1){1'b0}}, 1'b1};
        else if (sel_v) rr_above_q <= at_or_above & ~sel_oh;
    end
  endgenerate

  // The PCs and available lanes of one warp, by a mux per warp rather than a variable part
  // select (which Yosys builds as a bit-granular shifter over all SLOTS*32 bits).
  // (Plain Verilog-2005: Icarus, the second compiler of tests/lint, builds vmgpu_top with them.)
  function automatic [LANES*32-1:0] warp_pcs(input [SLOTS*32-1:0] pcs, input [WW-1:0] w);
    integer i;
    begin
      warp_pcs = {LANES*32{1'b0}};
      for (i = 0; i < WARPS; i = i + 1)
        if (w == i[WW-1:0]) warp_pcs = pcs[i*LANES*32 +: LANES*32];
    end
  endfunction
  function automatic [LANES-1:0] warp_bits(input [SLOTS-1:0] bits, input [WW-1:0] w);
    integer i;
    begin
      warp_bits = {LANES{1'b0}};
      for (i = 0; i < WARPS; i = i + 1)
        if (w == i[WW-1:0]) warp_bits = bits[i*LANES +: LANES];
    end
  endfunction

  // With SCHED_REG the warp picked is registered (S0 -> S0b) and its lowest PC is taken a cycle
  // later: the warp is in flight from the pick, so its PCs and lanes cannot change in between
  // (only its own S3 writes them; a barrier cannot open while one of its lanes is available).
  // The PCs and available lanes themselves are registered at the pick (by an AND-OR over the
  // one-hot pick), not muxed by the registered warp number in S0b: the warp's own S3 wrote them
  // at least two cycles before (the ready bits it is picked from are registered), so they are the
  // same words a cycle later, and the 8-to-1 mux is off the path into the minimum's compares.
  wire          pick_v = (SCHED_REG != 0) ? s0_v_q : sel_v;
  wire [WW-1:0] pick_w = (SCHED_REG != 0) ? s0_w_q : sel_w;
  wire [LANES*32-1:0] sel_pcs;
  wire [LANES-1:0]    sel_avail;
  generate
    if (SCHED_REG == 0) begin : g_sel_mux
      assign sel_pcs = warp_pcs(pc_q, pick_w);
      assign sel_avail = warp_bits(avail, pick_w);
    end else begin : g_sel_reg
      reg [LANES*32-1:0] s0_pcs_q;
      reg [LANES-1:0]    s0_avail_q;
      reg [LANES*32-1:0] oh_pcs;
      reg [LANES-1:0]    oh_avail;
      always @(*) begin
        oh_pcs = {LANES*32{1'b0}};
        oh_avail = {LANES{1'b0}};
        for (integer w = 0; w < WARPS; w = w + 1) begin
          oh_pcs = oh_pcs | (pc_q[w*LANES*32 +: LANES*32] & {LANES*32{sel_oh[w]}});
          oh_avail = oh_avail | (avail[w*LANES +: LANES] & {LANES{sel_oh[w]}});
        end
      end
      always @(posedge clk_i) begin
        s0_pcs_q <= oh_pcs;
        s0_avail_q <= oh_avail;
      end
      assign sel_pcs = s0_pcs_q;
      assign sel_avail = s0_avail_q;
    end
  endgenerate
  reg [31:0]      min_pc;
  reg [LANES-1:0] min_mask;
  reg [LW-1:0]    min_lead;
  generate
    if (SCHED_REG == 0) begin : g_min_chain
      // the lowest PC by a chain of compares, then the lanes at it (few LUTs: 32 lanes' worth)
      always @(*) begin
        min_pc = 32'hFFFF_FFFF;
        for (integer l = 0; l < LANES; l = l + 1)
          if (sel_avail[l] && sel_pcs[l*32 +: 32] < min_pc)
            min_pc = sel_pcs[l*32 +: 32];
        min_lead = {LW{1'b0}};
        for (integer l = LANES - 1; l >= 0; l = l - 1) begin
          min_mask[l] = sel_avail[l] && (sel_pcs[l*32 +: 32] == min_pc);
          if (min_mask[l]) min_lead = l[LW-1:0];
        end
      end
    end else begin : g_min_pairs
      // For the FPGA's clock: every pair of lanes compared at once (one compare deep instead of
      // LANES), a lane being at the minimum when no available lane is below it.
      reg [LANES*LANES-1:0] lt, eq;
      always @(*) begin
        lt = {LANES*LANES{1'b0}};
        eq = {LANES*LANES{1'b0}};
        for (integer a = 0; a < LANES; a = a + 1)
          for (integer b = a + 1; b < LANES; b = b + 1) begin
            lt[a*LANES + b] = sel_pcs[a*32 +: 32] < sel_pcs[b*32 +: 32];
            eq[a*LANES + b] = sel_pcs[a*32 +: 32] == sel_pcs[b*32 +: 32];
          end
        for (integer a = 0; a < LANES; a = a + 1) begin
          min_mask[a] = sel_avail[a];
          for (integer b = 0; b < LANES; b = b + 1)
            if (b > a && sel_avail[b] && !(lt[a*LANES + b] || eq[a*LANES + b])) min_mask[a] = 1'b0;
            else if (b < a && sel_avail[b] && lt[b*LANES + a]) min_mask[a] = 1'b0;
        end
        min_lead = {LW{1'b0}};
        for (integer l = LANES - 1; l >= 0; l = l - 1)
          if (min_mask[l]) min_lead = l[LW-1:0];
        // the lanes in the mask share one PC: an OR of the masked PCs, no priority chain
        min_pc = 32'd0;
        for (integer l = 0; l < LANES; l = l + 1)
          min_pc = min_pc | (sel_pcs[l*32 +: 32] & {32{min_mask[l]}});
      end
    end
  endgenerate

  // pipeline registers
  reg              s1_v_q, s2_v_q, s3_v_q;
  reg [WW-1:0]     s1_w_q, s2_w_q, s3_w_q;
  reg [31:0]       s1_pc_q, s2_pc_q, s3_pc_q;
  reg [LANES-1:0]  s1_m_q, s2_m_q, s3_m_q;
  reg [LW-1:0]     s1_l_q, s2_l_q, s3_l_q;
  reg [31:0]       s3_inst_q;
  // With EXEC_REG an instruction spends a cycle in S3e between S2 and S3: the lanes compute
  // there from the register files' outputs, and S3 gets the results from registers.
  reg              xe_v_q;
  reg [WW-1:0]     xe_w_q;
  reg [31:0]       xe_pc_q, xe_inst_q;
  reg [LANES-1:0]  xe_m_q;
  reg [LW-1:0]     xe_l_q;
  // With EXEC_REG 2 it spends a cycle in S3o before that: the register files' outputs (block
  // RAM without its output register: most of a cycle on the ECP5) go into registers there.
  reg              xo_v_q;
  reg [WW-1:0]     xo_w_q;
  reg [31:0]       xo_pc_q, xo_inst_q;
  reg [LANES-1:0]  xo_m_q;
  reg [LW-1:0]     xo_l_q;

  // ---------------------------------------------------------------- S1: instruction cache
  reg [31:0]      ic_data [0:ICACHE_WORDS-1];
  reg [TAG_W-1:0] ic_tag  [0:ICACHE_WORDS-1];
  reg [ICACHE_WORDS-1:0] ic_valid_q;
  reg [31:0]      s2_ic_data_q;
  reg [TAG_W-1:0] s2_ic_tag_q;
  reg             s2_ic_valid_q;

  wire            fill_valid;
  wire [WW-1:0]   fill_warp;
  wire [31:0]     fill_va, fill_data;
  wire            lsu_fill_valid;
  wire [WW-1:0]   lsu_fill_warp;
  wire [31:0]     lsu_fill_va, lsu_fill_data;
  // With EXEC_REG 2 (the board's unit) a fill is registered once on its way in. Unregistered,
  // the answer's queue entry (its kind, warp and VA, read from LUT RAM at the queue's head)
  // drives the decode of the cache's valid bits in the answer's cycle: the unit's longest path
  // out of context (18.7 ns). Every use of the fill (cache, fill buffer, the warp's wake-up) sees
  // it one cycle later, together; a launch drops one in the register (its cache is cleared).
  simt_stage #(.W(1 + WW + 64), .REG(EXEC_REG > 1 ? 1 : 0)) u_fill_stage (
    .clk_i (clk_i),
    .d_i   ({rst_ni && lsu_fill_valid && !((phase_q == PH_IDLE) && start_i), lsu_fill_warp,
             lsu_fill_va, lsu_fill_data}),
    .q_o   ({fill_valid, fill_warp, fill_va, fill_data})
  );
  always @(posedge clk_i) begin
    if (fill_valid) begin
      ic_data[fill_va[IC_AW+1:2]] <= fill_data;
      ic_tag[fill_va[IC_AW+1:2]]  <= fill_va[31:IC_AW+2];
    end
    s2_ic_data_q <= ic_data[s1_pc_q[IC_AW+1:2]];
    s2_ic_tag_q  <= ic_tag[s1_pc_q[IC_AW+1:2]];
  end

  // Each warp's last fill, kept until the warp's next fill (or a launch). A fill wakes its warp,
  // but the warp reaches S2 a few cycles later, and the cache is direct-mapped with one-word
  // lines: another warp's fill to the same line can land in between (fills are pipelined, one a
  // cycle when their page is kept). With three or more warps at PCs that share a line, each fill
  // could evict the one before it before its warp used it, over and over: a livelock. The warp
  // finds its own fill here instead, so every fill retires at least the instruction it fetched.
  // (Arrays indexed by warp, not variable part selects of a flat vector, which Yosys builds as
  // bit-granular shifters.)
  reg [WARPS-1:0]    fb_v_q;
  reg [31:0]         fb_pc_q   [0:WARPS-1];
  reg [31:0]         fb_data_q [0:WARPS-1];
  reg                s2_fb_hit_q;
  reg [31:0]         s2_fb_data_q;
  always @(posedge clk_i) begin
    if (fill_valid) begin
      fb_pc_q[fill_warp]   <= fill_va;
      fb_data_q[fill_warp] <= fill_data;
    end
    s2_fb_hit_q  <= fb_v_q[s1_w_q] && (fb_pc_q[s1_w_q] == s1_pc_q);
    s2_fb_data_q <= fb_data_q[s1_w_q];
  end

  // ---------------------------------------------------------------- S2: hit check, decode, read
  wire s2_ic_hit = s2_ic_valid_q && (s2_ic_tag_q == s2_pc_q[31:IC_AW+2]);
  // The warp's own last fill first: where both hit they hold the same word (a fill writes both,
  // and both are dropped at a launch), and the choice then depends on a registered bit instead
  // of the tag compare, which is off the path to the register files' read addresses.
  wire [31:0] inst2 = s2_fb_hit_q ? s2_fb_data_q : s2_ic_data_q;
  wire s2_misaligned = (s2_pc_q[1:0] != 2'b00);
  wire s2_hit = s2_ic_hit || s2_fb_hit_q;
  wire s2_go   = s2_v_q && !halt_q && s2_hit && !s2_misaligned;
  wire s2_miss = s2_v_q && !halt_q && !s2_hit && !s2_misaligned;
  // amocas's first pass reads rd (its compare value) on the second read port
  wire s2_cas_first = (inst2[6:0] == 7'b0101111) && (inst2[14:12] == 3'd2) &&
                      (inst2[31:27] == 5'b00101) && !cas_half_q[s2_w_q];

  // ---------------------------------------------------------------- S3: decode
  wire [31:0] inst = s3_inst_q;
  wire [6:0]  opcode = inst[6:0];
  wire [4:0]  rd = inst[11:7];
  wire [2:0]  funct3 = inst[14:12];
  wire [6:0]  funct7 = inst[31:25];
  wire [11:0] csr = inst[31:20];

  wire is_lui    = (opcode == 7'b0110111);
  wire is_auipc  = (opcode == 7'b0010111);
  wire is_jal    = (opcode == 7'b1101111);
  wire is_jalr   = (opcode == 7'b1100111) && (funct3 == 3'd0);
  wire is_branch = (opcode == 7'b1100011) && (funct3[2:1] != 2'b01);
  wire is_load   = (opcode == 7'b0000011) && (funct3 != 3'd3) && (funct3[2:1] != 2'b11);
  wire is_store  = (opcode == 7'b0100011) && (funct3[2] == 1'b0) && (funct3 != 3'd3);
  wire is_opimm  = (opcode == 7'b0010011) &&
                   ((funct3 == 3'd1) ? (funct7 == 7'd0) :
                    (funct3 == 3'd5) ? (funct7 == 7'd0 || funct7 == 7'h20) : 1'b1);
  wire is_op     = (opcode == 7'b0110011) &&
                   (funct7 == 7'd0 || funct7 == 7'd1 ||
                    (funct7 == 7'h20 && (funct3 == 3'd0 || funct3 == 3'd5)));
  wire is_div    = is_op && (funct7 == 7'd1) && funct3[2];
  wire is_fence  = (opcode == 7'b0001111);
  wire [4:0] funct5 = inst[31:27];
  wire is_amo    = (opcode == 7'b0101111) && (funct3 == 3'd2) &&
                   (funct5 == 5'b00000 || funct5 == 5'b00001 || funct5 == 5'b00100 ||
                    funct5 == 5'b00101 || funct5 == 5'b01000 || funct5 == 5'b01100 ||
                    funct5[1:0] == 2'b00 && funct5[4]);
  wire cas_first = is_amo && (funct5 == 5'b00101) && !cas_half_q[s3_w_q];
  wire is_system = (opcode == 7'b1110011);
  wire is_ecall  = is_system && (inst[31:7] == 25'd0);
  wire is_csr    = is_system && (funct3 != 3'd0) && (funct3 != 3'd4);
  wire is_bar    = is_csr && (csr == CSR_BARRIER);
  wire csr_f = (F_EXT != 0) &&
               ((csr == CSR_FFLAGS) || (csr == CSR_FRM) || (csr == CSR_FCSR) || (csr == CSR_FNAN));
  wire csr_known = (csr[11:4] == 8'hCC) || (csr[11:4] == 8'hCD && csr[3:0] <= 4'h2) ||
                   (csr == CSR_CYCLE) || (csr == CSR_BARRIER) || csr_f;

  // F (with F_EXT): flw/fsw go to the memory unit; everything else to simt_fpu, whose result
  // comes back like a quotient (the warp waits, then the instruction is issued again and
  // writes it). fdiv.s and fsqrt.s (with F_DIV) go to the lanes' iterative simt_fdiv, which
  // shares the integer divider's control: one division of either kind in the unit at a time.
  wire [4:0] rs2f = inst[24:20];
  wire       rm_ok = (funct3 <= 3'd4) || (funct3 == 3'd7);
  wire is_flw    = (F_EXT != 0) && (opcode == 7'b0000111) && (funct3 == 3'd2);
  wire is_fsw    = (F_EXT != 0) && (opcode == 7'b0100111) && (funct3 == 3'd2);
  wire is_fma4   = (opcode[6:4] == 3'b100) && (opcode[1:0] == 2'b11) && (inst[26:25] == 2'b00) &&
                   rm_ok;
  reg  is_opfp;
  always @(*) begin
    is_opfp = 1'b0;
    if (opcode == 7'b1010011)
      case (funct7)
        7'h00, 7'h04, 7'h08: is_opfp = rm_ok;                                // fadd fsub fmul
        7'h10, 7'h50:        is_opfp = (funct3 <= 3'd2);                     // fsgnj*, feq/flt/fle
        7'h14:               is_opfp = (funct3 <= 3'd1);                     // fmin fmax
        7'h60, 7'h68:        is_opfp = (rs2f <= 5'd1) && rm_ok;              // fcvt.w[u].s, .s.w[u]
        7'h70:               is_opfp = (rs2f == 5'd0) && (funct3 <= 3'd1);   // fmv.x.w fclass
        7'h78:               is_opfp = (rs2f == 5'd0) && (funct3 == 3'd0);   // fmv.w.x
        default:             is_opfp = 1'b0;
      endcase
  end
  wire is_fpu    = (F_EXT != 0) && (is_fma4 || is_opfp);
  wire is_fds    = (F_EXT != 0) && (F_DIV != 0) && (opcode == 7'b1010011) && rm_ok &&
                   ((funct7 == 7'h0C) || (funct7 == 7'h2C && rs2f == 5'd0));   // fdiv fsqrt
  wire fpu_int   = (opcode == 7'b1010011) &&                                  // result in x[rd]
                   ((funct7 == 7'h50) || (funct7 == 7'h60) || (funct7 == 7'h70));
  wire writes_frd = is_flw || (is_fpu && !fpu_int) || is_fds;

  wire legal = is_lui | is_auipc | (opcode == 7'b1101111) | is_jalr | is_branch | is_load |
               is_store | is_amo | is_opimm | is_op | is_fence | is_ecall | (is_csr & csr_known) |
               is_flw | is_fsw | is_fpu | is_fds;
  wire writes_rd = (is_lui | is_auipc | is_jal | is_jalr | is_load | is_amo | is_opimm | is_op |
                    is_csr | (is_fpu & fpu_int)) && (rd != 5'd0);

  // ---------------------------------------------------------------- S3: lanes
  wire [LANES*32-1:0] rs1_v, rs2_v, alu_res, next_pc, addr, maddr, div_res, csr_v;
  // the stage where the lanes compute: S3, or S3e with EXEC_REG
  wire [31:0]   ex_inst = (EXEC_REG != 0) ? xe_inst_q : s3_inst_q;
  wire [31:0]   ex_pc   = (EXEC_REG != 0) ? xe_pc_q : s3_pc_q;
  wire [WW-1:0] ex_w    = (EXEC_REG != 0) ? xe_w_q : s3_w_q;
  // the stage where the register files' outputs arrive: the same, or S3o with EXEC_REG 2
  wire [31:0]   op_inst = (EXEC_REG > 1) ? xo_inst_q : ex_inst;
  wire [WW-1:0] op_w    = (EXEC_REG > 1) ? xo_w_q : ex_w;
  wire op_cas_first = (op_inst[6:0] == 7'b0101111) && (op_inst[14:12] == 3'd2) &&
                      (op_inst[31:27] == 5'b00101) && !cas_half_q[op_w];
  wire [4:0] op_rs2_idx = op_cas_first ? op_inst[11:7] : op_inst[24:20];
  wire unused_op_inst = &{1'b0, op_inst[26:25]};   // funct7's low bits: the ALU's, from ex_inst
  wire [LANES-1:0]    div_done;
  wire [LANES*32-1:0] ld_data;
  wire [LANES*32-1:0] frs2_v, fpu_res;
  reg                 fpu_start;   // S3 hands its F operation to the lanes' simt_fpu
  reg                 fpu_v_q;     // the simt_fpu result of warp fpu_w_q is there this cycle
  reg [WW-1:0]        fpu_w_q;
  wire [LANES-1:0]    rf_we;
  wire [31:0]         rf_wdata [0:LANES-1];
  reg                 commit;      // S3 retires its instruction
  reg                 div_start;
  reg                 div_hold_q;  // quotients held for warp div_warp_q
  reg                 div_run_q;
  reg                 div_f_q;     // the division running or held is simt_fdiv's
  wire [LANES-1:0]    fdiv_done;
  wire [LANES*32-1:0] fdiv_res;
  reg [WW-1:0]        div_warp_q;

  wire [WW+4:0] raddr1 = {s2_w_q, inst2[19:15]};
  wire [WW+4:0] raddr2 = {s2_w_q, s2_cas_first ? inst2[11:7] : inst2[24:20]};
  wire [WW+4:0] waddr  = {s3_w_q, rd};
  wire [WW+4:0] raddr3 = {s2_w_q, inst2[31:27]};

  genvar gl;
  generate
    for (gl = 0; gl < LANES; gl = gl + 1) begin : g_lane
      wire [31:0] r1, r2;
      simt_regfile #(.WARPS(WARPS)) u_rf (
        .clk_i    (clk_i),
        .raddr1_i (raddr1),
        .raddr2_i (raddr2),
        .rdata1_o (r1),
        .rdata2_o (r2),
        .we_i     (rf_we[gl]),
        .waddr_i  (waddr),
        .wdata_i  (rf_wdata[gl])
      );
      wire [31:0] o1 = (op_inst[19:15] == 5'd0) ? 32'd0 : r1;
      wire [31:0] o2 = (op_rs2_idx == 5'd0) ? 32'd0 : r2;
      wire [31:0] x1, x2;   // the operands where the lanes compute
      if (EXEC_REG > 1) begin : g_oreg
        reg [31:0] o1_q, o2_q;
        always @(posedge clk_i) begin
          o1_q <= o1;
          o2_q <= o2;
        end
        assign x1 = o1_q;
        assign x2 = o2_q;
      end else begin : g_onoreg
        assign x1 = o1;
        assign x2 = o2;
      end
      wire [31:0] xres, xnext, xaddr;
      simt_alu #(.MUL((EXEC_REG != 0) ? 0 : 1)) u_alu (
        .inst_i    (ex_inst),
        .pc_i      (ex_pc),
        .rs1_i     (x1),
        .rs2_i     (x2),
        .result_o  (xres),
        .next_pc_o (xnext),
        .addr_o    (xaddr)
      );
      if (EXEC_REG != 0) begin : g_xreg
        // The multiply is split: S3e forms the four partial products of the 33 x 33 signed
        // product (one MULT18X18D each: 18 x 18, 18 x 16, 16 x 18, 16 x 16 bits), S3 adds them.
        // The operands as simt_alu takes them: sign-extended for MULH/MULHSU, not for MULHU.
        wire [1:0] xf3 = ex_inst[13:12];
        wire signed [32:0] ma = {x1[31] & (xf3 != 2'd3), x1};
        wire signed [32:0] mb = {x2[31] & (xf3 == 2'd1), x2};
        wire signed [17:0] alo = {1'b0, ma[16:0]};
        wire signed [17:0] blo = {1'b0, mb[16:0]};
        wire signed [15:0] ahi = ma[32:17];
        wire signed [15:0] bhi = mb[32:17];
        reg signed [35:0] pll_q;
        reg signed [33:0] plh_q, phl_q;
        reg signed [31:0] phh_q;
        reg [31:0] rs1_q, rs2_q, res_q, next_q, addr_q;
        always @(posedge clk_i) begin
          rs1_q <= x1;
          rs2_q <= x2;
          res_q <= xres;
          next_q <= xnext;
          addr_q <= xaddr;
          pll_q <= alo * blo;
          plh_q <= alo * bhi;
          phl_q <= ahi * blo;
          phh_q <= ahi * bhi;
        end
        wire signed [65:0] prod = {{30{pll_q[35]}}, pll_q} + ({{32{plh_q[33]}}, plh_q} <<< 17) +
                                  ({{32{phl_q[33]}}, phl_q} <<< 17) + ({{34{phh_q[31]}}, phh_q} <<< 34);
        wire is_mul = (inst[6:0] == 7'b0110011) && (inst[31:25] == 7'd1) && !inst[14];
        assign rs1_v[gl*32 +: 32] = rs1_q;
        assign rs2_v[gl*32 +: 32] = rs2_q;
        assign alu_res[gl*32 +: 32] = !is_mul ? res_q :
                                      (inst[13:12] == 2'd0) ? prod[31:0] : prod[63:32];
        wire unused_prod = &{1'b0, prod[65:64]};
        assign next_pc[gl*32 +: 32] = next_q;
        assign addr[gl*32 +: 32] = addr_q;
      end else begin : g_xnoreg
        assign rs1_v[gl*32 +: 32] = x1;
        assign rs2_v[gl*32 +: 32] = x2;
        assign alu_res[gl*32 +: 32] = xres;
        assign next_pc[gl*32 +: 32] = xnext;
        assign addr[gl*32 +: 32] = xaddr;
      end
      // an AMO's address is rs1 itself (its immediate field holds funct5 and rs2)
      assign maddr[gl*32 +: 32] = is_amo ? rs1_v[gl*32 +: 32] : addr[gl*32 +: 32];

      simt_div u_div (
        .clk_i    (clk_i),
        .rst_ni   (rst_ni),
        .start_i  (div_start && is_div),
        .a_i      (rs1_v[gl*32 +: 32]),
        .b_i      (rs2_v[gl*32 +: 32]),
        .op_i     (funct3[1:0]),
        .done_o   (div_done[gl]),
        .result_o (div_res[gl*32 +: 32])
      );

      // special registers of this lane's thread in the warp at S3
      wire [SW-1:0] slot = {s3_w_q, gl[LW-1:0]};
      reg  [31:0]   cv;
      always @(*) begin
        case (csr)
          CSR_TID_X:       cv = {22'd0, tid_x_q[slot]};
          CSR_TID_Y:       cv = {22'd0, tid_y_q[slot]};
          CSR_TID_Z:       cv = {22'd0, tid_z_q[slot]};
          CSR_NTID_X:      cv = {22'd0, bdim_x_q};
          CSR_NTID_Y:      cv = {22'd0, bdim_y_q};
          CSR_NTID_Z:      cv = {22'd0, bdim_z_q};
          CSR_CTAID_X:     cv = {16'd0, bid_x_q};
          CSR_CTAID_Y:     cv = {16'd0, bid_y_q};
          CSR_CTAID_Z:     cv = {16'd0, bid_z_q};
          CSR_NCTAID_X:    cv = {16'd0, grid_x_q};
          CSR_NCTAID_Y:    cv = {16'd0, grid_y_q};
          CSR_NCTAID_Z:    cv = {16'd0, grid_z_q};
          CSR_LANE:        cv = gl;
          CSR_WARP:        cv = {{(32-WW){1'b0}}, s3_w_q};
          CSR_ARGS:        cv = args_q;
          CSR_STACK:       cv = stack_base_q + (({{(32-SW){1'b0}}, slot} + 32'd1) << stack_log2_q);
          CSR_SHARED_BASE: cv = SHARED_BASE;
          CSR_SHARED_SIZE: cv = SHARED_BYTES;
          CSR_TID_LINEAR:  cv = {{(32-SW){1'b0}}, slot};
          CSR_CYCLE:       cv = cycle_q;
          CSR_FRM:         cv = {29'd0, frm_q[slot*3 +: 3]};
          CSR_FCSR:        cv = {24'd0, frm_q[slot*3 +: 3], 5'd0};
          CSR_FNAN:        cv = {31'd0, fnan_q[slot]};
          default:         cv = 32'd0;    // and CSR_FFLAGS
        endcase
      end
      assign csr_v[gl*32 +: 32] = cv;

      assign rf_wdata[gl] = (is_load | is_amo) ? ld_data[gl*32 +: 32] :
                            is_div  ? div_res[gl*32 +: 32] :
                            is_fpu  ? fpu_res[gl*32 +: 32] :
                            is_csr  ? csr_v[gl*32 +: 32] : alu_res[gl*32 +: 32];
      assign rf_we[gl] = commit && s3_m_q[gl] && writes_rd;

      // F: registers f0..f31 per warp (rs1, rs2 in one simt_regfile, rs3 in a second), the
      // lane's simt_fpu, and its results held per warp until the warp is issued again
      if (F_EXT != 0) begin : g_f
        wire [31:0] fr1_x, fr2_x, fr3_x, fr3_unused, fout;
        wire [31:0] fr1, fr2, fr3;   // in S3
        if (EXEC_REG != 0) begin : g_fxreg
          reg [31:0] f1_q, f2_q, f3_q;
          wire [31:0] f1_o, f2_o, f3_o;   // in S3e
          if (EXEC_REG > 1) begin : g_foreg
            reg [31:0] f1_oq, f2_oq, f3_oq;
            always @(posedge clk_i) begin
              f1_oq <= fr1_x;
              f2_oq <= fr2_x;
              f3_oq <= fr3_x;
            end
            assign f1_o = f1_oq;
            assign f2_o = f2_oq;
            assign f3_o = f3_oq;
          end else begin : g_fonoreg
            assign f1_o = fr1_x;
            assign f2_o = fr2_x;
            assign f3_o = fr3_x;
          end
          always @(posedge clk_i) begin
            f1_q <= f1_o;
            f2_q <= f2_o;
            f3_q <= f3_o;
          end
          assign fr1 = f1_q;
          assign fr2 = f2_q;
          assign fr3 = f3_q;
        end else begin : g_fxnoreg
          assign fr1 = fr1_x;
          assign fr2 = fr2_x;
          assign fr3 = fr3_x;
        end
        wire        fwe = commit && s3_m_q[gl] && writes_frd;
        wire [31:0] fwdata = is_flw ? ld_data[gl*32 +: 32] :
                             is_fds ? fdiv_res[gl*32 +: 32] : fpu_res[gl*32 +: 32];
        simt_regfile #(.WARPS(WARPS)) u_frf (
          .clk_i    (clk_i),
          .raddr1_i (raddr1),
          .raddr2_i (raddr2),
          .rdata1_o (fr1_x),
          .rdata2_o (fr2_x),
          .we_i     (fwe),
          .waddr_i  (waddr),
          .wdata_i  (fwdata)
        );
        simt_regfile #(.WARPS(WARPS)) u_frf3 (
          .clk_i    (clk_i),
          .raddr1_i (raddr3),
          .raddr2_i (raddr3),
          .rdata1_o (fr3_x),
          .rdata2_o (fr3_unused),
          .we_i     (fwe),
          .waddr_i  (waddr),
          .wdata_i  (fwdata)
        );
        wire [2:0] frm_t = frm_q[slot*3 +: 3];
        simt_fpu u_fpu (
          .clk_i    (clk_i),
          .en_i     (fpu_start),
          .inst_i   (inst),
          .rm_i     ((funct3 == 3'd7) ? frm_t : funct3),
          .nvnan_i  (fnan_q[slot]),
          .a_i      (fr1),
          .b_i      (fr2),
          .c_i      (fr3),
          .x_i      (rs1_v[gl*32 +: 32]),
          .result_o (fout)
        );
        if (F_DIV != 0) begin : g_fdiv
          simt_fdiv u_fdiv (
            .clk_i    (clk_i),
            .rst_ni   (rst_ni),
            .start_i  (div_start && is_fds),
            .sqrt_i   (funct7[5]),
            .rm_i     ((funct3 == 3'd7) ? frm_t : funct3),
            .nvnan_i  (fnan_q[slot]),
            .a_i      (fr1),
            .b_i      (fr2),
            .done_o   (fdiv_done[gl]),
            .result_o (fdiv_res[gl*32 +: 32])
          );
        end else begin : g_nofdiv
          assign fdiv_done[gl] = 1'b1;
          assign fdiv_res[gl*32 +: 32] = 32'd0;
        end
        reg [31:0] fres_q [0:WARPS-1];
        always @(posedge clk_i)
          if (fpu_v_q) fres_q[fpu_w_q] <= fout;
        assign fpu_res[gl*32 +: 32] = fres_q[s3_w_q];
        assign frs2_v[gl*32 +: 32] = fr2;
        wire unused_f = &{1'b0, fr3_unused};
      end else begin : g_nof
        assign fpu_res[gl*32 +: 32] = 32'd0;
        assign frs2_v[gl*32 +: 32] = 32'd0;
        assign fdiv_done[gl] = 1'b1;
        assign fdiv_res[gl*32 +: 32] = 32'd0;
        wire unused_nof = &{1'b0, writes_frd, raddr3, fdiv_res[gl*32 +: 32]};
      end
    end
  endgenerate

  // A CSR instruction's new value per lane (only the F CSRs keep it): csrrw/s/c, register or
  // immediate source, applied to the value read.
  wire [LANES*32-1:0] csr_new;
  generate
    for (gl = 0; gl < LANES; gl = gl + 1) begin : g_csrw
      wire [31:0] src = funct3[2] ? {27'd0, inst[19:15]} : rs1_v[gl*32 +: 32];
      wire [31:0] old = csr_v[gl*32 +: 32];
      assign csr_new[gl*32 +: 32] = (funct3[1:0] == 2'd1) ? src :
                                    (funct3[1:0] == 2'd2) ? (old | src) : (old & ~src);
    end
  endgenerate

  // ---------------------------------------------------------------- S3: what happens
  wire s3_go = s3_v_q && !halt_q;
  wire mem_replay = mem_ready_q[s3_w_q];
  wire fpu_replay = fpu_ready_q[s3_w_q];
  wire div_replay = div_hold_q && (div_warp_q == s3_w_q);

  // alignment of every active lane's access; the lowest misaligned lane is reported
  reg             misal_any;
  reg [LW-1:0]    misal_lane;
  always @(*) begin
    misal_any = 1'b0;
    misal_lane = {LW{1'b0}};
    for (integer l = LANES - 1; l >= 0; l = l - 1)
      if (s3_m_q[l] && ((funct3[1:0] == 2'd1 && maddr[l*32]) ||
                        (funct3[1:0] == 2'd2 && maddr[l*32 +: 2] != 2'b00))) begin
        misal_any = 1'b1;
        misal_lane = l[LW-1:0];
      end
  end

  wire lsu_ready;
  wire launch = (phase_q == PH_IDLE) && start_i;
  wire is_mem = is_load | is_store | is_amo | is_flw | is_fsw;
  wire lsu_op_valid = s3_go && legal && is_mem && !mem_replay && !misal_any;
  wire s3_fault_illegal = s3_go && !legal;
  wire s3_fault_misal = s3_go && legal && is_mem && !mem_replay && misal_any;

  always @(*) begin
    commit = 1'b0;
    div_start = 1'b0;
    fpu_start = 1'b0;
    if (s3_go && legal) begin
      if (is_mem)      commit = mem_replay;
      else if (is_fpu) begin
        commit = fpu_replay;
        fpu_start = !fpu_replay;
      end else if (is_div || is_fds) begin
        commit = div_replay;
        div_start = !div_run_q && !div_hold_q;
      end else         commit = 1'b1;
    end
  end

  // ---------------------------------------------------------------- memory unit
  wire [WARPS-1:0] lsu_done;
  wire             lsu_idle;
  wire             lsu_quiet;
  wire             lsu_fault;
  wire [31:0]      lsu_fault_va, lsu_fault_pc;
  wire [1:0]       lsu_fault_access;
  wire [3:0]       lsu_fault_reason;
  wire [LW-1:0]    lsu_fault_lane;
  wire [WW-1:0]    lsu_fault_warp;

  // fetch requests: the lowest warp waiting for an instruction
  reg          fetch_v;
  reg [WW-1:0] fetch_w;
  always @(*) begin
    fetch_v = 1'b0;
    fetch_w = {WW{1'b0}};
    for (integer w = WARPS - 1; w >= 0; w = w - 1)
      if (wait_fetch_q[w] && !fetch_sent_q[w]) begin
        fetch_v = 1'b1;
        fetch_w = w[WW-1:0];
      end
  end
  // the PC a waiting warp needs: its lowest live PC, kept from its miss in S2 (it does not
  // change while the warp waits: nothing of the warp is issued, and a barrier cannot open while
  // one of its lanes is available)
  reg [31:0] fetch_pc_q [0:WARPS-1];
  wire [31:0] fetch_pc = fetch_pc_q[fetch_w];
  wire fetch_ready;

  simt_lsu #(
    .LANES(LANES), .WARPS(WARPS), .SHARED_BYTES(SHARED_BYTES), .SHARED_BASE(SHARED_BASE),
    .MAX_OUT(MAX_OUT), .SH_AMO_REG(EXEC_REG >= 2 ? 1 : 0)
  ) u_lsu (
    .clk_i           (clk_i),
    .rst_ni          (rst_ni),
    .halt_i          (halt_q),
    .clear_i         (launch),
    .op_valid_i      (lsu_op_valid),
    .op_ready_o      (lsu_ready),
    .op_warp_i       (s3_w_q),
    .op_mask_i       (s3_m_q),
    .op_addr_i       (maddr),
    .op_data_i       (is_fsw ? frs2_v : rs2_v),
    .op_funct3_i     (funct3),
    .op_store_i      (is_store | is_fsw),
    .op_amo_i        (is_amo),
    .op_funct5_i     (funct5),
    .op_cas_first_i  (cas_first),
    .op_pc_i         (s3_pc_q),
    .op_done_o       (lsu_done),
    .ld_warp_i       (s3_w_q),
    .ld_data_o       (ld_data),
    .fetch_valid_i   (fetch_v && !halt_q),
    .fetch_ready_o   (fetch_ready),
    .fetch_va_i      (fetch_pc),
    .fetch_warp_i    (fetch_w),
    .fetch_lane_i    (fetch_lane_q[fetch_w*LW +: LW]),
    .fill_valid_o    (lsu_fill_valid),
    .fill_warp_o     (lsu_fill_warp),
    .fill_va_o       (lsu_fill_va),
    .fill_data_o     (lsu_fill_data),
    .fault_valid_o   (lsu_fault),
    .fault_va_o      (lsu_fault_va),
    .fault_access_o  (lsu_fault_access),
    .fault_reason_o  (lsu_fault_reason),
    .fault_lane_o    (lsu_fault_lane),
    .fault_warp_o    (lsu_fault_warp),
    .fault_pc_o      (lsu_fault_pc),
    .idle_o          (lsu_idle),
    .quiet_o         (lsu_quiet),
    .mem_req_valid_o (mem_req_valid_o),
    .mem_req_ready_i (mem_req_ready_i),
    .mem_req_va_o    (mem_req_va_o),
    .mem_req_op_o    (mem_req_op_o),
    .mem_req_wdata_o (mem_req_wdata_o),
    .mem_req_be_o    (mem_req_be_o),
    .mem_req_amo_o   (mem_req_amo_o),
    .mem_req_cmp_o   (mem_req_cmp_o),
    .mem_rsp_valid_i (mem_rsp_valid_i),
    .mem_rsp_data_i  (mem_rsp_data_i),
    .mem_rsp_fault_i (mem_rsp_fault_i),
    .mem_rsp_reason_i(mem_rsp_reason_i)
  );

  // ---------------------------------------------------------------- block barrier
  // A warp has arrived when all its live threads are parked; the barrier opens when every warp
  // of the block has arrived or ended (an ended thread cannot arrive, so it is not waited for).
  wire [WARPS-1:0] arrived = warp_live & ~warp_avail;
  wire bar_release = (arrived != {WARPS{1'b0}}) && ((arrived | ~warp_live) == {WARPS{1'b1}});

  // ---------------------------------------------------------------- launch checks and block end
  // The thread count comes with the launch (the command processor multiplies it in registered
  // steps): two chained multipliers from the launch operands to the fault registers' enables
  // were the full 85F design's critical path (25.4 ns).
  wire [29:0] launch_threads = threads_i;
  wire launch_bad = (launch_threads == 30'd0) || (launch_threads > SLOTS[29:0]) ||
                    (grid_x_i == 16'd0) || (grid_y_i == 16'd0) || (grid_z_i == 16'd0);
  wire block_end = (live_q == {SLOTS{1'b0}}) && !s0_v_q && !s1_v_q && !s2_v_q && !xo_v_q && !xe_v_q && !s3_v_q && lsu_idle &&
                   !div_run_q && !div_hold_q;
  wire last_block = (bid_x_q == grid_x_q - 16'd1) && (bid_y_q == grid_y_q - 16'd1) &&
                    (bid_z_q == grid_z_q - 16'd1);
  // after a fault: the pipeline empty and every request the port took answered
  wire drained = !s0_v_q && !s1_v_q && !s2_v_q && !xo_v_q && !xe_v_q && !s3_v_q && lsu_quiet && !fpu_v_q;
  assign busy_o = (phase_q != PH_IDLE);
  // With SCHED_REG the launch sequencer acts on block_end and drained as they were a cycle
  // earlier (the full 85F's critical path ran from the divider's state through block_end to the
  // sequencer's enables, 20.8 ns). Both stay true once true: block_end means no thread left and
  // nothing in flight, so nothing can issue; drained_q is taken only while halt_q already held in
  // the cycle it was computed, so no instruction issued in that cycle either. block_end_q is
  // also only taken from a PH_RUN cycle, so the cycle after a block's INIT never sees the
  // previous block's end.
  reg block_end_q, drained_q;
  wire block_end_now = (SCHED_REG != 0) ? block_end_q : block_end;
  wire drained_now   = (SCHED_REG != 0) ? drained_q : drained;

  reg [LANES-1:0] popc_src;
  reg [LW:0]      popc;
  always @(*) begin
    popc_src = s3_m_q;
    popc = {(LW+1){1'b0}};
    for (integer l = 0; l < LANES; l = l + 1) popc = popc + {{LW{1'b0}}, popc_src[l]};
  end

  // ---------------------------------------------------------------- thread ids at block start
  // The ids of the threads being written (INIT_N from walk_q, a multiple of INIT_N) and of the
  // thread after them: a chain of INIT_N increments of (x, y, z), x fastest, wrapping at the
  // block's dimensions. INIT_N is a warp (LANES), or one thread with SCHED_REG: the chain of
  // LANES increments is too long for the FPGA's clock, and a block's start then takes
  // WARPS*LANES cycles instead of WARPS.
  localparam integer INIT_N = (SCHED_REG != 0) ? 1 : LANES;
  reg [10*(INIT_N+1)-1:0] init_x, init_y, init_z;
  always @(*) begin
    init_x[9:0] = walk_x_q;
    init_y[9:0] = walk_y_q;
    init_z[9:0] = walk_z_q;
    for (integer l = 0; l < INIT_N; l = l + 1) begin
      init_x[(l+1)*10 +: 10] = init_x[l*10 +: 10] + 10'd1;
      init_y[(l+1)*10 +: 10] = init_y[l*10 +: 10];
      init_z[(l+1)*10 +: 10] = init_z[l*10 +: 10];
      if (init_x[l*10 +: 10] + 10'd1 == bdim_x_q) begin
        init_x[(l+1)*10 +: 10] = 10'd0;
        init_y[(l+1)*10 +: 10] = init_y[l*10 +: 10] + 10'd1;
        if (init_y[l*10 +: 10] + 10'd1 == bdim_y_q) begin
          init_y[(l+1)*10 +: 10] = 10'd0;
          init_z[(l+1)*10 +: 10] = init_z[l*10 +: 10] + 10'd1;
        end
      end
    end
  end

  // ---------------------------------------------------------------- state update
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      phase_q <= PH_IDLE;
      halt_q <= 1'b0;
      done_o <= 1'b0;
      fault_o <= 1'b0;
      block_end_q <= 1'b0;
      drained_q <= 1'b0;
      s0_v_q <= 1'b0;
      xo_v_q <= 1'b0;
      xe_v_q <= 1'b0;
      s1_v_q <= 1'b0;
      s2_v_q <= 1'b0;
      s3_v_q <= 1'b0;
      live_q <= {SLOTS{1'b0}};
      parked_q <= {SLOTS{1'b0}};
      inflight_q <= {WARPS{1'b0}};
      wait_fetch_q <= {WARPS{1'b0}};
      fetch_sent_q <= {WARPS{1'b0}};
      wait_mem_q <= {WARPS{1'b0}};
      mem_ready_q <= {WARPS{1'b0}};
      wait_div_q <= {WARPS{1'b0}};
      cas_half_q <= {WARPS{1'b0}};
      wait_fpu_q <= {WARPS{1'b0}};
      fpu_ready_q <= {WARPS{1'b0}};
      fpu_v_q <= 1'b0;
      div_run_q <= 1'b0;
      div_hold_q <= 1'b0;
      s0_oh_q <= {WARPS{1'b0}};
      ic_valid_q <= {ICACHE_WORDS{1'b0}};
      fb_v_q <= {WARPS{1'b0}};
      cycle_q <= 32'd0;
    end else begin
      done_o <= 1'b0;
      block_end_q <= (phase_q == PH_RUN) && !halt_q && block_end;
      drained_q   <= (phase_q == PH_RUN) && halt_q && drained;
      cycle_q <= cycle_q + 32'd1;
      if (busy_o) perf_cycles_o <= perf_cycles_o + 32'd1;

      // ---- launch and blocks
      case (phase_q)
        PH_IDLE: if (start_i) begin
          entry_q <= entry_pc_i;
          args_q <= args_i;
          stack_base_q <= stack_base_i;
          stack_log2_q <= stack_log2_i;
          grid_x_q <= grid_x_i;
          grid_y_q <= grid_y_i;
          grid_z_q <= grid_z_i;
          bdim_x_q <= block_x_i;
          bdim_y_q <= block_y_i;
          bdim_z_q <= block_z_i;
          nthreads_q <= launch_threads[SW:0];
          bid_x_q <= 16'd0;
          bid_y_q <= 16'd0;
          bid_z_q <= 16'd0;
          walk_q <= {(SW+1){1'b0}};
          walk_x_q <= 10'd0;
          walk_y_q <= 10'd0;
          walk_z_q <= 10'd0;
          ic_valid_q <= {ICACHE_WORDS{1'b0}};
          fb_v_q <= {WARPS{1'b0}};
          halt_q <= 1'b0;
          fault_o <= 1'b0;
          perf_cycles_o <= 32'd0;
          perf_lane_instrs_o <= 32'd0;
          perf_warp_instrs_o <= 32'd0;
          if (launch_bad) begin
            fault_o <= 1'b1;
            fault_va_o <= 32'd0;
            fault_access_o <= ACC_INSTR;
            fault_reason_o <= FAULT_BAD_COMMAND;
            fault_lane_o <= 8'd0;
            fault_warp_o <= 8'd0;
            fault_pc_o <= entry_pc_i;
            phase_q <= PH_DONE;
          end else begin
            phase_q <= PH_INIT;
          end
        end
        PH_INIT: begin
          // thread ids, INIT_N threads a cycle, x fastest; the ids written past the block's
          // last thread belong to threads that start dead and are never read
          for (integer l = 0; l < INIT_N; l = l + 1) begin
            tid_x_q[walk_q[SW-1:0] + l[SW-1:0]] <= init_x[l*10 +: 10];
            tid_y_q[walk_q[SW-1:0] + l[SW-1:0]] <= init_y[l*10 +: 10];
            tid_z_q[walk_q[SW-1:0] + l[SW-1:0]] <= init_z[l*10 +: 10];
          end
          walk_q <= walk_q + INIT_N[SW:0];
          walk_x_q <= init_x[INIT_N*10 +: 10];
          walk_y_q <= init_y[INIT_N*10 +: 10];
          walk_z_q <= init_z[INIT_N*10 +: 10];
          if (walk_q + INIT_N[SW:0] >= nthreads_q) begin
            phase_q <= PH_RUN;
            for (integer s = 0; s < SLOTS; s = s + 1) begin
              live_q[s] <= (s < nthreads_q);
              pc_q[s*32 +: 32] <= entry_q;
            end
            frm_q <= {(SLOTS*3){1'b0}};     // each block's threads start with RNE
            fnan_q <= {SLOTS{1'b0}};
          end
        end
        PH_RUN: begin
          if (halt_q) begin
            if (drained_now) phase_q <= PH_DONE;
          end else if (block_end_now) begin
            if (last_block) begin
              phase_q <= PH_DONE;
            end else begin
              phase_q <= PH_INIT;
              walk_q <= {(SW+1){1'b0}};
              walk_x_q <= 10'd0;
              walk_y_q <= 10'd0;
              walk_z_q <= 10'd0;
              if (bid_x_q + 16'd1 != grid_x_q) begin
                bid_x_q <= bid_x_q + 16'd1;
              end else begin
                bid_x_q <= 16'd0;
                if (bid_y_q + 16'd1 != grid_y_q) begin
                  bid_y_q <= bid_y_q + 16'd1;
                end else begin
                  bid_y_q <= 16'd0;
                  bid_z_q <= bid_z_q + 16'd1;
                end
              end
            end
          end
        end
        default: begin  // PH_DONE
          done_o <= 1'b1;
          phase_q <= PH_IDLE;
        end
      endcase

      // ---- S0 -> (S0b ->) S1
      s0_v_q <= (SCHED_REG != 0) && sel_v;
      s0_w_q <= sel_w;
      s0_oh_q <= (SCHED_REG != 0) ? sel_oh : {WARPS{1'b0}};
      s1_v_q <= pick_v && !halt_q;
      s1_w_q <= pick_w;
      s1_pc_q <= min_pc;
      s1_m_q <= min_mask;
      s1_l_q <= min_lead;
      for (integer w = 0; w < WARPS; w = w + 1)
        if (sel_oh[w]) inflight_q[w] <= 1'b1;
      // ---- S1 -> S2
      s2_v_q <= s1_v_q && !halt_q;
      s2_w_q <= s1_w_q;
      s2_pc_q <= s1_pc_q;
      s2_m_q <= s1_m_q;
      s2_l_q <= s1_l_q;
      s2_ic_valid_q <= ic_valid_q[s1_pc_q[IC_AW+1:2]];
      // ---- S2 -> (S3e ->) S3
      xo_v_q <= (EXEC_REG > 1) && s2_go;
      xo_w_q <= s2_w_q;
      xo_pc_q <= s2_pc_q;
      xo_m_q <= s2_m_q;
      xo_l_q <= s2_l_q;
      xo_inst_q <= inst2;
      xe_v_q <= (EXEC_REG > 1) ? (xo_v_q && !halt_q) : ((EXEC_REG != 0) && s2_go);
      xe_w_q <= (EXEC_REG > 1) ? xo_w_q : s2_w_q;
      xe_pc_q <= (EXEC_REG > 1) ? xo_pc_q : s2_pc_q;
      xe_m_q <= (EXEC_REG > 1) ? xo_m_q : s2_m_q;
      xe_l_q <= (EXEC_REG > 1) ? xo_l_q : s2_l_q;
      xe_inst_q <= (EXEC_REG > 1) ? xo_inst_q : inst2;
      s3_v_q <= (EXEC_REG != 0) ? (xe_v_q && !halt_q) : s2_go;
      s3_w_q <= (EXEC_REG != 0) ? xe_w_q : s2_w_q;
      s3_pc_q <= (EXEC_REG != 0) ? xe_pc_q : s2_pc_q;
      s3_m_q <= (EXEC_REG != 0) ? xe_m_q : s2_m_q;
      s3_l_q <= (EXEC_REG != 0) ? xe_l_q : s2_l_q;
      s3_inst_q <= (EXEC_REG != 0) ? xe_inst_q : inst2;
      if (s2_miss) begin
        inflight_q[s2_w_q] <= 1'b0;
        wait_fetch_q[s2_w_q] <= 1'b1;
        fetch_lane_q[s2_w_q*LW +: LW] <= s2_l_q;
        fetch_pc_q[s2_w_q] <= s2_pc_q;
      end
      if (halt_q) inflight_q <= {WARPS{1'b0}};

      // ---- fetches
      if (fetch_ready) fetch_sent_q[fetch_w] <= 1'b1;
      if (fill_valid) begin
        ic_valid_q[fill_va[IC_AW+1:2]] <= 1'b1;
        fb_v_q[fill_warp] <= 1'b1;
        wait_fetch_q[fill_warp] <= 1'b0;
        fetch_sent_q[fill_warp] <= 1'b0;
      end

      // ---- S3
      if (s3_go) inflight_q[s3_w_q] <= 1'b0;
      if (lsu_op_valid && lsu_ready) begin
        if (cas_first) cas_half_q[s3_w_q] <= 1'b1;  // issued again at once for the second pass
        else wait_mem_q[s3_w_q] <= 1'b1;
      end
      for (integer w = 0; w < WARPS; w = w + 1)
        if (lsu_done[w]) begin
          wait_mem_q[w] <= 1'b0;
          mem_ready_q[w] <= 1'b1;
        end
      if (div_start) begin
        div_run_q <= 1'b1;
        div_f_q <= is_fds;
        div_warp_q <= s3_w_q;
        wait_div_q[s3_w_q] <= 1'b1;
      end
      if (div_run_q && !div_start && (div_f_q ? fdiv_done[0] : div_done[0])) begin
        div_run_q <= 1'b0;
        div_hold_q <= 1'b1;
        wait_div_q[div_warp_q] <= 1'b0;
      end
      // ---- F: simt_fpu answers a cycle after the start; the result waits in fres_q
      fpu_v_q <= fpu_start;
      if (fpu_start) begin
        fpu_w_q <= s3_w_q;
        wait_fpu_q[s3_w_q] <= 1'b1;
      end
      if (fpu_v_q) begin
        wait_fpu_q[fpu_w_q] <= 1'b0;
        fpu_ready_q[fpu_w_q] <= 1'b1;
      end
      if (commit) begin
        if (is_mem) mem_ready_q[s3_w_q] <= 1'b0;
        if (is_amo) cas_half_q[s3_w_q] <= 1'b0;
        if (is_div || is_fds) div_hold_q <= 1'b0;
        if (is_fpu) fpu_ready_q[s3_w_q] <= 1'b0;
        perf_lane_instrs_o <= perf_lane_instrs_o + {{(31-LW){1'b0}}, popc};
        perf_warp_instrs_o <= perf_warp_instrs_o + 32'd1;
        for (integer s = 0; s < SLOTS; s = s + 1)
          if (s3_w_q == s[SW-1:LW] && s3_m_q[s % LANES]) begin
            pc_q[s*32 +: 32] <= next_pc[(s % LANES)*32 +: 32];
            if (is_ecall) live_q[s] <= 1'b0;
            if (is_bar) parked_q[s] <= 1'b1;
            if (is_csr && csr == CSR_FRM)  frm_q[s*3 +: 3] <= csr_new[(s % LANES)*32 +: 3];
            if (is_csr && csr == CSR_FCSR) frm_q[s*3 +: 3] <= csr_new[(s % LANES)*32 + 5 +: 3];
            if (is_csr && csr == CSR_FNAN) fnan_q[s] <= csr_new[(s % LANES)*32];
          end
      end
      if (bar_release) parked_q <= {SLOTS{1'b0}};

      // ---- faults: the first one wins and stops the kernel
      if (!halt_q && (lsu_fault || s3_fault_illegal || s3_fault_misal || (s2_v_q && s2_misaligned))) begin
        halt_q <= 1'b1;
        fault_o <= 1'b1;
        if (lsu_fault) begin
          fault_va_o <= lsu_fault_va;
          fault_access_o <= lsu_fault_access;
          fault_reason_o <= lsu_fault_reason;
          fault_lane_o <= {{(8-LW){1'b0}}, lsu_fault_lane};
          fault_warp_o <= {{(8-WW){1'b0}}, lsu_fault_warp};
          fault_pc_o <= lsu_fault_pc;
        end else if (s3_fault_illegal || s3_fault_misal) begin
          fault_va_o <= s3_fault_misal ? maddr[misal_lane*32 +: 32] : s3_pc_q;
          fault_access_o <= s3_fault_misal ? ((is_store | is_amo) ? ACC_WRITE : ACC_READ) : ACC_INSTR;
          fault_reason_o <= s3_fault_misal ? FAULT_MISALIGNED : FAULT_BAD_COMMAND;
          fault_lane_o <= {{(8-LW){1'b0}}, s3_fault_misal ? misal_lane : s3_l_q};
          fault_warp_o <= {{(8-WW){1'b0}}, s3_w_q};
          fault_pc_o <= s3_pc_q;
        end else begin
          fault_va_o <= s2_pc_q;
          fault_access_o <= ACC_FETCH;
          fault_reason_o <= FAULT_MISALIGNED;
          fault_lane_o <= {{(8-LW){1'b0}}, s2_l_q};
          fault_warp_o <= {{(8-WW){1'b0}}, s2_w_q};
          fault_pc_o <= s2_pc_q;
        end
      end
      if (launch) begin
        div_run_q <= 1'b0;
        parked_q <= {SLOTS{1'b0}};
        wait_fetch_q <= {WARPS{1'b0}};
        fetch_sent_q <= {WARPS{1'b0}};
        wait_mem_q <= {WARPS{1'b0}};
        mem_ready_q <= {WARPS{1'b0}};
          wait_div_q <= {WARPS{1'b0}};
        cas_half_q <= {WARPS{1'b0}};
        div_hold_q <= 1'b0;
        wait_fpu_q <= {WARPS{1'b0}};
        fpu_ready_q <= {WARPS{1'b0}};
      end
    end
  end
  // Deliberately unused: the fill address's byte offset (fills are words), the other lanes'
  // division done flags (all lanes start and finish together; lane 0 speaks for them).
  wire unused_ok = &{1'b0, fill_va[1:0], div_done[LANES-1:1], fdiv_done[LANES-1:1]};
endmodule

`default_nettype wire
