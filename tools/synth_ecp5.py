#!/usr/bin/env python3
"""Synthesise vmgpu for the ECP5 (ULX3S) with Yosys and report what it costs.

Reads the RTL file list rtl/vmgpu.f (Yosys cannot read .f files, so it is parsed here), sets
the device-memory size to the board's block-RAM budget, runs synth_ecp5 and prints one
`synth_<key> <value>` line per figure:

    synth_lut4        LUT4 cells (logic)
    synth_trellis_ff  TRELLIS_FF cells (flip-flops)
    synth_dp16kd      DP16KD cells (EBR, the 18 Kbit block RAMs)
    synth_mult18x18d  MULT18X18D cells (DSP multipliers)
    synth_ccu2c       CCU2C cells (carry chains)
    synth_trellis_dpr16x4  TRELLIS_DPR16X4 cells (small memories in LUT RAM)

It fails (exit 1) when Yosys fails, when the device memory did not become block RAM
(DP16KD == 0), when Yosys inferred a latch anywhere, or when a cell is left unmapped.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys


def parse_file_list(path, root):
    """Returns (include dirs, source files) of a Verilator-style .f file, as absolute paths.

    Paths in the list are relative to the repository root (the directory Verilator runs in)."""
    incdirs, sources = [], []
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split("//", 1)[0].split("#", 1)[0].strip()
            if not line:
                continue
            for word in line.split():
                if word.startswith("+incdir+"):
                    incdirs += [os.path.join(root, d) for d in word[len("+incdir+"):].split("+") if d]
                elif word.startswith("-") or word.startswith("+"):
                    sys.exit(f"{path}:{lineno}: option '{word}' is not understood by {sys.argv[0]}")
                else:
                    sources.append(os.path.join(root, word))
    missing = [s for s in sources if not os.path.isfile(s)]
    if missing:
        sys.exit("synth_ecp5: files named in the file list are missing:\n  " + "\n  ".join(missing))
    return incdirs, sources


def cell_counts(stat_text):
    """Cell type -> count from the last module listing of Yosys' `stat` output."""
    counts = {}
    in_cells = False
    for line in stat_text.splitlines():
        if "Number of cells:" in line:
            counts, in_cells = {}, True
            continue
        if in_cells:
            m = re.match(r"^\s+(\S+)\s+(\d+)\s*$", line)
            if m:
                counts[m.group(1)] = int(m.group(2))
            elif line.strip():
                in_cells = False
    return counts


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(here), help="repository root")
    ap.add_argument("--filelist", default="rtl/vmgpu.f", help="file list, relative to --root")
    ap.add_argument("--top", default="vmgpu_top")
    ap.add_argument("--mem-bytes", type=int, required=True, help="MEM_BYTES of the top module")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="further top-level parameter overrides")
    ap.add_argument("--out-dir", default="synth_ecp5", help="where the log and netlist go")
    ap.add_argument("--yosys", default=shutil.which("yosys") or "yosys")
    args = ap.parse_args()

    if not shutil.which(args.yosys) and not os.path.isfile(args.yosys):
        sys.exit("synth_ecp5: yosys not found; scripts/setup.sh installs it (Debian package yosys)")

    root = os.path.abspath(args.root)
    incdirs, sources = parse_file_list(os.path.join(root, args.filelist), root)
    os.makedirs(args.out_dir, exist_ok=True)
    out = os.path.abspath(args.out_dir)
    log_path = os.path.join(out, "yosys.log")
    stat_path = os.path.join(out, "stat.txt")

    params = [("MEM_BYTES", str(args.mem_bytes))]
    for p in args.param:
        name, _, value = p.partition("=")
        params.append((name, value))

    # One read_verilog per file keeps Yosys' error messages pointing at the right file.
    inc = " ".join(f"-I{d}" for d in incdirs)
    # -sv: the SIMT unit declares its loop variables in its for loops (as tools/ecp5_flow.py reads)
    script = [f"read_verilog -sv -DSYNTHESIS {inc} {s}" for s in sources]
    script += [f"chparam -set {n} {v} {args.top}" for n, v in params]
    script += [
        f"synth_ecp5 -top {args.top} -json {os.path.join(out, args.top + '.json')}",
        f"tee -q -o {stat_path} stat",
    ]
    script_path = os.path.join(out, "synth.ys")
    with open(script_path, "w") as f:
        f.write("\n".join(script) + "\n")

    print(f"synth_ecp5: yosys -s {script_path} (log: {log_path})", flush=True)
    with open(log_path, "w") as log:
        rc = subprocess.call([args.yosys, "-q", "-l", log_path, "-s", script_path],
                             stdout=log, stderr=subprocess.STDOUT)
    with open(log_path, errors="replace") as f:
        log_text = f.read()
    if rc != 0:
        print("\n".join(log_text.splitlines()[-40:]))
        print(f"synth_ecp5: FAIL yosys exited with {rc} (full log: {log_path})")
        return 1

    with open(stat_path) as f:
        counts = cell_counts(f.read())
    figures = [("lut4", "LUT4"), ("trellis_ff", "TRELLIS_FF"), ("dp16kd", "DP16KD"),
               ("mult18x18d", "MULT18X18D"), ("ccu2c", "CCU2C"),
               ("trellis_dpr16x4", "TRELLIS_DPR16X4")]
    for key, cell in figures:
        print(f"synth_{key} {counts.get(cell, 0)}")

    failures = []
    # proc_dlatch logs "Latch inferred for signal ..." for each latch ("No latch inferred" otherwise).
    latches = [l.strip() for l in log_text.splitlines() if l.lstrip().startswith("Latch inferred")]
    if latches:
        failures.append("latches inferred:\n    " + "\n    ".join(latches))
    if counts.get("DP16KD", 0) == 0:
        failures.append("device memory did not map to block RAM (no DP16KD cells)")
    unmapped = sorted(c for c in counts if c.startswith("$"))
    if unmapped:
        failures.append("cells left unmapped: " + ", ".join(unmapped))
    # Yosys repeats a warning for each pass that meets it; once is enough here.
    warnings = list(dict.fromkeys(l.strip() for l in log_text.splitlines()
                                  if l.startswith("Warning:")))
    for w in warnings:
        print(f"synth_ecp5: yosys {w}")

    for f_ in failures:
        print(f"synth_ecp5: FAIL {f_}")
    if not failures:
        print(f"synth_ecp5: PASS {args.top} MEM_BYTES={args.mem_bytes}: memory in EBR, no latches, "
              f"{len(warnings)} yosys warning(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
