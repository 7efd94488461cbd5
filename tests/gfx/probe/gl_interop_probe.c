/*
 * What NVIDIA's driver answers for the graphics-interop cases whose vmgpu answers are choices
 * (docs/graphics.md, "Not measured on NVIDIA yet"): the same cuGraphics* calls on OpenGL objects,
 * through a headless EGL context. Output: one "case ANSWER" line per case, as cuda_probe prints.
 *
 * Build and run on a machine with an NVIDIA GPU, its driver's EGL/GL libraries and CUDA:
 *     gcc -O1 -I/usr/local/cuda/include tests/gfx/probe/gl_interop_probe.c -o gl_interop_probe -lcuda -ldl
 *     ./gl_interop_probe > nvidia_gl_interop.txt
 * Nothing of EGL/GL is needed at build time: the libraries are opened with dlopen and every
 * constant is written below. Without them (or on vmgpu, which has no cuGraphicsGL*), it prints
 * "# SKIPPED: <reason>" and exits 0.
 *
 * Where libEGL.so.1 (libglvnd's dispatcher) is absent but NVIDIA's EGL vendor library is there
 * (containers that carry only the driver's libraries), the probe stands in for the dispatcher:
 * it loads libEGL_nvidia.so.0 (or $GL_PROBE_EGL_VENDOR) itself and speaks libglvnd's EGL vendor
 * ABI to it, for one thread and one vendor. Lines starting with "# egl:" say which path ran.
 * There, with the driver's libraries in /usr/local/nvidia/lib64:
 *     gcc -O1 -I<cuda>/include tests/gfx/probe/gl_interop_probe.c -o gl_interop_probe \
 *         $(readlink -f /usr/local/nvidia/lib64/libcuda.so.1) -ldl
 *     LD_LIBRARY_PATH=/usr/local/nvidia/lib64 ./gl_interop_probe > nvidia_gl_interop.txt
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

/* ------------------------------------------------------------ EGL and GL, by hand */

typedef void *EGLDisplay, *EGLConfig, *EGLSurface, *EGLContext, *EGLDeviceEXT;
typedef int EGLint;
typedef unsigned GLuint, GLenum;
typedef int GLint, GLsizei;
typedef intptr_t GLsizeiptr;

#define EGL_NONE 0x3038
#define EGL_SURFACE_TYPE 0x3033
#define EGL_PBUFFER_BIT 0x0001
#define EGL_RENDERABLE_TYPE 0x3040
#define EGL_OPENGL_BIT 0x0008
#define EGL_WIDTH 0x3057
#define EGL_HEIGHT 0x3056
#define EGL_OPENGL_API 0x30A2
#define EGL_PLATFORM_DEVICE_EXT 0x313F
#define EGL_OPENGL_ES_API 0x30A0
#define EGL_SUCCESS 0x3000
#define EGL_DRAW 0x3059
#define EGL_READ 0x305A
#define EGL_VENDOR 0x3053
#define EGL_VERSION 0x3054
#define EGL_EXTENSIONS 0x3055
#define GL_VERSION 0x1F02
#define GL_RENDERER 0x1F01

#define GL_ARRAY_BUFFER 0x8892
#define GL_STATIC_DRAW 0x88E4
#define GL_TEXTURE_2D 0x0DE1
#define GL_TEXTURE_2D_ARRAY 0x8C1A
#define GL_TEXTURE_CUBE_MAP 0x8513
#define GL_TEXTURE_CUBE_MAP_POSITIVE_X 0x8515
#define GL_RGBA8 0x8058
#define GL_RGBA 0x1908
#define GL_UNSIGNED_BYTE 0x1401
#define GL_TEXTURE_MAX_LEVEL 0x813D

