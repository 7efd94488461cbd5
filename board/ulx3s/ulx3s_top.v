`default_nettype none
// ulx3s_top: vmgpu on the ULX3S. The 25 MHz oscillator feeds a PLL making the design clock; the
// FT231X's serial pins carry the bridge protocol (docs/bridge-protocol.md) to uart_bridge,
// which drives vmgpu_top's CSR port and serves its host port. Device memory is the board's SDR
// SDRAM (32 MB, or 64 MB on boards with an AS4C32M16SB): rtl/vmgpu_sdram_device.v (vmgpu_top
// with rtl/sdram_ctrl.v on its external memory port) and the ECP5 pin side in sdram_phy.v. Port names follow the
// board's constraint-file names (ulx3s_v20.lpf) rather than the _i/_o rule, so the LPF reads
// like the schematic.
//
// LEDs: 0 link activity (a byte either way), 1 busy (vmgpu not idle), 2 fault (a ring stopped
// on a fault), 3 heartbeat (the clock runs), 4 interrupt pending, 5 a host-port request waits
// for the PC, 6 in reset or the SDRAM still initialising, 7 PLL locked.
//
// VMGPU_DEVICE=sim-board runs this module, with the parameters the bitstream gets, in Verilator
// against a model of the SDRAM chip (sw/hal/vmgpu_sim_board.cpp).
module ulx3s_top #(
  parameter integer CLK_HZ              = 50000000,       // design clock (the PLL output)
  parameter integer BAUD                = 3000000,        // serial line rate
  parameter integer GAP_CYCLES          = CLK_HZ / 500,   // inter-byte gap that drops a frame (2 ms)
  parameter integer HOST_TIMEOUT_CYCLES = CLK_HZ / 100,   // host-request resend time-out (10 ms)
  parameter integer MEM_BYTES           = 33554432,       // device memory = the SDRAM: 33554432 (32 MB) or 67108864 (64 MB)
  parameter integer SDRAM_CAS_LATENCY   = 2,              // 2 or 3 (3 above about 55 MHz behind sdram_phy)
  parameter integer TLB_ENTRIES         = 16,             // TLB entries of vmgpu_top
  parameter integer N_RINGS             = 2,              // command rings of vmgpu_top
  parameter integer MEM_RSP_REG         = 1,              // registered device-memory answers (timing)
  parameter integer MEM_ARB_REG         = 1,              // registered fabric grants (timing)
  parameter integer MMU_REQ_REG         = 1,              // registered translation requests (timing)
  parameter integer GFX_ENGINE          = 1,              // 0: leave the graphics engine out (small parts)
  parameter integer SIMT_LANES          = 0,              // lanes per warp of the SIMT unit (rtl/simt); 0: no unit
  parameter integer SIMT_WARPS          = 4,              // its warps
  parameter integer SIMT_SHARED_BYTES   = 4096,           // its shared memory (block RAM)
  parameter integer SIMT_F              = 0,              // its F extension (1: simt_fpu per lane; too slow for 50 MHz yet)
  parameter integer SIMT_FDIV           = 0,              // with SIMT_F: fdiv.s/fsqrt.s
  parameter integer SIMT_SCHED_REG      = 1,              // its warp pick registered (timing; docs/cores.md)
  parameter integer SIMT_EXEC_REG       = 2,              // its operands and lane results registered (timing)
  parameter integer HEARTBEAT_BIT       = 25,             // heartbeat LED toggles every 2^this cycles
  parameter integer ACTIVITY_BITS       = 20,             // link LED stays on 2^this cycles per byte
  parameter integer CHECK_HOLD_BITS     = 30              // board-check display holds 2^this cycles (~21 s)
) (
  input  wire       clk_25mhz,
  input  wire [0:0] btn,         // btn[0]: the PWR button, active low, resets the design
  output wire [7:0] led,
  input  wire       ftdi_txd,    // the FT231X transmits: the FPGA's receive line
  output wire       ftdi_rxd,    // the FT231X receives: the FPGA's transmit line
  // SDRAM
  output wire        sdram_clk,
  output wire        sdram_cke,
  output wire        sdram_csn,
  output wire        sdram_rasn,
  output wire        sdram_casn,
  output wire        sdram_wen,
  output wire [1:0]  sdram_ba,
  output wire [12:0] sdram_a,
  output wire [1:0]  sdram_dqm,   // byte masks: [0] DQ[7:0], [1] DQ[15:8]
  inout  wire [15:0] sdram_d
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
  wire        sdram_init_done;

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

  // The device and its memory: vmgpu_top on the SDRAM controller (rtl/vmgpu_sdram_device.v,
  // the same module the in-process model's SDRAM configuration builds), and the pins.
  wire [15:0] sdram_dq_out, sdram_dq_in;
  wire        sdram_dq_oe;
  vmgpu_sdram_device #(
    .CLK_HZ            (CLK_HZ),
    .MEM_BYTES         (MEM_BYTES),
    .SDRAM_CAS_LATENCY (SDRAM_CAS_LATENCY),
    .TLB_ENTRIES       (TLB_ENTRIES),
    .N_RINGS           (N_RINGS),
    .MEM_RSP_REG       (MEM_RSP_REG),
    .MEM_ARB_REG       (MEM_ARB_REG),
    .MMU_REQ_REG       (MMU_REQ_REG),
    .GFX_ENGINE        (GFX_ENGINE),
    .SIMT_LANES        (SIMT_LANES),
    .SIMT_WARPS        (SIMT_WARPS),
    .SIMT_SHARED_BYTES (SIMT_SHARED_BYTES),
    .SIMT_F            (SIMT_F),
    .SIMT_FDIV         (SIMT_FDIV),
    .SIMT_SCHED_REG    (SIMT_SCHED_REG),
    .SIMT_EXEC_REG     (SIMT_EXEC_REG)
  ) u_dev (
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
    .fault_o          (fault),
    .init_done_o      (sdram_init_done),
    .sdram_cke_o      (sdram_cke),
    .sdram_cs_no      (sdram_csn),
    .sdram_ras_no     (sdram_rasn),
    .sdram_cas_no     (sdram_casn),
    .sdram_we_no      (sdram_wen),
    .sdram_ba_o       (sdram_ba),
    .sdram_a_o        (sdram_a),
    .sdram_dqm_o      (sdram_dqm),
    .sdram_dq_o       (sdram_dq_out),
    .sdram_dq_oe_o    (sdram_dq_oe),
    .sdram_dq_i       (sdram_dq_in)
  );
  sdram_phy u_sdram_phy (
    .clk_i       (clk),
    .sdram_clk_o (sdram_clk),
    .dq_out_i    (sdram_dq_out),
    .dq_oe_i     (sdram_dq_oe),
    .dq_in_o     (sdram_dq_in),
    .sdram_dq_io (sdram_d)
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

  // Board-check display (vmgpu-board-check, docs/board.md "What the LEDs mean"): a CSR write of
  // 0xB0A2C4_xx to SCRATCH, snooped on the bridge's CSR port, shows the check's progress on the
  // LEDs instead of the status for 2^CHECK_HOLD_BITS cycles after the last such write. xx: [2:0]
  // the step running or failed (1 link ... 5 MMU), [3] it failed, [4] every step passed; 0 ends
  // the display. SCRATCH itself is written as usual.
  `include "vmgpu_regs.vh"
  reg [4:0]                 chk_q;
  reg [CHECK_HOLD_BITS-1:0] chk_hold_q;
  always @(posedge clk) begin
    if (!rst_n) begin
      chk_q      <= 5'd0;
      chk_hold_q <= {CHECK_HOLD_BITS{1'b0}};
    end else if (csr_req && csr_we && csr_addr == REG_SCRATCH && csr_wdata[31:8] == 24'hB0A2C4) begin
      chk_q      <= csr_wdata[4:0];
      chk_hold_q <= {CHECK_HOLD_BITS{1'b1}};
    end else if (chk_hold_q != {CHECK_HOLD_BITS{1'b0}}) begin
      chk_hold_q <= chk_hold_q - 1'b1;
    end else begin
      chk_q <= 5'd0;
    end
  end
  // In the display: LED i (0..4) on once step i+1 passed, blinking while it runs (or fast when
  // it failed); LED 5 failed, LED 6 every step passed, LED 7 the PLL's lock as always.
  wire       chk_on    = chk_q != 5'd0;
  wire       chk_blink = chk_q[3] ? beat_q[HEARTBEAT_BIT-3] : beat_q[HEARTBEAT_BIT-1];
  wire [31:0] chk_step = {29'd0, chk_q[2:0]};
  reg  [4:0]  chk_steps;
  integer     k;
  always @(*) begin
    for (k = 0; k < 5; k = k + 1)
      chk_steps[k] = chk_q[4] || (k + 1 < chk_step) || (k + 1 == chk_step && chk_blink);
  end
  wire [7:0] led_status = {pll_locked, !rst_n || !sdram_init_done, host_wait, irq, beat_q[HEARTBEAT_BIT],
                           fault, !idle, act_q != {ACTIVITY_BITS{1'b0}}};
  assign led = chk_on ? {pll_locked, chk_q[4], chk_q[3], chk_steps} : led_status;
endmodule
