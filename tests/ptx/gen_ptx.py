#!/usr/bin/env python3
"""Compiles the CUDA C test kernels (tests/ptx/kernels/*.cu) to PTX with NVIDIA's NVRTC.

NVRTC comes from PyPI (nvidia-cuda-nvrtc, installed by scripts/setup.sh into the repository's
.venv) and runs without a GPU. The PTX it writes is kept in tests/ptx/fixtures/ so that the
translator's tests run where NVRTC is not installed; `--out DIR` writes elsewhere (the ctest
ptx_nvrtc_fresh translates fresh output). Exit status 77 means NVRTC was not found (a skip).

usage: gen_ptx.py [--out DIR] [--arch compute_75]
"""
import argparse
import ctypes
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def find_nvrtc():
    """libnvrtc.so from the nvidia-cuda-nvrtc wheel (this interpreter's site-packages, VMGPU_VENV
    or the repository's .venv), or from the system's library path."""
    roots = [sys.prefix, os.environ.get("VMGPU_VENV", ""), os.path.join(REPO, ".venv")]
    for root in roots:
        if not root:
            continue
        for pat in ("lib/python3*/site-packages/nvidia/cu*/lib/libnvrtc.so*",
                    "lib/python3*/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so*"):
            hits = sorted(p for p in glob.glob(os.path.join(root, pat)) if "builtins" not in p)
            if hits:
                return hits[0]
    import ctypes.util
    return ctypes.util.find_library("nvrtc")


class Nvrtc:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        L = self.lib
        L.nvrtcGetErrorString.restype = ctypes.c_char_p
        L.nvrtcCreateProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p,
                                         ctypes.c_char_p, ctypes.c_int, ctypes.c_void_p,
                                         ctypes.c_void_p]
        L.nvrtcCompileProgram.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                          ctypes.POINTER(ctypes.c_char_p)]
        L.nvrtcGetPTXSize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        L.nvrtcGetPTX.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        L.nvrtcGetProgramLogSize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        L.nvrtcGetProgramLog.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        L.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        major, minor = ctypes.c_int(), ctypes.c_int()
        L.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        self.version = f"{major.value}.{minor.value}"

    def check(self, rc, what):
        if rc != 0:
            raise RuntimeError(f"{what}: {self.lib.nvrtcGetErrorString(rc).decode()}")

    def compile(self, source, name, options):
        prog = ctypes.c_void_p()
        self.check(self.lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(),
                                               0, None, None), "nvrtcCreateProgram")
        try:
            opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
            rc = self.lib.nvrtcCompileProgram(prog, len(options), opts)
            n = ctypes.c_size_t()
            self.lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
            log = ctypes.create_string_buffer(n.value)
            self.lib.nvrtcGetProgramLog(prog, log)
            if rc != 0:
                raise RuntimeError(f"{name}: {log.value.decode(errors='replace')}")
            self.lib.nvrtcGetPTXSize(prog, ctypes.byref(n))
            ptx = ctypes.create_string_buffer(n.value)
            self.check(self.lib.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX")
            return ptx.value.decode()
        finally:
            self.lib.nvrtcDestroyProgram(ctypes.byref(prog))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(HERE, "fixtures"))
    ap.add_argument("--arch", default="compute_75")
    args = ap.parse_args()
    path = find_nvrtc()
    if not path:
        print("gen_ptx: NVRTC not found (pip install nvidia-cuda-nvrtc into .venv: scripts/setup.sh); skipped")
        return 77
    nv = Nvrtc(path)
    os.makedirs(args.out, exist_ok=True)
    options = [f"--gpu-architecture={args.arch}", "-default-device", "-std=c++17"]
    for cu in sorted(glob.glob(os.path.join(HERE, "kernels", "*.cu"))):
        base = os.path.splitext(os.path.basename(cu))[0]
        with open(cu) as f:
            text = f.read()
        # a kernel file may add options on its first line: "// nvrtc-options: -use_fast_math"
        extra = []
        first = text.split("\n", 1)[0]
        if first.startswith("// nvrtc-options:"):
            extra = first.split(":", 1)[1].split()
        ptx = nv.compile(text, base + ".cu", options + extra)
        with open(os.path.join(args.out, base + ".ptx"), "w") as f:
            f.write(ptx)
        print(f"gen_ptx: {base}.ptx ({ptx.count(chr(10))} lines, NVRTC {nv.version}, {args.arch})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