static struct {
    EGLDisplay (*GetDisplay)(void *);
    EGLDisplay (*GetPlatformDisplayEXT)(GLenum, void *, const EGLint *);
    unsigned (*QueryDevicesEXT)(EGLint, EGLDeviceEXT *, EGLint *);
    unsigned (*Initialize)(EGLDisplay, EGLint *, EGLint *);
    unsigned (*ChooseConfig)(EGLDisplay, const EGLint *, EGLConfig *, EGLint, EGLint *);
    EGLSurface (*CreatePbufferSurface)(EGLDisplay, EGLConfig, const EGLint *);
    unsigned (*BindAPI)(GLenum);
    EGLContext (*CreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint *);
    unsigned (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
    void *(*GetProcAddress)(const char *);
    EGLint (*GetError)(void);
} egl;

static struct {
    void (*GenBuffers)(GLsizei, GLuint *);
    void (*BindBuffer)(GLenum, GLuint);
    void (*BufferData)(GLenum, GLsizeiptr, const void *, GLenum);
    void (*GenTextures)(GLsizei, GLuint *);
    void (*BindTexture)(GLenum, GLuint);
    void (*TexImage2D)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum, const void *);
    void (*TexImage3D)(GLenum, GLint, GLint, GLsizei, GLsizei, GLsizei, GLint, GLenum, GLenum, const void *);
    void (*TexParameteri)(GLenum, GLenum, GLint);
    void (*Finish)(void);
    const unsigned char *(*GetString)(GLenum);
} gl;

typedef CUresult (*reg_buffer_fn)(CUgraphicsResource *, GLuint, unsigned);
typedef CUresult (*reg_image_fn)(CUgraphicsResource *, GLuint, GLenum, unsigned);

/* ------------------------------------------- libglvnd's EGL vendor ABI, by hand
 *
 * The layout of include/glvnd/libeglabi.h (ABI 0.2): __egl_Main(version, exports, vendor,
 * imports) with version = major << 16 | minor; the vendor keeps the exports pointer and fills in
 * the imports. Field order and types must match exactly; the vendor never looks inside the
 * opaque vendor handle. EGLBoolean and EGLenum are 32-bit unsigned, GLboolean 8-bit.
 */
typedef unsigned EGLBoolean, EGLenum;
typedef intptr_t EGLAttrib;
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

/* The dispatcher's per-thread state: what the vendor asks back through the exports. glvnd's
 * default client API is OpenGL ES until eglBindAPI. */
static _Thread_local struct {
    EGLenum api;
    void *vendor;
    EGLDisplay dpy;
    EGLSurface draw, read;
    EGLContext ctx;
    EGLint error;
} vnd_thread = {EGL_OPENGL_ES_API, NULL, NULL, NULL, NULL, NULL, EGL_SUCCESS};

