/*
 * The OpenCL C tool chain: clang-14 compiles, ld.lld-14 links, for the SIMT unit's RV32.
 *
 * One compile is three clang runs in a private temporary directory:
 *   1. the source (with vmgpu_cl_builtins.h included first) to LLVM IR at -O0: clang's own
 *      diagnostics are the build log, and the IR's kernel_arg_* metadata say what each
 *      kernel's parameters are (address space, type, qualifiers, names) -- clang's answer,
 *      not a parse of the source;
 *   2. the source plus generated code: per kernel a struct of its parameters (the argument
 *      block's layout), a trampoline that calls the kernel with the struct's fields, and a
 *      table of the struct's offsets and sizes, to IR at the chosen -O;
 *   3. that IR, edited in two places the RISC-V back end needs (the spir_kernel calling
 *      convention dropped; __local variables, addrspace(3), put in section .shared), to a
 *      relocatable object.
 * The link adds crt0 (every thread starts at _start, which calls the trampoline named in the
 * argument block's header) and a linker script that puts .shared at the unit's shared window.
 */
#define _GNU_SOURCE
#include "cl_compile.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cl_internal.h"
#include "vmgpu/regs.h"

extern char **environ;

/* The builtins header, embedded at build time (CMake writes vmgpu_cl_builtins.inc). */
static const char k_builtins[] = {
#include "vmgpu_cl_builtins.inc"
    , 0};

/* Float arithmetic in software (vmgpu_softfloat.c, embedded at build time): compiled with the
 * program's target flags and linked in when the target has no F extension, so that clang's
 * calls to __addsf3, fmaf, sqrtf and the rest resolve (docs/opencl.md). */
static const char k_softfloat[] = {
#include "vmgpu_softfloat.inc"
    , 0};

/* The target's ISA. Base RV32IM; A and F are added when the unit reports them
 * (vmgpu_dev_info.simt_isa). VMGPU_CL_MARCH overrides the whole string (one switch). */
#define VCC_MARCH_BASE "rv32im"

static const char k_crt0[] =
    "# crt0 of an OpenCL program: the argument block's first word names the kernel's\n"
    "# trampoline, its arguments start VMGPU_ARGS_OFFSET bytes in.\n"
    "  .section .text.vmgpu_start, \"ax\"\n"
    "  .globl _start\n"
    "_start:\n"
    "  csrr sp, 0xCCF\n"
    "  csrr a0, 0xCCE\n"
    "  lw   t0, 0(a0)\n"
    "  addi a0, a0, 64\n"
    "  jalr ra, 0(t0)\n"
    "  ecall\n"
    "1:\n"
    "  j 1b\n";

static const char k_ldscript[] =
    "ENTRY(_start)\n"
    "SECTIONS\n"
    "{\n"
    "  . = %#x;\n"
    "  .text : { *(.text.vmgpu_start) *(.text .text.*) }\n"
    "  .rodata : { *(.rodata .rodata.* .srodata .srodata.*) }\n"
    "  . = ALIGN(4096);\n"
    "  .data : { *(.data .data.* .sdata .sdata.*) }\n"
    "  .bss : { *(.bss .bss.* .sbss .sbss.* COMMON) }\n"
    "  .shared %#x (NOLOAD) : { *(.shared .shared.*) }\n"
    "  /DISCARD/ : { *(.comment) *(.riscv.attributes) *(.note.GNU-stack) }\n"
    "}\n";

/* ------------------------------------------------------------ small helpers */

typedef struct strbuf {
    char *p;
    size_t n, cap;
} strbuf;

static void sb_add(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0) return;
    if (b->n + (size_t)need + 1 > b->cap) {
        size_t cap = (b->n + (size_t)need + 1) * 2;
        char *p = realloc(b->p, cap);
        if (!p) return;
        b->p = p;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)need;
}

static char *sb_take(strbuf *b)
{
    if (!b->p) return strdup("");
    return b->p;
}

static int write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static int read_file(const char *path, vcc_blob *out)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    out->p = malloc((size_t)n + 1);
    out->n = (size_t)n;
    int ok = out->p && fread(out->p, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    if (!ok) {
        free(out->p);
        out->p = NULL;
        return -1;
    }
    out->p[n] = 0;
    return 0;
}

static const char *tool(const char *env, const char *dflt)
{
    const char *v = getenv(env);
    return v && *v ? v : dflt;
}
static const char *clang_path(void) { return tool("VMGPU_CL_CLANG", "clang-14"); }
static const char *lld_path(void) { return tool("VMGPU_CL_LLD", "ld.lld-14"); }

