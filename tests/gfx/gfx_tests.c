/*
 * vgfx (sw/include/vmgpu_gfx.h) on the simulated device, without CUDA: every call's success
 * checked against a C model of the memory (every subresource read back, so an operation that
 * touched anything else is caught), every error path with the state unchanged, and the PNG
 * capture parsed back (signature, IHDR, every chunk's CRC, the inflated scanlines).
 *
 * Usage: vmgpu_gfx_tests CASE [png-path]   (CASE: api, buffers, images, engine, png, errors)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "gfx_check.h"

/* ----------------------------------------------------------- image model */

typedef struct {
    vgfxImage img;
    vgfxImageDesc d;
    uint32_t **px;  /* [layer * levels + level] */
} mimg;

static uint32_t *mpx(mimg *m, uint32_t layer, uint32_t level) { return m->px[layer * m->d.mipLevels + level]; }

static void mimg_create(mimg *m, uint32_t w, uint32_t h, uint32_t levels, uint32_t layers, uint32_t flags,
                        vgfxFormat fmt)
{
    vgfxImageDesc d = {w, h, fmt, levels, layers, flags};
    m->d = d;
    GMUST(vgfxCreateImage(&m->img, &d));
    m->px = calloc((size_t)layers * levels, sizeof *m->px);
    for (uint32_t y = 0; y < layers; y++)
        for (uint32_t l = 0; l < levels; l++)
            m->px[y * levels + l] = calloc((size_t)model_dim(w, l) * model_dim(h, l), 4);
}

static void mimg_destroy(mimg *m)
{
    GOK(vgfxDestroyImage(m->img));
    for (uint32_t i = 0; i < m->d.arrayLayers * m->d.mipLevels; i++) free(m->px[i]);
    free(m->px);
}

/* Every subresource read back equals the model. */
static int mimg_matches(mimg *m, const char *what)
{
    int ok = 1;
    for (uint32_t y = 0; y < m->d.arrayLayers && ok; y++)
        for (uint32_t l = 0; l < m->d.mipLevels && ok; l++) {
            uint32_t w = model_dim(m->d.width, l), h = model_dim(m->d.height, l);
            uint32_t *got = malloc((size_t)w * h * 4);
            if (vgfxImageRead(m->img, y, l, got) != VGFX_SUCCESS) {
                printf("  FAIL %s: vgfxImageRead(layer %u, level %u): %s\n", what, y, l, vgfxGetLastErrorMessage());
                ok = 0;
            }
            for (uint32_t i = 0; ok && i < w * h; i++)
                if (got[i] != mpx(m, y, l)[i]) {
                    printf("  FAIL %s: layer %u level %u pixel (%u,%u) = 0x%08x, model 0x%08x\n", what, y, l,
                           i % w, i / w, got[i], mpx(m, y, l)[i]);
                    ok = 0;
                }
            free(got);
        }
    g_checks++;
    if (!ok) g_fails++;
    return ok;
}

/* A recognisable pattern for a subresource, written to the image and the model. */
static void mimg_pattern(mimg *m, uint32_t layer, uint32_t level, uint32_t seed)
{
    uint32_t w = model_dim(m->d.width, level), h = model_dim(m->d.height, level);
    uint32_t *p = mpx(m, layer, level);
    for (uint32_t i = 0; i < w * h; i++) p[i] = (i * 2654435761u) ^ (seed * 0x9e3779b9u) ^ (layer << 24 | level << 16);
    GOK(vgfxImageWrite(m->img, layer, level, p));
}

/* ------------------------------------------------------------------ cases */