static struct {
    void *self[64]; /* the opaque vendor handle: only its address matters */
    struct vnd_imports im;
    EGLDisplay displays[8];
    int ndisplays;
    EGLDeviceEXT devices[16];
    int ndevices;
    EGLBoolean (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
    EGLBoolean (*BindAPI)(EGLenum);
    EGLBoolean (*QueryDevicesEXT)(EGLint, EGLDeviceEXT *, EGLint *);
    const char *(*QueryString)(EGLDisplay, EGLint);
    EGLint (*GetError)(void);
} vnd;

static void vx_thread_init(void) {}
static EGLenum vx_current_api(void) { return vnd_thread.api; }
static void *vx_current_vendor(void) { return vnd_thread.vendor; }
static EGLContext vx_current_context(void) { return vnd_thread.ctx; }
static EGLDisplay vx_current_display(void) { return vnd_thread.dpy; }
static EGLSurface vx_current_surface(EGLint which)
{
    return which == EGL_DRAW ? vnd_thread.draw : which == EGL_READ ? vnd_thread.read : NULL;
}
/* No dispatch indices are ever handed out (setDispatchIndex is never called), so no vendor
 * dispatch stub can have an index to ask for. */
static vnd_proc vx_fetch_dispatch(void *vendor, int index)
{
    (void)vendor;
    (void)index;
    return NULL;
}
static void vx_set_error(EGLint error) { vnd_thread.error = error; }
static EGLBoolean vx_set_last_vendor(void *vendor) { return vendor == (void *)vnd.self; }
static void *vx_vendor_from_display(EGLDisplay dpy)
{
    for (int i = 0; i < vnd.ndisplays; i++)
        if (dpy && vnd.displays[i] == dpy) return vnd.self;
    return NULL;
}
static EGLBoolean vx_set_vendor_for_device(EGLDeviceEXT dev, void *vendor)
{
    if (!dev || vendor != (void *)vnd.self) return 0;
    for (int i = 0; i < vnd.ndevices; i++)
        if (vnd.devices[i] == dev) return 1;
    if (vnd.ndevices == (int)(sizeof vnd.devices / sizeof vnd.devices[0])) return 0;
    vnd.devices[vnd.ndevices++] = dev;
    return 1;
}
static void *vx_vendor_from_device(EGLDeviceEXT dev)
{
    for (int i = 0; i < vnd.ndevices; i++)
        if (dev && vnd.devices[i] == dev) return vnd.self;
    return NULL;
}

/* Entries past 0.2's end answer NULL / 0, in case a vendor accepts only a newer minor and calls
 * callbacks this probe does not know (then the "# egl:" line says which version it took). */
static void *vx_null(void) { return NULL; }
#define VX_NULL ((vnd_proc)(uintptr_t)vx_null)
static const struct {
    struct vnd_exports e;
    vnd_proc later[16];
} vnd_exports = {
    {vx_thread_init, vx_current_api, vx_current_vendor, vx_current_context, vx_current_display,
     vx_current_surface, vx_fetch_dispatch, vx_set_error, vx_set_last_vendor, vx_vendor_from_display,
     vx_vendor_from_device, vx_set_vendor_for_device},
    {VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL,
     VX_NULL, VX_NULL, VX_NULL, VX_NULL, VX_NULL},
};

static void vnd_add_display(EGLDisplay d)
{
    if (!d || vx_vendor_from_display(d)) return;
    if (vnd.ndisplays < (int)(sizeof vnd.displays / sizeof vnd.displays[0])) vnd.displays[vnd.ndisplays++] = d;
}

/* What libEGL's entry points would do before and after reaching the vendor, reduced to one
 * vendor: remember displays and devices, keep the client API, keep the current objects. */
static EGLDisplay vw_get_display(void *native)
{
    /* eglGetDisplay(EGL_DEFAULT_DISPLAY) reaches a vendor as platform EGL_NONE. */
    EGLDisplay d = vnd.im.getPlatformDisplay(EGL_NONE, native, NULL);
    vnd_add_display(d);
    return d;
}
static EGLDisplay vw_get_platform_display(GLenum platform, void *native, const EGLint *attrs)
{
    EGLAttrib a[32];
    int n = 0;
    if (attrs) {
        while (attrs[n] != EGL_NONE && n < 30) a[n] = attrs[n], n++;
        a[n] = EGL_NONE;
    }
    EGLDisplay d = vnd.im.getPlatformDisplay(platform, native, attrs ? a : NULL);
    vnd_add_display(d);
    return d;
}
static unsigned vw_query_devices(EGLint max, EGLDeviceEXT *devs, EGLint *n)
{
    if (!vnd.QueryDevicesEXT(max, devs, n)) return 0;
    for (EGLint i = 0; devs && n && i < *n && i < max; i++) vx_set_vendor_for_device(devs[i], vnd.self);
    return 1;
}
static unsigned vw_bind_api(GLenum api)
{
    if (!vnd.im.getSupportsAPI(api)) return 0;
    vnd_thread.api = api;
    if (vnd.BindAPI) vnd.BindAPI(api);
    return 1;
}
static unsigned vw_make_current(EGLDisplay d, EGLSurface draw, EGLSurface read, EGLContext c)
{
    /* glvnd makes the vendor current before calling it, and records the objects after. */
    void *old_vendor = vnd_thread.vendor;
    vnd_thread.vendor = c ? (void *)vnd.self : old_vendor;
    if (!vnd.MakeCurrent(d, draw, read, c)) {
        vnd_thread.vendor = old_vendor;
        return 0;
    }
    vnd_thread.vendor = c ? (void *)vnd.self : NULL;
    vnd_thread.dpy = c ? d : NULL;
    vnd_thread.draw = c ? draw : NULL;
    vnd_thread.read = c ? read : NULL;
    vnd_thread.ctx = c;
    return 1;
}
static void *vw_get_proc_address(const char *name) { return vnd.im.getProcAddress(name); }
static EGLint vw_get_error(void)
{
    EGLint e = vnd.GetError();
    if (e == EGL_SUCCESS) e = vnd_thread.error;
    vnd_thread.error = EGL_SUCCESS;
    return e;
}

static char vnd_why[512];

static const char *vnd_setup(void)
{
    const char *name = getenv("GL_PROBE_EGL_VENDOR");
    if (!name || !*name) name = "libEGL_nvidia.so.0";
    void *lib = dlopen(name, RTLD_LAZY);
    if (!lib) {
        const char *e = dlerror();
        snprintf(vnd_why, sizeof vnd_why, "libEGL.so.1 not found, and %s did not load: %s", name, e ? e : "?");
        return vnd_why;
    }
    vnd_main_fn vmain = (vnd_main_fn)(uintptr_t)dlsym(lib, "__egl_Main");
    if (!vmain) {
        snprintf(vnd_why, sizeof vnd_why, "libEGL.so.1 not found, and %s has no __egl_Main", name);
        return vnd_why;
    }
    /* libglvnd's current ABI is 0.2 (it added setVendorForDevice). Older minors next; then, only
     * to name what a refusing vendor wants, newer minors and major 1. */
    uint32_t versions[3 + 13 + 4] = {0x00000002u, 0x00000001u, 0x00000000u};
    for (int i = 0; i < 13; i++) versions[3 + i] = (uint32_t)(3 + i);
    for (int i = 0; i < 4; i++) versions[16 + i] = 0x00010000u | (uint32_t)i;
    uint32_t accepted = 0;
    int ok = 0;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0] && !ok; i++) {
        memset(&vnd.im, 0, sizeof vnd.im);
        ok = vmain(versions[i], &vnd_exports.e, vnd.self, &vnd.im) != 0;
        accepted = versions[i];
    }
    if (!ok) {
        snprintf(vnd_why, sizeof vnd_why,
                 "libEGL.so.1 not found, and %s's __egl_Main refused every EGL vendor ABI version tried (0.0 to 0.15, 1.0 to 1.3)", name);
        return vnd_why;
    }
    printf("# egl: no libEGL.so.1; %s's __egl_Main accepted EGL vendor ABI %u.%u%s\n", name,
           (unsigned)(accepted >> 16), (unsigned)(accepted & 0xffff),
           accepted == 2 ? "" : " (this probe implements 0.2: if anything below fails, that is why)");
    if (!vnd.im.getPlatformDisplay || !vnd.im.getSupportsAPI || !vnd.im.getProcAddress) {
        snprintf(vnd_why, sizeof vnd_why, "%s left a required import empty (getPlatformDisplay %p, getSupportsAPI %p, getProcAddress %p)",
                 name, (void *)(uintptr_t)vnd.im.getPlatformDisplay, (void *)(uintptr_t)vnd.im.getSupportsAPI,
                 (void *)(uintptr_t)vnd.im.getProcAddress);
        return vnd_why;
    }
    if (!vnd.im.getSupportsAPI(EGL_OPENGL_API)) {
        snprintf(vnd_why, sizeof vnd_why, "%s says it does not support EGL_OPENGL_API", name);
        return vnd_why;
    }
    /* The vendor's own entry points, as libEGL fills its static dispatch table. */
