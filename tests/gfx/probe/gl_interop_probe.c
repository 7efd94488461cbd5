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
 * The context is made that way, but NVIDIA's libcuda itself dlopens libEGL.so.1 and libGL.so.1
 * during cuGraphicsGLRegister* and answers CUDA_ERROR_OPERATING_SYSTEM without them; egl_shim.c
 * builds stand-ins for both (see its header), which this probe then loads as its libEGL.so.1:
 *     gcc -O1 -shared -fPIC -o D/libEGL.so.1 tests/gfx/probe/egl_shim.c -ldl
 *     gcc -O1 -shared -fPIC -DEGL_SHIM_GLX -o D/libGL.so.1 tests/gfx/probe/egl_shim.c -ldl
 *     LD_LIBRARY_PATH=D:/usr/local/nvidia/lib64 EGL_SHIM_TRACE=1 ./gl_interop_probe > nvidia_gl_interop.txt
 * The vendor ABI code both use is egl_vendor.h.
 * Recorded: nvidia_gl_interop_h100_580.159.04.txt. Should a case crash the driver, run again
 * with PROBE_SKIP="case name|other case" to record the cases after it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

/* ------------------------------------------------------------ EGL and GL, by hand */

#include "egl_vendor.h"

typedef unsigned GLuint, GLenum;
typedef int GLint, GLsizei;
typedef intptr_t GLsizeiptr;

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

/* ------------------------------------------- without libEGL.so.1: egl_vendor.h's dispatcher */

static void *vw_get_proc_address(const char *name) { return vnd.im.getProcAddress(name); }

static char vnd_why[512];

