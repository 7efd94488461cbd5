`default_nettype none
// Small synchronous FIFO whose ready and valid come from registers only. vmgpu_top puts one
// on the host-port request path so that nothing inside the device depends combinationally on
// the port's ready: that keeps the boundary timing-clean on the board and keeps the Verilator
// model from re-evaluating the whole fabric whenever the port's inputs change.
module sync_fifo #(
  parameter integer WIDTH = 69,  // bits per entry
  parameter integer DEPTH = 2    // entries, a power of two >= 2
) (
  input  wire             clk_i,
  input  wire             rst_ni,
  input  wire             in_valid_i,
  output wire             in_ready_o,
  input  wire [WIDTH-1:0] in_data_i,
  output wire             out_valid_o,
  input  wire             out_ready_i,
  output wire [WIDTH-1:0] out_data_o
);
  localparam integer PW = $clog2(DEPTH);

  reg [WIDTH-1:0] mem_q [0:DEPTH-1];
  reg [PW-1:0]    rd_q, wr_q;
  reg [PW:0]      count_q;

  wire push = in_valid_i && in_ready_o;
  wire pop  = out_valid_o && out_ready_i;

  assign in_ready_o  = (count_q != DEPTH[PW:0]);
  assign out_valid_o = (count_q != {(PW+1){1'b0}});
  assign out_data_o  = mem_q[rd_q];

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      rd_q <= {PW{1'b0}};
      wr_q <= {PW{1'b0}};
      count_q <= {(PW+1){1'b0}};
    end else begin
      if (push) begin
        mem_q[wr_q] <= in_data_i;
        wr_q <= wr_q + 1'b1;
      end
      if (pop) rd_q <= rd_q + 1'b1;
      count_q <= count_q + {{PW{1'b0}}, push} - {{PW{1'b0}}, pop};
    end
  end
endmodule
