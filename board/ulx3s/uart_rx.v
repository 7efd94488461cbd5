`default_nettype none
// uart_rx: 8N1 receiver. The line passes a two-flop synchroniser; a falling edge starts a byte,
// the fractional accumulator is preloaded with half a bit so that every sample lands in the
// middle of its bit. A start bit that is high again at its middle is a glitch and is ignored;
// a low stop bit (framing error) drops the byte — the frame CRC above deals with the rest.
module uart_rx #(
  parameter integer CLK_HZ = 50000000,  // clock frequency (or any number in the same ratio to BAUD)
  parameter integer BAUD   = 3000000    // line rate; BAUD <= CLK_HZ / 4
) (
  input  wire       clk_i,
  input  wire       rst_ni,
  input  wire       rx_i,      // serial line, asynchronous
  output reg        valid_o,   // one-cycle pulse: data_o holds a received byte
  output reg  [7:0] data_o
);
  localparam integer ACC_W = $clog2(CLK_HZ + BAUD) + 1;  // holds acc + BAUD without overflow

  reg             sync1_q, sync2_q;  // synchroniser; sync2_q is the line as this clock sees it
  reg [ACC_W-1:0] acc_q;
  reg [3:0]       bit_q;             // 0 = start bit, 1..8 data, 9 stop
  reg             busy_q;
  reg [7:0]       shift_q;

  wire [ACC_W-1:0] acc_next = acc_q + BAUD[ACC_W-1:0];
  wire             sample   = acc_next >= CLK_HZ[ACC_W-1:0];

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      sync1_q <= 1'b1;
      sync2_q <= 1'b1;
      acc_q   <= {ACC_W{1'b0}};
      bit_q   <= 4'd0;
      busy_q  <= 1'b0;
      shift_q <= 8'd0;
      valid_o <= 1'b0;
      data_o  <= 8'd0;
    end else begin
      sync1_q <= rx_i;
      sync2_q <= sync1_q;
      valid_o <= 1'b0;
      if (!busy_q) begin
        if (!sync2_q) begin
          busy_q <= 1'b1;
          bit_q  <= 4'd0;
          acc_q  <= CLK_HZ[ACC_W-1:0] / 2;  // half a bit: the first sample is mid start bit
        end
      end else if (sample) begin
        acc_q <= acc_next - CLK_HZ[ACC_W-1:0];
        bit_q <= bit_q + 4'd1;
        if (bit_q == 4'd0) begin
          if (sync2_q) busy_q <= 1'b0;       // glitch, not a start bit
        end else if (bit_q == 4'd9) begin
          busy_q <= 1'b0;                    // back to hunting from the middle of the stop bit
          if (sync2_q) begin
            valid_o <= 1'b1;
            data_o  <= shift_q;
          end
        end else begin
          shift_q <= {sync2_q, shift_q[7:1]};
        end
      end else begin
        acc_q <= acc_next;
      end
    end
  end
endmodule
