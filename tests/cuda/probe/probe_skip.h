/* PROBE_SKIP="case|case": the cases a probe prints as SKIPPED instead of calling, so that one
 * that crashes a driver can be stepped over and the cases after it still get recorded
 * (record_nvidia.py sets it). Shared by the CUDA probe and the GL interop probe. */
#ifndef VMGPU_PROBE_SKIP_H
#define VMGPU_PROBE_SKIP_H
#include <stdlib.h>
#include <string.h>

static int skipped(const char *name)
{
    const char *list = getenv("PROBE_SKIP");
    size_t n = strlen(name);
    while (list && *list) {
        const char *end = strchr(list, '|');
        size_t len = end ? (size_t)(end - list) : strlen(list);
        if (len == n && strncmp(list, name, n) == 0) return 1;
        list = end ? end + 1 : NULL;
    }
    return 0;
}
#endif