static int in_path(const char *name)
{
    if (strchr(name, '/')) return access(name, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    char buf[4096];
    for (const char *s = path; *s;) {
        const char *e = strchr(s, ':');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        snprintf(buf, sizeof buf, "%.*s/%s", (int)l, s, name);
        if (access(buf, X_OK) == 0) return 1;
        if (!e) break;
        s = e + 1;
    }
    return 0;
}

int vcc_tools(char *why, size_t n)
{
    const char *c = clang_path(), *l = lld_path();
    if (!in_path(c)) {
        if (why) snprintf(why, n, "the OpenCL C compiler '%s' was not found (install clang-14, or set VMGPU_CL_CLANG)", c);
        return 0;
    }
    if (!in_path(l)) {
        if (why) snprintf(why, n, "the linker '%s' was not found (install lld-14, or set VMGPU_CL_LLD)", l);
        return 0;
    }
    return 1;
}

const char *vcc_march(void)
{
    static char buf[32];
    const char *v = getenv("VMGPU_CL_MARCH");
    if (v && *v) return v;
    snprintf(buf, sizeof buf, "%s%s%s", VCC_MARCH_BASE, (vcl_info.simt_isa & VMGPU_SIMT_ISA_A) ? "a" : "",
             (vcl_info.simt_isa & VMGPU_SIMT_ISA_F) ? "f" : "");
    return buf;
}

/* Whether the target has the F extension: an f (or g, which includes it) among the letters after "rv32" */
int vcc_target_has_f(void)
{
    const char *m = vcc_march();
    if (strncmp(m, "rv32", 4)) return 0;
    for (const char *p = m + 4; *p && *p != '_'; p++)
        if (*p == 'f' || *p == 'g') return 1;
    return 0;
}

/* Runs argv (argv[0] found in PATH) with stdout and stderr appended to log_path; returns the
 * exit status (0 ok), or -1 when it could not run. */
static int run_in(char *const argv[], const char *log_path, const char *cwd)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (cwd) posix_spawn_file_actions_addchdir_np(&fa, cwd);
    posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc) return -1;
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    if (getenv("VMGPU_CL_KEEP_TEMPS")) {
        FILE *f = fopen(log_path, "a");
        if (f) {
            fprintf(f, "[vmgpu] ran:");
            for (int i = 0; argv[i]; i++) fprintf(f, " %s", argv[i]);
            fprintf(f, "\n");
            fclose(f);
        }
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run(char *const argv[], const char *log_path) { return run_in(argv, log_path, NULL); }

/* A private temporary directory, removed with everything in it. */
typedef struct tmpdir {
    char path[256];
} tmpdir;

static int tmp_make(tmpdir *t)
{
    const char *base = getenv("TMPDIR");
    snprintf(t->path, sizeof t->path, "%s/vmgpu-cl-XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(t->path) ? 0 : -1;
}

static void rm_tree(const char *path)
{
    char *argv[] = {"rm", "-rf", (char *)path, NULL};
    pid_t pid;
    if (posix_spawnp(&pid, "rm", NULL, NULL, argv, environ) == 0) waitpid(pid, NULL, 0);
}

static void tmp_drop(tmpdir *t)
{
    if (getenv("VMGPU_CL_KEEP_TEMPS")) {
        vcl_trace("temporaries kept in %s", t->path);
        return;
    }
    rm_tree(t->path);
}

static char *tmp_file(const tmpdir *t, const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", t->path, name) < 0) return NULL;
    return p;
}

static void log_append_file(strbuf *log, const char *path)
{
    vcc_blob b = {0};
    if (read_file(path, &b) == 0) {
        sb_add(log, "%s", (char *)b.p);
        free(b.p);
    }
    unlink(path);
}

/* ----------------------------------------------------------------- options */

typedef struct argv_list {
    char **v;
    int n, cap;
} argv_list;

static void av_add(argv_list *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? a->cap * 2 : 32;
        a->v = realloc(a->v, (size_t)a->cap * sizeof *a->v);
    }
    a->v[a->n++] = strdup(s);
    a->v[a->n] = NULL;
}

static void av_free(argv_list *a)
{
    for (int i = 0; i < a->n; i++) free(a->v[i]);
    free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

/* Splits options at blanks; double and single quotes group (a path with spaces). */
static int tokenize(const char *s, argv_list *out)
{
    char *tok = malloc(strlen(s ? s : "") + 1);
    if (!tok) return -1;
    while (s && *s) {
        while (*s == ' ' || *s == '\t' || *s == '\n') s++;
        if (!*s) break;
        size_t n = 0;
        char q = 0;
        while (*s && (q || (*s != ' ' && *s != '\t' && *s != '\n'))) {
            if (!q && (*s == '"' || *s == '\'')) q = *s;
            else if (q && *s == q) q = 0;
            else tok[n++] = *s;
            s++;
        }
        if (q) {
            free(tok);
            return -1;
        }
        tok[n] = 0;
        av_add(out, tok);
    }
    free(tok);
    return 0;
}

/* The options of OpenCL 1.2 section 5.6.4; every one goes to clang as written (clang has them
 * all), except -create-library and -enable-link-options, which are the linker's. */
static const char *const k_compile_flags[] = {
    "-w", "-Werror", "-cl-opt-disable", "-cl-single-precision-constant", "-cl-denorms-are-zero",
    "-cl-strict-aliasing", "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only", "-cl-fast-relaxed-math", "-cl-kernel-arg-info",
    "-cl-fp32-correctly-rounded-divide-sqrt", NULL};
static const char *const k_link_flags[] = {
    "-create-library", "-enable-link-options", "-cl-denorms-are-zero", "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations", "-cl-finite-math-only", "-cl-fast-relaxed-math", NULL};

static int in_list(const char *const *l, const char *s)
{
    for (; *l; l++)
        if (strcmp(*l, s) == 0) return 1;
    return 0;
}

/* kind 0 build, 1 compile, 2 link. Fills clang's arguments (compile options only). */
static int parse_options(const char *opts, int kind, argv_list *clang_args, int *opt_disable, int *arg_info,
                         int *create_library)
{
    argv_list t = {0};
    int bad = tokenize(opts, &t) != 0;
    int std_seen = 0;
    for (int i = 0; !bad && i < t.n; i++) {
        const char *o = t.v[i];
        if (kind == 2) {
            if (!in_list(k_link_flags, o)) bad = 1;
            else if (strcmp(o, "-create-library") == 0 && create_library) *create_library = 1;
            continue;
        }
        if ((strcmp(o, "-D") == 0 || strcmp(o, "-I") == 0)) {
            if (i + 1 >= t.n) { bad = 1; break; }
            if (clang_args) { av_add(clang_args, o); av_add(clang_args, t.v[i + 1]); }
            i++;
        } else if ((strncmp(o, "-D", 2) == 0 || strncmp(o, "-I", 2) == 0) && o[2]) {
            if (clang_args) av_add(clang_args, o);
        } else if (strncmp(o, "-cl-std=", 8) == 0) {
            const char *v = o + 8;
            if (strcmp(v, "CL1.0") && strcmp(v, "CL1.1") && strcmp(v, "CL1.2")) bad = 1;
            else if (clang_args) av_add(clang_args, o);
            std_seen = 1;
        } else if (in_list(k_compile_flags, o)) {
            if (clang_args) av_add(clang_args, o);
            if (strcmp(o, "-cl-opt-disable") == 0 && opt_disable) *opt_disable = 1;
            if (strcmp(o, "-cl-kernel-arg-info") == 0 && arg_info) *arg_info = 1;
        } else if (kind == 0 && in_list(k_link_flags, o) && strcmp(o, "-create-library") &&
                   strcmp(o, "-enable-link-options")) {
            /* clBuildProgram takes the link options too; they are also compile options */
        } else {
            bad = 1;
        }
    }
    /* The 1.2 rule: without -cl-std the highest 1.x version the device supports. */
    if (!bad && kind != 2 && !std_seen && clang_args) av_add(clang_args, "-cl-std=CL1.2");
    av_free(&t);
    return bad ? -1 : 0;
}

int vcc_check_options(const char *opts, int kind)
{
    if (parse_options(opts, kind, NULL, NULL, NULL, NULL) == 0) return 0;
    return kind == 0 ? CL_INVALID_BUILD_OPTIONS : kind == 1 ? CL_INVALID_COMPILER_OPTIONS
                                                            : CL_INVALID_LINKER_OPTIONS;
}

static void target_args(argv_list *a)
{
    char m[64];
    av_add(a, clang_path());
    av_add(a, "--target=riscv32-unknown-unknown-elf");
    snprintf(m, sizeof m, "-march=%s", vcc_march());
    av_add(a, m);
    av_add(a, "-mabi=ilp32");
    av_add(a, "-mno-relax");
    av_add(a, "-mcmodel=medlow");
}

/* ------------------------------------------------------------ IR metadata */

/* The line of metadata node !id ("!7 = !{...}"), NULL when absent. */
static const char *md_node(const char *ir, const char *id)
{
    size_t l = strlen(id);
    for (const char *s = ir; (s = strstr(s, id));) {
        if ((s == ir || s[-1] == '\n') && strncmp(s + l, " = ", 3) == 0) return s + l + 3;
        s += l;
    }
    return NULL;
}

/* Reference after "name " in a define line: "!kernel_arg_type !7" -> "!7". */
static int md_ref(const char *line, size_t len, const char *name, char *id, size_t idn)
{
    char key[64];
    snprintf(key, sizeof key, "!%s !", name);
    const char *s = memmem(line, len, key, strlen(key));
    if (!s) return -1;
    s += strlen(key) - 1;
    size_t n = 0;
    while (n + 1 < idn && (s[n] == '!' || (s[n] >= '0' && s[n] <= '9'))) { id[n] = s[n]; n++; }
    id[n] = 0;
    return 0;
}

/* Items of a node: strings (!"...") into strs, integers (i32 N) into ints. */
static int md_items(const char *node, char ***strs, long **ints, unsigned *n)
{
    *n = 0;
    if (strs) *strs = NULL;
    if (ints) *ints = NULL;
    const char *s = strchr(node, '{');
    const char *e = s ? strchr(s, '}') : NULL;
    if (!s || !e) return -1;
    unsigned cap = 0;
    for (const char *p = s + 1; p < e;) {
        while (p < e && (*p == ' ' || *p == ',')) p++;
        if (p >= e) break;
        if (*n >= cap) {
            cap = cap ? cap * 2 : 8;
            if (strs) *strs = realloc(*strs, cap * sizeof **strs);
            if (ints) *ints = realloc(*ints, cap * sizeof **ints);
        }
        if (p[0] == '!' && p[1] == '"') {
            const char *q = p + 2;
            const char *qe = strchr(q, '"');
            if (!qe || qe > e) return -1;
            char *v = strndup(q, (size_t)(qe - q));
            /* IR escapes bytes as \XX; type names never have them, but be exact. */
            char *w = v;
            for (char *r = v; *r; r++) {
                if (r[0] == '\\' && r[1] && r[2]) {
                    char hx[3] = {r[1], r[2], 0};
                    *w++ = (char)strtol(hx, NULL, 16);
                    r += 2;
                } else {
                    *w++ = *r;
                }
            }
            *w = 0;
            if (strs) (*strs)[*n] = v; else free(v);
            p = qe + 1;
        } else if (strncmp(p, "i32 ", 4) == 0 || strncmp(p, "i64 ", 4) == 0) {
            if (ints) (*ints)[*n] = strtol(p + 4, NULL, 10);
            p += 4;
            while (p < e && *p != ',') p++;
        } else {
            while (p < e && *p != ',') p++;
        }
        (*n)++;
    }
    return 0;
}

static void free_strs(char **s, unsigned n)
{
    for (unsigned i = 0; s && i < n; i++) free(s[i]);
    free(s);
}

static unsigned qual_bits(const char *q)
{
    unsigned b = 0;
    if (strstr(q, "const")) b |= CL_KERNEL_ARG_TYPE_CONST;
    if (strstr(q, "restrict")) b |= CL_KERNEL_ARG_TYPE_RESTRICT;
    if (strstr(q, "volatile")) b |= CL_KERNEL_ARG_TYPE_VOLATILE;
    return b;
}

static unsigned access_code(const char *a)
{
    if (strcmp(a, "read_only") == 0) return 1;
    if (strcmp(a, "write_only") == 0) return 2;
    if (strcmp(a, "read_write") == 0) return 3;
    return 0;
}

/* Reads the kernels of pass 1's IR. 0, or -1 with the reason in log. */
static int ir_kernels(const char *ir, vcc_meta *m, strbuf *log)
{
    memset(m, 0, sizeof *m);
    for (const char *s = ir; (s = strstr(s, "\ndefine "));) {
        s++;
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        const char *sk = memmem(s, len, " spir_kernel ", 13);
        if (!sk) { s += len; continue; }
        const char *at = memchr(sk, '@', len - (size_t)(sk - s));
        const char *paren = at ? memchr(at, '(', len - (size_t)(at - s)) : NULL;
        if (!at || !paren) { s += len; continue; }
        vcc_kernel k = {0};
        if (at[1] == '"') k.name = strndup(at + 2, (size_t)(paren - at - 3));
        else k.name = strndup(at + 1, (size_t)(paren - at - 1));
        char id[5][32];
        static const char *const names[5] = {"kernel_arg_addr_space", "kernel_arg_access_qual",
                                             "kernel_arg_type", "kernel_arg_type_qual", "kernel_arg_name"};
        int have[5];
        for (int i = 0; i < 5; i++) have[i] = md_ref(s, len, names[i], id[i], sizeof id[i]) == 0;
        char **types = NULL, **accs = NULL, **quals = NULL, **anames = NULL, **bases = NULL;
        char bid[32];
        long *as = NULL;
        unsigned n = 0, n2 = 0;
        const char *node;
        int bad = !have[0] || !have[2];
        if (!bad && (node = md_node(ir, id[0]))) md_items(node, NULL, &as, &n);
        if (!bad && (node = md_node(ir, id[2]))) md_items(node, &types, NULL, &n2);
        bad |= n != n2;
        if (!bad && md_ref(s, len, "kernel_arg_base_type", bid, sizeof bid) == 0 && (node = md_node(ir, bid)))
            md_items(node, &bases, NULL, &n2);
        if (!bad && have[1] && (node = md_node(ir, id[1]))) md_items(node, &accs, NULL, &n2);
        if (!bad && have[3] && (node = md_node(ir, id[3]))) md_items(node, &quals, NULL, &n2);
        if (!bad && have[4] && (node = md_node(ir, id[4]))) {
            md_items(node, &anames, NULL, &n2);
            m->arg_info = 1;
        }
        if (bad) {
            sb_add(log, "vmgpu: kernel %s: clang gave no kernel_arg metadata\n", k.name);
            free(k.name);
            free(as);
            free_strs(types, n);
            vcc_meta_free(m);
            return -1;
        }
        k.nargs = n;
        k.args = calloc(n ? n : 1, sizeof *k.args);
        for (unsigned i = 0; i < n; i++) {
            k.args[i].as = (unsigned)as[i];
            k.args[i].type = types[i];
            k.args[i].access = accs ? access_code(accs[i]) : 0;
            k.args[i].qual = quals ? qual_bits(quals[i]) : 0;
            k.args[i].name = anames ? anames[i] : strdup("");
            if (anames) anames[i] = NULL;
            k.args[i].base = bases ? bases[i] : NULL;
            if (bases) bases[i] = NULL;
        }
        free(bases);
        free(types);
        free(as);
        free_strs(accs, n);
        free_strs(quals, n);
        free(anames);
        char rid[32];
        long *r = NULL;
        if (md_ref(s, len, "reqd_work_group_size", rid, sizeof rid) == 0 && (node = md_node(ir, rid)) &&
            md_items(node, NULL, &r, &n) == 0 && n == 3)
            for (int d = 0; d < 3; d++) k.reqd[d] = (uint32_t)r[d];
        free(r);
        m->k = realloc(m->k, (m->nkernels + 1) * sizeof *m->k);
        m->k[m->nkernels++] = k;
        s += len;
    }
    return 0;
}

/* Arguments the unit cannot take: images, samplers, events, and private pointers. */
static int check_arg_types(const vcc_meta *m, strbuf *log)
{
    static const char *const refused[] = {"image", "sampler_t", "event_t", "queue_t", "clk_event_t", NULL};
    for (unsigned i = 0; i < m->nkernels; i++)
        for (unsigned a = 0; a < m->k[i].nargs; a++) {
            const char *t = m->k[i].args[a].type;
            for (int r = 0; refused[r]; r++)
                if (strstr(t, refused[r])) {
                    sb_add(log, "vmgpu: kernel %s, argument %u: %s arguments are not supported by the SIMT unit\n",
                           m->k[i].name, a, t);
                    return -1;
                }
        }
    return 0;
}

/* Appends a kernel_arg_base_type to b with each vector written as clang's metadata spells it,
 * "float __attribute__((ext_vector_type(4)))", turned back into the OpenCL C type "float4":
 * the attribute form is valid only in a typedef, and a pointer argument's base type keeps it
 * (e.g. `__global float16 *`, or a typedef of a vector). */
static void sb_add_base_type(strbuf *b, const char *t)
{
    static const char attr[] = " __attribute__((ext_vector_type(";
    const char *v;
    while ((v = strstr(t, attr)) != NULL) {
        const char *n = v + sizeof attr - 1;
        char *end;
        long lanes = strtol(n, &end, 10);
        if (end == n || strncmp(end, ")))", 3) != 0) break;
        sb_add(b, "%.*s%ld", (int)(v - t), t, lanes);
        t = end + 3;
    }
    sb_add(b, "%s", t);
}

/* The generated code of pass 2: per kernel its argument struct, trampoline and layout table. */
static char *trampolines(const vcc_meta *m)
{
    strbuf b = {0};
    sb_add(&b, "\n#line 1 \"<vmgpu trampolines>\"\n");
    for (unsigned i = 0; i < m->nkernels; i++) {
        const vcc_kernel *k = &m->k[i];
        if (k->nargs) {
            sb_add(&b, "struct __vmgpu_args_%s {\n", k->name);
            for (unsigned a = 0; a < k->nargs; a++) {
                const vcc_arg *g = &k->args[a];
                const char *as = g->as == VCC_AS_GLOBAL ? "__global " : g->as == VCC_AS_CONSTANT ? "__constant "
                                 : g->as == VCC_AS_LOCAL ? "__local " : "";
                /* pointers: the base type (a typedef of a pointer resolved), vectors in it
                 * spelled as types again; values: the type as written (in scope here) */
                sb_add(&b, "  %s", as);
                sb_add_base_type(&b, g->as != VCC_AS_PRIVATE && g->base ? g->base : g->type);
                sb_add(&b, " __vmgpu_a%u;\n", a);
            }
            sb_add(&b, "};\n");
        }
        if (k->nargs)
            sb_add(&b, "__attribute__((section(\".text.vmgpu_tramp\"))) void __vmgpu_tramp_%s("
                       "__global struct __vmgpu_args_%s *A) {\n  %s(", k->name, k->name, k->name);
        else
            sb_add(&b, "__attribute__((section(\".text.vmgpu_tramp\"))) void __vmgpu_tramp_%s("
                       "__global void *A) {\n  (void)A;\n  %s(", k->name, k->name);
        for (unsigned a = 0; a < k->nargs; a++) sb_add(&b, "%sA->__vmgpu_a%u", a ? ", " : "", a);
        sb_add(&b, ");\n}\n");
        sb_add(&b, "__constant uint __vmgpu_layout_%s[] = {", k->name);
        if (k->nargs) {
            sb_add(&b, "sizeof(struct __vmgpu_args_%s)", k->name);
            for (unsigned a = 0; a < k->nargs; a++)
                sb_add(&b, ", __builtin_offsetof(struct __vmgpu_args_%s, __vmgpu_a%u), sizeof(((__global struct "
                           "__vmgpu_args_%s *)0)->__vmgpu_a%u)",
                       k->name, a, k->name, a);
        } else {
            sb_add(&b, "0");
        }
        sb_add(&b, "};\n");
    }
    return sb_take(&b);
}

/* Reads the layout tables of pass 2's IR into m. */
static int ir_layouts(const char *ir, vcc_meta *m, strbuf *log)
{
    for (unsigned i = 0; i < m->nkernels; i++) {
        vcc_kernel *k = &m->k[i];
        char key[300];
        snprintf(key, sizeof key, "\n@__vmgpu_layout_%s = ", k->name);
        const char *s = strstr(ir, key);
        const char *c = s ? strstr(s, "constant [") : NULL;
        const char *v = c ? strstr(c, "] [") : NULL;
        if (!v) {
            sb_add(log, "vmgpu: kernel %s: no argument layout in the compiled code\n", k->name);
            return -1;
        }
        v += 3;
        uint32_t vals[1 + 2 * 256];
        unsigned n = 0;
        while (n < 1 + 2 * 256 && (v = strstr(v, "i32 ")) && (v < strchr(s + 1, '\n'))) {
            vals[n++] = (uint32_t)strtoul(v + 4, NULL, 10);
            v += 4;
        }
        if (n != 1 + 2 * k->nargs && !(k->nargs == 0 && n == 1)) {
            sb_add(log, "vmgpu: kernel %s: argument layout of %u values for %u arguments\n", k->name, n, k->nargs);
            return -1;
        }
        k->args_bytes = vals[0];
        for (unsigned a = 0; a < k->nargs; a++) {
            k->args[a].offset = vals[1 + 2 * a];
            k->args[a].size = vals[2 + 2 * a];
        }
    }
    return 0;
}

/* Pass 3's input: no spir_kernel calling convention; __local variables in section .shared. */
static char *ir_for_riscv(const char *ir)
{
    strbuf b = {0};
    for (const char *s = ir; *s;) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s + 1) : strlen(s);
        char *line = strndup(s, len);
        char *p;
        while ((p = strstr(line, " spir_kernel "))) memmove(p, p + 12, strlen(p + 12) + 1);
        if (line[0] == '@' && strstr(line, " addrspace(3) global ") && !strstr(line, " section \"")) {
            char *al = strstr(line, ", align ");
            if (al) {
                *al = 0;
                sb_add(&b, "%s, section \".shared\", %s", line, al + 2);
            } else {
                size_t l = strlen(line);
                int nl = l && line[l - 1] == '\n';
                if (nl) line[l - 1] = 0;
                sb_add(&b, "%s, section \".shared\"%s", line, nl ? "\n" : "");
            }
        } else {
            sb_add(&b, "%s", line);
        }
        free(line);
        s += len;
    }
    return sb_take(&b);
}

