/*
 * procaddr_probe: what cuGetProcAddress answers, for every name and version in a list.
 *
 * Built against a cuda.h (NVIDIA's on the GPU machine, vmgpu's here) and run against the
 * libcuda.so.1 found at run time. Reads "NAME VERSION" lines on stdin (one per variant of a call:
 * the version of the CUDA release that introduced that variant, as NVIDIA's PFN_<name>_v<ver>
 * typedefs name it) and asks, for each NAME, at each variant's version and one below it, at
 * 12080, 13000 and 99999, with each flag, which exported symbol comes back.
 * Prints one line per question:
 *   gpa NAME VERSION FLAGS rc=<CUresult> status=<query result> sym=<exported name or ->
 * The symbol is named with dladdr; "sym=?" means a pointer that is no exported symbol.
 * Then fixed cases (NULL arguments, unknown names, bad flags, cuGetExportTable, the legacy
 * 4-argument cuGetProcAddress, before and after cuInit).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda.h>
#include <sys/wait.h>
#include <unistd.h>

typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*get_export_table_fn)(const void **, const CUuuid *);
typedef CUresult (*init_fn)(unsigned int);

static gpa2_fn gpa2, gpa2_ptsz;
static gpa1_fn gpa1;

static const char *symname(void *p)
{
    static char buf[256];
    Dl_info info;
    if (!p) return "-";
    if (dladdr(p, &info) && info.dli_sname && info.dli_saddr == p) return info.dli_sname;
    if (dladdr(p, &info) && info.dli_sname) {
        snprintf(buf, sizeof buf, "?near:%s+%ld", info.dli_sname,
                 (long)((char *)p - (char *)info.dli_saddr));
        return buf;
    }
    return "?";
}

static void ask(const char *name, int ver, cuuint64_t flags)
{
    void *p = (void *)0x1;
    CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)77;
    CUresult rc = gpa2(name, &p, ver, flags, &st);
    printf("gpa %s %d %llu rc=%d status=%d sym=%s\n", name, ver, (unsigned long long)flags, (int)rc,
           (int)st, p == (void *)0x1 ? "untouched" : symname(p));
}

#define MAXN 4096
static char names[MAXN][96];
static int vers[MAXN][16], nver[MAXN], n;

/* A case that may crash the driver runs in a child; a crash is printed as CRASH:<signal>. */
#define GUARD(when, what, body)                                                                   \
    do {                                                                                          \
        fflush(stdout);                                                                           \
        pid_t pid_ = fork();                                                                      \
        if (pid_ == 0) { body; fflush(stdout); _exit(0); }                                        \
        int ws_ = 0;                                                                              \
        waitpid(pid_, &ws_, 0);                                                                   \
        if (WIFSIGNALED(ws_)) printf("fixed %s %s CRASH:%d\n", when, what, WTERMSIG(ws_));        \
    } while (0)

