// RV32IMF (+ the A extension's AMOs and Zacas's amocas.w) instruction encodings, as the RISC-V
// unprivileged specification lays out the R, I, S, B, U and J formats.
#ifndef VMGPU_RV32_ENCODE_H
#define VMGPU_RV32_ENCODE_H

#include <stdint.h>

enum { RV_ZERO = 0, RV_RA = 1, RV_SP = 2 };

static inline uint32_t rv_r(uint32_t f7, int rs2, int rs1, uint32_t f3, int rd, uint32_t opc) {
  return f7 << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 | f3 << 12 | (uint32_t)rd << 7 | opc;
}
static inline uint32_t rv_i(int32_t imm, int rs1, uint32_t f3, int rd, uint32_t opc) {
  return ((uint32_t)imm & 0xFFFu) << 20 | (uint32_t)rs1 << 15 | f3 << 12 | (uint32_t)rd << 7 | opc;
}
static inline uint32_t rv_s(int32_t imm, int rs2, int rs1, uint32_t f3, uint32_t opc) {
  uint32_t u = (uint32_t)imm;
  return ((u >> 5) & 0x7F) << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 | f3 << 12 |
         (u & 0x1F) << 7 | opc;
}
static inline uint32_t rv_b(int32_t off, int rs2, int rs1, uint32_t f3) {
  uint32_t u = (uint32_t)off;
  return ((u >> 12) & 1) << 31 | ((u >> 5) & 0x3F) << 25 | (uint32_t)rs2 << 20 |
         (uint32_t)rs1 << 15 | f3 << 12 | ((u >> 1) & 0xF) << 8 | ((u >> 11) & 1) << 7 | 0x63;
}
static inline uint32_t rv_u(uint32_t imm20, int rd, uint32_t opc) {
  return (imm20 & 0xFFFFFu) << 12 | (uint32_t)rd << 7 | opc;
}
static inline uint32_t rv_j(int32_t off, int rd) {
  uint32_t u = (uint32_t)off;
  return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3FF) << 21 | ((u >> 11) & 1) << 20 |
         ((u >> 12) & 0xFF) << 12 | (uint32_t)rd << 7 | 0x6F;
}

// OP (R-type, opcode 0x33): funct7 << 3 | funct3
enum rv_op {
  RV_ADD = 0x000, RV_SUB = 0x100, RV_SLL = 0x001, RV_SLT = 0x002, RV_SLTU = 0x003, RV_XOR = 0x004,
  RV_SRL = 0x005, RV_SRA = 0x105, RV_OR = 0x006, RV_AND = 0x007,
  RV_MUL = 0x008, RV_MULH = 0x009, RV_MULHSU = 0x00A, RV_MULHU = 0x00B, RV_DIV = 0x00C,
  RV_DIVU = 0x00D, RV_REM = 0x00E, RV_REMU = 0x00F,
};
static inline uint32_t rv_op(enum rv_op op, int rd, int rs1, int rs2) {
  uint32_t f7 = (op >> 3) == 0x20 ? 0x20 : (op >> 3) == 1 ? 1 : 0;
  return rv_r(f7, rs2, rs1, op & 7, rd, 0x33);
}
// OP-IMM: funct3
enum { RV_ADDI = 0, RV_SLTI = 2, RV_SLTIU = 3, RV_XORI = 4, RV_ORI = 6, RV_ANDI = 7 };
static inline uint32_t rv_opi(uint32_t f3, int rd, int rs1, int32_t imm) { return rv_i(imm, rs1, f3, rd, 0x13); }
static inline uint32_t rv_slli(int rd, int rs1, int sh) { return rv_i(sh & 31, rs1, 1, rd, 0x13); }
static inline uint32_t rv_srli(int rd, int rs1, int sh) { return rv_i(sh & 31, rs1, 5, rd, 0x13); }
static inline uint32_t rv_srai(int rd, int rs1, int sh) { return rv_i(0x400 | (sh & 31), rs1, 5, rd, 0x13); }
static inline uint32_t rv_lui(int rd, uint32_t imm20) { return rv_u(imm20, rd, 0x37); }
// loads (funct3): lb 0, lh 1, lw 2, lbu 4, lhu 5; stores: sb 0, sh 1, sw 2
static inline uint32_t rv_load(uint32_t f3, int rd, int rs1, int32_t off) { return rv_i(off, rs1, f3, rd, 0x03); }
static inline uint32_t rv_store(uint32_t f3, int rs2, int rs1, int32_t off) { return rv_s(off, rs2, rs1, f3, 0x23); }
// branches (funct3): beq 0, bne 1, blt 4, bge 5, bltu 6, bgeu 7
static inline uint32_t rv_csrrs(int rd, uint32_t csr, int rs1) { return rv_i((int32_t)csr, rs1, 2, rd, 0x73); }
static inline uint32_t rv_csrrw(int rd, uint32_t csr, int rs1) { return rv_i((int32_t)csr, rs1, 1, rd, 0x73); }
static inline uint32_t rv_ecall(void) { return 0x00000073u; }
static inline uint32_t rv_fence(void) { return 0x0FF0000Fu; }  // fence iorw, iorw
// AMO*.W (opcode 0x2F, funct3 2): funct5 add 0, swap 1, cas 5 (Zacas), xor 4, or 8, and 12,
// min 16, max 20, minu 24, maxu 28; aq = rl = 1 (PTX atomics are at least relaxed; the
// strongest ordering is the safe one until the unit defines its memory model)
static inline uint32_t rv_amo(uint32_t f5, int rd, int rs1, int rs2) {
  return rv_r(f5 << 2 | 3, rs2, rs1, 2, rd, 0x2F);
}

// F: flw/fsw, OP-FP (opcode 0x53: funct7, rs2 field, funct3 = rounding mode or selector) and
// the fused multiply-adds (R4: rs3 in [31:27], fmt 00 = single)
enum { RV_RNE = 0, RV_RTZ = 1, RV_RDN = 2, RV_RUP = 3 };
enum { RV_FADD = 0x00, RV_FSUB = 0x04, RV_FMUL = 0x08, RV_FSGNJ = 0x10, RV_FMINMAX = 0x14,
       RV_FCMP = 0x50, RV_FCVT_W_S = 0x60, RV_FCVT_S_W = 0x68, RV_FMV_X_W = 0x70, RV_FMV_W_X = 0x78 };
enum { RV_FMADD = 0x43, RV_FMSUB = 0x47, RV_FNMSUB = 0x4B, RV_FNMADD = 0x4F };
static inline uint32_t rv_flw(int rd, int rs1, int32_t off) { return rv_i(off, rs1, 2, rd, 0x07); }
static inline uint32_t rv_fsw(int rs2, int rs1, int32_t off) { return rv_s(off, rs2, rs1, 2, 0x27); }
static inline uint32_t rv_fop(uint32_t f7, int rd, int rs1, int rs2, uint32_t f3) {
  return rv_r(f7, rs2, rs1, f3, rd, 0x53);
}
static inline uint32_t rv_fma(uint32_t opc, int rd, int rs1, int rs2, int rs3, uint32_t rm) {
  return (uint32_t)rs3 << 27 | rv_r(0, rs2, rs1, rm, rd, opc);
}
static inline uint32_t rv_csrrwi(int rd, uint32_t csr, uint32_t zimm) { return rv_i((int32_t)csr, (int)zimm, 5, rd, 0x73); }

#endif
