/*
 * A stand-in libEGL.so.1 (and, built with -DEGL_SHIM_GLX, a stand-in libGL.so.1) for machines
 * that carry NVIDIA's driver libraries but not libglvnd. NVIDIA's libcuda dlopens libEGL.so.1
 * and libGL.so.1 during cuGraphicsGLRegister* to find the current GL context; without them it
 * answers CUDA_ERROR_OPERATING_SYSTEM. These shims are found instead through LD_LIBRARY_PATH:
 *
 *     gcc -O1 -shared -fPIC -o D/libEGL.so.1 tests/gfx/probe/egl_shim.c -ldl
 *     gcc -O1 -shared -fPIC -DEGL_SHIM_GLX -o D/libGL.so.1 tests/gfx/probe/egl_shim.c -ldl
 *     LD_LIBRARY_PATH=D:/usr/local/nvidia/lib64 EGL_SHIM_TRACE=1 ./gl_interop_probe
 *
 * libEGL.so.1 is a dispatcher for one vendor (egl_vendor.h): it loads $EGL_SHIM_VENDOR, else
 * $GL_PROBE_EGL_VENDOR, else libEGL_nvidia.so.0, exports EGL 1.5's entry points by name, keeps
 * the current context, display and surfaces per thread, and answers eglGetProcAddress with its
 * own entry points first, then the vendor's functions, then the vendor's dispatch stubs.
 *
 * libGL.so.1 is what libglvnd's libGL.so.1 would say while an EGL context is current: no GLX
 * context (glXGetCurrentContext is NULL), GL functions from the current context. Its GL entry
 * points are x86-64 trampolines resolved on first call through libEGL.so.1's eglGetProcAddress,
 * since libcuda may look GL functions up by name in either library.
 *
 * EGL_SHIM_TRACE=1 logs to stderr every exported function called (with its result where that
 * says something) and every name asked of eglGetProcAddress / glXGetProcAddress(ARB).
 * Nothing here aborts: an entry point that cannot reach the vendor logs why and answers failure.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHIM_EXPORT __attribute__((visibility("default")))

static int shim_trace_level = -1;

static int shim_tracing(void)
{
    int t = __atomic_load_n(&shim_trace_level, __ATOMIC_RELAXED);
    if (t < 0) {
        const char *e = getenv("EGL_SHIM_TRACE");
        t = e && *e && strcmp(e, "0") != 0;
        __atomic_store_n(&shim_trace_level, t, __ATOMIC_RELAXED);
    }
    return t;
}

__attribute__((format(printf, 1, 2))) static void shim_log(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
#ifdef EGL_SHIM_GLX
    fprintf(stderr, "[gl-shim] %s\n", line);
#else
    fprintf(stderr, "[egl-shim] %s\n", line);
#endif
}
#define TRACE(...) do { if (shim_tracing()) shim_log(__VA_ARGS__); } while (0)

#ifndef EGL_SHIM_GLX
/* ================================================================= libEGL.so.1 */

#include "egl_vendor.h"

/* 0 not tried, 1 loading, 2 ready, 3 failed (for good: every later call fails fast). */
static int shim_state;
static char shim_why[512];
static char shim_info_text[512];

static void shim_load(void)
{
    const char *name = getenv("EGL_SHIM_VENDOR");
    if (!name || !*name) name = getenv("GL_PROBE_EGL_VENDOR");
    if (!name || !*name) name = "libEGL_nvidia.so.0";
    char why[400];
    if (vnd_load(name, why, sizeof why)) {
        snprintf(shim_why, sizeof shim_why, "%s", why);
        shim_log("cannot reach an EGL vendor: %s; every EGL call fails", shim_why);
        __atomic_store_n(&shim_state, 3, __ATOMIC_RELEASE);
        return;
    }
    snprintf(shim_info_text, sizeof shim_info_text, "vmgpu egl_shim.c over %s (EGL vendor ABI %u.%u)", name,
             (unsigned)(vnd.abi >> 16), (unsigned)(vnd.abi & 0xffff));
    TRACE("loaded: %s", shim_info_text);
    if (vnd.abi != 2) shim_log("%s accepted EGL vendor ABI %u.%u only; this shim implements 0.2", name,
                               (unsigned)(vnd.abi >> 16), (unsigned)(vnd.abi & 0xffff));
    __atomic_store_n(&shim_state, 2, __ATOMIC_RELEASE);
}

