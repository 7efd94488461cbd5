`default_nettype none
// uart_bridge: the device side of docs/bridge-protocol.md. Frames from the PC are received into
// a byte ring, checked (length, CRC, gaps) and executed on vmgpu_top's CSR port; the answer is
// kept in a block RAM so that a request retried with the same SEQ is answered again without
// being executed twice. Host-port requests of vmgpu_top go out as HOST_READ/HOST_WRITE frames
// with the bridge's own SEQ, resent until the PC answers.
//
// Receive path: every byte from the UART is written into a ring (block RAM); the frame parser
// reads the ring at its own pace. Because the bytes of a frame stay in the ring until it is
// accepted, a failed frame is re-scanned from the byte after its SOF (the protocol's rule), and
// a request's payload is read from the ring while it executes (no second copy).
module uart_bridge #(
  parameter integer CLK_HZ              = 50000000,       // clock frequency
  parameter integer BAUD                = 3000000,        // line rate
  parameter integer GAP_CYCLES          = CLK_HZ / 500,   // a gap this long inside a frame drops it (2 ms)
  parameter integer HOST_TIMEOUT_CYCLES = CLK_HZ / 100    // a host request unanswered this long is resent (10 ms)
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // serial line
  input  wire        rx_i,
  output wire        tx_o,
  // vmgpu_top CSR port (master side)
  output reg         csr_req_o,
  output reg         csr_we_o,
  output reg  [11:0] csr_addr_o,
  output reg  [31:0] csr_wdata_o,
  input  wire        csr_ack_i,
  input  wire [31:0] csr_rdata_i,
  // vmgpu_top host port (slave side)
  input  wire        host_req_valid_i,
  output wire        host_req_ready_o,
  input  wire        host_req_we_i,
  input  wire [31:0] host_req_addr_i,
  input  wire [31:0] host_req_wdata_i,
  input  wire [3:0]  host_req_be_i,
  output reg         host_rsp_valid_o,
  output reg  [31:0] host_rsp_data_o,
  // status for the board's LEDs
  output wire        rx_byte_o,    // one-cycle pulse per received byte
  output wire        tx_byte_o,    // one-cycle pulse per byte handed to the transmitter
  output wire        host_wait_o   // a host-port request waits for the PC
);
  `include "vmgpu_regs.vh"

  localparam integer MAX_LEN  = 1032;  // longest payload the protocol allows
  localparam integer RING_AW  = 11;    // receive ring: 2 KiB, a whole frame plus slack
  localparam integer ANS_AW   = 9;     // answer store: 512 words (header word + 256 data)
  localparam integer GAP_W    = $clog2(GAP_CYCLES + 1) + 1;
  localparam integer HTO_W    = $clog2(HOST_TIMEOUT_CYCLES + 1) + 1;

  localparam [7:0] T_PING = 8'h01, T_WRITE = 8'h02, T_READ = 8'h03;
  localparam [7:0] T_HOST_READ = 8'h40, T_HOST_WRITE = 8'h41;
  localparam [7:0] ST_OK = 8'd0, ST_BAD_TYPE = 8'd1, ST_BAD_LEN = 8'd2;
  localparam [7:0] PROTO_VERSION = 8'd2;  // 2: CRC-32 (1 had CRC-16)

  // ------------------------------------------------------------------ UART
  wire       rx_valid;
  wire [7:0] rx_data;
  wire       utx_ready;
  reg        utx_valid;
  reg  [7:0] utx_data;

  uart_rx #(
    .CLK_HZ (CLK_HZ),
    .BAUD   (BAUD)
  ) u_rx (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .rx_i    (rx_i),
    .valid_o (rx_valid),
    .data_o  (rx_data)
  );

  uart_tx #(
    .CLK_HZ (CLK_HZ),
    .BAUD   (BAUD)
  ) u_tx (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .valid_i (utx_valid),
    .data_i  (utx_data),
    .ready_o (utx_ready),
    .tx_o    (tx_o)
  );

  assign rx_byte_o = rx_valid;
  assign tx_byte_o = utx_valid && utx_ready;

  // ------------------------------------------------------------------ receive ring
  reg  [7:0]         ring_mem [0:(1<<RING_AW)-1];
  reg  [RING_AW-1:0] wr_ptr_q;
  reg  [RING_AW-1:0] ring_raddr;   // combinational: parser or executor
  reg  [7:0]         ring_q;       // byte at last cycle's ring_raddr
  wire [RING_AW-1:0] keep_ptr;     // oldest byte still needed
  wire               ring_full = (wr_ptr_q + 1'b1) == keep_ptr;
  wire               ring_push = rx_valid && !ring_full;

  always @(posedge clk_i) begin
    if (ring_push) ring_mem[wr_ptr_q] <= rx_data;
    ring_q <= ring_mem[ring_raddr];
  end

  // Cycles since the last byte arrived (saturating): the inter-byte gap.
  reg [GAP_W-1:0] gap_q;
  wire            gap_over = gap_q >= GAP_CYCLES[GAP_W-1:0];
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      wr_ptr_q <= {RING_AW{1'b0}};
      gap_q    <= {GAP_W{1'b0}};
    end else begin
      if (ring_push) wr_ptr_q <= wr_ptr_q + 1'b1;
      if (rx_valid)  gap_q <= {GAP_W{1'b0}};
      else if (!gap_over) gap_q <= gap_q + 1'b1;
    end
  end

  // ------------------------------------------------------------------ frame parser
  localparam [3:0] P_SOF0 = 4'd0, P_SOF1 = 4'd1, P_SEQ = 4'd2, P_TYPE = 4'd3, P_LEN0 = 4'd4,
                   P_LEN1 = 4'd5, P_PAY = 4'd6, P_CRC0 = 4'd7, P_CRC1 = 4'd8, P_CRC2 = 4'd9,
                   P_CRC3 = 4'd10, P_EXEC = 4'd11;
  reg  [3:0]         p_state_q;
  reg  [RING_AW-1:0] rd_ptr_q;     // next ring byte to fetch
  reg                pend_q;       // ring_q holds the byte fetched last cycle
  reg  [RING_AW-1:0] sof_ptr_q;    // byte after the current frame's SOF: where a failure rescans
  reg  [7:0]         p_seq_q, p_type_q;
  reg  [15:0]        p_len_q;
  reg  [10:0]        p_cnt_q;      // payload bytes taken so far
  reg  [47:0]        p_head_q;     // the first six payload bytes
  reg  [23:0]        p_crc_lo_q;   // the frame's first three CRC bytes
  wire [31:0]        rx_crc;
  wire               in_frame  = (p_state_q >= P_SEQ) && (p_state_q <= P_CRC3);
  wire               fetch     = !pend_q && (rd_ptr_q != wr_ptr_q) && (p_state_q != P_EXEC);
  wire               gap_fail  = in_frame && !pend_q && (rd_ptr_q == wr_ptr_q) && gap_over;
  wire               crc_en    = pend_q && (p_state_q >= P_SEQ) && (p_state_q <= P_PAY);
  wire               crc_init  = pend_q && (p_state_q == P_SOF1) && (ring_q == 8'h5A);
  assign keep_ptr = (in_frame || p_state_q == P_EXEC) ? sof_ptr_q : rd_ptr_q;

  crc32 u_rx_crc (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .init_i (crc_init),
    .en_i   (crc_en),
    .data_i (ring_q),
    .crc_o  (rx_crc)
  );

  // Outcome of a frame whose CRC matched (one-cycle pulses).
  reg  frame_req_q;    // a PC request: execute it or answer it from the store
  reg  frame_ans_q;    // an answer to a device request
  wire exec_done;      // the executor has finished the request handed over

  // Payload fields as the request types use them.
  wire [11:0] f_off   = p_head_q[11:0];
  wire        f_inc   = p_head_q[16];
  wire [15:0] f_count = p_head_q[47:32];
  wire [31:0] f_word0 = p_head_q[31:0];

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      p_state_q   <= P_SOF0;
      rd_ptr_q    <= {RING_AW{1'b0}};
      pend_q      <= 1'b0;
      sof_ptr_q   <= {RING_AW{1'b0}};
      p_seq_q     <= 8'd0;
      p_type_q    <= 8'd0;
      p_len_q     <= 16'd0;
      p_cnt_q     <= 11'd0;
      p_head_q    <= 48'd0;
      p_crc_lo_q  <= 24'd0;
      frame_req_q <= 1'b0;
      frame_ans_q <= 1'b0;
    end else begin
      frame_req_q <= 1'b0;
      frame_ans_q <= 1'b0;
      pend_q      <= fetch;
      if (fetch) rd_ptr_q <= rd_ptr_q + 1'b1;
      if (gap_fail) begin
        // Frame cut short: drop it and hunt again from the byte after its SOF.
        p_state_q <= P_SOF0;
        rd_ptr_q  <= sof_ptr_q;
      end else if (pend_q) begin
        case (p_state_q)
          P_SOF0: if (ring_q == 8'hA5) p_state_q <= P_SOF1;
          P_SOF1: begin
            if (ring_q == 8'h5A) begin
              p_state_q <= P_SEQ;
              sof_ptr_q <= rd_ptr_q;
            end else if (ring_q != 8'hA5) begin
              p_state_q <= P_SOF0;
            end
          end
          P_SEQ: begin
            p_seq_q   <= ring_q;
            p_state_q <= P_TYPE;
          end
          P_TYPE: begin
            p_type_q  <= ring_q;
            p_state_q <= P_LEN0;
          end
          P_LEN0: begin
            p_len_q[7:0] <= ring_q;
            p_state_q    <= P_LEN1;
          end
          P_LEN1: begin
            p_len_q[15:8] <= ring_q;
            p_cnt_q       <= 11'd0;
            p_head_q      <= 48'd0;
            if ({ring_q, p_len_q[7:0]} > MAX_LEN[15:0]) begin
              p_state_q <= P_SOF0;          // over-long: drop, rescan after the SOF
              rd_ptr_q  <= sof_ptr_q;
            end else if ({ring_q, p_len_q[7:0]} == 16'd0) begin
              p_state_q <= P_CRC0;
            end else begin
              p_state_q <= P_PAY;
            end
          end
          P_PAY: begin
            if (p_cnt_q < 11'd6) p_head_q[p_cnt_q*8 +: 8] <= ring_q;
            p_cnt_q <= p_cnt_q + 11'd1;
            if ({5'd0, p_cnt_q} + 16'd1 == p_len_q) p_state_q <= P_CRC0;
          end
          P_CRC0: begin
            p_crc_lo_q[7:0] <= ring_q;
            p_state_q       <= P_CRC1;
          end
          P_CRC1: begin
            p_crc_lo_q[15:8] <= ring_q;
            p_state_q        <= P_CRC2;
          end
          P_CRC2: begin
            p_crc_lo_q[23:16] <= ring_q;
            p_state_q         <= P_CRC3;
          end
          P_CRC3: begin
            if ({ring_q, p_crc_lo_q} != rx_crc) begin
              p_state_q <= P_SOF0;          // bad CRC: drop, rescan after the SOF
              rd_ptr_q  <= sof_ptr_q;
            end else if (p_type_q[7:6] == 2'b00) begin
              p_state_q   <= P_EXEC;        // the payload stays in the ring while it executes
              frame_req_q <= 1'b1;
            end else begin
              p_state_q   <= P_SOF0;
              frame_ans_q <= p_type_q[7];   // device-request answers; anything else is ignored
            end
          end
          default: p_state_q <= P_SOF0;
        endcase
      end else if (p_state_q == P_EXEC && exec_done) begin
        p_state_q <= P_SOF0;
      end
    end
  end

  // ------------------------------------------------------------------ answer store
  // The last answer's payload, one 32-bit word per 4 bytes; the header fields in registers.
  reg  [31:0]       ans_mem [0:(1<<ANS_AW)-1];
  reg               ans_we_q;
  reg  [ANS_AW-1:0] ans_wa_q;
  reg  [31:0]       ans_wd_q;
  reg  [ANS_AW-1:0] ans_ra;        // combinational, from the transmitter
  reg  [31:0]       ans_rd_q;
  always @(posedge clk_i) begin
    if (ans_we_q) ans_mem[ans_wa_q] <= ans_wd_q;
    ans_rd_q <= ans_mem[ans_ra];
  end

  reg        last_valid_q;         // an answer is stored
  reg [7:0]  last_seq_q;
  reg [7:0]  last_type_q;
  reg [10:0] last_len_q;
  reg        ans_pending_q;        // the stored answer is to be (re)sent
  wire       ans_sending;          // the transmitter is sending the stored answer

  // ------------------------------------------------------------------ executor
  localparam [3:0] E_IDLE = 4'd0, E_START = 4'd1, E_PING = 4'd2, E_READ = 4'd3,
                   E_WFETCH = 4'd4, E_WCAP = 4'd5, E_WRITE = 4'd6, E_FINISH = 4'd7,
                   E_CSR_GAP = 4'd8;
  reg  [3:0]         e_state_q;
  reg  [3:0]         e_after_q;    // state after the CSR request line has been low a cycle
  reg  [8:0]         e_i_q;        // words done
  reg  [RING_AW-1:0] e_ptr_q;      // next payload byte of a WRITE
  reg  [1:0]         e_k_q;        // byte of the word being gathered
  reg  [7:0]         e_status_q;
  reg                e_done_q;
  assign exec_done = e_done_q;

  wire        f_count_ok = (f_count != 16'd0) && (f_count <= 16'd256);
  wire [10:0] f_wr_len   = 11'd6 + {f_count[8:0], 2'b00};

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      e_state_q    <= E_IDLE;
      e_after_q    <= E_IDLE;
      e_i_q        <= 9'd0;
      e_ptr_q      <= {RING_AW{1'b0}};
      e_k_q        <= 2'd0;
      e_status_q   <= ST_OK;
      e_done_q     <= 1'b0;
      csr_req_o    <= 1'b0;
      csr_we_o     <= 1'b0;
      csr_addr_o   <= 12'd0;
      csr_wdata_o  <= 32'd0;
      ans_we_q     <= 1'b0;
      ans_wa_q     <= {ANS_AW{1'b0}};
      ans_wd_q     <= 32'd0;
      last_valid_q <= 1'b0;
      last_seq_q   <= 8'd0;
      last_type_q  <= 8'd0;
      last_len_q   <= 11'd0;
    end else begin
      e_done_q <= 1'b0;
      ans_we_q <= 1'b0;
      case (e_state_q)
        E_IDLE: begin
          if (frame_req_q) begin
            if (last_valid_q && p_seq_q == last_seq_q) begin
              e_done_q  <= 1'b1;          // a retry: the transmitter resends the stored answer
            end else begin
              e_state_q <= E_START;
            end
          end
        end
        E_START: begin
          // The answer store is overwritten from here on: wait until it is not being sent.
          if (!ans_sending) begin
            last_valid_q <= 1'b0;
            e_i_q        <= 9'd0;
            e_k_q        <= 2'd0;
            e_ptr_q      <= sof_ptr_q + 11'd10;   // SEQ TYPE LEN(2) offset(2) flags res count(2)
            csr_addr_o   <= f_off;
            e_status_q   <= ST_OK;
            if (p_type_q == T_PING) begin
              if (p_len_q == 16'd0) begin
                csr_req_o  <= 1'b1;
                csr_we_o   <= 1'b0;
                csr_addr_o <= REG_ID;
                e_state_q  <= E_PING;
              end else begin
                e_status_q <= ST_BAD_LEN;
                e_state_q  <= E_FINISH;
              end
            end else if (p_type_q == T_READ) begin
              if (f_count_ok && p_len_q == 16'd6) begin
                csr_req_o <= 1'b1;
                csr_we_o  <= 1'b0;
                e_state_q <= E_READ;
              end else begin
                e_status_q <= ST_BAD_LEN;
                e_state_q  <= E_FINISH;
              end
            end else if (p_type_q == T_WRITE) begin
              if (f_count_ok && p_len_q == {5'd0, f_wr_len}) begin
                e_state_q <= E_WFETCH;
              end else begin
                e_status_q <= ST_BAD_LEN;
                e_state_q  <= E_FINISH;
              end
            end else begin
              e_status_q <= ST_BAD_TYPE;
              e_state_q  <= E_FINISH;
            end
          end
        end
        E_PING: begin
          if (csr_ack_i) begin
            csr_req_o <= 1'b0;
            ans_we_q  <= 1'b1;
            ans_wa_q  <= 9'd1;
            ans_wd_q  <= csr_rdata_i;
            e_state_q <= E_FINISH;
          end
        end
        E_READ: begin
          if (csr_ack_i) begin
            csr_req_o <= 1'b0;
            ans_we_q  <= 1'b1;
            ans_wa_q  <= e_i_q + 9'd1;
            ans_wd_q  <= csr_rdata_i;
            e_i_q     <= e_i_q + 9'd1;
            if (f_inc) csr_addr_o <= csr_addr_o + 12'd4;
            if ({7'd0, e_i_q} + 16'd1 == f_count) begin
              e_state_q <= E_FINISH;
            end else begin
              e_state_q <= E_CSR_GAP;
              e_after_q <= E_READ;
            end
          end
        end
        E_CSR_GAP: begin
          // The request line has been low for a cycle: raise it for the next word.
          csr_req_o <= 1'b1;
          e_state_q <= e_after_q;
        end
        E_WFETCH: begin
          // ring_raddr is e_ptr_q in this state; the byte arrives in ring_q next cycle.
          e_ptr_q   <= e_ptr_q + 1'b1;
          e_state_q <= E_WCAP;
        end
        E_WCAP: begin
          csr_wdata_o[e_k_q*8 +: 8] <= ring_q;
          e_k_q <= e_k_q + 2'd1;
          if (e_k_q == 2'd3) begin
            csr_req_o <= 1'b1;
            csr_we_o  <= 1'b1;
            e_state_q <= E_WRITE;
          end else begin
            e_state_q <= E_WFETCH;
          end
        end
        E_WRITE: begin
          if (csr_ack_i) begin
            csr_req_o <= 1'b0;
            e_i_q     <= e_i_q + 9'd1;
            if (f_inc) csr_addr_o <= csr_addr_o + 12'd4;
            // Gathering the next word's bytes keeps the request line low long enough.
            e_state_q <= ({7'd0, e_i_q} + 16'd1 == f_count) ? E_FINISH : E_WFETCH;
          end
        end
        E_FINISH: begin
          ans_we_q     <= 1'b1;
          ans_wa_q     <= 9'd0;
          last_valid_q <= 1'b1;
          last_seq_q   <= p_seq_q;
          last_type_q  <= p_type_q | 8'h80;
          e_done_q     <= 1'b1;
          e_state_q    <= E_IDLE;
          if (e_status_q != ST_OK) begin
            ans_wd_q   <= {24'd0, e_status_q};   // an error answer is the status byte alone
            last_len_q <= 11'd1;
          end else if (p_type_q == T_PING) begin
            ans_wd_q   <= {16'd0, PROTO_VERSION, ST_OK};
            last_len_q <= 11'd8;
          end else if (p_type_q == T_READ) begin
            ans_wd_q   <= {24'd0, ST_OK};
            last_len_q <= 11'd4 + {f_count[8:0], 2'b00};
          end else begin
            ans_wd_q   <= {24'd0, ST_OK};
            last_len_q <= 11'd1;
          end
        end
        default: e_state_q <= E_IDLE;
      endcase
    end
  end

  // ------------------------------------------------------------------ host port
  localparam [1:0] H_IDLE = 2'd0, H_WAIT = 2'd1;
  reg  [1:0]       h_state_q;
  reg  [7:0]       h_seq_q;
  reg              h_we_q;
  reg  [31:0]      h_addr_q, h_wdata_q;
  reg  [3:0]       h_be_q;
  reg              h_send_q;       // the request is to be (re)sent
  reg  [HTO_W-1:0] h_timer_q;
  wire             h_taken;        // the transmitter starts sending the request
  wire             h_sent;         // ... and has sent its last byte
  wire             h_in_tx;        // the request is in the transmitter
  assign host_req_ready_o = (h_state_q == H_IDLE);
  assign host_wait_o      = (h_state_q != H_IDLE);

  wire h_match = frame_ans_q && (h_state_q == H_WAIT) && (p_seq_q == h_seq_q) &&
                 (h_we_q ? (p_type_q == (T_HOST_WRITE | 8'h80) && p_len_q == 16'd0)
                         : (p_type_q == (T_HOST_READ | 8'h80) && p_len_q == 16'd4));

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      h_state_q        <= H_IDLE;
      h_seq_q          <= 8'd0;
      h_we_q           <= 1'b0;
      h_addr_q         <= 32'd0;
      h_wdata_q        <= 32'd0;
      h_be_q           <= 4'd0;
      h_send_q         <= 1'b0;
      h_timer_q        <= {HTO_W{1'b0}};
      host_rsp_valid_o <= 1'b0;
      host_rsp_data_o  <= 32'd0;
    end else begin
      host_rsp_valid_o <= 1'b0;
      if (h_taken) h_send_q <= 1'b0;
      case (h_state_q)
        H_IDLE: begin
          if (host_req_valid_i) begin
            h_we_q    <= host_req_we_i;
            h_addr_q  <= host_req_addr_i;
            h_wdata_q <= host_req_wdata_i;
            h_be_q    <= host_req_be_i;
            h_send_q  <= 1'b1;
            h_timer_q <= {HTO_W{1'b0}};
            h_state_q <= H_WAIT;
          end
        end
        H_WAIT: begin
          if (h_match) begin
            if (!h_we_q) begin
              host_rsp_valid_o <= 1'b1;
              host_rsp_data_o  <= f_word0;
            end
            h_seq_q   <= h_seq_q + 8'd1;
            h_send_q  <= 1'b0;
            h_state_q <= H_IDLE;
          end else if (h_send_q || h_in_tx || h_sent) begin
            h_timer_q <= {HTO_W{1'b0}};   // the time-out runs from the end of the frame
          end else if (h_timer_q >= HOST_TIMEOUT_CYCLES[HTO_W-1:0]) begin
            h_send_q  <= 1'b1;            // no answer: send the same request (same SEQ) again
          end else begin
            h_timer_q <= h_timer_q + 1'b1;
          end
        end
        default: h_state_q <= H_IDLE;
      endcase
    end
  end

  // ------------------------------------------------------------------ transmitter
  localparam [1:0] X_IDLE = 2'd0, X_PREP = 2'd1, X_LOAD = 2'd2, X_SEND = 2'd3;
  reg  [1:0]  x_state_q;
  reg         x_host_q;            // sending the host request (else the stored answer)
  reg  [10:0] x_pos_q;             // byte of the frame
  reg  [10:0] x_len_q;
  reg  [7:0]  x_seq_q, x_type_q;
  wire        x_accept = (x_state_q == X_SEND) && utx_ready;
  wire        x_last   = (x_pos_q == x_len_q + 11'd9);
  wire [10:0] x_off    = x_pos_q - 11'd6;   // payload byte index
  wire [1:0]  x_crc_byte = x_pos_q[1:0] - x_len_q[1:0] - 2'd2; // CRC byte (pos - len - 6), LSB first
  wire [95:0] x_host_payload = {h_wdata_q, 24'd0, 4'd0, h_be_q, h_addr_q};
  wire [31:0] tx_crc;

  assign ans_sending = ans_pending_q || (x_state_q != X_IDLE && !x_host_q);
  assign h_taken     = (x_state_q == X_IDLE) && !ans_pending_q && h_send_q;
  assign h_in_tx     = (x_state_q != X_IDLE) && x_host_q;
  assign h_sent      = x_accept && x_last && x_host_q;

  always @* ans_ra = x_off[10:2];
  always @* ring_raddr = (e_state_q == E_WFETCH) ? e_ptr_q : rd_ptr_q;

  crc32 u_tx_crc (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .init_i (x_state_q == X_IDLE),
    .en_i   (x_accept && x_pos_q >= 11'd2 && x_pos_q < x_len_q + 11'd6),
    .data_i (utx_data),
    .crc_o  (tx_crc)
  );

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      x_state_q     <= X_IDLE;
      x_host_q      <= 1'b0;
      x_pos_q       <= 11'd0;
      x_len_q       <= 11'd0;
      x_seq_q       <= 8'd0;
      x_type_q      <= 8'd0;
      utx_valid     <= 1'b0;
      utx_data      <= 8'd0;
      ans_pending_q <= 1'b0;
    end else begin
      // Answers (new or resent) are queued by the executor's completion.
      if (e_done_q) ans_pending_q <= 1'b1;
      case (x_state_q)
        X_IDLE: begin
          x_pos_q <= 11'd0;
          if (ans_pending_q && !e_done_q) begin
            ans_pending_q <= 1'b0;
            x_host_q  <= 1'b0;
            x_seq_q   <= last_seq_q;
            x_type_q  <= last_type_q;
            x_len_q   <= last_len_q;
            x_state_q <= X_PREP;
          end else if (h_send_q && !ans_pending_q) begin
            x_host_q  <= 1'b1;
            x_seq_q   <= h_seq_q;
            x_type_q  <= h_we_q ? T_HOST_WRITE : T_HOST_READ;
            x_len_q   <= h_we_q ? 11'd12 : 11'd4;
            x_state_q <= X_PREP;
          end
        end
        X_PREP: x_state_q <= X_LOAD;   // the answer store reads the payload word meanwhile
        X_LOAD: begin
          utx_valid <= 1'b1;
          x_state_q <= X_SEND;
          if (x_pos_q == 11'd0)                utx_data <= 8'hA5;
          else if (x_pos_q == 11'd1)           utx_data <= 8'h5A;
          else if (x_pos_q == 11'd2)           utx_data <= x_seq_q;
          else if (x_pos_q == 11'd3)           utx_data <= x_type_q;
          else if (x_pos_q == 11'd4)           utx_data <= x_len_q[7:0];
          else if (x_pos_q == 11'd5)           utx_data <= {5'd0, x_len_q[10:8]};
          else if (x_pos_q < x_len_q + 11'd6)  utx_data <= x_host_q ? x_host_payload[x_off[3:0]*8 +: 8]
                                                                    : ans_rd_q[x_off[1:0]*8 +: 8];
          else                                 utx_data <= tx_crc[x_crc_byte*8 +: 8];
        end
        X_SEND: begin
          if (utx_ready) begin
            utx_valid <= 1'b0;
            x_pos_q   <= x_pos_q + 11'd1;
            x_state_q <= x_last ? X_IDLE : X_PREP;
          end
        end
        default: x_state_q <= X_IDLE;
      endcase
    end
  end
`ifdef FORMAL
  // Properties (tests/formal/uart_bridge.sby, docs/formal.md): a request executes only from a
  // frame whose CRC matches its bytes and whose SEQ is not the last executed one's. The proof
  // cuts the UART receiver out (its bytes become free), so any byte stream is considered.
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume(!rst_ni);
  // vmgpu_top's CSR port acknowledges only a request.
  always @(*) if (f_past_valid && rst_ni && !csr_req_o) assume(!csr_ack_i);

  // CRC-32/ISO-HDLC from its definition, one bit at a time, least significant bit first, on
  // the register before the final XOR (crc32.v folds a byte at once; this is the reference it
  // must agree with).
  function automatic [31:0] f_crc_byte(input [31:0] crc, input [7:0] d);
    integer b;
    reg [31:0] c;
    begin
      c = crc;
      for (b = 0; b < 8; b = b + 1) c = (c[0] ^ d[b]) ? ({1'b0, c[31:1]} ^ 32'hEDB88320) : {1'b0, c[31:1]};
      f_crc_byte = c;
    end
  endfunction

  // The CRC of the bytes the parser has taken since the frame's SOF (SEQ, TYPE, LEN, payload),
  // and whether the frame's four CRC bytes matched it.
  reg [31:0] f_crc;
  reg        f_crc_ok = 1'b0;
  always @(posedge clk_i) begin
    if (pend_q && p_state_q == P_SOF1 && ring_q == 8'h5A) f_crc <= 32'hFFFFFFFF;
    else if (pend_q && p_state_q >= P_SEQ && p_state_q <= P_PAY) f_crc <= f_crc_byte(f_crc, ring_q);
    f_crc_ok <= rst_ni && pend_q && p_state_q == P_CRC3 && {ring_q, p_crc_lo_q} == ~f_crc;
  end

  // The last request executed (its answer stored), as the protocol defines a retry.
  reg       f_have_last = 1'b0;
  reg [7:0] f_last_seq;
  always @(posedge clk_i) begin
    if (!rst_ni) f_have_last <= 1'b0;
    else if (e_state_q == E_START && !ans_sending) f_have_last <= 1'b0;  // the store is overwritten
    else if (e_state_q == E_FINISH) begin
      f_have_last <= 1'b1;
      f_last_seq <= p_seq_q;
    end
  end

  always @(*) if (f_past_valid && rst_ni) begin
    // The hardware CRC is the defined CRC of the frame's bytes.
    if (in_frame) assert(rx_crc == ~f_crc);
    // A frame is handed on only when its CRC matched.
    if (frame_req_q || frame_ans_q) assert(f_crc_ok);
    // While a request executes, its frame is held (P_EXEC); the CSR port is driven only by an
    // executing request, and written only by a WRITE request.
    if (e_state_q != E_IDLE) assert(p_state_q == P_EXEC);
    if (csr_req_o) assert(e_state_q == E_PING || e_state_q == E_READ || e_state_q == E_WRITE);
    if (csr_req_o && csr_we_o) assert(e_state_q == E_WRITE && p_type_q == T_WRITE);
    assert(last_valid_q == f_have_last);
    if (f_have_last) assert(last_seq_q == f_last_seq);
    assert(e_state_q <= E_CSR_GAP && p_state_q <= P_EXEC);
    // For the induction: which request each executor state serves.
    if (e_state_q == E_PING) assert(p_type_q == T_PING && !csr_we_o);
    if (e_state_q == E_READ) assert(p_type_q == T_READ && !csr_we_o);
    if (e_state_q == E_CSR_GAP) assert(p_type_q == T_READ && e_after_q == E_READ && !csr_req_o);
    if (e_state_q == E_WFETCH || e_state_q == E_WCAP) assert(p_type_q == T_WRITE && !csr_req_o);
    if (e_state_q == E_WRITE) assert(p_type_q == T_WRITE && csr_we_o);
    if (e_state_q == E_IDLE || e_state_q == E_START || e_state_q == E_FINISH) assert(!csr_req_o);
  end
  // An execution starts only from a frame that passed its CRC and is not a retry of the last
  // executed request (SEQ equal): a bad CRC or a stale SEQ never executes.
  always @(posedge clk_i) if (f_past_valid && rst_ni && $past(rst_ni)) begin
    if (e_state_q == E_START && $past(e_state_q) == E_IDLE) begin
      assert($past(frame_req_q) && $past(f_crc_ok));
      assert(!($past(f_have_last) && $past(p_seq_q) == $past(f_last_seq)));
    end
    if (host_rsp_valid_o) assert($past(frame_ans_q));
  end

  // Reachability: a request executed, a retry answered from the store, a frame dropped on its
  // CRC.
  always @(*) if (f_past_valid && rst_ni) begin
    cover(e_state_q == E_FINISH);
    cover(frame_req_q && last_valid_q && p_seq_q == last_seq_q);
    cover(pend_q && p_state_q == P_CRC3 && {ring_q, p_crc_lo_q} != rx_crc);
  end
`endif
endmodule
