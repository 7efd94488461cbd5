/* Checks shared by the vgfx tests: each prints what failed and counts it. */
#ifndef GFX_CHECK_H
#define GFX_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu_gfx.h"

static int g_fails, g_checks;

#define CHECK(c) do { g_checks++; if (!(c)) { printf("  FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
    g_fails++; } } while (0)
#define GEXPECT(call, want) do { g_checks++; vgfxStatus st_ = (call); if (st_ != (want)) { \
    printf("  FAIL %s:%d: %s -> %s, want %s (%s)\n", __FILE__, __LINE__, #call, \
           vgfxGetErrorString(st_), vgfxGetErrorString(want), vgfxGetLastErrorMessage()); \
    g_fails++; } } while (0)
#define GOK(call) GEXPECT(call, VGFX_SUCCESS)
#define GMUST(call) do { vgfxStatus st_ = (call); if (st_ != VGFX_SUCCESS) { \
    printf("  FATAL %s:%d: %s -> %s (%s)\n", __FILE__, __LINE__, #call, vgfxGetErrorString(st_), \
           vgfxGetLastErrorMessage()); exit(1); } } while (0)
#define NOTE(...) do { printf("  "); printf(__VA_ARGS__); printf("\n"); } while (0)

/* ------------------------------------------------ C model of the graphics engine */

static inline uint32_t model_dim(uint32_t d, uint32_t level)
{
    d >>= level;
    return d ? d : 1;
}

static inline void model_fill(uint32_t *px, uint32_t pitch_px, uint32_t x, uint32_t y, uint32_t w,
                              uint32_t h, uint32_t color)
{
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++) px[(size_t)(y + j) * pitch_px + x + i] = color;
}

/* dst(x,y) = src(x*sw/dw, y*sh/dh) inside the rectangles; src is read before dst is written. */
static inline void model_blit(const uint32_t *src, uint32_t spitch, uint32_t sx, uint32_t sy, uint32_t sw,
                              uint32_t sh, uint32_t *dst, uint32_t dpitch, uint32_t dx, uint32_t dy,
                              uint32_t dw, uint32_t dh)
{
    uint32_t *tmp = malloc((size_t)dw * dh * 4);
    for (uint32_t j = 0; j < dh; j++)
        for (uint32_t i = 0; i < dw; i++) {
            uint32_t u = (uint32_t)((uint64_t)i * sw / dw), v = (uint32_t)((uint64_t)j * sh / dh);
            tmp[(size_t)j * dw + i] = src[(size_t)(sy + v) * spitch + sx + u];
        }
    for (uint32_t j = 0; j < dh; j++)
        memcpy(&dst[(size_t)(dy + j) * dpitch + dx], &tmp[(size_t)j * dw], (size_t)dw * 4);
    free(tmp);
}

/* One mip level: 2x2 box per 8-bit channel, (sum + 2) >> 2, source coordinates clamped. */
static inline void model_mipgen(const uint32_t *s, uint32_t sw, uint32_t sh, uint32_t *d, uint32_t dw, uint32_t dh)
{
    for (uint32_t y = 0; y < dh; y++)
        for (uint32_t x = 0; x < dw; x++) {
            uint32_t x0 = 2 * x < sw ? 2 * x : sw - 1, x1 = 2 * x + 1 < sw ? 2 * x + 1 : sw - 1;
            uint32_t y0 = 2 * y < sh ? 2 * y : sh - 1, y1 = 2 * y + 1 < sh ? 2 * y + 1 : sh - 1;
            uint32_t p[4] = {s[y0 * sw + x0], s[y0 * sw + x1], s[y1 * sw + x0], s[y1 * sw + x1]};
            uint32_t out = 0;
            for (unsigned c = 0; c < 4; c++) {
                unsigned sum = 2;
                for (unsigned k = 0; k < 4; k++) sum += (p[k] >> (8 * c)) & 0xff;
                out |= (uint32_t)((sum >> 2) & 0xff) << (8 * c);
            }
            d[y * dw + x] = out;
        }
}

#endif
