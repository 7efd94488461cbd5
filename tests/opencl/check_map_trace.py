#!/usr/bin/env python3
"""opencl_map_trace: with VMGPU_TRACE=1, a map/unmap of a USE_HOST_PTR buffer issues no DMA
command (zero copy), while a device buffer's map and unmap each issue one DMA_COPY."""
import os
import subprocess
import sys

env = dict(os.environ, VMGPU_TRACE="1")
r = subprocess.run([sys.argv[1]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                   env=env, timeout=280)
if r.returncode:
    print(r.stderr[-3000:])
    print(f"FAIL: program exited {r.returncode}")
    sys.exit(1)
sections, cur = {}, None
for line in r.stderr.splitlines():
    if line.startswith("@@ begin "):
        cur = line[9:]
        sections[cur] = []
    elif line.startswith("@@ end "):
        cur = None
    elif cur:
        sections[cur].append(line)
fails = 0
def dma(lines):
    return [l for l in lines if "DMA_COPY" in l or "DMA_FILL" in l]
zc, dv = dma(sections.get("zero_copy", [])), dma(sections.get("device", []))
print("zero copy map/unmap, DMA lines:", len(zc))
for l in zc: print("  ", l)
print("device map/unmap, DMA lines:", len(dv))
for l in dv: print("  ", l)
if "zero_copy" not in sections or zc:
    print("FAIL: the USE_HOST_PTR map/unmap moved data"); fails += 1
else:
    print("PASS: USE_HOST_PTR map/unmap issued no DMA")
if len(dv) != 2:
    print("FAIL: the device buffer map + unmap should issue exactly 2 DMA copies"); fails += 1
else:
    print("PASS: device buffer map and unmap each issued one DMA copy")
sys.exit(1 if fails else 0)
