#!/usr/bin/env python3
"""The few lines scripts/demo.sh ends with: what three runs showed, read from their output.

    demo_summary.py DIR

DIR holds cuda.out/cuda.err (cuda_vmm_walkthrough, VMGPU_TRACE=1), cl.out (cl_map_buffer) and
dma.out/dma.err (dma_through_mmu, VMGPU_TRACE=1). Every number printed is read from those
files; a piece whose run is missing or failed says so instead. Exit status 1 when a piece is
missing, so a broken demo does not look like a working one.
"""
import os
import re
import sys


def read(d, name):
    p = os.path.join(d, name)
    return open(p).read() if os.path.exists(p) else ""


def cuda_part(d):
    err = read(d, "cuda.err").splitlines()
    # The successful cuMemMap: its PTE_FILL comes before "cuMemMap -> CUDA_SUCCESS".
    i_ok = next((i for i, l in enumerate(err) if "cuMemMap -> CUDA_SUCCESS" in l), None)
    if i_ok is None:
        return None
    i_call = max(i for i in range(i_ok) if err[i].rstrip().endswith("[cuda] cuMemMap"))
    fill = next((l for l in err[i_call:i_ok] if "PTE_FILL" in l), None)
    mp = next((l for l in err[i_call:i_ok] if re.search(r"\] map\(", l)), None)
    i_acc = next((i for i in range(i_ok, len(err)) if "cuMemSetAccess" in err[i]), None)
    fill2 = next((l for l in err[i_acc:] if "PTE_FILL" in l), None) if i_acc else None
    if not (fill and mp and fill2):
        return None
    va = re.search(r"va (0x[0-9a-f]+), size (0x[0-9a-f]+)", mp)
    f1 = re.search(r"pa (0x[0-9a-f]+) count (\d+) value (0x[0-9a-f]+)", fill)
    f2 = re.search(r"value (0x[0-9a-f]+)", fill2)
    tlb = next((l for l in err[i_ok:] if re.search(r"TLB_FILL\s+asid\s+\d+ va " + va.group(1), l)), None)
    if not (va and f1 and f2 and tlb):
        return None
    t = re.search(r"-> frame (0x[0-9a-f]+) (\S+)", tlb)
    kib = int(va.group(2), 16) // 1024
    return [
        f"1  CUDA    cuMemMap({va.group(1)}, {kib} KiB)  -> one PTE_FILL: {f1.group(2)} PTEs at pa "
        f"{f1.group(1)}, value {f1.group(3)} (valid, no access yet)",
        f"          cuMemSetAccess(read-write) -> the same {f1.group(2)} PTEs rewritten: {f2.group(1)} (V, R, W)",
        f"          first copy into it         -> TLB miss, two-level walk, TLB_FILL va {va.group(1)} "
        f"-> frame {t.group(1)} {t.group(2)}",
    ]


def cl_part(d):
    out = read(d, "cl.out")
    if "cl_map_buffer PASSED" not in out:
        return None
    zero, copy = out.split("== device buffer")[0], out.split("== device buffer")[1]

    def cyc(sec, what):
        m = re.search(r"^" + what + r":.*?(\d+) device cycles", sec, re.M)
        return m.group(1) if m else "?"
    return [
        "2  OpenCL  clEnqueueMapBuffer + unmap of a 16 KiB buffer, written through the pointer:",
        f"          CL_MEM_USE_HOST_PTR: map {cyc(zero, 'map for writing')} + unmap {cyc(zero, 'unmap')} "
        "device cycles, the pointer is the application's own array (zero copy)",
        f"          device buffer:       map {cyc(copy, 'map for writing')} + unmap {cyc(copy, 'unmap')} "
        "device cycles, the unmap copies staging -> device memory by DMA",
    ]


def fault_part(d):
    err, out = read(d, "dma.err"), read(d, "dma.out")
    m = re.search(r"mmu: FAULT\s+asid\s+(\d+) va (0x[0-9a-f]+) (\w+) on (\w+)", err)
    st = re.search(r"copy into the read-only buffer -> (\w+)", out)
    cmd = re.search(r"fault: ring (\d+): command at offset (0x[0-9a-f]+) \((\w+)", err)
    if not (m and st and cmd):
        return None
    return [
        f"3  Fault   {cmd.group(3)} into a read-only buffer -> the MMU answers {m.group(3)} on {m.group(4)} "
        f"of VA {m.group(2)} (ASID {m.group(1)});",
        f"          ring {cmd.group(1)} stops at that command (offset {cmd.group(2)}), the driver returns "
        f"{st.group(1)} and marks the context faulted",
    ]


def main():
    d = sys.argv[1]
    print()
    print("vmgpu on the simulated device: three mappings, from the API call to what the hardware did")
    print()
    missing = 0
    for name, part in (("cuda_vmm_walkthrough", cuda_part), ("cl_map_buffer", cl_part),
                       ("dma_through_mmu", fault_part)):
        lines = part(d)
        if lines is None:
            missing += 1
            print(f"   ({name} did not run to the end: run it by hand to see why)")
        else:
            print("\n".join(lines))
    print()
    print("Each line is followed step by step in the lessons: docs/lessons/README.md. For example:")
    print("  VMGPU_TRACE=1 build/examples/cuda_vmm_walkthrough     (lesson 02)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
