#!/usr/bin/env python3
"""The training run of the fast model's profile-guided build (sim/CMakeLists.txt, VMGPU_SIM_PGO).

    pgo_train.py --check PROFILE_DIR NAME.gcda ...   (ctest sim_pgo_profile)
    pgo_train.py --work DIR --profile-dir DIR --stamp FILE --cxx CXX --cc CC
                 --flag F ... --train SRC ... --plain SRC ... --main FILE.c [--jobs N]
                 -- ARGS...

Compiles the model's per-cycle files (--train) with GCC's -fprofile-generate, everything else
the program needs (--plain: the model's run-once files, Verilator's runtime, the harness)
without it, links them with --main into a training program, runs it with ARGS (the fast model
kept busy as vmgpu-sim-speed keeps it), and leaves one .gcda file per --train file in
--profile-dir. The library build then compiles the same files with -fprofile-use.

GCC finds a file's profile by the object's path relative to -fprofile-prefix-path, and checks
it against the source's own path: so the training objects are written under --work with the
same relative names the library's objects have under theirs ("Vvmgpu_top_fast.dir/X.cpp.o"),
from the same source files.
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import time


def check(prof, names):
    """Every per-cycle file's profile is where the library's compile looks for it."""
    missing = [n for n in names if not os.path.isfile(os.path.join(prof, n))]
    for n in missing:
        print(f"pgo_train: no profile {os.path.join(prof, n)}")
    if missing or not names:
        print(f"pgo_train: FAIL {len(missing)} of {len(names)} profiles missing")
        return 1
    print(f"pgo_train: {len(names)} profiles found in {prof}")
    return 0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--check":
        return check(sys.argv[2], sys.argv[3:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--profile-dir", required=True)
    ap.add_argument("--stamp", required=True)
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--flag", action="append", default=[])
    ap.add_argument("--train", action="append", default=[])
    ap.add_argument("--plain", action="append", default=[])
    ap.add_argument("--main", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()

    work = os.path.abspath(a.work)
    prof = os.path.abspath(a.profile_dir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    flags = [f for f in a.flag if f]
    gen = [f"-fprofile-generate={prof}", f"-fprofile-prefix-path={work}",
           "-fprofile-update=single"]
    jobs = []
    for src in a.train:
        # Vvmgpu_top_fast.dir/X.cpp.o, as the library's object is named below its prefix
        rel = os.path.join(os.path.basename(os.path.dirname(src)), os.path.basename(src) + ".o")
        jobs.append((src, rel, gen))
    for n, src in enumerate(a.plain):
        jobs.append((src, f"plain/{n}_{os.path.basename(src)}.o", []))

    def compile_one(job):
        src, rel, extra = job
        os.makedirs(os.path.join(work, os.path.dirname(rel)), exist_ok=True)
        if src.endswith(".c"):  # the C main: only the include paths and definitions carry over
            cmd = [a.cc, "-O2"] + [f for f in flags if f.startswith(("-I", "-D", "-U"))]
        else:
            cmd = [a.cxx] + flags + extra
        cmd += ["-c", src, "-o", rel]
        r = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
        return src, r.returncode, r.stdout + r.stderr, rel

    t0 = time.monotonic()
    objs = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        for src, rc, out, rel in ex.map(compile_one, jobs):
            if rc != 0:
                sys.stderr.write(out)
                sys.exit(f"pgo_train: FAIL compiling {src}")
            objs.append(rel)
    _, rc, out, main_o = compile_one((a.main, "plain/main.o", []))
    if rc != 0:
        sys.stderr.write(out)
        sys.exit(f"pgo_train: FAIL compiling {a.main}")
    exe = os.path.join(work, "vmgpu-sim-pgo-train")
    r = subprocess.run([a.cxx, "-fprofile-generate", main_o] + objs +
                       ["-o", exe, "-lpthread", "-lz"], cwd=work, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        sys.exit("pgo_train: FAIL linking the training program")
    t1 = time.monotonic()

    shutil.rmtree(prof, ignore_errors=True)
    os.makedirs(prof)
    r = subprocess.run([exe] + a.args, cwd=work, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        sys.exit(f"pgo_train: FAIL the training run exited with {r.returncode}")
    got = sorted(f for f in os.listdir(prof) if f.endswith(".gcda"))
    if len(got) < len(a.train):
        sys.exit(f"pgo_train: FAIL {len(got)} profiles written for {len(a.train)} files in {prof}")
    with open(a.stamp, "w") as f:
        f.write("\n".join(got) + "\n")
    print(f"pgo_train: {len(got)} profiles ({t1 - t0:.0f} s to build the training program, "
          f"{time.monotonic() - t1:.0f} s to run it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