static void case_api(void)
{
    NOTE("status strings, init/shutdown counting, calls before init");
    CHECK(strstr(vgfxGetErrorString(VGFX_ERROR_MAPPED_BY_CUDA), "MAPPED_BY_CUDA") != NULL);
    CHECK(strstr(vgfxGetErrorString(VGFX_SUCCESS), "VGFX_SUCCESS") != NULL);
    CHECK(strcmp(vgfxGetErrorString((vgfxStatus)999), "unknown vgfx status") == 0);
    vgfxBuffer b = NULL;
    GEXPECT(vgfxCreateBuffer(&b, 4096), VGFX_ERROR_NOT_INITIALIZED);
    CHECK(b == NULL);
    CHECK(strlen(vgfxGetLastErrorMessage()) > 0);
    GEXPECT(vgfxShutdown(), VGFX_ERROR_NOT_INITIALIZED);
    GEXPECT(vgfxFinish(), VGFX_ERROR_NOT_INITIALIZED);
    GEXPECT(vgfxQuery(), VGFX_ERROR_NOT_INITIALIZED);
    GOK(vgfxInit());
    GOK(vgfxInit());
    GOK(vgfxQuery());  /* nothing queued yet */
    GOK(vgfxCreateBuffer(&b, 4096));
    GOK(vgfxShutdown());  /* one reference left: b lives on */
    uint64_t sz = 0;
    GOK(vgfxBufferGetSize(b, &sz));
    CHECK(sz == 4096);
    GOK(vgfxFinish());
    GOK(vgfxQuery());
    GOK(vgfxShutdown());  /* the last: b is destroyed with the context */
    GEXPECT(vgfxBufferGetSize(b, &sz), VGFX_ERROR_NOT_INITIALIZED);
    GOK(vgfxInit());
    GEXPECT(vgfxBufferGetSize(b, &sz), VGFX_ERROR_INVALID_HANDLE);  /* stale handle */
    GOK(vgfxShutdown());
}

static void case_buffers(void)
{
    GMUST(vgfxInit());
    NOTE("buffers: zeroed at creation, write/read at offsets, every refusal leaves contents alone");
    vgfxBuffer b;
    GMUST(vgfxCreateBuffer(&b, 100000));
    uint8_t *model = calloc(100000, 1), *got = malloc(100000);
    GOK(vgfxBufferRead(b, 0, got, 100000));
    CHECK(memcmp(got, model, 100000) == 0);
    for (int i = 0; i < 100000; i++) model[i] = (uint8_t)(i * 7 + 3);
    GOK(vgfxBufferWrite(b, 0, model, 100000));
    /* Unaligned offsets and lengths. */
    uint8_t patch[13];
    for (int i = 0; i < 13; i++) patch[i] = (uint8_t)(0xa0 + i);
    GOK(vgfxBufferWrite(b, 4097, patch, 13));
    memcpy(model + 4097, patch, 13);
    GOK(vgfxBufferRead(b, 0, got, 100000));
    CHECK(memcmp(got, model, 100000) == 0);
    uint8_t small[5];
    GOK(vgfxBufferRead(b, 99995, small, 5));
    CHECK(memcmp(small, model + 99995, 5) == 0);
    GOK(vgfxBufferWrite(b, 100000, patch, 0));  /* empty at the end: allowed */
    /* Refusals. */
    GEXPECT(vgfxBufferWrite(b, 99990, patch, 13), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxBufferWrite(b, 100001, patch, 0), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxBufferWrite(b, UINT64_MAX, patch, 2), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxBufferWrite(b, 0, NULL, 4), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxBufferRead(b, 0, NULL, 4), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxBufferRead(b, 99999, got, 2), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxBufferWrite((vgfxBuffer)(uintptr_t)0x1234, 0, patch, 4), VGFX_ERROR_INVALID_HANDLE);
    GEXPECT(vgfxBufferWrite(NULL, 0, patch, 4), VGFX_ERROR_INVALID_HANDLE);
    GOK(vgfxBufferRead(b, 0, got, 100000));
    CHECK(memcmp(got, model, 100000) == 0);
    uint64_t sz;
    GEXPECT(vgfxBufferGetSize(b, NULL), VGFX_ERROR_INVALID_VALUE);
    GOK(vgfxBufferGetSize(b, &sz));
    CHECK(sz == 100000);
    vgfxBuffer x = NULL;
    GEXPECT(vgfxCreateBuffer(&x, 0), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxCreateBuffer(NULL, 64), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxCreateBuffer(&x, 1ull << 40), VGFX_ERROR_OUT_OF_MEMORY);
    CHECK(x == NULL);
    /* An image handle is not a buffer and the other way round. */
    vgfxImageDesc d = {8, 8, VGFX_FORMAT_RGBA8_UNORM, 1, 1, 0};
    vgfxImage img;
    GMUST(vgfxCreateImage(&img, &d));
    GEXPECT(vgfxBufferWrite((vgfxBuffer)(void *)img, 0, patch, 4), VGFX_ERROR_INVALID_HANDLE);
    GEXPECT(vgfxDestroyImage((vgfxImage)(void *)b), VGFX_ERROR_INVALID_HANDLE);
    /* Exported memory: a memfd, the same one for every export of a resource. */
    int fd1 = -1, fd2 = -1;
    uint64_t s1 = 0, s2 = 0;
    GOK(vgfxExportMemoryFd(b, &fd1, &s1));
    GOK(vgfxExportMemoryFd(b, &fd2, &s2));
    struct stat a1, a2;
    CHECK(fd1 >= 0 && fd2 >= 0 && fd1 != fd2 && fstat(fd1, &a1) == 0 && fstat(fd2, &a2) == 0 &&
          a1.st_ino == a2.st_ino && a1.st_dev == a2.st_dev);
    CHECK(s1 == 131072 && s2 == s1);  /* the granule-rounded allocation */
    int fd3 = -1;
    GOK(vgfxExportMemoryFd(img, &fd3, &s2));
    struct stat a3;
    CHECK(fd3 >= 0 && fstat(fd3, &a3) == 0 && a3.st_ino != a1.st_ino && s2 == 65536);
    GEXPECT(vgfxExportMemoryFd(b, NULL, &s1), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxExportMemoryFd(b, &fd1, NULL), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxExportMemoryFd((vgfxResource)&d, &fd1, &s1), VGFX_ERROR_INVALID_HANDLE);
    close(fd1);
    close(fd2);
    close(fd3);
    GOK(vgfxDestroyBuffer(b));
    GEXPECT(vgfxDestroyBuffer(b), VGFX_ERROR_INVALID_HANDLE);
    GEXPECT(vgfxBufferRead(b, 0, got, 4), VGFX_ERROR_INVALID_HANDLE);
    GOK(vgfxDestroyImage(img));
    /* Memory comes back: the same big buffer again and again. */
    for (int i = 0; i < 4; i++) {
        GOK(vgfxCreateBuffer(&x, 4u << 20));
        GOK(vgfxDestroyBuffer(x));
    }
    free(model);
    free(got);
    GOK(vgfxShutdown());
}

