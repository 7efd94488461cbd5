/* The driver core's status names, its trace switch and the failure helpers every other
 * file of the core uses (the bottom of sw/core: it calls nothing of the rest). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"

/* ------------------------------------------------------------------ errors, trace */

const char *vmgpu_status_name(int s)
{
    switch (s) {
    case VMGPU_OK: return "VMGPU_OK";
    case VMGPU_ERR_INVALID: return "VMGPU_ERR_INVALID";
    case VMGPU_ERR_NOMEM: return "VMGPU_ERR_NOMEM";
    case VMGPU_ERR_NOVA: return "VMGPU_ERR_NOVA";
    case VMGPU_ERR_OVERLAP: return "VMGPU_ERR_OVERLAP";
    case VMGPU_ERR_NOT_MAPPED: return "VMGPU_ERR_NOT_MAPPED";
    case VMGPU_ERR_FAULT: return "VMGPU_ERR_FAULT";
    case VMGPU_ERR_TIMEOUT: return "VMGPU_ERR_TIMEOUT";
    case VMGPU_ERR_IO: return "VMGPU_ERR_IO";
    case VMGPU_ERR_NODEV: return "VMGPU_ERR_NODEV";
    case VMGPU_ERR_CTX_FAULTED: return "VMGPU_ERR_CTX_FAULTED";
    case VMGPU_ERR_BUSY: return "VMGPU_ERR_BUSY";
    case VMGPU_ERR_NOT_READY: return "VMGPU_ERR_NOT_READY";
    case VMGPU_ERR_NOT_FOUND: return "VMGPU_ERR_NOT_FOUND";
    default: return "VMGPU_ERR_?";
    }
}

static int trace_state = -1;  /* -1: not read from the environment yet */

int vmgpu_trace_enabled(void)
{
    if (trace_state < 0) {
        const char *e = getenv("VMGPU_TRACE");
        trace_state = (e && *e && strcmp(e, "0") != 0) ? 1 : 0;
    }
    return trace_state;
}

void vmgpu_set_trace(int on) { trace_state = on ? 1 : 0; }

void core_trace(const char *fmt, ...)
{
    if (!vmgpu_trace_enabled()) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("[vmgpu] ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int core_fail(vmgpu_dev *dev, int status, const char *fmt, ...)
{
    if (dev) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(dev->err, sizeof dev->err, fmt, ap);
        va_end(ap);
        core_trace("error %s: %s", vmgpu_status_name(status), dev->err);
    }
    return status;
}

int core_hal_err(vmgpu_dev *dev, int rc, const char *what)
{
    /* The transport's own message names the device, the request and the tries. */
    const char *why = vmgpu_hal_last_error(dev->hal);
    return core_fail(dev, rc == VMGPU_HAL_ETIMEDOUT ? VMGPU_ERR_TIMEOUT : VMGPU_ERR_IO,
                     "transport: %s failed (%s)%s%s", what, vmgpu_hal_status_name(rc),
                     why && *why ? ": " : "", why ? why : "");
}

const char *vmgpu_dev_last_error(const vmgpu_dev *dev) { return dev ? dev->err : ""; }