/* ------------------------------------------------------------------ compile */

static int write_headers(const tmpdir *t, unsigned nh, const char *const *src, const char *const *names)
{
    for (unsigned i = 0; i < nh; i++) {
        if (!names[i] || !src[i] || names[i][0] == '/' || strstr(names[i], "..")) return -1;
        char *path = NULL;
        if (asprintf(&path, "%s/inc/%s", t->path, names[i]) < 0) return -1;
        for (char *p = path + strlen(t->path) + 1; (p = strchr(p, '/')); p++) {
            *p = 0;
            mkdir(path, 0700);
            *p = '/';
        }
        int rc = write_file(path, src[i], strlen(src[i]));
        free(path);
        if (rc) return -1;
    }
    return 0;
}

/* The builtins header's vector section (vector overloads, vload/vstore, convert_) costs clang
 * about 0.4 s of parsing per pass; a program that names no vector type and none of those
 * functions does not need it. Any #include, or a header handed to clCompileProgram, turns it on
 * (what they bring in is not read here). */
static int wants_vectors(const char *src, unsigned nh)
{
    static const char *const words[] = {"char", "short", "int", "long", "float", "half", "double", NULL};
    if (nh || strstr(src, "#include") || strstr(src, "vload") || strstr(src, "vstore") ||
        strstr(src, "convert_") || strstr(src, "select") || strstr(src, "any") || strstr(src, "all("))
        return 1;
    for (const char *p = src; *p; p++) {
        for (int w = 0; words[w]; w++) {
            size_t l = strlen(words[w]);
            if (strncmp(p, words[w], l)) continue;
            const char *q = p + l;
            if (q[0] >= '1' && q[0] <= '9') return 1;  /* float4, uint2, char16, ... */
        }
    }
    return 0;
}

