/*
 * What the fuzzers (tests/fuzz) share: a seeded generator, the bounds of a run (a fixed
 * number of iterations and a time cap, whichever comes first) and the report.
 *
 * Every fuzzer takes `<seed> <iterations> <seconds>` (defaults 1, 1000, 45), prints the seed
 * and the bounds first, runs iteration after iteration, and ends with
 *   "<name>: seed S, N iterations (stopped by ...), P passed, F failed"
 * then exits nonzero when an iteration failed. An iteration fails when one of its checks fails;
 * the first failures are printed with the seed and iteration, so `<prog> S N` replays it.
 */
#ifndef VMGPU_FUZZ_COMMON_H
#define VMGPU_FUZZ_COMMON_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct fuzz_run {
    const char *name;
    uint64_t seed, state;
    unsigned long iterations, done, passed, failed;
    double seconds, t0;
    int iter_failed;        /* a check of the current iteration failed */
    unsigned long printed;  /* failure lines printed (the first 40) */
} fuzz_run;

static double fuzz_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* splitmix64: a small, good, reproducible generator. */
static uint64_t fuzz_u64(fuzz_run *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* Uniform in [0, n) (n > 0). */
static uint64_t fuzz_below(fuzz_run *r, uint64_t n) { return fuzz_u64(r) % n; }
/* 1 with probability num/den. */
static int fuzz_chance(fuzz_run *r, unsigned num, unsigned den) { return fuzz_below(r, den) < num; }

static void fuzz_begin(fuzz_run *r, const char *name, int argc, char **argv)
{
    r->name = name;
    r->seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    r->iterations = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000;
    r->seconds = argc > 3 ? atof(argv[3]) : 45.0;
    r->state = r->seed;
    r->done = r->passed = r->failed = r->printed = 0;
    r->t0 = fuzz_now();
    printf("%s: seed %llu, at most %lu iterations, at most %.0f s\n", name, (unsigned long long)r->seed,
           r->iterations, r->seconds);
    fflush(stdout);
}

/* 1 while another iteration may start; closes the previous one. */
static int fuzz_next(fuzz_run *r)
{
    if (r->done) {
        if (r->iter_failed) r->failed++;
        else r->passed++;
    } else if (r->iter_failed) {
        r->failed++;  /* the set-up before the first iteration failed */
    }
    r->iter_failed = 0;
    if (r->done >= r->iterations || fuzz_now() - r->t0 >= r->seconds) return 0;
    r->done++;
    return 1;
}

static void fuzz_fail(fuzz_run *r, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fuzz_fail(fuzz_run *r, const char *file, int line, const char *fmt, ...)
{
    r->iter_failed = 1;
    if (r->printed++ >= 40) return;
    printf("  FAIL seed %llu iteration %lu %s:%d: ", (unsigned long long)r->seed, r->done, file, line);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}
#define FZ_CHECK(r, cond, ...) do { if (!(cond)) fuzz_fail((r), __FILE__, __LINE__, __VA_ARGS__); } while (0)

/* The closing line and the exit status. A check after the last iteration (teardown) counts
 * towards that iteration. */
static int fuzz_end(fuzz_run *r)
{
    if (r->iter_failed) {  /* a teardown check failed after the last iteration was counted */
        if (r->passed) r->passed--;
        r->failed++;
    }
    double t = fuzz_now() - r->t0;
    printf("%s: seed %llu, %lu iterations in %.1f s (stopped by %s), %lu passed, %lu failed\n", r->name,
           (unsigned long long)r->seed, r->done, t, r->done >= r->iterations ? "the iteration count" : "the time cap",
           r->passed, r->failed);
    return r->failed ? 1 : 0;
}

#endif
