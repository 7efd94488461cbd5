/*
 * pt_lib: what vmgpu-pt and vmgpu-quiz share. A session opens a device and one context, makes
 * mappings through the driver core, and reads back what the hardware holds:
 *  - the page directory and page tables, read from device memory (not the driver's shadow);
 *  - the TLB, reconstructed from the MMU's own TLB_FILL events (its event FIFO, drained here
 *    after every step) and the TLB_INV ranges of the session's own calls. The hardware has no
 *    register that reads the TLB; its fills go round-robin from slot 0 after reset, so the
 *    events give the slots exactly (checked against the waveform's valid_q by
 *    tools/lesson_numbers.py).
 * Tracing (VMGPU_TRACE) is switched off in a session: the trace drains the same FIFO.
 */
#ifndef VMGPU_PT_LIB_H
#define VMGPU_PT_LIB_H

#include <stdint.h>
#include <stdio.h>

#include "vmgpu/core.h"

#define PT_TLB_MAX 64

typedef struct pt_tlb_slot {
    int valid;
    unsigned asid;
    uint32_t va;   /* page address */
    uint32_t pte;  /* the PTE the fill loaded */
} pt_tlb_slot;

typedef struct pt_session {
    vmgpu_dev *dev;
    vmgpu_ctx *ctx;
    vmgpu_stream *s;
    vmgpu_dev_info info;
    pt_tlb_slot tlb[PT_TLB_MAX];
    unsigned victim;          /* next slot a fill takes */
    unsigned fills, lost;     /* fills seen; events the FIFO dropped (counted as fills) */
    char err[512];
} pt_session;

/* Open the device named by VMGPU_DEVICE (default sim) and make one context with a stream. */
int pt_open(pt_session *p);
void pt_close(pt_session *p);
/* Core calls that keep the TLB model in step (each drains the MMU events afterwards). */
int pt_map(pt_session *p, uint32_t va, uint32_t pa, uint32_t size, unsigned flags);
int pt_unmap(pt_session *p, uint32_t va, uint32_t size);
int pt_protect(pt_session *p, uint32_t va, uint32_t size, unsigned flags);
int pt_copy(pt_session *p, uint32_t dst_va, uint32_t src_va, uint32_t bytes);
void pt_drain(pt_session *p);
/* The entry at word index `index` of the table at pa (read from device memory). */
int pt_read_word(pt_session *p, uint32_t pa, uint32_t *word);

/* Named scenarios: "mixed" (every kind of PTE), "lesson01" (examples/dma_through_mmu),
 * "quiz" (random mappings from seed). Each leaves a TLB with some entries. */
int pt_scenario(pt_session *p, const char *name, unsigned seed);

/* One translation, step by step, from device memory. */
typedef struct pt_walk {
    uint32_t va, root;
    uint32_t dir_index, pde_addr, pde;
    int pde_valid;
    uint32_t table_pa, table_index, pte_addr, pte;
    int pte_valid;
    uint32_t pa;
    int tlb_slot;             /* -1: not in the TLB model */
    const char *read_fault;   /* NULL or the FAULT_* reason a read would get */
    const char *write_fault;
} pt_walk;
int pt_walk_va(pt_session *p, uint32_t va, pt_walk *w);
/* -1 when the page of va (in this context's ASID) is not held. */
int pt_tlb_find(const pt_session *p, uint32_t va);

const char *pt_perm(uint32_t pte); /* "RW", "R-", "-W", "--" */

/* Text and SVG renderings (vmgpu-pt). */
void pt_print_tables(pt_session *p, FILE *f);
void pt_print_tlb(const pt_session *p, FILE *f);
void pt_print_walk(const pt_walk *w, FILE *f);
void pt_svg_tables(pt_session *p, FILE *f, const char *title);
void pt_svg_walk(const pt_walk *w, FILE *f);

#endif
