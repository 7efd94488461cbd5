/*
 * libglvnd's EGL vendor ABI (0.2), spoken by hand to one vendor library (libEGL_nvidia.so.0,
 * libEGL_mesa.so.0) for machines that carry a vendor's libraries but not libglvnd's libEGL.so.1.
 * Shared by gl_interop_probe.c (its fallback when no libEGL.so.1 loads) and egl_shim.c (a
 * libEGL.so.1 of its own, so that libraries that dlopen libEGL.so.1, such as NVIDIA's libcuda
 * during cuGraphicsGLRegister*, find the current context).
 *
 * The layouts follow include/glvnd/libeglabi.h: __egl_Main(version, exports, vendor, imports)
 * with version = major << 16 | minor; the vendor keeps the exports pointer and fills in the
 * imports. Field order and types must match exactly; the vendor never looks inside the opaque
 * vendor handle. EGLBoolean and EGLenum are 32-bit unsigned.
 *
 * Everything here is static: each includer gets its own dispatcher state.
 */
#ifndef VMGPU_EGL_VENDOR_H
#define VMGPU_EGL_VENDOR_H

#include <dlfcn.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *EGLDisplay, *EGLConfig, *EGLSurface, *EGLContext, *EGLDeviceEXT, *EGLSync, *EGLImage;
typedef void *EGLClientBuffer;
typedef int EGLint;
typedef unsigned EGLBoolean, EGLenum;
typedef intptr_t EGLAttrib;
typedef uint64_t EGLTime;

#define EGL_NONE 0x3038
#define EGL_SUCCESS 0x3000
#define EGL_NOT_INITIALIZED 0x3001
#define EGL_BAD_DISPLAY 0x3008
#define EGL_BAD_PARAMETER 0x300C
#define EGL_SURFACE_TYPE 0x3033
#define EGL_PBUFFER_BIT 0x0001
#define EGL_RENDERABLE_TYPE 0x3040
#define EGL_OPENGL_BIT 0x0008
#define EGL_WIDTH 0x3057
#define EGL_HEIGHT 0x3056
#define EGL_OPENGL_API 0x30A2
#define EGL_OPENGL_ES_API 0x30A0
#define EGL_PLATFORM_DEVICE_EXT 0x313F
#define EGL_DRAW 0x3059
#define EGL_READ 0x305A
#define EGL_VENDOR 0x3053
#define EGL_VERSION 0x3054
#define EGL_EXTENSIONS 0x3055
#define EGL_CLIENT_APIS 0x308D

#define VND_FN static __attribute__((unused))
#define VND_AS(type, p) ((type)(uintptr_t)(p))

typedef void (*vnd_proc)(void);

struct vnd_exports {
    void (*threadInit)(void);
    EGLenum (*getCurrentApi)(void);
    void *(*getCurrentVendor)(void);
    EGLContext (*getCurrentContext)(void);
    EGLDisplay (*getCurrentDisplay)(void);
    EGLSurface (*getCurrentSurface)(EGLint readDraw);
    vnd_proc (*fetchDispatchEntry)(void *vendor, int index);
    void (*setEGLError)(EGLint error);
    EGLBoolean (*setLastVendor)(void *vendor);
    void *(*getVendorFromDisplay)(EGLDisplay dpy);
    void *(*getVendorFromDevice)(EGLDeviceEXT dev);
    EGLBoolean (*setVendorForDevice)(EGLDeviceEXT dev, void *vendor); /* since 0.2 */
};

struct vnd_imports {
    EGLDisplay (*getPlatformDisplay)(EGLenum platform, void *native, const EGLAttrib *attrs);
    EGLBoolean (*getSupportsAPI)(EGLenum api);
    const char *(*getVendorString)(int name);
    void *(*getProcAddress)(const char *name);
    void *(*getDispatchAddress)(const char *name);
    void (*setDispatchIndex)(const char *name, int index);
    unsigned char (*isPatchSupported)(int type, int stubSize);
    unsigned char (*initiatePatch)(int type, int stubSize, void *lookupStubOffset);
    void (*releasePatch)(void);
    void (*patchThreadAttach)(void);
    EGLenum (*findNativeDisplayPlatform)(void *native);
    /* Room in case a vendor writes fields newer than the version it was offered. */
    void *spare[32];
};

typedef EGLBoolean (*vnd_main_fn)(uint32_t version, const struct vnd_exports *exports, void *vendor,
                                  struct vnd_imports *imports);

