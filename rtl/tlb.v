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
endmodule
`default_nettype wire
