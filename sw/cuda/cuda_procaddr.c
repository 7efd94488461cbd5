/*
 * cuGetProcAddress, cuGetProcAddress_v2 (+ _ptsz) and cuGetExportTable: how clients that resolve
 * the driver at run time (NVIDIA's cuda-bindings, the CUDA runtime) find vmgpu's entry points.
 *
 * A client asks for a call by its plain name ("cuMemAlloc", never "cuMemAlloc_v2") and says which
 * CUDA version it was written for; the driver answers with the newest variant of that call that
 * the version knows (cuCtxCreate at 11040 -> cuCtxCreate_v3, at 12050 and later -> cuCtxCreate_v4),
 * and with the per-thread-default-stream flag, the _ptds/_ptsz variant where one exists. The
 * variants and the versions that introduced them are NVIDIA's, recorded on the GPU machine
 * (procaddr_table.h, generated); what vmgpu adds is whether it exports the symbol. Answers that
 * are not in the table were measured on NVIDIA too (driver 580.159.04, tests/cuda/procaddr/):
 *   - a name that is not a call (or is a suffixed symbol name): CUDA_SUCCESS, status
 *     CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND, *pfn = NULL (the legacy 4-argument form: NOT_FOUND);
 *   - a version older than the call's first variant: CUDA_SUCCESS, status
 *     CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT, *pfn = NULL (legacy form: NOT_FOUND);
 *   - a version newer than the driver's (13000): INVALID_VALUE, nothing written;
 *   - -1 (any negative version): the newest variant;
 *   - flags other than the three CU_GET_PROC_ADDRESS_* bits: INVALID_VALUE, nothing written;
 *   - NULL symbol or NULL pfn: NVIDIA crashes; vmgpu answers INVALID_VALUE;
 *   - no cuInit needed.
 * A call NVIDIA has and vmgpu does not implement answers SYMBOL_NOT_FOUND, as a driver too old
 * for it would: clients then report the call as unavailable instead of calling a stub.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "cuda_priv.h"

#define VMGPU_DRIVER_VERSION 13000

typedef struct {
    const char *name;
    int version;
    const char *legacy;   /* symbol for the default/legacy-stream lookup, NULL: none */
    const char *ptds;     /* symbol for the per-thread-default-stream lookup, NULL: none */
} procaddr_row;

static const procaddr_row g_rows[] = {
#include "procaddr_table.h"
};
#define NROWS (sizeof g_rows / sizeof g_rows[0])

/* This library's own handle: symbols are looked up in libcuda itself, never in a library that
 * happens to be loaded beside it. */
static void *own_handle(void)
{
    static void *handle;
    if (!handle) {
        Dl_info info;
        if (dladdr((void *)&own_handle, &info) && info.dli_fname)
            handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    }
    return handle;
}

/* The symbol name for (name, version, per_thread), or NULL with *status saying why. */
static const char *resolve(const char *name, unsigned version, int per_thread,
                           CUdriverProcAddressQueryResult *status)
{
    const procaddr_row *best = NULL;
    int known = 0;
    for (size_t i = 0; i < NROWS; i++) {
        const procaddr_row *r = &g_rows[i];
        const char *sym = per_thread ? r->ptds : r->legacy;
        if (strcmp(r->name, name) != 0 || !sym) continue;
        known = 1;
        if ((unsigned)r->version <= version && (!best || r->version > best->version)) best = r;
    }
    if (!best) {
        *status = known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return NULL;
    }
    *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return per_thread ? best->ptds : best->legacy;
}

static CUresult get_proc_address(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                 CUdriverProcAddressQueryResult *symbolStatus, int default_per_thread)
{
    const cuuint64_t known_flags = CU_GET_PROC_ADDRESS_LEGACY_STREAM |
                                   CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
    if (flags & ~known_flags) return CUDA_ERROR_INVALID_VALUE;
    if (cudaVersion > VMGPU_DRIVER_VERSION) return CUDA_ERROR_INVALID_VALUE;
    int per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) ||
                     (flags == CU_GET_PROC_ADDRESS_DEFAULT && default_per_thread);
    /* A negative version (NVIDIA: -1 measured) asks for the newest variant. */
    unsigned version = cudaVersion < 0 ? ~0u : (unsigned)cudaVersion;
    CUdriverProcAddressQueryResult st;
    const char *sym = resolve(symbol, version, per_thread, &st);
    void *p = NULL;
    if (sym) {
        void *h = own_handle();
        p = h ? dlsym(h, sym) : NULL;
        if (!p) st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    }
    cu_trace("cuGetProcAddress %s version %d flags %llu -> %s (%s)", symbol, cudaVersion,
             (unsigned long long)flags, p ? sym : "none",
             st == CU_GET_PROC_ADDRESS_SUCCESS ? "found"
             : st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT ? "version not sufficient" : "not found");
    *pfn = p;
    if (symbolStatus) *symbolStatus = st;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult *symbolStatus)
{
    return get_proc_address(symbol, pfn, cudaVersion, flags, symbolStatus, 0);
}

/* What a program built with CUDA_API_PER_THREAD_DEFAULT_STREAM calls: its default lookups find
 * the per-thread variants. */
CUresult CUDAAPI cuGetProcAddress_v2_ptsz(const char *symbol, void **pfn, int cudaVersion,
                                          cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    return get_proc_address(symbol, pfn, cudaVersion, flags, symbolStatus, 1);
}

/* The 11.3 form: no status; whatever is not found is CUDA_ERROR_NOT_FOUND, pfn left alone. */
#undef cuGetProcAddress
CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    void *p = NULL;
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult rc = get_proc_address(symbol, &p, cudaVersion, flags, &st, 0);
    if (rc) return rc;
    if (st != CU_GET_PROC_ADDRESS_SUCCESS) return CUDA_ERROR_NOT_FOUND;
    *pfn = p;
    return CUDA_SUCCESS;
}

/* vmgpu has no private export tables (they are NVIDIA's undocumented interfaces between its
 * driver and runtime). NVIDIA answers an unknown table id with INVALID_VALUE and *ppExportTable
 * = NULL, a NULL output with INVALID_VALUE, a NULL id with INVALID_VALUE and the output untouched. */
CUresult CUDAAPI cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    if (!ppExportTable || !pExportTableId) return CUDA_ERROR_INVALID_VALUE;
    *ppExportTable = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}
