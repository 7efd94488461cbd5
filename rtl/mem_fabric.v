`default_nettype none
// Memory fabric: NM masters share device memory (one read and one write per cycle) and the
// host port (one ordered stream of reads and writes). Fixed priority, master 0 highest, decided
// separately for each target so that, for example, a DMA read of device memory and a host-port
// write can both go in one cycle. Responses go back per master, in that master's request order:
// a master's device read waits while the same master still has host reads in flight, because a
// device read would otherwise overtake them.
module mem_fabric #(
  parameter integer NM        = 5,          // number of masters
  parameter integer MEM_BYTES = 16777216,   // device memory bytes (power of two)
  parameter integer HOST_OUTSTANDING = 8,   // host-port reads in flight at most (power of two)
  // 1: device-memory read data is registered once more before it goes to the masters, so a
  // read answers two cycles after its grant instead of one. Block RAM's clock-to-output time
  // is a large part of a cycle on an FPGA; with the stage no master's logic follows it directly.
  parameter integer RSP_REG   = 0,
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
  // device memory
  output reg              dm_rd_en_o,
  output reg  [AW-1:0]    dm_rd_addr_o,
  input  wire [31:0]      dm_rd_data_i,
  output reg              dm_wr_en_o,
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

  // Host reads in flight: which master asked, oldest first.
  reg [MW-1:0] tag_q [0:HOST_OUTSTANDING-1];
  reg [HW-1:0] tag_rd_q, tag_wr_q;
  reg [HW:0]   tag_count_q;
  reg [NM-1:0] host_pending;  // master i has host reads in flight

  // Device-read response: one cycle after the grant (two with RSP_REG).
  reg          dev_rsp_valid_q;
  reg [MW-1:0] dev_rsp_master_q;
  reg          dev_rsp2_valid_q;   // the RSP_REG stage
  reg [MW-1:0] dev_rsp2_master_q;
  reg [31:0]   dev_rsp2_data_q;
  wire          dev_out_valid  = (RSP_REG != 0) ? dev_rsp2_valid_q  : dev_rsp_valid_q;
  wire [MW-1:0] dev_out_master = (RSP_REG != 0) ? dev_rsp2_master_q : dev_rsp_master_q;
  wire [31:0]   dev_out_data   = (RSP_REG != 0) ? dev_rsp2_data_q   : dm_rd_data_i;
  // With RSP_REG a device read is still on its way for one cycle after the memory answered;
  // the same master's host read must not start then, or a fast host answer could arrive in the
  // cycle of the device answer (one response bus per master).
  reg [NM-1:0] dev_in_flight;

  integer i;
  reg          dev_rd_found, dev_wr_found, host_wr_found, host_rd_found;
  reg [MW-1:0] dev_rd_sel, dev_wr_sel, host_wr_sel, host_rd_sel;
  reg          host_rd_go, host_wr_go;

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
  always @(*) begin
    for (i = 0; i < NM; i = i + 1) begin
      host_pending[i] = host_pend_q[i];
      dev_in_flight[i] = (RSP_REG != 0) && dev_rsp_valid_q && (dev_rsp_master_q == i[MW-1:0]);
    end
  end

  // Priority picks, lowest index first.
  always @(*) begin
    dev_rd_found = 1'b0;  dev_rd_sel = {MW{1'b0}};
    dev_wr_found = 1'b0;  dev_wr_sel = {MW{1'b0}};
    host_wr_found = 1'b0; host_wr_sel = {MW{1'b0}};
    host_rd_found = 1'b0; host_rd_sel = {MW{1'b0}};
    for (i = NM - 1; i >= 0; i = i - 1) begin
      if (m_rd_valid_i[i] && !m_rd_host_i[i] && !host_pending[i]) begin
        dev_rd_found = 1'b1; dev_rd_sel = i[MW-1:0];
      end
      if (m_rd_valid_i[i] && m_rd_host_i[i] && !dev_in_flight[i]) begin
        host_rd_found = 1'b1; host_rd_sel = i[MW-1:0];
      end
      if (m_wr_valid_i[i] && !m_wr_host_i[i]) begin
        dev_wr_found = 1'b1; dev_wr_sel = i[MW-1:0];
      end
      if (m_wr_valid_i[i] && m_wr_host_i[i]) begin
        host_wr_found = 1'b1; host_wr_sel = i[MW-1:0];
      end
    end
    // One host-port request per cycle; writes first so that a master's write is never
    // overtaken by its own later read. Reads also need room in the tag FIFO.
    host_wr_go = host_wr_found && host_req_ready_i;
    host_rd_go = !host_wr_found && host_rd_found && host_req_ready_i && !tag_full_q;
  end

  always @(*) begin
    m_rd_ready_o = {NM{1'b0}};
    m_wr_ready_o = {NM{1'b0}};
    if (dev_rd_found) m_rd_ready_o[dev_rd_sel] = 1'b1;
    if (host_rd_go)   m_rd_ready_o[host_rd_sel] = 1'b1;
    if (dev_wr_found) m_wr_ready_o[dev_wr_sel] = 1'b1;
    if (host_wr_go)   m_wr_ready_o[host_wr_sel] = 1'b1;

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
    for (i = 0; i < NM; i = i + 1) begin
      if (host_rsp_valid_i && tag_count_q != 0 && host_rsp_master == i[MW-1:0]) begin
        m_rsp_valid_o[i] = 1'b1;
        m_rsp_data_o[32*i +: 32] = host_rsp_data_i;
      end
      if (dev_out_valid && dev_out_master == i[MW-1:0]) m_rsp_valid_o[i] = 1'b1;
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

  // Data of the RSP_REG stage: no reset needed, dev_rsp2_valid_q qualifies it.
  always @(posedge clk_i) dev_rsp2_data_q <= dm_rd_data_i;

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      dev_rsp_valid_q  <= 1'b0;
      dev_rsp_master_q <= {MW{1'b0}};
      dev_rsp2_valid_q  <= 1'b0;
      dev_rsp2_master_q <= {MW{1'b0}};
      tag_rd_q         <= {HW{1'b0}};
      tag_wr_q         <= {HW{1'b0}};
      tag_count_q      <= {(HW+1){1'b0}};
      tag_full_q       <= 1'b0;
      host_pend_q      <= {NM{1'b0}};
      for (m = 0; m < NM; m = m + 1) host_cnt_q[m] <= {(HW+1){1'b0}};
    end else begin
      dev_rsp_valid_q  <= dev_rd_found;
      dev_rsp_master_q <= dev_rd_sel;
      dev_rsp2_valid_q  <= dev_rsp_valid_q;
      dev_rsp2_master_q <= dev_rsp_master_q;
      if (host_rd_go) begin
        tag_q[tag_wr_q] <= host_rd_sel;
        tag_wr_q        <= tag_wr_q + 1'b1;
      end
      if (host_rsp_pop) tag_rd_q <= tag_rd_q + 1'b1;
      tag_count_q <= tag_count_next;
      tag_full_q  <= (tag_count_next == HOST_FULL);
      if (host_rd_go || host_rsp_pop) for (m = 0; m < NM; m = m + 1) begin
        host_cnt_q[m]  <= host_cnt_next[m];
        host_pend_q[m] <= (host_cnt_next[m] != {(HW+1){1'b0}});
      end
    end
  end
endmodule
