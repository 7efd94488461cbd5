#!/usr/bin/env python3
"""Run examples/ipc_share with VMGPU_TRACE=1 and check what the trace shows: two processes, each
with its own ASID, mapping the same physical frames (the exported allocation).

  check_ipc_trace.py IPC_SHARE

The trace of each process comes from the device server on that process's stderr; the map lines
read "map(asid A, va V, size S) -> pa P ...". Fails unless two different ASIDs map one pa and the
example passed."""
import os
import re
import subprocess
import sys

env = dict(os.environ, VMGPU_TRACE="1")
p = subprocess.run([sys.argv[1]], env=env, capture_output=True, text=True, timeout=280)
maps = {}
for m in re.finditer(r"map\(asid (\d+), va (0x[0-9a-f]+), size (0x[0-9a-f]+)\) -> pa (0x[0-9a-f]+)", p.stderr):
    asid, va, size, pa = m.groups()
    maps.setdefault((pa, size), set()).add(asid)
shared = {k: v for k, v in maps.items() if len(v) >= 2}
print(p.stdout, end="")
for (pa, size), asids in sorted(shared.items()):
    print(f"pa {pa} (+{size}) mapped by ASIDs {', '.join(sorted(asids, key=int))}")
if p.returncode != 0 or "ipc share PASSED" not in p.stdout:
    sys.exit(f"the example failed (exit {p.returncode})\n{p.stderr[-2000:]}")
if not shared:
    sys.exit("no pa is mapped by two ASIDs in the trace")
print("two ASIDs map the same frames: yes")
