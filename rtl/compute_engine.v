`default_nettype none
// compute_engine: vmgpu's built-in int32 kernels (KERNEL_* in rtl/regs/vmgpu_regs.json) over
// virtual memory. It reads the 5-word argument block (dst, a, b, n, scalar) through the MMU,
// checks the pointers, then streams the kernel: reads of a (and b) run ahead of the writes of
// dst through a result FIFO, so FILL/COPY/SCALE/REDUCE_SUM move one element per cycle and
// ADD/AXPY one element per two cycles (two reads share the one read channel) when memory
// answers a cycle after acceptance.
//
// Each stream (a, b, dst) keeps the translation of the page it is in and asks the MMU again
// only when it steps into a new 4 KiB page; the argument block is read through the b stream
// before b is known. One translation is in flight at a time; the write stream has priority,
// because only writes free room in the result FIFO.
//
// Faults are precise in element order, as if the kernel ran one element at a time (read a[i],
// read b[i], write dst[i]): a read fault at element k stops all reads, the elements before k
// (already read) are still written, then done reports the fault; a write fault at element j
// stops everything at once (j is always before any read fault, since element j was read).
// Responses of reads already accepted are always taken before done. REDUCE_SUM writes dst[0]
// only after every a[i] was read. Overlap of dst with a or b other than dst == a (or == b) is
// undefined, like memcpy.
module compute_engine #(
  parameter integer FIFO_AW = 4  // log2 of the result FIFO depth: elements in flight between
                                 // read issue and write issue (covers host-memory latency)
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // engine control (command processor)
  input  wire        start_i,
  input  wire [7:0]  kernel_i,
  input  wire [31:0] args_va_i,
  output wire        busy_o,
  output wire        done_o,
  output wire        fault_o,
  output wire [31:0] fault_va_o,
  output wire        fault_write_o,
  output wire [3:0]  fault_reason_o,
  // translation port (MMU port 1)
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

  localparam integer FIFO_DEPTH = 1 << FIFO_AW;
  // Reads in flight: at most two per FIFO credit, plus the argument block.
  localparam integer OUT_W = FIFO_AW + 3;

  localparam [2:0] PH_IDLE  = 3'd0;  // waiting for start_i
  localparam [2:0] PH_ARGS  = 3'd1;  // reading the argument block
  localparam [2:0] PH_SETUP = 3'd2;  // checking pointer alignment
  localparam [2:0] PH_RUN   = 3'd3;  // streaming the kernel (and draining after a fault)
  localparam [2:0] PH_DONE  = 3'd4;  // done_o cycle

  localparam [1:0] TR_IDLE = 2'd0;
  localparam [1:0] TR_REQ  = 2'd1;   // tr_req_valid_o held until accepted
  localparam [1:0] TR_WAIT = 2'd2;   // waiting for the response pulse

  localparam [1:0] ST_A = 2'd0;
  localparam [1:0] ST_B = 2'd1;
  localparam [1:0] ST_D = 2'd2;

  localparam [2:0] ARG_WORDS = 3'd5;

  // ---------------------------------------------------------------- state
  reg [2:0]  phase_q;
  reg [2:0]  kernel_q;   // only valid ids are ever stored, so 3 bits suffice

  // arguments; va_*_q advance as the streams issue
  reg [31:0] va_a_q, va_b_q, va_d_q;
  reg [31:0] b_arg_q;    // b while the b stream still reads the argument block
  reg [31:0] n_q, scalar_q;
  reg [2:0]  arg_cnt_q;

  // per-stream translation of the current page
  reg        a_tv_q, b_tv_q, d_tv_q;
  reg [19:0] a_frame_q, b_frame_q, d_frame_q;
  reg        a_host_q, b_host_q, d_host_q;

  // read issue
  reg        rd_valid_q;
  reg [31:0] rd_addr_q;
  reg        rd_host_q;
  reg        rd_sel_q;     // ADD/AXPY: next read is b[i]
  reg [31:0] rd_elem_q;    // next element to read (FILL: to generate); argument word in PH_ARGS
  reg        rd_stop_q;    // no more reads (fault)
  reg [OUT_W-1:0] rd_out_q;  // reads accepted, response not yet taken

  // response stage
  reg        rsp_sel_q;    // ADD/AXPY: next response is b[i]
  reg [31:0] a_q, b_q, prod_q, sum_q;
  reg        s1_a_vld_q, s1_b_vld_q;
  reg [31:0] red_cnt_q;    // REDUCE_SUM: elements summed
  reg        red_done_q;   // REDUCE_SUM: result pushed

  // result FIFO and credits (elements started and not yet moved to the write slot)
  reg [31:0]        fifo_mem [0:FIFO_DEPTH-1];
  reg [FIFO_AW-1:0] fifo_wp_q, fifo_rp_q;
  reg [FIFO_AW:0]   fifo_cnt_q;
  reg [FIFO_AW:0]   credits_q;

  // write issue
  reg        wr_valid_q;
  reg [31:0] wr_addr_q;
  reg        wr_host_q;
  reg [31:0] wr_data_q;
  reg [31:0] wr_cnt_q;     // elements moved to the write slot
  reg [31:0] wr_total_q;   // elements to write (cut to k on a read fault at element k)
  reg        wr_stop_q;    // write fault: nothing more is written

  // translation requester
  reg [1:0]  tr_state_q;
  reg [31:0] tr_va_q;
  reg        tr_write_q;
  reg [1:0]  tr_who_q;

  reg        fault_q;
  reg [31:0] fault_va_q;
  reg        fault_write_q;
  reg [3:0]  fault_reason_q;

  // ---------------------------------------------------------------- kernel decode
  wire k_fill   = (kernel_q == KERNEL_FILL[2:0]);
  wire k_copy   = (kernel_q == KERNEL_COPY[2:0]);
  wire k_add    = (kernel_q == KERNEL_ADD[2:0]);
  wire k_scale  = (kernel_q == KERNEL_SCALE[2:0]);
  wire k_axpy   = (kernel_q == KERNEL_AXPY[2:0]);
  wire k_reduce = (kernel_q == KERNEL_REDUCE_SUM[2:0]);
  wire k_dual   = k_add | k_axpy;
  wire k_uses_a = ~k_fill;

  wire in_args = (phase_q == PH_ARGS);
  wire in_run  = (phase_q == PH_RUN);

  // ---------------------------------------------------------------- read side
  wire rd_pair  = in_run & k_dual;
  wire rd_cur_b = in_args | (rd_pair & rd_sel_q);
  wire [31:0] rd_cur_va    = rd_cur_b ? va_b_q    : va_a_q;
  wire        rd_cur_tv    = rd_cur_b ? b_tv_q    : a_tv_q;
  wire [19:0] rd_cur_frame = rd_cur_b ? b_frame_q : a_frame_q;
  wire        rd_cur_host  = rd_cur_b ? b_host_q  : a_host_q;

  // credits_q never exceeds FIFO_DEPTH, a power of two: below it the top bit is clear.
  wire credit_free = ~credits_q[FIFO_AW];
  wire rd_need = ~rd_stop_q &
                 ((in_args & (rd_elem_q[2:0] != ARG_WORDS)) |
                  (in_run & k_uses_a & (rd_elem_q != n_q)));
  // A new element takes a credit with its first read; REDUCE_SUM never fills the FIFO.
  wire rd_credit_ok = ~in_run | k_reduce | (rd_pair & rd_sel_q) | credit_free;
  wire rd_slot_free = ~rd_valid_q | mem_rd_ready_i;
  wire rd_load      = rd_need & rd_cur_tv & rd_credit_ok & rd_slot_free;
  wire tr_want_rd   = rd_need & ~rd_cur_tv;
  wire rd_new_elem  = rd_load & in_run & ~k_reduce & ~(rd_pair & rd_sel_q);

  // ---------------------------------------------------------------- response stage, FIFO push
  wire push_rd   = ((k_copy | k_scale) & s1_a_vld_q) | (k_dual & s1_b_vld_q);
  wire fill_push = in_run & k_fill & ~wr_stop_q & (rd_elem_q != n_q) & credit_free;
  wire red_push  = in_run & k_reduce & ~rd_stop_q & ~red_done_q & (red_cnt_q == n_q);
  wire fifo_push = push_rd | fill_push | red_push;
  wire [31:0] sum_in = k_axpy ? prod_q : a_q;
  reg  [31:0] push_data;
  always @(*) begin
    push_data = sum_q;  // REDUCE_SUM
    if (k_fill)  push_data = scalar_q;
    if (k_copy)  push_data = a_q;
    if (k_scale) push_data = prod_q;
    if (k_dual)  push_data = sum_in + b_q;
  end

  // ---------------------------------------------------------------- write side
  wire wr_need      = in_run & ~wr_stop_q & (fifo_cnt_q != 0) & (wr_cnt_q != wr_total_q);
  wire wr_slot_free = ~wr_valid_q | mem_wr_ready_i;
  wire wr_load      = wr_need & d_tv_q & wr_slot_free;
  wire tr_want_wr   = wr_need & ~d_tv_q;

  wire tr_idle = (tr_state_q == TR_IDLE);
  wire drained = tr_idle & ~rd_valid_q & (rd_out_q == 0) & ~wr_valid_q;
  wire run_end = drained & (wr_stop_q | (wr_cnt_q == wr_total_q));

  wire             credit_take = rd_new_elem | fill_push | red_push;
  wire [FIFO_AW:0] credit_dec = {{FIFO_AW{1'b0}}, wr_load};
  wire [FIFO_AW:0] credits_up = credits_q + {{FIFO_AW{1'b0}}, 1'b1};
  wire [FIFO_AW:0] credits_dn = credits_q - {{FIFO_AW{1'b0}}, 1'b1};
  wire [FIFO_AW:0] fifo_inc   = {{FIFO_AW{1'b0}}, fifo_push};
  wire [OUT_W-1:0] out_inc    = {{(OUT_W-1){1'b0}}, rd_valid_q & mem_rd_ready_i};
  wire [OUT_W-1:0] out_dec    = {{(OUT_W-1){1'b0}}, mem_rsp_valid_i};

  // The FIFO is plain memory (LUT RAM on ECP5), written without reset.
  always @(posedge clk_i) begin
    if (fifo_push) fifo_mem[fifo_wp_q] <= push_data;
  end

  // The multiplier has a registered output so it maps onto the DSP blocks; it takes a[i] only,
  // so AXPY still holds scalar * a[i] when b[i] arrives.
  wire rsp_is_b = k_dual & rsp_sel_q;
  always @(posedge clk_i) begin
    if (mem_rsp_valid_i & ~rsp_is_b) prod_q <= scalar_q * mem_rsp_data_i;
  end

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      phase_q        <= PH_IDLE;
      kernel_q       <= 3'd0;
      va_a_q         <= 32'd0;
      va_b_q         <= 32'd0;
      va_d_q         <= 32'd0;
      b_arg_q        <= 32'd0;
      n_q            <= 32'd0;
      scalar_q       <= 32'd0;
      arg_cnt_q      <= 3'd0;
      a_tv_q         <= 1'b0;
      b_tv_q         <= 1'b0;
      d_tv_q         <= 1'b0;
      a_frame_q      <= 20'd0;
      b_frame_q      <= 20'd0;
      d_frame_q      <= 20'd0;
      a_host_q       <= 1'b0;
      b_host_q       <= 1'b0;
      d_host_q       <= 1'b0;
      rd_valid_q     <= 1'b0;
      rd_addr_q      <= 32'd0;
      rd_host_q      <= 1'b0;
      rd_sel_q       <= 1'b0;
      rd_elem_q      <= 32'd0;
      rd_stop_q      <= 1'b0;
      rd_out_q       <= {OUT_W{1'b0}};
      rsp_sel_q      <= 1'b0;
      a_q            <= 32'd0;
      b_q            <= 32'd0;
      sum_q          <= 32'd0;
      s1_a_vld_q     <= 1'b0;
      s1_b_vld_q     <= 1'b0;
      red_cnt_q      <= 32'd0;
      red_done_q     <= 1'b0;
      fifo_wp_q      <= {FIFO_AW{1'b0}};
      fifo_rp_q      <= {FIFO_AW{1'b0}};
      fifo_cnt_q     <= {(FIFO_AW+1){1'b0}};
      credits_q      <= {(FIFO_AW+1){1'b0}};
      wr_valid_q     <= 1'b0;
      wr_addr_q      <= 32'd0;
      wr_host_q      <= 1'b0;
      wr_data_q      <= 32'd0;
      wr_cnt_q       <= 32'd0;
      wr_total_q     <= 32'd0;
      wr_stop_q      <= 1'b0;
      tr_state_q     <= TR_IDLE;
      tr_va_q        <= 32'd0;
      tr_write_q     <= 1'b0;
      tr_who_q       <= ST_A;
      fault_q        <= 1'b0;
      fault_va_q     <= 32'd0;
      fault_write_q  <= 1'b0;
      fault_reason_q <= FAULT_NONE;
    end else if (busy_o || start_i) begin
      // Idle, nothing is in flight and every counter is still (done waits for the drain),
      // so the whole update is skipped: this costs the simulated model nothing when idle.
      s1_a_vld_q <= 1'b0;
      s1_b_vld_q <= 1'b0;
      rd_out_q   <= rd_out_q + out_inc - out_dec;
      // One of the counter's neighbours picked by the late grant-dependent strobes, instead
      // of an adder after them (board timing: the fabric grant reached credits_q through two
      // carry chains).
      case ({credit_take, credit_dec[0]})
        2'b10:   credits_q <= credits_up;
        2'b01:   credits_q <= credits_dn;
        default: ;
      endcase
      fifo_cnt_q <= fifo_cnt_q + fifo_inc - credit_dec;

      // ------------------------------------------------------------ phases
      case (phase_q)
        PH_IDLE: begin
          if (start_i) begin
            kernel_q       <= kernel_i[2:0];
            fault_q        <= 1'b0;
            fault_va_q     <= args_va_i;
            fault_write_q  <= 1'b0;
            fault_reason_q <= FAULT_NONE;
            if (kernel_i > KERNEL_REDUCE_SUM) begin
              fault_q        <= 1'b1;
              fault_reason_q <= FAULT_BAD_COMMAND;
              phase_q        <= PH_DONE;
            end else if (args_va_i[1:0] != 2'b00) begin
              fault_q        <= 1'b1;
              fault_reason_q <= FAULT_MISALIGNED;
              phase_q        <= PH_DONE;
            end else begin
              phase_q   <= PH_ARGS;
              va_b_q    <= args_va_i;
              b_tv_q    <= 1'b0;
              rd_elem_q <= 32'd0;
              rd_stop_q <= 1'b0;
              arg_cnt_q <= 3'd0;
            end
          end
        end
        PH_ARGS: begin
          if (arg_cnt_q == ARG_WORDS) begin
            phase_q <= PH_SETUP;
          end else if (rd_stop_q & drained) begin
            phase_q <= PH_DONE;
          end
        end
        PH_SETUP: begin
          va_b_q      <= b_arg_q;
          a_tv_q      <= 1'b0;
          b_tv_q      <= 1'b0;
          d_tv_q      <= 1'b0;
          rd_elem_q   <= 32'd0;
          rd_sel_q    <= 1'b0;
          rsp_sel_q   <= 1'b0;
          sum_q       <= 32'd0;
          red_cnt_q   <= 32'd0;
          red_done_q  <= 1'b0;
          fifo_wp_q   <= {FIFO_AW{1'b0}};
          fifo_rp_q   <= {FIFO_AW{1'b0}};
          fifo_cnt_q  <= {(FIFO_AW+1){1'b0}};
          credits_q   <= {(FIFO_AW+1){1'b0}};
          wr_cnt_q    <= 32'd0;
          wr_total_q  <= k_reduce ? 32'd1 : n_q;
          wr_stop_q   <= 1'b0;
          rd_stop_q   <= 1'b0;
          phase_q     <= PH_RUN;
          // Every pointer the kernel uses is checked before any element access.
          if (va_d_q[1:0] != 2'b00) begin
            fault_q        <= 1'b1;
            fault_va_q     <= va_d_q;
            fault_write_q  <= 1'b1;
            fault_reason_q <= FAULT_MISALIGNED;
            phase_q        <= PH_DONE;
          end else if (k_uses_a & (va_a_q[1:0] != 2'b00)) begin
            fault_q        <= 1'b1;
            fault_va_q     <= va_a_q;
            fault_reason_q <= FAULT_MISALIGNED;
            phase_q        <= PH_DONE;
          end else if (k_dual & (b_arg_q[1:0] != 2'b00)) begin
            fault_q        <= 1'b1;
            fault_va_q     <= b_arg_q;
            fault_reason_q <= FAULT_MISALIGNED;
            phase_q        <= PH_DONE;
          end
        end
        PH_RUN: begin
          if (run_end) phase_q <= PH_DONE;
        end
        PH_DONE: begin
          phase_q <= PH_IDLE;
        end
        default: begin
          phase_q <= PH_IDLE;
        end
      endcase

      // ------------------------------------------------------------ read issue
      if (rd_load) begin
        rd_valid_q <= 1'b1;
        rd_addr_q  <= {rd_cur_frame, rd_cur_va[11:0]};
        rd_host_q  <= rd_cur_host;
        if (rd_cur_b) begin
          va_b_q <= va_b_q + 32'd4;
          if (&va_b_q[11:2]) b_tv_q <= 1'b0;
        end else begin
          va_a_q <= va_a_q + 32'd4;
          if (&va_a_q[11:2]) a_tv_q <= 1'b0;
        end
        if (rd_pair) rd_sel_q <= ~rd_sel_q;
        if (~rd_pair | rd_sel_q) rd_elem_q <= rd_elem_q + 32'd1;
      end else if (mem_rd_ready_i) begin
        rd_valid_q <= 1'b0;
      end
      if (fill_push) rd_elem_q <= rd_elem_q + 32'd1;

      // ------------------------------------------------------------ responses
      if (mem_rsp_valid_i) begin
        if (in_args) begin
          case (arg_cnt_q)
            3'd0:    va_d_q   <= mem_rsp_data_i;
            3'd1:    va_a_q   <= mem_rsp_data_i;
            3'd2:    b_arg_q  <= mem_rsp_data_i;
            3'd3:    n_q      <= mem_rsp_data_i;
            default: scalar_q <= mem_rsp_data_i;
          endcase
          arg_cnt_q <= arg_cnt_q + 3'd1;
        end else if (rsp_is_b) begin
          b_q        <= mem_rsp_data_i;
          s1_b_vld_q <= 1'b1;
        end else begin
          a_q        <= mem_rsp_data_i;
          s1_a_vld_q <= ~k_dual;
        end
        if (k_dual & ~in_args) rsp_sel_q <= ~rsp_sel_q;
      end
      if (k_reduce & s1_a_vld_q) begin
        sum_q     <= sum_q + a_q;
        red_cnt_q <= red_cnt_q + 32'd1;
      end
      if (red_push) red_done_q <= 1'b1;
      if (fifo_push) fifo_wp_q <= fifo_wp_q + {{(FIFO_AW-1){1'b0}}, 1'b1};

      // ------------------------------------------------------------ write issue
      if (wr_load) begin
        wr_valid_q <= 1'b1;
        wr_addr_q  <= {d_frame_q, va_d_q[11:0]};
        wr_host_q  <= d_host_q;
        wr_data_q  <= fifo_mem[fifo_rp_q];
        fifo_rp_q  <= fifo_rp_q + {{(FIFO_AW-1){1'b0}}, 1'b1};
        va_d_q     <= va_d_q + 32'd4;
        if (&va_d_q[11:2]) d_tv_q <= 1'b0;
        wr_cnt_q   <= wr_cnt_q + 32'd1;
      end else if (mem_wr_ready_i) begin
        wr_valid_q <= 1'b0;
      end

      // ------------------------------------------------------------ translation
      case (tr_state_q)
        TR_IDLE: begin
          if (tr_want_wr) begin
            tr_state_q <= TR_REQ;
            tr_va_q    <= va_d_q;
            tr_write_q <= 1'b1;
            tr_who_q   <= ST_D;
          end else if (tr_want_rd) begin
            tr_state_q <= TR_REQ;
            tr_va_q    <= rd_cur_va;
            tr_write_q <= 1'b0;
            tr_who_q   <= rd_cur_b ? ST_B : ST_A;
          end
        end
        TR_REQ: begin
          if (tr_req_ready_i) tr_state_q <= TR_WAIT;
        end
        TR_WAIT: begin
          if (tr_rsp_valid_i) begin
            tr_state_q <= TR_IDLE;
            if (tr_rsp_fault_i) begin
              fault_q        <= 1'b1;
              fault_va_q     <= tr_va_q;
              fault_write_q  <= tr_write_q;
              fault_reason_q <= tr_rsp_reason_i;
              rd_stop_q      <= 1'b1;
              if (tr_who_q == ST_D) begin
                wr_stop_q <= 1'b1;
              end else if (in_run) begin
                // Elements before the faulting one are still written.
                wr_total_q <= k_reduce ? 32'd0 : rd_elem_q;
              end
            end else begin
              case (tr_who_q)
                ST_A: begin
                  a_tv_q    <= 1'b1;
                  a_frame_q <= tr_rsp_pa_i[31:12];
                  a_host_q  <= tr_rsp_host_i;
                end
                ST_B: begin
                  b_tv_q    <= 1'b1;
                  b_frame_q <= tr_rsp_pa_i[31:12];
                  b_host_q  <= tr_rsp_host_i;
                end
                default: begin
                  d_tv_q    <= 1'b1;
                  d_frame_q <= tr_rsp_pa_i[31:12];
                  d_host_q  <= tr_rsp_host_i;
                end
              endcase
            end
          end
        end
        default: begin
          tr_state_q <= TR_IDLE;
        end
      endcase
    end
  end

  // The page offset of a translation is the request's own; only the frame is kept.
  wire unused_pa_offset = &{1'b0, tr_rsp_pa_i[11:0]};

  assign busy_o         = (phase_q != PH_IDLE);
  assign done_o         = (phase_q == PH_DONE);
  assign fault_o        = done_o & fault_q;
  assign fault_va_o     = fault_va_q;
  assign fault_write_o  = fault_write_q;
  assign fault_reason_o = fault_reason_q;

  assign tr_req_valid_o = (tr_state_q == TR_REQ);
  assign tr_req_va_o    = tr_va_q;
  assign tr_req_write_o = tr_write_q;

  assign mem_rd_valid_o = rd_valid_q;
  assign mem_rd_addr_o  = rd_addr_q;
  assign mem_rd_host_o  = rd_host_q;

  assign mem_wr_valid_o = wr_valid_q;
  assign mem_wr_addr_o  = wr_addr_q;
  assign mem_wr_host_o  = wr_host_q;
  assign mem_wr_data_o  = wr_data_q;
  assign mem_wr_be_o    = 4'hF;
endmodule

`default_nettype wire