#define VSYM(dst, f) if (!(*(void **)&(dst) = vnd.im.getProcAddress("egl" #f))) { \
        snprintf(vnd_why, sizeof vnd_why, "%s's getProcAddress has no egl" #f, name); return vnd_why; }
    VSYM(egl.Initialize, Initialize) VSYM(egl.ChooseConfig, ChooseConfig)
    VSYM(egl.CreatePbufferSurface, CreatePbufferSurface) VSYM(egl.CreateContext, CreateContext)
    VSYM(vnd.MakeCurrent, MakeCurrent) VSYM(vnd.GetError, GetError)
#undef VSYM
    *(void **)&vnd.BindAPI = vnd.im.getProcAddress("eglBindAPI");
    *(void **)&vnd.QueryDevicesEXT = vnd.im.getProcAddress("eglQueryDevicesEXT");
    *(void **)&vnd.QueryString = vnd.im.getProcAddress("eglQueryString");
    egl.GetDisplay = vw_get_display;
    egl.GetPlatformDisplayEXT = vw_get_platform_display;
    egl.QueryDevicesEXT = vnd.QueryDevicesEXT ? vw_query_devices : NULL;
    egl.BindAPI = vw_bind_api;
    egl.MakeCurrent = vw_make_current;
    egl.GetProcAddress = vw_get_proc_address;
    egl.GetError = vw_get_error;
    if (vnd.QueryString) {
        const char *ext = vnd.QueryString(NULL, EGL_EXTENSIONS);
        printf("# egl: client extensions: %s\n", ext ? ext : "(none)");
    }
    return NULL;
}

