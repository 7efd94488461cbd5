`default_nettype none
// crc32: CRC-32/ISO-HDLC (the CRC of Ethernet, zlib and PNG: reflected polynomial 0xEDB88320,
// initial value 0xFFFFFFFF, final XOR 0xFFFFFFFF), one byte per clock. init_i restarts it; en_i
// folds data_i in; crc_o is the finished value (final XOR applied), sent least significant byte
// first. The check value of the ASCII string "123456789" is 0xCBF43926.
module crc32 (
  input  wire        clk_i,
  input  wire        rst_ni,
  input  wire        init_i,   // restart (wins over en_i)
  input  wire        en_i,     // fold data_i into the CRC
  input  wire [7:0]  data_i,
  output wire [31:0] crc_o
);
  reg [31:0] crc_q;
  reg [31:0] next;
  integer i;

  // Eight shift steps of the LSB-first LFSR (the UART's bit order), unrolled into one cycle.
  always @* begin
    next = crc_q ^ {24'd0, data_i};
    for (i = 0; i < 8; i = i + 1)
      next = next[0] ? ({1'b0, next[31:1]} ^ 32'hEDB88320) : {1'b0, next[31:1]};
  end

  always @(posedge clk_i) begin
    if (!rst_ni || init_i) crc_q <= 32'hFFFFFFFF;
    else if (en_i)         crc_q <= next;
  end

  assign crc_o = ~crc_q;
endmodule