static void fixed_cases(const char *when)
{
    void *p;
    CUdriverProcAddressQueryResult st;
    CUresult rc;
    printf("# fixed cases %s\n", when);
    GUARD(when, "null-symbol", {
        p = (void *)0x1; st = 77;
        rc = gpa2(NULL, &p, 13000, 0, &st);
        printf("fixed %s null-symbol rc=%d status=%d p=%s\n", when, rc, st, p == (void *)0x1 ? "untouched" : symname(p));
    });
    GUARD(when, "null-pfn", {
        st = 77;
        rc = gpa2("cuInit", NULL, 13000, 0, &st);
        printf("fixed %s null-pfn rc=%d status=%d\n", when, rc, st);
    });
    GUARD(when, "null-status", {
        p = (void *)0x1;
        rc = gpa2("cuInit", &p, 13000, 0, NULL);
        printf("fixed %s null-status rc=%d sym=%s\n", when, rc, symname(p == (void *)0x1 ? NULL : p));
    });
    const char *odd[] = {"cuNoSuchCall", "", "cuMemAlloc_v2", "cuMemAlloc_v9", "cuInit ", "CUINIT",
                         "cuMemcpyAsync_ptsz", "cuCtxCreate_v4", "cuGetProcAddress", "cuGetProcAddress_v2",
                         "cuDriverGetVersion", "cuGetExportTable", "cuMemMap", "cudaMalloc", "cuMemAllocAsync",
                         "cuMemPoolCreate", "cuStreamGetCtx", "cuCtxGetStreamPriorityRange",
                         "cuDeviceGetMemPool", "cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL};
    for (int i = 0; odd[i]; i++)
        for (int f = 0; f < 3; f++) {
            p = (void *)0x1; st = 77;
            rc = gpa2(odd[i], &p, 13000, (cuuint64_t)f, &st);
            printf("fixed %s name[%s] flags=%d rc=%d status=%d sym=%s\n", when, odd[i], f, rc, st,
                   p == (void *)0x1 ? "untouched" : symname(p));
        }
    int badver[] = {(int)0x80000000, -2, -1, 0, 1000, 2000, 3000, 3020, 3999, 10000, 10020, 11030, 11040, 12000, 12080, 13000, 13010, 99999, 0x7fffffff};
    const char *vnames[] = {"cuInit", "cuMemMap", "cuMemAlloc", "cuCtxCreate", "cuMemAllocAsync", "cuGetProcAddress", "cuStreamGetCtx", NULL};
    for (int j = 0; vnames[j]; j++)
        for (unsigned i = 0; i < sizeof badver / sizeof *badver; i++) {
            p = (void *)0x1; st = 77;
            rc = gpa2(vnames[j], &p, badver[i], 0, &st);
            printf("fixed %s ver name[%s] ver=%d rc=%d status=%d sym=%s\n", when, vnames[j], badver[i], rc, st,
                   p == (void *)0x1 ? "untouched" : symname(p));
        }
    cuuint64_t badflags[] = {3, 4, 8, 0x10, 0x100, ~0ull};
    for (unsigned i = 0; i < sizeof badflags / sizeof *badflags; i++) {
        p = (void *)0x1; st = 77;
        rc = gpa2("cuMemcpyAsync", &p, 13000, badflags[i], &st);
        printf("fixed %s flags=%llu rc=%d status=%d sym=%s\n", when, (unsigned long long)badflags[i], rc, st,
               p == (void *)0x1 ? "untouched" : symname(p));
    }
    if (gpa2_ptsz) {
        const char *l[] = {"cuMemcpyAsync", "cuMemAlloc", "cuStreamGetCtx", "cuNoSuchCall", NULL};
        for (int i = 0; l[i]; i++)
            for (int f = 0; f < 3; f++) {
                p = (void *)0x1; st = 77;
                rc = gpa2_ptsz(l[i], &p, 13000, (cuuint64_t)f, &st);
                printf("fixed %s v2_ptsz name[%s] flags=%d rc=%d status=%d sym=%s\n", when, l[i], f, rc, st,
                       p == (void *)0x1 ? "untouched" : symname(p));
            }
    }
    if (gpa1) {
        p = (void *)0x1;
        rc = gpa1("cuInit", &p, 13010, 0);
        printf("fixed %s v1 name[cuInit] ver=13010 rc=%d sym=%s\n", when, rc, p == (void *)0x1 ? "untouched" : symname(p));
        p = (void *)0x1;
        rc = gpa1("cuMemcpyAsync", &p, 13000, 4);
        printf("fixed %s v1 name[cuMemcpyAsync] flags=4 rc=%d sym=%s\n", when, rc, p == (void *)0x1 ? "untouched" : symname(p));
        const char *l[] = {"cuInit", "cuMemAlloc", "cuNoSuchCall", "cuMemcpyAsync", "cuCtxCreate", NULL};
        for (int i = 0; l[i]; i++)
            for (int f = 0; f < 3; f++) {
                int vv[] = {3020, 12080, 13000};
                for (int k = 0; k < 3; k++) {
                    p = (void *)0x1;
                    rc = gpa1(l[i], &p, vv[k], (cuuint64_t)f);
                    printf("fixed %s v1 name[%s] ver=%d flags=%d rc=%d sym=%s\n", when, l[i], vv[k], f, rc,
                           p == (void *)0x1 ? "untouched" : symname(p));
                }
            }
        GUARD(when, "v1 null-symbol", {
            p = (void *)0x1;
            rc = gpa1(NULL, &p, 13000, 0);
            printf("fixed %s v1 null-symbol rc=%d\n", when, rc);
        });
        GUARD(when, "v1 null-pfn", {
            rc = gpa1("cuInit", NULL, 13000, 0);
            printf("fixed %s v1 null-pfn rc=%d\n", when, rc);
        });
    }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    gpa2 = (gpa2_fn)dlsym(lib, "cuGetProcAddress_v2");
    gpa1 = (gpa1_fn)dlsym(lib, "cuGetProcAddress");
    gpa2_ptsz = (gpa2_fn)dlsym(lib, "cuGetProcAddress_v2_ptsz");
    get_export_table_fn get = (get_export_table_fn)dlsym(lib, "cuGetExportTable");
    init_fn init = (init_fn)dlsym(lib, "cuInit");
    printf("# exports cuGetProcAddress_v2=%s cuGetProcAddress=%s cuGetExportTable=%s\n",
           gpa2 ? "yes" : "no", gpa1 ? "yes" : "no", get ? "yes" : "no");
    if (!gpa2) return 2;
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        char nm[96]; int v;
        if (sscanf(line, "%95s %d", nm, &v) != 2) continue;
        int i;
        for (i = 0; i < n; i++) if (!strcmp(names[i], nm)) break;
        if (i == n) { if (n == MAXN) break; strcpy(names[n], nm); nver[n] = 0; n++; }
        if (nver[i] < 16) vers[i][nver[i]++] = v;
    }
    fixed_cases("before-init");
    /* Before cuInit: the first name resolves? */
    CUresult irc = init(0);
    printf("# cuInit rc=%d\n", irc);
    fixed_cases("after-init");
    int extra[] = {12080, 13000, 99999};
    for (int i = 0; i < n; i++) {
        int qs[40], nq = 0;
        for (int k = 0; k < nver[i]; k++) { qs[nq++] = vers[i][k] - 1; qs[nq++] = vers[i][k]; }
        for (int k = 0; k < 3; k++) qs[nq++] = extra[k];
        for (int a = 0; a < nq; a++) {
            int dup = 0;
            for (int b = 0; b < a; b++) if (qs[b] == qs[a]) dup = 1;
            if (dup) continue;
            for (int f = 0; f < 3; f++) ask(names[i], qs[a], (cuuint64_t)f);
        }
    }
    if (get) {
        const void *t = (const void *)0x1;
        CUuuid id; memset(&id, 0x5a, sizeof id);
        CUresult rc = get(&t, &id);
        printf("exporttable unknown-id rc=%d table=%s\n", rc, t == (const void *)0x1 ? "untouched" : (t ? "nonnull" : "null"));
        memset(&id, 0, sizeof id); t = (const void *)0x1;
        rc = get(&t, &id);
        printf("exporttable zero-id rc=%d table=%s\n", rc, t == (const void *)0x1 ? "untouched" : (t ? "nonnull" : "null"));
        GUARD("after-init", "exporttable null-out", {
            rc = get(NULL, &id);
            printf("exporttable null-out rc=%d\n", rc);
        });
        GUARD("after-init", "exporttable null-id", {
            t = (const void *)0x1;
            rc = get(&t, NULL);
            printf("exporttable null-id rc=%d table=%s\n", rc, t == (const void *)0x1 ? "untouched" : (t ? "nonnull" : "null"));
        });
    }
    int dv = 0;
    CUresult (*gv)(int *) = (CUresult (*)(int *))dlsym(lib, "cuDriverGetVersion");
    if (gv) { CUresult r = gv(&dv); printf("driverversion rc=%d v=%d\n", r, dv); }
    (void)argc; (void)argv;
    return 0;
}
