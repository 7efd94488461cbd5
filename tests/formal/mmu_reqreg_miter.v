`default_nettype none
// Miter for the MMU's REQ_REG option (tests/formal/mmu_reqreg.sby). u_reg has the request
// register (REQ_REG 1, the board's) and u_direct has not (REQ_REG 0, the simulator's). u_reg
// gets free requests; u_direct gets each request u_reg accepted, one cycle later. From then on
// both look the request up in the same cycle, so with the same page-table memory (the same
// inputs) the two must behave identically, cycle by cycle: the same page-table reads, the same
// answers on the same ports, the same events, counters and invalidation handshakes. That is
// the option's promise: every answer comes one cycle later and nothing else changes.
//
// What the command processor promises the MMU is assumed here too: the context holds while a
// translation is in flight, and an invalidation comes alone (no request beside it, none in
// flight) and only after the previous one is done.
module mmu_reqreg_miter (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        ctx_valid_i,
  input  wire [7:0]  ctx_asid_i,
  input  wire [31:0] ctx_root_i,
  input  wire        tr0_req_valid_i,
  input  wire [31:0] tr0_req_va_i,
  input  wire        tr0_req_write_i,
  input  wire        tr1_req_valid_i,
  input  wire [31:0] tr1_req_va_i,
  input  wire        tr1_req_write_i,
  input  wire        inv_valid_i,
  input  wire [1:0]  inv_mode_i,
  input  wire [7:0]  inv_asid_i,
  input  wire [31:0] inv_va_i,
  input  wire [31:0] inv_size_i,
  input  wire        pt_rd_ready_i,
  input  wire        pt_rsp_valid_i,
  input  wire [31:0] pt_rsp_data_i
);
  localparam integer MEM_BYTES = 65536;
  localparam integer TLB_ENTRIES = 2;

  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume(!rst_ni);

  // ---------------------------------------------------------------- both MMUs' signals
  wire        r_tr0_ready, r_tr1_ready, d_tr0_ready, d_tr1_ready;
  wire        r_rsp0, r_rsp1, d_rsp0, d_rsp1;
  wire [31:0] r_pa0, r_pa1, d_pa0, d_pa1;
  wire        r_host0, r_host1, d_host0, d_host1;
  wire        r_fault0, r_fault1, d_fault0, d_fault1;
  wire [3:0]  r_reason0, r_reason1, d_reason0, d_reason1;
  wire        r_inv_done, d_inv_done;
  wire        r_rd_valid, d_rd_valid;
  wire [31:0] r_rd_addr, d_rd_addr;
  wire        r_hit, d_hit, r_miss, d_miss, r_evict, d_evict, r_walk, d_walk;
  wire        r_evt, d_evt;
  wire [3:0]  r_evt_kind, d_evt_kind, r_evt_reason, d_evt_reason;
  wire        r_evt_write, d_evt_write;
  wire [7:0]  r_evt_asid, d_evt_asid;
  wire [31:0] r_evt_va, d_evt_va, r_evt_pte, d_evt_pte;

  // Their state, as their formal ports show it.
  wire [TLB_ENTRIES-1:0]    r_tlb_valid, d_tlb_valid;
  wire [1:0]                r_tlb_ptrs, d_tlb_ptrs;
  wire [TLB_ENTRIES*51-1:0] r_tlb_entries, d_tlb_entries;
  wire [45:0]               r_walk_state, d_walk_state;
  wire [42:0]               r_req, d_req;
  wire [74:0]               r_inv, d_inv;

  // What u_reg accepted, handed to u_direct in the next cycle.
  wire r_accept0 = tr0_req_valid_i && r_tr0_ready;
  wire r_accept1 = tr1_req_valid_i && r_tr1_ready;
  reg        d_valid0_q = 1'b0, d_valid1_q = 1'b0;
  reg [31:0] d_va_q;
  reg        d_write_q;
  always @(posedge clk_i) begin
    d_valid0_q <= rst_ni && r_accept0;
    d_valid1_q <= rst_ni && r_accept1;
    d_va_q <= r_accept0 ? tr0_req_va_i : tr1_req_va_i;
    d_write_q <= r_accept0 ? tr0_req_write_i : tr1_req_write_i;
  end

  // ---------------------------------------------------------------- the environment
  // Translations in flight (u_reg's view: accepted, not answered) and the invalidation.
  reg f_busy = 1'b0, f_inv_busy = 1'b0, f_rd_out = 1'b0;
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_busy <= 1'b0;
      f_inv_busy <= 1'b0;
      f_rd_out <= 1'b0;
    end else begin
      if (r_accept0 || r_accept1) f_busy <= 1'b1;
      else if (r_rsp0 || r_rsp1) f_busy <= 1'b0;
      if (inv_valid_i) f_inv_busy <= 1'b1;
      else if (r_inv_done) f_inv_busy <= 1'b0;
      if (r_rd_valid && pt_rd_ready_i) f_rd_out <= 1'b1;
      else if (pt_rsp_valid_i) f_rd_out <= 1'b0;
    end
  end
  always @(posedge clk_i) if (f_past_valid && rst_ni && $past(rst_ni) && f_busy)
    assume($stable(ctx_valid_i) && $stable(ctx_asid_i) && $stable(ctx_root_i));
  always @(*) if (f_past_valid && rst_ni) begin
    if (inv_valid_i)
      assume(!f_inv_busy && !f_busy && !d_valid0_q && !d_valid1_q && !tr0_req_valid_i && !tr1_req_valid_i);
    assume(!pt_rsp_valid_i || f_rd_out);  // memory answers only a read it took
  end

  // ---------------------------------------------------------------- the two MMUs
  mmu #(
    .MEM_BYTES(MEM_BYTES), .TLB_ENTRIES(TLB_ENTRIES), .REQ_REG(1)
  ) u_reg (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .ctx_valid_i(ctx_valid_i), .ctx_asid_i(ctx_asid_i), .ctx_root_i(ctx_root_i),
    .tr0_req_valid_i(tr0_req_valid_i), .tr0_req_ready_o(r_tr0_ready),
    .tr0_req_va_i(tr0_req_va_i), .tr0_req_write_i(tr0_req_write_i),
    .tr0_rsp_valid_o(r_rsp0), .tr0_rsp_pa_o(r_pa0), .tr0_rsp_host_o(r_host0),
    .tr0_rsp_fault_o(r_fault0), .tr0_rsp_reason_o(r_reason0),
    .tr1_req_valid_i(tr1_req_valid_i), .tr1_req_ready_o(r_tr1_ready),
    .tr1_req_va_i(tr1_req_va_i), .tr1_req_write_i(tr1_req_write_i),
    .tr1_rsp_valid_o(r_rsp1), .tr1_rsp_pa_o(r_pa1), .tr1_rsp_host_o(r_host1),
    .tr1_rsp_fault_o(r_fault1), .tr1_rsp_reason_o(r_reason1),
    .inv_valid_i(inv_valid_i), .inv_mode_i(inv_mode_i), .inv_asid_i(inv_asid_i),
    .inv_va_i(inv_va_i), .inv_size_i(inv_size_i), .inv_done_o(r_inv_done),
    .pt_rd_valid_o(r_rd_valid), .pt_rd_ready_i(pt_rd_ready_i), .pt_rd_addr_o(r_rd_addr),
    .pt_rsp_valid_i(pt_rsp_valid_i), .pt_rsp_data_i(pt_rsp_data_i),
    .stat_hit_o(r_hit), .stat_miss_o(r_miss), .stat_evict_o(r_evict), .stat_walk_o(r_walk),
    .evt_valid_o(r_evt), .evt_kind_o(r_evt_kind), .evt_reason_o(r_evt_reason),
    .evt_write_o(r_evt_write), .evt_asid_o(r_evt_asid), .evt_va_o(r_evt_va), .evt_pte_o(r_evt_pte),
    .f_tlb_valid_o(r_tlb_valid), .f_tlb_ptrs_o(r_tlb_ptrs), .f_tlb_entries_o(r_tlb_entries),
    .f_walk_state_o(r_walk_state), .f_req_o(r_req), .f_inv_o(r_inv)
  );
  mmu #(
    .MEM_BYTES(MEM_BYTES), .TLB_ENTRIES(TLB_ENTRIES), .REQ_REG(0)
  ) u_direct (
    .clk_i(clk_i), .rst_ni(rst_ni),
    .ctx_valid_i(ctx_valid_i), .ctx_asid_i(ctx_asid_i), .ctx_root_i(ctx_root_i),
    .tr0_req_valid_i(d_valid0_q), .tr0_req_ready_o(d_tr0_ready),
    .tr0_req_va_i(d_va_q), .tr0_req_write_i(d_write_q),
    .tr0_rsp_valid_o(d_rsp0), .tr0_rsp_pa_o(d_pa0), .tr0_rsp_host_o(d_host0),
    .tr0_rsp_fault_o(d_fault0), .tr0_rsp_reason_o(d_reason0),
    .tr1_req_valid_i(d_valid1_q), .tr1_req_ready_o(d_tr1_ready),
    .tr1_req_va_i(d_va_q), .tr1_req_write_i(d_write_q),
    .tr1_rsp_valid_o(d_rsp1), .tr1_rsp_pa_o(d_pa1), .tr1_rsp_host_o(d_host1),
    .tr1_rsp_fault_o(d_fault1), .tr1_rsp_reason_o(d_reason1),
    .inv_valid_i(inv_valid_i), .inv_mode_i(inv_mode_i), .inv_asid_i(inv_asid_i),
    .inv_va_i(inv_va_i), .inv_size_i(inv_size_i), .inv_done_o(d_inv_done),
    .pt_rd_valid_o(d_rd_valid), .pt_rd_ready_i(pt_rd_ready_i), .pt_rd_addr_o(d_rd_addr),
    .pt_rsp_valid_i(pt_rsp_valid_i), .pt_rsp_data_i(pt_rsp_data_i),
    .stat_hit_o(d_hit), .stat_miss_o(d_miss), .stat_evict_o(d_evict), .stat_walk_o(d_walk),
    .evt_valid_o(d_evt), .evt_kind_o(d_evt_kind), .evt_reason_o(d_evt_reason),
    .evt_write_o(d_evt_write), .evt_asid_o(d_evt_asid), .evt_va_o(d_evt_va), .evt_pte_o(d_evt_pte),
    .f_tlb_valid_o(d_tlb_valid), .f_tlb_ptrs_o(d_tlb_ptrs), .f_tlb_entries_o(d_tlb_entries),
    .f_walk_state_o(d_walk_state), .f_req_o(d_req), .f_inv_o(d_inv)
  );

  // ---------------------------------------------------------------- the comparison
  always @(*) if (f_past_valid && rst_ni) begin
    // u_direct takes each request in the cycle it is handed over.
    if (d_valid0_q) assert(d_tr0_ready);
    if (d_valid1_q) assert(d_tr1_ready && !d_valid0_q);
    // The same page-table reads.
    assert(r_rd_valid == d_rd_valid);
    if (r_rd_valid) assert(r_rd_addr == d_rd_addr);
    // The same answers on the same ports.
    assert(r_rsp0 == d_rsp0 && r_rsp1 == d_rsp1);
    if (r_rsp0) assert({r_pa0, r_host0, r_fault0, r_reason0} == {d_pa0, d_host0, d_fault0, d_reason0});
    if (r_rsp1) assert({r_pa1, r_host1, r_fault1, r_reason1} == {d_pa1, d_host1, d_fault1, d_reason1});
    // The same events, counters and invalidation handshakes.
    assert(r_evt == d_evt);
    if (r_evt)
      assert({r_evt_kind, r_evt_reason, r_evt_write, r_evt_asid, r_evt_va, r_evt_pte} ==
             {d_evt_kind, d_evt_reason, d_evt_write, d_evt_asid, d_evt_va, d_evt_pte});
    assert(r_hit == d_hit && r_miss == d_miss && r_evict == d_evict && r_walk == d_walk);
    assert(r_inv_done == d_inv_done);
  end

  // The correspondence between the two MMUs' states, stated so that the comparison above is
  // proven for every depth (k-induction): the same TLB (payloads of valid entries), the same
  // walk, the same invalidation; u_reg's registered request is the one handed to u_direct now;
  // a walk serves the same request in both.
  wire       r_walking = r_walk_state[45:43] != 3'd0;
  genvar fe;
  generate
    for (fe = 0; fe < TLB_ENTRIES; fe = fe + 1) begin : g_entry
      always @(*) if (f_past_valid && rst_ni && r_tlb_valid[fe])
        assert(r_tlb_entries[51*fe +: 51] == d_tlb_entries[51*fe +: 51]);
    end
  endgenerate
  always @(*) if (f_past_valid && rst_ni) begin
    assert(r_tlb_valid == d_tlb_valid && r_tlb_ptrs == d_tlb_ptrs);
    assert(r_walk_state[45:43] == d_walk_state[45:43]);
    if (r_walking) assert(r_walk_state == d_walk_state && r_req[41:0] == d_req[41:0]);
    assert(r_inv[74] == d_inv[74]);
    if (r_inv[74]) assert(r_inv == d_inv);
    assert(d_req[42] == 1'b0);
    assert(r_req[42] == (d_valid0_q || d_valid1_q));
    if (r_req[42]) begin
      assert(r_req[41] == d_valid1_q && r_req[40:9] == d_va_q && r_req[8] == d_write_q);
      assert(r_req[7:0] == ctx_asid_i && f_busy && !r_walking);
    end
    if (r_walking) assert(f_busy && r_req[7:0] == ctx_asid_i);
    if (f_rd_out) assert(r_walk_state[45:43] == 3'd2 || r_walk_state[45:43] == 3'd4);
    if (r_inv[74]) assert(!f_busy && f_inv_busy);
  end

  // Reachability: a walk that fills, a hit on the filled entry, an eviction, a range
  // invalidation, each seen in both MMUs at once.
  always @(*) if (f_past_valid && rst_ni) begin
    cover(r_evt && r_evt_kind == 4'd1);          // EVT_TLB_FILL
    cover(r_hit && r_rsp1 && !r_fault1);
    cover(r_evict);
    cover(r_inv_done && r_evt_reason == 4'd2);   // INV_RANGE
  end
endmodule
`default_nettype wire
