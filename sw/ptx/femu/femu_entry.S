/*
 * The F-instruction trampoline of the PTX translator's code for a unit without the F extension
 * (docs/ptx.md, "f32 on a unit without F"). A translated kernel reaches it with
 *
 *     [sw   rs, 140+FO(sp)]   an integer operand (fcvt.s.w, a CSR write) into the F state
 *     sw   ra, -124(sp)       the thread's own ra, below sp
 *     jal  ra, __femu
 *     .word <the F instruction>
 *     lw   ra, -124(sp)       ra again
 *     [lw   rd, 140+FO(sp)]   an integer result (fcmp, fcvt.w.s, fclass, a CSR read)
 *
 * where FO is the kernel's frame: the thread's F state (f0-f31, frm, fflags, fnan and the
 * integer operand/result word, 144 bytes) sits at the top of its stack, CSR 0xCCF. The
 * trampoline saves the registers a C function may change (t0-t6, a0-a7; ra is the link) below
 * sp, has femu_exec carry out the instruction word that follows the jal on the F state, puts
 * them back and returns past the word. femu_exec keeps s0-s11, gp and tp itself (the calling
 * convention; it is built with -mno-relax, so gp is never its own), and its frames sit below
 * the save area. So every integer register comes back unchanged.
 */
    .section .text.femu_entry, "ax"
    .globl __femu
__femu:
    addi sp, sp, -128
    sw   ra, 0(sp)
    sw   x5, 20(sp)
    sw   x6, 24(sp)
    sw   x7, 28(sp)
    sw   x10, 40(sp)
    sw   x11, 44(sp)
    sw   x12, 48(sp)
    sw   x13, 52(sp)
    sw   x14, 56(sp)
    sw   x15, 60(sp)
    sw   x16, 64(sp)
    sw   x17, 68(sp)
    sw   x28, 112(sp)
    sw   x29, 116(sp)
    sw   x30, 120(sp)
    sw   x31, 124(sp)
    lw   a0, 0(ra)            /* the instruction word */
    csrr a1, 0xccf
    addi a1, a1, -144         /* the F state */
    call femu_exec
    lw   x5, 20(sp)
    lw   x6, 24(sp)
    lw   x7, 28(sp)
    lw   x10, 40(sp)
    lw   x11, 44(sp)
    lw   x12, 48(sp)
    lw   x13, 52(sp)
    lw   x14, 56(sp)
    lw   x15, 60(sp)
    lw   x16, 64(sp)
    lw   x17, 68(sp)
    lw   x28, 112(sp)
    lw   x29, 116(sp)
    lw   x30, 120(sp)
    lw   x31, 124(sp)
    lw   ra, 0(sp)
    addi sp, sp, 128
    jalr x0, 4(ra)
