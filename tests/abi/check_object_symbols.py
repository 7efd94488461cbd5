#!/usr/bin/env python3
"""check_object_symbols.py OBJECT LIBRARY: every cu* symbol OBJECT leaves undefined (nm -u) is
defined and exported by LIBRARY (nm -D --defined-only). Prints them."""
import subprocess
import sys

obj, lib = sys.argv[1], sys.argv[2]
und = sorted(l.split()[-1] for l in subprocess.run(["nm", "-u", obj], capture_output=True, text=True,
                                                   check=True).stdout.splitlines() if l.split())
cu = [s for s in und if s.startswith("cu")]
exp = {l.split()[-1].split("@")[0] for l in subprocess.run(["nm", "-D", "--defined-only", lib],
                                                          capture_output=True, text=True,
                                                          check=True).stdout.splitlines() if l.split()}
missing = [s for s in cu if s not in exp]
for s in cu:
    print(f"{'ok     ' if s in exp else 'MISSING'} {s}")
print(f"{len(cu)} cu* symbols referenced by {obj.rsplit('/', 1)[-1]}, {len(missing)} not exported by libcuda")
sys.exit(1 if missing or not cu else 0)
