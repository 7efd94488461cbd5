`default_nettype none
// simt_alu: one lane's RV32IM datapath for the execute stage, purely combinational: the integer
// result (ALU, multiply, LUI/AUIPC, link address), the lane's own next PC (branches are decided
// per lane; min-PC scheduling in simt_core turns differing next PCs into divergence) and the
// load/store address. Division is not here: it is iterative (simt_div) so that four lanes of it
// do not cost four 32-bit array dividers. The decode is repeated in every lane on purpose: it is
// a few dozen LUTs, cheaper than routing decoded control from one place to every lane.
module simt_alu #(
  parameter integer MUL = 1          // 0: MUL* leave result_o to the caller (simt_core's split
                                     //    multiply with EXEC_REG); the result is then don't-care
) (
  input  wire [31:0] inst_i,
  input  wire [31:0] pc_i,
  input  wire [31:0] rs1_i,
  input  wire [31:0] rs2_i,
  output reg  [31:0] result_o,
  output reg  [31:0] next_pc_o,
  output wire [31:0] addr_o
);
  wire [6:0] opcode = inst_i[6:0];
  wire [2:0] funct3 = inst_i[14:12];
  wire       alt    = inst_i[30];      // SUB / SRA (funct7 bit 5)
  wire       muldiv = inst_i[25];      // funct7 == 1 on OP (simt_core rejects other funct7s)

  wire [31:0] imm_i = {{20{inst_i[31]}}, inst_i[31:20]};
  wire [31:0] imm_s = {{20{inst_i[31]}}, inst_i[31:25], inst_i[11:7]};
  wire [31:0] imm_b = {{19{inst_i[31]}}, inst_i[31], inst_i[7], inst_i[30:25], inst_i[11:8], 1'b0};
  wire [31:0] imm_u = {inst_i[31:12], 12'd0};
  wire [31:0] imm_j = {{11{inst_i[31]}}, inst_i[31], inst_i[19:12], inst_i[20], inst_i[30:21], 1'b0};

  localparam [6:0] OP_LUI = 7'b0110111, OP_AUIPC = 7'b0010111, OP_JAL = 7'b1101111,
                   OP_JALR = 7'b1100111, OP_BRANCH = 7'b1100011, OP_STORE = 7'b0100011,
                   OP_REG = 7'b0110011;

  wire is_reg = (opcode == OP_REG);
  wire [31:0] b_val = is_reg ? rs2_i : imm_i;
  wire [4:0]  shamt = b_val[4:0];

  // ALU proper: OP and OP-IMM share it; only OP subtracts.
  reg [31:0] alu;
  always @(*) begin
    case (funct3)
      3'd0: alu = (is_reg && alt) ? rs1_i - rs2_i : rs1_i + b_val;
      3'd1: alu = rs1_i << shamt;
      3'd2: alu = {31'd0, $signed(rs1_i) < $signed(b_val)};
      3'd3: alu = {31'd0, rs1_i < b_val};
      3'd4: alu = rs1_i ^ b_val;
      3'd5: alu = alt ? $unsigned($signed(rs1_i) >>> shamt) : rs1_i >> shamt;
      3'd6: alu = rs1_i | b_val;
      default: alu = rs1_i & b_val;
    endcase
  end

  // Multiply: one 33x33 signed product covers MUL, MULH, MULHSU and MULHU.
  wire               a_sign = rs1_i[31] & (funct3[1:0] != 2'd3);  // MULH, MULHSU
  wire               b_sign = rs2_i[31] & (funct3[1:0] == 2'd1);  // MULH
  wire signed [32:0] ma = {a_sign, rs1_i};
  wire signed [32:0] mb = {b_sign, rs2_i};
  wire signed [65:0] prod = (MUL != 0) ? ma * mb : 66'sd0;
  wire [31:0]        mul = (funct3[1:0] == 2'd0) ? prod[31:0] : prod[63:32];

  reg taken;
  always @(*) begin
    case (funct3)
      3'd0: taken = (rs1_i == rs2_i);
      3'd1: taken = (rs1_i != rs2_i);
      3'd4: taken = ($signed(rs1_i) < $signed(rs2_i));
      3'd5: taken = ($signed(rs1_i) >= $signed(rs2_i));
      3'd6: taken = (rs1_i < rs2_i);
      default: taken = (rs1_i >= rs2_i);
    endcase
  end

  wire [31:0] pc_plus4 = pc_i + 32'd4;
  wire [31:0] jalr_target = rs1_i + imm_i;

  always @(*) begin
    case (opcode)
      OP_LUI:   result_o = imm_u;
      OP_AUIPC: result_o = pc_i + imm_u;
      OP_JAL, OP_JALR: result_o = pc_plus4;
      OP_REG:   result_o = muldiv ? mul : alu;
      default:  result_o = alu;
    endcase
    case (opcode)
      OP_JAL:    next_pc_o = pc_i + imm_j;
      OP_JALR:   next_pc_o = {jalr_target[31:1], 1'b0};
      OP_BRANCH: next_pc_o = taken ? pc_i + imm_b : pc_plus4;
      default:   next_pc_o = pc_plus4;
    endcase
  end

  // STORE and STORE-FP (fsw, 0100111) take the S immediate
  assign addr_o = rs1_i + (({opcode[6:3], opcode[1:0]} == {OP_STORE[6:3], OP_STORE[1:0]}) ? imm_s : imm_i);

  // The product's top bits (65:64) only carry the sign of a 33x33 product.
  wire unused_ok = &{1'b0, prod[65:64], jalr_target[0]};
endmodule

`default_nettype wire
