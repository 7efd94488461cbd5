#!/usr/bin/env python3
"""Run cuda_probe section by section and write its answers to a file, surviving crashes.

  record_nvidia.py PROBE OUT_FILE [HEADER_LINE...]

PROBE_SECTIONS="a b" records only those sections (default: every section the probe lists).

Used on the GPU machine against NVIDIA's libcuda (compare.py runs vmgpu's the same way). Each
section runs in its own process. When a case kills the process (signal, or no answer within
TIMEOUT seconds), the case is recorded as CRASH:<signal> (or HANG) and the section runs again
with that case skipped (PROBE_SKIP); value lines about a case that was not run read NA.
"""
import os
import signal
import subprocess
import sys

# PROBE_TIMEOUT (seconds) raises it where the device is slow to answer (sim-board: a serial link).
TIMEOUT = float(os.environ.get("PROBE_TIMEOUT", "20"))


def run_section(probe, sec, skip):
    env = dict(os.environ, PROBE_SKIP="|".join(skip))
    try:
        p = subprocess.run([probe, sec], env=env, capture_output=True, text=True, timeout=TIMEOUT)
        return p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return out, "HANG"


def record(probe, extra_env=None, only=None):
    """Returns the answer lines of every section, or of those in `only` (crash-marked)."""
    sections = subprocess.run([probe, "--list"], capture_output=True, text=True, check=True).stdout.split()
    only = only if only is not None else os.environ.get("PROBE_SECTIONS", "").split()
    if only:
        sections = [s for s in sections if s in only]
    lines = []
    for sec in sections:
        skip, reasons = [], {}
        while True:
            out, rc = run_section(probe, sec, skip)
            text = out.split("\n")
            partial = text[-1] if text and text[-1] else ""
            if rc != 0 and partial.strip():
                name = partial.rstrip()
                why = "HANG" if rc == "HANG" else (
                    "CRASH:" + signal.Signals(-rc).name if isinstance(rc, int) and rc < 0 else f"CRASH:exit{rc}")
                reasons[name.strip()] = why
                skip.append(name)
                print(f"  {sec}: case '{name}' -> {why}; running the section again without it", file=sys.stderr)
                if len(skip) > 40:
                    break
                continue
            break
        lines.append(f"# section {sec}" + ("" if rc == 0 else f" (ended with {rc})"))
        after_skip = False
        for ln in text:
            if not ln.strip():
                continue
            name, _, val = ln.rstrip().rpartition(" ")
            key = name.strip()
            if val == "SKIPPED":
                if key in reasons:
                    ln = f"{name} {reasons[key]}"
                    after_skip = True
                else:
                    ln = f"{name} NA"
            lines.append(ln)
    return lines


if __name__ == "__main__":
    probe, out = sys.argv[1], sys.argv[2]
    body = record(probe)
    with open(out, "w") as f:
        for h in sys.argv[3:]:
            f.write(f"# {h}\n")
        f.write("\n".join(body) + "\n")
    print(f"{out}: {sum(1 for l in body if not l.startswith('#'))} answers")
