/* Unit test of the range allocator behind every core allocator (no device needed). */
#include <stdio.h>

#include "core_internal.h"

static int fails;
#define CHECK(c) do { if (!(c)) { printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

int main(void)
{
    range_set rs;
    uint32_t a, b, c, d;
    rs_init(&rs, 0x10000, 0x100000);
    CHECK(rs_alloc(&rs, 0x1000, 0x10000, 0, &a) == 0 && a == 0x10000);
    CHECK(rs_alloc(&rs, 0x3000, 0x1000, 0, &b) == 0 && b == 0x11000);
    CHECK(rs_alloc(&rs, 0x1000, 0x10000, 0, &c) == 0 && c == 0x20000);  /* aligned past b */
    CHECK(rs_alloc(&rs, 0x1000, 0x1000, 0x11000, &d) != 0);            /* fixed, taken */
    CHECK(rs_alloc(&rs, 0x1000, 0x1000, 0x15000, &d) == 0 && d == 0x15000);
    CHECK(rs_alloc(&rs, 0x100000, 0x1000, 0, &d) != 0);                /* too big */
    CHECK(rs_alloc(&rs, 0, 0x1000, 0, &d) != 0);                       /* empty */
    CHECK(rs_alloc(&rs, 0x1000, 0x3000, 0, &d) != 0);                  /* align not 2^n */
    CHECK(rs_find(&rs, 0x12fff) == 1 && rs_find(&rs, 0x14000) == -1 && rs_find(&rs, 0xffff) == -1);
    CHECK(rs_find_start(&rs, 0x11000) == 1 && rs_find_start(&rs, 0x12000) == -1);
    CHECK(rs_used(&rs) == 0x6000);
    uint64_t h = rs_hash(&rs, 1);
    rs_remove(&rs, (size_t)rs_find_start(&rs, 0x11000));
    CHECK(rs_hash(&rs, 1) != h && rs_used(&rs) == 0x3000);
    CHECK(rs_alloc(&rs, 0x4000, 0x1000, 0, &d) == 0 && d == 0x11000);  /* first fit reuses */
    /* The top of a 4 GiB space is reachable (hi = 2^32). */
    range_set va;
    rs_init(&va, 0x10000, 1ull << 32);
    CHECK(rs_alloc(&va, 0x10000, 0x10000, 0xffff0000u, &d) == 0 && d == 0xffff0000u);
    CHECK(rs_alloc(&va, 0x20000, 0x10000, 0xfffe0000u, &d) != 0);
    rs_free_all(&va);
    rs_free_all(&rs);
    printf("core_unit: range allocator first fit, alignment, fixed placement, lookup, hash: %s\n",
           fails ? "FAILED" : "ok");
    return fails != 0;
}
