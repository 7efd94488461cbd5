#!/usr/bin/env python3
"""Run each lesson's "## Run" commands verbatim, as a reader would after scripts/demo.sh.

    run_steps.py --build DIR [LESSON_DIR...]

For every docs/lessons/NN-*/README.md (or the ones named), the first ```sh block under
"## Run" is run line by line in one bash (so an `export` carries to the next line), with
`set -e`, from a directory that looks like the repository with DIR as its `build/`. Two kinds
of line are not run as written: `scripts/demo.sh` (it sets up the machine and builds: ctest
lesson_demo runs it) and `gtkwave FILE VIEW` (a window): for those the test checks that FILE
was written and VIEW exists. Exit status 1 names the lesson and the command that failed.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_block(readme):
    text = open(readme).read()
    m = re.search(r"^## Run\s*\n(.*?)^## ", text, re.S | re.M)
    if not m:
        return None
    b = re.search(r"```sh\n(.*?)```", m.group(1), re.S)
    return b.group(1).splitlines() if b else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("lessons", nargs="*")
    a = ap.parse_args()
    lessons = a.lessons or sorted(
        os.path.join(ROOT, "docs", "lessons", d) for d in os.listdir(os.path.join(ROOT, "docs", "lessons"))
        if re.match(r"\d\d-", d))
    work = tempfile.mkdtemp(prefix="vmgpu-run-steps-")
    for e in os.listdir(ROOT):
        if e not in ("build", ".git"):
            os.symlink(os.path.join(ROOT, e), os.path.join(work, e))
    os.symlink(os.path.abspath(a.build), os.path.join(work, "build"))
    failed = []
    for d in lessons:
        name = os.path.basename(d.rstrip("/"))
        lines = run_block(os.path.join(d, "README.md"))
        if not lines:
            print(f"{name}: no ```sh block under ## Run")
            failed.append(name)
            continue
        script = ["set -e", "export VMGPU_DEVICE=sim", "unset VMGPU_TRACE VMGPU_WAVES"]
        shown = 0
        for line in lines:
            cmd = line.split(" #")[0].strip() if not line.strip().startswith("#") else ""
            if not cmd:
                continue
            words = shlex.split(cmd)
            if words[0] == "scripts/demo.sh":
                print(f"{name}: skip  {cmd}   (ctest lesson_demo runs it)")
                continue
            if words[0] == "gtkwave":
                checks = " && ".join(f"test -s {shlex.quote(w)}" for w in words[1:])
                script.append(f"echo '+ (view) {cmd}'; {checks} || {{ echo 'missing: {cmd}'; exit 1; }}")
                continue
            script.append(f"echo {shlex.quote('+ ' + cmd)}")
            script.append(f"{cmd} > /tmp/vmgpu-run-steps.out 2>&1 || {{ rc=$?; tail -20 /tmp/vmgpu-run-steps.out; "
                          f"echo 'FAILED ({name}): {cmd} exited with '$rc; exit 1; }}")
            script.append("tail -2 /tmp/vmgpu-run-steps.out | sed 's/^/    /'")
            shown += 1
        r = subprocess.run(["bash", "-c", "\n".join(script)], cwd=work, text=True,
                           capture_output=True, timeout=1200)
        print(f"== {name}: {shown} commands")
        print(r.stdout + r.stderr)
        if r.returncode:
            failed.append(name)
    if failed:
        print(f"run_steps: FAILED: {', '.join(failed)} ({len(lessons) - len(failed)} of {len(lessons)} ran as written)")
    else:
        print(f"run_steps: all {len(lessons)} lessons ran as written")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