static void case_images(void)
{
    GMUST(vgfxInit());
    NOTE("images: descriptors, layout (offsets, pitches), per-subresource write/read");
    vgfxImage img = NULL;
    vgfxImageDesc bad[] = {
        {0, 8, VGFX_FORMAT_RGBA8_UNORM, 1, 1, 0},       /* zero width */
        {8, 0, VGFX_FORMAT_RGBA8_UNORM, 1, 1, 0},       /* zero height */
        {8193, 8, VGFX_FORMAT_RGBA8_UNORM, 1, 1, 0},    /* too wide */
        {8, 8, (vgfxFormat)7, 1, 1, 0},                 /* unknown format */
        {8, 8, VGFX_FORMAT_RGBA8_UNORM, 0, 1, 0},       /* no level */
        {8, 8, VGFX_FORMAT_RGBA8_UNORM, 5, 1, 0},       /* beyond the full chain (4) */
        {8, 8, VGFX_FORMAT_RGBA8_UNORM, 1, 0, 0},       /* no layer */
        {8, 8, VGFX_FORMAT_RGBA8_UNORM, 1, 2049, 0},    /* too many layers */
        {8, 8, VGFX_FORMAT_RGBA8_UNORM, 1, 6, 0x2},     /* unknown flag */
        {8, 4, VGFX_FORMAT_RGBA8_UNORM, 1, 6, VGFX_IMAGE_CUBE},  /* cube not square */
        {8, 8, VGFX_FORMAT_RGBA8_UNORM, 1, 5, VGFX_IMAGE_CUBE},  /* cube without 6 faces */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        GEXPECT(vgfxCreateImage(&img, &bad[i]), VGFX_ERROR_INVALID_VALUE);
        CHECK(img == NULL);
    }
    GEXPECT(vgfxCreateImage(&img, NULL), VGFX_ERROR_INVALID_VALUE);
    vgfxImageDesc huge = {4096, 4096, VGFX_FORMAT_RGBA8_UNORM, 1, 1, 0};  /* 64 MiB */
    GEXPECT(vgfxCreateImage(&img, &huge), VGFX_ERROR_OUT_OF_MEMORY);
    GEXPECT(vgfxCreateImage(NULL, &huge), VGFX_ERROR_INVALID_VALUE);

    /* A 37x20 image with its full chain (6 levels: 37x20 18x10 9x5 4x2 2x1 1x1) and 3 layers. */
    mimg m;
    mimg_create(&m, 37, 20, 6, 3, 0, VGFX_FORMAT_RGBA8_UNORM);
    CHECK(mimg_matches(&m, "new image is zero"));
    vgfxImageInfo info;
    GOK(vgfxImageGetInfo(m.img, &info));
    uint64_t off = 0, offs[6];
    for (uint32_t l = 0; l < 6; l++) {
        vgfxSubresourceLayout lay;
        GOK(vgfxImageGetSubresourceLayout(m.img, 0, l, &lay));
        CHECK(lay.offset == off && lay.width == model_dim(37, l) && lay.height == model_dim(20, l) &&
              lay.rowPitch == lay.width * 4 && lay.size == (uint64_t)lay.rowPitch * lay.height);
        offs[l] = off;
        off += (lay.size + 255) / 256 * 256;
    }
    for (uint32_t l = 0; l < 6; l++) {
        vgfxSubresourceLayout lay;
        GOK(vgfxImageGetSubresourceLayout(m.img, 2, l, &lay));
        CHECK(lay.offset == 2 * off + offs[l]);
    }
    CHECK(info.layerStride == off && info.size == 3 * off && info.desc.width == 37 && info.desc.mipLevels == 6 &&
          info.desc.arrayLayers == 3 && info.desc.format == VGFX_FORMAT_RGBA8_UNORM);
    NOTE("37x20, 6 levels, 3 layers: layer stride %llu bytes, %llu in all",
         (unsigned long long)info.layerStride, (unsigned long long)info.size);
    vgfxSubresourceLayout lay;
    GEXPECT(vgfxImageGetSubresourceLayout(m.img, 3, 0, &lay), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxImageGetSubresourceLayout(m.img, 0, 6, &lay), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxImageGetSubresourceLayout(m.img, 0, 0, NULL), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxImageGetInfo(m.img, NULL), VGFX_ERROR_INVALID_VALUE);
    for (uint32_t y = 0; y < 3; y++)
        for (uint32_t l = 0; l < 6; l++) mimg_pattern(&m, y, l, y * 10 + l);
    CHECK(mimg_matches(&m, "every subresource written"));
    uint32_t junk[4] = {1, 2, 3, 4};
    GEXPECT(vgfxImageWrite(m.img, 3, 0, junk), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxImageWrite(m.img, 0, 6, junk), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxImageWrite(m.img, 0, 0, NULL), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxImageRead(m.img, 0, 0, NULL), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxImageWrite((vgfxImage)(uintptr_t)0x40, 0, 0, junk), VGFX_ERROR_INVALID_HANDLE);
    CHECK(mimg_matches(&m, "unchanged after refused writes"));
    mimg_destroy(&m);

    /* A cube and an R32_UINT image. */
    mimg c;
    mimg_create(&c, 16, 16, 5, 6, VGFX_IMAGE_CUBE, VGFX_FORMAT_RGBA8_UNORM);
    for (uint32_t f = 0; f < 6; f++) mimg_pattern(&c, f, 0, 100 + f);
    CHECK(mimg_matches(&c, "cube faces"));
    GOK(vgfxImageGetInfo(c.img, &info));
    CHECK(info.desc.flags == VGFX_IMAGE_CUBE && info.desc.arrayLayers == 6);
    mimg_destroy(&c);
    mimg u;
    mimg_create(&u, 5, 3, 1, 1, 0, VGFX_FORMAT_R32_UINT);
    mimg_pattern(&u, 0, 0, 7);
    CHECK(mimg_matches(&u, "R32_UINT image"));
    mimg_destroy(&u);
    GOK(vgfxShutdown());
}

