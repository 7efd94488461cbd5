`default_nettype none
// Command processor: reads commands from N_RINGS rings in device memory and runs them one at a
// time. The next command comes from the next ring (round-robin) that has work it can run, so
// two rings interleave command by command; a ring stopped on a fault or blocked in WAIT_FENCE
// never holds the others up. Physical commands (FENCE, PTE_FILL, WRITE_IMM, TIMESTAMP) write
// device memory directly; DMA_COPY/DMA_FILL, LAUNCH and GFX_* run on the engines, translated by the
// MMU in the context the ring bound with BIND_CTX; TLB_INV goes to the MMU in stream order.
module command_processor #(
  parameter integer MEM_BYTES = 16777216,  // device memory bytes (range checks)
  parameter integer N_RINGS   = 2,         // command rings: 2 or 4
  parameter integer GFX_ENGINE = 1,        // 0: no graphics engine, GFX_* commands are BAD_COMMAND
  parameter integer SIMT_SLOTS = 0,        // threads of the SIMT unit (lanes x warps); 0: no unit,
                                           // LAUNCH_PROG is BAD_COMMAND
  parameter integer SIMT_SHARED_BYTES = 4096  // the unit's shared memory (LAUNCH_PROG's limit)
) (
  input  wire                clk_i,
  input  wire                rst_ni,
  // ring registers, from the CSR block
  input  wire                reg_we_i,
  input  wire                reg_re_i,     // a ring register is being read (reg_rdata_o needed)
  input  wire [1:0]          reg_ring_i,
  input  wire [5:0]          reg_off_i,    // byte offset inside the ring's register block
  input  wire [31:0]         reg_wdata_i,
  output reg  [31:0]         reg_rdata_o,  // combinational read of reg_ring_i / reg_off_i
  input  wire [63:0]         cycle_i,      // free-running cycle counter (TIMESTAMP)
  // memory master: rings and physical writes, always device memory
  output reg                 mem_rd_valid_o,
  input  wire                mem_rd_ready_i,
  output reg  [31:0]         mem_rd_addr_o,
  input  wire                mem_rsp_valid_i,
  input  wire [31:0]         mem_rsp_data_i,
  output reg                 mem_wr_valid_o,
  input  wire                mem_wr_ready_i,
  output reg  [31:0]         mem_wr_addr_o,
  output reg  [31:0]         mem_wr_data_o,
  // context of the running command, and invalidations, to the MMU
  output wire                ctx_valid_o,
  output wire [7:0]          ctx_asid_o,
  output wire [31:0]         ctx_root_o,
  output reg                 inv_valid_o,
  output wire [1:0]          inv_mode_o,
  output wire [7:0]          inv_asid_o,
  output wire [31:0]         inv_va_o,
  output wire [31:0]         inv_size_o,
  input  wire                inv_done_i,
  // DMA engine
  output reg                 dma_start_o,
  output wire                dma_op_o,
  output wire [31:0]         dma_src_va_o,
  output wire [31:0]         dma_dst_va_o,
  output wire [31:0]         dma_width_o,
  output wire [31:0]         dma_height_o,
  output wire [31:0]         dma_src_pitch_o,
  output wire [31:0]         dma_dst_pitch_o,
  output wire [31:0]         dma_pattern_o,
  output wire [1:0]          dma_pattern_size_o,
  input  wire                dma_done_i,
  input  wire                dma_fault_i,
  input  wire [31:0]         dma_fault_va_i,
  input  wire                dma_fault_write_i,
  input  wire [3:0]          dma_fault_reason_i,
  // compute engine
  output reg                 cu_start_o,
  output wire [7:0]          cu_kernel_o,
  output wire [31:0]         cu_args_va_o,
  input  wire                cu_done_i,
  input  wire                cu_fault_i,
  input  wire [31:0]         cu_fault_va_i,
  input  wire                cu_fault_write_i,
  input  wire [3:0]          cu_fault_reason_i,
  // SIMT compute unit (LAUNCH_PROG)
  output reg                 simt_start_o,
  output wire [31:0]         simt_code_va_o,
  output wire [31:0]         simt_args_va_o,
  output wire [31:0]         simt_stack_va_o,
  output wire [4:0]          simt_stack_log2_o,
  output wire [15:0]         simt_grid_x_o,
  output wire [15:0]         simt_grid_y_o,
  output wire [15:0]         simt_grid_z_o,
  output wire [9:0]          simt_block_x_o,
  output wire [9:0]          simt_block_y_o,
  output wire [9:0]          simt_block_z_o,
  output wire [29:0]         simt_threads_o,    // x * y * z of the block, registered
  input  wire                simt_done_i,
  input  wire                simt_fault_i,
  input  wire [31:0]         simt_fault_va_i,
  input  wire [1:0]          simt_fault_access_i,
  input  wire [3:0]          simt_fault_reason_i,
  input  wire [7:0]          simt_fault_lane_i,
  input  wire [7:0]          simt_fault_warp_i,
  input  wire [31:0]         simt_fault_pc_i,
  // graphics engine
  output reg                 gfx_start_o,
  output wire [1:0]          gfx_op_o,        // 0 fill, 1 blit, 2 mipgen
  output wire [31:0]         gfx_src_va_o,
  output wire [31:0]         gfx_src_pitch_o,
  output wire [31:0]         gfx_src_w_o,
  output wire [31:0]         gfx_src_h_o,
  output wire [31:0]         gfx_dst_va_o,
  output wire [31:0]         gfx_dst_pitch_o,
  output wire [31:0]         gfx_dst_w_o,
  output wire [31:0]         gfx_dst_h_o,
  output wire [31:0]         gfx_color_o,
  input  wire                gfx_done_i,
  input  wire                gfx_fault_i,
  input  wire [31:0]         gfx_fault_va_i,
  input  wire                gfx_fault_write_i,
  input  wire [3:0]          gfx_fault_reason_i,
  // status
  output wire                idle_o,        // nothing runnable and nothing running
  output reg  [N_RINGS-1:0]  ring_busy_o,
  output wire [N_RINGS-1:0]  ring_fault_o,
  output reg  [N_RINGS-1:0]  fence_irq_o,   // one-cycle pulses
  output reg  [N_RINGS-1:0]  fault_irq_o
);
  `include "vmgpu_regs.vh"

  localparam integer RW = $clog2(N_RINGS);  // ring-index width (N_RINGS a power of two)
  localparam [39:0]  MEM_LIMIT = 40'd1 * MEM_BYTES;

  localparam [3:0] S_IDLE = 4'd0, S_HDR = 4'd1, S_HDR_WAIT = 4'd2, S_ARGS = 4'd3,
                   S_EXEC = 4'd4, S_WRITE = 4'd5, S_IMM_RD = 4'd6, S_IMM_WAIT = 4'd7,
                   S_IMM_WR = 4'd8, S_INV = 4'd9, S_ENGINE = 4'd10, S_DONE = 4'd11,
                   S_FAULT = 4'd12, S_START = 4'd13, S_HDR_CHK = 4'd14;

  // ---- ring state, flattened per ring ----
  // Per-ring registers are arrays indexed by ring number: Yosys turns them into one register
  // set per ring with decoded write enables and a small read mux (a flattened vector with
  // variable part-selects became barrel shifters and cost tens of thousands of LUTs).
  reg [31:0] base_q [0:N_RINGS-1];
  reg [31:0] size_q [0:N_RINGS-1];
  reg [31:0] head_q [0:N_RINGS-1];
  reg [31:0] tail_q [0:N_RINGS-1];
  reg [31:0] fence_q [0:N_RINGS-1];
  reg [31:0] root_q [0:N_RINGS-1];
  reg [31:0] fault_va_q [0:N_RINGS-1];
  reg [31:0] fault_info_q [0:N_RINGS-1];
  reg [31:0] fault_cmd_q [0:N_RINGS-1];
  reg [31:0] fault_next_q [0:N_RINGS-1];
  reg [31:0] fault_thread_q [0:N_RINGS-1];  // LAUNCH_PROG: SIMT, access, warp, lane
  reg [31:0] fault_pc_q [0:N_RINGS-1];
  reg [31:0] wait_val_q [0:N_RINGS-1];
  reg [7:0]  asid_q [0:N_RINGS-1];
  reg [1:0]  wait_ring_q [0:N_RINGS-1];
  reg [N_RINGS-1:0]    enable_q, faulted_q, waiting_q, ctx_valid_q, reset_seen_q;
  // Registered per-ring results that would otherwise sit on the pick path (timing at 50 MHz on
  // the ECP5): fence_reached_q[r] is the WAIT_FENCE comparison of ring r, ring_ok_q[r] whether
  // its BASE/SIZE are usable. Both are exact whenever they are read; see where they are set.
  reg [N_RINGS-1:0]    fence_reached_q, ring_ok_q;

  // ---- the running command ----
  reg [3:0]     state_q;
  reg [RW-1:0]  cur_q, last_q;
  reg [31:0]    cmd_head_q;     // ring offset of the header
  reg [31:0]    cmd_base_q;     // BASE of the picked ring, as it was when picked
  reg [7:0]     op_q, len_q;
  reg [7:0]     flags_q;       // header flags (bits [23:16] are unused by every command)
  reg           hdr_ok_q;      // the header's op/len/flags are well formed (S_HDR_CHK)
  reg [31:0]    args_q [0:7];  // payload words 0..7
  reg [3:0]     rd_issued_q, rd_got_q, nargs_q;
  reg [31:0]    wr_count_q, wr_addr_q, wr_data_q, wr_inc_q;
  reg [7:0]     imm_k_q;        // WRITE_IMM: next payload word to copy (1-based)
  reg [31:0]    ts_hi_q;        // TIMESTAMP: high word, written second

  wire [31:0] a0 = args_q[0], a1 = args_q[1], a2 = args_q[2];
  wire [31:0] a3 = args_q[3], a4 = args_q[4], a5 = args_q[5];
  wire [31:0] a6 = args_q[6], a7 = args_q[7];

  wire [31:0] cur_base = base_q[cur_q];
  wire [31:0] cur_mask = size_q[cur_q] - 32'd1;

  // ---- which rings can run ----
  // Timeline comparison that survives 32-bit wrap-around: fence has reached value.
  function automatic reached(input [31:0] fence, input [31:0] value);
    reg [31:0] diff;
    begin
      diff = fence - value;
      reached = ($signed(diff) >= 0);
    end
  endfunction

  // Only looked at while no command runs (picking the next one, and idle_o), so it is not
  // computed otherwise: that keeps the simulated model cheap while an engine streams.
  // The pick uses nonempty_q, HEAD != TAIL one cycle late (the 32-bit compares ahead of the
  // round robin were the board's critical path). Late means a ring may be picked a cycle after
  // it emptied (HEAD moved at a command's end or by a RESET): S_START sees HEAD == TAIL then and
  // goes back to S_IDLE. idle_o and ring_busy_o use the exact compare.
  integer r;
  reg [N_RINGS-1:0] runnable, runnable_pick, nonempty_q;
  always @(*) begin
    runnable = {N_RINGS{1'b0}};
    runnable_pick = {N_RINGS{1'b0}};
    for (r = 0; r < N_RINGS; r = r + 1) begin
      ring_busy_o[r] = (head_q[r] != tail_q[r]) || (state_q != S_IDLE && cur_q == r[RW-1:0]);
      if (state_q == S_IDLE) begin
        runnable[r] = enable_q[r] && !faulted_q[r] &&
                    (head_q[r] != tail_q[r]) &&
                    (!waiting_q[r] || fence_reached_q[r]);
        runnable_pick[r] = enable_q[r] && !faulted_q[r] && nonempty_q[r] &&
                           (!waiting_q[r] || fence_reached_q[r]);
      end
    end
  end
  assign ring_fault_o = faulted_q;
  assign idle_o = (state_q == S_IDLE) && (runnable == {N_RINGS{1'b0}});

  // Round-robin: the first runnable ring after the last one served.
  reg          pick_found;
  reg [RW-1:0] pick;
  integer k;
  always @(*) begin
    pick_found = 1'b0;
    pick = {RW{1'b0}};
    for (k = N_RINGS; k >= 1; k = k - 1) begin
      if (runnable_pick[last_q + k[RW-1:0]]) begin
        pick_found = 1'b1;
        pick = last_q + k[RW-1:0];
      end
    end
  end

  // A ring's configuration is usable when its size is a power of two >= 64 and it lies in memory.
  function automatic ring_ok(input [31:0] base, input [31:0] size);
    ring_ok = (size >= 32'd64) && ((size & (size - 32'd1)) == 32'd0) && (base[1:0] == 2'b00) &&
              ({8'd0, base} + {8'd0, size} <= MEM_LIMIT);
  endfunction

  // Physical operand check: 0 ok, else a FAULT_* reason. pa + bytes > MEM_BYTES, computed
  // without a 40-bit adder: MEM_BYTES is 2^MK, so an operand with a bit at or above MK+1 is out
  // (pa or bytes alone exceeds it) and the rest is an (MK+2)-bit sum compared with 2^MK. The
  // short carry chain is what keeps S_EXEC's decision inside the board's 20 ns.
  localparam integer MK = $clog2(MEM_BYTES);
  function automatic [3:0] phys_check(input [31:0] pa, input [39:0] bytes);
    reg [MK+1:0] sum;
    reg          over;
    begin
      sum  = {1'b0, pa[MK:0]} + {1'b0, bytes[MK:0]};
      over = (|pa[31:MK+1]) || (|bytes[39:MK+1]) || sum[MK+1] || (sum[MK] && (|sum[MK-1:0]));
      if (pa[1:0] != 2'b00) phys_check = FAULT_MISALIGNED;
      else if (over) phys_check = FAULT_PHYS_RANGE;
      else phys_check = FAULT_NONE;
    end
  endfunction

  // The physical operand of the command in S_EXEC and its byte count: one shared range adder
  // instead of one per opcode (each was a 40-bit add and compare in the LUT count).
  reg [31:0] chk_pa;
  reg [39:0] chk_bytes;
  wire [31:0] v0 = (rd_got_q == 4'd0) ? mem_rsp_data_i : a0;
  wire [31:0] v1 = (rd_got_q == 4'd1) ? mem_rsp_data_i : a1;
  always @(*) begin
    chk_pa    = v0;
    chk_bytes = 40'd0;
    case (op_q)
      OP_BIND_CTX:  begin chk_pa = v1; chk_bytes = 40'd4096; end
      OP_FENCE:     begin chk_pa = v1; chk_bytes = 40'd4; end
      OP_PTE_FILL:  chk_bytes = {6'd0, v1, 2'b00};
      OP_TIMESTAMP: chk_bytes = 40'd8;
      OP_WRITE_IMM: chk_bytes = {30'd0, len_q - 8'd1, 2'b00};
      default:      ;
    endcase
  end
  // The check runs as each payload word arrives, on the words as they will be (the arriving one
  // in its slot), and its answer is registered: S_EXEC then decides from a flip-flop, not from
  // an opcode mux, an adder and a compare in series (the 85F's critical path, 46.9 MHz).
  wire [3:0] chk_fault_now = phys_check(chk_pa, chk_bytes);
  reg  [3:0] chk_fault;

  // Header decode: payload words to fetch before executing, and whether the command is well formed.
  wire [7:0]  hdr_op    = mem_rsp_data_i[7:0];
  wire [7:0]  hdr_len   = mem_rsp_data_i[15:8];
  wire [7:0]  hdr_flags = mem_rsp_data_i[23:16];  // bits [31:24] are reserved
  reg         hdr_ok;
  always @(*) begin
    case (hdr_op)
      OP_NOP:        hdr_ok = 1'b1;
      OP_BIND_CTX:   hdr_ok = (hdr_len == 8'd2);
      OP_FENCE:      hdr_ok = (hdr_len == 8'd2);
      OP_PTE_FILL:   hdr_ok = (hdr_len == 8'd4);
      OP_WRITE_IMM:  hdr_ok = (hdr_len >= 8'd2);
      OP_TLB_INV:    hdr_ok = (hdr_len == 8'd3) && (hdr_flags[1:0] != 2'd3);
      OP_DMA_COPY:   hdr_ok = (hdr_len == 8'd6);
      OP_DMA_FILL:   hdr_ok = (hdr_len == 8'd5) && (hdr_flags[1:0] != 2'd3);
      OP_LAUNCH:     hdr_ok = (hdr_len == 8'd1) && (hdr_flags[7:0] <= KERNEL_REDUCE_SUM);
      OP_TIMESTAMP:  hdr_ok = (hdr_len == 8'd1);
      OP_WAIT_FENCE: hdr_ok = (hdr_len == 8'd2);
      OP_GFX_FILL:   hdr_ok = (GFX_ENGINE != 0) && (hdr_len == 8'd5);
      OP_GFX_BLIT:   hdr_ok = (GFX_ENGINE != 0) && (hdr_len == 8'd8);
      OP_GFX_MIPGEN: hdr_ok = (GFX_ENGINE != 0) && (hdr_len == 8'd8);
      OP_LAUNCH_PROG: hdr_ok = (SIMT_SLOTS != 0) && (hdr_len == 8'd8) && (hdr_flags[7:5] == 3'd0);
      default:       hdr_ok = 1'b0;
    endcase
  end
  // Bytes between the header and TAIL: the whole command must be there.
  wire [31:0] avail = (tail_q[cur_q] - cmd_head_q) & cur_mask;
  // Registered while the header is read, so S_HDR_CHK compares it with the command's length
  // without the subtraction in front (two carry chains in series were the board's critical
  // path). TAIL only moves forward and the driver writes whole commands before it, so a value
  // taken after the ring was picked already covers the command.
  reg  [7:0]  avail_w_q;      // avail / 4 (the words from the header on) when avail_small_q
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_avail = &{1'b0, avail[1:0]};  // always 0: HEAD and TAIL are whole words
  /* verilator lint_on UNUSEDSIGNAL */
  reg         wf_reached_q;  // WAIT_FENCE: the awaited fence was reached (see S_ARGS)
  // Addresses of payload word rd_issued_q and of the one after it, from registers only: the
  // fabric's grant (mem_rd_ready_i) comes late in the cycle and then only picks one of the two.
  wire [3:0]  rd_issued_p1  = rd_issued_q + 4'd1;
  wire [31:0] arg_addr_cur  = cur_base + ((cmd_head_q + {26'd0, rd_issued_q, 2'b00} + 32'd4) & cur_mask);
  wire [31:0] arg_addr_next = cur_base + ((cmd_head_q + {26'd0, rd_issued_p1, 2'b00} + 32'd4) & cur_mask);
  // From the registered header (S_HDR_CHK): the memory response goes into registers only.
  wire [31:0] need  = {22'd0, len_q, 2'b00} + 32'd4;
  // HEAD and TAIL are whole words (RING_TAIL drops the low bits; the formal check proves both
  // aligned), so the bytes available are too, and "fewer bytes than the command needs"
  // (avail < 4 len + 4) is avail / 4 <= len: an 8-bit compare of registers, where the 34-bit sum
  // and compare were on the board's critical path with the SIMT unit (into fault_va_q).
  reg         avail_small_q;   // avail < 1024 bytes
  wire        hdr_short = avail_small_q && (avail_w_q <= len_q);

  // ---- outputs to the MMU and engines ----
  assign ctx_valid_o = ctx_valid_q[cur_q];
  assign ctx_asid_o  = asid_q[cur_q];
  assign ctx_root_o  = root_q[cur_q];
  assign inv_mode_o  = flags_q[1:0];
  assign inv_asid_o  = a0[7:0];
  assign inv_va_o    = a1;
  assign inv_size_o  = a2;
  assign dma_op_o           = (op_q == OP_DMA_FILL);
  assign dma_src_va_o       = a0;
  assign dma_dst_va_o       = dma_op_o ? a0 : a1;
  assign dma_width_o        = dma_op_o ? a1 : a2;
  assign dma_height_o       = dma_op_o ? a2 : a3;
  assign dma_src_pitch_o    = a4;
  assign dma_dst_pitch_o    = dma_op_o ? a3 : a5;
  assign dma_pattern_o      = a4;
  assign dma_pattern_size_o = flags_q[1:0];
  assign cu_kernel_o        = flags_q;
  assign cu_args_va_o       = a0;
  // GFX_FILL: dst_va, dst_pitch, width, height, color; GFX_BLIT/MIPGEN: src_va, src_pitch,
  // src_w, src_h, dst_va, dst_pitch, dst_w, dst_h.
  wire   gfx_fill           = (op_q == OP_GFX_FILL);
  assign gfx_op_o           = gfx_fill ? 2'd0 : (op_q == OP_GFX_BLIT) ? 2'd1 : 2'd2;
  assign gfx_src_va_o       = a0;
  assign gfx_src_pitch_o    = a1;
  assign gfx_src_w_o        = a2;
  assign gfx_src_h_o        = a3;
  assign gfx_dst_va_o       = gfx_fill ? a0 : a4;
  assign gfx_dst_pitch_o    = gfx_fill ? a1 : a5;
  assign gfx_dst_w_o        = gfx_fill ? a2 : a6;
  assign gfx_dst_h_o        = gfx_fill ? a3 : a7;
  assign gfx_color_o        = a4;
  // LAUNCH_PROG: code_va, args_va, grid_x, grid_y, grid_z, block (x, y, z in 10-bit fields),
  // shared_bytes, stack_va; flags[4:0] the per-thread stack's log2.
  assign simt_code_va_o     = a0;
  assign simt_args_va_o     = a1;
  assign simt_grid_x_o      = a2[15:0];
  assign simt_grid_y_o      = a3[15:0];
  assign simt_grid_z_o      = a4[15:0];
  assign simt_block_x_o     = a5[9:0];
  assign simt_block_y_o     = a5[19:10];
  assign simt_block_z_o     = a5[29:20];
  assign simt_stack_va_o    = a7;
  assign simt_stack_log2_o  = flags_q[4:0];
  // The launch's shape is checked here, so a bad one stops at the command with the header's
  // address, as every malformed command does, before the unit starts. Only with a unit: the
  // multiplier and compares are not built into a device without one.
  // The thread count x * y * z is two multiplies deep, too long for the cycle that also decides
  // the state and the unit's start. It is computed in two registered steps while the payload
  // still arrives: the header check holds LAUNCH_PROG to 8 words, so word 5 (the block) is in
  // args_q at least two cycles before S_EXEC (words 6 and 7 come after it, one per cycle at
  // most), and prog_many_q, two flops behind args_q[5], reads the block of this command there.
  // The unit takes the same registered count (simt_threads_o) instead of multiplying again.
  wire prog_many;
  generate
    if (SIMT_SLOTS != 0) begin : g_prog_threads
      reg [19:0] prog_bxy_q;
      reg [29:0] prog_threads_q;
      reg        prog_many_q;
      wire [29:0] prog_threads = {10'd0, prog_bxy_q} * {20'd0, a5[29:20]};
      always @(posedge clk_i) begin
        prog_bxy_q     <= {10'd0, a5[9:0]} * {10'd0, a5[19:10]};
        prog_threads_q <= prog_threads;
        prog_many_q    <= {2'd0, prog_threads} > SIMT_SLOTS;
      end
      assign prog_many = prog_many_q;
      assign simt_threads_o = prog_threads_q;
    end else begin : g_no_prog_threads
      assign prog_many = 1'b1;
      assign simt_threads_o = 30'd0;
    end
  endgenerate
  wire prog_dim_bad = (a2 == 32'd0) || (a3 == 32'd0) || (a4 == 32'd0) ||
                      (|a2[31:16]) || (|a3[31:16]) || (|a4[31:16]) || (|a5[31:30]) ||
                      (a5[9:0] == 10'd0) || (a5[19:10] == 10'd0) || (a5[29:20] == 10'd0);
  wire prog_bad = (SIMT_SLOTS == 0) || prog_dim_bad || prog_many ||
                  (a6 > SIMT_SHARED_BYTES);

  // ---- ring register reads ----
  wire [RW-1:0] rr = reg_ring_i[RW-1:0];
  always @(*) begin
    reg_rdata_o = 32'd0;
    if (reg_re_i && {30'd0, reg_ring_i} < N_RINGS) begin
      case ({6'd0, reg_off_i})
        RING_BASE:       reg_rdata_o = base_q[rr];
        RING_SIZE:       reg_rdata_o = size_q[rr];
        RING_HEAD:       reg_rdata_o = head_q[rr];
        RING_TAIL:       reg_rdata_o = tail_q[rr];
        RING_CTRL:       reg_rdata_o = {31'd0, enable_q[rr]};
        RING_STATUS:     reg_rdata_o = {28'd0, enable_q[rr], waiting_q[rr],
                                        faulted_q[rr], ring_busy_o[rr]};
        RING_FENCE:      reg_rdata_o = fence_q[rr];
        RING_ASID:       reg_rdata_o = {24'd0, asid_q[rr]};
        RING_ROOT:       reg_rdata_o = root_q[rr];
        RING_FAULT_VA:   reg_rdata_o = fault_va_q[rr];
        RING_FAULT_INFO: reg_rdata_o = fault_info_q[rr];
        RING_FAULT_CMD:  reg_rdata_o = fault_cmd_q[rr];
        RING_FAULT_THREAD: reg_rdata_o = fault_thread_q[rr];
        RING_FAULT_PC:   reg_rdata_o = fault_pc_q[rr];
        default:         reg_rdata_o = 32'd0;
      endcase
    end
  end

  // ---- the sequencer ----
  integer ri, rq;
  wire [31:0] next_head = (cmd_head_q + {22'd0, len_q, 2'b00} + 32'd4) & cur_mask;

  // Stop the running command on a fault: record why, drop any request, report it in S_FAULT.
  // What is recorded is gathered in blocking temporaries (flt_*) through the cycle and written
  // to the ring's fault registers at one place, after the case below: a dozen places wrote
  // those six arrays before, and the Verilator model set up a delayed write for each of them in
  // every cycle, the command processor's largest cost in an idle-device simulation
  // (docs/cores.md). The temporaries are set before they are read on every path, so they are
  // wires, not flops.
  reg        flt_now;
  reg [31:0] flt_va, flt_info, flt_next, flt_thread, flt_pc;
  /* verilator lint_off BLKSEQ */
  task automatic raise_fault(input [3:0] reason, input [31:0] va, input wr);
    begin
      flt_now    = 1'b1;
      flt_va     = va;
      flt_info   = {8'd0, op_q, asid_q[cur_q], 3'd0, wr, reason};
      flt_next   = next_head;
      flt_thread = 32'd0;
      flt_pc     = 32'd0;
      mem_rd_valid_o <= 1'b0;
      mem_wr_valid_o <= 1'b0;
      state_q <= S_FAULT;
    end
  endtask

  always @(posedge clk_i) begin
    flt_now    = 1'b0;
    flt_va     = 32'd0;
    flt_info   = 32'd0;
    flt_next   = 32'd0;
    flt_thread = 32'd0;
    flt_pc     = 32'd0;
    if (!rst_ni) begin
      for (ri = 0; ri < N_RINGS; ri = ri + 1) begin
        base_q[ri] <= 0; size_q[ri] <= 0; head_q[ri] <= 0; tail_q[ri] <= 0; fence_q[ri] <= 0;
        root_q[ri] <= 0; fault_va_q[ri] <= 0; fault_info_q[ri] <= 0; fault_cmd_q[ri] <= 0;
        fault_next_q[ri] <= 0; wait_val_q[ri] <= 0; fault_thread_q[ri] <= 0; fault_pc_q[ri] <= 0; asid_q[ri] <= 0; wait_ring_q[ri] <= 0;
      end
      enable_q <= 0; faulted_q <= 0; waiting_q <= 0; ctx_valid_q <= 0; reset_seen_q <= 0;
      state_q <= S_IDLE; cur_q <= 0; last_q <= 0;
      cmd_head_q <= 0; cmd_base_q <= 0; hdr_ok_q <= 0; op_q <= 0; len_q <= 0; flags_q <= 0;
      fence_reached_q <= 0; ring_ok_q <= 0; nonempty_q <= 0;
      rd_issued_q <= 0; rd_got_q <= 0; nargs_q <= 0;
      wr_count_q <= 0; wr_addr_q <= 0; wr_data_q <= 0; wr_inc_q <= 0; imm_k_q <= 0; ts_hi_q <= 0;
      mem_rd_valid_o <= 1'b0; mem_rd_addr_o <= 0;
      mem_wr_valid_o <= 1'b0; mem_wr_addr_o <= 0; mem_wr_data_o <= 0;
      inv_valid_o <= 1'b0; dma_start_o <= 1'b0; cu_start_o <= 1'b0; gfx_start_o <= 1'b0;
      simt_start_o <= 1'b0;
      fence_irq_o <= 0; fault_irq_o <= 0;
    end else begin
      inv_valid_o <= 1'b0;
      dma_start_o <= 1'b0;
      cu_start_o  <= 1'b0;
      gfx_start_o <= 1'b0;
      simt_start_o <= 1'b0;
      fence_irq_o <= 0;
      fault_irq_o <= 0;

      // Recomputed in every state that can lead into S_IDLE, so the value read in S_IDLE is
      // the comparison of the current fence and wait value: a fence moves only in S_WRITE
      // (followed by S_DONE), and a WAIT_FENCE going from S_EXEC to S_IDLE clears the bit
      // below, which is exact there. Engines streaming (S_ENGINE etc.) do not pay for it.
      // (The loop runs unconditionally, with its own index: a loop under an if made latches.)
      for (rq = 0; rq < N_RINGS; rq = rq + 1) begin
        if (state_q == S_IDLE || state_q == S_DONE || state_q == S_FAULT)
          fence_reached_q[rq] <= reached(fence_q[wait_ring_q[rq][RW-1:0]], wait_val_q[rq]);
        // Only S_START reads ring_ok_q, right after the S_IDLE cycle that picked the ring.
        if (state_q == S_IDLE) ring_ok_q[rq] <= ring_ok(base_q[rq], size_q[rq]);
        nonempty_q[rq] <= head_q[rq] != tail_q[rq];
      end

      case (state_q)
        // Picking only latches the ring; its checks and the header read follow in S_START, so
        // the round-robin choice does not feed the fault registers' and address's enables.
        S_IDLE: begin
          if (pick_found) begin
            cur_q      <= pick;
            last_q     <= pick;
            cmd_head_q <= head_q[pick];
            cmd_base_q <= base_q[pick];
            reset_seen_q[pick] <= 1'b0;
            state_q    <= S_START;
          end
        end

        // ring_ok_q was computed in the S_IDLE cycle that picked this ring (same values the
        // check would have seen there), cmd_base_q/cmd_head_q were latched then too.
        S_START: begin
          if (cmd_head_q == tail_q[cur_q]) begin
            state_q <= S_IDLE;  // picked on a late nonempty_q: the ring had emptied
          end else if (!ring_ok_q[cur_q]) begin
            op_q <= OP_NOP; len_q <= 8'd0;
            state_q <= S_FAULT;
            flt_now    = 1'b1;
            flt_va     = cmd_base_q;
            flt_info   = {16'd0, asid_q[cur_q], 4'd0, FAULT_PHYS_RANGE};
            // No command was read: SKIP leaves HEAD here (it used to move HEAD to whatever an
            // earlier fault of this ring had left in FAULT_NEXT).
            flt_next   = cmd_head_q;
          end else begin
            mem_rd_valid_o <= 1'b1;
            mem_rd_addr_o  <= cmd_base_q + cmd_head_q;
            state_q <= S_HDR;
          end
        end

        S_HDR: if (mem_rd_ready_i) begin
          mem_rd_valid_o <= 1'b0;
          state_q <= S_HDR_WAIT;
        end

        // The header is only registered here: decoding it straight off the memory response
        // (block RAM clock-to-out) into the fault checks was the board build's critical path.
        S_HDR_WAIT: if (mem_rsp_valid_i) begin
          avail_w_q <= avail[9:2];
          avail_small_q <= (avail[31:10] == 22'd0);
          op_q     <= hdr_op;
          len_q    <= hdr_len;
          flags_q  <= hdr_flags;
          hdr_ok_q <= hdr_ok;
          rd_issued_q <= 4'd0;
          rd_got_q    <= 4'd0;
          state_q  <= S_HDR_CHK;
        end

        S_HDR_CHK: begin
          if (!hdr_ok_q || hdr_short) begin
            raise_fault(FAULT_BAD_COMMAND, cur_base + cmd_head_q, 1'b0);
            // SKIP past a truncated command stops at TAIL instead of running into stale words.
            flt_next = hdr_short ? tail_q[cur_q] : (cmd_head_q + need) & cur_mask;
          end else if (op_q == OP_NOP) begin
            state_q <= S_DONE;
          end else begin
            nargs_q <= (op_q == OP_WRITE_IMM) ? 4'd1 : len_q[3:0];
            state_q <= S_ARGS;
          end
        end

        // Fetch the payload words, one read per cycle.
        S_ARGS: begin
          if (mem_rd_valid_o && mem_rd_ready_i) rd_issued_q <= rd_issued_q + 4'd1;
          if (mem_rd_valid_o && mem_rd_ready_i && rd_issued_q + 4'd1 == nargs_q)
            mem_rd_valid_o <= 1'b0;
          else if (rd_issued_q < nargs_q) begin
            mem_rd_valid_o <= 1'b1;
            mem_rd_addr_o  <= (mem_rd_valid_o && mem_rd_ready_i) ? arg_addr_next : arg_addr_cur;
          end
          if (mem_rsp_valid_i) begin
            // WAIT_FENCE's comparison is made as its value word arrives (args_q[0], the ring,
            // came a cycle before); no fence moves until this command has run, so S_EXEC can use
            // the registered answer instead of a ring mux and a 32-bit compare in its decision.
            if (rd_got_q == 4'd1)
              wf_reached_q <= reached(fence_q[args_q[0][RW-1:0]], mem_rsp_data_i);
            chk_fault <= chk_fault_now;
            args_q[rd_got_q[2:0]] <= mem_rsp_data_i;
            rd_got_q <= rd_got_q + 4'd1;
            if (rd_got_q + 4'd1 == nargs_q) state_q <= S_EXEC;
          end
        end

        S_EXEC: begin
          case (op_q)
            OP_BIND_CTX: begin
              if (a1[11:0] != 12'd0) raise_fault(FAULT_MISALIGNED, a1, 1'b0);
              else if (chk_fault != FAULT_NONE) raise_fault(FAULT_PHYS_RANGE, a1, 1'b0);
              else begin
                asid_q[cur_q]   <= a0[7:0];
                root_q[cur_q] <= a1;
                ctx_valid_q[cur_q]     <= 1'b1;
                state_q <= S_DONE;
              end
            end
            OP_FENCE: begin
              if (a1 != 32'd0 && chk_fault != FAULT_NONE)
                raise_fault(chk_fault, a1, 1'b1);
              else begin
                wr_count_q <= (a1 != 32'd0) ? 32'd1 : 32'd0;
                wr_addr_q  <= a1;
                wr_data_q  <= a0;
                wr_inc_q   <= 32'd0;
                state_q    <= S_WRITE;
              end
            end
            OP_PTE_FILL: begin
              if (chk_fault != FAULT_NONE)
                raise_fault(chk_fault, a0, 1'b1);
              else begin
                wr_count_q <= a1;
                wr_addr_q  <= a0;
                wr_data_q  <= a2;
                wr_inc_q   <= a3;
                state_q    <= S_WRITE;
              end
            end
            OP_TIMESTAMP: begin
              if (chk_fault != FAULT_NONE) raise_fault(chk_fault, a0, 1'b1);
              else begin
                wr_count_q <= 32'd2;
                wr_addr_q  <= a0;
                wr_data_q  <= cycle_i[31:0];
                ts_hi_q    <= cycle_i[63:32];
                state_q    <= S_WRITE;
              end
            end
            OP_WRITE_IMM: begin
              if (chk_fault != FAULT_NONE)
                raise_fault(chk_fault, a0, 1'b1);
              else begin
                imm_k_q   <= 8'd1;
                wr_addr_q <= a0;
                state_q   <= S_IMM_RD;
              end
            end
            OP_TLB_INV: begin
              inv_valid_o <= 1'b1;
              state_q <= S_INV;
            end
            OP_DMA_COPY, OP_DMA_FILL: begin
              dma_start_o <= 1'b1;
              state_q <= S_ENGINE;
            end
            OP_LAUNCH: begin
              cu_start_o <= 1'b1;
              state_q <= S_ENGINE;
            end
            OP_GFX_FILL, OP_GFX_BLIT, OP_GFX_MIPGEN: begin
              gfx_start_o <= 1'b1;
              state_q <= S_ENGINE;
            end
            OP_LAUNCH_PROG: begin
              if (prog_bad) begin
                raise_fault(FAULT_BAD_COMMAND, cur_base + cmd_head_q, 1'b0);
                if (SIMT_SLOTS != 0)
                  flt_thread = {1'b1, 13'd0, SIMT_ACCESS_INSTR, 16'd0};
              end else begin
                simt_start_o <= 1'b1;
                state_q <= S_ENGINE;
              end
            end
            OP_WAIT_FENCE: begin
              if (a0 >= N_RINGS) raise_fault(FAULT_BAD_COMMAND, a0, 1'b0);
              else begin
                wait_ring_q[cur_q] <= a0[1:0];
                wait_val_q[cur_q] <= a1;
                if (wf_reached_q) begin
                  waiting_q[cur_q] <= 1'b0;
                  state_q <= S_DONE;
                end else begin
                  // Leave the command at HEAD; the ring runs again once the fence is reached.
                  // Not reached now, and no fence moves before the next cycle's recompute.
                  waiting_q[cur_q] <= 1'b1;
                  fence_reached_q[cur_q] <= 1'b0;
                  state_q <= S_IDLE;
                end
              end
            end
            default: raise_fault(FAULT_BAD_COMMAND, cur_base + cmd_head_q, 1'b0);
          endcase
        end

        // Physical writes: wr_count words from wr_addr, data stepping by wr_inc.
        S_WRITE: begin
          if (mem_wr_valid_o && mem_wr_ready_i) begin
            mem_wr_valid_o <= 1'b0;
          end
          if (!mem_wr_valid_o || mem_wr_ready_i) begin
            if (wr_count_q != 32'd0) begin
              mem_wr_valid_o <= 1'b1;
              mem_wr_addr_o  <= wr_addr_q;
              mem_wr_data_o  <= wr_data_q;
              wr_addr_q  <= wr_addr_q + 32'd4;
              wr_data_q  <= (op_q == OP_TIMESTAMP) ? ts_hi_q : wr_data_q + wr_inc_q;
              wr_count_q <= wr_count_q - 32'd1;
            end else begin
              if (op_q == OP_FENCE) begin
                fence_q[cur_q] <= a0;
                if (flags_q[0]) fence_irq_o[cur_q] <= 1'b1;
              end
              state_q <= S_DONE;
            end
          end
        end

        // WRITE_IMM: copy payload words 1..len-1 from the ring to wr_addr.
        S_IMM_RD: begin
          mem_rd_valid_o <= 1'b1;
          mem_rd_addr_o  <= cur_base + ((cmd_head_q + {22'd0, imm_k_q, 2'b00} + 32'd4) & cur_mask);
          state_q <= S_IMM_WAIT;
        end
        S_IMM_WAIT: begin
          if (mem_rd_valid_o && mem_rd_ready_i) mem_rd_valid_o <= 1'b0;
          if (mem_rsp_valid_i) begin
            mem_wr_valid_o <= 1'b1;
            mem_wr_addr_o  <= wr_addr_q;
            mem_wr_data_o  <= mem_rsp_data_i;
            state_q <= S_IMM_WR;
          end
        end
        S_IMM_WR: if (mem_wr_ready_i) begin
          mem_wr_valid_o <= 1'b0;
          wr_addr_q <= wr_addr_q + 32'd4;
          imm_k_q   <= imm_k_q + 8'd1;
          state_q   <= (imm_k_q + 8'd1 == len_q) ? S_DONE : S_IMM_RD;
        end

        S_INV: if (inv_done_i) state_q <= S_DONE;

        S_ENGINE: begin
          if (dma_done_i) begin
            if (dma_fault_i) raise_fault(dma_fault_reason_i, dma_fault_va_i, dma_fault_write_i);
            else state_q <= S_DONE;
          end
          if (cu_done_i) begin
            if (cu_fault_i) raise_fault(cu_fault_reason_i, cu_fault_va_i, cu_fault_write_i);
            else state_q <= S_DONE;
          end
          if (gfx_done_i) begin
            if (gfx_fault_i) raise_fault(gfx_fault_reason_i, gfx_fault_va_i, gfx_fault_write_i);
            else state_q <= S_DONE;
          end
          // The unit's report: FAULT_VA/INFO as every engine's, plus the thread and the PC.
          if (SIMT_SLOTS != 0 && simt_done_i) begin
            if (simt_fault_i) begin
              raise_fault(simt_fault_reason_i, simt_fault_va_i,
                          simt_fault_access_i == SIMT_ACCESS_WRITE);
              flt_thread = {1'b1, 13'd0, simt_fault_access_i, simt_fault_warp_i,
                            simt_fault_lane_i};
              flt_pc     = simt_fault_pc_i;
            end else state_q <= S_DONE;
          end
        end

        S_DONE: begin
          // A RESET written while the command ran has already moved HEAD; keep it.
          if (!reset_seen_q[cur_q]) head_q[cur_q] <= next_head;
          state_q <= S_IDLE;
        end

        S_FAULT: begin
          faulted_q[cur_q]   <= !reset_seen_q[cur_q];
          fault_irq_o[cur_q] <= 1'b1;
          state_q <= S_IDLE;
        end

        default: state_q <= S_IDLE;
      endcase
      /* verilator lint_on BLKSEQ */

      // The fault recorded in this cycle, if any (see raise_fault).
      if (flt_now) begin
        fault_va_q[cur_q]     <= flt_va;
        fault_info_q[cur_q]   <= flt_info;
        fault_cmd_q[cur_q]    <= cmd_head_q;
        fault_next_q[cur_q]   <= flt_next;
        fault_thread_q[cur_q] <= flt_thread;
        fault_pc_q[cur_q]     <= flt_pc;
      end

      // Ring register writes from the CSR port (after the sequencer: software wins).
      if (reg_we_i && {30'd0, reg_ring_i} < N_RINGS) begin
        case ({6'd0, reg_off_i})
          RING_BASE: base_q[rr] <= {reg_wdata_i[31:2], 2'b00};
          RING_SIZE: size_q[rr] <= reg_wdata_i;
          RING_TAIL: tail_q[rr] <= reg_wdata_i & (size_q[rr] - 32'd1) & 32'hFFFF_FFFC;
          RING_CTRL: begin
            enable_q[rr] <= reg_wdata_i[RING_CTRL_ENABLE_LSB];
            if (reg_wdata_i[RING_CTRL_RESET_LSB]) begin
              head_q[rr] <= tail_q[rr];
              faulted_q[rr] <= 1'b0;
              waiting_q[rr] <= 1'b0;
              reset_seen_q[rr] <= 1'b1;
            end else if (reg_wdata_i[RING_CTRL_SKIP_LSB] && faulted_q[rr]) begin
              head_q[rr] <= fault_next_q[rr];
              faulted_q[rr] <= 1'b0;
            end
          end
          default: ;
        endcase
      end
    end
  end

`ifdef FORMAL
  // Properties (tests/formal/command_processor.sby, docs/formal.md): the ring pointers and the
  // fences. What the driver promises is assumed when the command processor is proven alone
  // (FORMAL_CP), asserted when a larger proof contains it.
`ifdef FORMAL_CP
`define CP_ASSUME assume
`else
`define CP_ASSUME assert
`endif
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) `CP_ASSUME(!rst_ni);

  wire        f_running  = (state_q != S_IDLE);
  wire [31:0] f_wr_tail  = reg_wdata_i & (size_q[rr] - 32'd1) & 32'hFFFF_FFFC;
  wire [31:0] f_rr_mask  = size_q[rr] - 32'd1;
  // Bytes published and not yet taken, from HEAD (and from the running command's header).
  function automatic [31:0] f_dist(input [31:0] from, input [31:0] to, input [31:0] mask);
    f_dist = (to - from) & mask;
  endfunction

  // The driver (sw/core/dev.c ring_setup): BASE and SIZE, a power of two, change only while
  // their ring is disabled and idle; TAIL is written with the ring's size in place and only
  // moves forward (what is published stays published until taken); a disabled ring is enabled
  // with RESET (HEAD = TAIL) once TAIL is inside the ring; each FENCE value is at or past the
  // ring's current fence (32-bit wrap-around order, as WAIT_FENCE compares).
  wire f_pow2 = (reg_wdata_i != 32'd0) && ((reg_wdata_i & (reg_wdata_i - 32'd1)) == 32'd0);
  always @(*) if (f_past_valid && rst_ni && reg_we_i && {30'd0, reg_ring_i} < N_RINGS) begin
    if ({6'd0, reg_off_i} == RING_BASE || {6'd0, reg_off_i} == RING_SIZE)
      `CP_ASSUME(!enable_q[rr] && !(f_running && cur_q == rr));
    if ({6'd0, reg_off_i} == RING_SIZE) `CP_ASSUME(f_pow2);
    if ({6'd0, reg_off_i} == RING_CTRL && reg_wdata_i[RING_CTRL_ENABLE_LSB] && !enable_q[rr])
      `CP_ASSUME(reg_wdata_i[RING_CTRL_RESET_LSB] && tail_q[rr] < size_q[rr]);
    if ({6'd0, reg_off_i} == RING_TAIL) begin
      `CP_ASSUME(size_q[rr] != 32'd0);
      `CP_ASSUME(f_dist(head_q[rr], f_wr_tail, f_rr_mask) >= f_dist(head_q[rr], tail_q[rr], f_rr_mask));
      if (f_running && cur_q == rr)
        `CP_ASSUME(f_dist(cmd_head_q, f_wr_tail, f_rr_mask) >= f_dist(cmd_head_q, tail_q[rr], f_rr_mask));
    end
  end
  // Values kept small so that the bounded check reaches its depth in time: register values
  // and memory words below 2^16 (ring offsets, sizes and physical addresses of 4 KiB memory
  // fit), the cycle counter 0. Opcodes, lengths and flags stay free.
  always @(*) if (f_past_valid && rst_ni) begin
    `CP_ASSUME(reg_wdata_i[31:16] == 16'd0 && cycle_i == 64'd0);
    if (state_q != S_HDR_WAIT) `CP_ASSUME(mem_rsp_data_i[31:16] == 16'd0);
  end
  always @(*) if (f_past_valid && rst_ni && state_q == S_EXEC && op_q == OP_FENCE)
    `CP_ASSUME(reached(a0, fence_q[cur_q]));

  // Ring pointers. HEAD and TAIL stay word aligned. A command is read only from the words the
  // driver published: every ring read lies between the command's header and TAIL. When a
  // command finishes, HEAD moves past it and never past TAIL.
  wire [31:0] f_cur_mask = size_q[cur_q] - 32'd1;
  wire [31:0] f_rd_off   = mem_rd_addr_o - cmd_base_q;
  wire        f_ring_rd  = mem_rd_valid_o && (state_q == S_HDR || state_q == S_ARGS ||
                                              state_q == S_IMM_WAIT);
  genvar fr;
  generate
    for (fr = 0; fr < N_RINGS; fr = fr + 1) begin : g_f_ring
      always @(*) if (f_past_valid && rst_ni) begin
        assert(head_q[fr][1:0] == 2'b00 && tail_q[fr][1:0] == 2'b00);
        assert(fault_next_q[fr][1:0] == 2'b00);
        if (enable_q[fr] || (f_running && cur_q == fr)) assert(head_q[fr] < size_q[fr] && tail_q[fr] < size_q[fr]);
      end
    end
  endgenerate
  always @(*) if (f_past_valid && rst_ni) begin
    if (f_ring_rd) begin
      assert(f_rd_off[1:0] == 2'b00 && (f_rd_off & ~f_cur_mask) == 32'd0);
      assert(f_dist(cmd_head_q, f_rd_off, f_cur_mask) < f_dist(cmd_head_q, tail_q[cur_q], f_cur_mask));
    end
    if (state_q == S_DONE && !reset_seen_q[cur_q])
      assert(f_dist(cmd_head_q, next_head, f_cur_mask) <= f_dist(cmd_head_q, tail_q[cur_q], f_cur_mask));
    if (f_running) assert(cmd_base_q == base_q[cur_q]);
    if (f_running && state_q != S_START && state_q != S_FAULT)
      assert(ring_ok(base_q[cur_q], size_q[cur_q]));
    if (f_running && !reset_seen_q[cur_q]) assert(cmd_head_q == head_q[cur_q]);
  end

  // Fences. A ring's fence changes only when one of its FENCE commands finishes (after the
  // fence's memory write was taken), to that command's value, so it only moves forward. A ring
  // blocked in WAIT_FENCE is picked again only once the awaited fence has reached its value
  // (the registered fence_reached_q is exact when it is read), and a WAIT_FENCE finishes only
  // then.
  reg [31:0] f_fence_q [0:N_RINGS-1];
  // A FENCE finishes this cycle: its fence register is written at this edge.
  wire       f_fence_write = rst_ni && state_q == S_WRITE && op_q == OP_FENCE && wr_count_q == 32'd0 &&
                             (!mem_wr_valid_o || mem_wr_ready_i);
  generate
    for (fr = 0; fr < N_RINGS; fr = fr + 1) begin : g_f_fence
      always @(posedge clk_i) f_fence_q[fr] <= fence_q[fr];
      always @(posedge clk_i) if (f_past_valid && rst_ni && $past(rst_ni)) begin
        if (fence_q[fr] != f_fence_q[fr]) begin
          assert($past(f_fence_write) && $past(cur_q) == fr && fence_q[fr] == $past(a0));
          assert(reached(fence_q[fr], f_fence_q[fr]));
        end
        if (fence_irq_o[fr]) assert($past(f_fence_write) && $past(cur_q) == fr && $past(flags_q[0]));
      end
      always @(*) if (f_past_valid && rst_ni && state_q == S_IDLE && waiting_q[fr] && fence_reached_q[fr])
        assert(reached(fence_q[wait_ring_q[fr][RW-1:0]], wait_val_q[fr]));
    end
  endgenerate
  always @(*) if (f_past_valid && rst_ni) begin
    if (state_q == S_IDLE && pick_found && waiting_q[pick])
      assert(reached(fence_q[wait_ring_q[pick][RW-1:0]], wait_val_q[pick]));
    if (state_q == S_EXEC && op_q == OP_WAIT_FENCE && a0 < N_RINGS && wf_reached_q)
      assert(reached(fence_q[a0[RW-1:0]], a1));
    if (f_fence_write) assert(!mem_wr_valid_o || mem_wr_ready_i);
  end

  // Reachability: a fence written with its interrupt, a ring picked again after its fence was
  // reached, a ring wrapping round (HEAD back near 0), a fault, two rings interleaved.
  reg               f_wrapped = 1'b0;
  reg [N_RINGS-1:0] f_ran = {N_RINGS{1'b0}};  // rings that finished a command
  always @(posedge clk_i) begin
    if (rst_ni && state_q == S_DONE && !reset_seen_q[cur_q] && next_head < cmd_head_q) f_wrapped <= 1'b1;
    if (rst_ni && state_q == S_DONE) f_ran[cur_q] <= 1'b1;
  end
  always @(*) if (f_past_valid && rst_ni) begin
    cover(fence_irq_o != {N_RINGS{1'b0}});
    cover(state_q == S_IDLE && pick_found && waiting_q[pick]);
    cover(f_wrapped);
    cover(fault_irq_o != {N_RINGS{1'b0}});
    cover(f_ran == {N_RINGS{1'b1}});
  end
`undef CP_ASSUME
`endif
endmodule
