/*
 * Checks egl_shim.c's libEGL.so.1 and libGL.so.1 the way libcuda would meet them: a headless
 * OpenGL context made through the shim's exported EGL entry points, then the current context as
 * seen by eglGetCurrent*, by GL functions from eglGetProcAddress, by GL functions dlsym'd from
 * libGL.so.1 and from its glXGetProcAddressARB. Prints one line per check; exits 1 on a failure.
 *
 *     gcc -O1 -shared -fPIC -o D/libEGL.so.1 tests/gfx/probe/egl_shim.c -ldl
 *     gcc -O1 -shared -fPIC -DEGL_SHIM_GLX -o D/libGL.so.1 tests/gfx/probe/egl_shim.c -ldl
 *     gcc -O1 -o egl_shim_check tests/gfx/probe/egl_shim_check.c -ldl
 *     LD_LIBRARY_PATH=D EGL_SHIM_VENDOR=libEGL_mesa.so.0 ./egl_shim_check     (Mesa, llvmpipe)
 *     LD_LIBRARY_PATH=D:/usr/local/nvidia/lib64 ./egl_shim_check             (NVIDIA)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void *EGLDisplay, *EGLConfig, *EGLSurface, *EGLContext, *EGLDeviceEXT;
typedef int EGLint;
typedef unsigned EGLBoolean, EGLenum;
typedef void (*proc)(void);

#define EGL_NONE 0x3038
#define EGL_SURFACE_TYPE 0x3033
#define EGL_PBUFFER_BIT 0x0001
#define EGL_RENDERABLE_TYPE 0x3040
#define EGL_OPENGL_BIT 0x0008
#define EGL_WIDTH 0x3057
#define EGL_HEIGHT 0x3056
#define EGL_OPENGL_API 0x30A2
#define EGL_PLATFORM_DEVICE_EXT 0x313F
#define EGL_DRAW 0x3059
#define EGL_READ 0x305A
#define EGL_SUCCESS 0x3000
#define GL_VERSION 0x1F02
#define GL_RENDERER 0x1F01
#define GL_ARRAY_BUFFER 0x8892
#define GL_ARRAY_BUFFER_BINDING 0x8894
#define GL_STATIC_DRAW 0x88E4
#define GL_BUFFER_SIZE 0x8764

static int failures;

static void check(const char *what, int ok)
{
    printf("%-64s %s\n", what, ok ? "ok" : "FAILED");
    if (!ok) failures++;
}

#define SYM(lib, T, name) ((T)(uintptr_t)dlsym(lib, name))

/* "--exports": for each name on stdin (one a line, such as the names LD_DEBUG=symbols shows
 * being looked up in the shims), says which shim exports it, or MISSING. */
