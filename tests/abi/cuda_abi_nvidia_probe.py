#!/usr/bin/env python3
"""Record NVIDIA's answers for everything vmgpu's cuda.h defines.

Runs on a machine with NVIDIA's CUDA toolkit (the device machine):

  python3 tests/abi/cuda_abi_nvidia_probe.py NVIDIA_INCLUDE_DIR OUT_FILE [LIBCUDA]

OUT_FILE gets, one `name value` a line:
  - the dump program (tests/abi/cuda_abi_dump.c) built against NVIDIA's header,
    plain and with CUDA_API_PER_THREAD_DEFAULT_STREAM (symbol lines of the
    second build are written as `symbol-ptds(NAME) SYMBOL`);
  - `missing NAME` for each name of vmgpu's header that NVIDIA's lacks;
  - `Enum.MEMBER value` for every member NVIDIA defines in each enum type
    vmgpu's header declares, and `#define.NAME value` for NVIDIA's macros in the
    families vmgpu's header uses, so names vmgpu lacks are seen too;
  - `signature NAME ok|conflict` from redeclaring vmgpu's prototypes after
    NVIDIA's header (a C compiler rejects a redeclaration with other types);
  - `export NAME` for each symbol of NVIDIA's libcuda that is a version of a
    call vmgpu declares.
Only names and numbers are recorded, never NVIDIA's header text.
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep the source tree clean of __pycache__
sys.path.insert(0, HERE)
import cuda_abi_gen  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
VMGPU_HEADER = os.path.join(ROOT, "sw", "include", "cuda.h")
MACRO_FAMILIES = ("CU_MEMHOSTALLOC_", "CU_MEMHOSTREGISTER_", "CU_MEM_CREATE_USAGE_",
                  "CU_LAUNCH_PARAM_", "CU_STREAM_LEGACY", "CU_STREAM_PER_THREAD",
                  "CU_DEVICE_CPU", "CU_DEVICE_INVALID", "CUDA_VERSION", "CUDA_ARRAY3D_",
                  "CUDA_EXTERNAL_MEMORY_DEDICATED")


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def build_and_run(src_text, inc, tmp, extra=()):
    """Compile src against inc, dropping lines NVIDIA's header cannot compile.

    Returns (output lines, dropped source lines)."""
    lines = src_text.split("\n")
    dropped = []
    src = os.path.join(tmp, "probe.c")
    exe = os.path.join(tmp, "probe")
    for _ in range(200):
        with open(src, "w") as f:
            f.write("\n".join(lines))
        r = sh(["gcc", "-std=c99", "-w", "-I", inc, *extra, src, "-o", exe])
        if r.returncode == 0:
            out = sh([exe]).stdout.split("\n")
            return [l for l in out if l], dropped
        bad = sorted({int(n) for n in re.findall(r"probe\.c:(\d+):\d+: error", r.stderr)})
        bad = [n for n in bad if "(" in lines[n - 1] and lines[n - 1].strip().endswith(");")]
        if not bad:
            raise SystemExit("probe: cannot build against %s:\n%s" % (inc, r.stderr[-4000:]))
        for n in reversed(bad):
            dropped.append(lines[n - 1].strip())
            lines[n - 1] = ""
    raise SystemExit("probe: too many errors")


def enum_members(inc, tmp, wanted_types):
    """Every member of NVIDIA's enums named in wanted_types, with its value."""
    pre = sh(["gcc", "-E", "-P", "-I", inc, "-x", "c", "-"],
             input="#include <cuda.h>\n").stdout
    prints = []
    for m in re.finditer(r"typedef\s+enum\s+\w*\s*\{(.*?)\}\s*(\w+)\s*;", pre, re.S):
        if m.group(2) not in wanted_types:
            continue
        for item in m.group(1).split(","):
            item = item.strip()
            if item:
                n = re.match(r"(\w+)", item).group(1)
                prints.append('    printf("%s.%s %%lld\\n", (long long)(%s));' % (m.group(2), n, n))
    defs = sh(["gcc", "-E", "-dM", "-I", inc, "-x", "c", "-"], input="#include <cuda.h>\n").stdout
    for m in re.finditer(r"^#define (\w+) (.+)$", defs, re.M):
        if m.group(1).startswith(MACRO_FAMILIES):
            prints.append('    printf("#define.%s %%lld\\n", (long long)(intptr_t)(%s));'
                          % (m.group(1), m.group(1)))
    src = ("#include <cuda.h>\n#include <stdint.h>\n#include <stdio.h>\nint main(void)\n{\n"
           + "\n".join(prints) + "\n    return 0;\n}\n")
    out, dropped = build_and_run(src, inc, tmp)
    return out + ["unprintable %s" % d for d in dropped]


def signatures(inc, tmp, parsed):
    """Redeclare vmgpu's prototypes (names mapped as vmgpu maps them) after NVIDIA's header."""
    mapped = sh(["gcc", "-E", "-P", "-x", "c", "-"],
                input=parsed["mapping"] + "\n" + parsed["prototypes"]).stdout
    protos = [p.strip() + ";" for p in " ".join(mapped.split("\n")).split(";") if "CUDAAPI" in p]
    result = []
    for p in protos:
        name = re.search(r"CUDAAPI\s+(\w+)\s*\(", p).group(1)
        src = os.path.join(tmp, "sig.c")
        with open(src, "w") as f:
            f.write("#include <cuda.h>\n%s\n" % p)
        r = sh(["gcc", "-std=c99", "-c", "-I", inc, src, "-o", os.path.join(tmp, "sig.o")])
        if r.returncode == 0:
            result.append("signature %s ok" % name)
        else:
            why = "conflict" if "conflicting types" in r.stderr else "error"
            result.append("signature %s %s" % (name, why))
            sys.stderr.write(r.stderr[-1500:])
    return result


def exports(libcuda, functions):
    if not libcuda or not os.path.exists(libcuda):
        return ["# no libcuda found"]
    syms = set(re.findall(r"\s[TW]\s+(\w+)", sh(["nm", "-D", "--defined-only", libcuda]).stdout))
    bases = set(functions)
    out = []
    for s in sorted(syms):
        base = re.sub(r"(_v\d+)?(_ptds|_ptsz)?$", "", s)
        if base in bases or s in bases:
            out.append("export %s" % s)
    return out


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    inc, out_file = sys.argv[1], sys.argv[2]
    libcuda = sys.argv[3] if len(sys.argv) > 3 else None
    parsed = cuda_abi_gen.parse_header(VMGPU_HEADER)
    dump_src = cuda_abi_gen.generate(VMGPU_HEADER)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        plain, dropped = build_and_run(dump_src, inc, tmp)
        lines += plain
        ptds, _ = build_and_run(dump_src, inc, tmp, ("-DCUDA_API_PER_THREAD_DEFAULT_STREAM",))
        lines += [l.replace("symbol(", "symbol-ptds(", 1) for l in ptds if l.startswith("symbol(")]
        for d in dropped:
            m = re.match(r"\w+\((\w+)(?:,\s*([\w.]+))?\)", d)
            lines.append("missing %s" % (m.group(1) + ("." + m.group(2) if m.group(2) else "")))
        lines += enum_members(inc, tmp, {e for e, _ in parsed["enums"]})
        lines += signatures(inc, tmp, parsed)
    lines += exports(libcuda, parsed["functions"])
    with open(out_file, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("probe: %d lines, %d names missing from %s" % (len(lines), len(dropped), inc))


if __name__ == "__main__":
    main()