static int shim_ready(void)
{
    int s = __atomic_load_n(&shim_state, __ATOMIC_ACQUIRE);
    if (s == 0) {
        int expect = 0;
        if (__atomic_compare_exchange_n(&shim_state, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) shim_load();
        s = __atomic_load_n(&shim_state, __ATOMIC_ACQUIRE);
    }
    /* Another thread is inside the vendor's __egl_Main; it does not call back into us. */
    while (s == 1) {
        sched_yield();
        s = __atomic_load_n(&shim_state, __ATOMIC_ACQUIRE);
    }
    return s == 2;
}

SHIM_EXPORT const char *vmgpu_egl_shim_info(void)
{
    if (!shim_ready()) return shim_why;
    return shim_info_text;
}

/* The vendor's implementation of name, looked up once per call site. */
static void *shim_vendor_fn(const char *name, void **cache)
{
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (f) return f;
    f = vnd.im.getProcAddress(name);
    if (!f) {
        shim_log("%s: %s's getProcAddress has no such function; answering failure", name, vnd.name);
        return NULL;
    }
    __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    return f;
}

/* An entry point that goes straight to the vendor. fail is the answer when it cannot. */
#define FWD(ret, fail, name, params, args)                                          \
    SHIM_EXPORT ret name params                                                     \
    {                                                                               \
        static void *cache;                                                         \
        TRACE("%s", #name);                                                         \
        if (!shim_ready()) return fail;                                             \
        ret(*fn_) params = VND_AS(ret(*) params, shim_vendor_fn(#name, &cache));    \
        if (!fn_) return fail;                                                      \
        return fn_ args;                                                            \
    }

/* ------------------------------------------- entry points glvnd's libEGL implements itself */

SHIM_EXPORT EGLDisplay eglGetDisplay(void *native)
{
    if (!shim_ready()) return NULL;
    EGLDisplay d = vnd_get_display(native);
    TRACE("eglGetDisplay(%p) = %p", native, d);
    return d;
}

SHIM_EXPORT EGLDisplay eglGetPlatformDisplay(EGLenum platform, void *native, const EGLAttrib *attrs)
{
    if (!shim_ready()) return NULL;
    EGLDisplay d = vnd_get_platform_display(platform, native, attrs);
    TRACE("eglGetPlatformDisplay(0x%x, %p) = %p", platform, native, d);
    return d;
}

SHIM_EXPORT EGLDisplay eglGetPlatformDisplayEXT(EGLenum platform, void *native, const EGLint *attrs)
{
    if (!shim_ready()) return NULL;
    EGLDisplay d = vnd_get_platform_display_int(platform, native, attrs);
    TRACE("eglGetPlatformDisplayEXT(0x%x, %p) = %p", platform, native, d);
    return d;
}

SHIM_EXPORT EGLBoolean eglQueryDevicesEXT(EGLint max, EGLDeviceEXT *devs, EGLint *n)
{
    if (!shim_ready()) return 0;
    EGLBoolean ok = vnd_query_devices(max, devs, n);
    TRACE("eglQueryDevicesEXT(%d) = %u, %d devices", (int)max, ok, n ? (int)*n : -1);
    return ok;
}

SHIM_EXPORT EGLBoolean eglBindAPI(EGLenum api)
{
    if (!shim_ready()) return 0;
    EGLBoolean ok = vnd_bind_api(api);
    TRACE("eglBindAPI(0x%x) = %u", api, ok);
    return ok;
}

SHIM_EXPORT EGLenum eglQueryAPI(void)
{
    TRACE("eglQueryAPI() = 0x%x", vnd_thread.api);
    return vnd_thread.api;
}

SHIM_EXPORT EGLBoolean eglMakeCurrent(EGLDisplay d, EGLSurface draw, EGLSurface read, EGLContext c)
{
    if (!shim_ready()) return 0;
    EGLBoolean ok = vnd_make_current(d, draw, read, c);
    TRACE("eglMakeCurrent(%p, %p, %p, %p) = %u", d, draw, read, c, ok);
    return ok;
}

SHIM_EXPORT EGLBoolean eglReleaseThread(void)
{
    static void *cache;
    TRACE("eglReleaseThread");
    if (!shim_ready()) return 1;
    if (vnd_thread.ctx && !vnd_make_current(vnd_thread.dpy, NULL, NULL, NULL)) return 0;
    EGLBoolean (*f)(void) = VND_AS(EGLBoolean(*)(void), shim_vendor_fn("eglReleaseThread", &cache));
    if (f) f();
    vnd_thread.api = EGL_OPENGL_ES_API;
    vnd_thread.error = EGL_SUCCESS;
    return 1;
}

SHIM_EXPORT EGLContext eglGetCurrentContext(void)
{
    TRACE("eglGetCurrentContext() = %p", vnd_thread.ctx);
    return vnd_thread.ctx;
}

SHIM_EXPORT EGLDisplay eglGetCurrentDisplay(void)
{
    TRACE("eglGetCurrentDisplay() = %p", vnd_thread.dpy);
    return vnd_thread.dpy;
}

SHIM_EXPORT EGLSurface eglGetCurrentSurface(EGLint which)
{
    EGLSurface s = vx_current_surface(which);
    TRACE("eglGetCurrentSurface(0x%x) = %p", (unsigned)which, s);
    return s;
}

SHIM_EXPORT EGLint eglGetError(void)
{
    if (!shim_ready()) return EGL_NOT_INITIALIZED;
    EGLint e = vnd_get_error();
    TRACE("eglGetError() = 0x%04x", (unsigned)e);
    return e;
}

SHIM_EXPORT const char *eglQueryString(EGLDisplay d, EGLint name)
{
    static void *cache;
    if (!shim_ready()) return NULL;
    const char *(*f)(EGLDisplay, EGLint) = VND_AS(const char *(*)(EGLDisplay, EGLint), shim_vendor_fn("eglQueryString", &cache));
    const char *s = f ? f(d, name) : NULL;
    /* glvnd answers the client version itself when no display is named. */
    if (!s && !d && name == EGL_VERSION) s = "1.5 vmgpu egl_shim";
    TRACE("eglQueryString(%p, 0x%x) = %s", d, (unsigned)name, s ? s : "(null)");
    return s;
}

/* ---------------------------------------------------------- straight to the vendor */

FWD(EGLBoolean, 0, eglInitialize, (EGLDisplay d, EGLint *major, EGLint *minor), (d, major, minor))
FWD(EGLBoolean, 0, eglTerminate, (EGLDisplay d), (d))
FWD(EGLBoolean, 0, eglGetConfigs, (EGLDisplay d, EGLConfig *c, EGLint size, EGLint *n), (d, c, size, n))
FWD(EGLBoolean, 0, eglChooseConfig, (EGLDisplay d, const EGLint *a, EGLConfig *c, EGLint size, EGLint *n), (d, a, c, size, n))
FWD(EGLBoolean, 0, eglGetConfigAttrib, (EGLDisplay d, EGLConfig c, EGLint a, EGLint *v), (d, c, a, v))
FWD(EGLSurface, NULL, eglCreateWindowSurface, (EGLDisplay d, EGLConfig c, uintptr_t w, const EGLint *a), (d, c, w, a))
FWD(EGLSurface, NULL, eglCreatePbufferSurface, (EGLDisplay d, EGLConfig c, const EGLint *a), (d, c, a))
FWD(EGLSurface, NULL, eglCreatePixmapSurface, (EGLDisplay d, EGLConfig c, uintptr_t p, const EGLint *a), (d, c, p, a))
FWD(EGLSurface, NULL, eglCreatePbufferFromClientBuffer, (EGLDisplay d, EGLenum t, EGLClientBuffer b, EGLConfig c, const EGLint *a), (d, t, b, c, a))
FWD(EGLSurface, NULL, eglCreatePlatformWindowSurface, (EGLDisplay d, EGLConfig c, void *w, const EGLAttrib *a), (d, c, w, a))
FWD(EGLSurface, NULL, eglCreatePlatformPixmapSurface, (EGLDisplay d, EGLConfig c, void *p, const EGLAttrib *a), (d, c, p, a))
FWD(EGLBoolean, 0, eglDestroySurface, (EGLDisplay d, EGLSurface s), (d, s))
FWD(EGLBoolean, 0, eglQuerySurface, (EGLDisplay d, EGLSurface s, EGLint a, EGLint *v), (d, s, a, v))
FWD(EGLBoolean, 0, eglSurfaceAttrib, (EGLDisplay d, EGLSurface s, EGLint a, EGLint v), (d, s, a, v))
FWD(EGLBoolean, 0, eglBindTexImage, (EGLDisplay d, EGLSurface s, EGLint b), (d, s, b))
FWD(EGLBoolean, 0, eglReleaseTexImage, (EGLDisplay d, EGLSurface s, EGLint b), (d, s, b))
FWD(EGLBoolean, 0, eglSwapInterval, (EGLDisplay d, EGLint i), (d, i))
FWD(EGLContext, NULL, eglCreateContext, (EGLDisplay d, EGLConfig c, EGLContext share, const EGLint *a), (d, c, share, a))
FWD(EGLBoolean, 0, eglDestroyContext, (EGLDisplay d, EGLContext c), (d, c))
FWD(EGLBoolean, 0, eglQueryContext, (EGLDisplay d, EGLContext c, EGLint a, EGLint *v), (d, c, a, v))
FWD(EGLBoolean, 0, eglWaitGL, (void), ())
FWD(EGLBoolean, 0, eglWaitClient, (void), ())
FWD(EGLBoolean, 0, eglWaitNative, (EGLint engine), (engine))
FWD(EGLBoolean, 0, eglSwapBuffers, (EGLDisplay d, EGLSurface s), (d, s))
FWD(EGLBoolean, 0, eglCopyBuffers, (EGLDisplay d, EGLSurface s, uintptr_t p), (d, s, p))
FWD(EGLSync, NULL, eglCreateSync, (EGLDisplay d, EGLenum t, const EGLAttrib *a), (d, t, a))
FWD(EGLBoolean, 0, eglDestroySync, (EGLDisplay d, EGLSync s), (d, s))
FWD(EGLint, 0, eglClientWaitSync, (EGLDisplay d, EGLSync s, EGLint f, EGLTime t), (d, s, f, t))
FWD(EGLBoolean, 0, eglGetSyncAttrib, (EGLDisplay d, EGLSync s, EGLint a, EGLAttrib *v), (d, s, a, v))
FWD(EGLBoolean, 0, eglWaitSync, (EGLDisplay d, EGLSync s, EGLint f), (d, s, f))
FWD(EGLImage, NULL, eglCreateImage, (EGLDisplay d, EGLContext c, EGLenum t, EGLClientBuffer b, const EGLAttrib *a), (d, c, t, b, a))
FWD(EGLBoolean, 0, eglDestroyImage, (EGLDisplay d, EGLImage i), (d, i))
/* Extensions glvnd reaches through eglGetProcAddress; exported too, for whoever dlsyms them. */
FWD(const char *, NULL, eglQueryDeviceStringEXT, (EGLDeviceEXT dev, EGLint name), (dev, name))
FWD(EGLBoolean, 0, eglQueryDeviceAttribEXT, (EGLDeviceEXT dev, EGLint a, EGLAttrib *v), (dev, a, v))
FWD(EGLBoolean, 0, eglQueryDisplayAttribEXT, (EGLDisplay d, EGLint a, EGLAttrib *v), (d, a, v))

/* ---------------------------------------------------------- eglGetProcAddress */

static const struct {
    const char *name;
    vnd_proc fn;
} shim_own[] = {
#define OWN(f) {#f, (vnd_proc)(uintptr_t)f}
    OWN(eglGetDisplay), OWN(eglGetPlatformDisplay), OWN(eglGetPlatformDisplayEXT), OWN(eglQueryDevicesEXT),
    OWN(eglBindAPI), OWN(eglQueryAPI), OWN(eglMakeCurrent), OWN(eglReleaseThread), OWN(eglGetCurrentContext),
    OWN(eglGetCurrentDisplay), OWN(eglGetCurrentSurface), OWN(eglGetError), OWN(eglQueryString),
    OWN(eglInitialize), OWN(eglTerminate), OWN(eglGetConfigs), OWN(eglChooseConfig), OWN(eglGetConfigAttrib),
    OWN(eglCreateWindowSurface), OWN(eglCreatePbufferSurface), OWN(eglCreatePixmapSurface),
    OWN(eglCreatePbufferFromClientBuffer), OWN(eglCreatePlatformWindowSurface), OWN(eglCreatePlatformPixmapSurface),
    OWN(eglDestroySurface), OWN(eglQuerySurface), OWN(eglSurfaceAttrib), OWN(eglBindTexImage),
    OWN(eglReleaseTexImage), OWN(eglSwapInterval), OWN(eglCreateContext), OWN(eglDestroyContext),
    OWN(eglQueryContext), OWN(eglWaitGL), OWN(eglWaitClient), OWN(eglWaitNative), OWN(eglSwapBuffers),
    OWN(eglCopyBuffers), OWN(eglCreateSync), OWN(eglDestroySync), OWN(eglClientWaitSync), OWN(eglGetSyncAttrib),
    OWN(eglWaitSync), OWN(eglCreateImage), OWN(eglDestroyImage), OWN(eglQueryDeviceStringEXT),
    OWN(eglQueryDeviceAttribEXT), OWN(eglQueryDisplayAttribEXT),
#undef OWN
};

SHIM_EXPORT vnd_proc eglGetProcAddress(const char *name)
{
    if (!name) {
        TRACE("eglGetProcAddress(NULL) = NULL");
        return NULL;
    }
    for (size_t i = 0; i < sizeof shim_own / sizeof shim_own[0]; i++)
        if (!strcmp(shim_own[i].name, name)) {
            TRACE("eglGetProcAddress(%s) = shim's own", name);
            return shim_own[i].fn;
        }
    if (!strcmp(name, "eglGetProcAddress")) return (vnd_proc)(uintptr_t)eglGetProcAddress;
    if (!shim_ready()) {
        TRACE("eglGetProcAddress(%s) = NULL (no vendor)", name);
        return NULL;
    }
    /* One vendor: its own implementation is what a glvnd dispatch stub would end up calling,
     * without needing the display or device to be known here. */
    void *f = vnd.im.getProcAddress(name);
    if (f) {
        TRACE("eglGetProcAddress(%s) = %p (vendor's function)", name, f);
        return VND_AS(vnd_proc, f);
    }
    if (!strncmp(name, "egl", 3)) {
        f = vnd_dispatch_address(name);
        if (f) {
            TRACE("eglGetProcAddress(%s) = %p (vendor's dispatch stub)", name, f);
            return VND_AS(vnd_proc, f);
        }
    }
    TRACE("eglGetProcAddress(%s) = NULL (vendor has none)", name);
    return NULL;
}

#else
/* ================================================================= libGL.so.1 */

typedef void (*shim_proc)(void);
typedef void *GLXContext, *GLXFBConfig;
typedef unsigned long GLXDrawable;
typedef struct _XDisplay Display;
typedef int Bool;

/* libEGL.so.1 (egl_shim.c's, found the same way libcuda finds it) answers GL function names. */
static shim_proc shim_egl_proc(const char *name)
{
    static shim_proc (*get)(const char *);
    static int tried;
    if (!__atomic_load_n(&tried, __ATOMIC_ACQUIRE)) {
        void *lib = dlopen("libEGL.so.1", RTLD_LAZY | RTLD_NOLOAD);
        if (!lib) lib = dlopen("libEGL.so.1", RTLD_LAZY);
        shim_proc (*g)(const char *) = lib ? (shim_proc(*)(const char *))(uintptr_t)dlsym(lib, "eglGetProcAddress") : NULL;
        if (!g) shim_log("no libEGL.so.1 with eglGetProcAddress (%s); GL functions answer NULL", lib ? "no such symbol" : dlerror());
        __atomic_store_n(&get, g, __ATOMIC_RELEASE);
        __atomic_store_n(&tried, 1, __ATOMIC_RELEASE);
    }
    shim_proc (*g)(const char *) = __atomic_load_n(&get, __ATOMIC_ACQUIRE);
    return g ? g(name) : NULL;
}

SHIM_EXPORT GLXContext glXGetCurrentContext(void)
{
    TRACE("glXGetCurrentContext() = NULL");
    return NULL;
}
SHIM_EXPORT Display *glXGetCurrentDisplay(void)
{
    TRACE("glXGetCurrentDisplay() = NULL");
    return NULL;
}
SHIM_EXPORT GLXDrawable glXGetCurrentDrawable(void)
{
    TRACE("glXGetCurrentDrawable() = 0");
    return 0;
}
SHIM_EXPORT GLXDrawable glXGetCurrentReadDrawable(void)
{
    TRACE("glXGetCurrentReadDrawable() = 0");
    return 0;
}
SHIM_EXPORT Bool glXMakeCurrent(Display *dpy, GLXDrawable d, GLXContext c)
{
    TRACE("glXMakeCurrent(%p, %lu, %p) = False (no GLX here)", (void *)dpy, d, c);
    return 0;
}
SHIM_EXPORT Bool glXMakeContextCurrent(Display *dpy, GLXDrawable d, GLXDrawable r, GLXContext c)
{
    TRACE("glXMakeContextCurrent(%p, %lu, %lu, %p) = False (no GLX here)", (void *)dpy, d, r, c);
    return 0;
}
SHIM_EXPORT Bool glXQueryVersion(Display *dpy, int *major, int *minor)
{
    (void)major;
    (void)minor;
    TRACE("glXQueryVersion(%p) = False", (void *)dpy);
    return 0;
}
SHIM_EXPORT Bool glXQueryExtension(Display *dpy, int *error_base, int *event_base)
{
    (void)error_base;
    (void)event_base;
    TRACE("glXQueryExtension(%p) = False", (void *)dpy);
    return 0;
}
SHIM_EXPORT const char *glXGetClientString(Display *dpy, int name)
{
    TRACE("glXGetClientString(%p, %d) = NULL", (void *)dpy, name);
    return NULL;
}
SHIM_EXPORT const char *glXQueryExtensionsString(Display *dpy, int screen)
{
    TRACE("glXQueryExtensionsString(%p, %d) = \"\"", (void *)dpy, screen);
    return "";
}
SHIM_EXPORT int glXQueryContext(Display *dpy, GLXContext c, int attr, int *value)
{
    (void)value;
    TRACE("glXQueryContext(%p, %p, 0x%x) = GLX_BAD_CONTEXT", (void *)dpy, c, (unsigned)attr);
    return 5; /* GLX_BAD_CONTEXT */
}
SHIM_EXPORT void glXSwapBuffers(Display *dpy, GLXDrawable d)
{
    TRACE("glXSwapBuffers(%p, %lu)", (void *)dpy, d);
}
SHIM_EXPORT void glXWaitGL(void) { TRACE("glXWaitGL"); }
SHIM_EXPORT void glXWaitX(void) { TRACE("glXWaitX"); }

SHIM_EXPORT shim_proc glXGetProcAddressARB(const unsigned char *uname);

static const struct {
    const char *name;
    shim_proc fn;
} shim_own[] = {
#define OWN(f) {#f, (shim_proc)(uintptr_t)f}
    OWN(glXGetCurrentContext), OWN(glXGetCurrentDisplay), OWN(glXGetCurrentDrawable), OWN(glXGetCurrentReadDrawable),
    OWN(glXMakeCurrent), OWN(glXMakeContextCurrent), OWN(glXQueryVersion), OWN(glXQueryExtension),
    OWN(glXGetClientString), OWN(glXQueryExtensionsString), OWN(glXQueryContext), OWN(glXSwapBuffers),
    OWN(glXWaitGL), OWN(glXWaitX), OWN(glXGetProcAddressARB), {"glXGetProcAddress", (shim_proc)(uintptr_t)glXGetProcAddressARB},
#undef OWN
};

SHIM_EXPORT shim_proc glXGetProcAddressARB(const unsigned char *uname)
{
    const char *name = (const char *)uname;
    if (!name) {
        TRACE("glXGetProcAddressARB(NULL) = NULL");
        return NULL;
    }
    for (size_t i = 0; i < sizeof shim_own / sizeof shim_own[0]; i++)
        if (!strcmp(shim_own[i].name, name)) {
            TRACE("glXGetProcAddressARB(%s) = shim's own", name);
            return shim_own[i].fn;
        }
    if (!strncmp(name, "glX", 3)) {
        TRACE("glXGetProcAddressARB(%s) = NULL (GLX function this shim lacks)", name);
        return NULL;
    }
    shim_proc f = shim_egl_proc(name);
    TRACE("glXGetProcAddressARB(%s) = %p (from libEGL.so.1's eglGetProcAddress)", name, (void *)(uintptr_t)f);
    return f;
}
SHIM_EXPORT shim_proc glXGetProcAddress(const unsigned char *name) { return glXGetProcAddressARB(name); }

/* ---------------------------------------------- GL entry points, exported by name
 *
 * libglvnd's libGL.so.1 exports every GL function; a caller that dlsyms one gets a stub that
 * calls the current context's implementation. Here each is a trampoline that jumps through a
 * slot, filled on first call from eglGetProcAddress with all argument registers preserved, so
 * no signature needs writing down. A function the vendor lacks returns 0 and is logged.
 */
#if defined(__x86_64__)
#define SHIM_GL_FUNCS(X)                                                                                   \
    X(0, glGetError) X(1, glGetString) X(2, glGetStringi) X(3, glGetIntegerv) X(4, glGetInteger64v)        \
    X(5, glGetBooleanv) X(6, glGetFloatv) X(7, glFinish) X(8, glFlush) X(9, glIsBuffer)                   \
    X(10, glIsTexture) X(11, glIsRenderbuffer) X(12, glBindBuffer) X(13, glGetBufferParameteriv)          \
    X(14, glGetBufferParameteri64v) X(15, glBindTexture) X(16, glGetTexLevelParameteriv)                 \
    X(17, glGetTexParameteriv) X(18, glBindRenderbuffer) X(19, glGetRenderbufferParameteriv)              \
    X(20, glFenceSync) X(21, glClientWaitSync) X(22, glWaitSync) X(23, glDeleteSync) X(24, glGetSynciv)   \
    X(25, glGenBuffers) X(26, glDeleteBuffers) X(27, glBufferData) X(28, glGenTextures)                   \
    X(29, glDeleteTextures) X(30, glTexImage2D) X(31, glTexParameteri) X(32, glGetNamedBufferParameteriv) \
    X(33, glGetTextureLevelParameteriv) X(34, glGetTextureParameteriv) X(35, glGetInternalformativ)      \
    X(36, glActiveTexture) X(37, glPixelStorei) X(38, glGetPointerv) X(39, glMapBuffer)                  \
    X(40, glUnmapBuffer) X(41, glMapBufferRange) X(42, glGetBufferSubData) X(43, glBufferSubData)         \
    X(44, glIsEnabled) X(45, glGetDoublev) X(46, glGetIntegeri_v) X(47, glGetInteger64i_v)                \
    X(48, glGetTexParameterfv) X(49, glGetTexLevelParameterfv) X(50, glGetTexImage) X(51, glReadPixels)   \
    X(52, glBindFramebuffer) X(53, glIsFramebuffer) X(54, glGetFramebufferAttachmentParameteriv)          \
    X(55, glGetNamedBufferParameteri64v) X(56, glGetTextureLevelParameterfv) X(57, glIsSync)             \
    X(58, glGetObjectLabel) X(59, glGetBufferPointerv) X(60, glTexImage3D) X(61, glTexSubImage2D)
#define SHIM_GL_COUNT 62

#define SHIM_GL_NAME(i, f) #f,
static const char *const shim_gl_names[SHIM_GL_COUNT] = {SHIM_GL_FUNCS(SHIM_GL_NAME)};
__attribute__((visibility("hidden"))) void *shim_gl_slot[SHIM_GL_COUNT];

__attribute__((visibility("hidden"), used)) void *shim_gl_resolve(unsigned index)
{
    if (index >= SHIM_GL_COUNT) return NULL;
    void *f = (void *)(uintptr_t)shim_egl_proc(shim_gl_names[index]);
    TRACE("%s (exported by name) resolved to %p", shim_gl_names[index], f);
    if (!f) shim_log("%s: no implementation found; this call returns 0", shim_gl_names[index]);
    else __atomic_store_n(&shim_gl_slot[index], f, __ATOMIC_RELEASE);
    return f;
}

#define SHIM_GL_STUB(i, f)                                                                  \
    ".globl " #f "\n.type " #f ",@function\n" #f ":\n"                                      \
    "\tmovq shim_gl_slot+8*" #i "(%rip), %r11\n\ttestq %r11, %r11\n\tjz 1f\n\tjmp *%r11\n"   \
    "1:\tmovl $" #i ", %r11d\n\tjmp shim_gl_slow\n.size " #f ", .-" #f "\n"

/* The slow path keeps every argument register (integer, vector, and %rax for varargs) across
 * the resolver, then jumps with the caller's stack untouched. */
__asm__(".text\n"
        ".p2align 4\n"
        "shim_gl_slow:\n"
        "\tpushq %rbp\n\tmovq %rsp, %rbp\n\tsubq $192, %rsp\n\tandq $-16, %rsp\n"
        "\tmovq %rdi, 0(%rsp)\n\tmovq %rsi, 8(%rsp)\n\tmovq %rdx, 16(%rsp)\n\tmovq %rcx, 24(%rsp)\n"
        "\tmovq %r8, 32(%rsp)\n\tmovq %r9, 40(%rsp)\n\tmovq %rax, 48(%rsp)\n"
        "\tmovdqa %xmm0, 64(%rsp)\n\tmovdqa %xmm1, 80(%rsp)\n\tmovdqa %xmm2, 96(%rsp)\n\tmovdqa %xmm3, 112(%rsp)\n"
        "\tmovdqa %xmm4, 128(%rsp)\n\tmovdqa %xmm5, 144(%rsp)\n\tmovdqa %xmm6, 160(%rsp)\n\tmovdqa %xmm7, 176(%rsp)\n"
        "\tmovl %r11d, %edi\n\tcall shim_gl_resolve\n\tmovq %rax, %r11\n"
        "\tmovq 0(%rsp), %rdi\n\tmovq 8(%rsp), %rsi\n\tmovq 16(%rsp), %rdx\n\tmovq 24(%rsp), %rcx\n"
        "\tmovq 32(%rsp), %r8\n\tmovq 40(%rsp), %r9\n\tmovq 48(%rsp), %rax\n"
        "\tmovdqa 64(%rsp), %xmm0\n\tmovdqa 80(%rsp), %xmm1\n\tmovdqa 96(%rsp), %xmm2\n\tmovdqa 112(%rsp), %xmm3\n"
        "\tmovdqa 128(%rsp), %xmm4\n\tmovdqa 144(%rsp), %xmm5\n\tmovdqa 160(%rsp), %xmm6\n\tmovdqa 176(%rsp), %xmm7\n"
        "\tleave\n"
        "\ttestq %r11, %r11\n\tjz 2f\n\tjmp *%r11\n"
        "2:\txorl %eax, %eax\n\tret\n"
        SHIM_GL_FUNCS(SHIM_GL_STUB));
#endif

#endif
