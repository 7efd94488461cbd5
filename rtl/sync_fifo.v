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

`ifdef FORMAL
  // Properties (tests/formal/sync_fifo.sby, docs/formal.md). The neighbours are free: this
  // FIFO makes no demand on them, so there are no assumptions beyond the reset.
  reg f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume(!rst_ni);

  // Occupancy: never above DEPTH, the pointers DEPTH apart exactly when full, the handshakes
  // derived from it (no push into a full FIFO, no pop from an empty one).
  always @(*) if (f_past_valid) begin
    assert(count_q <= DEPTH[PW:0]);
    assert(wr_q - rd_q == count_q[PW-1:0]);
    assert(in_ready_o == (count_q < DEPTH[PW:0]));
    assert(out_valid_o == (count_q != {(PW+1){1'b0}}));
  end
  always @(posedge clk_i) if (f_past_valid && $past(rst_ni)) begin
    assert(count_q == $past(count_q) + {{PW{1'b0}}, $past(push)} - {{PW{1'b0}}, $past(pop)});
  end

  // One entry, chosen freely when it is pushed, comes out unchanged after exactly the entries
  // that were in the FIFO before it: data is neither lost, altered, duplicated nor reordered.
  (* anyseq *) reg f_pick;
  reg             f_tracking = 1'b0;
  reg [WIDTH-1:0] f_data;
  reg [PW-1:0]    f_addr;
  reg [PW:0]      f_ahead;  // entries still in front of the tracked one
  always @(posedge clk_i) begin
    if (!rst_ni) begin
      f_tracking <= 1'b0;
    end else if (!f_tracking) begin
      if (push && f_pick) begin
        f_tracking <= 1'b1;
        f_data <= in_data_i;
        f_addr <= wr_q;
        f_ahead <= count_q - {{PW{1'b0}}, pop};
      end
    end else if (pop) begin
      if (f_ahead == {(PW+1){1'b0}}) f_tracking <= 1'b0;
      else f_ahead <= f_ahead - 1'b1;
    end
  end
  always @(*) if (f_past_valid && rst_ni && f_tracking) begin
    assert(f_ahead < count_q);
    assert(f_addr == rd_q + f_ahead[PW-1:0]);
    assert(mem_q[f_addr] == f_data);
    if (f_ahead == {(PW+1){1'b0}}) assert(out_valid_o && out_data_o == f_data);
  end

  // Reachability: full, and emptied again after being full; a push and a pop in one cycle.
  reg f_was_full = 1'b0;
  always @(posedge clk_i) if (!rst_ni) f_was_full <= 1'b0; else if (!in_ready_o) f_was_full <= 1'b1;
  always @(*) if (rst_ni) begin
    cover(!in_ready_o);
    cover(f_was_full && !out_valid_o);
    cover(push && pop && out_valid_o && in_ready_o);
  end
`endif
endmodule
