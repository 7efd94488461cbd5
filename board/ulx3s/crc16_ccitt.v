`default_nettype none
// crc16_ccitt: CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF, no reflection, no final
// XOR), one byte per clock. init_i restarts it; en_i folds data_i in. The check value of the
// ASCII string "123456789" is 0x29B1.
module crc16_ccitt (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        init_i,   // crc_o becomes 0xFFFF (wins over en_i)
  input  wire        en_i,     // fold data_i into the CRC
  input  wire [7:0]  data_i,
  output wire [15:0] crc_o
);
  reg [15:0] crc_q;
  reg [15:0] next;
  integer i;

  // Eight shift steps of the MSB-first LFSR, unrolled into one cycle's logic.
  always @* begin
    next = crc_q ^ {data_i, 8'h00};
    for (i = 0; i < 8; i = i + 1)
      next = next[15] ? ({next[14:0], 1'b0} ^ 16'h1021) : {next[14:0], 1'b0};
  end

  always @(posedge clk_i) begin
    if (!rst_ni || init_i) crc_q <= 16'hFFFF;
    else if (en_i)         crc_q <= next;
  end

  assign crc_o = crc_q;
endmodule
