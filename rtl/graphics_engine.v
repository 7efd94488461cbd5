`default_nettype none
// graphics_engine: GFX_FILL, GFX_BLIT (nearest-neighbour scaled copy) and GFX_MIPGEN (2x2 box
// filter) over 32-bit RGBA8 pixels in virtual memory, one destination pixel at a time.
//
// Each destination pixel needs 0 (fill), 1 (blit) or 4 (mipgen) source reads. They are issued
// back to back; the write goes out in the cycle the last response arrives, and in that same
// cycle the next pixel's first read is issued (its source position was stepped while the reads
// were in flight). Device memory answering a cycle after acceptance gives 1 cycle per pixel
// for a fill, 2 for a 1:1 or enlarging blit and about 6 for mipgen, plus a few cycles per row.
//
// Source positions come without a divider: the blit walks x*src_w/dst_w with a Bresenham
// accumulator (ex = x*src_w mod dst_w, one subtraction per cycle, the first one fused with the
// add, so shrinking by a factor r costs about r cycles per pixel); mipgen steps two source
// columns per pixel and clamps at the last column and row, so odd sizes and a 1-pixel-wide level
// work without special cases.
//
// The source and destination streams each keep the translation of their current 4 KiB page
// and ask the MMU only on a page change. Faults are precise in pixel order (row-major): when a
// translation faults at pixel k, pixels before k are written and nothing at or after k is;
// responses of reads already accepted are taken before done. Operand checks at start: a VA or
// pitch not word aligned faults MISALIGNED (FAULT_VA = that operand; source operands report a
// read, destination ones a write); a zero destination size does nothing; a zero source size
// with a nonzero destination faults BAD_COMMAND (FAULT_VA = src_va). Source and destination
// must not overlap.
module graphics_engine (
  input  wire        clk_i,
  input  wire        rst_ni,
  // engine control (command processor; operands held until done_o)
  input  wire        start_i,
  input  wire [1:0]  op_i,         // 0 fill, 1 blit, 2 mipgen
  input  wire [31:0] src_va_i,
  input  wire [31:0] src_pitch_i,  // bytes
  input  wire [31:0] src_w_i,      // pixels
  input  wire [31:0] src_h_i,      // rows
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

  localparam [1:0] OPG_FILL = 2'd0, OPG_BLIT = 2'd1, OPG_MIP = 2'd2;

  localparam [3:0] S_IDLE    = 4'd0,  // no command
                   S_CHECK   = 4'd1,  // operand checks
                   S_RD      = 4'd2,  // issuing the current pixel's reads
                   S_WR      = 4'd3,  // waiting for the responses, then writing the pixel
                   S_YADD    = 4'd4,  // next row: first step of the source row
                   S_YSUB    = 4'd5,  // blit: remaining Bresenham steps of the source row
                   S_TR_REQ  = 4'd6,  // translation request held until accepted
                   S_TR_WAIT = 4'd7,
                   S_END     = 4'd8;  // finished or faulted: drain, then done

  reg [3:0]  state_q, ret_q;        // ret_q: where a translation returns to
  reg [1:0]  op_q;
  reg [31:0] x_left_q, y_left_q;    // destination pixels left in the row / rows left (current included)
  reg [31:0] dpx_q, drow_q;         // VA of the destination pixel / of its row's first pixel
  reg [31:0] srow_q, srow2_q;       // source row VA (mipgen: rows min(2y,h-1) and min(2y+1,h-1))
  reg [31:0] cx0_q, cx1_q;          // source column byte offsets (mipgen: columns 2x and 2x+1, clamped)
  reg [32:0] ex_q, ey_q;            // blit: Bresenham remainders; mipgen: columns / rows left from 2x / 2y
  reg        xstep_q;               // blit: the source column is still being stepped
  reg [1:0]  k_q;                   // next read of the pixel (mipgen: bit 0 column, bit 1 row)
  reg [2:0]  got_q;                 // responses of the pixel received
  reg [2:0]  rd_out_q;              // reads accepted and not yet answered
  reg [31:0] pix_q;                 // blit: the source pixel
  reg [9:0]  acc_q [0:3];           // mipgen: channel sums
  reg [31:0] treq_va_q;
  reg        treq_wr_q;
  reg        tr_row_q;              // the source row whose cache entry a read translation fills

  // One-entry translation caches per stream: source rows (mipgen reads two rows, which are a
  // pitch apart and often in different pages; a blit uses row 0 only) and destination.
  reg [1:0]  s_v_q, s_host_q;
  reg        d_v_q, d_host_q;
  reg [19:0] s_tag_q [0:1];
  reg [19:0] s_frame_q [0:1];
  reg [19:0] d_tag_q, d_frame_q;

  reg        rd_valid_q, rd_host_q, wr_valid_q, wr_host_q;
  reg [31:0] rd_addr_q, wr_addr_q, wr_data_q;

  reg        done_q, fault_q, fault_write_q;
  reg [31:0] fault_va_q;
  reg [3:0]  fault_reason_q;

  // ---- operand checks (inputs are held by the command processor) ----
  wire src_used   = op_q != OPG_FILL;
  wire mis_src_va = src_used && src_va_i[1:0] != 2'b00;
  wire mis_src_p  = src_used && src_pitch_i[1:0] != 2'b00;
  wire mis_dst_va = dst_va_i[1:0] != 2'b00;
  wire mis_dst_p  = dst_pitch_i[1:0] != 2'b00;
  wire dst_empty  = dst_w_i == 32'd0 || dst_h_i == 32'd0;
  wire src_empty  = src_used && (src_w_i == 32'd0 || src_h_i == 32'd0);

  // ---- source address of the next read ----
  wire [31:0] rva    = (k_q[1] ? srow2_q : srow_q) + (k_q[0] ? cx1_q : cx0_q);
  wire        s_row  = k_q[1];
  wire        s_hit  = s_v_q[s_row] && s_tag_q[s_row] == rva[31:12];
  wire        d_hit  = d_v_q && d_tag_q == dpx_q[31:12];
  wire [1:0]  last_k = op_q == OPG_MIP ? 2'd3 : 2'd0;
  wire        rd_free = !rd_valid_q || mem_rd_ready_i;
  wire        wr_free = !wr_valid_q || mem_wr_ready_i;

  // ---- responses and the pixel they make ----
  wire [2:0]  n_reads  = op_q == OPG_MIP ? 3'd4 : op_q == OPG_BLIT ? 3'd1 : 3'd0;
  wire [2:0]  got_next = got_q + {2'd0, mem_rsp_valid_i};
  wire        pix_ready = got_next == n_reads;
  reg  [9:0]  acc_next [0:3];
  reg  [31:0] mip_pix;
  integer c;
  always @(*) begin
    for (c = 0; c < 4; c = c + 1) begin
      acc_next[c] = acc_q[c] + (mem_rsp_valid_i ? {2'd0, mem_rsp_data_i[8*c +: 8]} : 10'd0);
      mip_pix[8*c +: 8] = acc_next[c][9:2] + {7'd0, acc_next[c][1]};  // (sum + 2) >> 2
    end
  end
  wire [31:0] pix_next = mem_rsp_valid_i ? mem_rsp_data_i : pix_q;
  wire [31:0] out_pix  = op_q == OPG_FILL ? color_i : op_q == OPG_BLIT ? pix_next : mip_pix;

  // ---- the pixel write and what follows it ----
  wire row_end = x_left_q == 32'd1;
  wire wr_fire = state_q == S_WR && pix_ready && d_hit && wr_free;
  // The next pixel's first read goes out with this pixel's write when nothing holds it back.
  wire rd_go   = s_hit && rd_free && !xstep_q &&
                 (state_q == S_RD || (wr_fire && !row_end && op_q != OPG_FILL));
  wire rd_last = rd_go && k_q == last_k;

  // ---- blit Bresenham helpers ----
  wire [32:0] ex_add = ex_q + {1'b0, src_w_i};
  wire [32:0] ex_dif = ex_add - {1'b0, dst_w_i};   // ex + src_w - dst_w
  wire        ex_ge  = !ex_dif[32] || ex_add[32];  // ex + src_w >= dst_w (no 33-bit wrap: both < 2^33)
  wire [32:0] ex_sub = ex_q - {1'b0, dst_w_i};
  wire        ex_big = ex_q >= {1'b0, dst_w_i};
  wire [32:0] ey_sub = ey_q - {1'b0, dst_h_i};
  wire        ey_big = ey_q >= {1'b0, dst_h_i};
  wire [31:0] cx0_step = cx0_q + (op_q == OPG_MIP ? 32'd8 : 32'd4);
  wire [31:0] cx1_step = cx1_q + 32'd8;
  wire [31:0] srow_step = srow_q + (op_q == OPG_MIP ? {src_pitch_i[30:0], 1'b0} : src_pitch_i);
  wire [31:0] srow2_step = srow2_q + {src_pitch_i[30:0], 1'b0};
  wire [31:0] drow_next = drow_q + dst_pitch_i;

  // Source column state at the start of a row.
  task automatic row_start_x;
    begin
      cx0_q   <= 32'd0;
      cx1_q   <= (src_w_i >= 32'd2) ? 32'd4 : 32'd0;
      ex_q    <= op_q == OPG_MIP ? {1'b0, src_w_i} : 33'd0;
      xstep_q <= 1'b0;
      k_q     <= 2'd0;
    end
  endtask

  task automatic translate(input [31:0] va, input wr, input [3:0] ret);
    begin
      treq_va_q <= va;
      treq_wr_q <= wr;
      tr_row_q  <= s_row;
      ret_q     <= ret;
      state_q   <= S_TR_REQ;
    end
  endtask

  task automatic stop(input [3:0] reason, input [31:0] va, input wr);
    begin
      fault_q        <= 1'b1;
      fault_reason_q <= reason;
      fault_va_q     <= va;
      fault_write_q  <= wr;
      state_q        <= S_END;
    end
  endtask

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q <= S_IDLE; ret_q <= S_IDLE; op_q <= OPG_FILL;
      x_left_q <= 32'd0; y_left_q <= 32'd0; dpx_q <= 32'd0; drow_q <= 32'd0;
      srow_q <= 32'd0; srow2_q <= 32'd0; cx0_q <= 32'd0; cx1_q <= 32'd0;
      ex_q <= 33'd0; ey_q <= 33'd0; xstep_q <= 1'b0; k_q <= 2'd0; got_q <= 3'd0;
      rd_out_q <= 3'd0; pix_q <= 32'd0;
      acc_q[0] <= 10'd0; acc_q[1] <= 10'd0; acc_q[2] <= 10'd0; acc_q[3] <= 10'd0;
      treq_va_q <= 32'd0; treq_wr_q <= 1'b0; tr_row_q <= 1'b0;
      s_v_q <= 2'b00; d_v_q <= 1'b0; s_host_q <= 2'b00; d_host_q <= 1'b0;
      s_tag_q[0] <= 20'd0; s_tag_q[1] <= 20'd0; s_frame_q[0] <= 20'd0; s_frame_q[1] <= 20'd0;
      d_tag_q <= 20'd0; d_frame_q <= 20'd0;
      rd_valid_q <= 1'b0; rd_host_q <= 1'b0; rd_addr_q <= 32'd0;
      wr_valid_q <= 1'b0; wr_host_q <= 1'b0; wr_addr_q <= 32'd0; wr_data_q <= 32'd0;
      done_q <= 1'b0; fault_q <= 1'b0; fault_write_q <= 1'b0; fault_va_q <= 32'd0;
      fault_reason_q <= FAULT_NONE;
    end else begin
      done_q <= 1'b0;

      // Memory channels: a request holds until accepted.
      if (rd_valid_q && mem_rd_ready_i) rd_valid_q <= 1'b0;
      if (wr_valid_q && mem_wr_ready_i) wr_valid_q <= 1'b0;
      rd_out_q <= rd_out_q + {2'd0, rd_valid_q && mem_rd_ready_i} - {2'd0, mem_rsp_valid_i};

      // Responses are always taken (they cannot be held back).
      if (mem_rsp_valid_i) begin
        got_q <= got_next;
        pix_q <= mem_rsp_data_i;
        acc_q[0] <= acc_next[0]; acc_q[1] <= acc_next[1];
        acc_q[2] <= acc_next[2]; acc_q[3] <= acc_next[3];
      end

      // Blit: remaining steps of the source column (one subtraction per cycle).
      if (xstep_q) begin
        if (ex_big) begin
          ex_q  <= ex_sub;
          cx0_q <= cx0_step;
        end else begin
          xstep_q <= 1'b0;
        end
      end

      if (rd_go) begin
        rd_valid_q <= 1'b1;
        rd_addr_q  <= {s_frame_q[s_row], rva[11:0]};
        rd_host_q  <= s_host_q[s_row];
        k_q        <= k_q + 2'd1;
      end
      // The pixel's reads are all out: step the source column for the next pixel.
      if (rd_last) begin
        k_q <= 2'd0;
        if (op_q == OPG_MIP) begin
          // ex_q counts source columns left from 2x; clamp at the last column.
          cx0_q <= ex_q >= 33'd3 ? cx0_step : cx1_q;
          cx1_q <= ex_q >= 33'd4 ? cx1_step : (ex_q == 33'd3 ? cx0_step : cx1_q);
          if (ex_q >= 33'd2) ex_q <= ex_q - 33'd2;
        end else begin
          // First Bresenham step fused with the add; more steps only when shrinking.
          if (ex_ge) begin
            ex_q    <= ex_dif;
            cx0_q   <= cx0_step;
            xstep_q <= ex_dif >= {1'b0, dst_w_i};
          end else begin
            ex_q <= ex_add;
          end
        end
      end

      case (state_q)
        S_IDLE: begin
          if (start_i) begin
            op_q    <= op_i;
            fault_q <= 1'b0;
            s_v_q   <= 2'b00;  // mappings may have changed since the last command
            d_v_q   <= 1'b0;
            state_q <= S_CHECK;
          end
        end

        S_CHECK: begin
          x_left_q <= dst_w_i;
          y_left_q <= dst_h_i;
          dpx_q    <= dst_va_i;
          drow_q   <= dst_va_i;
          srow_q   <= src_va_i;
          srow2_q  <= (op_q == OPG_MIP && src_h_i >= 32'd2) ? src_va_i + src_pitch_i : src_va_i;
          ey_q     <= op_q == OPG_MIP ? {1'b0, src_h_i} : 33'd0;
          got_q    <= 3'd0;
          acc_q[0] <= 10'd0; acc_q[1] <= 10'd0; acc_q[2] <= 10'd0; acc_q[3] <= 10'd0;
          row_start_x();
          if (mis_src_va)      stop(FAULT_MISALIGNED, src_va_i, 1'b0);
          else if (mis_src_p)  stop(FAULT_MISALIGNED, src_pitch_i, 1'b0);
          else if (mis_dst_va) stop(FAULT_MISALIGNED, dst_va_i, 1'b1);
          else if (mis_dst_p)  stop(FAULT_MISALIGNED, dst_pitch_i, 1'b1);
          else if (dst_empty)  state_q <= S_END;
          else if (src_empty)  stop(FAULT_BAD_COMMAND, src_va_i, 1'b0);
          else                 state_q <= op_q == OPG_FILL ? S_WR : S_RD;
        end

        S_RD: begin
          if (rd_last) state_q <= S_WR;
          else if (!s_hit && !xstep_q) translate(rva, 1'b0, S_RD);
        end

        S_WR: begin
          if (wr_fire) begin
            wr_valid_q <= 1'b1;
            wr_addr_q  <= {d_frame_q, dpx_q[11:0]};
            wr_host_q  <= d_host_q;
            wr_data_q  <= out_pix;
            got_q      <= 3'd0;
            acc_q[0] <= 10'd0; acc_q[1] <= 10'd0; acc_q[2] <= 10'd0; acc_q[3] <= 10'd0;
            if (row_end) begin
              if (y_left_q == 32'd1) begin
                state_q <= S_END;
              end else begin
                y_left_q <= y_left_q - 32'd1;
                x_left_q <= dst_w_i;
                drow_q   <= drow_next;
                dpx_q    <= drow_next;
                row_start_x();
                state_q  <= op_q == OPG_FILL ? S_WR : S_YADD;
              end
            end else begin
              x_left_q <= x_left_q - 32'd1;
              dpx_q    <= dpx_q + 32'd4;
              // Mipgen continues with reads 1..3; a blit's only read went out already.
              if (op_q == OPG_MIP || (op_q == OPG_BLIT && !rd_go)) state_q <= S_RD;
            end
          end else if (!d_hit) begin
            translate(dpx_q, 1'b1, S_WR);
          end
        end

        S_YADD: begin
          if (op_q == OPG_MIP) begin
            // ey_q counts source rows left from 2y; clamp at the last row.
            srow_q  <= ey_q >= 33'd3 ? srow_step : srow2_q;
            srow2_q <= ey_q >= 33'd4 ? srow2_step : (ey_q == 33'd3 ? srow_step : srow2_q);
            if (ey_q >= 33'd2) ey_q <= ey_q - 33'd2;
            state_q <= S_RD;
          end else begin
            ey_q    <= ey_q + {1'b0, src_h_i};
            state_q <= S_YSUB;
          end
        end

        S_YSUB: begin
          if (ey_big) begin
            ey_q   <= ey_sub;
            srow_q <= srow_step;
          end else begin
            state_q <= S_RD;
          end
        end

        S_TR_REQ: if (tr_req_ready_i) state_q <= S_TR_WAIT;

        S_TR_WAIT: begin
          if (tr_rsp_valid_i) begin
            if (tr_rsp_fault_i) begin
              stop(tr_rsp_reason_i, treq_va_q, treq_wr_q);
            end else begin
              if (treq_wr_q) begin
                d_v_q <= 1'b1; d_tag_q <= treq_va_q[31:12];
                d_frame_q <= tr_rsp_pa_i[31:12]; d_host_q <= tr_rsp_host_i;
              end else begin
                s_v_q[tr_row_q] <= 1'b1; s_tag_q[tr_row_q] <= treq_va_q[31:12];
                s_frame_q[tr_row_q] <= tr_rsp_pa_i[31:12]; s_host_q[tr_row_q] <= tr_rsp_host_i;
              end
              state_q <= ret_q;
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

  assign tr_req_valid_o = state_q == S_TR_REQ;
  assign tr_req_va_o    = treq_va_q;
  assign tr_req_write_o = treq_wr_q;

  assign mem_rd_valid_o = rd_valid_q;
  assign mem_rd_addr_o  = rd_addr_q;
  assign mem_rd_host_o  = rd_host_q;
  assign mem_wr_valid_o = wr_valid_q;
  assign mem_wr_addr_o  = wr_addr_q;
  assign mem_wr_host_o  = wr_host_q;
  assign mem_wr_data_o  = wr_data_q;
  assign mem_wr_be_o    = 4'hF;

  assign busy_o         = state_q != S_IDLE || done_q;
  assign done_o         = done_q;
  assign fault_o        = done_q && fault_q;
  assign fault_va_o     = fault_va_q;
  assign fault_write_o  = fault_write_q;
  assign fault_reason_o = fault_reason_q;

endmodule

`default_nettype wire
