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
endmodule
`default_nettype wire
