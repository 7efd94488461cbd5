#!/usr/bin/env python3
"""ctest sim_board_params: sim-board's model must have the bitstream's parameters.

Compares every parameter of ulx3s_top as the sim-board model was built (vmgpu-sim-board
--print-params reads them out of the model) with the value the bitstream flow gives it: the flow
command's --param NAME=VALUE, else ulx3s_top.v's default (evaluated in order, as Yosys would).
Fails on any difference, on a --param that names no parameter, and when the model has no chip
model for its memory size.

usage: check_sim_board_params.py --top ulx3s_top.v --model vmgpu-sim-board -- <flow command...>
"""
import argparse
import re
import subprocess
import sys


def top_params(path):
    src = open(path).read()
    m = re.search(r"module\s+ulx3s_top\s*#\s*\((.*?)\)\s*\(", src, re.S)
    if not m:
        sys.exit(f"no parameter list in {path}")
    out = []
    for line in m.group(1).splitlines():
        code = re.sub(r"//.*", "", line).strip().rstrip(",").strip()
        pm = re.fullmatch(r"parameter\s+integer\s+(\w+)\s*=\s*(.+)", code)
        if pm:
            out.append((pm.group(1), pm.group(2).strip()))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("flow", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    flow = a.flow[1:] if a.flow[:1] == ["--"] else a.flow
    overrides = {}
    for i, w in enumerate(flow):
        if w == "--param" and i + 1 < len(flow):
            name, _, value = flow[i + 1].partition("=")
            overrides[name] = int(value, 0)
    params = top_params(a.top)
    names = [n for n, _ in params]
    fails = 0
    for n in overrides:
        if n not in names:
            print(f"FAIL the flow sets {n}, which ulx3s_top does not have")
            fails += 1
    # The bitstream's values: overrides, else the default expression (integer arithmetic).
    want = {}
    for n, expr in params:
        if n in overrides:
            want[n] = overrides[n]
        else:
            want[n] = int(eval(expr.replace("/", "//"), {"__builtins__": {}}, dict(want)))
    out = subprocess.run([a.model, "--print-params"], capture_output=True, text=True, timeout=60)
    got = {}
    for line in out.stdout.splitlines():
        k, _, v = line.partition(" ")
        got[k] = v
    if out.returncode != 0:
        print(f"FAIL {a.model} --print-params exited {out.returncode}: {out.stderr.strip()}")
        fails += 1
    for n in names:
        g = got.get(n)
        ok = g is not None and int(g) == want[n]
        print(f"{'ok  ' if ok else 'FAIL'} {n}: bitstream {want[n]}, sim-board {g}")
        fails += 0 if ok else 1
    extra = set(got) - set(names) - {"sdram_part"}
    for n in sorted(extra):
        print(f"FAIL sim-board has a parameter {n} that ulx3s_top.v does not")
        fails += 1
    part = got.get("sdram_part", "none")
    print(f"{'ok  ' if part != 'none' else 'FAIL'} SDRAM chip model: {part}")
    fails += part == "none"
    print(f"sim_board_params: {len(names)} parameters compared, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
