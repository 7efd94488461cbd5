#!/usr/bin/env python3
"""Run cuda_probe against vmgpu's libcuda (section by section, as record_nvidia.py ran it against
NVIDIA's) and compare each answer with NVIDIA's recorded one.

  compare.py PROBE RECORDED_FILE [--skip SECTION,...]

Only the sections the file records are run (less those --skip names: neither run nor compared,
their recorded cases counted as skipped) (the vmmstate_* sections have their own file and
ctest). Every recorded case counts. An answer matches when it is the same. Otherwise it is either a
documented deviation (DEVIATIONS below, each also in docs/cuda.md's table) or, where NVIDIA's
driver crashed, hung or answered CUDA_ERROR_UNKNOWN, vmgpu must answer a specific error
(DESIGN.md: the one place vmgpu deliberately differs). Anything else fails the test, and so does
a crash of the probe on vmgpu."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_nvidia  # noqa: E402

G = "vmgpu's allocation granularity is 64 KiB (16 MiB device), NVIDIA's 2 MiB"
UVA = ("device addresses are 32 bits: pinned/registered host memory gets its own device address "
       "(cuMemHostGetDevicePointer) instead of the host pointer")
DEVIATIONS = {
    "granularity": G,
    "reserve 2^40 bytes": "vmgpu's device VA space is 32 bits: a 1 TiB reservation cannot fit (OUT_OF_MEMORY)",
    "devptr equals hostptr": UVA,
    "pinned DEVICE_POINTER": UVA,
    "registered DEVICE_POINTER": UVA,
    "props released handle": "NVIDIA answers for a handle released and no longer mapped (it reads the freed "
                             "record); vmgpu validates handles: INVALID_VALUE",
    "current after destroy": "NVIDIA leaves a context destroyed while below the top of the stack current "
                             "once the top is destroyed; vmgpu removes a destroyed context from every stack",
    "ctxpushcurrent destroyed context": "NVIDIA pushes a destroyed context; vmgpu refuses it with "
                                        "CONTEXT_IS_DESTROYED (what NVIDIA's cuCtxDestroy answers for one)",
    "array3d sparse": "vmgpu has no sparse CUDA arrays: no tile mapping (cuMemMapArrayAsync), and "
                      "CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED is 0, so NOT_SUPPORTED",
    "array3d 3D 8192 wide": "vmgpu's array limits are those of the compute capability it reports (5.0: "
                            "3D arrays up to 4096 per dimension); the H100 (9.0) allows 16384",
    "array3d BC1 4 channels": "vmgpu has no texture units and so no block-compressed (BCn) arrays: "
                              "NOT_SUPPORTED for a BCn format with its channel count (the wrong count "
                              "is INVALID_VALUE on both)",
    "array3d 2D 1 TiB": "the array needs 64 GiB (65536 x 65536 float4); vmgpu's device has 16 MiB of "
                        "memory and 32-bit addresses: OUT_OF_MEMORY",
}
# A kernel fault in one context: NVIDIA's driver fails every context of the process from then on
# (measured); vmgpu keeps the fault in the faulting context (DESIGN.md, issue 3), so the other
# context's calls succeed and its data can be read.
ISOLATION = "a device fault stays in the faulting context on vmgpu; NVIDIA fails the other contexts too"
for _k in ("other context synchronize", "other context memcpy", "other context data intact",
           "faulted range unchanged", "other context launch", "other context synchronize after launch",
           "other context kernel wrote"):
    DEVIATIONS[_k] = ISOLATION
# Stream-ordered pools (pool_probe.c, nvidia_pools_*.txt; docs/cuda.md "Stream-ordered memory pools").
POOL_XPROC = ("pools are shared within one process for now (the simulated device lives in the process): "
              "the second process's import finds no pool (INVALID_VALUE); cross-process sharing is a later issue")
for _k in ("child: import pool", "child: import pointer", "child:   reads the parent's data",
           "child: write through the imported pointer", "child: allocate from the imported pool",
           "child: imported pool USED_MEM_CURRENT", "child: free the imported pointer", "child: synchronize",
           "child: destroy the imported pool", "child's write seen"):
    DEVIATIONS[_k] = POOL_XPROC
DEVIATIONS.update({
    "create allocType managed": "vmgpu has no managed memory (CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY 0): NOT_SUPPORTED",
    "create location host": "vmgpu has no host-memory pools (CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED 0): "
                            "NOT_SUPPORTED",
    "create location host numa 0": "as create location host: NOT_SUPPORTED",
    "used after cuMemFree": "NVIDIA's USED_MEM_CURRENT keeps counting pool memory freed by cuMemFree; vmgpu "
                            "returns it to its pool, so the counter drops",
    "set mempool destroyed pool": "NVIDIA makes a destroyed pool current (and crashes at the next cuMemAllocAsync); "
                                  "vmgpu refuses it: INVALID_VALUE",
    "destroyed pool get access": "NVIDIA answers for a destroyed pool (it reads the freed record); vmgpu validates "
                                 "pool handles: INVALID_VALUE",
    "destroyed pool set access": "as destroyed pool get access: INVALID_VALUE",
})
# vmmstate_overhang: a mapping that runs past the end of its reservation. vmgpu holds the VA past
# the end reserved for the mapping until it is unmapped (so nothing else is handed that VA while
# it is mapped); NVIDIA lets a reservation at a hint take it, the mapping then overlapping the new
# reservation (a map there: INVALID_VALUE), and in an earlier recording the VA left behind there
# still held the mapping's pages after its unmap.
OVERHANG = ("vmgpu keeps the VA a mapping covers past its reservation's end reserved until the unmap; "
            "NVIDIA lets a reservation at a hint take it while mapped")
for _k in ("overhang: reserved at the hint", "overhang: map D in that reservation",
           "overhang: reserve past the end while mapped: layout"):
    DEVIATIONS[_k] = OVERHANG
# CUDA kernels from PTX (kernel_probe.c, nvidia_kernels_*.txt; docs/cuda.md "Modules and launches").
UNIT = ("the SIMT unit runs at most lanes x warps threads per block (16 on the simulated device today), "
        "grids of up to 65535 blocks per dimension and has 4 KiB of shared memory: launches past them are "
        "INVALID_VALUE, the answer NVIDIA gives past its own limits")
for _k in ("limit block 32", "limit block 1024", "limit block z 64", "limit grid x 65536",
           "limit dynamic shared 48 KiB", "limit reduce static 256 + dynamic 48 KiB - 256",
           "limit after setattribute 64 KiB: setattribute", "limit after setattribute 64 KiB: launch 64 KiB"):
    DEVIATIONS[_k] = UNIT
for _kn in ("vadd", "reduce", "dynshared"):
    DEVIATIONS[f"{_kn} MAX_THREADS_PER_BLOCK value"] = UNIT + "; the attribute says the unit's limit"
    DEVIATIONS[f"{_kn} MAX_DYNAMIC_SHARED_SIZE_BYTES value"] = UNIT + "; the attribute is 4 KiB less the static part"
    DEVIATIONS[f"{_kn} NUM_REGS value"] = "the translator's RV32 registers (up to 24), not NVIDIA's SASS registers"
    DEVIATIONS[f"{_kn} BINARY_VERSION value"] = ("vmgpu reports compute capability 5.0 for its code (the H100's "
                                                   "SASS is 9.0)")
PTXSUB = ("valid PTX the SIMT unit cannot run yet (docs/ptx.md: f32 needs the F extension, atom the A extension, "
          ".func/call and modules without .entry are not translated): NOT_SUPPORTED / the translator's INVALID_PTX, "
          "never a wrong result")
for _k in ("load ptx header only", "load ptx f32 saxpy", "load ptx atomics", "load ptx .func and call"):
    DEVIATIONS[_k] = PTXSUB
DEVIATIONS["load NVRTC 13.5 fixture (.version 9.5)"] = (
    "vmgpu's translator reads PTX ISA up to 9.5 (what NVRTC 13.5 writes); NVIDIA's driver 580 (CUDA 13.0) JITs "
    "up to 9.0")
DEVIATIONS["loading mode"] = ("vmgpu translates every kernel when the module is loaded (EAGER); NVIDIA's driver "
                                "580 loads lazily by default")
SASS = "NVIDIA machine code (SASS) runs only on NVIDIA GPUs: vmgpu loads the PTX of a module, so SASS alone is NO_BINARY_FOR_GPU"
for _k in ("moduleload fatbin sm_90 sass only", "fatbin sm_90 sass only: launch",
           "fatbin sm_90 sass only: results right", "moduleloaddata fatbin sm_90 sass only",
           "moduleloadfatbinary fatbin sm_90 sass only", "moduleload cubin sm_90", "cubin sm_90: launch",
           "cubin sm_90: results right", "moduleloaddata cubin sm_90", "moduleloadfatbinary cubin sm_90"):
    DEVIATIONS[_k] = SASS
for _k in ("other ctx synchronize", "other ctx launch vadd", "other ctx synchronize after launch",
           "other ctx vadd right"):
    DEVIATIONS[_k] = ISOLATION
# cuLaunchKernelEx (kernel_probe.c, section launchex): a cooperative grid must be co-resident;
# vmgpu's unit runs one block at a time and reports COOPERATIVE_LAUNCH 0.
COOP = ("cooperative launches need every block of the grid resident at once; the SIMT unit runs one "
        "block at a time (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0): NOT_SUPPORTED")
DEVIATIONS["launchex COOPERATIVE 1"] = COOP
DEVIATIONS["COOPERATIVE 1: results right"] = COOP
FAILURE_ANSWERS = ("CRASH", "HANG", "CUDA_ERROR_UNKNOWN")


def parse(lines):
    """{"section: case": answer}; case names are unique within a section."""
    out = {}
    sec = ""
    for line in lines:
        if line.startswith("# section "):
            sec = line.split()[2]
        if not line.strip() or line.startswith("#"):
            continue
        name, _, val = line.rstrip().rpartition(" ")
        key = f"{sec}: {name.strip()}"
        if key in out:
            sys.exit(f"duplicate case name: {key}")
        out[key] = val
    return out


def main():
    probe, recorded = sys.argv[1], sys.argv[2]
    skip = set()
    if len(sys.argv) > 3:
        if len(sys.argv) != 5 or sys.argv[3] != "--skip":
            sys.exit("usage: compare.py PROBE RECORDED_FILE [--skip SECTION,...]")
        skip = set(sys.argv[4].split(","))
    nv_lines = open(recorded).read().splitlines()
    nv = parse(nv_lines)
    sections = [l.split()[2] for l in nv_lines if l.startswith("# section ")]
    unknown = skip - set(sections)
    if unknown:
        sys.exit(f"--skip: {os.path.basename(recorded)} records no section {', '.join(sorted(unknown))}")
    skipped = {k for k in nv if k.split(": ", 1)[0] in skip}
    for k in skipped:
        del nv[k]
    if skip:
        print(f"skipped: {len(skipped)} recorded cases of section(s) {', '.join(sorted(skip))}")
    sections = [x for x in sections if x not in skip]
    vm_lines = record_nvidia.record(probe, only=sections)
    crashed = [l for l in vm_lines if l.startswith("# section") and "ended with" in l]
    vm = parse(vm_lines)
    same = dev = nvfail = na = 0
    diff = []
    for k, v in nv.items():
        got = vm.get(k, "<missing>")
        if v == "NA":
            na += 1
            print(f"not run    {k:44s} (NVIDIA did not get here: the case before it crashed)")
        elif got == v:
            same += 1
        elif v.startswith(FAILURE_ANSWERS):
            if got.startswith("CUDA_ERROR_") and got != "CUDA_ERROR_UNKNOWN":
                nvfail += 1
                print(f"nv-failure {k:44s} NVIDIA {v}, vmgpu {got} (specific error instead)")
            else:
                diff.append(k)
                print(f"DIFFERENT  {k:44s} NVIDIA {v}, vmgpu {got}: vmgpu must give a specific error")
        elif k.split(": ", 1)[1] in DEVIATIONS:
            dev += 1
            print(f"deviation  {k:44s} NVIDIA {v}, vmgpu {got}: {DEVIATIONS[k.split(': ', 1)[1]]}")
        else:
            diff.append(k)
            print(f"DIFFERENT  {k:44s} NVIDIA {v}, vmgpu {got}")
    # Cases the probe has now that NVIDIA's record lacks (added after the recording): printed
    # and counted, not compared and not failed, until record_nvidia.py is run again.
    unrecorded = [k for k in vm if k not in nv]
    for k in unrecorded:
        print(f"NOT RECORDED {k:42s} vmgpu {vm[k]} (no NVIDIA answer yet: re-run record_nvidia.py)")
    for c in crashed:
        print(f"PROBE CRASHED ON VMGPU: {c}")
    total = len(nv) - na
    print(f"{total} cases: {same} match NVIDIA, {dev} documented deviations, "
          f"{nvfail} where NVIDIA crashed/hung/answered UNKNOWN and vmgpu gives a specific error, "
          f"{len(diff)} unexplained differences; {len(unrecorded)} vmgpu cases not yet recorded on NVIDIA")
    sys.exit(1 if diff or crashed else 0)


main()