int vcc_compile(const char *src, const char *opts, unsigned nh, const char *const *hdr_src,
                const char *const *hdr_names, vcc_blob *obj, vcc_meta *meta, char **log_out)
{
    strbuf log = {0};
    tmpdir t;
    argv_list user = {0}, a = {0};
    int opt_disable = 0, arg_info = 0, rc = -1;
    char *f_src = NULL, *f_hdr = NULL, *f_p1 = NULL, *f_src2 = NULL, *f_p2 = NULL, *f_p3 = NULL, *f_obj = NULL,
         *f_log = NULL, *gen = NULL, *ir3 = NULL;
    vcc_blob ir1 = {0}, ir2 = {0};
    memset(meta, 0, sizeof *meta);
    memset(obj, 0, sizeof *obj);
    if (tmp_make(&t)) {
        sb_add(&log, "vmgpu: no temporary directory: %s\n", strerror(errno));
        *log_out = sb_take(&log);
        return -1;
    }
    f_src = tmp_file(&t, "program.cl");
    f_hdr = tmp_file(&t, "vmgpu_cl_builtins.h");
    f_p1 = tmp_file(&t, "pass1.ll");
    f_src2 = tmp_file(&t, "pass2.cl");
    f_p2 = tmp_file(&t, "pass2.ll");
    f_p3 = tmp_file(&t, "pass3.ll");
    f_obj = tmp_file(&t, "program.o");
    f_log = tmp_file(&t, "log");
    if (parse_options(opts, 0, &user, &opt_disable, &arg_info, NULL)) {
        sb_add(&log, "vmgpu: invalid options: %s\n", opts);
        goto out;
    }
    if (write_file(f_src, src, strlen(src)) || write_file(f_hdr, k_builtins, strlen(k_builtins)) ||
        write_headers(&t, nh, hdr_src, hdr_names)) {
        sb_add(&log, "vmgpu: cannot write the compiler's input in %s\n", t.path);
        goto out;
    }
    /* Pass 1: diagnostics and metadata. */
    target_args(&a);
    av_add(&a, "-x");
    av_add(&a, "cl");
    av_add(&a, "-Xclang");
    av_add(&a, "-ffake-address-space-map");
    /* The device reports CL_DEVICE_IMAGE_SUPPORT (images as memory objects), and OpenCL C then
     * defines __IMAGE_SUPPORT__ (clang leaves it to the implementation). A kernel that takes an
     * image is still refused by name (check_arg_types). Both found by the CTS's basic
     * kernel_numeric_constants and kernel_preprocessor_macros. */
    av_add(&a, "-D__IMAGE_SUPPORT__=1");
    /* The device's OpenCL version, which clang defines only for SPIR targets. */
    av_add(&a, "-D__OPENCL_VERSION__=120");
    if (wants_vectors(src, nh)) av_add(&a, "-D__VMCL_VECTORS");
    av_add(&a, "-include");
    av_add(&a, f_hdr);
    if (nh) {
        char *inc = tmp_file(&t, "inc");
        av_add(&a, "-I");
        av_add(&a, inc);
        free(inc);
    }
    int common = a.n;
    for (int i = 0; i < user.n; i++) av_add(&a, user.v[i]);
    av_add(&a, "-O0");
    av_add(&a, "-emit-llvm");
    av_add(&a, "-S");
    av_add(&a, "program.cl");  /* relative, run in the directory: the log says program.cl:LINE */
    av_add(&a, "-o");
    av_add(&a, f_p1);
    int st = run_in(a.v, f_log, t.path);
    log_append_file(&log, f_log);
    if (st) {
        if (st < 0) sb_add(&log, "vmgpu: could not run %s\n", clang_path());
        goto out;
    }
    if (read_file(f_p1, &ir1) || ir_kernels((char *)ir1.p, meta, &log) || check_arg_types(meta, &log)) goto out;
    meta->arg_info = arg_info;
    /* Pass 2: the source with the trampolines. */
    gen = trampolines(meta);
    {
        strbuf s2 = {0};
        sb_add(&s2, "#include \"program.cl\"\n%s", gen);
        int w = write_file(f_src2, s2.p, s2.n);
        free(s2.p);
        if (w) goto out;
    }
    while (a.n > common) free(a.v[--a.n]);
    a.v[a.n] = NULL;
    for (int i = 0; i < user.n; i++)
        if (strcmp(user.v[i], "-Werror")) av_add(&a, user.v[i]);
    av_add(&a, opt_disable ? "-O0" : "-O2");
    av_add(&a, "-w");
    av_add(&a, "-emit-llvm");
    av_add(&a, "-S");
    av_add(&a, f_src2);
    av_add(&a, "-o");
    av_add(&a, f_p2);
    st = run(a.v, f_log);
    if (st) {
        sb_add(&log, "vmgpu: the generated kernel entries did not compile:\n");
        log_append_file(&log, f_log);
        goto out;
    }
    unlink(f_log);
    if (read_file(f_p2, &ir2) || ir_layouts((char *)ir2.p, meta, &log)) goto out;
    /* Pass 3: to an object. */
    ir3 = ir_for_riscv((char *)ir2.p);
    if (write_file(f_p3, ir3, strlen(ir3))) goto out;
    av_free(&a);
    target_args(&a);
    av_add(&a, opt_disable ? "-O0" : "-O2");
    av_add(&a, "-fstack-size-section");
    av_add(&a, "-c");
    av_add(&a, f_p3);
    av_add(&a, "-o");
    av_add(&a, f_obj);
    st = run(a.v, f_log);
    if (st) {
        sb_add(&log, "vmgpu: code generation failed:\n");
        log_append_file(&log, f_log);
        goto out;
    }
    if (read_file(f_obj, obj)) goto out;
    rc = 0;
out:
    if (rc) vcc_meta_free(meta);
    tmp_drop(&t);
    av_free(&user);
    av_free(&a);
    free(ir1.p);
    free(ir2.p);
    free(ir3);
    free(gen);
    free(f_src); free(f_hdr); free(f_p1); free(f_src2); free(f_p2); free(f_p3); free(f_obj); free(f_log);
    *log_out = sb_take(&log);
    return rc;
}