/* The dispatcher's per-thread state: what the vendor asks back through the exports and what
 * eglGetCurrent* answer. glvnd's default client API is OpenGL ES until eglBindAPI. */
static _Thread_local struct {
    EGLenum api;
    void *vendor;
    EGLDisplay dpy;
    EGLSurface draw, read;
    EGLContext ctx;
    EGLint error;
} vnd_thread __attribute__((unused)) = {EGL_OPENGL_ES_API, NULL, NULL, NULL, NULL, NULL, EGL_SUCCESS};

#define VND_MAX_DISPATCH 128

static struct {
    void *self[64]; /* the opaque vendor handle: only its address matters */
    struct vnd_imports im;
    uint32_t abi;   /* the version __egl_Main accepted */
    char name[256]; /* the vendor library as opened */
    int lock;       /* guards the tables below (a spin lock: no libpthread needed) */
    EGLDisplay displays[64];
    int ndisplays;
    EGLDeviceEXT devices[32];
    int ndevices;
    char *dispatch_names[VND_MAX_DISPATCH]; /* index handed to the vendor's setDispatchIndex */
    int ndispatch;
    EGLBoolean (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
    EGLBoolean (*BindAPI)(EGLenum);
    EGLBoolean (*QueryDevicesEXT)(EGLint, EGLDeviceEXT *, EGLint *);
    const char *(*QueryString)(EGLDisplay, EGLint);
    EGLint (*GetError)(void);
} vnd __attribute__((unused));

VND_FN void vnd_lock(void)
{
    while (__atomic_exchange_n(&vnd.lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}
VND_FN void vnd_unlock(void) { __atomic_store_n(&vnd.lock, 0, __ATOMIC_RELEASE); }

VND_FN void vx_thread_init(void) {}
VND_FN EGLenum vx_current_api(void) { return vnd_thread.api; }
VND_FN void *vx_current_vendor(void) { return vnd_thread.vendor; }
VND_FN EGLContext vx_current_context(void) { return vnd_thread.ctx; }
VND_FN EGLDisplay vx_current_display(void) { return vnd_thread.dpy; }
VND_FN EGLSurface vx_current_surface(EGLint which)
{
    return which == EGL_DRAW ? vnd_thread.draw : which == EGL_READ ? vnd_thread.read : NULL;
}
/* A vendor's dispatch stub (from getDispatchAddress) asks for its implementation by the index
 * that setDispatchIndex gave it; like glvnd, answer with the vendor's getProcAddress of the name. */
VND_FN vnd_proc vx_fetch_dispatch(void *vendor, int index)
{
    if (vendor != (void *)vnd.self || index < 0) return NULL;
    vnd_lock();
    const char *name = index < vnd.ndispatch ? vnd.dispatch_names[index] : NULL;
    vnd_unlock();
    return name && vnd.im.getProcAddress ? VND_AS(vnd_proc, vnd.im.getProcAddress(name)) : NULL;
}
VND_FN void vx_set_error(EGLint error) { vnd_thread.error = error; }
VND_FN EGLBoolean vx_set_last_vendor(void *vendor) { return vendor == (void *)vnd.self; }
VND_FN void *vx_vendor_from_display(EGLDisplay dpy)
{
    void *v = NULL;
    vnd_lock();
    for (int i = 0; i < vnd.ndisplays && dpy; i++)
        if (vnd.displays[i] == dpy) v = vnd.self;
    vnd_unlock();
    return v;
}
VND_FN EGLBoolean vx_set_vendor_for_device(EGLDeviceEXT dev, void *vendor)
{
    if (!dev || vendor != (void *)vnd.self) return 0;
    EGLBoolean ok = 0;
    vnd_lock();
    for (int i = 0; i < vnd.ndevices; i++)
        if (vnd.devices[i] == dev) ok = 1;
    if (!ok && vnd.ndevices < (int)(sizeof vnd.devices / sizeof vnd.devices[0])) {
        vnd.devices[vnd.ndevices++] = dev;
        ok = 1;
    }
    vnd_unlock();
    return ok;
}
VND_FN void *vx_vendor_from_device(EGLDeviceEXT dev)
{
    void *v = NULL;
    vnd_lock();
    for (int i = 0; i < vnd.ndevices && dev; i++)
        if (vnd.devices[i] == dev) v = vnd.self;
    vnd_unlock();
    return v;
}

/* Entries past 0.2's end answer NULL / 0, in case a vendor accepts only a newer minor and calls
 * callbacks not known here (then the caller's message says which version it took). */
VND_FN void *vx_null(void) { return NULL; }
#define VX_NULL ((vnd_proc)(uintptr_t)vx_null)
static const struct {
    struct vnd_exports e;
    vnd_proc later[16];
} vnd_exports __attribute__((unused)) = {
    {vx_thread_init, vx_current_api, vx_current_vendor, vx_current_context, vx_current_display,
     vx_current_surface, vx_fetch_dispatch, vx_set_error, vx_set_last_vendor, vx_vendor_from_display,
     vx_vendor_from_device, vx_set_vendor_for_device},
    {VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL,
     VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL},
};

VND_FN void vnd_add_display(EGLDisplay d)
{
    if (!d || vx_vendor_from_display(d)) return;
    vnd_lock();
    if (vnd.ndisplays < (int)(sizeof vnd.displays / sizeof vnd.displays[0])) vnd.displays[vnd.ndisplays++] = d;
    vnd_unlock();
}

/* The vendor's dispatch stub for an EGL extension function, with its index handed out (what
 * glvnd's eglGetProcAddress does for names it does not implement itself). NULL if none. */
VND_FN void *vnd_dispatch_address(const char *name)
{
    if (!name || !vnd.im.getDispatchAddress) return NULL;
    void *stub = vnd.im.getDispatchAddress(name);
    if (!stub) return NULL;
    int index = -1, fresh = 0;
    vnd_lock();
    for (int i = 0; i < vnd.ndispatch; i++)
        if (!strcmp(vnd.dispatch_names[i], name)) index = i;
    if (index < 0 && vnd.ndispatch < VND_MAX_DISPATCH) {
        char *copy = strdup(name);
        if (copy) {
            index = vnd.ndispatch;
            vnd.dispatch_names[vnd.ndispatch++] = copy;
            fresh = 1;
        }
    }
    vnd_unlock();
    if (index < 0) return NULL; /* a stub without an index would fetch nothing */
    if (fresh && vnd.im.setDispatchIndex) vnd.im.setDispatchIndex(name, index);
    return stub;
}

/* Loads the vendor and runs the ABI handshake; fills vnd. 0 on success, else -1 with why. */
VND_FN int vnd_load(const char *name, char *why, size_t whylen)
{
    void *lib = dlopen(name, RTLD_LAZY);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, whylen, "%s did not load: %s", name, e ? e : "?");
        return -1;
    }
    vnd_main_fn vmain = VND_AS(vnd_main_fn, dlsym(lib, "__egl_Main"));
    if (!vmain) {
        snprintf(why, whylen, "%s has no __egl_Main (not a glvnd EGL vendor library)", name);
        return -1;
    }
    /* libglvnd's current ABI is 0.2 (it added setVendorForDevice). Older minors next; then, only
     * to name what a refusing vendor wants, newer minors and major 1. */
    uint32_t versions[3 + 13 + 4] = {0x00000002u, 0x00000001u, 0x00000000u};
    for (int i = 0; i < 13; i++) versions[3 + i] = (uint32_t)(3 + i);
    for (int i = 0; i < 4; i++) versions[16 + i] = 0x00010000u | (uint32_t)i;
    int ok = 0;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0] && !ok; i++) {
        memset(&vnd.im, 0, sizeof vnd.im);
        ok = vmain(versions[i], &vnd_exports.e, vnd.self, &vnd.im) != 0;
        vnd.abi = versions[i];
    }
    if (!ok) {
        snprintf(why, whylen, "%s's __egl_Main refused every EGL vendor ABI version tried (0.0 to 0.15, 1.0 to 1.3)", name);
        return -1;
    }
    snprintf(vnd.name, sizeof vnd.name, "%s", name);
    if (!vnd.im.getPlatformDisplay || !vnd.im.getSupportsAPI || !vnd.im.getProcAddress) {
        snprintf(why, whylen, "%s (ABI %u.%u) left a required import empty (getPlatformDisplay %p, getSupportsAPI %p, getProcAddress %p)",
                 name, (unsigned)(vnd.abi >> 16), (unsigned)(vnd.abi & 0xffff),
                 (void *)(uintptr_t)vnd.im.getPlatformDisplay, (void *)(uintptr_t)vnd.im.getSupportsAPI,
                 (void *)(uintptr_t)vnd.im.getProcAddress);
        return -1;
    }
    vnd.MakeCurrent = VND_AS(EGLBoolean(*)(EGLDisplay, EGLSurface, EGLSurface, EGLContext), vnd.im.getProcAddress("eglMakeCurrent"));
    vnd.GetError = VND_AS(EGLint(*)(void), vnd.im.getProcAddress("eglGetError"));
    vnd.BindAPI = VND_AS(EGLBoolean(*)(EGLenum), vnd.im.getProcAddress("eglBindAPI"));
    vnd.QueryDevicesEXT = VND_AS(EGLBoolean(*)(EGLint, EGLDeviceEXT *, EGLint *), vnd.im.getProcAddress("eglQueryDevicesEXT"));
    vnd.QueryString = VND_AS(const char *(*)(EGLDisplay, EGLint), vnd.im.getProcAddress("eglQueryString"));
    if (!vnd.MakeCurrent || !vnd.GetError) {
        snprintf(why, whylen, "%s's getProcAddress has no %s", name, vnd.MakeCurrent ? "eglGetError" : "eglMakeCurrent");
        return -1;
    }
    return 0;
}

