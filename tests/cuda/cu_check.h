/* Checks shared by the CUDA driver API tests: each prints what failed and counts it. */
#ifndef CU_CHECK_H
#define CU_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"

static int fails, checks;

static const char *ename(CUresult rc)
{
    const char *n = NULL;
    if (cuGetErrorName(rc, &n) != CUDA_SUCCESS || !n) return "?";
    return n;
}

#define CHECK(c) do { checks++; if (!(c)) { printf("  FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)
#define EXPECT(call, want) do { checks++; CUresult rc_ = (call); if (rc_ != (want)) { \
    printf("  FAIL %s:%d: %s -> %s, want %s\n", __FILE__, __LINE__, #call, ename(rc_), ename(want)); \
    fails++; } } while (0)
#define OK(call) EXPECT(call, CUDA_SUCCESS)
/* Must succeed for the test to make sense at all. */
#define MUST(call) do { CUresult rc_ = (call); if (rc_ != CUDA_SUCCESS) { \
    printf("  FATAL %s:%d: %s -> %s\n", __FILE__, __LINE__, #call, ename(rc_)); exit(1); } } while (0)
#define NOTE(...) do { printf("  "); printf(__VA_ARGS__); printf("\n"); } while (0)

#endif