/* --------------------------------------------------------------------- link */

static int read_image(const vcc_blob *elf, uint32_t base, vcc_image *img, strbuf *log);

/* One of the link's own parts: text (crt0's assembly, or C when is_c) written to src and compiled
 * for the target into obj; on failure the log says why, after clang's messages. */
static int link_part(const char *src, const char *text, int is_c, const char *obj, const char *f_log, strbuf *log,
                     const char *why)
{
    if (write_file(src, text, strlen(text))) return -1;
    argv_list c = {0};
    target_args(&c);
    if (is_c) {
        av_add(&c, "-O2");
        av_add(&c, "-ffreestanding");
        av_add(&c, "-fno-builtin");
    }
    av_add(&c, "-c");
    av_add(&c, src);
    av_add(&c, "-o");
    av_add(&c, obj);
    int st = run(c.v, f_log);
    av_free(&c);
    if (st) {
        sb_add(log, "vmgpu: %s:\n", why);
        log_append_file(log, f_log);
        return -1;
    }
    return 0;
}

int vcc_link(const vcc_blob *objs, unsigned n, int relocatable, uint32_t base, vcc_blob *out, vcc_image *img,
             char **log_out)
{
    strbuf log = {0};
    tmpdir t;
    argv_list a = {0};
    int rc = -1;
    char *f_crt = NULL, *f_crto = NULL, *f_ld = NULL, *f_out = NULL, *f_log = NULL;
    char *f_sf = NULL, *f_sfo = NULL;
    memset(out, 0, sizeof *out);
    if (tmp_make(&t)) {
        sb_add(&log, "vmgpu: no temporary directory: %s\n", strerror(errno));
        *log_out = sb_take(&log);
        return -1;
    }
    f_crt = tmp_file(&t, "crt0.S");
    f_crto = tmp_file(&t, "crt0.o");
    f_ld = tmp_file(&t, "program.ld");
    f_out = tmp_file(&t, "program.out");
    f_log = tmp_file(&t, "log");
    f_sf = tmp_file(&t, "softfloat.c");
    f_sfo = tmp_file(&t, "softfloat.o");
    av_add(&a, lld_path());
    if (relocatable) {
        av_add(&a, "-r");
    } else {
        char script[sizeof k_ldscript + 64];
        snprintf(script, sizeof script, k_ldscript, base, VMGPU_SIMT_SHARED_BASE);
        if (write_file(f_ld, script, strlen(script)) ||
            link_part(f_crt, k_crt0, 0, f_crto, f_log, &log, "crt0 did not assemble"))
            goto out;
        av_add(&a, "-T");
        av_add(&a, f_ld);
        av_add(&a, "--no-undefined");
        av_add(&a, f_crto);
        if (!vcc_target_has_f()) {
            if (link_part(f_sf, k_softfloat, 1, f_sfo, f_log, &log,
                          "the float helpers (vmgpu_softfloat.c) did not compile"))
                goto out;
            av_add(&a, f_sfo);
        }
    }
    for (unsigned i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "in%u.o", i);
        char *p = tmp_file(&t, name);
        if (write_file(p, objs[i].p, objs[i].n)) {
            free(p);
            goto out;
        }
        av_add(&a, p);
        free(p);
    }
    av_add(&a, "-o");
    av_add(&a, f_out);
    int st = run(a.v, f_log);
    log_append_file(&log, f_log);
    if (st) {
        if (st < 0) sb_add(&log, "vmgpu: could not run %s\n", lld_path());
        goto out;
    }
    if (read_file(f_out, out)) goto out;
    if (!relocatable && read_image(out, base, img, &log)) {
        free(out->p);
        out->p = NULL;
        goto out;
    }
    rc = 0;