static char egl_why[512];

/* Names the EGL error with the failure, so a second attempt knows where to look. */
static const char *egl_fail(const char *what)
{
    EGLint e = egl.GetError ? egl.GetError() : 0;
    snprintf(egl_why, sizeof egl_why, "%s (eglGetError 0x%04x)", what, (unsigned)e);
    return egl_why;
}

static const char *egl_setup(void)
{
    void *lib = dlopen("libEGL.so.1", RTLD_NOW);
    if (lib) {
#define SYM(f) if (!(*(void **)&egl.f = dlsym(lib, "egl" #f))) return "egl" #f " missing";
        SYM(GetDisplay) SYM(Initialize) SYM(ChooseConfig) SYM(CreatePbufferSurface) SYM(BindAPI)
        SYM(CreateContext) SYM(MakeCurrent) SYM(GetProcAddress) SYM(GetError)
#undef SYM
        *(void **)&egl.QueryDevicesEXT = egl.GetProcAddress("eglQueryDevicesEXT");
        *(void **)&egl.GetPlatformDisplayEXT = egl.GetProcAddress("eglGetPlatformDisplayEXT");
        printf("# egl: libEGL.so.1\n");
    } else {
        const char *why = vnd_setup();
        if (why) return why;
    }
    EGLDisplay d = NULL;
    EGLint ndev = 0;
    if (egl.QueryDevicesEXT && egl.GetPlatformDisplayEXT) {
        EGLDeviceEXT devs[8];
        if (egl.QueryDevicesEXT(8, devs, &ndev) && ndev > 0) d = egl.GetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devs[0], NULL);
    }
    printf("# egl: %d EGL devices, device-platform display %s\n", (int)ndev, d ? "made" : "not made");
    if (!d) d = egl.GetDisplay(NULL);
    EGLint major = 0, minor = 0, n = 0;
    if (!d) return egl_fail("no EGLDisplay (device platform nor default)");
    if (!egl.Initialize(d, &major, &minor)) return egl_fail("eglInitialize failed");
    printf("# egl: EGL %d.%d\n", (int)major, (int)minor);
    const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig cfg;
    if (!egl.ChooseConfig(d, cfg_attr, &cfg, 1, &n) || n < 1) return egl_fail("no pbuffer/OpenGL EGL config");
    const EGLint pb_attr[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    EGLSurface s = egl.CreatePbufferSurface(d, cfg, pb_attr);
    if (!s) return egl_fail("eglCreatePbufferSurface failed");
    if (!egl.BindAPI(EGL_OPENGL_API)) return egl_fail("eglBindAPI(EGL_OPENGL_API) failed");
    EGLContext c = egl.CreateContext(d, cfg, NULL, NULL);
    if (!c) return egl_fail("eglCreateContext failed");
    if (!egl.MakeCurrent(d, s, s, c)) return egl_fail("eglMakeCurrent failed");
#define GLSYM(f) if (!(*(void **)&gl.f = egl.GetProcAddress("gl" #f))) return "gl" #f " missing";
    GLSYM(GenBuffers) GLSYM(BindBuffer) GLSYM(BufferData) GLSYM(GenTextures) GLSYM(BindTexture)
    GLSYM(TexImage2D) GLSYM(TexImage3D) GLSYM(TexParameteri) GLSYM(Finish) GLSYM(GetString)
#undef GLSYM
    /* A GL call through these pointers that sees no current context answers NULL here; the
     * interop answers would then be about a missing context, not about the cases. */
    const unsigned char *ver = gl.GetString(GL_VERSION), *ren = gl.GetString(GL_RENDERER);
    if (!ver) return "glGetString(GL_VERSION) is NULL after eglMakeCurrent: GL calls see no current context";
    printf("# gl: %s / %s\n", (const char *)ver, ren ? (const char *)ren : "?");
    return NULL;
}

