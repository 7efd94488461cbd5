/*
 * The F-instruction trampoline of the PTX translator's code for a unit without the F extension
 * (docs/ptx.md, "f32 on a unit without F"). A translated kernel reaches it with
 *
 *     sw   ra, -124(sp)       the thread's own ra, into slot 1 of the save area below sp
 *     jal  ra, __femu
 *     .word <the F instruction>
 *     lw   ra, -124(sp)       ra again (the instruction may have written it)
 *
 * It saves the other integer registers below sp (x[i] at sp - 128 + 4i; slot 0 holds the link),
 * has femu_exec carry out the instruction word that follows the jal on the registers it saved
 * and on the thread's F state (32 words of F registers, then frm, fflags, fnan: 144 bytes at the
 * top of the thread's stack, CSR 0xCCF), puts the integer registers back and returns past the
 * word. Every integer register but the instruction's destination comes back unchanged.
 * femu_exec's own frames sit below the save area.
 */
    .section .text.femu_entry, "ax"
    .globl __femu
__femu:
    addi sp, sp, -128
    sw   ra, 0(sp)
    sw   x3, 12(sp)
    sw   x4, 16(sp)
    sw   x5, 20(sp)
    sw   x6, 24(sp)
    sw   x7, 28(sp)
    sw   x8, 32(sp)
    sw   x9, 36(sp)
    sw   x10, 40(sp)
    sw   x11, 44(sp)
    sw   x12, 48(sp)
    sw   x13, 52(sp)
    sw   x14, 56(sp)
    sw   x15, 60(sp)
    sw   x16, 64(sp)
    sw   x17, 68(sp)
    sw   x18, 72(sp)
    sw   x19, 76(sp)
    sw   x20, 80(sp)
    sw   x21, 84(sp)
    sw   x22, 88(sp)
    sw   x23, 92(sp)
    sw   x24, 96(sp)
    sw   x25, 100(sp)
    sw   x26, 104(sp)
    sw   x27, 108(sp)
    sw   x28, 112(sp)
    sw   x29, 116(sp)
    sw   x30, 120(sp)
    sw   x31, 124(sp)
    addi a0, sp, 128
    sw   a0, 8(sp)            /* x2 as the instruction sees it */
    lw   a0, 0(ra)            /* the instruction word */
    mv   a1, sp
    csrr a2, 0xccf
    addi a2, a2, -144         /* the F state */
    call femu_exec
    lw   x3, 12(sp)
    lw   x4, 16(sp)
    lw   x5, 20(sp)
    lw   x6, 24(sp)
    lw   x7, 28(sp)
    lw   x8, 32(sp)
    lw   x9, 36(sp)
    lw   x10, 40(sp)
    lw   x11, 44(sp)
    lw   x12, 48(sp)
    lw   x13, 52(sp)
    lw   x14, 56(sp)
    lw   x15, 60(sp)
    lw   x16, 64(sp)
    lw   x17, 68(sp)
    lw   x18, 72(sp)
    lw   x19, 76(sp)
    lw   x20, 80(sp)
    lw   x21, 84(sp)
    lw   x22, 88(sp)
    lw   x23, 92(sp)
    lw   x24, 96(sp)
    lw   x25, 100(sp)
    lw   x26, 104(sp)
    lw   x27, 108(sp)
    lw   x28, 112(sp)
    lw   x29, 116(sp)
    lw   x30, 120(sp)
    lw   x31, 124(sp)
    lw   ra, 0(sp)
    addi sp, sp, 128
    jalr x0, 4(ra)
