`default_nettype none
// MMU: two translation ports (0 = DMA engine, with priority; 1 = compute engine) in front of one
// TLB and one page-table walker. One translation is in flight at a time.
//
// Timing: a request is accepted while the MMU is idle; the TLB is looked up in that same cycle
// and a hit (or a missing context) is answered with a one-cycle tr*_rsp_valid pulse on the next
// cycle, with the MMU ready again in that cycle. A miss starts the walker; its answer comes on
// the cycle after the PTE (or a faulting PDE) arrives: five cycles after acceptance with
// one-cycle memory. An invalidation waits until no walk is in flight (requests are held off
// meanwhile), so a walk that read a PTE before the invalidation cannot leave a stale entry.
// ALL and ASID invalidations take one cycle in the TLB, a RANGE one TLB_ENTRIES cycles.
// With REQ_REG 1 (the board build) an accepted request is registered first and looked up in
// the next cycle, so every answer comes one cycle later: the TLB's compares then start from
// flip-flops instead of from a requester's state through the port multiplexers.
module mmu #(
  parameter MEM_BYTES = 16777216,  // device memory bytes, power of two
  parameter TLB_ENTRIES = 16,      // fully associative TLB entries, 2..64
  parameter REQ_REG = 0            // 1: register the request before the TLB lookup (timing)
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // current context (from the command processor)
  input  wire        ctx_valid_i,
  input  wire [7:0]  ctx_asid_i,
  input  wire [31:0] ctx_root_i,
  // translation port 0 (DMA engine)
  input  wire        tr0_req_valid_i,
  output wire        tr0_req_ready_o,
  input  wire [31:0] tr0_req_va_i,
  input  wire        tr0_req_write_i,
  output wire        tr0_rsp_valid_o,
  output wire [31:0] tr0_rsp_pa_o,
  output wire        tr0_rsp_host_o,
  output wire        tr0_rsp_fault_o,
  output wire [3:0]  tr0_rsp_reason_o,
  // translation port 1 (compute engine)
  input  wire        tr1_req_valid_i,
  output wire        tr1_req_ready_o,
  input  wire [31:0] tr1_req_va_i,
  input  wire        tr1_req_write_i,
  output wire        tr1_rsp_valid_o,
  output wire [31:0] tr1_rsp_pa_o,
  output wire        tr1_rsp_host_o,
  output wire        tr1_rsp_fault_o,
  output wire [3:0]  tr1_rsp_reason_o,
  // invalidation (one-cycle pulse in, one-cycle pulse out)
  input  wire        inv_valid_i,
  input  wire [1:0]  inv_mode_i,
  input  wire [7:0]  inv_asid_i,
  input  wire [31:0] inv_va_i,
  input  wire [31:0] inv_size_i,
  output wire        inv_done_o,
  // page-table read master (device memory)
  output wire        pt_rd_valid_o,
  input  wire        pt_rd_ready_i,
  output wire [31:0] pt_rd_addr_o,
  input  wire        pt_rsp_valid_i,
  input  wire [31:0] pt_rsp_data_i,
  // counters
  output wire        stat_hit_o,
  output wire        stat_miss_o,
  output wire        stat_evict_o,
  output wire        stat_walk_o,
  // event stream
  output wire        evt_valid_o,
  output wire [3:0]  evt_kind_o,
  output wire [3:0]  evt_reason_o,
  output wire        evt_write_o,
  output wire [7:0]  evt_asid_o,
  output wire [31:0] evt_va_o,
  output wire [31:0] evt_pte_o
`ifdef FORMAL
  ,
  // Formal only: the state behind the outputs, for the REQ_REG miter
  // (tests/formal/mmu_reqreg_miter.v), which compares two MMUs state by state.
  output wire [TLB_ENTRIES-1:0]    f_tlb_valid_o,
  output wire [2*$clog2(TLB_ENTRIES)-1:0] f_tlb_ptrs_o,
  output wire [TLB_ENTRIES*51-1:0] f_tlb_entries_o,
  output wire [45:0]               f_walk_state_o,
  output wire [42:0]               f_req_o,   // {stage_v, port, va, write, asid}
  output wire [74:0]               f_inv_o    // {pending, mode, asid, va, size}
