#!/usr/bin/env python3
"""Compare ipc_probe (two processes through the device server) with NVIDIA's recorded answers.

  compare_ipc.py PROBE RECORDED_FILE

tests/cuda/probe/compare.py does the comparing; this only leaves out the recorded sections the
probe built here does not have (legacy_ipc: vmgpu's cuda.h has no cuIpc* calls yet), naming
them, so that they are compared as soon as the probe has them."""
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
compare = os.path.join(here, "..", "cuda", "probe", "compare.py")
probe, recorded = sys.argv[1], sys.argv[2]
have = set(subprocess.run([probe, "--list"], capture_output=True, text=True, check=True).stdout.split())
keep, sec, left = [], None, {}
for line in open(recorded).read().splitlines():
    if line.startswith("# section "):
        sec = line.split()[2]
    if sec is None or sec in have:
        keep.append(line)
    elif not line.startswith("#"):
        left[sec] = left.get(sec, 0) + 1
for s, n in left.items():
    print(f"not compared: section {s} ({n} recorded answers): the probe built against vmgpu's "
          f"header has no such section yet")
with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    f.write("\n".join(keep) + "\n")
try:
    sys.exit(subprocess.run([sys.executable, compare, probe, f.name]).returncode)
finally:
    os.unlink(f.name)