static void case_engine(void)
{
    GMUST(vgfxInit());
    NOTE("engine: clear, fill, scaled blit, mipmap generation against the C model");
    mimg m;
    mimg_create(&m, 64, 40, 7, 2, 0, VGFX_FORMAT_RGBA8_UNORM);
    /* Clear all, then one subresource, then one layer's every level. */
    GOK(vgfxClearImage(m.img, VGFX_ALL, VGFX_ALL, 0x11223344u));
    for (uint32_t i = 0; i < 14; i++)
        model_fill(m.px[i], model_dim(64, i % 7), 0, 0, model_dim(64, i % 7), model_dim(40, i % 7), 0x11223344u);
    CHECK(mimg_matches(&m, "clear all"));
    GOK(vgfxClearImage(m.img, 1, 2, VGFX_RGBA(255, 0, 0, 255)));
    model_fill(mpx(&m, 1, 2), 16, 0, 0, 16, 10, VGFX_RGBA(255, 0, 0, 255));
    GOK(vgfxClearImage(m.img, 0, VGFX_ALL, 0xdeadbeefu));
    for (uint32_t l = 0; l < 7; l++)
        model_fill(mpx(&m, 0, l), model_dim(64, l), 0, 0, model_dim(64, l), model_dim(40, l), 0xdeadbeefu);
    GOK(vgfxClearImage(m.img, VGFX_ALL, 1, 0x01020304u));
    for (uint32_t y = 0; y < 2; y++) model_fill(mpx(&m, y, 1), 32, 0, 0, 32, 20, 0x01020304u);
    CHECK(mimg_matches(&m, "clear one subresource / one layer / one level"));

    /* Fill rectangles: inside, at the edges, one pixel. */
    vgfxRect r1 = {3, 5, 20, 7}, r2 = {60, 38, 4, 2}, r3 = {0, 0, 1, 1};
    GOK(vgfxFillRect(m.img, 1, 0, &r1, VGFX_RGBA(0, 255, 0, 255)));
    model_fill(mpx(&m, 1, 0), 64, 3, 5, 20, 7, VGFX_RGBA(0, 255, 0, 255));
    GOK(vgfxFillRect(m.img, 1, 0, &r2, 0xcafef00du));
    model_fill(mpx(&m, 1, 0), 64, 60, 38, 4, 2, 0xcafef00du);
    GOK(vgfxFillRect(m.img, 0, 6, &r3, 0x77777777u));
    model_fill(mpx(&m, 0, 6), 1, 0, 0, 1, 1, 0x77777777u);
    CHECK(mimg_matches(&m, "fill rectangles"));

    /* Blits: a patterned source scaled up, down, unevenly, into another image and within one. */
    mimg s;
    mimg_create(&s, 23, 17, 1, 1, 0, VGFX_FORMAT_RGBA8_UNORM);
    mimg_pattern(&s, 0, 0, 42);
    GOK(vgfxBlit(s.img, 0, 0, NULL, m.img, 1, 0, NULL));  /* 23x17 -> 64x40 */
    model_blit(mpx(&s, 0, 0), 23, 0, 0, 23, 17, mpx(&m, 1, 0), 64, 0, 0, 64, 40);
    vgfxRect sr = {2, 3, 19, 13}, dr = {5, 1, 7, 9};
    GOK(vgfxBlit(s.img, 0, 0, &sr, m.img, 0, 1, &dr));  /* shrink into a level */
    model_blit(mpx(&s, 0, 0), 23, 2, 3, 19, 13, mpx(&m, 0, 1), 32, 5, 1, 7, 9);
    vgfxRect a = {0, 0, 30, 20}, b = {32, 20, 32, 20};
    GOK(vgfxBlit(m.img, 1, 0, &a, m.img, 1, 0, &b));  /* within one subresource, no overlap */
    model_blit(mpx(&m, 1, 0), 64, 0, 0, 30, 20, mpx(&m, 1, 0), 64, 32, 20, 32, 20);
    GOK(vgfxBlit(m.img, 1, 0, NULL, m.img, 0, 0, NULL));  /* layer to layer, same size: a copy */
    memcpy(mpx(&m, 0, 0), mpx(&m, 1, 0), 64 * 40 * 4);
    CHECK(mimg_matches(&m, "blits"));

    /* Mipmaps of layer 0 from its level 0, then of every layer. */
    GOK(vgfxGenerateMipmaps(m.img, 0));
    for (uint32_t l = 1; l < 7; l++)
        model_mipgen(mpx(&m, 0, l - 1), model_dim(64, l - 1), model_dim(40, l - 1), mpx(&m, 0, l),
                     model_dim(64, l), model_dim(40, l));
    CHECK(mimg_matches(&m, "mipmaps of layer 0"));
    mimg_pattern(&m, 1, 0, 9);
    GOK(vgfxGenerateMipmaps(m.img, VGFX_ALL));
    for (uint32_t y = 0; y < 2; y++)
        for (uint32_t l = 1; l < 7; l++)
            model_mipgen(mpx(&m, y, l - 1), model_dim(64, l - 1), model_dim(40, l - 1), mpx(&m, y, l),
                         model_dim(64, l), model_dim(40, l));
    CHECK(mimg_matches(&m, "mipmaps of every layer"));
    /* Odd sizes: 37x20 -> 18x10 -> 9x5 -> 4x2 -> 2x1 -> 1x1 (the clamp at the last column). */
    mimg o;
    mimg_create(&o, 37, 20, 6, 1, 0, VGFX_FORMAT_RGBA8_UNORM);
    mimg_pattern(&o, 0, 0, 77);
    GOK(vgfxGenerateMipmaps(o.img, 0));
    for (uint32_t l = 1; l < 6; l++)
        model_mipgen(mpx(&o, 0, l - 1), model_dim(37, l - 1), model_dim(20, l - 1), mpx(&o, 0, l),
                     model_dim(37, l), model_dim(20, l));
    CHECK(mimg_matches(&o, "mipmaps of an odd-sized image"));
    /* R32_UINT: fill and blit work, mipmaps are refused. */
    mimg u, u2;
    mimg_create(&u, 9, 9, 2, 1, 0, VGFX_FORMAT_R32_UINT);
    mimg_create(&u2, 3, 3, 1, 1, 0, VGFX_FORMAT_R32_UINT);
    mimg_pattern(&u, 0, 0, 5);
    GOK(vgfxBlit(u.img, 0, 0, NULL, u2.img, 0, 0, NULL));
    model_blit(mpx(&u, 0, 0), 9, 0, 0, 9, 9, mpx(&u2, 0, 0), 3, 0, 0, 3, 3);
    GEXPECT(vgfxGenerateMipmaps(u.img, 0), VGFX_ERROR_NOT_SUPPORTED);
    GEXPECT(vgfxBlit(u.img, 0, 0, NULL, m.img, 0, 0, NULL), VGFX_ERROR_INVALID_VALUE);  /* formats */
    CHECK(mimg_matches(&u, "R32_UINT source"));
    CHECK(mimg_matches(&u2, "R32_UINT blit (9x9 -> 3x3 takes every third pixel)"));
    GOK(vgfxFinish());
    GOK(vgfxQuery());
    mimg_destroy(&u);
    mimg_destroy(&u2);
    mimg_destroy(&o);
    mimg_destroy(&s);
    mimg_destroy(&m);
    GOK(vgfxShutdown());
}

