`default_nettype none
// graphics_engine: GFX_FILL, GFX_BLIT (nearest-neighbour scaled copy) and GFX_MIPGEN (2x2 box
// filter) over 32-bit RGBA8 pixels in virtual memory, one destination pixel at a time.
//
// Built for area (an ECP5-25F holds the whole device): sizes are 16-bit counters, every address
// is a row base plus a column (row bases step by one pitch addition, no multiplier), one
// adder per counter and no adder shared through wide multiplexers (on the ECP5 a 2:1 mux costs
// as much per bit as the adder it would save).
//
// Each destination pixel needs 0 (fill), 1 (blit) or 4 (mipgen) source reads. Responses are
// registered before anything uses them; the pixel is written in the cycle its last registered
// response is taken (mipgen: from the channel sums with it added), and with it the next pixel's
// first read goes out when its page is cached and its source column is ready. With memory answering a cycle after acceptance: 1 cycle per pixel for
// a fill, 3 for a 1:1 or enlarging blit, 5 for a 2:1 shrinking one (one cycle per source
// column skipped), 6 for mipgen, plus a few cycles per row.
//
// Source columns and rows come without a divider: the blit walks x*src_w/dst_w with a Bresenham
// remainder (one add of src_w, then one trial subtraction of dst_w per cycle; when src_w <=
// dst_w at most one succeeds, so the failing one is skipped); mipgen steps the column twice per
// pixel and the row twice per row, each step held at the last column / row (the clamp).
//
// The source rows (mipgen reads two) and the destination each keep the translation of their
// current 4 KiB page and ask the MMU only on a page change. Faults are precise in pixel order
// (row-major): when a translation faults at pixel k, pixels before k are written and nothing at
// or after k is; a translation for pixel k+1 starts only after pixel k's write has gone out, and
// responses of reads already accepted are taken before done.
//
// Operand checks at start, in this order, before any access: a source VA or pitch not word
// aligned faults MISALIGNED, a destination one likewise; a destination width or height above
// 65535 faults BAD_COMMAND; a destination width or height of 0 does nothing; a source width or
// height of 0 or above 65535 (blit, mipgen) faults BAD_COMMAND. Every operand fault reports the
// VA of the rectangle it belongs to (src_va as a read, dst_va as a write), because that is what
// the address path shows before the first pixel: FAULT_VA is always the translation port's VA.
// Source and destination must not overlap.
module graphics_engine (
  input  wire        clk_i,
  input  wire        rst_ni,
  // engine control (command processor; operands held until done_o)
  input  wire        start_i,
  input  wire [1:0]  op_i,         // 0 fill, 1 blit, 2 mipgen
  input  wire [31:0] src_va_i,
  input  wire [31:0] src_pitch_i,  // bytes
  input  wire [31:0] src_w_i,      // pixels (at most 65535)
  input  wire [31:0] src_h_i,      // rows (at most 65535)
  input  wire [31:0] dst_va_i,
  input  wire [31:0] dst_pitch_i,
  input  wire [31:0] dst_w_i,
  input  wire [31:0] dst_h_i,
  input  wire [31:0] color_i,      // fill value
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

  localparam [1:0] OPG_FILL = 2'd0, OPG_BLIT = 2'd1;

  localparam [3:0] S_IDLE    = 4'd0,   // no command
                   S_CHECK   = 4'd1,   // operand checks
                   S_YADD    = 4'd2,   // blit, next row: add src_h to the row remainder
                   S_YSUB    = 4'd3,   // blit: trial subtractions of dst_h, a pitch each
                   S_MROW0   = 4'd4,   // mipgen: take the upper source row, step the cursor
                   S_MROW1   = 4'd5,   // mipgen: take the lower source row, step the cursor
                   S_RD      = 4'd6,   // issuing the pixel's reads
                   S_WR      = 4'd7,   // waiting for the pixel's data, then writing it
                   S_TR_REQ  = 4'd8,   // translation request held until accepted
                   S_TR_WAIT = 4'd9,
                   S_END     = 4'd10;  // finished or faulted: drain, then done

  localparam [1:0] XS_IDLE = 2'd0, XS_A = 2'd1, XS_B = 2'd2;  // source column stepping phase

  reg [3:0]  state_q;
  reg [1:0]  op_q;
  reg [15:0] dx_q, dy_q;            // destination column and row
  reg [15:0] sx_q, sy_q;            // source column; mipgen: source row of the row cursor
  reg [31:0] drow_q;                // VA of the destination row
  reg [31:0] srow_q;                // source row cursor (VA)
  reg [31:0] srow0_q;               // source row read from (mipgen: row min(2y, h-1))
  reg [31:2] srow1_q;               // mipgen: row min(2y+1, h-1)
  reg [16:0] rx_q, ry_q;            // blit: Bresenham remainders (x*src_w mod dst_w, same for y)
  reg [1:0]  xs_q;                  // source column stepping for the next pixel
  reg [1:0]  k_q;                   // next read of the pixel (mipgen: bit 0 column, bit 1 row)
  reg [1:0]  got_q;                 // responses of the pixel taken
  reg        pix_rdy_q;             // all of the pixel's responses taken
  reg [2:0]  rd_out_q;              // reads accepted and not yet answered
  reg        rsp_v_q;               // registered memory response
  reg [31:0] rsp_q;
  reg [9:0]  acc0_q, acc1_q, acc2_q, acc3_q;  // mipgen: channel sums plus 2 (the rounding)
  reg        tr_wr_q;               // the VA of interest is the destination's (write)

  // One-entry translation caches: source rows 0 and 1 (mipgen's two rows are a pitch apart and
  // often in different pages; a blit uses row 0 only) and destination.
  reg        s0_v_q, s1_v_q, d_v_q;
  reg        s0_host_q, s1_host_q, d_host_q;
  reg [19:0] s0_tag_q, s1_tag_q, d_tag_q;
  reg [19:0] s0_frame_q, s1_frame_q, d_frame_q;

  reg        rd_valid_q, rd_host_q, wr_valid_q, wr_host_q;
  reg [31:2] rd_addr_q, wr_addr_q;
  reg [31:0] wr_data_q;

  reg        done_q, fault_q;
  reg [3:0]  fault_reason_q;

  wire is_fill = op_q == OPG_FILL;
  wire is_blit = op_q == OPG_BLIT;
  wire is_mip  = op_q[1];

  wire [15:0] src_w = src_w_i[15:0];
  wire [15:0] src_h = src_h_i[15:0];
  wire [15:0] dst_w = dst_w_i[15:0];
  wire [15:0] dst_h = dst_h_i[15:0];

  // ---- operand checks (inputs are held by the command processor) ----
  wire src_mis   = !is_fill && (src_va_i[1:0] != 2'b00 || src_pitch_i[1:0] != 2'b00);
  wire dst_mis   = dst_va_i[1:0] != 2'b00 || dst_pitch_i[1:0] != 2'b00;
  wire dst_big   = dst_w_i[31:16] != 16'd0 || dst_h_i[31:16] != 16'd0;
  wire dst_empty = dst_w == 16'd0 || dst_h == 16'd0;
  wire src_bad   = !is_fill && (src_w_i[31:16] != 16'd0 || src_h_i[31:16] != 16'd0 ||
                                src_w == 16'd0 || src_h == 16'd0);

  // ---- counters ----
  wire [15:0] dx_inc = dx_q + 16'd1;
  wire [15:0] dy_inc = dy_q + 16'd1;
  wire [15:0] sx_inc = sx_q + 16'd1;
  wire [15:0] sy_inc = sy_q + 16'd1;
  wire        row_end  = dx_inc == dst_w;
  wire        last_row = dy_inc == dst_h;
  // mipgen: sx is the last column. Compared with src_w - 1 (from the held operand) rather than
  // sx + 1 with src_w, so that no carry chain sits before the read address adder.
  // Registered at the start (the operand is held for the whole command): computed every cycle
  // it put a carry chain in front of the column compare and the read address adder.
  reg  [15:0] src_w_last_q;
  // sx == src_w - 1, kept in a flip-flop beside sx (updated where sx is): the compare fed the
  // read address adder's carry-in, ahead of the page-tag compare and the read issue.
  reg         x_clamp_q;
  wire        x_clamp  = x_clamp_q;
  wire        y_clamp  = sy_inc == src_h;   // mipgen: the cursor is on the last row

  // ---- addresses: row base + column, the +1 column of mipgen's second read as carry in ----
  wire        col_inc = k_q[0] && !x_clamp;
  wire [29:0] sbase   = k_q[1] ? srow1_q[31:2] : srow0_q[31:2];
  wire [30:0] rva_sum = {sbase, 1'b1} + {14'd0, sx_q, col_inc};
  wire [31:0] rva     = {rva_sum[30:1], srow0_q[1:0]};
  wire [31:0] dva     = {drow_q[31:2] + {14'd0, dx_q}, drow_q[1:0]};
  wire [29:0] srow_step = srow_q[31:2] + src_pitch_i[31:2];
  wire [29:0] drow_step = drow_q[31:2] + dst_pitch_i[31:2];

  wire        s_v     = k_q[1] ? s1_v_q : s0_v_q;
  wire [19:0] s_tag   = k_q[1] ? s1_tag_q : s0_tag_q;
  wire [19:0] s_frame = k_q[1] ? s1_frame_q : s0_frame_q;
  wire        s_host  = k_q[1] ? s1_host_q : s0_host_q;
  wire s_hit   = s_v && s_tag == rva[31:12];
  wire d_hit   = d_v_q && d_tag_q == dva[31:12];
  wire rd_free = !rd_valid_q || mem_rd_ready_i;
  wire wr_free = !wr_valid_q || mem_wr_ready_i;

  // ---- Bresenham: one add of the source size, then trial subtractions of the destination's;
  // the subtraction's borrow (bit 17) says whether it is taken ----
  wire        x_add  = xs_q == XS_A;
  wire [18:0] bx_sum = {1'b0, rx_q, 1'b1} + {x_add ? {2'b00, src_w} : ~{2'b00, dst_w}, !x_add};
  wire [17:0] bx     = bx_sum[18:1];
  wire        y_add  = state_q == S_YADD;
  wire [18:0] by_sum = {1'b0, ry_q, 1'b1} + {y_add ? {2'b00, src_h} : ~{2'b00, dst_h}, !y_add};
  wire [17:0] by     = by_sum[18:1];
  wire        x_enlarge = src_w <= dst_w;   // at most one source column per destination pixel

  // ---- the pixel ----
  wire [1:0]  last_k    = is_mip ? 2'd3 : 2'd0;
  wire        rsp_last  = rsp_v_q && got_q == last_k;
  // The pixel can go out in the cycle its last response is taken (mipgen: the sums with it).
  wire        pix_ready = is_fill || pix_rdy_q || rsp_last;
  wire [9:0]  acc0_next = acc0_q + {2'd0, rsp_q[7:0]};
  wire [9:0]  acc1_next = acc1_q + {2'd0, rsp_q[15:8]};
  wire [9:0]  acc2_next = acc2_q + {2'd0, rsp_q[23:16]};
  wire [9:0]  acc3_next = acc3_q + {2'd0, rsp_q[31:24]};
  wire [31:0] mip_pix   = pix_rdy_q ? {acc3_q[9:2], acc2_q[9:2], acc1_q[9:2], acc0_q[9:2]}
                                    : {acc3_next[9:2], acc2_next[9:2], acc1_next[9:2], acc0_next[9:2]};
  wire [31:0] out_pix   = is_fill ? color_i : is_blit ? rsp_q : mip_pix;

  // ---- what happens this cycle ----
  wire start    = state_q == S_IDLE && start_i;
  always @(posedge clk_i) if (start) src_w_last_q <= src_w - 16'd1;
  wire wr_fire  = state_q == S_WR && pix_ready && d_hit && wr_free;
  // Reads: in S_RD, or the next pixel's first one together with this pixel's write.
  wire rd_go    = xs_q == XS_IDLE && s_hit && rd_free &&
                  (state_q == S_RD || (wr_fire && !row_end && !is_fill));
  wire rd_last  = rd_go && k_q == last_k;
  wire row_next = wr_fire && row_end && !last_row;
  wire tr_ask   = (state_q == S_RD && !rd_go && xs_q == XS_IDLE && !s_hit) ||
                  (state_q == S_WR && !wr_fire && !d_hit);
  wire tr_ok    = state_q == S_TR_WAIT && tr_rsp_valid_i && !tr_rsp_fault_i;
  wire x_busy   = xs_q != XS_IDLE;
  wire x_taken  = xs_q == XS_B && !bx[17];         // blit: a trial subtraction succeeded
  wire sx_en    = is_mip ? x_busy && !x_clamp : x_taken;
  wire rx_en    = !is_mip && (xs_q == XS_A || x_taken);
  wire y_taken  = state_q == S_YSUB && !by[17];
  wire mrow     = state_q == S_MROW0 || state_q == S_MROW1;
  wire srow_adv = y_taken || (mrow && !y_clamp);

  // ---- datapath registers: each has one clear and one enable, so that the FPGA's flip-flop
  // reset and clock enable do the selecting instead of multiplexers ----
  always @(posedge clk_i) begin
    if (!rst_ni || start || row_next) begin
      dx_q <= 16'd0; sx_q <= 16'd0; rx_q <= 17'd0; k_q <= 2'd0;
      x_clamp_q <= src_w == 16'd1;  // sx back to 0 (src_w is held for the whole command)
    end else begin
      if (wr_fire) dx_q <= dx_inc;
      if (sx_en)   sx_q <= sx_inc;
      if (sx_en)   x_clamp_q <= sx_inc == src_w_last_q;
      if (rx_en)   rx_q <= bx[16:0];
      if (rd_go && is_mip) k_q <= k_q + 2'd1;
    end
  end

  always @(posedge clk_i) begin
    if (!rst_ni || start) begin
      dy_q <= 16'd0; sy_q <= 16'd0; ry_q <= 17'd0;
    end else begin
      if (row_next) dy_q <= dy_inc;
      if (mrow && !y_clamp) sy_q <= sy_inc;
      if (state_q == S_YADD || y_taken) ry_q <= by[16:0];
    end
  end

  always @(posedge clk_i) begin
    if (!rst_ni || start || wr_fire) begin
      got_q <= 2'd0; pix_rdy_q <= 1'b0;
      acc0_q <= 10'd2; acc1_q <= 10'd2; acc2_q <= 10'd2; acc3_q <= 10'd2;
    end else begin
      if (rsp_v_q) begin
        got_q  <= got_q + 2'd1;
        acc0_q <= acc0_next;
        acc1_q <= acc1_next;
        acc2_q <= acc2_next;
        acc3_q <= acc3_next;
      end
      if (rsp_last) pix_rdy_q <= 1'b1;
    end
  end

  // Row bases and the page caches (no reset needed: loaded or invalidated at start).
  always @(posedge clk_i) begin
    if (start || srow_adv) srow_q[31:2] <= start ? src_va_i[31:2] : srow_step;
    if (start)             srow_q[1:0]  <= src_va_i[1:0];
    if (start || row_next) drow_q[31:2] <= start ? dst_va_i[31:2] : drow_step;
    if (start)             drow_q[1:0]  <= dst_va_i[1:0];
    if (state_q == S_CHECK || (state_q == S_YSUB && by[17]) || state_q == S_MROW0)
      srow0_q <= srow_q;
    if (state_q == S_MROW1) srow1_q <= srow_q[31:2];
    if (tr_ok && tr_wr_q) begin
      d_tag_q <= dva[31:12]; d_frame_q <= tr_rsp_pa_i[31:12]; d_host_q <= tr_rsp_host_i;
    end
    if (tr_ok && !tr_wr_q && !k_q[1]) begin
      s0_tag_q <= rva[31:12]; s0_frame_q <= tr_rsp_pa_i[31:12]; s0_host_q <= tr_rsp_host_i;
    end
    if (tr_ok && !tr_wr_q && k_q[1]) begin
      s1_tag_q <= rva[31:12]; s1_frame_q <= tr_rsp_pa_i[31:12]; s1_host_q <= tr_rsp_host_i;
    end
    if (mem_rsp_valid_i) rsp_q <= mem_rsp_data_i;
    // The request payloads load whenever their slot is free, not only on rd_go / wr_fire: when
    // nothing is issued the slot's valid is low and the payload is not looked at, and the
    // issue conditions (page-tag compares behind address adders) then drive one flip-flop's
    // input each instead of the clock enables of every payload bit (board timing).
    if (rd_free) begin
      rd_addr_q <= {s_frame, rva[11:2]};
      rd_host_q <= s_host;
    end
    if (wr_free) begin
      wr_addr_q <= {d_frame_q, dva[11:2]};
      wr_host_q <= d_host_q;
      wr_data_q <= out_pix;
    end
  end

  always @(posedge clk_i) begin
    if (!rst_ni || start) begin
      // Mappings may have changed since the last command.
      s0_v_q <= 1'b0; s1_v_q <= 1'b0; d_v_q <= 1'b0;
    end else if (tr_ok) begin
      if (tr_wr_q) d_v_q <= 1'b1;
      else if (k_q[1]) s1_v_q <= 1'b1;
      else s0_v_q <= 1'b1;
    end
  end

  // Source column for the next pixel, stepped while this pixel's data comes.
  always @(posedge clk_i) begin
    if (!rst_ni || start || row_next) begin
      xs_q <= XS_IDLE;
    end else begin
      case (xs_q)
        XS_A:    xs_q <= XS_B;
        XS_B:    if (is_mip || !x_taken || x_enlarge) xs_q <= XS_IDLE;
        default: if (rd_last) xs_q <= XS_A;
      endcase
    end
  end

  // The VA of interest: chosen at the operand checks and at each translation request.
  always @(posedge clk_i) begin
    if (!rst_ni) tr_wr_q <= 1'b0;
    else if (state_q == S_CHECK) tr_wr_q <= !src_mis && (dst_mis || dst_big);
    else if (tr_ask) tr_wr_q <= state_q == S_WR;
  end

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q <= S_IDLE; op_q <= OPG_FILL;
      rd_out_q <= 3'd0; rsp_v_q <= 1'b0;
      rd_valid_q <= 1'b0; wr_valid_q <= 1'b0;
      done_q <= 1'b0; fault_q <= 1'b0; fault_reason_q <= FAULT_NONE;
    end else begin
      done_q <= 1'b0;

      // Memory channels: a request holds until accepted.
      if (rd_valid_q && mem_rd_ready_i) rd_valid_q <= 1'b0;
      if (wr_valid_q && mem_wr_ready_i) wr_valid_q <= 1'b0;
      if (rd_go) rd_valid_q <= 1'b1;
      if (wr_fire) wr_valid_q <= 1'b1;
      rd_out_q <= rd_out_q + {2'd0, rd_valid_q && mem_rd_ready_i} - {2'd0, mem_rsp_valid_i};
      // Responses are always taken (they cannot be held back), registered, then used.
      rsp_v_q <= mem_rsp_valid_i;

      if (tr_ask) state_q <= S_TR_REQ;

      case (state_q)
        S_IDLE: begin
          if (start_i) begin
            op_q    <= op_i;
            fault_q <= 1'b0;
            state_q <= S_CHECK;
          end
        end

        S_CHECK: begin
          // The address path now shows src_va (read) or dst_va (write): an operand fault
          // reports the rectangle's VA through it.
          if (src_mis || dst_mis || dst_big || dst_empty || src_bad) state_q <= S_END;
          else state_q <= is_fill ? S_WR : is_blit ? S_YSUB : S_MROW0;
          if (src_mis || dst_mis || dst_big || (!dst_empty && src_bad)) begin
            fault_q        <= 1'b1;
            fault_reason_q <= (src_mis || dst_mis) ? FAULT_MISALIGNED : FAULT_BAD_COMMAND;
          end
        end

        S_YADD:  state_q <= S_YSUB;
        S_YSUB:  if (by[17]) state_q <= S_RD;
        S_MROW0: state_q <= S_MROW1;
        S_MROW1: state_q <= S_RD;
        S_RD:    if (rd_last) state_q <= S_WR;

        S_WR: begin
          if (wr_fire) begin
            if (row_end) begin
              state_q <= last_row ? S_END : is_fill ? S_WR : is_blit ? S_YADD : S_MROW0;
            end else if (!is_fill && !(is_blit && rd_go)) begin
              // A blit whose next read went out with the write waits here for its data.
              state_q <= S_RD;
            end
          end
        end

        S_TR_REQ: if (tr_req_ready_i) state_q <= S_TR_WAIT;

        S_TR_WAIT: begin
          if (tr_rsp_valid_i) begin
            if (tr_rsp_fault_i) begin
              fault_q        <= 1'b1;
              fault_reason_q <= tr_rsp_reason_i;
              state_q        <= S_END;
            end else begin
              state_q <= tr_wr_q ? S_WR : S_RD;
            end
          end
        end

        S_END: begin
          if (!rd_valid_q && !wr_valid_q && rd_out_q == 3'd0) begin
            done_q  <= 1'b1;
            state_q <= S_IDLE;
          end
        end

        default: state_q <= S_IDLE;
      endcase
    end
  end

  // Only the frame of a translation is used; the offset comes from the VA.
  wire unused_tr = ^tr_rsp_pa_i[11:0];
  // The low bit of each carry-in sum is the constant the carry rode in on.
  wire unused_sum = rva_sum[0] ^ bx_sum[0] ^ by_sum[0];

  // The VA the engine is about to access, or last tried to: a translation's VA while one is
  // asked, the fault's VA once faulted (nothing moves the address path after a fault).
  wire [31:0] cur_va = tr_wr_q ? dva : rva;

  // The MMU looks its TLB up in the cycle a request is presented, so the VA must come from a
  // flip-flop: computed combinationally (row base + column) it sat in front of the TLB's
  // compare and the board's critical path went through both (32.9 MHz).
  reg [31:0] tr_va_q;
  // (tr_wr_q changes on the same edge, so the choice is made here from the state.)
  always @(posedge clk_i) if (tr_ask) tr_va_q <= (state_q == S_WR) ? dva : rva;
  assign tr_req_valid_o = state_q == S_TR_REQ;
  assign tr_req_va_o    = tr_va_q;
  assign tr_req_write_o = tr_wr_q;

  assign mem_rd_valid_o = rd_valid_q;
  assign mem_rd_addr_o  = {rd_addr_q, 2'b00};
  assign mem_rd_host_o  = rd_host_q;
  assign mem_wr_valid_o = wr_valid_q;
  assign mem_wr_addr_o  = {wr_addr_q, 2'b00};
  assign mem_wr_host_o  = wr_host_q;
  assign mem_wr_data_o  = wr_data_q;
  assign mem_wr_be_o    = 4'hF;

  assign busy_o         = state_q != S_IDLE || done_q;
  assign done_o         = done_q;
  assign fault_o        = done_q && fault_q;
  assign fault_va_o     = cur_va;
  assign fault_write_o  = tr_wr_q;
  assign fault_reason_o = fault_reason_q;

endmodule

`default_nettype wire
