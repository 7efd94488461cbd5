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

  // Per-entry state lives in the generate block below (each entry with its own write enable, which
  // maps to plain FFs with a clock enable); these vectors gather it for the lookup.
  wire [ENTRIES-1:0]    valid_all;
  wire [ENTRIES*20-1:0] pfn_all;
  wire [ENTRIES-1:0]    r_all;
  wire [ENTRIES-1:0]    w_all;
  wire [ENTRIES-1:0]    host_all;
  reg  [PTR_W-1:0]      victim_q;

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

  genvar i;
  generate
    for (i = 0; i < ENTRIES; i = i + 1) begin : g_entry
      localparam integer IDX_I = i;
      localparam [PTR_W-1:0] IDX = IDX_I[PTR_W-1:0];
      reg        valid_q;
      reg [7:0]  asid_q;
      reg [19:0] vpn_q;
      reg [19:0] pfn_q;
      reg        r_q;
      reg        w_q;
      reg        host_q;
      wire       write_en = fill_i && (victim_q == IDX);
      wire       asid_eq = (asid_q == inv_asid_i);
      wire       in_range = inv_range_nonempty && (vpn_q >= inv_first_vpn) &&
                            ({1'b0, vpn_q} <= inv_last_vpn);
      wire       inv_hit = (inv_mode_i == INV_ALL) ||
                           ((inv_mode_i == INV_ASID) && asid_eq) ||
                           ((inv_mode_i == INV_RANGE) && asid_eq && in_range);

      always @(posedge clk_i) begin
        if (!rst_ni) begin
          valid_q <= 1'b0;
        end else if (write_en) begin
          // The MMU never fills and invalidates in one cycle; the fill would win.
          valid_q <= 1'b1;
        end else if (inv_i && inv_hit) begin
          valid_q <= 1'b0;
        end
      end

      // Payload needs no reset: it is only looked at while the valid bit is set.
      always @(posedge clk_i) begin
        if (write_en) begin
          asid_q <= fill_asid_i;
          vpn_q <= fill_vpn_i;
          pfn_q <= fill_pfn_i;
          r_q <= fill_r_i;
          w_q <= fill_w_i;
          host_q <= fill_host_i;
        end
      end

      assign match[i] = valid_q && (asid_q == lookup_asid_i) && (vpn_q == lookup_vpn_i);
      assign valid_all[i] = valid_q;
      assign pfn_all[i*20 +: 20] = pfn_q;
      assign r_all[i] = r_q;
      assign w_all[i] = w_q;
      assign host_all[i] = host_q;
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
      hit_pfn = hit_pfn | (pfn_all[k*20 +: 20] & {20{match[k]}});
      hit_r = hit_r | (r_all[k] & match[k]);
      hit_w = hit_w | (w_all[k] & match[k]);
      hit_host = hit_host | (host_all[k] & match[k]);
    end
  end

  assign lookup_hit_o = |match;
  assign lookup_pfn_o = hit_pfn;
  assign lookup_r_o = hit_r;
  assign lookup_w_o = hit_w;
  assign lookup_host_o = hit_host;
  assign fill_evict_o = fill_i && valid_all[victim_q];

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      victim_q <= {PTR_W{1'b0}};
    end else if (fill_i) begin
      victim_q <= (victim_q == LAST) ? {PTR_W{1'b0}} : victim_q + 1'b1;
    end
  end
endmodule
`default_nettype wire