/* ------------------------------------------------------------------ cases */

static const char *rcname(CUresult rc)
{
    const char *n = NULL;
    cuGetErrorName(rc, &n);
    return n ? n : "?";
}
#define P(name, call) ({ printf("%-48s ", name); fflush(stdout); CUresult r_ = (call); \
    printf("%s\n", rcname(r_)); r_; })
#define YN(name, cond) printf("%-48s %s\n", name, (cond) ? "yes" : "no")

static GLuint gl_buffer(size_t bytes)
{
    GLuint b = 0;
    gl.GenBuffers(1, &b);
    gl.BindBuffer(GL_ARRAY_BUFFER, b);
    gl.BufferData(GL_ARRAY_BUFFER, (GLsizeiptr)bytes, NULL, GL_STATIC_DRAW);
    gl.BindBuffer(GL_ARRAY_BUFFER, 0);
    return b;
}

/* 256x256 RGBA8 with its full chain (9 levels). */
static GLuint gl_texture(void)
{
    GLuint t = 0;
    gl.GenTextures(1, &t);
    gl.BindTexture(GL_TEXTURE_2D, t);
    for (int l = 0; l < 9; l++) gl.TexImage2D(GL_TEXTURE_2D, l, GL_RGBA8, 256 >> l, 256 >> l, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    gl.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 8);
    gl.BindTexture(GL_TEXTURE_2D, 0);
    return t;
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    reg_buffer_fn reg_buffer = (reg_buffer_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "cuGraphicsGLRegisterBuffer");
    reg_image_fn reg_image = (reg_image_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "cuGraphicsGLRegisterImage");
    if (!reg_buffer || !reg_image) {
        printf("# SKIPPED: this libcuda has no cuGraphicsGLRegisterBuffer/Image\n");
        return 0;
    }
    CUdevice dev;
    CUcontext ctx;
    /* The primary context: cuCtxCreate's signature differs between header versions (13.0: _v4). */
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
        cuCtxSetCurrent(ctx)) {
        printf("# SKIPPED: no CUDA context\n");
        return 0;
    }
    const char *why = egl_setup();
    if (why) {
        printf("# SKIPPED: %s\n", why);
        return 0;
    }
    printf("# section gl_interop\n");
    CUgraphicsResource r1 = NULL, r2 = NULL, rt = NULL, x = NULL;
    CUdeviceptr p;
    size_t sz;
    CUarray a;
    CUmipmappedArray m;
    GLuint buf = gl_buffer(65536), tex = gl_texture();
    gl.Finish();

    P("register buffer flags 0x10", reg_buffer(&x, buf, 0x10));
    P("register buffer READ_ONLY|WRITE_DISCARD", reg_buffer(&x, buf, 3));
    P("register buffer SURFACE_LDST", reg_buffer(&x, buf, CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST));
    if (x) cuGraphicsUnregisterResource(x), x = NULL;
    P("register buffer TEXTURE_GATHER", reg_buffer(&x, buf, CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER));
    if (x) cuGraphicsUnregisterResource(x), x = NULL;
    P("register buffer", reg_buffer(&r1, buf, 0));
    P("register same buffer twice", reg_buffer(&r2, buf, 0));
    YN("  two different handles", r1 && r2 && r1 != r2);
    P("register texture", reg_image(&rt, tex, GL_TEXTURE_2D, CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST));

    P("mapped pointer of unmapped texture", cuGraphicsResourceGetMappedPointer(&p, &sz, rt));
    P("subresource array of unmapped texture, bad index", cuGraphicsSubResourceGetMappedArray(&a, rt, 5, 0));
    P("mapped pointer unmapped, NULL size", cuGraphicsResourceGetMappedPointer(&p, NULL, r1));
    if (r2) {
        CUgraphicsResource both[2] = {r1, r2};
        if (P("map both registrations of one buffer", cuGraphicsMapResources(2, both, 0)) == CUDA_SUCCESS)
            cuGraphicsUnmapResources(2, both, 0);
    }
    P("map count 0 with a list", cuGraphicsMapResources(0, &r1, 0));
    P("map buffer", cuGraphicsMapResources(1, &r1, 0));
    P("mapped pointer NULL size", cuGraphicsResourceGetMappedPointer(&p, NULL, r1));
    P("mapped pointer NULL pointer", cuGraphicsResourceGetMappedPointer(NULL, &sz, r1));
    P("setmapflags 7 while mapped", cuGraphicsResourceSetMapFlags(r1, 7));
    P("unmap buffer", cuGraphicsUnmapResources(1, &r1, 0));
    P("setmapflags READ_ONLY", cuGraphicsResourceSetMapFlags(r1, CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY));
    P("map buffer READ_ONLY", cuGraphicsMapResources(1, &r1, 0));
    P("mapped pointer READ_ONLY", cuGraphicsResourceGetMappedPointer(&p, &sz, r1));
    P("memsetD32 into READ_ONLY mapping", cuMemsetD32(p, 0, 4));
    P("memcpyDtoH from READ_ONLY mapping", cuMemcpyDtoH(&sz, p, 4));
    P("unregister mapped buffer", cuGraphicsUnregisterResource(r1));
    P("map unregistered buffer", cuGraphicsMapResources(1, &r1, 0));
    P("unmap unregistered buffer", cuGraphicsUnmapResources(1, &r1, 0));
    if (r2) P("unregister second registration", cuGraphicsUnregisterResource(r2));

    P("map texture", cuGraphicsMapResources(1, &rt, 0));
    P("subresource array level 8", cuGraphicsSubResourceGetMappedArray(&a, rt, 0, 8));
    P("subresource array level 9", cuGraphicsSubResourceGetMappedArray(&a, rt, 0, 9));
    P("subresource array index 1 of a 2D texture", cuGraphicsSubResourceGetMappedArray(&a, rt, 1, 0));
    if (P("subresource array level 0", cuGraphicsSubResourceGetMappedArray(&a, rt, 0, 0)) == CUDA_SUCCESS) {
        CUDA_ARRAY3D_DESCRIPTOR d;
        if (P("  array descriptor", cuArray3DGetDescriptor(&d, a)) == CUDA_SUCCESS)
            printf("%-48s %zux%zux%zu format 0x%x x%u flags 0x%x\n", "  descriptor", d.Width, d.Height, d.Depth,
                   (unsigned)d.Format, d.NumChannels, d.Flags);
        P("arraydestroy of a mapped array", cuArrayDestroy(a));
    }
    P("mipmapped array of texture", cuGraphicsResourceGetMappedMipmappedArray(&m, rt));
    P("unmap texture", cuGraphicsUnmapResources(1, &rt, 0));
    P("unregister texture", cuGraphicsUnregisterResource(rt));
    return 0;
}
