#!/usr/bin/env python3
"""Compare vmgpu's cuGetProcAddress answers with NVIDIA's recorded ones.

  compare_procaddr.py PROBE NVIDIA_RECORD PFN_VERSIONS LIBCUDA

Runs PROBE (procaddr_probe.c built against vmgpu's cuda.h, finding vmgpu's libcuda.so.1 through
LD_LIBRARY_PATH) with PFN_VERSIONS on stdin and compares every answer line with NVIDIA_RECORD.
A difference is allowed only where it is explained:
  - NVIDIA returned a symbol that vmgpu's libcuda does not export (a call vmgpu does not
    implement): vmgpu must answer CUDA_SUCCESS with status SYMBOL_NOT_FOUND and a NULL pointer;
  - NVIDIA crashed (CRASH:<signal>): vmgpu must answer CUDA_ERROR_INVALID_VALUE (rc=1);
  - lines about cuGetProcAddress_v2_ptsz: NVIDIA's 13.0 header sends programs built with
    CUDA_API_PER_THREAD_DEFAULT_STREAM there, but its libcuda 580 does not export it, so NVIDIA
    has no answers; vmgpu exports it, and its default lookups must find the per-thread variants.
Everything else, including a symbol vmgpu exports but does not return, fails the test.
"""
import re
import subprocess
import sys


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    return {l.split()[-1] for l in out.splitlines() if len(l.split()) >= 2 and l.split()[-2] in ("T", "W")}


def key_and_answer(line):
    """Split an answer line into the question (key) and the answer fields."""
    line = line.strip()
    if not line or line.startswith("#"):
        return None, None
    m = re.match(r"(.*?)\s+(rc=.*|CRASH:\d+)$", line)
    if not m:
        return line, ""
    return m.group(1), m.group(2)


def fields(answer):
    return dict(f.split("=", 1) for f in answer.split() if "=" in f)


def main():
    probe, record, pfn, lib = sys.argv[1:5]
    ours = subprocess.run([probe], stdin=open(pfn), capture_output=True, text=True)
    if ours.returncode != 0:
        print(ours.stdout[-2000:], ours.stderr[-2000:])
        print("FAIL: the probe exited with %d" % ours.returncode)
        return 1
    have = exported(lib)
    nv = {}
    for line in open(record):
        k, a = key_and_answer(line)
        if k is not None:
            nv[k] = a
    counts = {"same": 0, "not implemented": 0, "nvidia crashed": 0}
    failures = []
    seen = set()
    for line in ours.stdout.splitlines():
        k, a = key_and_answer(line)
        if k is None:
            continue
        seen.add(k)
        if k not in nv:
            m = re.match(r"fixed (\S+) v2_ptsz name\[(\w+)\] flags=(\d)", k)
            if m:
                # Flags 0 and 2 must answer what a per-thread lookup answers, flags 1 a legacy one.
                f = 1 if m.group(3) == "1" else 2
                plain = nv.get("gpa %s 13000 %d" % (m.group(2), f),
                               nv.get("fixed %s name[%s] flags=%d" % (m.group(1), m.group(2), f)))
                if plain is None or fields(a) != fields(plain):
                    failures.append("%s: %s, but the per-thread lookup answers %s" % (k, a, plain))
                else:
                    counts["same"] += 1
                continue
            failures.append("not in NVIDIA's record: %s" % line)
            continue
        want = nv[k]
        if a == want:
            counts["same"] += 1
            continue
        if want.startswith("CRASH:"):
            if fields(a).get("rc") == "1":
                counts["nvidia crashed"] += 1
            else:
                failures.append("%s: NVIDIA crashed, vmgpu must answer rc=1, answered %s" % (k, a))
            continue
        w, o = fields(want), fields(a)
        sym = w.get("sym", "")
        if (w.get("rc") == "0" and w.get("status") == "0" and sym not in have and
                o.get("rc") == "0" and o.get("status") == "1" and o.get("sym") == "-"):
            counts["not implemented"] += 1
            continue
        failures.append("%s: NVIDIA %s, vmgpu %s" % (k, want, a))
    missing = [k for k in nv if k not in seen and not k.startswith("driverversion")]
    for k in missing[:20]:
        failures.append("not asked of vmgpu: %s" % k)
    print("procaddr: %d answers compared: %d identical, %d calls vmgpu does not implement "
          "(SYMBOL_NOT_FOUND), %d NVIDIA crashes answered INVALID_VALUE"
          % (sum(counts.values()), counts["same"], counts["not implemented"], counts["nvidia crashed"]))
    for f in failures[:60]:
        print("FAIL:", f)
    if len(failures) > 60:
        print("FAIL: ... %d more" % (len(failures) - 60))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
