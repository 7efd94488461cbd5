/*
 * The PNG writer behind vgfxCaptureImagePNG: 8-bit RGBA, no interlace, filter type 0 (None)
 * on every row. The chunk layout (length, type, data, CRC-32 over type+data) is written here;
 * zlib only deflates the scanlines and computes the CRC.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gfx_internal.h"

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static int put_chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len)
{
    uint8_t hdr[8], crc_be[4];
    be32(hdr, len);
    memcpy(hdr + 4, type, 4);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, (const Bytef *)type, 4);
    if (len) crc = crc32(crc, data, len);
    be32(crc_be, (uint32_t)crc);
    if (fwrite(hdr, 1, 8, f) != 8) return -1;
    if (len && fwrite(data, 1, len, f) != len) return -1;
    return fwrite(crc_be, 1, 4, f) == 4 ? 0 : -1;
}

int gfx_write_png(const char *path, const uint8_t *rgba, uint32_t w, uint32_t h, char *msg,
                  size_t msglen)
{
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    size_t row = (size_t)w * 4 + 1;
    size_t raw_len = row * h;
    uint8_t *raw = malloc(raw_len);
    uLongf z_len = compressBound((uLong)raw_len);
    uint8_t *z = malloc(z_len);
    if (!raw || !z) {
        free(raw);
        free(z);
        snprintf(msg, msglen, "out of host memory");
        return -1;
    }
    for (uint32_t y = 0; y < h; y++) {
        raw[y * row] = 0;  /* filter type None */
        memcpy(raw + y * row + 1, rgba + (size_t)y * w * 4, (size_t)w * 4);
    }
    int zrc = compress2(z, &z_len, raw, (uLong)raw_len, Z_BEST_SPEED);
    free(raw);
    if (zrc != Z_OK) {
        free(z);
        snprintf(msg, msglen, "zlib compress2 failed (%d)", zrc);
        return -1;
    }
    uint8_t ihdr[13];
    be32(ihdr, w);
    be32(ihdr + 4, h);
    ihdr[8] = 8;   /* bits per channel */
    ihdr[9] = 6;   /* colour type: RGBA */
    ihdr[10] = 0;  /* deflate */
    ihdr[11] = 0;  /* adaptive filtering (every row uses None) */
    ihdr[12] = 0;  /* no interlace */
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(z);
        snprintf(msg, msglen, "cannot open %s for writing: %s", path, strerror(errno));
        return -1;
    }
    int bad = fwrite(signature, 1, 8, f) != 8;
    if (!bad) bad = put_chunk(f, "IHDR", ihdr, 13);
    if (!bad) bad = put_chunk(f, "IDAT", z, (uint32_t)z_len);
    if (!bad) bad = put_chunk(f, "IEND", NULL, 0);
    free(z);
    if (fclose(f) != 0) bad = 1;
    if (bad) {
        snprintf(msg, msglen, "writing %s failed: %s", path, strerror(errno));
        remove(path);
        return -1;
    }
    return 0;
}
