#!/usr/bin/env python3
"""opencl_clinfo: clinfo, through the ICD loader with OCL_ICD_VENDORS, lists vmgpu's platform
and device with the values the ICD promises. Exit 77 (skipped) only when clinfo is missing."""
import shutil
import subprocess
import sys

clinfo = shutil.which("clinfo")
if not clinfo:
    print("SKIP: clinfo is not installed (scripts/setup.sh installs it)")
    sys.exit(77)
out = subprocess.run([clinfo], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                     timeout=100).stdout
print(out)
want = [
    ("Platform Name", "vmgpu"),
    ("Platform Profile", "EMBEDDED_PROFILE"),
    ("Platform Extensions function suffix", "VMGPU"),
    ("Device Type", "Accelerator"),
    ("Device Profile", "EMBEDDED_PROFILE"),
    ("Compiler Available", "Yes"),  # the SIMT unit with clang-14 and ld.lld-14
    ("Image support", "Yes"),
    ("Max clock frequency", "50MHz"),
    ("Alignment of base address", "1024 bits"),
    ("Built-in kernels", "vmgpu_fill_i32;vmgpu_copy_i32;vmgpu_add_i32;vmgpu_scale_i32;"
                         "vmgpu_axpy_i32;vmgpu_reduce_sum_i32"),
]
fails = 0
lines = out.splitlines()
for key, val in want:
    ok = any(l.strip().startswith(key) and val in l for l in lines)
    print(("PASS " if ok else "FAIL ") + f"{key}: {val}")
    fails += not ok
ok = any("Platform Extensions" in l and "cl_khr_icd" in l for l in lines)
print(("PASS " if ok else "FAIL ") + "Platform Extensions: cl_khr_icd")
fails += not ok
sys.exit(1 if fails else 0)
