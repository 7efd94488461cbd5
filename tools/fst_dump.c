/*
 * vmgpu-fst-dump: the value changes of a few signals of an FST waveform, as text, so that
 * scripts (tools/lesson_numbers.py) can find the cycles a lesson quotes without GTKWave.
 *
 *   vmgpu-fst-dump FILE.fst --list                 every signal path and its width
 *   vmgpu-fst-dump FILE.fst [--from T] [--to T] PATH...
 *
 * A PATH is a signal's dotted path as GTKWave shows it (vmgpu.vmgpu_top.dma_start); a trailing
 * bit range ("[31:0]") is ignored. Output: one "# k PATH WIDTH" line per signal, then one line
 * "TIME k VALUE" per change in time order, VALUE in hex (or the raw bits when some are x/z).
 * With --from, each signal's value at T comes first (as a change at T), so a reader never
 * needs the changes before T. Exit status 2 names a path that is not in the file.
 *
 * It reads the file with the FST reader that Verilator ships (fstapi.c), the same code that
 * wrote it, and needs nothing else.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fstapi.h"

#define MAX_SIGS 256

typedef struct {
    const char *want;      /* the path asked for, range stripped */
    fstHandle handle;      /* 0: not found */
    uint32_t width;
    char *last;            /* value at or before --from (NULL: none seen) */
} sig;

typedef struct {
    sig s[MAX_SIGS];
    int n;
    uint64_t from, to;
    int emitted_initial;
} job;

static char *strip_range(const char *p)
{
    char *c = strdup(p);
    size_t l = strlen(c);
    if (l && c[l - 1] == ']') {
        char *open = strrchr(c, '[');
        if (open && strchr(open, ':')) *open = 0;
    }
    for (l = strlen(c); l && c[l - 1] == ' '; l--) c[l - 1] = 0;  /* Verilator writes "name [7:0]" */
    return c;
}

static void print_value(const char *bits, uint32_t width)
{
    for (uint32_t i = 0; i < width; i++)
        if (bits[i] != '0' && bits[i] != '1') {
            printf("%.*s\n", (int)width, bits);
            return;
        }
    /* Hex, most significant nibble first, no leading zeros beyond one digit. */
    char out[(width + 3) / 4 + 2];
    int k = 0;
    uint32_t lead = width % 4 ? width % 4 : 4;
    uint32_t pos = 0;
    while (pos < width) {
        uint32_t take = pos == 0 ? lead : 4, v = 0;
        for (uint32_t j = 0; j < take; j++) v = v << 1 | (uint32_t)(bits[pos + j] == '1');
        out[k++] = "0123456789abcdef"[v];
        pos += take;
    }
    out[k] = 0;
    char *p = out;
    while (p[0] == '0' && p[1]) p++;
    printf("%s\n", p);
}

static void emit_initial(job *j)
{
    if (j->emitted_initial) return;
    j->emitted_initial = 1;
    for (int i = 0; i < j->n; i++)
        if (j->s[i].last) {
            printf("%" PRIu64 " %d ", j->from, i);
            print_value(j->s[i].last, j->s[i].width);
        }
}

static void on_change(void *user, uint64_t time, fstHandle h, const unsigned char *value)
{
    job *j = user;
    if (time > j->to) return;
    for (int i = 0; i < j->n; i++) {
        if (j->s[i].handle != h) continue;
        if (time < j->from || (time == j->from && !j->emitted_initial)) {
            free(j->s[i].last);
            j->s[i].last = strndup((const char *)value, j->s[i].width);
            continue;
        }
        emit_initial(j);
        printf("%" PRIu64 " %d ", time, i);
        print_value((const char *)value, j->s[i].width);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s FILE.fst --list | [--from T] [--to T] PATH...\n", argv[0]);
        return 1;
    }
    void *ctx = fstReaderOpen(argv[1]);
    if (!ctx) {
        fprintf(stderr, "%s: cannot read %s as FST\n", argv[0], argv[1]);
        return 1;
    }
    static job j;
    j.to = UINT64_MAX;
    int list = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--list")) list = 1;
        else if (!strcmp(argv[i], "--from") && i + 1 < argc) j.from = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--to") && i + 1 < argc) j.to = strtoull(argv[++i], NULL, 0);
        else if (j.n < MAX_SIGS) j.s[j.n++].want = strip_range(argv[i]);
        else {
            fprintf(stderr, "%s: at most %d signals\n", argv[0], MAX_SIGS);
            return 1;
        }
    }
    /* Walk the hierarchy, building each variable's dotted path. */
    char path[4096] = "";
    size_t depth_len[256];
    int depth = 0;
    struct fstHier *h;
    while ((h = fstReaderIterateHier(ctx))) {
        if (h->htyp == FST_HT_SCOPE) {
            if (depth < 256) depth_len[depth] = strlen(path);
            depth++;
            size_t l = strlen(path);
            snprintf(path + l, sizeof path - l, "%s%s", l ? "." : "", h->u.scope.name);
        } else if (h->htyp == FST_HT_UPSCOPE) {
            if (depth > 0) depth--;
            if (depth < 256) path[depth_len[depth]] = 0;
        } else if (h->htyp == FST_HT_VAR) {
            char full[4608];
            snprintf(full, sizeof full, "%s.%s", path, h->u.var.name);
            char *name = strip_range(full);
            if (list) printf("%s %u\n", name, h->u.var.length);
            for (int i = 0; i < j.n; i++)
                if (!j.s[i].handle && !strcmp(name, j.s[i].want)) {
                    j.s[i].handle = h->u.var.handle;
                    j.s[i].width = h->u.var.length;
                }
            free(name);
        }
    }
    if (list) return 0;
    int missing = 0;
    fstReaderClrFacProcessMaskAll(ctx);
    for (int i = 0; i < j.n; i++) {
        if (!j.s[i].handle) {
            fprintf(stderr, "%s: no signal %s in %s\n", argv[0], j.s[i].want, argv[1]);
            missing = 1;
            continue;
        }
        fstReaderSetFacProcessMask(ctx, j.s[i].handle);
        printf("# %d %s %u\n", i, j.s[i].want, j.s[i].width);
    }
    if (missing) return 2;
    fstReaderIterBlocks(ctx, on_change, &j, NULL);
    emit_initial(&j);
    fstReaderClose(ctx);
    return 0;
}
