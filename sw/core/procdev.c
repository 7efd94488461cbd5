/*
 * The process's device: one vmgpu_dev shared by the front ends linked into one library (libcuda
 * holds CUDA and the vgfx graphics API), as a graphics driver and CUDA share one GPU through one
 * kernel driver. Whichever front end needs it first opens it (VMGPU_DEVICE); it is closed when
 * the process exits. One lock serialises the front ends' calls: the core is not thread-safe.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core_internal.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static vmgpu_dev *g_dev;

void vmgpu_process_lock(void) { pthread_mutex_lock(&g_lock); }
void vmgpu_process_unlock(void) { pthread_mutex_unlock(&g_lock); }
int vmgpu_process_trylock(void) { return pthread_mutex_trylock(&g_lock); }

static void close_at_exit(void)
{
    /* Close the device (the server sees the client go; waveform files are finished) unless a
     * thread still holds it. */
    if (pthread_mutex_trylock(&g_lock) != 0) return;
    vmgpu_dev *dev = g_dev;
    g_dev = NULL;
    if (dev) vmgpu_dev_close(dev);
    pthread_mutex_unlock(&g_lock);
}

vmgpu_dev *vmgpu_process_dev(char *err, size_t errlen)
{
    static int atexit_set;
    if (g_dev) return g_dev;
    if (err && errlen) err[0] = 0;
    int rc = vmgpu_dev_open(NULL, &g_dev, err, errlen);
    if (rc) {
        if (err && errlen && !err[0]) snprintf(err, errlen, "%s", vmgpu_status_name(rc));
        g_dev = NULL;
        return NULL;
    }
    if (!atexit_set) {
        atexit(close_at_exit);
        atexit_set = 1;
    }
    return g_dev;
}

void vmgpu_process_dev_close(void)
{
    vmgpu_dev *dev = g_dev;
    g_dev = NULL;
    if (dev) vmgpu_dev_close(dev);
}