static void case_errors(void)
{
    GMUST(vgfxInit());
    NOTE("engine refusals: each leaves every subresource as it was");
    mimg m;
    mimg_create(&m, 32, 16, 3, 2, 0, VGFX_FORMAT_RGBA8_UNORM);
    for (uint32_t y = 0; y < 2; y++)
        for (uint32_t l = 0; l < 3; l++) mimg_pattern(&m, y, l, 3 * y + l);
    vgfxRect out1 = {30, 0, 3, 1}, out2 = {0, 15, 1, 2}, empty = {0, 0, 0, 4}, wrap = {0xfffffff0u, 0, 32, 1};
    GEXPECT(vgfxFillRect(m.img, 0, 0, &out1, 1), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxFillRect(m.img, 0, 0, &out2, 1), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxFillRect(m.img, 0, 0, &empty, 1), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxFillRect(m.img, 0, 0, &wrap, 1), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxFillRect(m.img, 0, 0, NULL, 1), VGFX_ERROR_INVALID_VALUE);
    vgfxRect lvl2 = {0, 0, 8, 4}, lvl2big = {0, 0, 9, 4};
    GEXPECT(vgfxFillRect(m.img, 0, 2, &lvl2big, 1), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxFillRect(m.img, 2, 0, &lvl2, 1), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxFillRect(m.img, 0, 3, &lvl2, 1), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxClearImage(m.img, 2, 0, 1), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxClearImage(m.img, 0, 3, 1), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxClearImage((vgfxImage)(uintptr_t)0x99, 0, 0, 1), VGFX_ERROR_INVALID_HANDLE);
    vgfxRect a = {0, 0, 10, 10}, b = {5, 5, 10, 10};
    GEXPECT(vgfxBlit(m.img, 0, 0, &a, m.img, 0, 0, &b), VGFX_ERROR_INVALID_VALUE);  /* overlap */
    GEXPECT(vgfxBlit(m.img, 0, 0, &out1, m.img, 1, 0, NULL), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxBlit(m.img, 0, 0, NULL, m.img, 1, 0, &empty), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxBlit(m.img, 0, 3, NULL, m.img, 1, 0, NULL), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxBlit(m.img, 0, 0, NULL, m.img, 2, 0, NULL), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxBlit(NULL, 0, 0, NULL, m.img, 1, 0, NULL), VGFX_ERROR_INVALID_HANDLE);
    GEXPECT(vgfxBlit(m.img, 0, 0, NULL, NULL, 1, 0, NULL), VGFX_ERROR_INVALID_HANDLE);
    GEXPECT(vgfxGenerateMipmaps(m.img, 2), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxGenerateMipmaps(NULL, 0), VGFX_ERROR_INVALID_HANDLE);
    GEXPECT(vgfxCaptureImagePNG(m.img, 0, 0, NULL), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxCaptureImagePNG(m.img, 0, 0, ""), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxCaptureImagePNG(m.img, 0, 3, "/tmp/x.png"), VGFX_ERROR_INVALID_VALUE);
    GEXPECT(vgfxCaptureImagePNG(m.img, 0, 0, "/nonexistent-dir/x.png"), VGFX_ERROR_FILE);
    CHECK(strstr(vgfxGetLastErrorMessage(), "/nonexistent-dir/x.png") != NULL);
    CHECK(mimg_matches(&m, "unchanged after every refusal"));
    /* A single-level image: generating mipmaps is a no-op. */
    mimg one;
    mimg_create(&one, 4, 4, 1, 1, 0, VGFX_FORMAT_RGBA8_UNORM);
    mimg_pattern(&one, 0, 0, 1);
    GOK(vgfxGenerateMipmaps(one.img, VGFX_ALL));
    CHECK(mimg_matches(&one, "single level untouched by GenerateMipmaps"));
    mimg_destroy(&one);
    mimg_destroy(&m);
    GOK(vgfxShutdown());
}

