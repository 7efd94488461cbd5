#!/usr/bin/env python3
"""ctest cuda_abi_header: vmgpu's cuda.h against values recorded from NVIDIA's.

  cuda_abi_compare.py --header sw/include/cuda.h --dump-src tests/abi/cuda_abi_dump.c
                      --dump BIN --dump-ptds BIN --nvidia tests/abi/nvidia-cuda-13000.txt
                      --exports sw/cuda/exports.txt

Fails (exit 1) when:
  - cuda_abi_dump.c is not what cuda_abi_gen.py makes from the header now
    (so the dump always covers every name the header defines);
  - a name the header defines has another value, size, offset or symbol in
    NVIDIA's record, or NVIDIA's header lacks it, or the record has no line for it;
  - NVIDIA defines a member of an enum vmgpu declares (or a macro of a family
    vmgpu uses) that vmgpu lacks or gives another value;
  - a vmgpu prototype conflicts with NVIDIA's declaration;
  - a symbol NVIDIA's header or libcuda uses for a declared call is missing from
    sw/cuda/exports.txt, or vmgpu's header resolves a call to a symbol not there.
Differences that follow from the CUDA_VERSION vmgpu declares are listed in
VERSION_DIFFERENCES with their reason and are reported, not failed.
Names added to the header after the last recording are listed in
not-yet-recorded.txt (beside this file): while NVIDIA's record has no line for
them they are printed as NOT YET RECORDED, counted, and not failed; once the
record has a line for a name it is compared like every other.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, HERE)
import cuda_abi_gen  # noqa: E402

# vmgpu declares 12.8 (see the header); NVIDIA's recorded header is 13.0.
VERSION_DIFFERENCES = {
    "CUDA_VERSION": "the API level each header declares",
}


def read_pairs(lines):
    pairs = {}
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#") and not line.startswith("#define."):
            continue
        name, _, value = line.partition(" ")
        pairs[name] = value.strip()
    return pairs


def run_dump(path, ptds):
    out = subprocess.run([path], capture_output=True, text=True, check=True).stdout.split("\n")
    if ptds:
        return [l.replace("symbol(", "symbol-ptds(", 1) for l in out if l.startswith("symbol(")]
    return out


def main():
    ap = argparse.ArgumentParser()
    for a in ("header", "dump-src", "dump", "dump-ptds", "nvidia", "exports"):
        ap.add_argument("--" + a, required=True)
    args = ap.parse_args()
    failures = []
    unrecorded = []
    pending_path = os.path.join(HERE, "not-yet-recorded.txt")
    pending = set()
    if os.path.exists(pending_path):
        pending = {l.split()[0] for l in open(pending_path) if l.strip() and not l.startswith("#")}

    def is_pending(name):
        base = name.split("(")[-1].rstrip(")").split(".")[0]
        return base in pending

    if open(args.dump_src).read() != cuda_abi_gen.generate(args.header):
        failures.append("tests/abi/cuda_abi_dump.c is stale: run "
                        "tests/abi/cuda_abi_gen.py sw/include/cuda.h tests/abi/cuda_abi_dump.c")

    vm = read_pairs(run_dump(args.dump, False) + run_dump(args.dump_ptds, True))
    nv_lines = open(args.nvidia).read().split("\n")
    nv = read_pairs(nv_lines)
    missing_in_nv = {l.split()[1] for l in nv_lines if l.startswith("missing ")}
    exports = {l.split()[0] for l in open(args.exports) if l.strip() and not l.startswith("#")}

    # 1. Every name of vmgpu's header against NVIDIA's value.
    compared = matched = version_diffs = 0
    for name, value in vm.items():
        base = name.split("(")[-1].rstrip(")")
        if base in missing_in_nv:
            failures.append("%s: not in NVIDIA's header" % name)
            continue
        if name not in nv:
            if is_pending(name):
                unrecorded.append(name)
                continue
            failures.append("%s: no NVIDIA value recorded (re-run tests/abi/run_nvidia_probe.sh)" % name)
            continue
        compared += 1
        if nv[name] == value:
            matched += 1
        elif name in VERSION_DIFFERENCES:
            version_diffs += 1
            print("version difference: %s vmgpu %s, NVIDIA %s -- %s"
                  % (name, value, nv[name], VERSION_DIFFERENCES[name]))
        else:
            failures.append("%s: vmgpu %s, NVIDIA %s" % (name, value, nv[name]))

    # 2. Every member NVIDIA defines in the enums (and macro families) vmgpu declares.
    members = 0
    for name, value in nv.items():
        if name.startswith("#define."):
            member = name[len("#define."):]
        elif "." in name and not name.startswith(("sizeof(", "offsetof(")):
            member = name.split(".", 1)[1]
        else:
            continue
        members += 1
        if member not in vm:
            failures.append("vmgpu lacks %s (NVIDIA %s)" % (name, value))
        elif vm[member] != value and member not in VERSION_DIFFERENCES:
            failures.append("%s: vmgpu %s, NVIDIA %s" % (name, vm[member], value))

    # 3. Prototypes redeclared after NVIDIA's header.
    functions = cuda_abi_gen.parse_header(args.header)["functions"]
    sig_ok = 0
    for f in functions:
        status = nv.get("signature", None)
        status = next((l.split()[2] for l in nv_lines
                       if l.startswith("signature %s " % f) or
                       l.startswith("signature %s " % vm.get("symbol(%s)" % f, f))), None)
        if status == "ok":
            sig_ok += 1
        elif status is None and is_pending(f):
            unrecorded.append("signature(%s)" % f)
        else:
            failures.append("signature of %s: %s" % (f, status or "not recorded"))

    # 4. Exports: what either header resolves to, and what NVIDIA's libcuda exports.
    needed = {v for k, v in vm.items() if k.startswith("symbol")}
    needed |= {v for k, v in nv.items() if k.startswith("symbol")}
    needed |= {l.split()[1] for l in nv_lines if l.startswith("export ")}
    for s in sorted(needed - exports):
        failures.append("symbol %s missing from sw/cuda/exports.txt" % s)

    print("cuda_abi_header: %d names compared with NVIDIA (%s), %d identical, %d version differences"
          % (compared, os.path.basename(args.nvidia), matched, version_diffs))
    print("cuda_abi_header: %d NVIDIA enum members / macros checked for presence in vmgpu's header"
          % members)
    print("cuda_abi_header: %d of %d prototypes agree with NVIDIA's declarations" % (sig_ok, len(functions)))
    print("cuda_abi_header: %d symbols needed, all in exports.txt: %s"
          % (len(needed), "yes" if not needed - exports else "no"))
    for u in unrecorded:
        print("NOT YET RECORDED: %s (listed in not-yet-recorded.txt; re-run tests/abi/run_nvidia_probe.sh)" % u)
    print("cuda_abi_header: %d names not yet recorded on NVIDIA (not compared)" % len(unrecorded))
    for f in failures:
        print("FAIL: " + f)
    print("cuda_abi_header: %s (%d failures)" % ("FAILED" if failures else "passed", len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
