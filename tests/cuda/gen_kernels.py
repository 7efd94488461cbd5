#!/usr/bin/env python3
"""Compiles libcuda's own test kernels (tests/cuda/kernels/*.cu) and the vectorAddMMAP example's
kernel (examples/vectorAddMMAP/vectorAdd_kernel.cu) to PTX with NVIDIA's NVRTC, as
tests/ptx/gen_ptx.py does for the translator's kernels (same NVRTC, same options).

The PTX is kept beside the sources (tests/cuda/fixtures/, examples/vectorAddMMAP/) so that the
tests and the example run where NVRTC is not installed. `--out DIR` writes every file into DIR
instead (the GPU machine's probe compiles with that machine's NVRTC). Exit 77: NVRTC not found.

usage: gen_kernels.py [--out DIR] [--arch compute_75]
"""
import argparse
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(REPO, "tests", "ptx"))
import gen_ptx  # noqa: E402

SOURCES = [(cu, os.path.join(HERE, "fixtures")) for cu in sorted(glob.glob(os.path.join(HERE, "kernels", "*.cu")))]
SOURCES.append((os.path.join(REPO, "examples", "vectorAddMMAP", "vectorAdd_kernel.cu"),
                os.path.join(REPO, "examples", "vectorAddMMAP")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    ap.add_argument("--arch", default="compute_75")
    args = ap.parse_args()
    path = gen_ptx.find_nvrtc()
    if not path:
        print("gen_kernels: NVRTC not found (pip install nvidia-cuda-nvrtc into .venv: scripts/setup.sh); skipped")
        return 77
    nv = gen_ptx.Nvrtc(path)
    options = [f"--gpu-architecture={args.arch}", "-default-device", "-std=c++17"]
    for cu, where in SOURCES:
        out = args.out or where
        os.makedirs(out, exist_ok=True)
        base = os.path.splitext(os.path.basename(cu))[0]
        with open(cu) as f:
            text = nv.compile(f.read(), base + ".cu", options)
        with open(os.path.join(out, base + ".ptx"), "w") as f:
            f.write(text)
        print(f"gen_kernels: {base}.ptx ({text.count(chr(10))} lines, NVRTC {nv.version}, {args.arch})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
