`default_nettype none
// simt_mmu_port: puts the SIMT unit's virtual-address memory port (rtl/simt/simt_lsu.v) behind
// the MMU. Each request is translated on an MMU translation port in the context of the running
// command, then read or written on a fabric master port at the physical address (device memory
// or, for host-aperture pages, the host port); a translation fault is answered as a faulting
// response, and nothing is written. The unit's port contract holds: one answer per accepted
// request, in order, at least a cycle later.
//
// Reads whose page is kept go to the fabric at once, up to MAX_RD in flight (the fabric answers
// a master's reads in order). Everything else (a store, a page to translate) waits until no
// read is in flight and then runs alone, the next request being taken in the cycle it
// finishes. So the answers leave in request order, the fabric sees stores in program order
// after every earlier load, and the unit's precise-stop rule carries over unchanged.
//
// Atomics (op 3, an AMO with its funct5): translated asking for write permission (an AMO on a
// read-only page faults WRITE_DENIED as a store would), then done as a read-modify-write while
// this port holds the fabric's device memory for itself (lock_req_o / lock_gnt_i: vmgpu_top
// keeps every other master's device-memory requests back while the lock is granted), so no
// other master (DMA, walker, command processor, engines, the CSR window) writes the word
// between the read and the write. The answer is the old word. A page with the host aperture is
// refused (FAULT_HOST_ATOMIC): the host's CPU writes that memory without the fabric, so no
// lock here could make the operation atomic.
//
// The unit's requests enter through a two-entry request register (a skid buffer): req_ready_o
// is a flip-flop, so neither the port's translation-cache lookup nor the fabric's ready reaches
// back into the unit's issue logic in the same cycle. On the full 85F design that loop (unit ->
// lookup -> ready -> unit -> take -> pa_q) was the critical path, 16 of its 20 ns in routing
// between the unit and the port (docs/cores.md). It costs one cycle of latency per request and
// no throughput: a request is taken every cycle while the port accepts them.
//
// The MMU answers one translation in several cycles even on a TLB hit, so the adapter keeps
// the last TC_ENTRIES pages it translated (frame, aperture, and which of read/write answered
// without a fault). They are forgotten at every launch (clear_i): mappings cannot change while
// a launch runs, because TLB_INV and page-table writes are commands ordered with it.
module simt_mmu_port #(
  parameter integer TC_ENTRIES = 4, // translations kept (fully associative, round-robin)
  parameter integer MAX_RD = 4      // reads in flight on the fabric (a power of two)
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        clear_i,        // a launch starts: forget every translation
  // the unit's port (virtual addresses, word aligned)
  input  wire        req_valid_i,
  output wire        req_ready_o,
  input  wire [31:0] req_va_i,
  input  wire [2:0]  req_op_i,       // 0 read, 1 write, 2 instruction fetch, 3 AMO
  input  wire [31:0] req_wdata_i,
  input  wire [3:0]  req_be_i,
  input  wire [4:0]  req_amo_i,      // op 3: the AMO's funct5 (simt_amo_alu)
  input  wire [31:0] req_cmp_i,      // op 3, amocas: the compare value
  // hold of the fabric's device memory for an AMO's read and write
  output wire        lock_req_o,
  input  wire        lock_gnt_i,     // no other master reaches device memory while high
  output reg         rsp_valid_o,
  output reg  [31:0] rsp_data_o,
  output reg         rsp_fault_o,
  output reg  [3:0]  rsp_reason_o,
  // MMU translation port
  output reg         tr_req_valid_o,
  input  wire        tr_req_ready_i,
  output wire [31:0] tr_req_va_o,
  output wire        tr_req_write_o,
  input  wire        tr_rsp_valid_i,
  input  wire [31:0] tr_rsp_pa_i,
  input  wire        tr_rsp_host_i,
  input  wire        tr_rsp_fault_i,
  input  wire [3:0]  tr_rsp_reason_i,
  // fabric master port (physical byte addresses)
  output reg         mem_rd_valid_o,
  input  wire        mem_rd_ready_i,
  output wire [31:0] mem_rd_addr_o,
  output wire        mem_rd_host_o,
  input  wire        mem_rsp_valid_i,
  input  wire [31:0] mem_rsp_data_i,
  output reg         mem_wr_valid_o,
  input  wire        mem_wr_ready_i,
  output wire [31:0] mem_wr_addr_o,
  output wire        mem_wr_host_o,
  output wire [31:0] mem_wr_data_o,
  output wire [3:0]  mem_wr_be_o
);
  `include "vmgpu_regs.vh"

  // ---------------------------------------------------------------- request register
  // s_*: the request the port works on (in_*); k_*: one more, taken while s_ was busy.
  reg        s_v_q, k_v_q;
  reg [31:0] s_va_q, k_va_q, s_wdata_q, k_wdata_q, s_cmp_q, k_cmp_q;
  reg [2:0]  s_op_q, k_op_q;
  reg [3:0]  s_be_q, k_be_q;
  reg [4:0]  s_amo_q, k_amo_q;
  wire        in_valid = s_v_q;
  wire [31:0] in_va    = s_va_q;
  wire [2:0]  in_op    = s_op_q;
  wire [31:0] in_wdata = s_wdata_q;
  wire [3:0]  in_be    = s_be_q;
  wire [4:0]  in_amo   = s_amo_q;
  wire [31:0] in_cmp   = s_cmp_q;
  assign req_ready_o = !k_v_q;
  wire acc = req_valid_i && !k_v_q;

  localparam integer TW = (TC_ENTRIES > 1) ? $clog2(TC_ENTRIES) : 1;
  localparam [TW-1:0] TW_ONE = 1;

  localparam integer RW = $clog2(MAX_RD) + 1;
  localparam [RW-1:0] RW_ONE = 1;
  localparam [31:0]   MAX_RD_W = MAX_RD;
  localparam [RW-1:0] RD_LIMIT = MAX_RD_W[RW-1:0];

  localparam [2:0] S_IDLE = 3'd0,  // no store or translation running (reads may be in flight)
                   S_TR   = 3'd1,  // translation request presented
                   S_TRW  = 3'd2,  // waiting for the translation
                   S_WR   = 3'd3,  // write presented to the fabric
                   S_LOCK = 3'd4,  // AMO: waiting for the fabric's lock
                   S_ARW  = 3'd5,  // AMO: read presented or in flight
                   S_AWR  = 3'd6,  // AMO: new word presented to the fabric
                   S_ACALC = 3'd7; // AMO: the old word is registered; the new one computed

  reg [2:0]  state_q;
  reg        amo_q;     // the request is an AMO
  reg [4:0]  amo_f5_q;
  reg [31:0] amo_cmp_q, amo_old_q;
  reg [RW-1:0] rd_out_q;  // reads the fabric took and has not answered
  reg [31:0] va_q, wdata_q;
  reg [3:0]  be_q;
  reg        write_q;
  reg [31:0] pa_q;
  reg        host_q;

  // translation cache
  reg [TC_ENTRIES-1:0] tc_valid_q, tc_rd_q, tc_wr_q, tc_host_q;
  reg [19:0]           tc_vpn_q   [0:TC_ENTRIES-1];
  reg [19:0]           tc_frame_q [0:TC_ENTRIES-1];
  reg [TW-1:0]         tc_victim_q;

  // Two lookups: the request being accepted (hit) and the one being translated (where its
  // translation goes).
  wire        look_amo = (in_op == 3'd3);
  wire        look_wr  = (in_op == 3'd1) || look_amo;
  reg                  hit;
  reg  [19:0]          hit_frame;
  reg                  hit_host;
  reg                  same_any;   // an entry holds this page (with either permission)
  reg  [TW-1:0]        same_idx;
  integer i;
  always @(*) begin
    hit = 1'b0;
    hit_frame = 20'd0;
    hit_host = 1'b0;
    same_any = 1'b0;
    same_idx = {TW{1'b0}};
    for (i = 0; i < TC_ENTRIES; i = i + 1) begin
      if (tc_valid_q[i] && tc_vpn_q[i] == va_q[31:12]) begin
        same_any = 1'b1;
        same_idx = i[TW-1:0];
      end
      if (tc_valid_q[i] && tc_vpn_q[i] == in_va[31:12] &&
          (look_wr ? tc_wr_q[i] : tc_rd_q[i])) begin
        hit = 1'b1;
        hit_frame = tc_frame_q[i];
        hit_host = tc_host_q[i];
      end
    end
  end

  // A read that hits is taken while the read slot frees and fewer than MAX_RD are in flight.
  // Anything else is taken once nothing is in flight: in S_IDLE, or in the cycle a store or a
  // faulting translation finishes (its answer is registered at the same edge).
  wire rd_slot_free = !mem_rd_valid_o || mem_rd_ready_i;
  wire rd_none      = !mem_rd_valid_o && (rd_out_q == {RW{1'b0}});
  wire finish = ((state_q == S_WR) && mem_wr_ready_i) ||
                ((state_q == S_AWR) && mem_wr_ready_i) ||
                ((state_q == S_TRW) && tr_rsp_valid_i && tr_rsp_fault_i);
  wire read_hit = !look_wr && hit;
  wire in_ready = !clear_i &&
                       (((state_q == S_IDLE) && read_hit && rd_slot_free && (rd_out_q != RD_LIMIT)) ||
                        (((state_q == S_IDLE) || finish) && rd_none));
  assign lock_req_o     = (state_q == S_LOCK) || (state_q == S_ARW) || (state_q == S_ACALC) ||
                          (state_q == S_AWR);
  wire [31:0] amo_new;
  simt_amo_alu u_amo (
    .funct5_i (amo_f5_q),
    .old_i    (amo_old_q),
    .src_i    (wdata_q),
    .cmp_i    (amo_cmp_q),
    .new_o    (amo_new)
  );
  assign tr_req_va_o    = va_q;
  assign tr_req_write_o = write_q;
  assign mem_rd_addr_o  = pa_q;
  assign mem_rd_host_o  = host_q;
  assign mem_wr_addr_o  = pa_q;
  assign mem_wr_host_o  = host_q;
  assign mem_wr_data_o  = wdata_q;
  assign mem_wr_be_o    = be_q;

  wire take = in_valid && in_ready;
  // The translation's page offset is the request's own.
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_pa = &{1'b0, tr_rsp_pa_i[11:0]};
  /* verilator lint_on UNUSEDSIGNAL */
  wire [TW-1:0] fill_idx = same_any ? same_idx : tc_victim_q;

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      s_v_q <= 1'b0;
      k_v_q <= 1'b0;
    end else if (!s_v_q || take) begin
      s_v_q <= k_v_q || acc;
      k_v_q <= 1'b0;
    end else if (acc) begin
      k_v_q <= 1'b1;
    end
  end
  // The data registers need no reset: they are read only while their valid bit is set.
  always @(posedge clk_i) begin
    if (!s_v_q || take) begin
      s_va_q    <= k_v_q ? k_va_q    : req_va_i;
      s_op_q    <= k_v_q ? k_op_q    : req_op_i;
      s_wdata_q <= k_v_q ? k_wdata_q : req_wdata_i;
      s_be_q    <= k_v_q ? k_be_q    : req_be_i;
      s_amo_q   <= k_v_q ? k_amo_q   : req_amo_i;
      s_cmp_q   <= k_v_q ? k_cmp_q   : req_cmp_i;
    end
    if (!k_v_q) begin
      k_va_q    <= req_va_i;
      k_op_q    <= req_op_i;
      k_wdata_q <= req_wdata_i;
      k_be_q    <= req_be_i;
      k_amo_q   <= req_amo_i;
      k_cmp_q   <= req_cmp_i;
    end
  end

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q <= S_IDLE;
      rd_out_q <= {RW{1'b0}};
      rsp_valid_o <= 1'b0;
      rsp_data_o <= 32'd0;
      rsp_fault_o <= 1'b0;
      rsp_reason_o <= 4'd0;
      tr_req_valid_o <= 1'b0;
      mem_rd_valid_o <= 1'b0;
      mem_wr_valid_o <= 1'b0;
      va_q <= 32'd0;
      amo_q <= 1'b0;
      amo_f5_q <= 5'd0;
      amo_cmp_q <= 32'd0;
      amo_old_q <= 32'd0;
      wdata_q <= 32'd0;
      be_q <= 4'd0;
      write_q <= 1'b0;
      pa_q <= 32'd0;
      host_q <= 1'b0;
      tc_valid_q <= {TC_ENTRIES{1'b0}};
      tc_rd_q <= {TC_ENTRIES{1'b0}};
      tc_wr_q <= {TC_ENTRIES{1'b0}};
      tc_host_q <= {TC_ENTRIES{1'b0}};
      tc_victim_q <= {TW{1'b0}};
      for (i = 0; i < TC_ENTRIES; i = i + 1) begin
        tc_vpn_q[i] <= 20'd0;
        tc_frame_q[i] <= 20'd0;
      end
    end else begin
      rsp_valid_o <= 1'b0;
      rsp_fault_o <= 1'b0;
      // The read channel: the presented read leaves when the fabric takes it; every answer
      // goes to the unit a cycle later, in order (no store or fault answer is pending then).
      if (mem_rd_valid_o && mem_rd_ready_i) mem_rd_valid_o <= 1'b0;
      rd_out_q <= rd_out_q + ((mem_rd_valid_o && mem_rd_ready_i) ? RW_ONE : {RW{1'b0}})
                           - (mem_rsp_valid_i ? RW_ONE : {RW{1'b0}});
      if (mem_rsp_valid_i && state_q != S_ARW) begin
        rsp_valid_o  <= 1'b1;
        rsp_data_o   <= mem_rsp_data_i;
        rsp_reason_o <= 4'd0;
      end
      case (state_q)
        S_IDLE: ;
        S_TR: if (tr_req_ready_i) begin
          tr_req_valid_o <= 1'b0;
          state_q <= S_TRW;
        end
        S_TRW: if (tr_rsp_valid_i) begin
          if (tr_rsp_fault_i) begin
            rsp_valid_o  <= 1'b1;
            rsp_fault_o  <= 1'b1;
            rsp_reason_o <= tr_rsp_reason_i;
            rsp_data_o   <= 32'd0;
            state_q <= S_IDLE;
          end else if (amo_q && tr_rsp_host_i) begin
            rsp_valid_o  <= 1'b1;
            rsp_fault_o  <= 1'b1;
            rsp_reason_o <= FAULT_HOST_ATOMIC;
            rsp_data_o   <= 32'd0;
            state_q <= S_IDLE;
          end else begin
            pa_q   <= {tr_rsp_pa_i[31:12], va_q[11:0]};
            host_q <= tr_rsp_host_i;
            tc_valid_q[fill_idx] <= 1'b1;
            tc_vpn_q[fill_idx]   <= va_q[31:12];
            tc_frame_q[fill_idx] <= tr_rsp_pa_i[31:12];
            tc_host_q[fill_idx]  <= tr_rsp_host_i;
            // A page already kept keeps the permission it had and gains this one.
            tc_rd_q[fill_idx] <= (same_any && tc_rd_q[fill_idx]) || !write_q;
            tc_wr_q[fill_idx] <= (same_any && tc_wr_q[fill_idx]) || write_q;
            if (!same_any) tc_victim_q <= tc_victim_q + TW_ONE;
            if (amo_q) begin
              state_q <= S_LOCK;
            end else if (write_q) begin
              mem_wr_valid_o <= 1'b1;
              state_q <= S_WR;
            end else begin
              mem_rd_valid_o <= 1'b1;
              state_q <= S_IDLE;
            end
          end
        end
        S_WR: if (mem_wr_ready_i) begin
          mem_wr_valid_o <= 1'b0;
          rsp_valid_o  <= 1'b1;
          rsp_data_o   <= 32'd0;
          rsp_reason_o <= 4'd0;
          state_q <= S_IDLE;
        end
        S_LOCK: if (lock_gnt_i) begin
          mem_rd_valid_o <= 1'b1;   // nothing else in flight: the only answer is this one's
          state_q <= S_ARW;
        end
        // The old word is registered before the AMO ALU uses it: the memory's answer comes
        // through the fabric's response multiplexer from far across the board's 85F design,
        // and answer -> ALU -> write data was its critical path (docs/cores.md). One cycle more
        // per global atomic, the lock still held.
        S_ARW: if (mem_rsp_valid_i) begin
          amo_old_q <= mem_rsp_data_i;
          state_q <= S_ACALC;
        end
        S_ACALC: begin
          wdata_q <= amo_new;
          mem_wr_valid_o <= 1'b1;
          state_q <= S_AWR;
        end
        S_AWR: if (mem_wr_ready_i) begin
          mem_wr_valid_o <= 1'b0;
          rsp_valid_o  <= 1'b1;
          rsp_data_o   <= amo_old_q;
          rsp_reason_o <= 4'd0;
          state_q <= S_IDLE;
        end
        default: state_q <= S_IDLE;
      endcase
      // A new request (in S_IDLE, or as the current one finishes: these assignments come
      // after the state's own and win).
      if (take) begin
        va_q    <= in_va;
        wdata_q <= in_wdata;
        be_q    <= in_be;
        write_q <= look_wr;
        amo_q   <= look_amo;
        amo_f5_q  <= in_amo;
        amo_cmp_q <= in_cmp;
        // An AMO on a kept host page is translated again, to be refused there.
        if (hit && !(look_amo && hit_host)) begin
          pa_q   <= {hit_frame, in_va[11:0]};
          host_q <= hit_host;
          if (look_amo) begin
            state_q <= S_LOCK;
          end else if (look_wr) begin
            mem_wr_valid_o <= 1'b1;
            state_q <= S_WR;
          end else begin
            mem_rd_valid_o <= 1'b1;
            state_q <= S_IDLE;
          end
        end else begin
          tr_req_valid_o <= 1'b1;
          state_q <= S_TR;
        end
      end
      // Only between requests: a launch starts with the port idle.
      if (clear_i) begin
        tc_valid_q <= {TC_ENTRIES{1'b0}};
        tc_victim_q <= {TW{1'b0}};
      end
    end
  end
endmodule
