`default_nettype none
// uart_tx: 8N1 transmitter. The bit period comes from a fractional accumulator (add BAUD each
// clock, a bit ends when it passes CLK_HZ), so ratios such as 50 MHz / 3 Mbaud (16.67 clocks a
// bit) keep their average rate exactly; each bit is within one clock of its ideal edge.
module uart_tx #(
  parameter integer CLK_HZ = 50000000,  // clock frequency (or any number in the same ratio to BAUD)
  parameter integer BAUD   = 3000000    // line rate; BAUD <= CLK_HZ / 4
) (
  input  wire       clk_i,
  input  wire       rst_ni,
  input  wire       valid_i,   // byte to send; taken when ready_o is 1
  input  wire [7:0] data_i,
  output wire       ready_o,   // idle: the next byte may be given
  output wire       tx_o       // serial line, idle high
);
  localparam integer ACC_W = $clog2(CLK_HZ + BAUD) + 1;  // holds acc + BAUD without overflow

  reg [ACC_W-1:0] acc_q;
  reg [8:0]       shift_q;   // stop bit and the data bits still to send, LSB next
  reg [3:0]       left_q;    // bits still to send; 0 = idle
  reg             tx_q;

  wire [ACC_W-1:0] acc_next = acc_q + BAUD[ACC_W-1:0];
  wire             bit_end  = acc_next >= CLK_HZ[ACC_W-1:0];

  assign ready_o = (left_q == 4'd0);
  assign tx_o    = tx_q;

  always @(posedge clk_i) begin
    if (!rst_ni) begin
      acc_q   <= {ACC_W{1'b0}};
      shift_q <= 9'h1FF;
      left_q  <= 4'd0;
      tx_q    <= 1'b1;
    end else if (left_q == 4'd0) begin
      tx_q <= 1'b1;
      if (valid_i) begin
        // The start bit goes out now; the accumulator restarts so every bit is a full period.
        acc_q   <= {ACC_W{1'b0}};
        shift_q <= {1'b1, data_i};
        tx_q    <= 1'b0;
        left_q  <= 4'd10;
      end
    end else if (bit_end) begin
      acc_q   <= acc_next - CLK_HZ[ACC_W-1:0];
      shift_q <= {1'b1, shift_q[8:1]};
      tx_q    <= shift_q[0];
      left_q  <= left_q - 4'd1;
      // The stop bit ends with left_q reaching 0: the line stays high from then on.
    end else begin
      acc_q <= acc_next;
    end
  end
endmodule
