#!/usr/bin/env python3
"""opencl_conformance: runs the conformance probe against vmgpu (through the ICD loader) and
compares every answer with expected_spec.txt, the OpenCL 1.2 specification's answers. Prints
where the recorded PoCL and NVIDIA answers (pocl.txt, nvidia.txt) differ from the spec, for
information. Exit 1 if vmgpu differs from the spec in any case or a case is missing.

  check_conformance.py <vmgpu-cl-conformance>             the ctest
  check_conformance.py <vmgpu-cl-conformance> --markdown  also print the docs table
  check_conformance.py --answers FILE [--markdown]        use recorded vmgpu answers"""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))


def parse(text):
    res = {}
    for line in text.splitlines():
        if line.startswith("case "):
            _, name, ans = line.split(None, 2)
            res[name] = ans.strip()
    return res


def header(text):
    for line in text.splitlines():
        if line.startswith("# platform "):
            return line[len("# platform "):]
    return "?"


expected, why = {}, {}
for line in open(os.path.join(here, "expected_spec.txt")):
    if line.startswith("#") or not line.strip():
        continue
    body, _, reason = line.partition("  # ")
    name, ans = body.split()
    expected[name], why[name] = ans, reason.strip()

args = sys.argv[1:]
markdown = "--markdown" in args
args = [a for a in args if a != "--markdown"]
if args and args[0] == "--answers":
    out = open(args[1]).read()
else:
    out = subprocess.run([args[0], "vmgpu"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=float(os.environ.get("CHECK_TIMEOUT", "580"))).stdout
vm = parse(out)
others = {}
for who in ("pocl", "nvidia"):
    p = os.path.join(here, who + ".txt")
    if os.path.exists(p):
        t = open(p).read()
        others[who] = (header(t), parse(t))

print("vmgpu:", header(out))
fails = 0
for name, want in expected.items():
    got = vm.get(name, "MISSING")
    ok = got == want
    fails += not ok
    print(f"{'match' if ok else 'MISMATCH'} {name}: spec {want}, vmgpu {got}")
extra = sorted(set(vm) - set(expected))
for name in extra:
    print(f"MISMATCH {name}: no spec answer recorded (vmgpu {vm[name]})")
    fails += 1
for who, (hdr, ans) in others.items():
    diff = [n for n in expected if ans.get(n) != expected[n]]
    print(f"\n{who} ({hdr}): {len(expected) - len(diff)}/{len(expected)} match the spec")
    for n in diff:
        print(f"  {n}: spec {expected[n]}, {who} {ans.get(n, 'MISSING')}")
if markdown:
    print("\n| case | spec (1.2) | vmgpu | PoCL | NVIDIA |\n|---|---|---|---|---|")
    for n, want in expected.items():
        cells = [vm.get(n, "MISSING")] + [others[w][1].get(n, "-") if w in others else "-"
                                          for w in ("pocl", "nvidia")]
        cells = [c if c == want else f"**{c}**" for c in cells]
        print(f"| `{n}` | {want} | " + " | ".join(cells) + " |")
print(f"\nvmgpu: {len(expected) - fails}/{len(expected)} cases answer as the specification says")
sys.exit(1 if fails else 0)
