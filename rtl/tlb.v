`default_nettype none
// Fully associative TLB of the MMU: ENTRIES entries tagged by ASID, filled round-robin.
//
// The lookup is combinational so that the MMU can register a hit in the cycle the request is
// accepted and answer it on the next cycle. The MMU fills only after a lookup missed and applies
// invalidations only while no translation is in flight, so one (asid, vpn) is never held twice;
// that is why the hit data may be an OR of the matching entries instead of a priority mux.
module tlb #(
  parameter ENTRIES = 16  // number of entries, 2..64 (compared in parallel, LUT-based on ECP5)
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // lookup (combinational)
  input  wire [7:0]  lookup_asid_i,
  input  wire [19:0] lookup_vpn_i,
  output wire        lookup_hit_o,
  output wire [19:0] lookup_pfn_o,
  output wire        lookup_r_o,
  output wire        lookup_w_o,
  output wire        lookup_host_o,
  // fill of the round-robin victim
  input  wire        fill_i,
  input  wire [7:0]  fill_asid_i,
  input  wire [19:0] fill_vpn_i,
  input  wire [19:0] fill_pfn_i,
  input  wire        fill_r_i,
  input  wire        fill_w_i,
  input  wire        fill_host_i,
  output wire        fill_evict_o,   // this fill replaces a valid entry
  // invalidation strobe with its (held) operands
  input  wire        inv_i,
  input  wire [1:0]  inv_mode_i,
  input  wire [7:0]  inv_asid_i,
  input  wire [31:0] inv_va_i,
  input  wire [31:0] inv_size_i
);
  `include "vmgpu_regs.vh"

  localparam integer PTR_W = (ENTRIES > 1) ? $clog2(ENTRIES) : 1;
  localparam integer LAST_I = ENTRIES - 1;
  localparam [PTR_W-1:0] LAST = LAST_I[PTR_W-1:0];

  // Per-entry state is kept in flat vectors (not memories) because every entry is read at once.
  reg [ENTRIES-1:0]    valid_q;
  reg [ENTRIES*8-1:0]  asid_q;
  reg [ENTRIES*20-1:0] vpn_q;
  reg [ENTRIES*20-1:0] pfn_q;
  reg [ENTRIES-1:0]    r_q;
  reg [ENTRIES-1:0]    w_q;
  reg [ENTRIES-1:0]    host_q;
  reg [PTR_W-1:0]      victim_q;

  // The range is [va, va + size) in 33 bits, so a range ending at 0xFFFFFFFF (or running past it)
  // does not wrap to page 0. An entry goes when its page overlaps the range.
  // The offset bits of the last byte are computed only for the carry into the page number.
  /* verilator lint_off UNUSEDSIGNAL */
  wire [32:0] inv_last = {1'b0, inv_va_i} + {1'b0, inv_size_i} - 33'd1;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [19:0] inv_first_vpn = inv_va_i[31:12];
  wire [20:0] inv_last_vpn = inv_last[32:12];
  wire        inv_range_nonempty = (inv_size_i != 32'd0);

  wire [ENTRIES-1:0] match;
  wire [ENTRIES-1:0] inv_hit;

  genvar i;
  generate
    for (i = 0; i < ENTRIES; i = i + 1) begin : g_entry
      wire [7:0]  e_asid = asid_q[i*8 +: 8];
      wire [19:0] e_vpn = vpn_q[i*20 +: 20];
      wire        asid_eq = (e_asid == inv_asid_i);
      wire        in_range = inv_range_nonempty && (e_vpn >= inv_first_vpn) &&
                             ({1'b0, e_vpn} <= inv_last_vpn);
      assign match[i] = valid_q[i] && (e_asid == lookup_asid_i) && (e_vpn == lookup_vpn_i);
      assign inv_hit[i] = (inv_mode_i == INV_ALL) ||
                          ((inv_mode_i == INV_ASID) && asid_eq) ||
                          ((inv_mode_i == INV_RANGE) && asid_eq && in_range);
    end
  endgenerate

  // One-hot OR mux of the (at most one) matching entry.
  reg [19:0] hit_pfn;
  reg        hit_r;
  reg        hit_w;
  reg        hit_host;
  integer k;
  always @* begin
    hit_pfn = 20'd0;
    hit_r = 1'b0;
    hit_w = 1'b0;
    hit_host = 1'b0;
    for (k = 0; k < ENTRIES; k = k + 1) begin
      hit_pfn = hit_pfn | (pfn_q[k*20 +: 20] & {20{match[k]}});
      hit_r = hit_r | (r_q[k] & match[k]);
      hit_w = hit_w | (w_q[k] & match[k]);
      hit_host = hit_host | (host_q[k] & match[k]);
    end
  end

  assign lookup_hit_o = |match;
  assign lookup_pfn_o = hit_pfn;
  assign lookup_r_o = hit_r;
  assign lookup_w_o = hit_w;
  assign lookup_host_o = hit_host;
  assign fill_evict_o = fill_i && valid_q[victim_q];

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      valid_q <= {ENTRIES{1'b0}};
      victim_q <= {PTR_W{1'b0}};
    end else begin
      if (fill_i) begin
        victim_q <= (victim_q == LAST) ? {PTR_W{1'b0}} : victim_q + 1'b1;
      end
      // Only one of the two happens in a cycle (the MMU serialises them); a fill is written
      // after the clear so that it would survive anyway.
      if (inv_i) begin
        valid_q <= valid_q & ~inv_hit;
      end
      if (fill_i) begin
        valid_q[victim_q] <= 1'b1;
      end
    end
  end

  // Payload needs no reset: it is only looked at while its valid bit is set.
  always @(posedge clk_i) begin
    if (fill_i) begin
      asid_q[victim_q*8 +: 8] <= fill_asid_i;
      vpn_q[victim_q*20 +: 20] <= fill_vpn_i;
      pfn_q[victim_q*20 +: 20] <= fill_pfn_i;
      r_q[victim_q] <= fill_r_i;
      w_q[victim_q] <= fill_w_i;
      host_q[victim_q] <= fill_host_i;
    end
  end
endmodule
`default_nettype wire
