`default_nettype none
// Fully associative TLB of the MMU: ENTRIES entries tagged by ASID, filled round-robin.
//
// The lookup is combinational so that the MMU can register a hit in the cycle the request is
// accepted and answer it on the next cycle. The MMU fills only after a lookup missed and applies
// invalidations only while no translation is in flight, so one (asid, vpn) is never held twice;
// that is why the hit data may be an OR of the matching entries instead of a priority mux.
//
// Entries are arrays indexed in loops rather than one generate block per entry: the hardware is
// the same (parallel comparators, per-entry write enables decoded from the victim pointer), but
// fills and invalidations then cost the Verilator model nothing in the cycles they do not
// happen, and the lookup is one tight loop instead of hundreds of wide gathers. That took the
// MMU from almost half of the model's per-cycle work to a small part of it.
module tlb #(
  parameter ENTRIES = 16  // number of entries, 2..64 (compared in parallel, LUT-based on ECP5)
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // lookup (combinational)
  input  wire [7:0]  lookup_asid_i,
  input  wire [19:0] lookup_vpn_i,
  output reg         lookup_hit_o,
  output reg  [19:0] lookup_pfn_o,
  output reg         lookup_r_o,
  output reg         lookup_w_o,
  output reg         lookup_host_o,
  // fill of the round-robin victim
  input  wire        fill_i,
  input  wire [7:0]  fill_asid_i,
  input  wire [19:0] fill_vpn_i,
  input  wire [19:0] fill_pfn_i,
  input  wire        fill_r_i,
  input  wire        fill_w_i,
  input  wire        fill_host_i,
  output wire        fill_evict_o,   // this fill replaces a valid entry
  // invalidation: inv_i is held with its operands until inv_done_o (same cycle for ALL and
  // ASID, after ENTRIES cycles for RANGE, which checks one entry per cycle)
  input  wire        inv_i,
  output wire        inv_done_o,
  input  wire [1:0]  inv_mode_i,
  input  wire [7:0]  inv_asid_i,
  input  wire [31:0] inv_va_i,
  input  wire [31:0] inv_size_i
`ifdef FORMAL
  ,
  // Formal only: the proof's tracked key and what the TLB holds for it, for the MMU's proof.
  output wire [7:0]         f_asid_o,
  output wire [19:0]        f_vpn_o,
  output wire               f_present_o,
  output wire [22:0]        f_data_o,       // {pfn, host, w, r}
  output wire [ENTRIES-1:0] f_fill_dup_o,   // valid entries holding the key at the fill port
  // Formal only: the whole table, for the REQ_REG miter (tests/formal/mmu_reqreg_miter.v).
  output wire [ENTRIES-1:0]    f_valid_o,
  output wire [2*PTR_W-1:0]    f_ptrs_o,    // {victim, scan}
  output wire [ENTRIES*51-1:0] f_entries_o  // entry k at [51*k +: 51]: {asid, vpn, data}
