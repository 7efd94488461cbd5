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

  // Device-read response: one cycle after the grant.
  reg          dev_rsp_valid_q;
  reg [MW-1:0] dev_rsp_master_q;

  integer i;
  reg          dev_rd_found, dev_wr_found, host_wr_found, host_rd_found;
  reg [MW-1:0] dev_rd_sel, dev_wr_sel, host_wr_sel, host_rd_sel;
  reg          host_rd_go, host_wr_go;

  wire [MW-1:0] host_rsp_master = tag_q[tag_rd_q];

  // Host reads in flight per master (kept as counters rather than searched for in the tag
  // FIFO, which would cost a scan every cycle).
  reg [HW:0] host_cnt_q [0:NM-1];
  integer m;  // loop index of the clocked block (i belongs to the combinational ones)
  always @(*) begin
    for (i = 0; i < NM; i = i + 1)
      host_pending[i] = (tag_count_q != {(HW+1){1'b0}}) && (host_cnt_q[i] != {(HW+1){1'b0}});
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
      if (m_rd_valid_i[i] && m_rd_host_i[i]) begin
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
    host_rd_go = !host_wr_found && host_rd_found && host_req_ready_i && (tag_count_q != HOST_FULL);
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

    host_req_valid_o = host_wr_found || (host_rd_found && (tag_count_q != HOST_FULL));
    host_req_we_o    = host_wr_found;
    host_req_addr_o  = host_wr_found ? {m_wr_addr_i[32*host_wr_sel + 2 +: 30], 2'b00}
                                     : {m_rd_addr_i[32*host_rd_sel + 2 +: 30], 2'b00};
    host_req_wdata_o = m_wr_data_i[32*host_wr_sel +: 32];
    host_req_be_o    = host_wr_found ? m_wr_be_i[4*host_wr_sel +: 4] : 4'hF;
  end

  // Responses: device memory and the host port may answer different masters in one cycle.
  always @(*) begin
    m_rsp_valid_o = {NM{1'b0}};
    m_rsp_data_o  = {NM{dm_rd_data_i}};
    for (i = 0; i < NM; i = i + 1) begin
      if (host_rsp_valid_i && tag_count_q != 0 && host_rsp_master == i[MW-1:0]) begin
        m_rsp_valid_o[i] = 1'b1;
        m_rsp_data_o[32*i +: 32] = host_rsp_data_i;
      end
      if (dev_rsp_valid_q && dev_rsp_master_q == i[MW-1:0]) m_rsp_valid_o[i] = 1'b1;
    end
  end

  wire host_rsp_pop = host_rsp_valid_i && (tag_count_q != 0);

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      dev_rsp_valid_q  <= 1'b0;
      dev_rsp_master_q <= {MW{1'b0}};
      tag_rd_q         <= {HW{1'b0}};
      tag_wr_q         <= {HW{1'b0}};
      tag_count_q      <= {(HW+1){1'b0}};
      for (m = 0; m < NM; m = m + 1) host_cnt_q[m] <= {(HW+1){1'b0}};
    end else begin
      dev_rsp_valid_q  <= dev_rd_found;
      dev_rsp_master_q <= dev_rd_sel;
      if (host_rd_go) begin
        tag_q[tag_wr_q] <= host_rd_sel;
        tag_wr_q        <= tag_wr_q + 1'b1;
      end
      if (host_rsp_pop) tag_rd_q <= tag_rd_q + 1'b1;
      tag_count_q <= tag_count_q + {{HW{1'b0}}, host_rd_go} - {{HW{1'b0}}, host_rsp_pop};
      if (host_rd_go || host_rsp_pop) for (m = 0; m < NM; m = m + 1) begin
        host_cnt_q[m] <= host_cnt_q[m]
                         + {{HW{1'b0}}, host_rd_go && host_rd_sel == m[MW-1:0]}
                         - {{HW{1'b0}}, host_rsp_pop && host_rsp_master == m[MW-1:0]};
      end
    end
  end
endmodule