static int exports_mode(void)
{
    void *egl = dlopen("libEGL.so.1", RTLD_LAZY), *gl = dlopen("libGL.so.1", RTLD_LAZY);
    char name[256];
    int missing = 0;
    while (fgets(name, sizeof name, stdin)) {
        name[strcspn(name, "\r\n")] = 0;
        if (!*name) continue;
        int in_egl = egl && dlsym(egl, name), in_gl = gl && dlsym(gl, name);
        printf("%-48s %s%s%s\n", name, in_egl ? "libEGL.so.1 " : "", in_gl ? "libGL.so.1" : "", in_egl || in_gl ? "" : "MISSING");
        missing += !in_egl && !in_gl;
    }
    printf("%d missing\n", missing);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1 && !strcmp(argv[1], "--exports")) return exports_mode();
    void *egl = dlopen("libEGL.so.1", RTLD_NOW);
    if (!egl) {
        printf("libEGL.so.1 did not load: %s\n", dlerror());
        return 1;
    }
    const char *(*info)(void) = SYM(egl, const char *(*)(void), "vmgpu_egl_shim_info");
    check("libEGL.so.1 is egl_shim.c's (exports vmgpu_egl_shim_info)", info != NULL);
    if (!info) return 1;
    printf("# %s\n", info());

    proc (*gpa)(const char *) = SYM(egl, proc(*)(const char *), "eglGetProcAddress");
    EGLBoolean (*qdev)(EGLint, EGLDeviceEXT *, EGLint *) = SYM(egl, EGLBoolean(*)(EGLint, EGLDeviceEXT *, EGLint *), "eglQueryDevicesEXT");
    EGLDisplay (*gpd)(EGLenum, void *, const EGLint *) = SYM(egl, EGLDisplay(*)(EGLenum, void *, const EGLint *), "eglGetPlatformDisplayEXT");
    EGLDisplay (*gd)(void *) = SYM(egl, EGLDisplay(*)(void *), "eglGetDisplay");
    EGLBoolean (*init)(EGLDisplay, EGLint *, EGLint *) = SYM(egl, EGLBoolean(*)(EGLDisplay, EGLint *, EGLint *), "eglInitialize");
    EGLBoolean (*choose)(EGLDisplay, const EGLint *, EGLConfig *, EGLint, EGLint *) =
        SYM(egl, EGLBoolean(*)(EGLDisplay, const EGLint *, EGLConfig *, EGLint, EGLint *), "eglChooseConfig");
    EGLSurface (*pbuf)(EGLDisplay, EGLConfig, const EGLint *) = SYM(egl, EGLSurface(*)(EGLDisplay, EGLConfig, const EGLint *), "eglCreatePbufferSurface");
    EGLBoolean (*bind)(EGLenum) = SYM(egl, EGLBoolean(*)(EGLenum), "eglBindAPI");
    EGLenum (*qapi)(void) = SYM(egl, EGLenum(*)(void), "eglQueryAPI");
    EGLContext (*cctx)(EGLDisplay, EGLConfig, EGLContext, const EGLint *) =
        SYM(egl, EGLContext(*)(EGLDisplay, EGLConfig, EGLContext, const EGLint *), "eglCreateContext");
    EGLBoolean (*mc)(EGLDisplay, EGLSurface, EGLSurface, EGLContext) =
        SYM(egl, EGLBoolean(*)(EGLDisplay, EGLSurface, EGLSurface, EGLContext), "eglMakeCurrent");
    EGLContext (*cur_ctx)(void) = SYM(egl, EGLContext(*)(void), "eglGetCurrentContext");
    EGLDisplay (*cur_dpy)(void) = SYM(egl, EGLDisplay(*)(void), "eglGetCurrentDisplay");
    EGLSurface (*cur_surf)(EGLint) = SYM(egl, EGLSurface(*)(EGLint), "eglGetCurrentSurface");
    EGLint (*err)(void) = SYM(egl, EGLint(*)(void), "eglGetError");
    EGLBoolean (*dctx)(EGLDisplay, EGLContext) = SYM(egl, EGLBoolean(*)(EGLDisplay, EGLContext), "eglDestroyContext");
    EGLBoolean (*dsurf)(EGLDisplay, EGLSurface) = SYM(egl, EGLBoolean(*)(EGLDisplay, EGLSurface), "eglDestroySurface");
    EGLBoolean (*term)(EGLDisplay) = SYM(egl, EGLBoolean(*)(EGLDisplay), "eglTerminate");
    check("EGL 1.5 entry points exported by name", gpa && qdev && gpd && gd && init && choose && pbuf && bind && qapi &&
                                                    cctx && mc && cur_ctx && cur_dpy && cur_surf && err && dctx && dsurf && term);
    if (failures) return 1;
    check("eglGetProcAddress(eglQueryDevicesEXT) is the exported one", gpa("eglQueryDevicesEXT") == (proc)(uintptr_t)qdev);
    check("eglGetProcAddress(NULL) is NULL", gpa(NULL) == NULL);
    check("eglGetProcAddress(eglNoSuchFunction) is NULL", gpa("eglNoSuchFunction") == NULL);

    EGLDisplay d = NULL;
    EGLDeviceEXT devs[8];
    EGLint ndev = 0;
    if (qdev(8, devs, &ndev) && ndev > 0) d = gpd(EGL_PLATFORM_DEVICE_EXT, devs[0], NULL);
    printf("# %d EGL devices, device-platform display %s\n", (int)ndev, d ? "made" : "not made");
    if (!d) d = gd(NULL);
    check("an EGLDisplay", d != NULL);
    EGLint major = 0, minor = 0, n = 0;
    check("eglInitialize", d && init(d, &major, &minor));
    printf("# EGL %d.%d\n", (int)major, (int)minor);
    const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig cfg = NULL;
    check("eglChooseConfig: a pbuffer/OpenGL config", choose(d, cfg_attr, &cfg, 1, &n) && n == 1);
    const EGLint pb_attr[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    EGLSurface s = pbuf(d, cfg, pb_attr);
    check("eglCreatePbufferSurface", s != NULL);
    check("eglBindAPI(EGL_OPENGL_API)", bind(EGL_OPENGL_API));
    check("eglQueryAPI is EGL_OPENGL_API", qapi() == EGL_OPENGL_API);
    check("eglBindAPI(0x1234) fails", !bind(0x1234));
    check("  and eglGetError says EGL_BAD_PARAMETER", err() == 0x300C);
    EGLContext c = cctx(d, cfg, NULL, NULL);
    check("eglCreateContext", c != NULL);
    check("nothing current before eglMakeCurrent", cur_ctx() == NULL && cur_dpy() == NULL);
    check("eglMakeCurrent", c && s && mc(d, s, s, c));
    check("eglGetCurrentContext/Display/Surface answer what was made current",
          cur_ctx() == c && cur_dpy() == d && cur_surf(EGL_DRAW) == s && cur_surf(EGL_READ) == s);
    check("eglGetError is EGL_SUCCESS", err() == EGL_SUCCESS);

    const unsigned char *(*gs)(unsigned) = (const unsigned char *(*)(unsigned))gpa("glGetString");
    const unsigned char *ver = gs ? gs(GL_VERSION) : NULL, *ren = gs ? gs(GL_RENDERER) : NULL;
    check("glGetString(GL_VERSION) through eglGetProcAddress", ver != NULL);
    if (ver) printf("# gl: %s / %s\n", (const char *)ver, ren ? (const char *)ren : "?");

    /* libGL.so.1: no GLX context while an EGL one is current; GL functions by name and by
     * glXGetProcAddressARB reach the current context. */
    void *gl = dlopen("libGL.so.1", RTLD_NOW);
    check("libGL.so.1 loads", gl != NULL);
    if (gl) {
        void *(*glx_cur)(void) = SYM(gl, void *(*)(void), "glXGetCurrentContext");
        proc (*glx_gpa)(const unsigned char *) = SYM(gl, proc(*)(const unsigned char *), "glXGetProcAddressARB");
        check("glXGetCurrentContext exported and NULL", glx_cur && glx_cur() == NULL);
        const unsigned char *(*gs2)(unsigned) = SYM(gl, const unsigned char *(*)(unsigned), "glGetString");
        const unsigned char *v2 = gs2 ? gs2(GL_VERSION) : NULL;
        check("libGL.so.1's glGetString (trampoline) answers the same version", v2 && ver && !strcmp((const char *)v2, (const char *)ver));
        check("  and again (slot filled)", gs2 && gs2(GL_VERSION) == v2);
        void (*gen)(int, unsigned *) = SYM(gl, void (*)(int, unsigned *), "glGenBuffers");
        void (*bindb)(unsigned, unsigned) = SYM(gl, void (*)(unsigned, unsigned), "glBindBuffer");
        void (*data)(unsigned, intptr_t, const void *, unsigned) = SYM(gl, void (*)(unsigned, intptr_t, const void *, unsigned), "glBufferData");
        void (*geti)(unsigned, int *) = SYM(gl, void (*)(unsigned, int *), "glGetIntegerv");
        void (*bparam)(unsigned, unsigned, int *) = glx_gpa ? (void (*)(unsigned, unsigned, int *))glx_gpa((const unsigned char *)"glGetBufferParameteriv") : NULL;
        unsigned (*glerr)(void) = SYM(gl, unsigned (*)(void), "glGetError");
        check("glXGetProcAddressARB(glGetBufferParameteriv)", bparam != NULL);
        check("glXGetProcAddressARB(glXNoSuchFunction) is NULL", glx_gpa && glx_gpa((const unsigned char *)"glXNoSuchFunction") == NULL);
        if (gen && bindb && data && geti && bparam && glerr) {
            unsigned b = 0;
            int bound = 0, size = 0;
            gen(1, &b);
            bindb(GL_ARRAY_BUFFER, b);
            data(GL_ARRAY_BUFFER, 4096, NULL, GL_STATIC_DRAW);
            geti(GL_ARRAY_BUFFER_BINDING, &bound);
            bparam(GL_ARRAY_BUFFER, GL_BUFFER_SIZE, &size);
            check("a GL buffer through libGL.so.1: bound name and size read back", b != 0 && bound == (int)b && size == 4096);
            check("glGetError is GL_NO_ERROR", glerr() == 0);
        } else {
            check("GL buffer functions from libGL.so.1", 0);
        }
    }

    check("eglMakeCurrent(release)", mc(d, NULL, NULL, NULL));
    check("nothing current after release", cur_ctx() == NULL && cur_dpy() == NULL && cur_surf(EGL_DRAW) == NULL);
    check("eglDestroyContext, eglDestroySurface", dctx(d, c) && dsurf(d, s));
    check("eglTerminate", term(d));
    printf("%d failures\n", failures);
    return failures != 0;
}
