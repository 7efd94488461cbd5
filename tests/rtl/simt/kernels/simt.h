// What a SIMT kernel may ask the unit (CSR numbers in docs/cores.md). The ids are read with
// non-volatile asm so the compiler may keep them in registers; the barrier is volatile and a
// memory clobber, so no load or store moves across it.
#pragma once

#define SIMT_CSR(num)                                          \
  ({                                                           \
    unsigned v_;                                               \
    __asm__("csrr %0, " #num : "=r"(v_));                      \
    v_;                                                        \
  })

#define tid_x() SIMT_CSR(0xCC0)
#define tid_y() SIMT_CSR(0xCC1)
#define tid_z() SIMT_CSR(0xCC2)
#define ntid_x() SIMT_CSR(0xCC3)
#define ntid_y() SIMT_CSR(0xCC4)
#define ntid_z() SIMT_CSR(0xCC5)
#define ctaid_x() SIMT_CSR(0xCC6)
#define ctaid_y() SIMT_CSR(0xCC7)
#define ctaid_z() SIMT_CSR(0xCC8)
#define nctaid_x() SIMT_CSR(0xCC9)
#define nctaid_y() SIMT_CSR(0xCCA)
#define nctaid_z() SIMT_CSR(0xCCB)
#define lane_id() SIMT_CSR(0xCCC)
#define warp_id() SIMT_CSR(0xCCD)

#define SIMT_SHARED __attribute__((section(".shared")))

static inline void barrier(void) { __asm__ volatile("csrw 0x800, zero" ::: "memory"); }
