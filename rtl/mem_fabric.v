`default_nettype none
// Memory fabric: NM masters share device memory (one read and one write per cycle) and the
// host port (one ordered stream of reads and writes). Fixed priority, master 0 highest, decided
// separately for each target so that, for example, a DMA read of device memory and a host-port
// write can both go in one cycle. Responses go back per master, in that master's request order:
// a master's device read waits while the same master still has host reads in flight, because a
// device read would otherwise overtake them (and, with DEV_HANDSHAKE, a master's host read waits
// while it has device reads in flight, for the same reason the other way round).
//
// Device memory comes in two kinds (DEV_HANDSHAKE). 0: the one-cycle block RAM of
// device_memory.v, always ready, a read answered exactly one cycle after its grant; the fabric
// times the answer itself. 1: a memory with any latency and back-pressure (the board's SDRAM
// controller, rtl/sdram_ctrl.v): dm_rd_en_o/dm_wr_en_o are request valids, a request is taken in
// a cycle where the memory's ready is high, and dm_rsp_valid_i marks each read answer, in the
// order the reads were taken, at least one cycle after its read. The fabric records which master
// each read in flight belongs to (a tag FIFO, as for the host port) and stops granting device
// reads while DEV_OUTSTANDING are in flight. A read and a write taken in one cycle are executed
// read first (block RAM's rule); a memory that takes one request per cycle, as the SDRAM
// controller does, keeps "a read sees every write taken before it" by running them in order.
module mem_fabric #(
  parameter integer NM        = 5,          // number of masters
  parameter integer MEM_BYTES = 16777216,   // device memory bytes (power of two)
  parameter integer HOST_OUTSTANDING = 8,   // host-port reads in flight at most (power of two)
  // 1: responses come from flip-flops. Device-memory read data is registered once more before
  // it goes to the masters, so a read answers two cycles after its grant instead of one (block
  // RAM's clock-to-output time is a large part of a cycle on an FPGA); a host-port response is
  // registered once, with its master already decoded from the tag FIFO, so it reaches its
  // master one cycle after the host port gave it. No master's logic then follows block RAM, the
  // tag FIFO's read or the host port directly.
  parameter integer RSP_REG   = 0,
  // 1: the arbitration is registered. Each target's grant for the next cycle is decided from
  // this cycle's requests and held in flip-flops, so m_*_ready_o come from flip-flops (gated
  // only by the master's own valid and the host port's ready) and no master's next-state logic
  // follows the six-way priority search. A request raised in a cycle when its target's grant
  // sits elsewhere is served one cycle later than with ARB_REG 0; a grant stays where it was
  // while nobody else waits (parking), so a master streaming alone is served every cycle.
  // Masters still waiting take turns ahead of the master that was just served, so no master
  // starves another (with ARB_REG 0 a stream of a higher-priority master holds lower ones off).
  parameter integer ARB_REG   = 0,
  // 1: device memory with ready/valid and variable latency (see the header); 0: block RAM.
  parameter integer DEV_HANDSHAKE   = 0,
  parameter integer DEV_OUTSTANDING = 8,   // device reads in flight at most with DEV_HANDSHAKE (power of two)
  parameter integer AW        = $clog2(MEM_BYTES / 4)  // device word-address width (derived)
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  // masters, flattened: master i uses bits [i] or [32*i +: 32]
  input  wire [NM-1:0]    m_rd_valid_i,
  output reg  [NM-1:0]    m_rd_ready_o,
  input  wire [NM*32-1:0] m_rd_addr_i,
  input  wire [NM-1:0]    m_rd_host_i,
  output reg  [NM-1:0]    m_rsp_valid_o,
  output reg  [NM*32-1:0] m_rsp_data_o,
  input  wire [NM-1:0]    m_wr_valid_i,
  output reg  [NM-1:0]    m_wr_ready_o,
  input  wire [NM*32-1:0] m_wr_addr_i,
  input  wire [NM-1:0]    m_wr_host_i,
  input  wire [NM*32-1:0] m_wr_data_i,
  input  wire [NM*4-1:0]  m_wr_be_i,
  // device memory (dm_*_ready_i and dm_rsp_valid_i are used with DEV_HANDSHAKE only)
  output reg              dm_rd_en_o,      // read request (DEV_HANDSHAKE: valid until taken)
  input  wire             dm_rd_ready_i,   // the memory takes the read this cycle
  output reg  [AW-1:0]    dm_rd_addr_o,
  input  wire             dm_rsp_valid_i,  // dm_rd_data_i answers the oldest read in flight
  input  wire [31:0]      dm_rd_data_i,
  output reg              dm_wr_en_o,      // write request (DEV_HANDSHAKE: valid until taken)
  input  wire             dm_wr_ready_i,   // the memory takes the write this cycle
  output reg  [AW-1:0]    dm_wr_addr_o,
  output reg  [31:0]      dm_wr_data_o,
  output reg  [3:0]       dm_wr_be_o,
  // host port
  output reg              host_req_valid_o,
  input  wire             host_req_ready_i,
  output reg              host_req_we_o,
  output reg  [31:0]      host_req_addr_o,
  output reg  [31:0]      host_req_wdata_o,
  output reg  [3:0]       host_req_be_o,
  input  wire             host_rsp_valid_i,
  input  wire [31:0]      host_rsp_data_i
);
  localparam integer MW = (NM > 1) ? $clog2(NM) : 1;        // master-index width
  localparam integer HW = $clog2(HOST_OUTSTANDING);          // tag-FIFO pointer width
  localparam [HW:0]  HOST_FULL = HOST_OUTSTANDING[HW:0];
  localparam integer DW = $clog2(DEV_OUTSTANDING);           // device tag-FIFO pointer width
  localparam [DW:0]  DEV_FULL = DEV_OUTSTANDING[DW:0];
  localparam         HS = DEV_HANDSHAKE != 0;

  // The memory's handshake as the grant logic sees it: block RAM is always ready.
  wire dm_rd_rdy = HS ? dm_rd_ready_i : 1'b1;
  wire dm_wr_rdy = HS ? dm_wr_ready_i : 1'b1;

  // Host reads in flight: which master asked, oldest first.
  reg [MW-1:0] tag_q [0:HOST_OUTSTANDING-1];
  reg [HW-1:0] tag_rd_q, tag_wr_q;
  reg [HW:0]   tag_count_q;
  reg [NM-1:0] host_pending;  // master i has host reads in flight

  // Device-read response, block RAM: one cycle after the grant (two with RSP_REG).
  reg          dev_rsp_valid_q;
  reg [MW-1:0] dev_rsp_master_q;
  // DEV_HANDSHAKE: device reads in flight, which master asked, oldest first; per master a
  // count and its registered "has device reads in flight" (the host-read grants depend on it).
  reg [MW-1:0] dtag_q [0:DEV_OUTSTANDING-1];
  reg [DW-1:0] dtag_rd_q, dtag_wr_q;
  reg [DW:0]   dtag_count_q;
  reg          dtag_full_q, dtag_near_q;
  reg [DW:0]   dev_cnt_q [0:NM-1];
  reg [NM-1:0] dev_pend_q;
  wire         dev_rsp_pop = HS && dm_rsp_valid_i && dtag_count_q != {(DW+1){1'b0}};
  // This cycle's device answer and its master, whichever the kind of memory.
  wire          dev_rsp_now = HS ? dev_rsp_pop : dev_rsp_valid_q;
  wire [MW-1:0] dev_rsp_who = HS ? dtag_q[dtag_rd_q] : dev_rsp_master_q;
  reg [31:0]   dev_rsp2_data_q;
  wire [31:0]   dev_out_data   = (RSP_REG != 0) ? dev_rsp2_data_q   : dm_rd_data_i;
  // The RSP_REG stage's outputs per master (one-hot): a device answer, a host answer.
  reg [NM-1:0] dev_rsp2_oh_q, host_rsp2_oh_q;
  reg [31:0]   host_rsp2_data_q;
  // One response bus per master: a device answer and a host answer never meet at one master.
  // A master's device read waits until its host reads have answered (host_pending), and a host
  // answer comes at least one cycle after its request, which follows the master's device read
  // (RSP_REG adds one cycle to both paths). With DEV_HANDSHAKE a device answer may come any
  // time later, so a master's host read also waits until its device reads have answered.

  integer i;
  reg          dev_rd_found, dev_wr_found, host_wr_found, host_rd_found;
  reg [MW-1:0] dev_rd_sel, dev_wr_sel, host_wr_sel, host_rd_sel;
  reg          host_rd_go, host_wr_go;
  reg          dev_rd_go, dev_wr_go;  // the device memory takes the request

  wire [MW-1:0] host_rsp_master = tag_q[tag_rd_q];

  // Host reads in flight per master (kept as counters rather than searched for in the tag
  // FIFO, which would cost a scan every cycle).
  reg [HW:0] host_cnt_q [0:NM-1];
  // Registered forms of "master i has host reads in flight" and "the tag FIFO is full": the
  // grants depend on them, and every master's next-state logic depends on the grants, so they
  // come straight from flip-flops instead of from counter compares (board timing).
  reg [NM-1:0] host_pend_q;
  reg          tag_full_q;
  wire [HW:0]  tag_count_next;
  integer m;  // loop index of the clocked block (i belongs to the combinational ones)
  reg [NM-1:0] dev_pending;  // master i has device reads in flight (DEV_HANDSHAKE only)
  always @(*) begin
    for (i = 0; i < NM; i = i + 1) begin
      host_pending[i] = host_pend_q[i];
      dev_pending[i]  = HS && dev_pend_q[i];
    end
  end

  // Registered arbitration (ARB_REG 1): each target's grant for this cycle, as a master index
  // and one-hot. The host port has one grant, for a write or for a read.
  reg          drd_v_q, dwr_v_q, hst_v_q, hst_we_q;
  reg [MW-1:0] drd_sel_q, dwr_sel_q, hst_sel_q;
  reg [NM-1:0] drd_oh_q, dwr_oh_q, hwr_oh_q, hrd_oh_q;
  reg          tag_near_q;  // the tag FIFO holds HOST_OUTSTANDING - 1 reads

  // Priority picks, lowest index first (ARB_REG 0), or this cycle's registered grants (1).
  always @(*) begin
    dev_rd_found = 1'b0;  dev_rd_sel = {MW{1'b0}};
    dev_wr_found = 1'b0;  dev_wr_sel = {MW{1'b0}};
    host_wr_found = 1'b0; host_wr_sel = {MW{1'b0}};
    host_rd_found = 1'b0; host_rd_sel = {MW{1'b0}};
    for (i = NM - 1; i >= 0; i = i - 1) begin
      if (m_rd_valid_i[i] && !m_rd_host_i[i] && !host_pending[i]) begin
        dev_rd_found = 1'b1; dev_rd_sel = i[MW-1:0];
      end
      if (m_rd_valid_i[i] && m_rd_host_i[i] && !dev_pending[i]) begin
        host_rd_found = 1'b1; host_rd_sel = i[MW-1:0];
      end
      if (m_wr_valid_i[i] && !m_wr_host_i[i]) begin
        dev_wr_found = 1'b1; dev_wr_sel = i[MW-1:0];
      end
      if (m_wr_valid_i[i] && m_wr_host_i[i]) begin
        host_wr_found = 1'b1; host_wr_sel = i[MW-1:0];
      end
    end
    if (ARB_REG != 0) begin
      // The grant was decided last cycle; it takes effect if its master still asks for that
      // target. (The decision made sure of the rules below: tag-FIFO room, host reads.)
      dev_rd_found  = drd_v_q && m_rd_valid_i[drd_sel_q] && !m_rd_host_i[drd_sel_q];
      dev_rd_sel    = drd_sel_q;
      dev_wr_found  = dwr_v_q && m_wr_valid_i[dwr_sel_q] && !m_wr_host_i[dwr_sel_q];
      dev_wr_sel    = dwr_sel_q;
      host_wr_found = hst_v_q && hst_we_q && m_wr_valid_i[hst_sel_q] && m_wr_host_i[hst_sel_q];
      host_wr_sel   = hst_sel_q;
      // A master's host read never overtakes its own host write raised beside it.
      host_rd_found = hst_v_q && !hst_we_q && m_rd_valid_i[hst_sel_q] && m_rd_host_i[hst_sel_q] &&
                      !(m_wr_valid_i[hst_sel_q] && m_wr_host_i[hst_sel_q]);
      host_rd_sel   = hst_sel_q;
    end else if (HS) begin
      // Device reads also need room in the device tag FIFO (ARB_REG 1 grants only with room).
      dev_rd_found = dev_rd_found && !dtag_full_q;
    end
    // One host-port request per cycle; writes first so that a master's write is never
    // overtaken by its own later read. Reads also need room in the tag FIFO.
    host_wr_go = host_wr_found && host_req_ready_i;
    host_rd_go = !host_wr_found && host_rd_found && host_req_ready_i && !tag_full_q;
    dev_rd_go  = dev_rd_found && dm_rd_rdy;
    dev_wr_go  = dev_wr_found && dm_wr_rdy;
  end

  // ARB_REG 1: next cycle's grants, from this cycle's requests. A request waits if it is not
  // being accepted now; waiting requests are served round robin, starting after the master the
  // target serves now; with nobody waiting the grant stays (a master streaming alone is served
  // every cycle). The rules of ARB_REG 0 hold one cycle ahead, conservatively: a device read
  // needs no host read of its master in flight (nor one accepted now), a host read needs room
  // in the tag FIFO after this cycle's read. With DEV_HANDSHAKE, a device request presented
  // and not taken by the memory keeps its grant (the memory sees it unchanged until it takes
  // it), a device read needs room in the device tag FIFO after this cycle's read, and a host
  // read needs no device read of its master in flight.
  reg [NM-1:0] drd_wait, dwr_wait, hwr_wait, hrd_wait;
  reg          host_room, drd_keep, hst_keep;
  reg          dev_room, drd_hold, dwr_hold, hrd_keep_ok;
  reg          drd_v_d, dwr_v_d, hst_v_d, hst_we_d;
  reg [MW-1:0] drd_sel_d, dwr_sel_d, hst_sel_d;
  reg [MW:0]   pick_drd, pick_dwr, pick_hwr, pick_hrd;

  // Round robin: the first set bit of v after position last, wrapping; {found, index}. Written
  // as "the lowest set bit above last, else the lowest set bit" so that it unrolls into a
  // priority encoder over constant compares: computing (last + k) mod NM with integer
  // arithmetic made synthesis build 32-bit carry chains and index muxes here, the 85F's
  // critical path (hst_sel_q to the next grant, 21 ns).
  function automatic [MW:0] rr_pick(input [NM-1:0] v, input [MW-1:0] last);
    integer j;
    reg [MW-1:0] jj;
    begin
      rr_pick = {1'b0, {MW{1'b0}}};
      for (j = NM - 1; j >= 0; j = j - 1) begin
        jj = j[MW-1:0];
        if (v[j]) rr_pick = {1'b1, jj};
      end
      for (j = NM - 1; j >= 0; j = j - 1) begin
        jj = j[MW-1:0];
        if (v[j] && jj > last) rr_pick = {1'b1, jj};
      end
    end
  endfunction

  always @(*) begin
    drd_wait  = m_rd_valid_i & ~m_rd_host_i & ~drd_oh_q & ~host_pend_q;
    dwr_wait  = m_wr_valid_i & ~m_wr_host_i & ~dwr_oh_q;
    hwr_wait  = m_wr_valid_i &  m_wr_host_i & ~(hwr_oh_q & {NM{host_req_ready_i}});
    hrd_wait  = m_rd_valid_i &  m_rd_host_i & ~(hrd_oh_q & {NM{host_req_ready_i}} &
                                                 ~(m_wr_valid_i & m_wr_host_i)) & ~dev_pending;
    host_room = !tag_full_q && !(host_rd_go && tag_near_q);
    dev_room  = !HS || (!dtag_full_q && !(dev_rd_go && dtag_near_q));
    drd_hold  = dev_rd_found && !dm_rd_rdy;
    dwr_hold  = dev_wr_found && !dm_wr_rdy;
    pick_drd  = rr_pick(drd_wait, drd_sel_q);
    pick_dwr  = rr_pick(dwr_wait, dwr_sel_q);
    pick_hwr  = rr_pick(hwr_wait, hst_sel_q);
    pick_hrd  = rr_pick(hrd_wait, hst_sel_q);
    drd_keep  = drd_v_q && !host_pend_q[drd_sel_q] && !(host_rd_go && host_rd_sel == drd_sel_q);
    // A parked host-read grant stays only while its master could still use it.
    hrd_keep_ok = !dev_pending[hst_sel_q] && !(HS && dev_rd_go && dev_rd_sel == hst_sel_q);
    hst_keep  = hst_v_q && (hst_we_q || (host_room && hrd_keep_ok));

    drd_v_d = drd_hold || (dev_room && (pick_drd[MW] || drd_keep));
    drd_sel_d = (pick_drd[MW] && !drd_hold) ? pick_drd[MW-1:0] : drd_sel_q;
    dwr_v_d = dwr_hold || pick_dwr[MW] || dwr_v_q;
    dwr_sel_d = (pick_dwr[MW] && !dwr_hold) ? pick_dwr[MW-1:0] : dwr_sel_q;
    if (pick_hwr[MW]) begin
      hst_v_d = 1'b1; hst_we_d = 1'b1; hst_sel_d = pick_hwr[MW-1:0];
    end else if (pick_hrd[MW] && host_room) begin
      hst_v_d = 1'b1; hst_we_d = 1'b0; hst_sel_d = pick_hrd[MW-1:0];
    end else begin
      hst_v_d = hst_keep; hst_we_d = hst_we_q; hst_sel_d = hst_sel_q;
    end
  end

  always @(*) begin
    m_rd_ready_o = {NM{1'b0}};
    m_wr_ready_o = {NM{1'b0}};
    if (ARB_REG != 0) begin
      // From the one-hot grant flip-flops, the master's own request and the host port's ready.
      m_rd_ready_o = m_rd_valid_i & ((drd_oh_q & ~m_rd_host_i & {NM{dm_rd_rdy}}) |
                                     (hrd_oh_q & m_rd_host_i & {NM{host_req_ready_i}} &
                                      ~(m_wr_valid_i & m_wr_host_i)));
      m_wr_ready_o = m_wr_valid_i & ((dwr_oh_q & ~m_wr_host_i & {NM{dm_wr_rdy}}) |
                                     (hwr_oh_q & m_wr_host_i & {NM{host_req_ready_i}}));
    end else begin
      if (dev_rd_go)  m_rd_ready_o[dev_rd_sel] = 1'b1;
      if (host_rd_go) m_rd_ready_o[host_rd_sel] = 1'b1;
      if (dev_wr_go)  m_wr_ready_o[dev_wr_sel] = 1'b1;
      if (host_wr_go) m_wr_ready_o[host_wr_sel] = 1'b1;
    end

    dm_rd_en_o   = dev_rd_found;
    dm_rd_addr_o = m_rd_addr_i[32*dev_rd_sel + 2 +: AW];
    dm_wr_en_o   = dev_wr_found;
    dm_wr_addr_o = m_wr_addr_i[32*dev_wr_sel + 2 +: AW];
    dm_wr_data_o = m_wr_data_i[32*dev_wr_sel +: 32];
    dm_wr_be_o   = m_wr_be_i[4*dev_wr_sel +: 4];

    host_req_valid_o = host_wr_found || (host_rd_found && !tag_full_q);
    host_req_we_o    = host_wr_found;
    host_req_addr_o  = host_wr_found ? {m_wr_addr_i[32*host_wr_sel + 2 +: 30], 2'b00}
                                     : {m_rd_addr_i[32*host_rd_sel + 2 +: 30], 2'b00};
    host_req_wdata_o = m_wr_data_i[32*host_wr_sel +: 32];
    host_req_be_o    = host_wr_found ? m_wr_be_i[4*host_wr_sel +: 4] : 4'hF;
  end

  // Responses: device memory and the host port may answer different masters in one cycle.
  always @(*) begin
    m_rsp_valid_o = {NM{1'b0}};
    m_rsp_data_o  = {NM{dev_out_data}};
    if (RSP_REG != 0) begin
      m_rsp_valid_o = dev_rsp2_oh_q | host_rsp2_oh_q;
      for (i = 0; i < NM; i = i + 1)
        if (host_rsp2_oh_q[i]) m_rsp_data_o[32*i +: 32] = host_rsp2_data_q;
    end else for (i = 0; i < NM; i = i + 1) begin
      if (host_rsp_valid_i && tag_count_q != 0 && host_rsp_master == i[MW-1:0]) begin
        m_rsp_valid_o[i] = 1'b1;
        m_rsp_data_o[32*i +: 32] = host_rsp_data_i;
      end
      if (dev_rsp_now && dev_rsp_who == i[MW-1:0]) m_rsp_valid_o[i] = 1'b1;
    end
  end

  wire host_rsp_pop = host_rsp_valid_i && (tag_count_q != 0);
  assign tag_count_next = tag_count_q + {{HW{1'b0}}, host_rd_go} - {{HW{1'b0}}, host_rsp_pop};
  reg [HW:0] host_cnt_next [0:NM-1];
  always @(*) begin
    for (i = 0; i < NM; i = i + 1)
      host_cnt_next[i] = host_cnt_q[i]
                         + {{HW{1'b0}}, host_rd_go && host_rd_sel == i[MW-1:0]}
                         - {{HW{1'b0}}, host_rsp_pop && host_rsp_master == i[MW-1:0]};
  end

  // DEV_HANDSHAKE bookkeeping: the device tag FIFO and the per-master device-read counts.
  wire        dtag_push = HS && dev_rd_go;
  wire [DW:0] dtag_count_next = dtag_count_q + {{DW{1'b0}}, dtag_push}
                                             - {{DW{1'b0}}, dev_rsp_pop};
  reg  [DW:0] dev_cnt_next [0:NM-1];
  always @(*) begin
    for (i = 0; i < NM; i = i + 1)
      dev_cnt_next[i] = dev_cnt_q[i]
                        + {{DW{1'b0}}, dtag_push && dev_rd_sel == i[MW-1:0]}
                        - {{DW{1'b0}}, dev_rsp_pop && dev_rsp_who == i[MW-1:0]};
  end

  // Data of the RSP_REG stage: no reset needed, the one-hot valids qualify it.
  always @(posedge clk_i) begin
    dev_rsp2_data_q  <= dm_rd_data_i;
    host_rsp2_data_q <= host_rsp_data_i;
  end

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      dev_rsp_valid_q  <= 1'b0;
      dev_rsp_master_q <= {MW{1'b0}};
      dev_rsp2_oh_q     <= {NM{1'b0}};
      host_rsp2_oh_q    <= {NM{1'b0}};
      tag_rd_q         <= {HW{1'b0}};
      tag_wr_q         <= {HW{1'b0}};
      tag_count_q      <= {(HW+1){1'b0}};
      tag_full_q       <= 1'b0;
      tag_near_q       <= 1'b0;
      host_pend_q      <= {NM{1'b0}};
      drd_v_q <= 1'b0; dwr_v_q <= 1'b0; hst_v_q <= 1'b0; hst_we_q <= 1'b0;
      drd_sel_q <= {MW{1'b0}}; dwr_sel_q <= {MW{1'b0}}; hst_sel_q <= {MW{1'b0}};
      drd_oh_q <= {NM{1'b0}}; dwr_oh_q <= {NM{1'b0}}; hwr_oh_q <= {NM{1'b0}};
      hrd_oh_q <= {NM{1'b0}};
      for (m = 0; m < NM; m = m + 1) host_cnt_q[m] <= {(HW+1){1'b0}};
      dtag_rd_q        <= {DW{1'b0}};
      dtag_wr_q        <= {DW{1'b0}};
      dtag_count_q     <= {(DW+1){1'b0}};
      dtag_full_q      <= 1'b0;
      dtag_near_q      <= 1'b0;
      dev_pend_q       <= {NM{1'b0}};
      for (m = 0; m < NM; m = m + 1) dev_cnt_q[m] <= {(DW+1){1'b0}};
    end else begin
      dev_rsp_valid_q  <= !HS && dev_rd_found;
      dev_rsp_master_q <= dev_rd_sel;
      for (m = 0; m < NM; m = m + 1) begin
        dev_rsp2_oh_q[m]  <= dev_rsp_now && dev_rsp_who == m[MW-1:0];
        host_rsp2_oh_q[m] <= host_rsp_pop && host_rsp_master == m[MW-1:0];
      end
      if (HS) begin
        if (dtag_push) begin
          dtag_q[dtag_wr_q] <= dev_rd_sel;
          dtag_wr_q         <= dtag_wr_q + 1'b1;
        end
        if (dev_rsp_pop) dtag_rd_q <= dtag_rd_q + 1'b1;
        dtag_count_q <= dtag_count_next;
        dtag_full_q  <= (dtag_count_next == DEV_FULL);
        dtag_near_q  <= (dtag_count_next == DEV_FULL - 1'b1);
        if (dtag_push || dev_rsp_pop) for (m = 0; m < NM; m = m + 1) begin
          dev_cnt_q[m]  <= dev_cnt_next[m];
          dev_pend_q[m] <= (dev_cnt_next[m] != {(DW+1){1'b0}});
        end
      end
      if (host_rd_go) begin
        tag_q[tag_wr_q] <= host_rd_sel;
        tag_wr_q        <= tag_wr_q + 1'b1;
      end
      if (host_rsp_pop) tag_rd_q <= tag_rd_q + 1'b1;
      tag_count_q <= tag_count_next;
      tag_full_q  <= (tag_count_next == HOST_FULL);
      tag_near_q  <= (tag_count_next == HOST_FULL - 1'b1);
      if (ARB_REG != 0) begin
        drd_v_q <= drd_v_d; drd_sel_q <= drd_sel_d;
        dwr_v_q <= dwr_v_d; dwr_sel_q <= dwr_sel_d;
        hst_v_q <= hst_v_d; hst_we_q <= hst_we_d; hst_sel_q <= hst_sel_d;
        for (m = 0; m < NM; m = m + 1) begin
          drd_oh_q[m] <= drd_v_d && drd_sel_d == m[MW-1:0];
          dwr_oh_q[m] <= dwr_v_d && dwr_sel_d == m[MW-1:0];
          hwr_oh_q[m] <= hst_v_d && hst_we_d && hst_sel_d == m[MW-1:0];
          hrd_oh_q[m] <= hst_v_d && !hst_we_d && hst_sel_d == m[MW-1:0];
        end
      end
      if (host_rd_go || host_rsp_pop) for (m = 0; m < NM; m = m + 1) begin
        host_cnt_q[m]  <= host_cnt_next[m];
        host_pend_q[m] <= (host_cnt_next[m] != {(HW+1){1'b0}});
      end
    end
  end
`ifdef FORMAL
  // Properties (tests/formal/mem_fabric.sby, docs/formal.md). The masters', the device memory's
  // and the host port's promises are assumed when the fabric is proven alone (FORMAL_FABRIC).
