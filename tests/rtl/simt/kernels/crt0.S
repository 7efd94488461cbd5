# crt0 of a SIMT kernel: every thread starts here with nothing but its PC. The stack pointer and
# the argument pointer come from the unit's CSRs (docs/cores.md), then the kernel runs and the
# thread ends with ECALL.
  .section .text.start, "ax"
  .globl _start
_start:
  csrr  sp, 0xCCF        # this thread's stack top
  csrr  a0, 0xCCE        # the kernel's argument block
  call  kernel_main
  ecall
1:
  j     1b
