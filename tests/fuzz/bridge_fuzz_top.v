`default_nettype none
// bridge_fuzz_top: the UART bridge and vmgpu_top (block RAM inside) with the pin names of
// ulx3s_top (clk_25mhz, btn, led, ftdi_txd, ftdi_rxd), so that tests/board's host side drives it
// unchanged. What the board adds around them (PLL, SDRAM, LED stretchers) is left out on purpose:
// the fuzzer aims at the bridge's framing, CRC, SEQ and host-port rules, and this top does not
// change when the board's memory does. led[7]: "PLL locked" (always), led[6]: in reset.
module bridge_fuzz_top #(
  parameter integer CLK_HZ              = 8,          // clocks per second of the model's time base
  parameter integer BAUD                = 1,          // CLK_HZ / BAUD clocks per bit
  parameter integer GAP_CYCLES          = 2000,       // an inter-byte gap this long drops a frame
  parameter integer HOST_TIMEOUT_CYCLES = 100000,     // host-request resend time-out
  parameter integer MEM_BYTES           = 65536       // device memory (block RAM)
) (
  input  wire       clk_25mhz,
  input  wire [0:0] btn,         // active low: reset
  output wire [7:0] led,
  input  wire       ftdi_txd,    // into the bridge
  output wire       ftdi_rxd     // out of the bridge
);
  wire clk = clk_25mhz;
  // Reset: the button synchronised, then held 16 cycles (as ulx3s_top does).
  reg [1:0] btn_sync_q;
  reg [4:0] rst_cnt_q;
  always @(posedge clk) begin
    btn_sync_q <= {btn_sync_q[0], btn[0]};
    if (!btn_sync_q[1])      rst_cnt_q <= 5'd0;
    else if (!rst_cnt_q[4])  rst_cnt_q <= rst_cnt_q + 5'd1;
  end
  wire rst_n = rst_cnt_q[4];

  wire        csr_req, csr_we, csr_ack;
  wire [11:0] csr_addr;
  wire [31:0] csr_wdata, csr_rdata;
  wire        host_req_valid, host_req_ready, host_req_we, host_rsp_valid;
  wire [31:0] host_req_addr, host_req_wdata, host_rsp_data;
  wire [3:0]  host_req_be;
  wire        rx_byte, tx_byte, host_wait, irq, idle, fault;

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
    .MEM_BYTES (MEM_BYTES)
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

  assign led = {1'b1, !rst_n, 6'd0};

  wire unused_ok = &{1'b0, rx_byte, tx_byte, host_wait, irq, idle, fault};
endmodule
`default_nettype wire
