`default_nettype none
// ulx3s_top: vmgpu on the ULX3S. The 25 MHz oscillator feeds a PLL making the design clock; the
// FT231X's serial pins carry the bridge protocol (docs/bridge-protocol.md) to uart_bridge,
// which drives vmgpu_top's CSR port and serves its host port. Port names follow the board's
// constraint-file names (ulx3s_v20.lpf) rather than the _i/_o rule, so the LPF reads like the
// schematic.
//
// LEDs: 0 link activity (a byte either way), 1 busy (vmgpu not idle), 2 fault (a ring stopped
// on a fault), 3 heartbeat (the clock runs), 4 interrupt pending, 5 a host-port request waits
// for the PC, 6 in reset, 7 PLL locked.
module ulx3s_top #(
  parameter integer CLK_HZ              = 50000000,       // design clock (the PLL output)
  parameter integer BAUD                = 3000000,        // serial line rate
  parameter integer GAP_CYCLES          = CLK_HZ / 500,   // inter-byte gap that drops a frame (2 ms)
  parameter integer HOST_TIMEOUT_CYCLES = CLK_HZ / 100,   // host-request resend time-out (10 ms)
  parameter integer MEM_BYTES           = 65536,          // device memory (block RAM), a power of two
  parameter integer TLB_ENTRIES         = 16,             // TLB entries of vmgpu_top
  parameter integer N_RINGS             = 2,              // command rings of vmgpu_top
  parameter integer MEM_RSP_REG         = 1,              // registered block-RAM reads (timing)
  parameter integer MEM_ARB_REG         = 1,              // registered fabric grants (timing)
  parameter integer MMU_REQ_REG         = 1,              // registered translation requests (timing)
  parameter integer GFX_ENGINE          = 1,              // 0: leave the graphics engine out (small parts)
  parameter integer HEARTBEAT_BIT       = 25,             // heartbeat LED toggles every 2^this cycles
  parameter integer ACTIVITY_BITS       = 20              // link LED stays on 2^this cycles per byte
) (
  input  wire       clk_25mhz,
  input  wire [0:0] btn,         // btn[0]: the PWR button, active low, resets the design
  output wire [7:0] led,
  input  wire       ftdi_txd,    // the FT231X transmits: the FPGA's receive line
  output wire       ftdi_rxd     // the FT231X receives: the FPGA's transmit line
);
  wire clk, pll_locked;
  board_pll u_pll (
    .clk_i    (clk_25mhz),
    .clk_o    (clk),
    .locked_o (pll_locked)
  );

  // Reset: released 16 cycles after the PLL locks with the button up; the button is
  // synchronised first (it is asynchronous to the design clock).
  reg [1:0] btn_sync_q;
  reg [4:0] rst_cnt_q;
  wire      rst_cond = !pll_locked || !btn_sync_q[1];
  always @(posedge clk) begin
    btn_sync_q <= {btn_sync_q[0], btn[0]};
    if (rst_cond)            rst_cnt_q <= 5'd0;
    else if (!rst_cnt_q[4])  rst_cnt_q <= rst_cnt_q + 5'd1;
  end
  wire rst_n = rst_cnt_q[4];

  wire        csr_req, csr_we, csr_ack;
  wire [11:0] csr_addr;
  wire [31:0] csr_wdata, csr_rdata;
  wire        host_req_valid, host_req_ready, host_req_we, host_rsp_valid;
  wire [31:0] host_req_addr, host_req_wdata, host_rsp_data;
  wire [3:0]  host_req_be;
  wire        irq, idle, fault;
  wire        rx_byte, tx_byte, host_wait;

  uart_bridge #(
    .CLK_HZ              (CLK_HZ),
    .BAUD                (BAUD),
    .GAP_CYCLES          (GAP_CYCLES),
    .HOST_TIMEOUT_CYCLES (HOST_TIMEOUT_CYCLES)
  ) u_bridge (
    .clk_i            (clk),
    .rst_ni           (rst_n),
    .rx_i             (ftdi_txd),
    .tx_o             (ftdi_rxd),
    .csr_req_o        (csr_req),
    .csr_we_o         (csr_we),
    .csr_addr_o       (csr_addr),
    .csr_wdata_o      (csr_wdata),
    .csr_ack_i        (csr_ack),
    .csr_rdata_i      (csr_rdata),
    .host_req_valid_i (host_req_valid),
    .host_req_ready_o (host_req_ready),
    .host_req_we_i    (host_req_we),
    .host_req_addr_i  (host_req_addr),
    .host_req_wdata_i (host_req_wdata),
    .host_req_be_i    (host_req_be),
    .host_rsp_valid_o (host_rsp_valid),
    .host_rsp_data_o  (host_rsp_data),
    .rx_byte_o        (rx_byte),
    .tx_byte_o        (tx_byte),
    .host_wait_o      (host_wait)
  );

  vmgpu_top #(
    .MEM_BYTES   (MEM_BYTES),
    .TLB_ENTRIES (TLB_ENTRIES),
    .N_RINGS     (N_RINGS),
    .MEM_RSP_REG (MEM_RSP_REG),
    .MEM_ARB_REG (MEM_ARB_REG),
    .MMU_REQ_REG (MMU_REQ_REG),
    .GFX_ENGINE  (GFX_ENGINE)
  ) u_vmgpu (
    .clk_i            (clk),
    .rst_ni           (rst_n),
    .csr_req_i        (csr_req),
    .csr_we_i         (csr_we),
    .csr_addr_i       (csr_addr),
    .csr_wdata_i      (csr_wdata),
    .csr_ack_o        (csr_ack),
    .csr_rdata_o      (csr_rdata),
    .host_req_valid_o (host_req_valid),
    .host_req_ready_i (host_req_ready),
    .host_req_we_o    (host_req_we),
    .host_req_addr_o  (host_req_addr),
    .host_req_wdata_o (host_req_wdata),
    .host_req_be_o    (host_req_be),
    .host_rsp_valid_i (host_rsp_valid),
    .host_rsp_data_i  (host_rsp_data),
    .irq_o            (irq),
    .idle_o           (idle),
    .fault_o          (fault)
  );

  // LED drivers: a heartbeat counter and a retriggered stretch for link activity.
  reg [HEARTBEAT_BIT:0]   beat_q;
  reg [ACTIVITY_BITS-1:0] act_q;
  always @(posedge clk) begin
    if (!rst_n) begin
      beat_q <= {(HEARTBEAT_BIT+1){1'b0}};
      act_q  <= {ACTIVITY_BITS{1'b0}};
    end else begin
      beat_q <= beat_q + 1'b1;
      if (rx_byte || tx_byte) act_q <= {ACTIVITY_BITS{1'b1}};
      else if (act_q != {ACTIVITY_BITS{1'b0}}) act_q <= act_q - 1'b1;
    end
  end

  assign led = {pll_locked, !rst_n, host_wait, irq, beat_q[HEARTBEAT_BIT],
                fault, !idle, act_q != {ACTIVITY_BITS{1'b0}}};
endmodule
