#!/usr/bin/env python3
"""Run cuda_probe against vmgpu's libcuda and compare each answer with NVIDIA's recorded one.
Known, documented deviations (docs/cuda.md) are listed here with their reason."""
import subprocess
import sys

DEVIATIONS = {
    "granularity": "vmgpu's allocation granularity is 64 KiB (VMGPU_GRANULE), NVIDIA's 2 MiB",
    "map past reservation": "NVIDIA maps past the end of the reservation (its reservation is padded); "
                            "vmgpu refuses like any range outside a reservation (NOT_SUPPORTED)",
}

probe, recorded = sys.argv[1], sys.argv[2]
def parse(text):
    out = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, _, val = line.rstrip().rpartition(" ")
        out[name.strip()] = val if name.strip() else ""
    return out
nv = parse(open(recorded).read())
vm = parse(subprocess.run([probe], capture_output=True, text=True, check=True).stdout)
same = diff = dev = 0
for k, v in nv.items():
    got = vm.get(k, "<missing>")
    if got == v:
        same += 1
    elif k in DEVIATIONS:
        dev += 1
        print(f"deviation  {k:38s} NVIDIA {v}, vmgpu {got}: {DEVIATIONS[k]}")
    else:
        diff += 1
        print(f"DIFFERENT  {k:38s} NVIDIA {v}, vmgpu {got}")
print(f"{len(nv)} cases: {same} match NVIDIA, {dev} documented deviations, {diff} unexplained differences")
sys.exit(1 if diff else 0)