out:
    tmp_drop(&t);
    av_free(&a);
    free(f_crt); free(f_crto); free(f_ld); free(f_out); free(f_log); free(f_sf); free(f_sfo);
    *log_out = sb_take(&log);
    return rc;
}

/* ---------------------------------------------------------------------- ELF */

static const Elf32_Ehdr *elf_header(const vcc_blob *b, uint16_t type)
{
    if (!b->p || b->n < sizeof(Elf32_Ehdr)) return NULL;
    const Elf32_Ehdr *h = (const Elf32_Ehdr *)b->p;
    if (memcmp(h->e_ident, ELFMAG, SELFMAG) || h->e_ident[EI_CLASS] != ELFCLASS32 ||
        h->e_ident[EI_DATA] != ELFDATA2LSB || h->e_machine != EM_RISCV || h->e_type != type)
        return NULL;
    if (h->e_shoff > b->n || (uint64_t)h->e_shnum * sizeof(Elf32_Shdr) > b->n - h->e_shoff) return NULL;
    if (h->e_shentsize != sizeof(Elf32_Shdr) || h->e_shstrndx >= h->e_shnum) return NULL;
    if (h->e_phnum && (h->e_phoff > b->n || (uint64_t)h->e_phnum * sizeof(Elf32_Phdr) > b->n - h->e_phoff))
        return NULL;
    return h;
}