static const char *vnd_setup(void)
{
    const char *name = getenv("GL_PROBE_EGL_VENDOR");
    if (!name || !*name) name = "libEGL_nvidia.so.0";
    char why[400];
    if (vnd_load(name, why, sizeof why)) {
        snprintf(vnd_why, sizeof vnd_why, "libEGL.so.1 not found, and %s", why);
        return vnd_why;
    }
    uint32_t accepted = vnd.abi;
    printf("# egl: no libEGL.so.1; %s's __egl_Main accepted EGL vendor ABI %u.%u%s\n", name,
           (unsigned)(accepted >> 16), (unsigned)(accepted & 0xffff),
           accepted == 2 ? "" : " (this probe implements 0.2: if anything below fails, that is why)");
    if (!vnd.im.getSupportsAPI(EGL_OPENGL_API)) {
        snprintf(vnd_why, sizeof vnd_why, "%s says it does not support EGL_OPENGL_API", name);
        return vnd_why;
    }
    /* The vendor's own entry points, as libEGL fills its static dispatch table. */
#define VSYM(dst, f) if (!(*(void **)&(dst) = vnd.im.getProcAddress("egl" #f))) { \
        snprintf(vnd_why, sizeof vnd_why, "%s's getProcAddress has no egl" #f, name); return vnd_why; }
    VSYM(egl.Initialize, Initialize) VSYM(egl.ChooseConfig, ChooseConfig)
    VSYM(egl.CreatePbufferSurface, CreatePbufferSurface) VSYM(egl.CreateContext, CreateContext)
#undef VSYM
    egl.GetDisplay = vnd_get_display;
    egl.GetPlatformDisplayEXT = vnd_get_platform_display_int;
    egl.QueryDevicesEXT = vnd.QueryDevicesEXT ? vnd_query_devices : NULL;
    egl.BindAPI = vnd_bind_api;
    egl.MakeCurrent = vnd_make_current;
    egl.GetProcAddress = vw_get_proc_address;
    egl.GetError = vnd_get_error;
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
        /* egl_shim.c's libEGL.so.1 says which vendor it dispatches to. */
        const char *(*shim_info)(void) = (const char *(*)(void))(uintptr_t)dlsym(lib, "vmgpu_egl_shim_info");
        printf("# egl: libEGL.so.1%s%s\n", shim_info ? ": " : "", shim_info ? shim_info() : "");
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
/* PROBE_SKIP="case|case" (as in tests/cuda/probe) prints "case SKIPPED" instead of calling: a
 * case that crashes the driver can be stepped over so the cases after it get recorded. */
#define NOT_RUN ((CUresult)0x7fffffff)
#include "../../cuda/probe/probe_skip.h"
#define P(name, call) ({ printf("%-48s ", name); fflush(stdout); CUresult r_ = NOT_RUN; \
    if (skipped(name)) printf("SKIPPED\n"); else { r_ = (call); printf("%s\n", rcname(r_)); } r_; })
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
    P("unmap unmapped buffer", cuGraphicsUnmapResources(1, &r1, 0));
    P("map buffer", cuGraphicsMapResources(1, &r1, 0));
    P("mapped pointer NULL size", cuGraphicsResourceGetMappedPointer(&p, NULL, r1));
    P("mapped pointer NULL pointer", cuGraphicsResourceGetMappedPointer(NULL, &sz, r1));
    P("mapped pointer NULL both", cuGraphicsResourceGetMappedPointer(NULL, NULL, r1));
    P("subresource array of mapped buffer", cuGraphicsSubResourceGetMappedArray(&a, r1, 0, 0));
    P("mipmapped array of mapped buffer", cuGraphicsResourceGetMappedMipmappedArray(&m, r1));
    P("setmapflags 7 while mapped", cuGraphicsResourceSetMapFlags(r1, 7));
    P("setmapflags READ_ONLY while mapped", cuGraphicsResourceSetMapFlags(r1, CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY));
    P("unmap buffer", cuGraphicsUnmapResources(1, &r1, 0));
    P("setmapflags READ_ONLY", cuGraphicsResourceSetMapFlags(r1, CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY));
    P("map buffer READ_ONLY", cuGraphicsMapResources(1, &r1, 0));
    P("mapped pointer READ_ONLY", cuGraphicsResourceGetMappedPointer(&p, &sz, r1));
    P("memsetD32 into READ_ONLY mapping", cuMemsetD32(p, 0, 4));
    P("memcpyDtoH from READ_ONLY mapping", cuMemcpyDtoH(&sz, p, 4));
    {
        /* Whether the READ_ONLY memset wrote, or was dropped. */
        uint32_t back[4] = {0};
        if (P("memsetD32 0x5a5a5a5a into READ_ONLY mapping", cuMemsetD32(p, 0x5a5a5a5a, 4)) == CUDA_SUCCESS &&
            P("  ctx synchronize after it", cuCtxSynchronize()) == CUDA_SUCCESS &&
            P("  memcpyDtoH of it", cuMemcpyDtoH(back, p, sizeof back)) == CUDA_SUCCESS)
            YN("  READ_ONLY memset visible", back[0] == 0x5a5a5a5a && back[3] == 0x5a5a5a5a);
    }
    P("unregister mapped buffer", cuGraphicsUnregisterResource(r1));
    P("mapped pointer after refused unregister", cuGraphicsResourceGetMappedPointer(&p, &sz, r1));
    P("map unregistered buffer", cuGraphicsMapResources(1, &r1, 0));
    P("unmap unregistered buffer", cuGraphicsUnmapResources(1, &r1, 0));
    if (r2) P("unregister second registration", cuGraphicsUnregisterResource(r2));
    P("unregister buffer after unmap", cuGraphicsUnregisterResource(r1));

    P("map texture", cuGraphicsMapResources(1, &rt, 0));
    P("mapped pointer of mapped texture", cuGraphicsResourceGetMappedPointer(&p, &sz, rt));
    P("subresource array level 8", cuGraphicsSubResourceGetMappedArray(&a, rt, 0, 8));
    P("subresource array level 9", cuGraphicsSubResourceGetMappedArray(&a, rt, 0, 9));
    P("subresource array index 1 of a 2D texture", cuGraphicsSubResourceGetMappedArray(&a, rt, 1, 0));
    P("subresource array NULL out", cuGraphicsSubResourceGetMappedArray(NULL, rt, 0, 0));
    P("mipmapped array NULL out", cuGraphicsResourceGetMappedMipmappedArray(NULL, rt));
    if (P("subresource array level 0", cuGraphicsSubResourceGetMappedArray(&a, rt, 0, 0)) == CUDA_SUCCESS) {
        CUDA_ARRAY3D_DESCRIPTOR d;
        if (P("  array descriptor", cuArray3DGetDescriptor(&d, a)) == CUDA_SUCCESS)
            printf("%-48s %zux%zux%zu format 0x%x x%u flags 0x%x\n", "  descriptor", d.Width, d.Height, d.Depth,
                   (unsigned)d.Format, d.NumChannels, d.Flags);
        CUarray a2 = NULL;
        if (P("subresource array level 0 again", cuGraphicsSubResourceGetMappedArray(&a2, rt, 0, 0)) == CUDA_SUCCESS)
            YN("  same array", a2 == a);
    }
    P("mipmapped array of texture", cuGraphicsResourceGetMappedMipmappedArray(&m, rt));
    P("unmap texture", cuGraphicsUnmapResources(1, &rt, 0));
    P("unmap texture twice", cuGraphicsUnmapResources(1, &rt, 0));
    P("unregister texture", cuGraphicsUnregisterResource(rt));
    P("unregister texture twice", cuGraphicsUnregisterResource(rt));

    /* Last, because in the first run (driver 580.159.04) the driver answered CUDA_SUCCESS here and
     * then crashed in the texture's unregister. */
    CUgraphicsResource rd = NULL;
    if (P("register texture for arraydestroy", reg_image(&rd, tex, GL_TEXTURE_2D, 0)) == CUDA_SUCCESS &&
        P("map it", cuGraphicsMapResources(1, &rd, 0)) == CUDA_SUCCESS &&
        P("its subresource array level 0", cuGraphicsSubResourceGetMappedArray(&a, rd, 0, 0)) == CUDA_SUCCESS) {
        P("arraydestroy of a mapped array", cuArrayDestroy(a));
        CUarray a3 = NULL;
        if (P("subresource array level 0 after arraydestroy", cuGraphicsSubResourceGetMappedArray(&a3, rd, 0, 0)) == CUDA_SUCCESS)
            YN("  same array as the destroyed one", a3 == a);
        P("unmap after arraydestroy", cuGraphicsUnmapResources(1, &rd, 0));
        P("unregister after arraydestroy", cuGraphicsUnregisterResource(rd));
    }
    printf("# done\n");
    return 0;
}
