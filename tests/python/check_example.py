#!/usr/bin/env python3
"""Runs an example script and compares what it prints with its committed output file.

  check_example.py PYTHON SCRIPT EXPECTED_OUT [--update]

--update rewrites EXPECTED_OUT from the run (after a deliberate change)."""
import difflib
import subprocess
import sys

py, script, expected = sys.argv[1:4]
r = subprocess.run([py, script], capture_output=True, text=True, timeout=600)
if r.returncode != 0:
    print(r.stdout, r.stderr)
    print("FAIL: %s exited with %d" % (script, r.returncode))
    sys.exit(1)
if "--update" in sys.argv[4:]:
    open(expected, "w").write(r.stdout)
    print("wrote", expected)
    sys.exit(0)
want = open(expected).read()
if r.stdout != want:
    sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), r.stdout.splitlines(True),
                                               expected, "this run"))
    print("FAIL: the output differs from %s (regenerate with --update if the change is meant)" % expected)
    sys.exit(1)
print("example output matches %s (%d lines)" % (expected, want.count("\n")))
