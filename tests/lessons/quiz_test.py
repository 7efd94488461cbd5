#!/usr/bin/env python3
"""vmgpu-quiz checks answers (ctest quiz_answers).

For a few seeds: the answer key the quiz prints, fed back with --check, scores every question
right (exit 0); the same key with one answer changed scores one less and exits 1. The quiz
itself confirms every read/write answer on the device and exits 3 on a disagreement.

    quiz_test.py PATH/TO/vmgpu-quiz
"""
import os
import subprocess
import sys
import tempfile


def main():
    quiz = sys.argv[1]
    fails = 0
    env = dict(os.environ, VMGPU_DEVICE="sim")
    env.pop("VMGPU_TRACE", None)
    for seed in (1, 2, 5, 9):
        args = [quiz, "--seed", str(seed), "--count", "12"]
        key = subprocess.run(args + ["--answer-key"], capture_output=True, text=True, env=env, timeout=300)
        if key.returncode:
            print(f"seed {seed}: --answer-key exited {key.returncode}: {key.stderr.strip()}")
            fails += 1
            continue
        lines = key.stdout.split()
        with tempfile.NamedTemporaryFile("w", delete=False) as f:
            f.write("\n".join(lines) + "\n")
        good = subprocess.run(args + ["--check", f.name], capture_output=True, text=True, env=env, timeout=300)
        ok = good.returncode == 0 and "12 of 12 right" in good.stdout
        wrong = list(lines)
        wrong[4] = "0xdeadbeef" if wrong[4] != "0xdeadbeef" else "ok"
        with open(f.name, "w") as g:
            g.write("\n".join(wrong) + "\n")
        bad = subprocess.run(args + ["--check", f.name], capture_output=True, text=True, env=env, timeout=300)
        os.unlink(f.name)
        ok_bad = bad.returncode == 1 and "11 of 12 right" in bad.stdout
        print(f"seed {seed}: key {' '.join(lines)}; checked back: {'12 of 12' if ok else 'WRONG'}; "
              f"one changed: {'11 of 12, exit 1' if ok_bad else 'NOT CAUGHT'}")
        fails += (not ok) + (not ok_bad)
    print(f"quiz_answers: {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