/* What libEGL's entry points do before and after reaching the vendor, reduced to one vendor:
 * remember displays and devices, keep the client API, keep the current objects. */
VND_FN EGLDisplay vnd_get_platform_display(EGLenum platform, void *native, const EGLAttrib *attrs)
{
    EGLDisplay d = vnd.im.getPlatformDisplay(platform, native, attrs);
    vnd_add_display(d);
    return d;
}
/* eglGetDisplay reaches a vendor as platform EGL_NONE. */
VND_FN EGLDisplay vnd_get_display(void *native) { return vnd_get_platform_display(EGL_NONE, native, NULL); }
/* EGLint attribute lists (the EXT entry point) widened to EGLAttrib, as glvnd does. */
VND_FN EGLDisplay vnd_get_platform_display_int(EGLenum platform, void *native, const EGLint *attrs)
{
    EGLAttrib a[64];
    int n = 0;
    if (attrs) {
        while (attrs[n] != EGL_NONE && n < 62) a[n] = attrs[n], n++;
        if (n & 1) n--; /* a key without its value ends the list */
        a[n] = EGL_NONE;
    }
    return vnd_get_platform_display(platform, native, attrs ? a : NULL);
}
VND_FN EGLBoolean vnd_query_devices(EGLint max, EGLDeviceEXT *devs, EGLint *n)
{
    if (!vnd.QueryDevicesEXT) {
        vnd_thread.error = EGL_BAD_DISPLAY;
        return 0;
    }
    if (!vnd.QueryDevicesEXT(max, devs, n)) return 0;
    for (EGLint i = 0; devs && n && i < *n && i < max; i++) vx_set_vendor_for_device(devs[i], vnd.self);
    return 1;
}
VND_FN EGLBoolean vnd_bind_api(EGLenum api)
{
    if (!vnd.im.getSupportsAPI(api)) {
        vnd_thread.error = EGL_BAD_PARAMETER;
        return 0;
    }
    vnd_thread.api = api;
    if (vnd.BindAPI) vnd.BindAPI(api);
    return 1;
}
VND_FN EGLBoolean vnd_make_current(EGLDisplay d, EGLSurface draw, EGLSurface read, EGLContext c)
{
    if (!c) {
        /* Release: glvnd succeeds at once when nothing is current, else asks the vendor to lose
         * the context on the display it was made current with. */
        if (!vnd_thread.ctx) return 1;
        if (!vnd.MakeCurrent(d ? d : vnd_thread.dpy, NULL, NULL, NULL)) return 0;
        vnd_thread.vendor = NULL;
        vnd_thread.dpy = vnd_thread.draw = vnd_thread.read = vnd_thread.ctx = NULL;
        return 1;
    }
    /* glvnd makes the vendor current before calling it, and records the objects after. */
    void *old_vendor = vnd_thread.vendor;
    vnd_thread.vendor = vnd.self;
    if (!vnd.MakeCurrent(d, draw, read, c)) {
        vnd_thread.vendor = old_vendor;
        return 0;
    }
    vnd_thread.dpy = d;
    vnd_thread.draw = draw;
    vnd_thread.read = read;
    vnd_thread.ctx = c;
    return 1;
}
VND_FN EGLint vnd_get_error(void)
{
    EGLint e = vnd.GetError();
    if (e == EGL_SUCCESS) e = vnd_thread.error;
    vnd_thread.error = EGL_SUCCESS;
    return e;
}

#endif
