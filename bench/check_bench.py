#!/usr/bin/env python3
"""Run vmgpu-bench and check its output: every line `key value [unit]`, the expected keys
present, each map-cost curve flat (the same link round trips for 1 ... 256 granules) and the
copy efficiencies between 0 and 1 (peak: one 32-bit word per cycle).

With a second argument `board` (vmgpu-bench over sim-board: the board's SDRAM), the SDRAM keys
must be there too: sdram_copy_efficiency in (0, 1] ((bytes read + bytes written) per cycle over
the chip's 2 bytes per cycle at the design clock, equal to twice dma_copy_bytes_per_cycle / 2),
sdram_refresh_overhead in (0, 0.05) and tlb_miss_cycles > 0 (page tables in the SDRAM).
With `cuda sdram` (the in-process model's SDRAM configuration, VMGPU_SIM_MEMORY=sdram): the
CUDA checks, flat curves, and the same SDRAM keys. With `simt` (a device with the SIMT unit): the
kernel keys, in range."""
import re
import subprocess
import sys

modes = set(sys.argv[2:])
board = "board" in modes
sdram = board or "sdram" in modes
out = subprocess.run([sys.argv[1]], capture_output=True, text=True, timeout=1500 if board else 600)
print(out.stdout, end="")
fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1


check(out.returncode == 0, f"vmgpu-bench exit status {out.returncode}")
vals = {}
for line in out.stdout.splitlines():
    m = re.fullmatch(r"([a-z0-9_]+) (-?[0-9.]+)( [a-z/]+)?", line)
    check(m is not None, f"`key value [unit]`: {line!r}")
    if m:
        vals[m.group(1)] = float(m.group(2))

curves = {"map_granules_%d_link_round_trips": "map_granule_link_round_trips"}
if "cuda" in modes:
    curves["cuda_map_granules_%d_link_round_trips"] = "cuda_map_granule_link_round_trips"
    for k in ("cuda_map_granule_cycles", "cuda_memcpy_dtod_bytes_per_cycle", "cuda_memcpy_htod_bytes_per_cycle",
              "cuda_memcpy_dtoh_bytes_per_cycle"):
        check(k in vals and vals[k] > 0, f"{k} present and positive")
    # The pool allocator: a warm allocation touches no device state, a cold one maps a granule.
    for k in ("pool_alloc_cycles", "pool_alloc_link_round_trips", "pool_alloc_cold_cycles",
              "pool_alloc_cold_link_round_trips"):
        check(k in vals, f"{k} present")
    check(vals.get("pool_alloc_link_round_trips", -1) == 0, "pool_alloc_link_round_trips (warm) is 0")
    check(vals.get("pool_alloc_cold_link_round_trips", 0) > 0, "pool_alloc_cold_link_round_trips > 0")
    check(vals.get("pool_alloc_cold_cycles", 0) > vals.get("pool_alloc_cycles", 0),
          "a cold pool allocation costs more device cycles than a warm one")
    for k in ("dtod", "htod", "dtoh"):
        e = vals.get(f"cuda_memcpy_{k}_efficiency", -1)
        check(0 < e <= 1.0, f"cuda_memcpy_{k}_efficiency {e} in (0, 1]")
        check(abs(e - vals.get(f"cuda_memcpy_{k}_bytes_per_cycle", 0) / 4) < 0.001,
              f"cuda_memcpy_{k}_efficiency is bytes_per_cycle / 4")
for pattern, single in curves.items():
    pts = [vals.get(pattern % (1 << i)) for i in range(9)]
    check(None not in pts, f"{pattern % 0} curve has n = 1, 2, 4, ..., 256")
    if board:
        # Over a link the fence is polled by exchanges, and the large maps' PTE writes take a
        # few more polls (docs/board.md, link figures): bounded, not flat.
        check(None not in pts and max(pts) <= 2 * vals.get(single, 0),
              f"{pattern % 0}: at most twice {single} for every n ({pts})")
    else:
        check(None not in pts and len(set(pts)) == 1 and pts[0] == vals.get(single),
              f"{pattern % 0}: the same round trips for every n, equal to {single} ({pts})")
check(0 < vals.get("dma_copy_efficiency", -1) <= 1.0, "dma_copy_efficiency in (0, 1]")
if not board:
    # The device server (vmgpud): a round trip costs something, and a map through it costs the
    # device the same link round trips as in the process.
    check(vals.get("server_call_us", 0) > 0, "server_call_us present and positive")
    check(vals.get("server_map_granule_us", 0) > 0 and vals.get("inproc_map_granule_us", 0) > 0,
          "server_map_granule_us and inproc_map_granule_us present")
    check(vals.get("server_map_granule_link_round_trips") == vals.get("map_granule_link_round_trips"),
          "server_map_granule_link_round_trips equals map_granule_link_round_trips")
    check(vals.get("server_cuda_map_granule_us", 0) > 0 and vals.get("inproc_cuda_map_granule_us", 0) > 0,
          "server_cuda_map_granule_us and inproc_cuda_map_granule_us present")
    check(vals.get("server_cuda_map_granule_link_round_trips") == vals.get("cuda_map_granule_link_round_trips")
          == vals.get("inproc_cuda_map_granule_link_round_trips"),
          "cuda_map_granule_link_round_trips the same through the server and in-process")
if "simt" in modes:
    # The SIMT unit's figures (NVRTC's PTX translated by sw/ptx, run through the MMU).
    for k in ("ptx_translate_ms", "kernel_vadd_bytes_per_cycle", "kernel_lane_ipc"):
        check(vals.get(k, 0) > 0, f"{k} present and positive")
    check(0 < vals.get("kernel_lane_ipc", 0) <= 1.0, "kernel_lane_ipc in (0, 1]")
    r = vals.get("kernel_vadd_dma_peak_ratio", -1)
    check(0 < r <= 1.0 and abs(r - vals.get("kernel_vadd_bytes_per_cycle", 0) / 4) < 0.001,
          f"kernel_vadd_dma_peak_ratio {r} in (0, 1] and kernel_vadd_bytes_per_cycle / 4")
    if not board:  # the in-process model's own speed; over the link the model is another process
        check(vals.get("sim_cycles_per_second_simt_busy", 0) > 0, "sim_cycles_per_second_simt_busy present")
else:
    check("kernel_lane_ipc" not in vals, "no kernel keys on a device without the SIMT unit")
if sdram:
    e = vals.get("sdram_copy_efficiency", -1)
    check(0 < e <= 1.0, f"sdram_copy_efficiency {e} in (0, 1]")
    check(abs(e - vals.get("dma_copy_bytes_per_cycle", 0)) < 0.002,
          "sdram_copy_efficiency is (read + written) bytes per cycle / 2 = dma_copy_bytes_per_cycle")
    r = vals.get("sdram_refresh_overhead", -1)
    check(0 < r < 0.05, f"sdram_refresh_overhead {r} in (0, 0.05)")
    check(vals.get("tlb_miss_cycles", 0) > 0, "tlb_miss_cycles > 0")
else:
    check("sdram_copy_efficiency" not in vals, "no SDRAM keys on a device with block RAM")
print(f"vmgpu-bench output: {len(vals)} figures, {fails} failed checks")
sys.exit(1 if fails else 0)