`endif
);
  `include "vmgpu_regs.vh"

  // ---------------------------------------------------------------- request acceptance
  wire walk_busy;
  reg  inv_pending_q;
  reg  stage_v_q;  // REQ_REG: a request accepted last cycle is looked up now
  wire idle = !walk_busy && !inv_pending_q && !stage_v_q;

  assign tr0_req_ready_o = idle;
  assign tr1_req_ready_o = idle && !tr0_req_valid_i;

  wire        accept0 = tr0_req_valid_i && idle;
  wire        accept1 = tr1_req_valid_i && idle && !tr0_req_valid_i;
  wire        accept = accept0 || accept1;
  wire [31:0] sel_va = tr0_req_valid_i ? tr0_req_va_i : tr1_req_va_i;
  wire        sel_write = tr0_req_valid_i ? tr0_req_write_i : tr1_req_write_i;

  // ---------------------------------------------------------------- TLB
`ifdef FORMAL
  // The TLB's and the walker's formal views (see the properties at the end).
  wire [7:0]             f_tlb_asid;
  wire [19:0]            f_tlb_vpn;
  wire                   f_tlb_present;
  wire [22:0]            f_tlb_data;
  wire [TLB_ENTRIES-1:0] f_tlb_fill_dup;
  wire [19:0]            f_walk_vpn;
  wire                   f_walk_write;
  wire                   f_walk_pte_phase;
  wire [4:0]             f_walk_cycles;
  wire                   f_walk_rd_out;
  wire [3:0]             f_walk_wait;
`endif
  wire        hit;
  wire [19:0] hit_pfn;
  wire        hit_r;
  wire        hit_w;
  wire        hit_host;
  wire        fill_evict;

  wire        walk_done;
  wire        walk_fault;
  wire [3:0]  walk_reason;
  wire [31:0] walk_pte;
  wire        fill = walk_done && !walk_fault;

  reg         req_port_q;   // 1 = port 1
  reg  [31:0] req_va_q;
  reg         req_write_q;
  reg  [7:0]  req_asid_q;

  // The lookup: the request accepted now (REQ_REG 0) or the one registered last cycle.
  wire        lookup    = (REQ_REG != 0) ? stage_v_q : accept;
  wire [31:0] lk_va     = (REQ_REG != 0) ? req_va_q : sel_va;
  wire        lk_write  = (REQ_REG != 0) ? req_write_q : sel_write;
  wire        lk_port   = (REQ_REG != 0) ? req_port_q : accept1;

  reg  [1:0]  inv_mode_q;
  reg  [7:0]  inv_asid_q;
  reg  [31:0] inv_va_q;
  reg  [31:0] inv_size_q;
  wire        inv_apply = inv_pending_q && !walk_busy && !stage_v_q;
  wire        inv_tlb_done;  // the TLB finished applying it (a range takes TLB_ENTRIES cycles)

  tlb #(
    .ENTRIES(TLB_ENTRIES)
  ) u_tlb (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .lookup_asid_i(ctx_asid_i),
    .lookup_vpn_i (lk_va[31:12]),
    .lookup_hit_o (hit),
    .lookup_pfn_o (hit_pfn),
    .lookup_r_o   (hit_r),
    .lookup_w_o   (hit_w),
    .lookup_host_o(hit_host),
    .fill_i       (fill),
    .fill_asid_i  (req_asid_q),
    .fill_vpn_i   (req_va_q[31:12]),
    .fill_pfn_i   (walk_pte[31:12]),
    .fill_r_i     (walk_pte[1]),
    .fill_w_i     (walk_pte[2]),
    .fill_host_i  (walk_pte[3]),
    .fill_evict_o (fill_evict),
    .inv_i        (inv_apply),
    .inv_done_o   (inv_tlb_done),
    .inv_mode_i   (inv_mode_q),
    .inv_asid_i   (inv_asid_q),
    .inv_va_i     (inv_va_q),
    .inv_size_i   (inv_size_q)
`ifdef FORMAL
    ,
    .f_asid_o     (f_tlb_asid),
    .f_vpn_o      (f_tlb_vpn),
    .f_present_o  (f_tlb_present),
    .f_data_o     (f_tlb_data),
    .f_fill_dup_o (f_tlb_fill_dup),
    .f_valid_o    (f_tlb_valid_o),
    .f_ptrs_o     (f_tlb_ptrs_o),
    .f_entries_o  (f_tlb_entries_o)
`endif
  );

  // ---------------------------------------------------------------- walker
  wire walk_start = lookup && ctx_valid_i && !hit;

  page_table_walker #(
    .MEM_BYTES(MEM_BYTES)
  ) u_walker (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .start_i       (walk_start),
    .vpn_i         (lk_va[31:12]),
    .root_i        (ctx_root_i),
    .write_i       (lk_write),
    .busy_o        (walk_busy),
    .done_o        (walk_done),
    .fault_o       (walk_fault),
    .reason_o      (walk_reason),
    .pte_o         (walk_pte),
    .pt_rd_valid_o (pt_rd_valid_o),
    .pt_rd_ready_i (pt_rd_ready_i),
    .pt_rd_addr_o  (pt_rd_addr_o),
    .pt_rsp_valid_i(pt_rsp_valid_i),
    .pt_rsp_data_i (pt_rsp_data_i)
`ifdef FORMAL
    ,
    .f_vpn_o       (f_walk_vpn),
    .f_write_o     (f_walk_write),
    .f_pte_phase_o (f_walk_pte_phase),
    .f_cycles_o    (f_walk_cycles),
    .f_rd_out_o    (f_walk_rd_out),
    .f_wait_o      (f_walk_wait),
    .f_state_o     (f_walk_state_o)
`endif
  );

  // ---------------------------------------------------------------- responses, events, counters
  reg        rsp_valid_q;
  reg        rsp_port_q;
  reg [31:0] rsp_pa_q;
  reg        rsp_host_q;
  reg        rsp_fault_q;
  reg [3:0]  rsp_reason_q;

  reg        evt_valid_q;
  reg [3:0]  evt_kind_q;
  reg [3:0]  evt_reason_q;
  reg        evt_write_q;
  reg [7:0]  evt_asid_q;
  reg [31:0] evt_va_q;
  reg [31:0] evt_pte_q;

  reg        stat_hit_q;
  reg        stat_miss_q;
  reg        stat_evict_q;
  reg        inv_done_q;

  wire hit_denied = lk_write ? !hit_w : !hit_r;

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      rsp_valid_q <= 1'b0;
      rsp_port_q <= 1'b0;
      rsp_pa_q <= 32'd0;
      rsp_host_q <= 1'b0;
      rsp_fault_q <= 1'b0;
      rsp_reason_q <= FAULT_NONE;
      evt_valid_q <= 1'b0;
      evt_kind_q <= EVT_NONE;
      evt_reason_q <= 4'd0;
      evt_write_q <= 1'b0;
      evt_asid_q <= 8'd0;
      evt_va_q <= 32'd0;
      evt_pte_q <= 32'd0;
      stat_hit_q <= 1'b0;
      stat_miss_q <= 1'b0;
      stat_evict_q <= 1'b0;
      inv_done_q <= 1'b0;
      req_port_q <= 1'b0;
      req_va_q <= 32'd0;
      req_write_q <= 1'b0;
      req_asid_q <= 8'd0;
      stage_v_q <= 1'b0;
    end else begin
      stage_v_q <= (REQ_REG != 0) && accept;
      rsp_valid_q <= 1'b0;
      evt_valid_q <= 1'b0;
      stat_hit_q <= 1'b0;
      stat_miss_q <= 1'b0;
      stat_evict_q <= 1'b0;
      inv_done_q <= 1'b0;

      if (accept) begin
        req_port_q <= accept1;
        req_va_q <= sel_va;
        req_write_q <= sel_write;
        req_asid_q <= ctx_asid_i;
      end
      if (lookup) begin
        // Answered now unless a walk is needed.
        rsp_port_q <= lk_port;
        rsp_pa_q <= 32'd0;
        rsp_host_q <= 1'b0;
        rsp_fault_q <= 1'b0;
        rsp_reason_q <= FAULT_NONE;
        evt_kind_q <= EVT_FAULT;
        evt_write_q <= lk_write;
        evt_asid_q <= ctx_asid_i;
        evt_va_q <= lk_va;
        evt_pte_q <= 32'd0;
        if (!ctx_valid_i) begin
          rsp_valid_q <= 1'b1;
          rsp_fault_q <= 1'b1;
          rsp_reason_q <= FAULT_NO_CONTEXT;
          evt_valid_q <= 1'b1;
          evt_reason_q <= FAULT_NO_CONTEXT;
        end else if (hit) begin
          stat_hit_q <= 1'b1;
          rsp_valid_q <= 1'b1;
          if (hit_denied) begin
            rsp_fault_q <= 1'b1;
            rsp_reason_q <= lk_write ? FAULT_WRITE_DENIED : FAULT_READ_DENIED;
            evt_valid_q <= 1'b1;
            evt_reason_q <= lk_write ? FAULT_WRITE_DENIED : FAULT_READ_DENIED;
            // The cached entry, re-assembled as a PTE, for the event's reader.
            evt_pte_q <= {hit_pfn, 8'd0, hit_host, hit_w, hit_r, 1'b1};
          end else begin
            rsp_pa_q <= {hit_pfn, lk_va[11:0]};
            rsp_host_q <= hit_host;
          end
        end else begin
          stat_miss_q <= 1'b1;
        end
      end

      if (walk_done) begin
        rsp_valid_q <= 1'b1;
        rsp_port_q <= req_port_q;
        rsp_fault_q <= walk_fault;
        rsp_reason_q <= walk_reason;
        rsp_pa_q <= walk_fault ? 32'd0 : {walk_pte[31:12], req_va_q[11:0]};
        rsp_host_q <= !walk_fault && walk_pte[3];
        evt_valid_q <= 1'b1;
        evt_kind_q <= walk_fault ? EVT_FAULT : EVT_TLB_FILL;
        evt_reason_q <= walk_reason;
        evt_write_q <= req_write_q;
        evt_asid_q <= req_asid_q;
        evt_va_q <= req_va_q;
        evt_pte_q <= walk_pte;
        stat_evict_q <= fill_evict;
      end

      if (inv_tlb_done) begin
        inv_done_q <= 1'b1;
        evt_valid_q <= 1'b1;
        evt_kind_q <= EVT_INVALIDATE;
        evt_reason_q <= {2'b00, inv_mode_q};
        evt_write_q <= 1'b0;
        evt_asid_q <= inv_asid_q;
        evt_va_q <= inv_va_q;
        evt_pte_q <= inv_size_q;  // no PTE involved: the size completes the range for a reader
      end
    end
  end

  // An invalidation pulse is held until no walk is in flight; a new pulse replaces the held
  // operands (the command processor waits for inv_done_o, so this does not happen in use).
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      inv_pending_q <= 1'b0;
      inv_mode_q <= INV_ALL;
      inv_asid_q <= 8'd0;
      inv_va_q <= 32'd0;
      inv_size_q <= 32'd0;
    end else begin
      if (inv_valid_i) begin
        inv_pending_q <= 1'b1;
        inv_mode_q <= inv_mode_i;
        inv_asid_q <= inv_asid_i;
        inv_va_q <= inv_va_i;
        inv_size_q <= inv_size_i;
      end else if (inv_tlb_done) begin
        inv_pending_q <= 1'b0;
      end
    end
  end

  assign tr0_rsp_valid_o = rsp_valid_q && !rsp_port_q;
  assign tr1_rsp_valid_o = rsp_valid_q && rsp_port_q;
  assign tr0_rsp_pa_o = rsp_pa_q;
  assign tr1_rsp_pa_o = rsp_pa_q;
  assign tr0_rsp_host_o = rsp_host_q;
  assign tr1_rsp_host_o = rsp_host_q;
  assign tr0_rsp_fault_o = rsp_fault_q;
  assign tr1_rsp_fault_o = rsp_fault_q;
  assign tr0_rsp_reason_o = rsp_reason_q;
  assign tr1_rsp_reason_o = rsp_reason_q;

  assign stat_hit_o = stat_hit_q;
  assign stat_miss_o = stat_miss_q;
  assign stat_evict_o = stat_evict_q;
  assign stat_walk_o = walk_busy;

  assign evt_valid_o = evt_valid_q;
  assign evt_kind_o = evt_kind_q;
  assign evt_reason_o = evt_reason_q;
  assign evt_write_o = evt_write_q;
  assign evt_asid_o = evt_asid_q;
  assign evt_va_o = evt_va_q;
  assign evt_pte_o = evt_pte_q;
  assign inv_done_o = inv_done_q;

`ifdef FORMAL
  // Properties (tests/formal/mmu.sby, docs/formal.md). The TLB's and the walker's own
  // properties are checked here too, their assumptions about the MMU as assertions. What the
  // command processor, the engines and the page-table memory promise is assumed when the MMU
  // is proven alone (FORMAL_MMU), asserted when a larger proof contains it.
`ifdef FORMAL_MMU
`define MMU_ASSUME assume
`else
`define MMU_ASSUME assert
`endif
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) `MMU_ASSUME(!rst_ni);

  assign f_req_o = {stage_v_q, req_port_q, req_va_q, req_write_q, req_asid_q};
  assign f_inv_o = {inv_pending_q, inv_mode_q, inv_asid_q, inv_va_q, inv_size_q};

  // Requests in flight: accepted, not yet answered. One at a time.
  reg        f_busy = 1'b0;
  reg        f_port;
  reg [31:0] f_va;
  reg        f_write;
  reg [7:0]  f_asid;
  reg [4:0]  f_age;  // cycles since acceptance
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_busy <= 1'b0;
      f_age <= 5'd0;
    end else if (accept) begin
      f_busy <= 1'b1;
      f_port <= accept1;
      f_va <= sel_va;
      f_write <= sel_write;
      f_asid <= ctx_asid_i;
      f_age <= 5'd0;
    end else begin
      if (rsp_valid_q) f_busy <= 1'b0;
      if (f_busy) f_age <= f_age + 5'd1;
    end
  end

  // The command processor keeps the context still while a translation is in flight, and issues
  // one invalidation at a time, waiting for inv_done_o.
  reg f_inv_busy = 1'b0;
  always @(posedge clk_i) begin
    if (!rst_ni) f_inv_busy <= 1'b0;
    else if (inv_valid_i) f_inv_busy <= 1'b1;
    else if (inv_done_o) f_inv_busy <= 1'b0;
  end
  always @(posedge clk_i) if (f_past_valid && rst_ni && $past(rst_ni) && f_busy) begin
    `MMU_ASSUME($stable(ctx_valid_i) && $stable(ctx_asid_i) && $stable(ctx_root_i));
  end
  always @(*) if (f_past_valid && rst_ni && inv_valid_i) `MMU_ASSUME(!f_inv_busy);

  // Page-table memory: one read outstanding, answered after it was taken, taken within 2 cycles
  // and answered within 3. The walker counts (f_walk_rd_out, f_walk_wait); its proof assumes
  // the same, which is asserted here.
  always @(*) if (f_past_valid && rst_ni) begin
    `MMU_ASSUME(!pt_rsp_valid_i || f_walk_rd_out);
    if (pt_rd_valid_o && f_walk_wait >= 4'd2) `MMU_ASSUME(pt_rd_ready_i);
    if (f_walk_rd_out && f_walk_wait >= 4'd2) `MMU_ASSUME(pt_rsp_valid_i);
  end

  // One page, the TLB's tracked key (f_tlb_asid, f_tlb_vpn), whose PTE in memory is f_pte
  // and does not change: every walk for that page reads f_pte as its PTE.
  (* anyconst *) reg [31:0] f_pte;
  wire f_key_walk = (req_asid_q == f_tlb_asid) && (req_va_q[31:12] == f_tlb_vpn);
  always @(*) if (f_past_valid && rst_ni) begin
    if (walk_busy && f_walk_pte_phase && pt_rsp_valid_i && f_key_walk)
      `MMU_ASSUME(pt_rsp_data_i == f_pte);
  end

  // Answers: one per accepted request, to the port that asked, at most 12 cycles after it was
  // accepted (13 with REQ_REG): a walk's 12 cycles, the cycle that registers the answer, the
  // request register's cycle; a hit is answered in the next cycle (the one after with REQ_REG).
  localparam [4:0] F_AGE_MAX = (REQ_REG != 0) ? 5'd13 : 5'd12;
  always @(*) if (f_past_valid && rst_ni) begin
    if (rsp_valid_q) assert(f_busy && rsp_port_q == f_port);
    assert(!(tr0_rsp_valid_o && tr1_rsp_valid_o));
    if (f_busy) assert(f_age <= F_AGE_MAX);
    assert(!(accept0 && accept1));
  end

  // The promise that matters: no access is granted that the page's PTE does not allow. A
  // translation of the tracked page without a fault means the PTE is valid, has W for a write
  // and R for a read, and the answer carries its frame and aperture unchanged.
  wire f_key_rsp = (f_asid == f_tlb_asid) && (f_va[31:12] == f_tlb_vpn);
  always @(*) if (f_past_valid && rst_ni && rsp_valid_q && f_key_rsp) begin
    if (!rsp_fault_q) begin
      assert(f_pte[0]);
      if (f_write) assert(f_pte[2]);
      else assert(f_pte[1]);
      assert(rsp_pa_q == {f_pte[31:12], f_va[11:0]});
      assert(rsp_host_q == f_pte[3]);
    end
  end

  // Internal state the induction needs: what is in flight where; the TLB holds for the tracked
  // page only what its PTE says; a walk is only for a key the TLB does not hold.
  always @(*) if (f_past_valid && rst_ni) begin
    assert(!(stage_v_q && walk_busy));
    if (REQ_REG == 0) assert(!stage_v_q);
    if (stage_v_q || walk_busy) assert(f_busy && !rsp_valid_q);
    if (f_busy) assert(stage_v_q || walk_busy || rsp_valid_q);
    if (stage_v_q || walk_busy)
      assert(req_port_q == f_port && req_va_q == f_va && req_write_q == f_write && req_asid_q == f_asid);
    if (f_busy && !rsp_valid_q) assert(ctx_asid_i == f_asid);
    if (walk_busy) assert(f_walk_vpn == f_va[31:12] && f_walk_write == f_write);
    if (walk_busy) assert(f_tlb_fill_dup == {TLB_ENTRIES{1'b0}});
    if (walk_busy) assert(ctx_valid_i);
    if (stage_v_q) assert(f_age == 5'd0);
    if (walk_busy) assert(f_age == f_walk_cycles + ((REQ_REG != 0) ? 5'd1 : 5'd0));
    if (f_tlb_present) begin
      assert(f_pte[0]);
      assert(f_tlb_data == {f_pte[31:12], f_pte[3], f_pte[2], f_pte[1]});
    end
    assert(inv_pending_q == (f_inv_busy && !inv_done_q));
    if (inv_done_q) assert(f_inv_busy);
  end

  // Reachability: a hit, a walk that fills, each port answered, a write denied on a hit, an
  // invalidation done, a request taken in the cycle of the previous answer.
  always @(*) if (f_past_valid && rst_ni) begin
    cover(stat_hit_o && tr1_rsp_valid_o);
    cover(rsp_valid_q && !rsp_fault_q && f_key_rsp && evt_kind_q == EVT_TLB_FILL);
    cover(tr0_rsp_valid_o && rsp_fault_q && rsp_reason_q == FAULT_WRITE_DENIED && evt_pte_q[0]);
    cover(inv_done_o);
    cover(rsp_valid_q && accept);
  end
`undef MMU_ASSUME
`endif
endmodule
`default_nettype wire
