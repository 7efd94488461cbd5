`default_nettype none
// simt_lsu: the compute unit's one way out to memory. It takes one warp memory operation at a
// time from simt_core's execute stage (the addresses and store data of the active lanes), walks
// its lanes lowest first and, per cycle, either
//   - serves one lane from shared memory (block RAM, a VA window [SHARED_BASE, +SHARED_BYTES)), or
//   - sends one request to the memory port for the lowest waiting lane and every other waiting
//     lane that touches the same 32-bit word (coalescing: a broadcast load such as every lane
//     reading the same argument costs one request; stores of several lanes into one word merge,
//     the higher lane winning a byte both write).
// Instruction-cache fills share the port and go first (a warp without its instruction can do
// nothing). Responses come back in request order and are matched with a FIFO of what each
// request was for; load data lands in a per-warp load buffer that the warp reads when simt_core
// replays the load.
//
// Precise faults: a store is sent only when no request in flight at the port can fault, so when
// a request faults no store behind it has been sent; loads and fetches may run ahead (they change
// nothing) and are drained and dropped. A request cannot fault when its page already answered
// the same kind of access without a fault during this launch (mappings do not change while a
// kernel runs: invalidations are commands ordered with the launches): KNOWN_PAGES such pages are
// remembered, with read and write permission apart, and forgotten at each launch. So a store
// waits for the port to drain only while something in flight touches a page not yet seen.
//
// Atomics (RV32A AMOs, Zacas amocas.w): one request per active lane, lowest lane first, never
// coalesced (two lanes adding to one word are two read-modify-writes), each sent under the store
// rule (it changes memory) and answered with the old word, which lands in the load buffer like a
// load's. Lanes in the shared window are done here, one lane in two cycles (read, then write the
// new word; three with SH_AMO_REG, which registers the old word and the lane's operands before
// the AMO ALU), so they are atomic against every other lane. amocas needs three operands: the
// execute stage sends it twice, first the compare values (op_cas_first_i: kept in cmp_q, and no
// other operation is taken until the same warp sends the addresses and new values).
//
// The port: a request is held, unchanged, until accepted (the MMU translation port's contract,
// rtl/tr_port_arb.v); one response per request, in order; op 0 read, 1 write, 2 fetch, 3 AMO
// (mem_req_amo_o its funct5, mem_req_cmp_o amocas's compare value; the answer is the old word);
// 4..7 are free.
module simt_lsu #(
  parameter integer LANES = 4,               // lanes per warp
  parameter integer WARPS = 4,               // warps
  parameter integer SHARED_BYTES = 4096,     // shared memory bytes (power of two)
  parameter [31:0]  SHARED_BASE = 32'hFF00_0000,  // its VA window, aligned to SHARED_BYTES
  parameter integer MAX_OUT = 8,             // requests presented or in flight at the port
  parameter integer KNOWN_PAGES = 4,         // pages remembered as answering without a fault
                                             // (power of two)
  parameter integer SH_AMO_REG = 0           // 1: a shared AMO's old word and operands are
                                             // registered before the AMO ALU (three cycles a
                                             // lane, not two)
) (
  input  wire                   clk_i,
  input  wire                   rst_ni,
  input  wire                   halt_i,      // a fault stopped the kernel: send nothing new
  input  wire                   clear_i,     // launch: forget a walk a fault left behind
  // one warp memory operation from the execute stage
  input  wire                   op_valid_i,
  output wire                   op_ready_o,
  input  wire [WW-1:0]          op_warp_i,
  input  wire [LANES-1:0]       op_mask_i,
  input  wire [LANES*32-1:0]    op_addr_i,
  input  wire [LANES*32-1:0]    op_data_i,
  input  wire [2:0]             op_funct3_i,
  input  wire                   op_store_i,
  input  wire                   op_amo_i,    // an AMO (funct3 is 2, the word)
  input  wire [4:0]             op_funct5_i, // its funct5
  input  wire                   op_cas_first_i, // amocas, first pass: op_data_i are the compare values
  input  wire [31:0]            op_pc_i,
  output reg  [WARPS-1:0]       op_done_o,   // pulse per warp: its operation completed
  input  wire [WW-1:0]          ld_warp_i,   // load buffer read (the replaying warp)
  output wire [LANES*32-1:0]    ld_data_o,
  // instruction fetch (cache fills)
  input  wire                   fetch_valid_i,
  output wire                   fetch_ready_o,
  input  wire [31:0]            fetch_va_i,
  input  wire [WW-1:0]          fetch_warp_i,
  input  wire [LW-1:0]          fetch_lane_i,
  output wire                   fill_valid_o,
  output wire [WW-1:0]          fill_warp_o,
  output wire [31:0]            fill_va_o,
  output wire [31:0]            fill_data_o,
  // a request answered with a fault (one-cycle pulse)
  output wire                   fault_valid_o,
  output wire [31:0]            fault_va_o,
  output wire [1:0]             fault_access_o,  // 0 read, 1 write, 2 fetch
  output wire [3:0]             fault_reason_o,
  output wire [LW-1:0]          fault_lane_o,
  output wire [WW-1:0]          fault_warp_o,
  output wire [31:0]            fault_pc_o,
  output wire                   idle_o,      // nothing waiting, in flight or landing
  output wire                   quiet_o,     // every request the port took was answered
  // memory port (virtual addresses)
  output reg                    mem_req_valid_o,
  input  wire                   mem_req_ready_i,
  output reg  [31:0]            mem_req_va_o,
  output reg  [2:0]             mem_req_op_o,
  output reg  [31:0]            mem_req_wdata_o,
  output reg  [3:0]             mem_req_be_o,
  output reg  [4:0]             mem_req_amo_o,   // op 3: the AMO's funct5
  output reg  [31:0]            mem_req_cmp_o,   // op 3, amocas: the compare value
  input  wire                   mem_rsp_valid_i,
  input  wire [31:0]            mem_rsp_data_i,
  input  wire                   mem_rsp_fault_i,
  input  wire [3:0]             mem_rsp_reason_i
);
  localparam integer LW = (LANES > 1) ? $clog2(LANES) : 1;
  localparam integer WW = (WARPS > 1) ? $clog2(WARPS) : 1;
  localparam integer SH_AW = $clog2(SHARED_BYTES);
  localparam integer SH_WORDS = SHARED_BYTES / 4;
  localparam integer QW = $clog2(MAX_OUT);        // FIFO index
  localparam integer CW = $clog2(MAX_OUT + 1);    // FIFO / per-warp counts

  localparam [1:0] K_READ = 2'd0, K_WRITE = 2'd1, K_FETCH = 2'd2;
  localparam integer KW = (KNOWN_PAGES > 1) ? $clog2(KNOWN_PAGES) : 1;

  // ---------------------------------------------------------------- the operation being walked
  reg                  busy_q;
  reg [WW-1:0]         warp_q;
  reg [LANES-1:0]      pend_q;
  reg [LANES*32-1:0]   addr_q, data_q;
  reg [2:0]            funct3_q;
  reg                  store_q;
  reg                  amo_q;        // an AMO: one lane per request, changes memory
  reg [4:0]            f5_q;
  reg [LANES*32-1:0]   cmp_q;        // amocas: the compare values (first pass)
  reg                  cas_wait_q;   // amocas: waiting for the second pass of warp cas_warp_q
  reg [WW-1:0]         cas_warp_q;
  reg [1:0]            sh_amo_ph_q;  // shared AMO: 0 read the word, then (SH_AMO_REG: 1 hold
                                     // it,) last write the new one
  reg [31:0]           pc_q;
  reg [WARPS-1:0]      issued_q;     // warp's operation fully sent, completion pending
  reg [CW*WARPS-1:0]   wcnt_q;       // per warp: data requests in flight

  // lowest waiting lane and its word
  reg [LW-1:0] lead;
  always @(*) begin
    lead = {LW{1'b0}};
    for (integer l = LANES - 1; l >= 0; l = l - 1)
      if (pend_q[l]) lead = l[LW-1:0];
  end
  reg [31:0] lead_addr, lead_data, lead_cmp;
  always @(*) begin
    lead_addr = 32'd0;
    lead_data = 32'd0;
    lead_cmp = 32'd0;
    for (integer l = 0; l < LANES; l = l + 1)
      if (lead == l[LW-1:0]) begin
        lead_addr = addr_q[l*32 +: 32];
        lead_data = data_q[l*32 +: 32];
        lead_cmp = cmp_q[l*32 +: 32];
      end
  end
  function automatic in_shared(input [31-SH_AW:0] a_hi);
    in_shared = (a_hi == SHARED_BASE[31:SH_AW]);
  endfunction
  wire lead_sh = in_shared(lead_addr[31:SH_AW]);

  // byte enables and data of one lane's store, placed in its word
  function automatic [3:0] lane_be(input [1:0] size, input [1:0] off);
    case (size)
      2'd0: lane_be = 4'b0001 << off;
      2'd1: lane_be = 4'b0011 << off;
      default: lane_be = 4'b1111;
    endcase
  endfunction

  reg [LANES-1:0] group;
  reg [31:0]      grp_wdata;
  reg [3:0]       grp_be;
  reg [2*LANES-1:0] grp_offs;
  reg [3:0]  l_be;
  reg [31:0] l_wd;
  always @(*) begin
    grp_wdata = 32'd0;
    grp_be = 4'd0;
    for (integer l = 0; l < LANES; l = l + 1) begin
      group[l] = pend_q[l] && !in_shared(addr_q[l*32 + SH_AW +: 32 - SH_AW]) &&
                 (addr_q[l*32 + 2 +: 30] == lead_addr[31:2]) && (!amo_q || lead == l[LW-1:0]);
      grp_offs[2*l +: 2] = addr_q[l*32 +: 2];
      l_be = lane_be(funct3_q[1:0], addr_q[l*32 +: 2]);
      l_wd = data_q[l*32 +: 32] << {addr_q[l*32 +: 2], 3'b000};
      for (integer b = 0; b < 4; b = b + 1)
        if (group[l] && l_be[b]) begin
          grp_be[b] = 1'b1;
          grp_wdata[8*b +: 8] = l_wd[8*b +: 8];
        end
    end
  end

  // ---------------------------------------------------------------- response FIFO
  reg [1:0]           q_kind  [0:MAX_OUT-1];
  reg [WW-1:0]        q_warp  [0:MAX_OUT-1];
  reg [LANES-1:0]     q_mask  [0:MAX_OUT-1];
  reg [2:0]           q_f3    [0:MAX_OUT-1];
  reg [2*LANES-1:0]   q_offs  [0:MAX_OUT-1];
  reg [31:0]          q_va    [0:MAX_OUT-1];
  reg [LW-1:0]        q_lane  [0:MAX_OUT-1];
  reg [31:0]          q_pc    [0:MAX_OUT-1];
  reg                 q_safe  [0:MAX_OUT-1];   // its page already answered this kind of access
  reg                 q_amo   [0:MAX_OUT-1];   // an AMO: the old word is load data
  reg [CW-1:0]        unsafe_q;                // entries that may still fault

  // pages known to answer reads (and fetches) / writes without a fault
  reg [19:0]            kp_page_q [0:KNOWN_PAGES-1];
  reg [KNOWN_PAGES-1:0] kp_r_q, kp_w_q;
  reg [KW-1:0]          kp_next_q;             // round-robin replacement
  wire [19:0] push_page = load_fetch ? fetch_va_i[31:12] : lead_addr[31:12];
  reg push_safe;
  always @(*) begin
    push_safe = 1'b0;
    for (integer k = 0; k < KNOWN_PAGES; k = k + 1)
      if (kp_page_q[k] == push_page && (load_fetch || !(store_q || amo_q) ? kp_r_q[k] : kp_w_q[k]))
        push_safe = 1'b1;
  end
  reg [QW-1:0]        q_wp_q, q_rp_q;
  reg [CW-1:0]        q_cnt_q;

  wire slot_free = !mem_req_valid_o || mem_req_ready_i;
  wire room      = (q_cnt_q != MAX_OUT[CW-1:0]);
  wire walking   = busy_q && (pend_q != {LANES{1'b0}}) && !halt_i;
  wire sh_go     = walking && lead_sh;
  wire load_fetch = fetch_valid_i && slot_free && room && !halt_i;
  wire load_data  = walking && !lead_sh && slot_free && room && !load_fetch &&
                    (!(store_q || amo_q) || unsafe_q == {CW{1'b0}});
  wire push = load_fetch || load_data;
  wire pop  = mem_rsp_valid_i;

  assign fetch_ready_o = load_fetch;

  // ---------------------------------------------------------------- shared memory
  localparam integer SH_IW = (SH_WORDS > 1) ? $clog2(SH_WORDS) : 1;
  reg [31:0] sh_mem [0:SH_WORDS-1];
  reg [31:0] sh_rdata_q;
  wire [SH_IW-1:0] sh_idx = lead_addr[SH_IW+1:2];
  wire [3:0]  sh_be = lane_be(funct3_q[1:0], lead_addr[1:0]);
  // A shared AMO reads the word in its first cycle and writes the new one in its last (the
  // second, or the third with SH_AMO_REG).
  localparam [1:0] SH_AMO_LAST = (SH_AMO_REG != 0) ? 2'd2 : 2'd1;
  wire        sh_amo_wr = sh_go && amo_q && (sh_amo_ph_q == SH_AMO_LAST);
  // What the AMO ALU sees: the block RAM's output and the leading lane's operands, or with
  // SH_AMO_REG all three a cycle later from flip-flops (the lane and its address hold through the
  // phases, so they are the same words), so that neither the RAM's clock-to-output nor the
  // choice of the leading lane is on the path through the ALU into the RAM's write data.
  wire [31:0] sh_old, sh_src, sh_cmp;
  simt_stage #(.W(96), .REG(SH_AMO_REG != 0 ? 1 : 0)) u_sh_amo_stage (
    .clk_i (clk_i),
    .d_i   ({sh_rdata_q, lead_data, lead_cmp}),
    .q_o   ({sh_old, sh_src, sh_cmp})
  );
  wire [31:0] sh_amo_new;
  simt_amo_alu u_sh_amo (
    .funct5_i (f5_q),
    .old_i    (sh_old),
    .src_i    (sh_src),
    .cmp_i    (sh_cmp),
    .new_o    (sh_amo_new)
  );
  wire [31:0] sh_wd = amo_q ? sh_amo_new : lead_data << {lead_addr[1:0], 3'b000};
  wire        sh_we = sh_go && (store_q || sh_amo_wr);
  always @(posedge clk_i) begin
    if (sh_we && sh_be[0]) sh_mem[sh_idx][7:0]   <= sh_wd[7:0];
    if (sh_we && sh_be[1]) sh_mem[sh_idx][15:8]  <= sh_wd[15:8];
    if (sh_we && sh_be[2]) sh_mem[sh_idx][23:16] <= sh_wd[23:16];
    if (sh_we && sh_be[3]) sh_mem[sh_idx][31:24] <= sh_wd[31:24];
    sh_rdata_q <= sh_mem[sh_idx];
  end
  reg          shr_v_q;   // a shared read lands this cycle
  reg [WW-1:0] shr_warp_q;
  reg [LW-1:0] shr_lane_q;
  reg [1:0]    shr_off_q;

  // ---------------------------------------------------------------- load data
  function automatic [31:0] ld_extract(input [31:0] w, input [1:0] off, input [2:0] f3);
    reg [31:0] s;
    begin
      s = w >> {off, 3'b000};
      case (f3)
        3'd0: ld_extract = {{24{s[7]}}, s[7:0]};
        3'd1: ld_extract = {{16{s[15]}}, s[15:0]};
        3'd4: ld_extract = {24'd0, s[7:0]};
        3'd5: ld_extract = {16'd0, s[15:0]};
        default: ld_extract = s;
      endcase
    end
  endfunction

  // funct3 travels with the shared read: the next operation may be accepted as it lands.
  reg [2:0] shr_f3_q;
  always @(posedge clk_i) shr_f3_q <= funct3_q;
  wire [31:0] ld_ext_sh = ld_extract(sh_rdata_q, shr_off_q, shr_f3_q);

  reg [WARPS*LANES*32-1:0] lbuf_q;
  reg [LANES*32-1:0] ld_data;
  always @(*) begin
    ld_data = {LANES*32{1'b0}};
    for (integer w = 0; w < WARPS; w = w + 1)
      if (ld_warp_i == w[WW-1:0]) ld_data = lbuf_q[w*LANES*32 +: LANES*32];
  end
  assign ld_data_o = ld_data;

  wire [1:0]    h_kind = q_kind[q_rp_q];
  wire [WW-1:0] h_warp = q_warp[q_rp_q];
  assign fault_valid_o  = pop && mem_rsp_fault_i;
  assign fault_va_o     = q_va[q_rp_q];
  assign fault_access_o = h_kind;
  assign fault_reason_o = mem_rsp_reason_i;
  assign fault_lane_o   = q_lane[q_rp_q];
  assign fault_warp_o   = h_warp;
  assign fault_pc_o     = q_pc[q_rp_q];
  assign fill_valid_o   = pop && !mem_rsp_fault_i && (h_kind == K_FETCH);
  assign fill_warp_o    = h_warp;
  assign fill_va_o      = q_va[q_rp_q];
  assign fill_data_o    = mem_rsp_data_i;

  // ---------------------------------------------------------------- completion per warp
  reg [WARPS-1:0] done_now;
  always @(*) begin
    for (integer w = 0; w < WARPS; w = w + 1)
      done_now[w] = issued_q[w] && (wcnt_q[w*CW +: CW] == {CW{1'b0}}) &&
                    !(shr_v_q && shr_warp_q == w[WW-1:0]);
  end

  // While an amocas waits for its second pass, only that pass is taken.
  assign op_ready_o = !busy_q && !halt_i &&
                      (!cas_wait_q || (op_warp_i == cas_warp_q && !op_cas_first_i));
  assign quiet_o = (q_cnt_q == {CW{1'b0}}) && !mem_req_valid_o;
  assign idle_o = !busy_q && (q_cnt_q == {CW{1'b0}}) && !shr_v_q && (issued_q == {WARPS{1'b0}});

  wire sh_lane_done = sh_go && (!amo_q || sh_amo_ph_q == SH_AMO_LAST);
  wire [LANES-1:0] pend_next = pend_q & ~(sh_lane_done ? ({{(LANES-1){1'b0}}, 1'b1} << lead) : {LANES{1'b0}})
                                      & ~(load_data ? group : {LANES{1'b0}});

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      pend_q <= {LANES{1'b0}};
      issued_q <= {WARPS{1'b0}};
      wcnt_q <= {CW*WARPS{1'b0}};
      cas_wait_q <= 1'b0;
      sh_amo_ph_q <= 2'd0;
      q_wp_q <= {QW{1'b0}};
      q_rp_q <= {QW{1'b0}};
      q_cnt_q <= {CW{1'b0}};
      unsafe_q <= {CW{1'b0}};
      kp_r_q <= {KNOWN_PAGES{1'b0}};
      kp_w_q <= {KNOWN_PAGES{1'b0}};
      kp_next_q <= {KW{1'b0}};
      mem_req_valid_o <= 1'b0;
      shr_v_q <= 1'b0;
      op_done_o <= {WARPS{1'b0}};
    end else if (clear_i) begin
      busy_q <= 1'b0;
      cas_wait_q <= 1'b0;
      sh_amo_ph_q <= 2'd0;
      pend_q <= {LANES{1'b0}};
      issued_q <= {WARPS{1'b0}};
      wcnt_q <= {CW*WARPS{1'b0}};
      op_done_o <= {WARPS{1'b0}};
      kp_r_q <= {KNOWN_PAGES{1'b0}};
      kp_w_q <= {KNOWN_PAGES{1'b0}};
    end else begin
      op_done_o <= done_now;
      issued_q <= issued_q & ~done_now;
      // accept an operation / walk it
      if (op_valid_i && op_ready_o && op_cas_first_i) begin
        cmp_q      <= op_data_i;
        cas_wait_q <= 1'b1;
        cas_warp_q <= op_warp_i;
      end else if (op_valid_i && op_ready_o) begin
        busy_q   <= 1'b1;
        warp_q   <= op_warp_i;
        pend_q   <= op_mask_i;
        addr_q   <= op_addr_i;
        data_q   <= op_data_i;
        funct3_q <= op_funct3_i;
        store_q  <= op_store_i;
        amo_q    <= op_amo_i;
        f5_q     <= op_funct5_i;
        pc_q     <= op_pc_i;
        cas_wait_q <= 1'b0;
        sh_amo_ph_q <= 2'd0;
      end else if (busy_q) begin
        if (sh_go && amo_q) sh_amo_ph_q <= sh_amo_wr ? 2'd0 : sh_amo_ph_q + 2'd1;
        pend_q <= pend_next;
        if (pend_next == {LANES{1'b0}} && !halt_i) begin
          busy_q <= 1'b0;
          issued_q[warp_q] <= 1'b1;
        end
      end
      // shared read landing next cycle
      shr_v_q    <= sh_go && !store_q && !amo_q;
      shr_warp_q <= warp_q;
      shr_lane_q <= lead;
      shr_off_q  <= lead_addr[1:0];
      for (integer s = 0; s < WARPS*LANES; s = s + 1)
        if (shr_v_q && {shr_warp_q, shr_lane_q} == s[WW+LW-1:0])
          lbuf_q[s*32 +: 32] <= ld_ext_sh;
      // a shared AMO's old word, as it writes the new one
      for (integer s = 0; s < WARPS*LANES; s = s + 1)
        if (sh_amo_wr && {warp_q, lead} == s[WW+LW-1:0])
          lbuf_q[s*32 +: 32] <= sh_old;
      // the request slot
      if (mem_req_valid_o && mem_req_ready_i) mem_req_valid_o <= 1'b0;
      if (push) begin
        mem_req_valid_o <= 1'b1;
        mem_req_va_o    <= load_fetch ? fetch_va_i : {lead_addr[31:2], 2'b00};
        mem_req_op_o    <= load_fetch ? {1'b0, K_FETCH} : amo_q ? 3'd3 : {2'b00, store_q};
        mem_req_amo_o   <= f5_q;
        mem_req_cmp_o   <= lead_cmp;
        mem_req_wdata_o <= grp_wdata;
        mem_req_be_o    <= (load_fetch || !store_q) ? 4'hF : grp_be;
        q_kind[q_wp_q]  <= load_fetch ? K_FETCH : ((store_q || amo_q) ? K_WRITE : K_READ);
        q_amo[q_wp_q]   <= !load_fetch && amo_q;
        q_warp[q_wp_q]  <= load_fetch ? fetch_warp_i : warp_q;
        q_mask[q_wp_q]  <= group;
        q_f3[q_wp_q]    <= funct3_q;
        q_offs[q_wp_q]  <= grp_offs;
        q_va[q_wp_q]    <= load_fetch ? fetch_va_i : lead_addr;
        q_lane[q_wp_q]  <= load_fetch ? fetch_lane_i : lead;
        q_pc[q_wp_q]    <= load_fetch ? fetch_va_i : pc_q;
        q_safe[q_wp_q]  <= push_safe;
        q_wp_q <= (q_wp_q == MAX_OUT[QW-1:0] - 1'b1) ? {QW{1'b0}} : q_wp_q + 1'b1;
      end
      if (push && !push_safe && !(pop && !q_safe[q_rp_q])) unsafe_q <= unsafe_q + 1'b1;
      if (!(push && !push_safe) && pop && !q_safe[q_rp_q]) unsafe_q <= unsafe_q - 1'b1;
      // learn the page of an access answered without a fault
      if (pop && !mem_rsp_fault_i) begin : learn
        reg hit;
        hit = 1'b0;
        for (integer k = 0; k < KNOWN_PAGES; k = k + 1)
          if ((kp_r_q[k] || kp_w_q[k]) && kp_page_q[k] == q_va[q_rp_q][31:12]) begin
            hit = 1'b1;
            if (h_kind == K_WRITE) kp_w_q[k] <= 1'b1;
            else kp_r_q[k] <= 1'b1;
          end
        if (!hit) begin
          kp_page_q[kp_next_q] <= q_va[q_rp_q][31:12];
          kp_r_q[kp_next_q] <= (h_kind != K_WRITE);
          kp_w_q[kp_next_q] <= (h_kind == K_WRITE);
          kp_next_q <= kp_next_q + 1'b1;
        end
      end
      if (pop) begin
        q_rp_q <= (q_rp_q == MAX_OUT[QW-1:0] - 1'b1) ? {QW{1'b0}} : q_rp_q + 1'b1;
        if ((h_kind == K_READ || (h_kind == K_WRITE && q_amo[q_rp_q])) && !mem_rsp_fault_i)
          for (integer s = 0; s < WARPS*LANES; s = s + 1)
            if (h_warp == s[WW+LW-1:LW] && q_mask[q_rp_q][s % LANES])
              lbuf_q[s*32 +: 32] <=
                ld_extract(mem_rsp_data_i, q_offs[q_rp_q][2*(s % LANES) +: 2], q_f3[q_rp_q]);
      end
      if (push && !pop) q_cnt_q <= q_cnt_q + 1'b1;
      if (pop && !push) q_cnt_q <= q_cnt_q - 1'b1;
      for (integer w = 0; w < WARPS; w = w + 1) begin
        if ((load_data && warp_q == w[WW-1:0]) && !(pop && h_kind != K_FETCH && h_warp == w[WW-1:0]))
          wcnt_q[w*CW +: CW] <= wcnt_q[w*CW +: CW] + 1'b1;
        if (!(load_data && warp_q == w[WW-1:0]) && (pop && h_kind != K_FETCH && h_warp == w[WW-1:0]))
          wcnt_q[w*CW +: CW] <= wcnt_q[w*CW +: CW] - 1'b1;
      end
    end
  end

endmodule

`default_nettype wire
