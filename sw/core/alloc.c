/* Range allocator behind the physical, page-table-pool, VA and host-frame allocators: a sorted
 * array of taken ranges, first fit. The sets stay small (allocations, not pages), so a linear
 * scan is simpler than a tree and fast enough. */
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"

void rs_init(range_set *rs, uint64_t lo, uint64_t hi)
{
    memset(rs, 0, sizeof *rs);
    rs->lo = lo;
    rs->hi = hi;
}

void rs_free_all(range_set *rs)
{
    free(rs->r);
    rs->r = NULL;
    rs->n = rs->cap = 0;
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

static int rs_insert(range_set *rs, size_t at, uint32_t start, uint32_t size)
{
    if (rs->n == rs->cap) {
        size_t nc = rs->cap ? rs->cap * 2 : 16;
        range *nr = realloc(rs->r, nc * sizeof *nr);
        if (!nr) return -1;
        rs->r = nr;
        rs->cap = nc;
    }
    memmove(&rs->r[at + 1], &rs->r[at], (rs->n - at) * sizeof *rs->r);
    rs->r[at] = (range){.start = start, .size = size};
    rs->n++;
    return 0;
}

int rs_alloc(range_set *rs, uint32_t size, uint32_t align, uint32_t fixed, uint32_t *start)
{
    if (size == 0 || align == 0 || (align & (align - 1))) return -1;
    if (fixed) {
        uint64_t s = fixed, e = s + size;
        if (s < rs->lo || e > rs->hi || (s & (align - 1))) return -1;
        size_t i = 0;
        while (i < rs->n && rs->r[i].start + (uint64_t)rs->r[i].size <= s) i++;
        if (i < rs->n && rs->r[i].start < e) return -1;
        if (rs_insert(rs, i, fixed, size)) return -1;
        *start = fixed;
        return 0;
    }
    uint64_t cur = rs->lo;
    for (size_t i = 0; i <= rs->n; i++) {
        uint64_t s = align_up(cur, align);
        uint64_t gap_end = i < rs->n ? rs->r[i].start : rs->hi;
        if (s + size <= gap_end) {
            if (rs_insert(rs, i, (uint32_t)s, size)) return -1;
            *start = (uint32_t)s;
            return 0;
        }
        if (i < rs->n) cur = (uint64_t)rs->r[i].start + rs->r[i].size;
    }
    return -1;
}

long rs_find_start(const range_set *rs, uint32_t start)
{
    size_t lo = 0, hi = rs->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rs->r[mid].start < start) lo = mid + 1;
        else hi = mid;
    }
    return (lo < rs->n && rs->r[lo].start == start) ? (long)lo : -1;
}

long rs_find(const range_set *rs, uint32_t addr)
{
    size_t lo = 0, hi = rs->n;
    while (lo < hi) {  /* first range starting above addr */
        size_t mid = (lo + hi) / 2;
        if (rs->r[mid].start <= addr) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return -1;
    const range *r = &rs->r[lo - 1];
    return (addr - (uint64_t)r->start < r->size) ? (long)(lo - 1) : -1;
}

void rs_remove(range_set *rs, size_t idx)
{
    memmove(&rs->r[idx], &rs->r[idx + 1], (rs->n - idx - 1) * sizeof *rs->r);
    rs->n--;
}

uint64_t rs_used(const range_set *rs)
{
    uint64_t t = 0;
    for (size_t i = 0; i < rs->n; i++) t += rs->r[i].size;
    return t;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t rs_hash(const range_set *rs, uint64_t h)
{
    h = fnv(h, rs->n);
    for (size_t i = 0; i < rs->n; i++) {
        h = fnv(h, ((uint64_t)rs->r[i].start << 32) | rs->r[i].size);
        h = fnv(h, rs->r[i].refs);
        h = fnv(h, (uint64_t)(uintptr_t)rs->r[i].user);
    }
    return h;
}