`ifdef FORMAL_FABRIC
`define FABRIC_ASSUME assume
`else
`define FABRIC_ASSUME assert
`endif
  localparam integer F_LAT = 3;  // memory and host port: ready, and an answer, within 3 cycles
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) `FABRIC_ASSUME(!rst_ni);

  // What a memory answers for a word address: the address, tagged with the target, so that an
  // answer names the read it belongs to.
  function automatic [31:0] f_dev_word(input [AW-1:0] a);
    f_dev_word = {2'b01, {(30 - AW){1'b0}}, a};
  endfunction
  function automatic [31:0] f_host_word(input [31:0] a);
    f_host_word = {2'b10, a[31:2]};
  endfunction

  // Addresses inside the first 256 bytes (device memory and host alike): the answers' routing
  // and order do not depend on the address, and the bounded check reaches its depth in time.
  always @(*) if (f_past_valid && rst_ni) begin
    `FABRIC_ASSUME((m_rd_addr_i & {NM{32'hFFFF_FF00}}) == {NM*32{1'b0}});
    `FABRIC_ASSUME((m_wr_addr_i & {NM{32'hFFFF_FF00}}) == {NM*32{1'b0}});
  end

  // Masters hold a request and its payload until it is taken.
  genvar fm;
  generate
    for (fm = 0; fm < NM; fm = fm + 1) begin : g_f_master
      always @(posedge clk_i) if (f_past_valid && rst_ni && $past(rst_ni)) begin
        if ($past(m_rd_valid_i[fm] && !m_rd_ready_o[fm]))
          `FABRIC_ASSUME(m_rd_valid_i[fm] && $stable(m_rd_addr_i[32*fm +: 32]) && $stable(m_rd_host_i[fm]));
        if ($past(m_wr_valid_i[fm] && !m_wr_ready_o[fm]))
          `FABRIC_ASSUME(m_wr_valid_i[fm] && $stable(m_wr_addr_i[32*fm +: 32]) && $stable(m_wr_host_i[fm]) &&
                         $stable(m_wr_data_i[32*fm +: 32]) && $stable(m_wr_be_i[4*fm +: 4]));
      end
    end
  endgenerate

  // Device memory: block RAM answers the read of the cycle before; a handshake memory answers
  // the reads it took in order, each within F_LAT cycles, and takes a request within F_LAT.
  localparam integer F_QN = 4;  // reads a modelled memory can hold (>= the fabric's limits)
  reg [AW-1:0] f_dm_last;
  reg [AW-1:0] f_dq [0:F_QN-1];
  reg [2:0]    f_dq_n = 3'd0;
  reg [2:0]    f_dq_age, f_dm_wait;
  wire         f_dm_take = HS && dm_rd_en_o && dm_rd_rdy;
  wire         f_dm_pop  = HS && dm_rsp_valid_i;
  integer f_i1, f_i2, f_i3;  // one loop index per process
  always @(posedge clk_i) begin
    f_dm_last <= dm_rd_addr_o;
    if (!rst_ni) begin
      f_dq_n <= 3'd0;
      f_dq_age <= 3'd0;
      f_dm_wait <= 3'd0;
    end else begin
      if (f_dm_pop) for (f_i1 = 0; f_i1 < F_QN - 1; f_i1 = f_i1 + 1) f_dq[f_i1] <= f_dq[f_i1 + 1];
      if (f_dm_take) f_dq[f_dq_n - {2'b00, f_dm_pop}] <= dm_rd_addr_o;
      f_dq_n <= f_dq_n + {2'b00, f_dm_take} - {2'b00, f_dm_pop};
      f_dq_age <= (f_dm_pop || f_dq_n == 3'd0) ? 3'd0 : f_dq_age + 3'd1;
      f_dm_wait <= ((dm_rd_en_o && !dm_rd_rdy) || (dm_wr_en_o && !dm_wr_rdy)) ? f_dm_wait + 3'd1 : 3'd0;
    end
  end
  always @(*) if (f_past_valid && rst_ni) begin
    if (!HS) `FABRIC_ASSUME(dm_rd_data_i == f_dev_word(f_dm_last));
    if (HS && dm_rsp_valid_i) `FABRIC_ASSUME(f_dq_n != 3'd0 && dm_rd_data_i == f_dev_word(f_dq[0]));
    if (HS && f_dq_n != 3'd0 && f_dq_age >= F_LAT - 1) `FABRIC_ASSUME(dm_rsp_valid_i);
    if (HS && f_dm_wait >= F_LAT - 1) `FABRIC_ASSUME(dm_rd_ready_i && dm_wr_ready_i);
    assert(f_dq_n <= F_QN);
  end

  // Host port: reads answered in order, each within F_LAT cycles; a request taken within F_LAT.
  reg [31:0] f_hq [0:F_QN-1];
  reg [2:0]  f_hq_n = 3'd0;
  reg [2:0]  f_hq_age, f_h_wait;
  wire       f_h_take = host_req_valid_o && host_req_ready_i && !host_req_we_o;
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_hq_n <= 3'd0;
      f_hq_age <= 3'd0;
      f_h_wait <= 3'd0;
    end else begin
      if (host_rsp_valid_i) for (f_i2 = 0; f_i2 < F_QN - 1; f_i2 = f_i2 + 1) f_hq[f_i2] <= f_hq[f_i2 + 1];
      if (f_h_take) f_hq[f_hq_n - {2'b00, host_rsp_valid_i}] <= host_req_addr_o;
      f_hq_n <= f_hq_n + {2'b00, f_h_take} - {2'b00, host_rsp_valid_i};
      f_hq_age <= (host_rsp_valid_i || f_hq_n == 3'd0) ? 3'd0 : f_hq_age + 3'd1;
      f_h_wait <= (host_req_valid_o && !host_req_ready_i) ? f_h_wait + 3'd1 : 3'd0;
    end
  end
  always @(*) if (f_past_valid && rst_ni) begin
    if (host_rsp_valid_i) `FABRIC_ASSUME(f_hq_n != 3'd0 && host_rsp_data_i == f_host_word(f_hq[0]));
    if (f_hq_n != 3'd0 && f_hq_age >= F_LAT - 1) `FABRIC_ASSUME(host_rsp_valid_i);
    if (f_h_wait >= F_LAT - 1) `FABRIC_ASSUME(host_req_ready_i);
    assert(f_hq_n <= F_QN);
  end

  // One master, f_m, chosen freely: the answers it gets are exactly the answers to its reads,
  // in the order it made them: none lost (each within a bound), none twice, none of another
  // master's. f_q holds what it is owed, oldest first.
  (* anyconst *) reg [MW-1:0] f_m;
  always @(*) `FABRIC_ASSUME(f_m < NM);
  localparam integer F_MN = 6;
  reg [31:0] f_q [0:F_MN-1];
  reg [2:0]  f_n = 3'd0;
  reg [4:0]  f_age, f_rd_wait, f_wr_wait;
  wire       f_rd_go  = m_rd_valid_i[f_m] && m_rd_ready_o[f_m];
  wire       f_rsp    = m_rsp_valid_o[f_m];
  wire [31:0] f_rd_a  = m_rd_addr_i[32*f_m +: 32];
  wire [31:0] f_owed  = m_rd_host_i[f_m] ? f_host_word({f_rd_a[31:2], 2'b00}) : f_dev_word(f_rd_a[2 +: AW]);
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_n <= 3'd0;
      f_age <= 5'd0;
      f_rd_wait <= 5'd0;
      f_wr_wait <= 5'd0;
    end else begin
      if (f_rsp) for (f_i3 = 0; f_i3 < F_MN - 1; f_i3 = f_i3 + 1) f_q[f_i3] <= f_q[f_i3 + 1];
      if (f_rd_go) f_q[f_n - {2'b00, f_rsp}] <= f_owed;
      f_n <= f_n + {2'b00, f_rd_go} - {2'b00, f_rsp};
      f_age <= (f_rsp || f_n == 3'd0) ? 5'd0 : f_age + 5'd1;
      f_rd_wait <= (m_rd_valid_i[f_m] && !m_rd_ready_o[f_m]) ? f_rd_wait + 5'd1 : 5'd0;
      f_wr_wait <= (m_wr_valid_i[f_m] && !m_wr_ready_o[f_m]) ? f_wr_wait + 5'd1 : 5'd0;
    end
  end
  localparam [4:0] F_RSP_MAX = 5'd12;   // oldest read of a master answered within this
  localparam [4:0] F_GRANT_MAX = 5'd16; // a waiting request taken within this
  always @(*) if (f_past_valid && rst_ni) begin
    if (f_rsp) assert(f_n != 3'd0 && m_rsp_data_o[32*f_m +: 32] == f_q[0]);
    assert(f_n < F_MN);
    assert(f_age < F_RSP_MAX);
    // Served within a bound: every master with registered round-robin arbitration; with fixed
    // priority only master 0 (a stream from a higher-priority master holds lower ones off).
    if (ARB_REG != 0 || f_m == {MW{1'b0}}) assert(f_rd_wait < F_GRANT_MAX && f_wr_wait < F_GRANT_MAX);
  end

  // A write taken from f_m goes to its target once, with its address, data and byte enables.
  wire [31:0] f_wr_a = m_wr_addr_i[32*f_m +: 32];
  always @(*) if (f_past_valid && rst_ni && m_wr_valid_i[f_m] && m_wr_ready_o[f_m]) begin
    if (m_wr_host_i[f_m])
      assert(host_req_valid_o && host_req_ready_i && host_req_we_o && host_req_addr_o == {f_wr_a[31:2], 2'b00} &&
             host_req_wdata_o == m_wr_data_i[32*f_m +: 32] && host_req_be_o == m_wr_be_i[4*f_m +: 4]);
    else
      assert(dm_wr_en_o && dm_wr_rdy && dm_wr_addr_o == f_wr_a[2 +: AW] &&
             dm_wr_data_o == m_wr_data_i[32*f_m +: 32] && dm_wr_be_o == m_wr_be_i[4*f_m +: 4]);
  end
  // Every write the memory or the host port takes is some master's taken write.
  always @(*) if (f_past_valid && rst_ni) begin
    if (dm_wr_en_o && dm_wr_rdy) assert((m_wr_valid_i & m_wr_ready_o & ~m_wr_host_i) != {NM{1'b0}});
    if (host_req_valid_o && host_req_ready_i && host_req_we_o)
      assert((m_wr_valid_i & m_wr_ready_o & m_wr_host_i) != {NM{1'b0}});
  end

  // Reachability: f_m gets a host answer and a device answer in one run, with two reads owed.
  reg f_got_host = 1'b0, f_got_dev = 1'b0;
  always @(posedge clk_i) if (rst_ni && f_rsp) begin
    if (f_q[0][31:30] == 2'b10) f_got_host <= 1'b1;
    if (f_q[0][31:30] == 2'b01) f_got_dev <= 1'b1;
  end
  always @(*) if (f_past_valid && rst_ni) begin
    cover(f_got_host && f_got_dev);
    cover(f_n == 3'd2 && f_rsp);
  end
`undef FABRIC_ASSUME
`endif
endmodule
