#!/usr/bin/env python3
"""ECP5 synthesis check of the SDRAM controller with the ULX3S PHY (Yosys synth_ecp5).

Synthesises tests/rtl/sdram/sdram_synth_top.v (rtl/sdram_ctrl.v + board/ulx3s/sdram_phy.v) with
the given top-level parameters and prints one `sdram_synth_<cell> <count>` line per cell type of
interest. Fails when Yosys fails, infers a latch, or leaves a cell unmapped.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--out-dir", default="synth_sdram")
    ap.add_argument("--yosys", default=shutil.which("yosys") or "yosys")
    args = ap.parse_args()
    if not shutil.which(args.yosys) and not os.path.isfile(args.yosys):
        sys.exit("synth_sdram: yosys not found; scripts/setup.sh installs it (Debian package yosys)")

    os.makedirs(args.out_dir, exist_ok=True)
    out = os.path.abspath(args.out_dir)
    sources = [os.path.join(root, "rtl", "sdram_ctrl.v"),
               os.path.join(root, "board", "ulx3s", "sdram_phy.v"),
               os.path.join(here, "sdram_synth_top.v")]
    script = [f"read_verilog -DSYNTHESIS {s}" for s in sources]
    for p in args.param:
        name, _, value = p.partition("=")
        script.append(f"chparam -set {name} {value} sdram_synth_top")
    stat = os.path.join(out, "stat.txt")
    script += ["synth_ecp5 -top sdram_synth_top", f"tee -q -o {stat} stat"]
    ys = os.path.join(out, "synth.ys")
    with open(ys, "w") as f:
        f.write("\n".join(script) + "\n")
    log = os.path.join(out, "yosys.log")
    rc = subprocess.call([args.yosys, "-q", "-l", log, "-s", ys],
                         stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    with open(log, errors="replace") as f:
        text = f.read()
    if rc != 0:
        print("\n".join(text.splitlines()[-30:]))
        print(f"synth_sdram: FAIL yosys exited with {rc} (log: {log})")
        return 1
    counts = {}
    with open(stat) as f:
        for line in f:
            m = re.match(r"^\s+(\S+)\s+(\d+)\s*$", line)
            if m:
                counts[m.group(1)] = int(m.group(2))
    for cell in ("LUT4", "TRELLIS_FF", "CCU2C", "TRELLIS_DPR16X4", "ODDRX1F", "TRELLIS_IO"):
        print(f"sdram_synth_{cell.lower()} {counts.get(cell, 0)}")
    failures = []
    latches = [l.strip() for l in text.splitlines() if l.lstrip().startswith("Latch inferred")]
    if latches:
        failures.append("latches inferred: " + "; ".join(latches))
    unmapped = sorted(c for c in counts if c.startswith("$"))
    if unmapped:
        failures.append("cells left unmapped: " + ", ".join(unmapped))
    if counts.get("ODDRX1F", 0) != 1:
        failures.append("the chip clock did not go through one ODDRX1F")
    for w in dict.fromkeys(l.strip() for l in text.splitlines() if l.startswith("Warning:")):
        print(f"synth_sdram: yosys {w}")
    for f_ in failures:
        print(f"synth_sdram: FAIL {f_}")
    if not failures:
        print("synth_sdram: PASS " + " ".join(args.param) + ": no latches, every cell mapped")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
