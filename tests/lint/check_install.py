#!/usr/bin/env python3
"""install_layout: installs the build tree into a fresh prefix and checks what a user gets.

Checks that every expected file is there, that pkg-config reads the installed vmgpu.pc and
points at the installed headers, that each installed header compiles on its own in a C
program, and that the program links with `pkg-config --libs vmgpu`.
"""
import argparse
import os
import shutil
import subprocess
import sys

failures = []


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def run(cmd, env=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    return r.returncode, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--build", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--libdir", default="lib")
    ap.add_argument("--expect", nargs="*", default=[])
    args = ap.parse_args()

    prefix = os.path.abspath(args.prefix)
    shutil.rmtree(prefix, ignore_errors=True)
    rc, out = run([args.cmake, "--install", args.build, "--prefix", prefix])
    if not check(rc == 0, f"cmake --install {args.build} --prefix {prefix}"):
        print(out)
        return 1

    for rel in args.expect:
        check(os.path.isfile(os.path.join(prefix, rel)), f"installed {rel}")
    bench = os.path.join(prefix, "bin", "vmgpu-bench")
    if os.path.exists(bench):
        check(os.access(bench, os.X_OK), "bin/vmgpu-bench is executable")

    pc_dir = os.path.join(prefix, args.libdir, "pkgconfig")
    env = dict(os.environ, PKG_CONFIG_PATH=pc_dir, PKG_CONFIG_LIBDIR=pc_dir)
    rc, cflags = run(["pkg-config", "--cflags", "vmgpu"], env)
    check(rc == 0, f"pkg-config --cflags vmgpu: {cflags.strip()}")
    incdir = os.path.join(prefix, "include")
    check(f"-I{incdir}" in cflags.split(), f"Cflags name the installed include dir {incdir}")
    rc, libs = run(["pkg-config", "--libs", "vmgpu"], env)
    check(rc == 0, f"pkg-config --libs vmgpu: {libs.strip()}")

    headers = sorted(h for h in os.listdir(os.path.join(incdir, "vmgpu")) if h.endswith(".h"))
    check("regs.h" in headers, "include/vmgpu/regs.h installed")
    work = os.path.join(prefix, "_check")
    os.makedirs(work, exist_ok=True)
    objs = []
    for h in headers:
        # One translation unit per header: each must compile with nothing included before it.
        src = os.path.join(work, f"use_{h[:-2]}.c")
        with open(src, "w") as f:
            f.write(f"#include <vmgpu/{h}>\nint vmgpu_check_{h[:-2]}(void) {{ return 0; }}\n")
        obj = src[:-2] + ".o"
        rc, out = run([args.cc, "-std=c11", "-Wall", "-Werror", "-c", src, "-o", obj] + cflags.split())
        if not check(rc == 0, f"<vmgpu/{h}> compiles on its own as C11"):
            print(out)
        objs.append(obj)
    main_c = os.path.join(work, "main.c")
    # With the transport library installed, the program also opens the simulated device through
    # it: that proves the libraries link in the order the .pc file gives and the model runs.
    use_sim = "vmgpu_hal.h" in headers and os.path.isfile(
        os.path.join(prefix, args.libdir, "libvmgpu_sim.a"))
    with open(main_c, "w") as f:
        f.write("#include <vmgpu/regs.h>\n#include <stdio.h>\n")
        if use_sim:
            f.write("#include <vmgpu/vmgpu_hal.h>\n"
                    "int main(void) {\n"
                    "  char err[256] = \"\";\n"
                    "  uint32_t id = 0;\n"
                    "  vmgpu_hal *h = vmgpu_hal_open(\"sim\", err, sizeof err);\n"
                    "  if (!h) { printf(\"open failed: %s\\n\", err); return 1; }\n"
                    "  int rc = h->ops->reg_read(h, VMGPU_REG_ID, &id);\n"
                    "  vmgpu_hal_close(h);\n"
                    "  printf(\"%08x\\n\", rc == 0 ? (unsigned)id : 0u);\n"
                    "  return rc;\n}\n")
        else:
            f.write("int main(void) { printf(\"%08x\\n\", (unsigned)VMGPU_ID_MAGIC); return 0; }\n")
    exe = os.path.join(work, "main")
    rc, out = run([args.cc, main_c] + [o for o in objs if os.path.exists(o)] + cflags.split()
                  + ["-o", exe] + libs.split())
    if check(rc == 0, "a C program links with pkg-config --libs vmgpu"):
        rc, out = run([exe])
        check(rc == 0 and out.strip() == "564d4750",
              ("it opens the simulated device and reads ID = VMGPU_ID_MAGIC" if use_sim else
               "it runs and sees VMGPU_ID_MAGIC from the installed regs.h") + f" ({out.strip()})")
    else:
        print(out)

    print(f"install_layout: {len(args.expect)} expected files, {len(headers)} headers, "
          f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
