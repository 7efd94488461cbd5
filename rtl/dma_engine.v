`default_nettype none

// DMA / copy engine: 2D copies and pattern fills between virtual addresses, any byte alignment.
//
// Three decoupled parts keep one read and one write moving every cycle:
//  * the chunker walks the rows and cuts each row into chunks that cross no 4 KiB page on either
//    side, translates the chunk's source (read) and destination (write) start on translation
//    port 0, and queues the physical chunk for the two streamers. It runs up to two chunks ahead,
//    so translating the next chunk hides behind streaming the current one.
//  * the read streamer turns queued chunks into word reads. A read is only issued while a slot
//    of the response buffer is reserved for it, because responses cannot be back-pressured.
//  * the write streamer turns queued chunks into word writes with byte enables; for a copy it
//    takes its bytes from a byte accumulator that realigns the source stream to the destination
//    lanes, for a fill it writes the row's pattern rotated to the row's start lane.
//
// Faults are precise at chunk granularity: when a translation faults, no access of that chunk or
// of any later one is issued, every chunk queued before it completes (its reads answered and its
// writes accepted), then done_o reports the fault. In copy order, every byte before the faulting
// chunk is therefore written and none at or after it. Source and destination must not overlap
// (memcpy rules): reads run ahead of writes.
module dma_engine #(
  parameter integer RD_DEPTH = 8  // response-buffer words = max reads in flight (power of two, >= 2; 4 streams device memory at full rate)
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // engine control
  input  wire        start_i,
  input  wire        op_i,
  input  wire [31:0] src_va_i,
  input  wire [31:0] dst_va_i,
  input  wire [31:0] width_i,
  input  wire [31:0] height_i,
  input  wire [31:0] src_pitch_i,
  input  wire [31:0] dst_pitch_i,
  input  wire [31:0] pattern_i,
  input  wire [1:0]  pattern_size_i,
  output wire        busy_o,
  output wire        done_o,
  output wire        fault_o,
  output wire [31:0] fault_va_o,
  output wire        fault_write_o,
  output wire [3:0]  fault_reason_o,
  // translation port
  output wire        tr_req_valid_o,
  input  wire        tr_req_ready_i,
  output wire [31:0] tr_req_va_o,
  output wire        tr_req_write_o,
  input  wire        tr_rsp_valid_i,
  input  wire [31:0] tr_rsp_pa_i,
  input  wire        tr_rsp_host_i,
  input  wire        tr_rsp_fault_i,
  input  wire [3:0]  tr_rsp_reason_i,
  // memory master port
  output wire        mem_rd_valid_o,
  input  wire        mem_rd_ready_i,
  output wire [31:0] mem_rd_addr_o,
  output wire        mem_rd_host_o,
  input  wire        mem_rsp_valid_i,
  input  wire [31:0] mem_rsp_data_i,
  output wire        mem_wr_valid_o,
  input  wire        mem_wr_ready_i,
  output wire [31:0] mem_wr_addr_o,
  output wire        mem_wr_host_o,
  output wire [31:0] mem_wr_data_o,
  output wire [3:0]  mem_wr_be_o
);

`include "vmgpu_regs.vh"

  localparam integer RD_AW = $clog2(RD_DEPTH);  // response-buffer index width

  // A chunk holds at most one page: 4096 bytes, spread over at most 1025 words.
  localparam integer LEN_W = 13;  // chunk length in bytes, 1..4096
  localparam integer NW_W  = 11;  // words of a chunk, 1..1025

  // Queued chunk, read side: {host, word address, words, first lane, last lane}.
  localparam integer RDESC_W = 1 + 30 + NW_W + 2 + 2;
  // Queued chunk, write side: the same plus the lane where the chunk's row starts (fill phase).
  localparam integer WDESC_W = RDESC_W + 2;

  // ---------------------------------------------------------------------------------------------
  // Chunker: row walk, page split, translation.
  // ---------------------------------------------------------------------------------------------
  localparam [2:0] TX_IDLE     = 3'd0,  // no command
                   TX_SRC_REQ  = 3'd1,  // asking for the chunk's source translation
                   TX_SRC_WAIT = 3'd2,
                   TX_DST_REQ  = 3'd3,  // asking for the chunk's destination translation
                   TX_DST_WAIT = 3'd4,
                   TX_PUSH     = 3'd5,  // translated chunk waits for room in the queues
                   TX_END      = 3'd6;  // nothing more to translate (finished or faulted): drain

  reg [2:0]  tx_state_q;
  reg        fill_q;          // the command is a fill
  reg [31:0] rows_left_q;     // rows not finished, including the current one
  reg [31:0] row_src_q;       // VA of the current row's first byte, source
  reg [31:0] row_dst_q;       // VA of the current row's first byte, destination
  reg [31:0] cur_src_q;       // VA of the current chunk's first byte, source
  reg [31:0] cur_dst_q;       // VA of the current chunk's first byte, destination
  reg [31:0] row_left_q;      // bytes of the current row from the current chunk on
  reg [31:0] src_pa_q;        // the current chunk's translated source
  reg        src_host_q;
  reg [31:0] dst_pa_q;        // the current chunk's translated destination (waiting in TX_PUSH)
  reg        dst_host_q;

  reg        done_q;
  reg        fault_q;
  reg [31:0] fault_va_q;
  reg        fault_write_q;
  reg [3:0]  fault_reason_q;

  // Chunk length: up to the end of the row and of the source and destination pages. Computed
  // from the chunk's start and registered: the chunk is queued two or more cycles after its
  // start was set (a translation lies between), and the compare/min/add chain from cur_*_q
  // back into cur_*_q did not fit a 20 ns cycle on the ECP5.
  wire [LEN_W-1:0] src_room = 13'h1000 - {1'b0, cur_src_q[11:0]};
  wire [LEN_W-1:0] dst_room = 13'h1000 - {1'b0, cur_dst_q[11:0]};
  wire [LEN_W-1:0] page_len = (!fill_q && src_room < dst_room) ? src_room : dst_room;
  wire             row_ends_d  = row_left_q <= {{(32-LEN_W){1'b0}}, page_len};
  wire [LEN_W-1:0] chunk_len_d = row_ends_d ? row_left_q[LEN_W-1:0] : page_len;
  reg              row_ends;
  reg  [LEN_W-1:0] chunk_len;
  always @(posedge clk_i) begin
    row_ends  <= row_ends_d;
    chunk_len <= chunk_len_d;
  end

  // ---------------------------------------------------------------------------------------------
  // Chunk queues (two entries each; both are pushed together, the read one only for copies).
  // ---------------------------------------------------------------------------------------------
  reg [RDESC_W-1:0] rdq_mem [0:1];
  reg [WDESC_W-1:0] wrq_mem [0:1];
  reg [1:0]         rdq_wp_q, rdq_rp_q, wrq_wp_q, wrq_rp_q;
  wire rdq_full  = (rdq_wp_q[1] != rdq_rp_q[1]) && (rdq_wp_q[0] == rdq_rp_q[0]);
  wire wrq_full  = (wrq_wp_q[1] != wrq_rp_q[1]) && (wrq_wp_q[0] == wrq_rp_q[0]);
  wire rdq_empty = rdq_wp_q == rdq_rp_q;
  wire wrq_empty = wrq_wp_q == wrq_rp_q;
  wire q_room    = !rdq_full && !wrq_full;

  // The descriptor being pushed: the destination comes straight from the translation response
  // when there is room at once, else from dst_pa_q in TX_PUSH.
  wire        push_from_rsp = tx_state_q == TX_DST_WAIT && tr_rsp_valid_i && !tr_rsp_fault_i;
  wire        chunk_push    = q_room && (push_from_rsp || tx_state_q == TX_PUSH);
  wire [31:0] push_dst_pa   = push_from_rsp ? tr_rsp_pa_i : dst_pa_q;
  wire        push_dst_host = push_from_rsp ? tr_rsp_host_i : dst_host_q;

  wire [1:0]    push_src_lo = src_pa_q[1:0];
  wire [1:0]    push_dst_lo = push_dst_pa[1:0];
  wire [LEN_W-1:0] src_span = {{(LEN_W-2){1'b0}}, push_src_lo} + chunk_len + 13'd3;
  wire [LEN_W-1:0] dst_span = {{(LEN_W-2){1'b0}}, push_dst_lo} + chunk_len + 13'd3;
  wire [1:0]    len_lo      = chunk_len[1:0];
  wire [1:0]    push_src_hi = push_src_lo + len_lo - 2'd1;
  wire [1:0]    push_dst_hi = push_dst_lo + len_lo - 2'd1;
  // The span's low bits only round the word count up.
  wire unused_span_lo = ^{src_span[1:0], dst_span[1:0]};
  wire [RDESC_W-1:0] push_rdesc = {src_host_q, src_pa_q[31:2], src_span[LEN_W-1:2],
                                   push_src_lo, push_src_hi};
  wire [WDESC_W-1:0] push_wdesc = {push_dst_host, push_dst_pa[31:2], dst_span[LEN_W-1:2],
                                   push_dst_lo, push_dst_hi, row_dst_q[1:0]};

  wire start_cmd = start_i && tx_state_q == TX_IDLE;
  wire zero_cmd  = width_i == 32'd0 || height_i == 32'd0;
  wire last_row  = rows_left_q == 32'd1;
  wire [2:0] first_req_state = fill_q ? TX_DST_REQ : TX_SRC_REQ;

  // Everything issued has completed: the condition for done once the chunker has stopped.
  wire drained;

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      tx_state_q     <= TX_IDLE;
      fill_q         <= 1'b0;
      rows_left_q    <= 32'd0;
      row_src_q      <= 32'd0;
      row_dst_q      <= 32'd0;
      cur_src_q      <= 32'd0;
      cur_dst_q      <= 32'd0;
      row_left_q     <= 32'd0;
      src_pa_q       <= 32'd0;
      src_host_q     <= 1'b0;
      dst_pa_q       <= 32'd0;
      dst_host_q     <= 1'b0;
      done_q         <= 1'b0;
      fault_q        <= 1'b0;
      fault_va_q     <= 32'd0;
      fault_write_q  <= 1'b0;
      fault_reason_q <= 4'd0;
    end else begin
      done_q <= 1'b0;
      case (tx_state_q)
        TX_IDLE: begin
          if (start_cmd) begin
            fill_q      <= op_i;
            rows_left_q <= height_i;
            row_src_q   <= src_va_i;
            row_dst_q   <= dst_va_i;
            cur_src_q   <= src_va_i;
            cur_dst_q   <= dst_va_i;
            row_left_q  <= width_i;
            fault_q     <= 1'b0;
            tx_state_q  <= zero_cmd ? TX_END : (op_i ? TX_DST_REQ : TX_SRC_REQ);
          end
        end
        TX_SRC_REQ: begin
          if (tr_req_ready_i) tx_state_q <= TX_SRC_WAIT;
        end
        TX_SRC_WAIT: begin
          if (tr_rsp_valid_i) begin
            if (tr_rsp_fault_i) begin
              fault_q        <= 1'b1;
              fault_va_q     <= cur_src_q;
              fault_write_q  <= 1'b0;
              fault_reason_q <= tr_rsp_reason_i;
              tx_state_q     <= TX_END;
            end else begin
              src_pa_q   <= tr_rsp_pa_i;
              src_host_q <= tr_rsp_host_i;
              tx_state_q <= TX_DST_REQ;
            end
          end
        end
        TX_DST_REQ: begin
          if (tr_req_ready_i) tx_state_q <= TX_DST_WAIT;
        end
        TX_DST_WAIT: begin
          if (tr_rsp_valid_i) begin
            dst_pa_q   <= tr_rsp_pa_i;
            dst_host_q <= tr_rsp_host_i;
            if (tr_rsp_fault_i) begin
              fault_q        <= 1'b1;
              fault_va_q     <= cur_dst_q;
              fault_write_q  <= 1'b1;
              fault_reason_q <= tr_rsp_reason_i;
              tx_state_q     <= TX_END;
            end else if (!q_room) begin
              tx_state_q <= TX_PUSH;
            end
          end
        end
        TX_PUSH: ;  // left through chunk_push below
        TX_END: begin
          if (drained) begin
            done_q     <= 1'b1;
            tx_state_q <= TX_IDLE;
          end
        end
        default: tx_state_q <= TX_IDLE;
      endcase

      // Step to the next chunk once this one is queued.
      if (chunk_push) begin
        if (row_ends) begin
          if (last_row) begin
            tx_state_q <= TX_END;
          end else begin
            rows_left_q <= rows_left_q - 32'd1;
            row_src_q   <= row_src_q + src_pitch_i;
            row_dst_q   <= row_dst_q + dst_pitch_i;
            cur_src_q   <= row_src_q + src_pitch_i;
            cur_dst_q   <= row_dst_q + dst_pitch_i;
            row_left_q  <= width_i;
            tx_state_q  <= first_req_state;
          end
        end else begin
          cur_src_q  <= cur_src_q + {{(32-LEN_W){1'b0}}, chunk_len};
          cur_dst_q  <= cur_dst_q + {{(32-LEN_W){1'b0}}, chunk_len};
          row_left_q <= row_left_q - {{(32-LEN_W){1'b0}}, chunk_len};
          tx_state_q <= first_req_state;
        end
      end
    end
  end

  assign tr_req_valid_o = tx_state_q == TX_SRC_REQ || tx_state_q == TX_DST_REQ;
  assign tr_req_va_o    = tx_state_q == TX_DST_REQ ? cur_dst_q : cur_src_q;
  assign tr_req_write_o = tx_state_q == TX_DST_REQ;

  // ---------------------------------------------------------------------------------------------
  // Read streamer and response buffer.
  // ---------------------------------------------------------------------------------------------
  reg            rs_active_q;   // a chunk is being read
  reg [29:0]     rs_addr_q;     // next word to read
  reg [NW_W-1:0] rs_left_q;     // words of the chunk still to read, including rs_addr_q
  reg            rs_first_q;    // rs_addr_q is the chunk's first word
  reg [1:0]      rs_lo_q;       // first lane of the chunk's first word
  reg [1:0]      rs_hi_q;       // last lane of the chunk's last word
  reg            rs_host_q;
  reg            rd_valid_q;
  reg [31:0]     rd_addr_q;
  reg            rd_host_q;

  // Response buffer: a slot is reserved (with its lane info) when a read is issued, filled when
  // the response comes, and freed when the accumulator takes it.
  reg [31:0]  rbuf_data [0:RD_DEPTH-1];  // response, shifted so that its first valid byte is byte 0
  reg [1:0]   rbuf_lo   [0:RD_DEPTH-1];  // first valid lane of the word
  reg [2:0]   rbuf_cnt  [0:RD_DEPTH-1];  // valid bytes of the word, 1..4
  reg [RD_AW:0] rsv_wp_q;   // next slot to reserve
  reg [RD_AW:0] rsp_wp_q;   // next slot a response fills
  reg [RD_AW:0] rbuf_rp_q;  // oldest slot

  wire [RD_AW:0] rbuf_used = rsv_wp_q - rbuf_rp_q;
  wire           rd_credit = !rbuf_used[RD_AW];  // fewer than RD_DEPTH slots in use
  wire           rs_last   = rs_left_q == {{(NW_W-1){1'b0}}, 1'b1};
  wire [1:0]     rs_word_lo = rs_first_q ? rs_lo_q : 2'd0;
  wire [1:0]     rs_word_hi = rs_last ? rs_hi_q : 2'd3;
  wire           rs_issue  = rs_active_q && rd_credit && (!rd_valid_q || mem_rd_ready_i);
  wire           rs_load   = !rdq_empty && (!rs_active_q || (rs_issue && rs_last));
  wire [RDESC_W-1:0] rdq_head = rdq_mem[rdq_rp_q[0]];

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      rs_active_q <= 1'b0;
      rs_addr_q   <= 30'd0;
      rs_left_q   <= {NW_W{1'b0}};
      rs_first_q  <= 1'b0;
      rs_lo_q     <= 2'd0;
      rs_hi_q     <= 2'd0;
      rs_host_q   <= 1'b0;
      rd_valid_q  <= 1'b0;
      rd_addr_q   <= 32'd0;
      rd_host_q   <= 1'b0;
      rsv_wp_q    <= {(RD_AW+1){1'b0}};
      rsp_wp_q    <= {(RD_AW+1){1'b0}};
      rdq_rp_q    <= 2'd0;
    end else begin
      if (rs_issue) begin
        rd_valid_q <= 1'b1;
        rd_addr_q  <= {rs_addr_q, 2'b00};
        rd_host_q  <= rs_host_q;
        rsv_wp_q   <= rsv_wp_q + 1'b1;
        rs_addr_q  <= rs_addr_q + 30'd1;
        rs_left_q  <= rs_left_q - {{(NW_W-1){1'b0}}, 1'b1};
        rs_first_q <= 1'b0;
        if (rs_last) rs_active_q <= 1'b0;
      end else if (mem_rd_ready_i) begin
        rd_valid_q <= 1'b0;
      end
      if (rs_load) begin
        {rs_host_q, rs_addr_q, rs_left_q, rs_lo_q, rs_hi_q} <= rdq_head;
        rs_first_q  <= 1'b1;
        rs_active_q <= 1'b1;
        rdq_rp_q    <= rdq_rp_q + 2'd1;
      end
      if (mem_rsp_valid_i) rsp_wp_q <= rsp_wp_q + 1'b1;
    end
  end

  // Buffer storage needs no reset: a slot is only read after it was written.
  always @(posedge clk_i) begin
    if (rs_issue) begin
      rbuf_lo[rsv_wp_q[RD_AW-1:0]]  <= rs_word_lo;
      rbuf_cnt[rsv_wp_q[RD_AW-1:0]] <= {1'b0, rs_word_hi - rs_word_lo} + 3'd1;
    end
    if (mem_rsp_valid_i)
      rbuf_data[rsp_wp_q[RD_AW-1:0]] <= mem_rsp_data_i >> {rbuf_lo[rsp_wp_q[RD_AW-1:0]], 3'b000};
  end

  assign mem_rd_valid_o = rd_valid_q;
  assign mem_rd_addr_o  = rd_addr_q;
  assign mem_rd_host_o  = rd_host_q;

  // ---------------------------------------------------------------------------------------------
  // Realigning byte accumulator: bytes 0..acc_n-1 of acc are the next source bytes in copy order.
  // It takes a buffered word whenever it holds at most 3 bytes, so it never exceeds 7.
  // ---------------------------------------------------------------------------------------------
  reg [55:0] acc_q;
  reg [3:0]  acc_n_q;

  wire        head_valid = rsp_wp_q != rbuf_rp_q;
  wire [31:0] head_data  = rbuf_data[rbuf_rp_q[RD_AW-1:0]];
  wire [2:0]  head_cnt   = rbuf_cnt[rbuf_rp_q[RD_AW-1:0]];
  wire        acc_take   = head_valid && acc_n_q < 4'd4;
  wire [55:0] acc_keep   = ~(56'hFF_FFFF_FFFF_FFFF << {acc_n_q[2:0], 3'b000});
  wire [55:0] acc_comb   = acc_take ? ((acc_q & acc_keep) | ({24'd0, head_data} << {acc_n_q[1:0], 3'b000}))
                                    : acc_q;
  wire [3:0]  acc_comb_n = acc_n_q + (acc_take ? {1'b0, head_cnt} : 4'd0);

  // ---------------------------------------------------------------------------------------------
  // Write streamer.
  // ---------------------------------------------------------------------------------------------
  reg            ws_active_q;
  reg [29:0]     ws_addr_q;
  reg [NW_W-1:0] ws_left_q;
  reg            ws_first_q;
  reg [1:0]      ws_lo_q;
  reg [1:0]      ws_hi_q;
  reg            ws_host_q;
  reg [1:0]      ws_lane_q;     // lane of the chunk's row start: where pattern byte 0 goes
  reg            wr_valid_q;
  reg [31:0]     wr_addr_q;
  reg            wr_host_q;
  reg [31:0]     wr_data_q;
  reg [3:0]      wr_be_q;

  wire       ws_last    = ws_left_q == {{(NW_W-1){1'b0}}, 1'b1};
  wire [1:0] ws_word_lo = ws_first_q ? ws_lo_q : 2'd0;
  wire [1:0] ws_word_hi = ws_last ? ws_hi_q : 2'd3;
  wire [3:0] ws_need    = {2'b00, ws_word_hi - ws_word_lo} + 4'd1;
  wire [3:0] ws_be      = (4'b1111 << ws_word_lo) & (4'b1111 >> (2'd3 - ws_word_hi));
  wire       ws_data_ok = fill_q || acc_comb_n >= ws_need;
  wire       ws_issue   = ws_active_q && ws_data_ok && (!wr_valid_q || mem_wr_ready_i);
  wire       ws_load    = !wrq_empty && (!ws_active_q || (ws_issue && ws_last));
  wire [WDESC_W-1:0] wrq_head = wrq_mem[wrq_rp_q[0]];

  // Fill word: the pattern repeated over 4 bytes, rotated so that its byte 0 sits on the row's
  // first lane; every pattern size divides 4, so the same word serves every word of the row.
  wire [31:0] pat_rep = pattern_size_i == FILL_8  ? {4{pattern_i[7:0]}} :
                        pattern_size_i == FILL_16 ? {2{pattern_i[15:0]}} : pattern_i;
  wire [31:0] fill_word = (pat_rep << {ws_lane_q, 3'b000}) |
                          (pat_rep >> (6'd32 - {1'b0, ws_lane_q, 3'b000}));
  wire [31:0] copy_word = acc_comb[31:0] << {ws_word_lo, 3'b000};

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      ws_active_q <= 1'b0;
      ws_addr_q   <= 30'd0;
      ws_left_q   <= {NW_W{1'b0}};
      ws_first_q  <= 1'b0;
      ws_lo_q     <= 2'd0;
      ws_hi_q     <= 2'd0;
      ws_host_q   <= 1'b0;
      ws_lane_q   <= 2'd0;
      wr_valid_q  <= 1'b0;
      wr_addr_q   <= 32'd0;
      wr_host_q   <= 1'b0;
      wr_data_q   <= 32'd0;
      wr_be_q     <= 4'd0;
      wrq_rp_q    <= 2'd0;
      acc_q       <= 56'd0;
      acc_n_q     <= 4'd0;
      rbuf_rp_q   <= {(RD_AW+1){1'b0}};
    end else begin
      if (ws_issue) begin
        wr_valid_q <= 1'b1;
        wr_addr_q  <= {ws_addr_q, 2'b00};
        wr_host_q  <= ws_host_q;
        wr_data_q  <= fill_q ? fill_word : copy_word;
        wr_be_q    <= ws_be;
        ws_addr_q  <= ws_addr_q + 30'd1;
        ws_left_q  <= ws_left_q - {{(NW_W-1){1'b0}}, 1'b1};
        ws_first_q <= 1'b0;
        if (ws_last) ws_active_q <= 1'b0;
      end else if (mem_wr_ready_i) begin
        wr_valid_q <= 1'b0;
      end
      if (ws_load) begin
        {ws_host_q, ws_addr_q, ws_left_q, ws_lo_q, ws_hi_q, ws_lane_q} <= wrq_head;
        ws_first_q  <= 1'b1;
        ws_active_q <= 1'b1;
        wrq_rp_q    <= wrq_rp_q + 2'd1;
      end
      if (acc_take) rbuf_rp_q <= rbuf_rp_q + 1'b1;
      if (ws_issue && !fill_q) begin
        acc_q   <= acc_comb >> {ws_need[2:0], 3'b000};
        acc_n_q <= acc_comb_n - ws_need;
      end else begin
        acc_q   <= acc_comb;
        acc_n_q <= acc_comb_n;
      end
    end
  end

  assign mem_wr_valid_o = wr_valid_q;
  assign mem_wr_addr_o  = wr_addr_q;
  assign mem_wr_host_o  = wr_host_q;
  assign mem_wr_data_o  = wr_data_q;
  assign mem_wr_be_o    = wr_be_q;

  // ---------------------------------------------------------------------------------------------
  // Chunk queue writes (storage without reset, as for the response buffer).
  // ---------------------------------------------------------------------------------------------
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      rdq_wp_q <= 2'd0;
      wrq_wp_q <= 2'd0;
    end else if (chunk_push) begin
      if (!fill_q) rdq_wp_q <= rdq_wp_q + 2'd1;
      wrq_wp_q <= wrq_wp_q + 2'd1;
    end
  end

  always @(posedge clk_i) begin
    if (chunk_push) begin
      rdq_mem[rdq_wp_q[0]] <= push_rdesc;
      wrq_mem[wrq_wp_q[0]] <= push_wdesc;
    end
  end

  assign drained = rdq_empty && wrq_empty && !rs_active_q && !ws_active_q && !rd_valid_q &&
                   rbuf_used == {(RD_AW+1){1'b0}} && !wr_valid_q;

  assign busy_o         = tx_state_q != TX_IDLE || done_q;
  assign done_o         = done_q;
  assign fault_o        = done_q && fault_q;
  assign fault_va_o     = fault_va_q;
  assign fault_write_o  = fault_write_q;
  assign fault_reason_o = fault_reason_q;

endmodule

`default_nettype wire