/* ---------------------------------------------------------------- PNG check */

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* Parse the file: signature, chunks with CRCs, IHDR, IDAT inflated; 0 when it is the image. */
static int png_check(const char *path, const uint32_t *want, uint32_t w, uint32_t h)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("  FAIL cannot open %s\n", path);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n);
    size_t got = fread(b, 1, (size_t)n, f);
    fclose(f);
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    int bad = got != (size_t)n || n < 8 || memcmp(b, sig, 8) != 0;
    if (bad) printf("  FAIL %s: bad signature\n", path);
    uint8_t *idat = NULL;
    size_t idat_len = 0;
    int seen_ihdr = 0, seen_iend = 0, chunks = 0;
    for (long p = 8; !bad && p + 12 <= n;) {
        uint32_t len = rd32(b + p);
        if (p + 12 + (long)len > n) {
            printf("  FAIL %s: chunk runs past the end\n", path);
            bad = 1;
            break;
        }
        const uint8_t *type = b + p + 4, *data = b + p + 8;
        uint32_t crc = (uint32_t)crc32(crc32(0, Z_NULL, 0), type, len + 4);
        if (crc != rd32(data + len)) {
            printf("  FAIL %s: CRC of %.4s\n", path, (const char *)type);
            bad = 1;
        }
        chunks++;
        if (!memcmp(type, "IHDR", 4)) {
            seen_ihdr = chunks == 1;
            if (len != 13 || rd32(data) != w || rd32(data + 4) != h || data[8] != 8 || data[9] != 6 ||
                data[10] || data[11] || data[12]) {
                printf("  FAIL %s: IHDR %ux%u depth %u colour %u\n", path, rd32(data), rd32(data + 4), data[8], data[9]);
                bad = 1;
            }
        } else if (!memcmp(type, "IDAT", 4)) {
            idat = realloc(idat, idat_len + len);
            memcpy(idat + idat_len, data, len);
            idat_len += len;
        } else if (!memcmp(type, "IEND", 4)) {
            seen_iend = p + 12 + (long)len == n;
        }
        p += 12 + len;
    }
    if (!bad && (!seen_ihdr || !seen_iend || !idat)) {
        printf("  FAIL %s: IHDR first %d, IEND last %d, IDAT %d\n", path, seen_ihdr, seen_iend, idat != NULL);
        bad = 1;
    }
    if (!bad) {
        uLongf raw_len = (uLongf)(w * 4 + 1) * h;
        uint8_t *raw = malloc(raw_len + 1);
        uLongf out_len = raw_len + 1;
        if (uncompress(raw, &out_len, idat, idat_len) != Z_OK || out_len != raw_len) {
            printf("  FAIL %s: IDAT does not inflate to %lu bytes\n", path, (unsigned long)raw_len);
            bad = 1;
        }
        for (uint32_t y = 0; !bad && y < h; y++) {
            if (raw[y * (w * 4 + 1)] != 0) {
                printf("  FAIL %s: row %u filter %u\n", path, y, raw[y * (w * 4 + 1)]);
                bad = 1;
            }
            if (!bad && memcmp(raw + y * (w * 4 + 1) + 1, want + (size_t)y * w, (size_t)w * 4) != 0) {
                printf("  FAIL %s: row %u pixels differ from the image\n", path, y);
                bad = 1;
            }
        }
        free(raw);
    }
    free(idat);
    free(b);
    return bad ? -1 : 0;
}