static const Elf32_Shdr *elf_sections(const vcc_blob *b, const Elf32_Ehdr *h)
{
    return (const Elf32_Shdr *)(b->p + h->e_shoff);
}

static const Elf32_Shdr *elf_section(const vcc_blob *b, const char *name)
{
    const Elf32_Ehdr *h = elf_header(b, ET_EXEC);
    if (!h) return NULL;
    const Elf32_Shdr *sh = elf_sections(b, h);
    const Elf32_Shdr *str = &sh[h->e_shstrndx];
    for (unsigned i = 0; i < h->e_shnum; i++) {
        if (sh[i].sh_name >= str->sh_size || str->sh_offset + str->sh_size > b->n) continue;
        if (strcmp((const char *)b->p + str->sh_offset + sh[i].sh_name, name) == 0) return &sh[i];
    }
    return NULL;
}

int vcc_is_object(const vcc_blob *b) { return elf_header(b, ET_REL) != NULL; }

uint32_t vcc_symbol(const vcc_blob *elf, const char *name)
{
    const Elf32_Shdr *sym = elf_section(elf, ".symtab"), *str = elf_section(elf, ".strtab");
    if (!sym || !str || sym->sh_offset + sym->sh_size > elf->n || str->sh_offset + str->sh_size > elf->n) return 0;
    const Elf32_Sym *s = (const Elf32_Sym *)(elf->p + sym->sh_offset);
    for (size_t i = 0; i < sym->sh_size / sizeof *s; i++)
        if (s[i].st_name < str->sh_size && strcmp((const char *)elf->p + str->sh_offset + s[i].st_name, name) == 0)
            return s[i].st_value;
    return 0;
}

uint32_t vcc_stack_size(const vcc_blob *elf, uint32_t addr)
{
    const Elf32_Shdr *ss = elf_section(elf, ".stack_sizes");
    if (!ss || ss->sh_offset + ss->sh_size > elf->n) return 0;
    const uint8_t *p = elf->p + ss->sh_offset, *e = p + ss->sh_size;
    while (p + 4 < e) {
        uint32_t a;
        memcpy(&a, p, 4);
        p += 4;
        uint32_t v = 0;
        int sh = 0;
        while (p < e) {
            uint8_t c = *p++;
            v |= (uint32_t)(c & 0x7f) << sh;
            sh += 7;
            if (!(c & 0x80)) break;
        }
        if (a == addr) return v;
    }
    return 0;
}

static int read_image(const vcc_blob *elf, uint32_t base, vcc_image *img, strbuf *log)
{
    memset(img, 0, sizeof *img);
    const Elf32_Ehdr *h = elf_header(elf, ET_EXEC);
    if (!h) {
        sb_add(log, "vmgpu: the linker's output is not a RISC-V executable\n");
        return -1;
    }
    const Elf32_Phdr *ph = (const Elf32_Phdr *)(elf->p + h->e_phoff);
    uint32_t end = base, rw = ~0u;
    for (unsigned i = 0; i < h->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !ph[i].p_memsz) continue;
        if (ph[i].p_vaddr < base || ph[i].p_vaddr >= VMGPU_SIMT_SHARED_BASE) continue;
        if ((ph[i].p_flags & PF_W) && ph[i].p_vaddr < rw) rw = ph[i].p_vaddr;
    }
    /* The image's end from its allocated sections: the linker may put .shared (NOLOAD, at the
     * shared window) into the segment of .data/.bss, whose size then reaches the window. */
    const Elf32_Shdr *sh0 = elf_sections(elf, h);
    for (unsigned i = 0; i < h->e_shnum; i++) {
        if (!(sh0[i].sh_flags & SHF_ALLOC) || !sh0[i].sh_size) continue;
        if (sh0[i].sh_addr < base || sh0[i].sh_addr >= VMGPU_SIMT_SHARED_BASE) continue;
        if (sh0[i].sh_addr + sh0[i].sh_size > end) end = sh0[i].sh_addr + sh0[i].sh_size;
    }
    end = (end + VMGPU_PAGE_SIZE - 1) & ~(VMGPU_PAGE_SIZE - 1);
    img->base = base;
    img->end = end;
    img->rw_begin = rw == ~0u ? end : rw & ~(VMGPU_PAGE_SIZE - 1);
    img->entry = h->e_entry;
    img->bytes = calloc(1, end - base ? end - base : 1);
    if (!img->bytes) return -1;
    for (unsigned i = 0; i < h->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !ph[i].p_filesz) continue;
        if (ph[i].p_vaddr < base || ph[i].p_vaddr + ph[i].p_filesz > end) continue;
        if (ph[i].p_offset > elf->n || ph[i].p_filesz > elf->n - ph[i].p_offset) continue;
        memcpy(img->bytes + (ph[i].p_vaddr - base), elf->p + ph[i].p_offset, ph[i].p_filesz);
    }
    const Elf32_Shdr *sh = elf_section(elf, ".shared");
    img->shared_bytes = sh ? sh->sh_size : 0;
    return 0;
}

