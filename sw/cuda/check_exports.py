#!/usr/bin/env python3
"""Check that libcuda.so exports every symbol named in exports.txt (and only cu* names)."""
import subprocess
import sys

lib, exports = sys.argv[1], sys.argv[2]
want = []
for line in open(exports):
    line = line.strip()
    if line and not line.startswith("#"):
        want.append(line.split()[0])
out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
have = {l.split()[-1] for l in out.splitlines() if l.split() and l.split()[-2] in ("T", "W")}
missing = [w for w in want if w not in have]
import re
# vmgpu's own tools reach the core device through one vmgpu_cuda_* symbol (vmgpu_cuda_internal.h).
# The graphics API linked into libcuda exports vgfx* names (sw/include/vmgpu_gfx.h).
extra = sorted(h for h in have if not re.match(r"cu[A-Z]|vgfx[A-Z]", h) and h != "vmgpu_cuda_core_device")
print(f"exports.txt names {len(want)}, exported by {lib}: {len(want) - len(missing)}; other cu* exports: "
      f"{len([h for h in have if h.startswith('cu') and h not in want])}")
for m in missing:
    print("MISSING", m)
for e in extra:
    print("NOT A CUDA NAME", e)
sys.exit(1 if missing or extra else 0)
