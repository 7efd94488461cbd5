`default_nettype none
// simt_amo_alu: the value an RV32A atomic memory operation (or Zacas amocas.w) writes back,
// from the word in memory and the instruction's operands. Used where the read-modify-write
// happens: simt_lsu for shared memory, simt_mmu_port for global memory. Combinational.
module simt_amo_alu (
  input  wire [4:0]  funct5_i,   // the AMO's funct5 (inst[31:27])
  input  wire [31:0] old_i,      // the word read from memory (returned to rd)
  input  wire [31:0] src_i,      // rs2: the operand, or amocas's new value
  input  wire [31:0] cmp_i,      // amocas only: the expected value (rd's value before)
  output reg  [31:0] new_o       // the word to write
);
  localparam [4:0] F_ADD = 5'b00000, F_SWAP = 5'b00001, F_XOR = 5'b00100, F_CAS = 5'b00101,
                   F_OR = 5'b01000, F_AND = 5'b01100, F_MIN = 5'b10000, F_MAX = 5'b10100,
                   F_MINU = 5'b11000, F_MAXU = 5'b11100;
  wire lt_s = $signed(src_i) < $signed(old_i);
  wire lt_u = src_i < old_i;
  always @(*) begin
    case (funct5_i)
      F_ADD:   new_o = old_i + src_i;
      F_SWAP:  new_o = src_i;
      F_XOR:   new_o = old_i ^ src_i;
      F_CAS:   new_o = (old_i == cmp_i) ? src_i : old_i;
      F_OR:    new_o = old_i | src_i;
      F_AND:   new_o = old_i & src_i;
      F_MIN:   new_o = lt_s ? src_i : old_i;
      F_MAX:   new_o = lt_s ? old_i : src_i;
      F_MINU:  new_o = lt_u ? src_i : old_i;
      F_MAXU:  new_o = lt_u ? old_i : src_i;
      default: new_o = old_i;   // simt_core only sends the ones above
    endcase
  end
endmodule

`default_nettype wire
