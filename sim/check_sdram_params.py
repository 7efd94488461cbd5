#!/usr/bin/env python3
"""ctest sim_sdram_params: the in-process model's SDRAM configuration must build the board's device.

ulx3s_top (the bitstream's top level) and sim/vmgpu_sdram_top.v (VMGPU_SIM_MEMORY=sdram) both build
rtl/vmgpu_sdram_device.v. Every parameter ulx3s_top gives that module must be a parameter of
vmgpu_sdram_top, passed on to it, with the value the bitstream has: the flow's --param NAME=VALUE,
else ulx3s_top.v's default. vmgpu_sdram_top's value is its default, or the -GNAME=VALUE its build
used (--gparam). Fails on any difference and on a parameter vmgpu_sdram_top lacks.

usage: check_sdram_params.py --board ulx3s_top.v --sim vmgpu_sdram_top.v [--gparam NAME=VALUE ...]
                             -- <flow command...>
"""
import argparse
import re
import sys


def params(src, module):
    m = re.search(r"module\s+" + module + r"\s*#\s*\((.*?)\)\s*\(", src, re.S)
    if not m:
        sys.exit(f"no parameter list of {module}")
    out = []
    for line in m.group(1).splitlines():
        code = re.sub(r"//.*", "", line).strip().rstrip(",").strip()
        pm = re.fullmatch(r"parameter\s+integer\s+(\w+)\s*=\s*(.+)", code)
        if pm:
            out.append((pm.group(1), pm.group(2).strip()))
    return out


def values(plist, overrides):
    """Each parameter's value: the override, else its default evaluated in order."""
    v = {}
    for n, expr in plist:
        v[n] = overrides[n] if n in overrides else int(eval(expr.replace("/", "//"), {"__builtins__": {}}, dict(v)))
    return v


def passed_to_device(src):
    """NAME -> the expression a top gives vmgpu_sdram_device's parameter NAME."""
    m = re.search(r"vmgpu_sdram_device\s*#\s*\((.*?)\)\s*u_\w+\s*\(", src, re.S)
    if not m:
        sys.exit("no vmgpu_sdram_device instance")
    return dict(re.findall(r"\.(\w+)\s*\(\s*(\w+)\s*\)", m.group(1)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--board", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--gparam", action="append", default=[], help="a -GNAME=VALUE of the sim's build")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    gparams = {}
    for g in a.gparam:
        n, _, v = g.partition("=")
        gparams[n] = int(v, 0)
    rest = a.rest
    flow = rest[1:] if rest[:1] == ["--"] else rest
    overrides = {}
    for i, w in enumerate(flow):
        if w == "--param" and i + 1 < len(flow):
            n, _, v = flow[i + 1].partition("=")
            overrides[n] = int(v, 0)
    bsrc, ssrc = open(a.board).read(), open(a.sim).read()
    board = values(params(bsrc, "ulx3s_top"), overrides)
    sim = values(params(ssrc, "vmgpu_sdram_top"), gparams)
    bpass, spass = passed_to_device(bsrc), passed_to_device(ssrc)
    fails = 0
    for dev_param, bexpr in sorted(bpass.items()):
        want = board.get(bexpr)
        if want is None:
            print(f"FAIL ulx3s_top gives {dev_param} the value of '{bexpr}', which is no parameter")
            fails += 1
            continue
        sexpr = spass.get(dev_param)
        if sexpr is None or sexpr not in sim:
            print(f"FAIL vmgpu_sdram_top does not give vmgpu_sdram_device's {dev_param} a parameter of its own "
                  f"(the bitstream has {want})")
            fails += 1
            continue
        ok = sim[sexpr] == want
        print(f"{'ok  ' if ok else 'FAIL'} {dev_param}: bitstream {want}, SDRAM sim {sim[sexpr]}")
        fails += 0 if ok else 1
    for dev_param in sorted(set(spass) - set(bpass)):
        print(f"FAIL vmgpu_sdram_top sets {dev_param}, which ulx3s_top leaves at the module's default")
        fails += 1
    print(f"sim_sdram_params: {len(bpass)} parameters, {fails} differ")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