/* ----------------------------------------------------------------- metadata */

/* One line per kernel and per argument, fields separated by tabs:
 *   K <name> <nargs> <args_bytes> <reqd x> <reqd y> <reqd z>
 *   A <as> <access> <qual> <offset> <size> <type> <name>          */
char *vcc_meta_text(const vcc_meta *m)
{
    strbuf b = {0};
    sb_add(&b, "I\t%d\n", m->arg_info);
    for (unsigned i = 0; i < m->nkernels; i++) {
        const vcc_kernel *k = &m->k[i];
        sb_add(&b, "K\t%s\t%u\t%u\t%u\t%u\t%u\n", k->name, k->nargs, k->args_bytes, k->reqd[0], k->reqd[1], k->reqd[2]);
        for (unsigned a = 0; a < k->nargs; a++) {
            const vcc_arg *g = &k->args[a];
            sb_add(&b, "A\t%u\t%u\t%u\t%u\t%u\t%s\t%s\n", g->as, g->access, g->qual, g->offset, g->size, g->type,
                   g->name);
        }
    }
    return sb_take(&b);
}

static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    for (char *s = line; n < max;) {
        f[n++] = s;
        char *t = strchr(s, '\t');
        if (!t) break;
        *t = 0;
        s = t + 1;
    }
    return n;
}

static int ident_ok(const char *s)
{
    if (!*s || strlen(s) > 200) return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
            return 0;
    return 1;
}

int vcc_meta_parse(const char *text, vcc_meta *m)
{
    memset(m, 0, sizeof *m);
    char *copy = strdup(text), *save = NULL;
    int bad = !copy;
    unsigned want_args = 0;
    vcc_kernel *k = NULL;
    for (char *line = copy ? strtok_r(copy, "\n", &save) : NULL; !bad && line; line = strtok_r(NULL, "\n", &save)) {
        char *f[8];
        int n = split_tabs(line, f, 8);
        if (n == 2 && strcmp(f[0], "I") == 0) {
            m->arg_info = atoi(f[1]) != 0;
        } else if (n == 7 && strcmp(f[0], "K") == 0) {
            if (k && k->nargs != want_args) { bad = 1; break; }
            unsigned na = (unsigned)strtoul(f[2], NULL, 10);
            if (!ident_ok(f[1]) || na > 256) { bad = 1; break; }
            m->k = realloc(m->k, (m->nkernels + 1) * sizeof *m->k);
            k = &m->k[m->nkernels++];
            memset(k, 0, sizeof *k);
            k->name = strdup(f[1]);
            want_args = na;
            k->args = calloc(na ? na : 1, sizeof *k->args);
            k->args_bytes = (uint32_t)strtoul(f[3], NULL, 10);
            for (int d = 0; d < 3; d++) k->reqd[d] = (uint32_t)strtoul(f[4 + d], NULL, 10);
            if (k->args_bytes > 4096 - VCC_ARGS_OFFSET) bad = 1;
        } else if (n == 8 && strcmp(f[0], "A") == 0) {
            if (!k || k->nargs >= want_args) { bad = 1; break; }
            vcc_arg *g = &k->args[k->nargs++];
            g->as = (unsigned)strtoul(f[1], NULL, 10);
            g->access = (unsigned)strtoul(f[2], NULL, 10);
            g->qual = (unsigned)strtoul(f[3], NULL, 10);
            g->offset = (uint32_t)strtoul(f[4], NULL, 10);
            g->size = (uint32_t)strtoul(f[5], NULL, 10);
            g->type = strdup(f[6]);
            g->name = strdup(f[7]);
            if (g->as > 3 || g->offset + g->size > k->args_bytes || (g->as && g->as != 3 && g->size != 4)) bad = 1;
        } else {
            bad = 1;
        }
    }
    if (k && k->nargs != want_args) bad = 1;
    free(copy);
    if (bad) vcc_meta_free(m);
    return bad ? -1 : 0;
}

static int kernel_copy(vcc_kernel *d, const vcc_kernel *s)
{
    *d = *s;
    d->name = strdup(s->name);
    d->args = calloc(s->nargs ? s->nargs : 1, sizeof *d->args);
    for (unsigned a = 0; a < s->nargs; a++) {
        d->args[a] = s->args[a];
        d->args[a].type = strdup(s->args[a].type);
        d->args[a].name = strdup(s->args[a].name);
        d->args[a].base = NULL;
    }
    return 0;
}

int vcc_meta_merge(vcc_meta *into, const vcc_meta *from)
{
    for (unsigned i = 0; i < from->nkernels; i++)
        for (unsigned j = 0; j < into->nkernels; j++)
            if (strcmp(from->k[i].name, into->k[j].name) == 0) return -1;
    into->k = realloc(into->k, (into->nkernels + from->nkernels + 1) * sizeof *into->k);
    for (unsigned i = 0; i < from->nkernels; i++) kernel_copy(&into->k[into->nkernels++], &from->k[i]);
    return 0;
}

void vcc_meta_free(vcc_meta *m)
{
    for (unsigned i = 0; i < m->nkernels; i++) {
        for (unsigned a = 0; a < m->k[i].nargs; a++) {
            free(m->k[i].args[a].type);
            free(m->k[i].args[a].name);
            free(m->k[i].args[a].base);
        }
        free(m->k[i].args);
        free(m->k[i].name);
    }
    free(m->k);
    memset(m, 0, sizeof *m);
}