static void case_png(const char *path)
{
    GMUST(vgfxInit());
    NOTE("PNG capture of a level and of a layer, parsed back: %s", path);
    mimg m;
    mimg_create(&m, 50, 30, 3, 2, 0, VGFX_FORMAT_RGBA8_UNORM);
    mimg_pattern(&m, 1, 0, 3);
    mimg_pattern(&m, 1, 1, 4);
    GOK(vgfxCaptureImagePNG(m.img, 1, 0, path));
    g_checks++;
    if (png_check(path, mpx(&m, 1, 0), 50, 30)) g_fails++;
    GOK(vgfxCaptureImagePNG(m.img, 1, 1, path));
    g_checks++;
    if (png_check(path, mpx(&m, 1, 1), 25, 15)) g_fails++;
    /* Engine work right before the capture is in the file (the capture waits for it). */
    vgfxRect r = {10, 10, 20, 5};
    GOK(vgfxFillRect(m.img, 1, 0, &r, VGFX_RGBA(10, 20, 30, 255)));
    model_fill(mpx(&m, 1, 0), 50, 10, 10, 20, 5, VGFX_RGBA(10, 20, 30, 255));
    GOK(vgfxCaptureImagePNG(m.img, 1, 0, path));
    g_checks++;
    if (png_check(path, mpx(&m, 1, 0), 50, 30)) g_fails++;
    mimg u;
    mimg_create(&u, 4, 4, 1, 1, 0, VGFX_FORMAT_R32_UINT);
    GEXPECT(vgfxCaptureImagePNG(u.img, 0, 0, path), VGFX_ERROR_NOT_SUPPORTED);
    mimg_destroy(&u);
    mimg_destroy(&m);
    GOK(vgfxShutdown());
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s api|buffers|images|engine|errors|png [png-path]\n", argv[0]);
        return 2;
    }
    const char *c = argv[1];
    printf("vgfx test %s\n", c);
    if (!strcmp(c, "api")) case_api();
    else if (!strcmp(c, "buffers")) case_buffers();
    else if (!strcmp(c, "images")) case_images();
    else if (!strcmp(c, "engine")) case_engine();
    else if (!strcmp(c, "errors")) case_errors();
    else if (!strcmp(c, "png")) case_png(argc > 2 ? argv[2] : "vgfx_test.png");
    else {
        fprintf(stderr, "unknown case %s\n", c);
        return 2;
    }
    printf("%s: %d checks, %d failed\n", c, g_checks, g_fails);
    return g_fails ? 1 : 0;
}
