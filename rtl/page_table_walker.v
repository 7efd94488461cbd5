`default_nettype none
// Two-level page-table walker: reads the PDE, then the PTE, through its own read-only memory
// master (always device memory) and applies the translation rules of docs/architecture.md in
// their order.
//
// The result (done_o with fault_o, reason_o, pte_o) is combinational on the cycle the deciding
// response arrives, so the MMU can register the answer on that edge; with one-cycle memory a
// walk then takes four cycles (PDE request, PDE response, PTE request, PTE response).
module page_table_walker #(
  parameter MEM_BYTES = 16777216  // device memory bytes, power of two, at least one page
) (
  input  wire        clk_i,
  input  wire        rst_ni,
  // walk request: a one-cycle pulse, accepted only while busy_o is low
  input  wire        start_i,
  input  wire [19:0] vpn_i,       // VA[31:12]
  input  wire [31:0] root_i,      // physical address of the page directory
  input  wire        write_i,
  output wire        busy_o,      // high from the cycle after start_i through the done_o cycle
  output reg         done_o,      // one-cycle result pulse
  output reg         fault_o,
  output reg  [3:0]  reason_o,
  output wire [31:0] pte_o,       // last entry read: the PTE, or the PDE when that faulted
  // page-table read master
  output wire        pt_rd_valid_o,
  input  wire        pt_rd_ready_i,
  output wire [31:0] pt_rd_addr_o,
  input  wire        pt_rsp_valid_i,
  input  wire [31:0] pt_rsp_data_i
`ifdef FORMAL
  ,
  // Formal only: the proof's view of the walk and of the memory, for the MMU's proof.
  output wire [19:0] f_vpn_o,        // the walk being served, as it was asked for
  output wire        f_write_o,
  output wire        f_pte_phase_o,  // the PDE was read and passed; the PTE is next
  output wire [4:0]  f_cycles_o,     // cycles since the walk started
  output wire        f_rd_out_o,     // a page-table read is outstanding
  output wire [3:0]  f_wait_o,       // cycles the current read has waited
  output wire [45:0] f_state_o       // {state, addr, table index, write}, for the REQ_REG miter
