`default_nettype none
// Test-only wrapper: mem_fabric with device_memory behind it, wired as in vmgpu_top, so the
// fabric tests check data end to end (grant, memory write, memory read, response routing).
// With DEV_HANDSHAKE the device-memory port comes out instead (vmgpu_top's EXT_MEM), and the
// testbench plays a memory with variable latency and back-pressure on it.
module fabric_mem #(
  parameter integer NM               = 5,     // number of masters
  parameter integer MEM_BYTES        = 4096,  // device memory bytes (power of two)
  parameter integer HOST_OUTSTANDING = 4,     // host-port reads in flight at most (power of two)
  parameter integer RSP_REG          = 0,     // mem_fabric's registered device-read stage
  parameter integer ARB_REG          = 0,     // mem_fabric's registered arbitration
  parameter integer DEV_HANDSHAKE    = 0,     // 1: device memory outside (the dm_* ports)
  parameter integer DEV_OUTSTANDING  = 8,     // mem_fabric's device reads in flight at most
  parameter integer AW               = $clog2(MEM_BYTES / 4)  // word-address width (derived)
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  input  wire [NM-1:0]    m_rd_valid_i,
  output wire [NM-1:0]    m_rd_ready_o,
  input  wire [NM*32-1:0] m_rd_addr_i,
  input  wire [NM-1:0]    m_rd_host_i,
  output wire [NM-1:0]    m_rsp_valid_o,
  output wire [NM*32-1:0] m_rsp_data_o,
  input  wire [NM-1:0]    m_wr_valid_i,
  output wire [NM-1:0]    m_wr_ready_o,
  input  wire [NM*32-1:0] m_wr_addr_i,
  input  wire [NM-1:0]    m_wr_host_i,
  input  wire [NM*32-1:0] m_wr_data_i,
  input  wire [NM*4-1:0]  m_wr_be_i,
  output wire             host_req_valid_o,
  input  wire             host_req_ready_i,
  output wire             host_req_we_o,
  output wire [31:0]      host_req_addr_o,
  output wire [31:0]      host_req_wdata_o,
  output wire [3:0]       host_req_be_o,
  input  wire             host_rsp_valid_i,
  input  wire [31:0]      host_rsp_data_i,
  // device-memory side, visible so the bench can check the per-target grants; with
  // DEV_HANDSHAKE the whole port (the bench is the memory), otherwise the rest is unused
  output wire             dm_rd_en_o,
  output wire             dm_wr_en_o,
  input  wire             dm_rd_ready_i,
  input  wire             dm_wr_ready_i,
  output wire [AW-1:0]    dm_rd_addr_o,
  output wire [AW-1:0]    dm_wr_addr_o,
  output wire [31:0]      dm_wr_data_o,
  output wire [3:0]       dm_wr_be_o,
  input  wire             dm_rsp_valid_i,
  input  wire [31:0]      dm_rsp_data_i
);
  wire [AW-1:0] dm_rd_addr, dm_wr_addr;
  wire [31:0]   dm_rd_data, dm_wr_data, mem_rd_data;
  wire [3:0]    dm_wr_be;
  assign dm_rd_addr_o = dm_rd_addr;
  assign dm_wr_addr_o = dm_wr_addr;
  assign dm_wr_data_o = dm_wr_data;
  assign dm_wr_be_o   = dm_wr_be;
  assign dm_rd_data   = (DEV_HANDSHAKE != 0) ? dm_rsp_data_i : mem_rd_data;

  mem_fabric #(
    .NM               (NM),
    .MEM_BYTES        (MEM_BYTES),
    .HOST_OUTSTANDING (HOST_OUTSTANDING),
    .RSP_REG          (RSP_REG),
    .ARB_REG          (ARB_REG),
    .DEV_HANDSHAKE    (DEV_HANDSHAKE),
    .DEV_OUTSTANDING  (DEV_OUTSTANDING)
  ) u_fabric (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .m_rd_valid_i     (m_rd_valid_i),
    .m_rd_ready_o     (m_rd_ready_o),
    .m_rd_addr_i      (m_rd_addr_i),
    .m_rd_host_i      (m_rd_host_i),
    .m_rsp_valid_o    (m_rsp_valid_o),
    .m_rsp_data_o     (m_rsp_data_o),
    .m_wr_valid_i     (m_wr_valid_i),
    .m_wr_ready_o     (m_wr_ready_o),
    .m_wr_addr_i      (m_wr_addr_i),
    .m_wr_host_i      (m_wr_host_i),
    .m_wr_data_i      (m_wr_data_i),
    .m_wr_be_i        (m_wr_be_i),
    .dm_rd_en_o       (dm_rd_en_o),
    .dm_rd_ready_i    (dm_rd_ready_i),
    .dm_rd_addr_o     (dm_rd_addr),
    .dm_rsp_valid_i   (dm_rsp_valid_i),
    .dm_rd_data_i     (dm_rd_data),
    .dm_wr_en_o       (dm_wr_en_o),
    .dm_wr_ready_i    (dm_wr_ready_i),
    .dm_wr_addr_o     (dm_wr_addr),
    .dm_wr_data_o     (dm_wr_data),
    .dm_wr_be_o       (dm_wr_be),
    .host_req_valid_o (host_req_valid_o),
    .host_req_ready_i (host_req_ready_i),
    .host_req_we_o    (host_req_we_o),
    .host_req_addr_o  (host_req_addr_o),
    .host_req_wdata_o (host_req_wdata_o),
    .host_req_be_o    (host_req_be_o),
    .host_rsp_valid_i (host_rsp_valid_i),
    .host_rsp_data_i  (host_rsp_data_i)
  );

  // Block RAM (used with DEV_HANDSHAKE 0 only).
  device_memory #(
    .MEM_BYTES (MEM_BYTES)
  ) u_mem (
    .clk_i     (clk_i),
    .rd_en_i   (dm_rd_en_o),
    .rd_addr_i (dm_rd_addr),
    .rd_data_o (mem_rd_data),
    .wr_en_i   (dm_wr_en_o),
    .wr_addr_i (dm_wr_addr),
    .wr_data_i (dm_wr_data),
    .wr_be_i   (dm_wr_be)
  );
endmodule