`endif
);
  `include "vmgpu_regs.vh"

  localparam integer PTR_W = (ENTRIES > 1) ? $clog2(ENTRIES) : 1;
  localparam integer LAST_I = ENTRIES - 1;
  localparam [PTR_W-1:0] LAST = LAST_I[PTR_W-1:0];

  reg [ENTRIES-1:0] valid_q;
  reg [7:0]         asid_q [0:ENTRIES-1];
  reg [19:0]        vpn_q  [0:ENTRIES-1];
  // pfn, r, w, host of an entry, as {pfn, host, w, r}
  reg [22:0]        data_q [0:ENTRIES-1];
  reg [PTR_W-1:0]   victim_q;

  // The range is [va, va + size) in 33 bits, so a range ending at 0xFFFFFFFF (or running past it)
  // does not wrap to page 0. An entry goes when its page overlaps the range.
  // The offset bits of the last byte are computed only for the carry into the page number.
  /* verilator lint_off UNUSEDSIGNAL */
  wire [32:0] inv_last = {1'b0, inv_va_i} + {1'b0, inv_size_i} - 33'd1;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [19:0] inv_first_vpn = inv_va_i[31:12];
  wire [20:0] inv_last_vpn = inv_last[32:12];
  wire        inv_range_nonempty = (inv_size_i != 32'd0);

  // Lookup: OR of the (at most one) matching entry.
  integer k;
  reg [22:0] hit_data;
  always @* begin
    lookup_hit_o = 1'b0;
    hit_data = 23'd0;
    for (k = 0; k < ENTRIES; k = k + 1) begin
      if (valid_q[k] && asid_q[k] == lookup_asid_i && vpn_q[k] == lookup_vpn_i) begin
        lookup_hit_o = 1'b1;
        hit_data = hit_data | data_q[k];
      end
    end
    {lookup_pfn_o, lookup_host_o, lookup_w_o, lookup_r_o} = hit_data;
  end

  assign fill_evict_o = fill_i && valid_q[victim_q];

  // A range invalidation visits one entry per cycle (scan_q): one pair of page-number
  // comparators instead of a pair per entry, which was the TLB's largest part on the FPGA.
  // Invalidations are rare and already wait for walks to finish, so the cycles are cheap.
  reg [PTR_W-1:0] scan_q;
  wire [19:0] scan_vpn = vpn_q[scan_q];
  wire        scan_drop = (asid_q[scan_q] == inv_asid_i) && inv_range_nonempty &&
                          (scan_vpn >= inv_first_vpn) && ({1'b0, scan_vpn} <= inv_last_vpn);
  wire        inv_range = (inv_mode_i == INV_RANGE);
  assign inv_done_o = inv_i && (!inv_range || scan_q == LAST);

  // Valid bits: a fill sets the victim's; an invalidation clears the entries it covers. The MMU
  // never fills while an invalidation is held; the fill would win for its entry.
  integer j;
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      valid_q  <= {ENTRIES{1'b0}};
      victim_q <= {PTR_W{1'b0}};
      scan_q   <= {PTR_W{1'b0}};
    end else begin
      if (inv_i) begin
        case (inv_mode_i)
          INV_ALL:  valid_q <= {ENTRIES{1'b0}};
          INV_ASID: for (j = 0; j < ENTRIES; j = j + 1)
                      if (asid_q[j] == inv_asid_i) valid_q[j] <= 1'b0;
          INV_RANGE: begin
            if (scan_drop) valid_q[scan_q] <= 1'b0;
            scan_q <= (scan_q == LAST) ? {PTR_W{1'b0}} : scan_q + 1'b1;
          end
          default: ;
        endcase
      end
      if (fill_i) begin
        valid_q[victim_q] <= 1'b1;
        victim_q <= (victim_q == LAST) ? {PTR_W{1'b0}} : victim_q + 1'b1;
      end
    end
  end

  // Payload needs no reset: it is only looked at while the valid bit is set.
  always @(posedge clk_i) begin
    if (fill_i) begin
      asid_q[victim_q] <= fill_asid_i;
      vpn_q[victim_q]  <= fill_vpn_i;
      data_q[victim_q] <= {fill_pfn_i, fill_host_i, fill_w_i, fill_r_i};
    end
  end

`ifdef FORMAL
  // Properties (tests/formal/tlb.sby, docs/formal.md). The MMU's promises to the TLB are
  // assumed when the TLB is proven alone (FORMAL_TLB) and asserted when the MMU is proven
  // with the TLB inside it.
`ifdef FORMAL_TLB
`define TLB_ASSUME assume
`else
`define TLB_ASSUME assert
`endif
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) `TLB_ASSUME(!rst_ni);

  // Written from the format, not from the code above: a page [vpn << 12, +4096) overlaps the
  // byte range [va, va + size), counted in 33 bits so that nothing wraps.
  function automatic f_overlaps(input [19:0] vpn, input [31:0] va, input [31:0] size);
    reg [32:0] page_lo, range_end;
    begin
      page_lo   = {1'b0, vpn, 12'h000};
      range_end = {1'b0, va} + {1'b0, size};
      f_overlaps = (size != 32'd0) && (page_lo < range_end) && ({1'b0, va} < page_lo + 33'h1000);
    end
  endfunction
  // Whether the invalidation now applied covers an entry with this ASID and page.
  function automatic f_covers(input [7:0] asid, input [19:0] vpn);
    begin
      case (inv_mode_i)
        INV_ALL:   f_covers = 1'b1;
        INV_ASID:  f_covers = (asid == inv_asid_i);
        INV_RANGE: f_covers = (asid == inv_asid_i) && f_overlaps(vpn, inv_va_i, inv_size_i);
        default:   f_covers = 1'b0;
      endcase
    end
  endfunction

  // Entries that answer the lookup now, and entries holding the key being filled.
  wire [ENTRIES-1:0] f_match, f_fill_dup;
  genvar fk, fj;
  generate
    for (fk = 0; fk < ENTRIES; fk = fk + 1) begin : g_f_match
      assign f_match[fk]    = valid_q[fk] && asid_q[fk] == lookup_asid_i && vpn_q[fk] == lookup_vpn_i;
      assign f_fill_dup[fk] = valid_q[fk] && asid_q[fk] == fill_asid_i && vpn_q[fk] == fill_vpn_i;
    end
  endgenerate

  // The MMU's side: it fills only after a lookup of the same key missed, never while an
  // invalidation is applied, and holds an invalidation with its operands until inv_done_o.
  reg f_inv_held = 1'b0;  // an invalidation was applied last cycle and is not finished
  always @(posedge clk_i) f_inv_held <= rst_ni && inv_i && !inv_done_o;
  always @(*) if (f_past_valid && rst_ni) begin
    if (fill_i) `TLB_ASSUME(!inv_i && f_fill_dup == {ENTRIES{1'b0}});
  end
  always @(posedge clk_i) if (f_past_valid && rst_ni && f_inv_held) begin
    `TLB_ASSUME(inv_i && $stable(inv_mode_i) && $stable(inv_asid_i) && $stable(inv_va_i) &&
                $stable(inv_size_i));
  end

  // Pointers stay inside the table; a range scan starts at entry 0.
  always @(*) if (f_past_valid && rst_ni) begin
    assert(victim_q <= LAST);
    assert(scan_q <= LAST);
    if (!f_inv_held) assert(scan_q == {PTR_W{1'b0}});
    assert(fill_evict_o == (fill_i && valid_q[victim_q]));
  end

  // At most one entry holds a given (ASID, VPN), so at most one entry hits. A lookup hits
  // exactly when a valid entry has the same ASID and VPN, and answers with that entry's frame,
  // permissions and aperture.
  generate
    for (fk = 0; fk < ENTRIES; fk = fk + 1) begin : g_f_entry
      for (fj = fk + 1; fj < ENTRIES; fj = fj + 1) begin : g_f_pair
        always @(*) if (f_past_valid && rst_ni)
          assert(!(valid_q[fk] && valid_q[fj] && asid_q[fk] == asid_q[fj] && vpn_q[fk] == vpn_q[fj]));
      end
      always @(*) if (f_past_valid && rst_ni && f_match[fk])
        assert({lookup_pfn_o, lookup_host_o, lookup_w_o, lookup_r_o} == data_q[fk]);
    end
  endgenerate
  always @(*) if (f_past_valid && rst_ni) begin
    assert($onehot0(f_match));
    assert(lookup_hit_o == (f_match != {ENTRIES{1'b0}}));
  end

  // One key, (f_asid, f_vpn), chosen freely: the TLB answers for it with exactly what the last
  // fill of that key brought (frame, R, W, HOST unchanged) until that entry is replaced or an
  // invalidation covering it finishes, and misses otherwise.
  (* anyconst *) reg [7:0]  f_asid;
  (* anyconst *) reg [19:0] f_vpn;
  reg               f_present = 1'b0;
  reg [PTR_W-1:0]   f_slot;
  reg [22:0]        f_data;
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_present <= 1'b0;
    end else if (fill_i) begin
      if (fill_asid_i == f_asid && fill_vpn_i == f_vpn) begin
        f_present <= 1'b1;
        f_slot <= victim_q;
        f_data <= {fill_pfn_i, fill_host_i, fill_w_i, fill_r_i};
      end else if (victim_q == f_slot) begin
        f_present <= 1'b0;
      end
    end else if (inv_done_o && f_covers(f_asid, f_vpn)) begin
      f_present <= 1'b0;
    end
  end
  assign f_asid_o = f_asid;
  assign f_vpn_o = f_vpn;
  assign f_present_o = f_present;
  assign f_data_o = f_data;
  assign f_fill_dup_o = f_fill_dup;
  assign f_valid_o = valid_q;
  assign f_ptrs_o = {victim_q, scan_q};
  generate
    for (fk = 0; fk < ENTRIES; fk = fk + 1) begin : g_f_entries
      assign f_entries_o[51*fk +: 51] = {asid_q[fk], vpn_q[fk], data_q[fk]};
    end
  endgenerate
  wire f_scanning = f_inv_held || (inv_i && inv_range);  // a range invalidation is under way
  always @(*) if (f_past_valid && rst_ni) begin
    if (f_present) begin
      assert(asid_q[f_slot] == f_asid && vpn_q[f_slot] == f_vpn && data_q[f_slot] == f_data);
      // Valid, unless a range invalidation covering it has already passed its slot.
      if (!(f_scanning && f_covers(f_asid, f_vpn) && f_slot < scan_q)) assert(valid_q[f_slot]);
    end
    if (!f_scanning && lookup_asid_i == f_asid && lookup_vpn_i == f_vpn) begin
      assert(lookup_hit_o == f_present);
      if (f_present) assert({lookup_pfn_o, lookup_host_o, lookup_w_o, lookup_r_o} == f_data);
    end
  end

  // An invalidation leaves no entry it covers: entries already scanned by a range
  // invalidation are clear while it runs, and every covered entry is clear after inv_done_o.
  // An entry not holding the tracked key is never taken for it.
  reg [ENTRIES-1:0] f_covered_q;  // last cycle: entries the invalidation applied then covered
  reg               f_inv_done_q = 1'b0;
  always @(posedge clk_i) f_inv_done_q <= rst_ni && inv_done_o;
  generate
    for (fk = 0; fk < ENTRIES; fk = fk + 1) begin : g_f_inv
      always @(posedge clk_i) f_covered_q[fk] <= f_covers(asid_q[fk], vpn_q[fk]);
      always @(*) if (f_past_valid && rst_ni) begin
        if (f_scanning && inv_range && fk < scan_q)
          assert(!(valid_q[fk] && f_covers(asid_q[fk], vpn_q[fk])));
        if (f_inv_done_q) assert(!(valid_q[fk] && f_covered_q[fk]));
        if (!f_present) assert(!(valid_q[fk] && asid_q[fk] == f_asid && vpn_q[fk] == f_vpn));
      end
    end
  endgenerate

  // Reachability: a hit, a full table, an eviction, a range invalidation that drops one entry
  // and keeps another, an ASID invalidation.
  always @(*) if (f_past_valid && rst_ni) begin
    cover(lookup_hit_o && lookup_asid_i == f_asid && lookup_vpn_i == f_vpn);
    cover(valid_q == {ENTRIES{1'b1}});
    cover(fill_evict_o);
    cover(inv_done_o && inv_range && scan_drop && valid_q[0]);
    cover(inv_done_o && inv_mode_i == INV_ASID && valid_q != {ENTRIES{1'b0}});
  end
`undef TLB_ASSUME
`endif
endmodule
`default_nettype wire