`endif
);
  `include "vmgpu_regs.vh"

  // Frames at or above this number are outside device memory.
  localparam [31:0] MEM_FRAMES = MEM_BYTES / 4096;

  localparam [2:0] ST_IDLE = 3'd0;
  localparam [2:0] ST_PDE_REQ = 3'd1;
  localparam [2:0] ST_PDE_WAIT = 3'd2;
  localparam [2:0] ST_PTE_REQ = 3'd3;
  localparam [2:0] ST_PTE_WAIT = 3'd4;

  reg [2:0]  state_q, state_d;
  reg [31:0] addr_q, addr_d;
  reg [9:0]  pt_index_q;  // VA[21:12], needed after the PDE arrives
  reg        write_q;

  wire [19:0] rsp_frame = pt_rsp_data_i[31:12];
  wire        rsp_v = pt_rsp_data_i[0];
  wire        rsp_r = pt_rsp_data_i[1];
  wire        rsp_w = pt_rsp_data_i[2];
  wire        rsp_host = pt_rsp_data_i[3];
  wire        rsp_frame_out = ({12'd0, rsp_frame} >= MEM_FRAMES);

  assign busy_o = (state_q != ST_IDLE);
  assign pt_rd_valid_o = (state_q == ST_PDE_REQ) || (state_q == ST_PTE_REQ);
  assign pt_rd_addr_o = addr_q;
  assign pte_o = pt_rsp_data_i;

  always @* begin
    state_d = state_q;
    addr_d = addr_q;
    done_o = 1'b0;
    fault_o = 1'b0;
    reason_o = FAULT_NONE;
    case (state_q)
      ST_IDLE: begin
        if (start_i) begin
          state_d = ST_PDE_REQ;
          addr_d = root_i + {20'd0, vpn_i[19:10], 2'b00};
        end
      end
      ST_PDE_REQ: begin
        if (pt_rd_ready_i) state_d = ST_PDE_WAIT;
      end
      ST_PDE_WAIT: begin
        if (pt_rsp_valid_i) begin
          if (!rsp_v) begin
            done_o = 1'b1;
            fault_o = 1'b1;
            reason_o = FAULT_PDE_INVALID;
            state_d = ST_IDLE;
          end else if (rsp_frame_out) begin
            done_o = 1'b1;
            fault_o = 1'b1;
            reason_o = FAULT_PHYS_RANGE;
            state_d = ST_IDLE;
          end else begin
            addr_d = {rsp_frame, pt_index_q, 2'b00};
            state_d = ST_PTE_REQ;
          end
        end
      end
      ST_PTE_REQ: begin
        if (pt_rd_ready_i) state_d = ST_PTE_WAIT;
      end
      ST_PTE_WAIT: begin
        if (pt_rsp_valid_i) begin
          done_o = 1'b1;
          state_d = ST_IDLE;
          if (!rsp_v) begin
            fault_o = 1'b1;
            reason_o = FAULT_PTE_INVALID;
          end else if (!write_q && !rsp_r) begin
            fault_o = 1'b1;
            reason_o = FAULT_READ_DENIED;
          end else if (write_q && !rsp_w) begin
            fault_o = 1'b1;
            reason_o = FAULT_WRITE_DENIED;
          end else if (!rsp_host && rsp_frame_out) begin
            // Host frames are named by the driver, not bounded by device memory.
            fault_o = 1'b1;
            reason_o = FAULT_PHYS_RANGE;
          end
        end
      end
      default: state_d = ST_IDLE;
    endcase
  end

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q <= ST_IDLE;
      addr_q <= 32'd0;
      pt_index_q <= 10'd0;
      write_q <= 1'b0;
    end else begin
      state_q <= state_d;
      addr_q <= addr_d;
      if (start_i && (state_q == ST_IDLE)) begin
        pt_index_q <= vpn_i[9:0];
        write_q <= write_i;
      end
    end
  end

`ifdef FORMAL
  // Properties (tests/formal/page_table_walker.sby, docs/formal.md). What the MMU and the
  // memory promise is assumed when the walker is proven alone (FORMAL_WALKER) and asserted
  // when the MMU is proven with the walker inside it.
`ifdef FORMAL_WALKER
`define WALKER_ASSUME assume
`else
`define WALKER_ASSUME assert
`endif
  // The memory's promise, for the bound on a walk: a read is taken within F_READY_MAX cycles
  // and answered within F_RSP_MAX cycles after it was taken.
  localparam integer F_READY_MAX = 2;
  localparam integer F_RSP_MAX = 3;
  // Longest walk: two reads, each waiting for its grant and its answer, plus the start cycle.
  localparam integer F_WALK_MAX = 2 * (F_READY_MAX + 1 + F_RSP_MAX);

  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) `WALKER_ASSUME(!rst_ni);

  // A walk starts only while the walker is idle.
  always @(*) if (f_past_valid && rst_ni && start_i) `WALKER_ASSUME(!busy_o);

  // Page-table memory: one read outstanding at a time, answered after it was taken, in time.
  reg       f_rd_out = 1'b0;  // a read was taken and not answered yet
  reg [3:0] f_wait;           // cycles the read has waited (for its grant, then its answer)
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_rd_out <= 1'b0;
      f_wait <= 4'd0;
    end else if (pt_rd_valid_o && pt_rd_ready_i) begin
      f_rd_out <= 1'b1;
      f_wait <= 4'd0;
    end else if (pt_rsp_valid_i) begin
      f_rd_out <= 1'b0;
      f_wait <= 4'd0;
    end else if (pt_rd_valid_o || f_rd_out) begin
      f_wait <= f_wait + 4'd1;
    end else begin
      f_wait <= 4'd0;
    end
  end
  always @(*) if (f_past_valid && rst_ni) begin
    `WALKER_ASSUME(!pt_rsp_valid_i || f_rd_out);
    if (pt_rd_valid_o && f_wait >= F_READY_MAX[3:0]) `WALKER_ASSUME(pt_rd_ready_i);
    if (f_rd_out && f_wait >= F_RSP_MAX[3:0] - 4'd1) `WALKER_ASSUME(pt_rsp_valid_i);
  end

  // The walk being served, as it was asked for, and the PDE it read.
  reg        f_busy = 1'b0;
  reg        f_pte_phase;  // the PDE has been read and passed
  reg [19:0] f_vpn;
  reg [31:0] f_root;
  reg        f_write;
  reg [31:0] f_pde;
  reg [4:0]  f_cycles;     // cycles since the walk started
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_busy <= 1'b0;
      f_pte_phase <= 1'b0;
      f_cycles <= 5'd0;
    end else if (start_i && !busy_o) begin
      f_busy <= 1'b1;
      f_pte_phase <= 1'b0;
      f_vpn <= vpn_i;
      f_root <= root_i;
      f_write <= write_i;
      f_cycles <= 5'd0;
    end else begin
      if (done_o) f_busy <= 1'b0;
      if (f_busy) f_cycles <= f_cycles + 5'd1;
      if (f_busy && !f_pte_phase && pt_rsp_valid_i && !done_o) begin
        f_pte_phase <= 1'b1;
        f_pde <= pt_rsp_data_i;
      end
    end
  end

  assign f_vpn_o = f_vpn;
  assign f_write_o = f_write;
  assign f_pte_phase_o = f_pte_phase;
  assign f_cycles_o = f_cycles;
  assign f_rd_out_o = f_rd_out;
  assign f_wait_o = f_wait;
  assign f_state_o = {state_q, addr_q, pt_index_q, write_q};

  // The translation rules of docs/formats.md, in their order, written from the document:
  // the PDE's V, the PDE's frame inside device memory, the PTE's V, R for a read, W for a
  // write, a device frame inside device memory.
  function automatic [3:0] f_pde_reason(input [31:0] pde);
    begin
      if (!pde[0]) f_pde_reason = FAULT_PDE_INVALID;
      else if ({12'd0, pde[31:12]} >= MEM_BYTES / 4096) f_pde_reason = FAULT_PHYS_RANGE;
      else f_pde_reason = FAULT_NONE;
    end
  endfunction
  function automatic [3:0] f_pte_reason(input [31:0] pte, input write);
    begin
      if (!pte[0]) f_pte_reason = FAULT_PTE_INVALID;
      else if (!write && !pte[1]) f_pte_reason = FAULT_READ_DENIED;
      else if (write && !pte[2]) f_pte_reason = FAULT_WRITE_DENIED;
      else if (!pte[3] && {12'd0, pte[31:12]} >= MEM_BYTES / 4096) f_pte_reason = FAULT_PHYS_RANGE;
      else f_pte_reason = FAULT_NONE;
    end
  endfunction

  always @(*) if (f_past_valid && rst_ni) begin
    // busy_o covers exactly the walk being served; nothing is answered that was not asked.
    assert(busy_o == f_busy);
    if (done_o) assert(f_busy);
    // Reads: none while idle; the first read of a walk is the PDE at root + dir * 4, the second
    // the PTE at the PDE's frame + table index * 4; a read is held until taken.
    if (!f_busy) assert(!pt_rd_valid_o);
    if (pt_rd_valid_o && !f_pte_phase)
      assert(pt_rd_addr_o == f_root + {20'd0, f_vpn[19:10], 2'b00});
    if (pt_rd_valid_o && f_pte_phase)
      assert(pt_rd_addr_o == {f_pde[31:12], f_vpn[9:0], 2'b00});
    if (pt_rd_valid_o) assert(!f_rd_out);
    // The answer: on the PDE when it fails a check, else on the PTE, with the reason the rules
    // name (FAULT_NONE when the access is allowed), and the entry that decided it.
    if (done_o && !f_pte_phase) begin
      assert(pt_rsp_valid_i && f_pde_reason(pt_rsp_data_i) != FAULT_NONE);
      assert(fault_o && reason_o == f_pde_reason(pt_rsp_data_i));
    end
    if (done_o && f_pte_phase) begin
      assert(pt_rsp_valid_i);
      assert(reason_o == f_pte_reason(pt_rsp_data_i, f_write));
      assert(fault_o == (f_pte_reason(pt_rsp_data_i, f_write) != FAULT_NONE));
    end
    if (done_o) assert(pte_o == pt_rsp_data_i);
    // A PDE that passes is never the end of a walk; a PTE answer always is.
    if (f_busy && pt_rsp_valid_i) assert(done_o == (f_pte_phase || f_pde_reason(pt_rsp_data_i) != FAULT_NONE));
    // Bounded: a walk ends within F_WALK_MAX cycles of its start.
    if (f_busy) assert(f_cycles < F_WALK_MAX[4:0]);
  end

  // Internal state that the proof by induction needs stated.
  always @(*) if (f_past_valid && rst_ni) begin
    assert(state_q <= ST_PTE_WAIT);
    assert(f_rd_out == (state_q == ST_PDE_WAIT || state_q == ST_PTE_WAIT));
    if (f_busy) assert(pt_index_q == f_vpn[9:0] && write_q == f_write);
    if (f_busy) assert(f_pte_phase == (state_q == ST_PTE_REQ || state_q == ST_PTE_WAIT));
    if (state_q == ST_PDE_REQ || state_q == ST_PDE_WAIT)
      assert(addr_q == f_root + {20'd0, f_vpn[19:10], 2'b00});
    if (state_q == ST_PTE_REQ || state_q == ST_PTE_WAIT)
      assert(addr_q == {f_pde[31:12], f_vpn[9:0], 2'b00} && f_pde_reason(f_pde) == FAULT_NONE);
    if (!f_rd_out) assert(f_wait <= F_READY_MAX[3:0]);
    else assert(f_wait < F_RSP_MAX[3:0]);
    // The walk's age against its progress: each phase ends within its share of the bound.
    if (state_q == ST_PDE_REQ) assert({1'b0, f_wait} == f_cycles);
    if (state_q == ST_PDE_WAIT) assert(f_cycles <= F_READY_MAX + 1 + f_wait);
    if (state_q == ST_PTE_REQ) assert(f_cycles <= F_READY_MAX + 1 + F_RSP_MAX + f_wait);
    if (state_q == ST_PTE_WAIT) assert(f_cycles <= 2 * (F_READY_MAX + 1) + F_RSP_MAX + f_wait);
  end

  // Reachability: every answer a walk can give.
  always @(*) if (f_past_valid && rst_ni && done_o) begin
    cover(!fault_o && !pte_o[3]);
    cover(!fault_o && pte_o[3]);
    cover(reason_o == FAULT_PDE_INVALID);
    cover(reason_o == FAULT_PHYS_RANGE && !f_pte_phase);
    cover(reason_o == FAULT_PTE_INVALID);
    cover(reason_o == FAULT_READ_DENIED);
    cover(reason_o == FAULT_WRITE_DENIED);
    cover(reason_o == FAULT_PHYS_RANGE && f_pte_phase);
  end
`undef WALKER_ASSUME
`endif
endmodule
`default_nettype wire
