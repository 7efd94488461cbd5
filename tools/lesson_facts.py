"""The providers of tools/lesson_numbers.py: what each lesson and doc quotes, taken from runs.

Each provider runs what its page runs and returns {name: text}. Names are "<prefix>.<what>";
the pages refer to them as <!-- gen:<prefix>.<what> -->...<!-- /gen -->. A provider raises
GenError (g.GenError) when a run no longer shows what the page explains, naming what it looked
for: the page then needs a human, not a regeneration.
"""
import re

g = None  # the lesson_numbers module (helpers), set by register()


def register(provider, gen):
    global g
    g = gen
    for prefix, fn in PROVIDERS:
        provider(prefix)(fn)


PROVIDERS = []


def provides(prefix):
    def deco(fn):
        PROVIDERS.append((prefix, fn))
        return fn
    return deco


# ----------------------------------------------------------------------------- bench


@provides("bench")
def bench(ctx):
    r = ctx.run("bench", ["bench/vmgpu-bench"], timeout=900)
    f = {}
    for line in r.out_lines:
        parts = line.split()
        if len(parts) >= 2:
            f[parts[0]] = parts[1]
    out = {k: v for k, v in f.items()}

    def series(prefix):
        vals = sorted({int(v) for k, v in f.items()
                       if re.fullmatch(prefix + r"_\d+_link_round_trips", k)})
        return vals

    core = series("map_granules")
    cuda = series("cuda_map_granules")
    out["map_granules_series"] = (f"stays at {core[0]} from 1 to 256 granules" if len(core) == 1
                                  else "goes " + ", ".join(map(str, core)) + " from 1 to 256 granules")
    out["cuda_map_granules_series"] = (f"the same {cuda[0]} for 1, 2, 4, ... 256 granules" if len(cuda) == 1
                                       else "from " + " to ".join(map(str, cuda)) + " over 1 to 256 granules")
    out["cl_map_copy_cycles_g"] = g.grp(f["cl_map_copy_cycles"])
    cl_keys = ["cl_map_zero_copy_cycles", "cl_map_zero_copy_link_round_trips", "cl_unmap_zero_copy_link_round_trips",
               "cl_map_copy_cycles", "cl_map_link_round_trips", "cl_unmap_link_round_trips"]
    out["cl_block"] = g.block([l for l in r.out_lines if l.split()[0] in cl_keys])
    return out


# ------------------------------------------------------------------------- sdram


@provides("sdram")
def sdram(ctx):
    """docs/board.md's figures of the in-process model's SDRAM configuration."""
    r = ctx.run("bench_sdram", ["bench/vmgpu-bench"], env={"VMGPU_SIM_MEMORY": "sdram"}, timeout=900)
    f = {}
    for line in r.out_lines:
        parts = line.split()
        if len(parts) >= 2:
            f[parts[0]] = parts[1]
    keys = ["sdram_copy_efficiency", "sdram_refresh_overhead", "tlb_miss_cycles", "dma_copy_bytes_per_cycle"]
    missing = [k for k in keys if k not in f]
    if missing:
        raise g.GenError(f"vmgpu-bench with VMGPU_SIM_MEMORY=sdram printed no {', '.join(missing)}")
    return {k: f[k] for k in keys}


# -------------------------------------------------------------------- simt_board


@provides("simt_board")
def simt_board(ctx):
    """docs/cores.md's costs of the board's unit (4 x 8, the register stages): its RTL bench."""
    d = "tests/rtl/simt"
    out = {}
    r = ctx.run("simt_board_spin", [f"{d}/simt_board", "spin", f"{ctx.build}/{d}/spin.elf"], timeout=600)
    out["spin_lane_ipc"] = g.grab(r.out, r"kernel_lane_ipc ([0-9.]+)", "simt_board spin")
    r = ctx.run("simt_board_vadd", [f"{d}/simt_board", "vadd", f"{ctx.build}/{d}/vadd.elf"], timeout=600)
    out["vadd_cycles"] = g.grp(g.grab(r.out, r"vadd_cycles (\d+)", "simt_board vadd"))
    return out


# ------------------------------------------------------------------------- probes

PROBE_SUMMARY = re.compile(r"^(?P<cases>\d+) cases: (?P<same>\d+) match NVIDIA, (?P<dev>\d+) documented "
                           r"deviations, (?P<crash>\d+) where NVIDIA crashed", re.M)


@provides("probes")
def probes(ctx):
    """docs/cuda.md's counts of the conformance probes against NVIDIA's recorded answers."""
    import os
    import sys
    src = os.path.join(g.ROOT, "tests", "cuda")
    out = {}

    def compare(name, probe, record):
        r = ctx.run("probe_" + name, [sys.executable, os.path.join(src, "probe", "compare.py"),
                                      os.path.join(ctx.build, "tests", "cuda", probe),
                                      os.path.join(src, "probe", record)],
                    env={"VMGPU_TRACE": "0"}, timeout=900)
        m = PROBE_SUMMARY.search(r.out)
        if not m:
            raise g.GenError(f"probe {name}: no summary line in compare.py's output")
        for k, v in m.groupdict().items():
            out[f"{name}_{k}"] = v

    compare("clients", "vmgpu_clients_probe", "nvidia_clients_h100_580.159.04.txt")
    compare("pools", "vmgpu_pool_probe", "nvidia_pools_h100_580.159.04.txt")
    compare("vmmstate", "vmgpu_cuda_probe", "nvidia_vmmstate_h100_580.159.04.txt")
    lib = os.path.join(ctx.build, "sw", "cuda")
    r = ctx.run("probe_procaddr", [sys.executable, os.path.join(src, "procaddr", "compare_procaddr.py"),
                                   os.path.join(ctx.build, "tests", "cuda", "vmgpu_procaddr_probe"),
                                   os.path.join(src, "procaddr", "nvidia_procaddr.txt"),
                                   os.path.join(src, "procaddr", "pfn_versions.txt"),
                                   os.path.join(lib, "libcuda.so.1")],
                env={"VMGPU_TRACE": "0", "LD_LIBRARY_PATH": lib}, timeout=900)
    out["procaddr_answers"] = g.grab(r.out, r"procaddr: (\d+) answers compared", what="compare_procaddr.py")
    return out


# -------------------------------------------------------------------------- lesson 01


@provides("l01")
def lesson01(ctx):
    exe = ["examples/dma_through_mmu"]
    tr = ctx.run("dma_trace", exe, trace=True)
    L = tr.err_lines
    f = {"stdout": g.block(["$ ./dma_through_mmu"] + tr.out_lines)}
    blk, i = g.pick(L, [r"ctx_create: asid", r"ring0\s+PTE_FILL", r"ring0\s+TLB_INV", r"ring0\s+FENCE"],
                    what="l01 ctx")
    f["trace.ctx"] = g.block(blk)
    blk, i = g.pick(L, [r"phys_alloc", r"va_reserve", r"\] map\(", r"pde\s+va", r"pte\s+va",
                        r"PTE_FILL", r"PTE_FILL", r"PTE_FILL", r"TLB_INV"], start=i, what="l01 map")
    # phys_alloc / va_reserve of the second buffer come between: show the first of each.
    f["trace.map"] = g.block(blk)
    m2 = g.find(L, r"\] map\(asid \d+, va 0x00030000", what="l01 second map")
    f["dst_pte"] = g.grab(L[g.find(L, r"PTE_FILL", m2)], r"value (0x[0-9a-f]+)", "l01 second map's PTE_FILL")
    c1 = g.find(L, r"ring\d+\s+DMA_COPY")
    lost_i = g.find(L, r"older events lost", c1)
    blk, _ = g.pick(L, [r"BIND_CTX", r"DMA_COPY", r"FENCE", r"older events lost", r"TLB_FILL",
                        r"TLB_FILL", r"TLB_FILL", r"TLB_FILL", "..."], start=c1 - 1, what="l01 copy")
    f["trace.copy"] = g.block(blk)
    lost = int(g.grab(L[lost_i], r"(\d+) older events lost"))
    c2 = g.find(L, r"ring\d+\s+DMA_COPY", c1 + 1)
    shown = [l for l in L[lost_i + 1:c2] if "TLB_FILL" in l]
    f["lost"] = str(lost)
    f["shown"] = str(len(shown))
    f["fills"] = str(lost + len(shown))
    f["first_shown_va"] = g.grab(shown[0], r"va (0x[0-9a-f]+)")
    f["last_shown_va"] = g.grab(shown[-1], r"va (0x[0-9a-f]+)")
    blk, _ = g.pick(L, [r"DMA_COPY", r"TLB_FILL", r"mmu: FAULT", r"fault: ring"], start=c2, what="l01 fault")
    f["trace.fault"] = g.block(blk)
    f["fault_off"] = g.grab(L[g.find(L, r"fault: ring", c2)], r"offset (0x[0-9a-f]+)")

    # The waveform: the first copy from dma_start, and the faulting copy.
    wv = ctx.run("dma_waves", exe, waves=True)
    w = ctx.wave(wv, ["dma_start", "tr0_req_valid", "tr0_req_va", "tr0_req_write", "tr0_rsp_valid", "tr0_rsp_pa",
                      "tr0_rsp_fault", "tr0_rsp_reason", "u_mmu.u_walker.pt_rd_valid_o",
                      "u_mmu.u_walker.pt_rd_addr_o", "u_mmu.u_walker.pt_rsp_valid_i",
                      "u_mmu.u_walker.pt_rsp_data_i", "dm_wr_en", "dm_wr_addr", "dm_rd_en",
                      "dm_rd_addr", "u_cp.op_q", "cycle", "dma_done", "dma_fault"])
    starts = w.rises("dma_start")
    if len(starts) != 2:
        raise g.GenError(f"l01: expected two dma_start pulses, found {len(starts)}")
    t0 = starts[0]
    c0 = g.cycle_at(t0)
    if w.at("cycle", t0) != c0:
        raise g.GenError(f"l01: cycle counter {w.at('cycle', t0)} at {t0} ns, expected {c0}")
    rel = lambda t: g.cycle_at(t) - c0  # noqa: E731
    f["t_dma_start"] = g.grp(t0)
    f["op_dma"] = f"{w.at('u_cp.op_q', t0):02X}"
    req1 = w.first_rise("tr0_req_valid", t0)
    rd = w.rises("u_mmu.u_walker.pt_rd_valid_o", req1)
    rs = w.rises("u_mmu.u_walker.pt_rsp_valid_i", req1)
    rsp1 = w.first_rise("tr0_rsp_valid", req1)
    req2 = w.first_rise("tr0_req_valid", rsp1)
    rsp2 = w.first_rise("tr0_rsp_valid", req2)
    f["c_req"] = str(rel(req1))
    f["c_pde"] = f"{rel(rd[0])}–{rel(rs[0])}"
    f["c_pte"] = f"{rel(rd[1])}–{rel(rs[1])}"
    f["c_rsp"] = str(rel(rsp1))
    f["c_dst"] = f"{rel(req2)}–{rel(rsp2)}"
    f["c_stream"] = f"{rel(rsp2) + 1}–"
    f["req_va"] = f"{w.at('tr0_req_va', req1):08X}"
    f["pde_addr"] = f"{w.at('u_mmu.u_walker.pt_rd_addr_o', rd[0]):08X}"
    f["pde_val"] = f"{w.at('u_mmu.u_walker.pt_rsp_data_i', rs[0]):08X}"
    f["pte_addr"] = f"{w.at('u_mmu.u_walker.pt_rd_addr_o', rd[1]):08X}"
    f["pte_val"] = f"{w.at('u_mmu.u_walker.pt_rsp_data_i', rs[1]):08X}"
    f["rsp_pa"] = f"{w.at('tr0_rsp_pa', rsp1):08X}"
    f["dst_pte_addr"] = f"0x{w.at('u_mmu.u_walker.pt_rd_addr_o', rd[3]):05X}"
    f["dst_pte_val"] = f"0x{w.at('u_mmu.u_walker.pt_rsp_data_i', rs[3]):08X}"
    f["dst_pa"] = f"0x{w.at('tr0_rsp_pa', rsp2):X}"
    # The first device read and write of data: word addresses.
    src_word = w.at("tr0_rsp_pa", rsp1) >> 2
    dst_word = w.at("tr0_rsp_pa", rsp2) >> 2
    rd_t = next((t for t, v in w.changes("dm_rd_addr", rsp1) if v == src_word and w.at("dm_rd_en", t)), None)
    wr_t = next((t for t, v in w.changes("dm_wr_addr", rsp2) if v == dst_word and w.at("dm_wr_en", t)), None)
    if rd_t is None or wr_t is None:
        raise g.GenError("l01: no device read of the source frame / write of the destination frame")
    f["rd_word"] = f"0x{w.at('dm_rd_addr', rd_t):X}"
    f["wr_word"] = f"0x{w.at('dm_wr_addr', wr_t):X}"
    f["rd_byte"] = f"0x{w.at('dm_rd_addr', rd_t) * 4:X}"
    f["wr_byte"] = f"0x{w.at('dm_wr_addr', wr_t) * 4:X}"
    done = w.first_rise("dma_done", t0)
    f["copy_cycles"] = g.grp(g.cycle_at(done) - c0)
    t_f = starts[1]
    f["t_fault_start"] = g.grp(t_f)
    tf = w.first_rise("tr0_rsp_fault", t_f)
    f["t_fault"] = g.grp(tf)
    f["fault_reason"] = str(w.at("tr0_rsp_reason", tf))
    import wave_svg
    f["files"] = {"docs/lessons/01-dma-through-mmu/waves.svg": wave_svg.render(
        ctx.tool("vmgpu-fst-dump"), wv.fst, t0, 18,
        ["dma_start", "tr0_req_valid", "tr0_req_write", "tr0_req_va", "stat_miss",
         "u_mmu.u_walker.pt_rd_valid_o=pt_rd_valid_o", "u_mmu.u_walker.pt_rd_addr_o=pt_rd_addr_o",
         "u_mmu.u_walker.pt_rsp_valid_i=pt_rsp_valid_i", "u_mmu.u_walker.pt_rsp_data_i=pt_rsp_data_i",
         "tr0_rsp_valid", "tr0_rsp_pa", "u_mmu.u_tlb.valid_q=tlb valid_q", "dm_rd_en", "dm_rd_addr", "dm_wr_en",
         "dm_wr_addr"],
        [(t0, "A dma_start"), (req2, "B")], "Lesson 01: the first 18 cycles of the DMA copy (from marker A)")}
    f["gtkw"] = {
        "header": ["vmgpu lesson 01: one DMA copy through the MMU",
                   "Open with: gtkwave /tmp/lesson01.fst docs/lessons/01-dma-through-mmu/view.gtkw",
                   "The waveform comes from: VMGPU_WAVES=/tmp/lesson01.fst build/examples/dma_through_mmu",
                   f"Generated by tools/lesson_numbers.py. Markers: A {t0} dma_start of the copy, "
                   f"B {req2} the destination's translation request,",
                   f"C {t_f} dma_start of the faulting copy, D {tf} its translation faults"],
        "timestart": t0 - 4 * g.NS_PER_CYCLE,
        "primary": t0,
        "markers": [t0, req2, t_f, tf],
    }
    return f


# -------------------------------------------------------------------------- lesson 03


@provides("l03")
def lesson03(ctx):
    exe = ["examples/cl_map_buffer"]
    plain = ctx.run("cl_plain", exe)
    tr = ctx.run("cl_trace", exe, trace=True)
    O, L = plain.out, tr.err_lines
    f = {}
    body = [l for l in plain.out_lines if l.strip() and "PASSED" not in l]
    f["out"] = g.block(body)
    zero, copy = O.split("== device buffer")
    cyc = lambda sec, what: g.grab(sec, r"^" + what + r":.*?(\d+) device cycles", f"l03 {what}")  # noqa: E731
    f["zc_map"] = cyc(zero, "map for writing")
    f["zc_unmap"] = cyc(zero, "unmap")
    f["zc_kernel"] = g.grp(cyc(zero, "kernel vmgpu_scale_i32 over 4096 elements"))
    f["cp_map"] = cyc(copy, "map for writing")
    f["cp_unmap"] = g.grp(cyc(copy, "unmap"))
    f["cp_kernel"] = g.grp(cyc(copy, "kernel vmgpu_scale_i32 over 4096 elements"))
    f["cp_read"] = g.grp(cyc(copy, "map for reading"))
    f["cp_unmap_bpc"] = f"{16384 / int(cyc(copy, 'unmap')):.1f}"
    # 1. the USE_HOST_PTR buffer
    blk, i = g.pick(L, [r"va_reserve\(asid 1, 0x4000", r"host_register", r"\] map\(", r"pte\s+va",
                        r"PTE_FILL.*value 0x[0-9a-f]+f ", r"TLB_INV", r"\[opencl\] buffer .*zero copy"],
                    what="l03 use_host_ptr buffer")
    f["trace.uhp"] = g.block(blk)
    f["uhp_pte"] = g.grab(blk[4], r"value (0x[0-9a-f]+)")
    f["uhp_frames"] = g.grab(blk[1], r"host frames (0x[0-9a-f]+\.\.0x[0-9a-f]+)")
    ro = g.find(L, r"kernel view at va .*read only", what="l03 read-only view")
    f["ro_va"] = g.grab(L[ro], r"va (0x[0-9a-f]+)")
    f["ro_pte"] = g.grab(L[g.find(L, r"PTE_FILL", ro - 6)], r"value (0x[0-9a-f]+)")
    wo = g.find(L, r"kernel view at va .*write only", what="l03 write-only view")
    f["wo_va"] = g.grab(L[wo], r"va (0x[0-9a-f]+)")
    f["wo_pte"] = g.grab(L[g.find(L, r"PTE_FILL", wo - 6)], r"value (0x[0-9a-f]+)")
    # 2. map/unmap of it
    blk, i = g.pick(L, [r"\[opencl\] map .*zero copy", r"\[opencl\] unmap .*zero copy"], what="l03 zero-copy map")
    f["trace.zcmap"] = g.block(blk)
    # 3. the kernel on host memory
    k = g.find(L, r"\[opencl\] kernel vmgpu_scale_i32")
    blk, _ = g.pick(L, [r"\[opencl\] kernel vmgpu_scale_i32", r"ring0\s+LAUNCH", r"TLB_FILL", r"TLB_FILL",
                        r"TLB_FILL"], start=k, what="l03 kernel")
    f["trace.kernel"] = g.block(blk)
    argf = re.search(r"va (0x[0-9a-f]+) -> frame (0x[0-9a-f]+) (\S+)( host)?", blk[2])
    f["arg_va"] = argf.group(1)
    f["arg_frame"] = argf.group(2)
    if argf.group(4):
        raise g.GenError("l03: the kernel's first fill (the argument page) is host memory now")
    f["args_va"] = g.grab(blk[1], r"args va (0x[0-9a-f]+)")
    # 4. the device buffer and its staging unmap
    d0 = g.find(L, r"\[opencl\] buffer .*device memory")
    d0 = max(i for i in range(d0) if "phys_alloc" in L[i]) + 4
    blk, _ = g.pick(L, [r"phys_alloc", r"\] map\(", r"\[opencl\] buffer .*device memory", r"host_register",
                        r"\] map\(.*host", r"\[opencl\] map .*staging", r"\[opencl\] unmap .*DMA host -> device",
                        r"TIMESTAMP", r"DMA_COPY", r"TIMESTAMP", r"TLB_FILL", r"TLB_FILL"],
                    start=d0 - 4, what="l03 device buffer")
    f["trace.dev"] = g.block(blk)
    f["dev_pa"] = g.grab(blk[0], r"pa (0x[0-9a-f]+)")
    f["dev_va"] = g.grab(blk[1], r"va (0x[0-9a-f]+)")
    f["stage_va"] = g.grab(blk[4], r"va (0x[0-9a-f]+)")
    # 5. read back
    r0 = g.find(L, r"\[opencl\] map .*staging, DMA device -> host")
    blk, _ = g.pick(L, [r"\[opencl\] map .*DMA device -> host", r"DMA_COPY", r"TLB_FILL", r"TLB_FILL",
                        r"\[opencl\] unmap .*read map"], start=r0, what="l03 read back")
    f["trace.read"] = g.block(blk)
    return f


# -------------------------------------------------------------------------- lesson 02

WALK = ["u_mmu.u_walker.pt_rd_valid_o", "u_mmu.u_walker.pt_rd_addr_o",
        "u_mmu.u_walker.pt_rsp_valid_i", "u_mmu.u_walker.pt_rsp_data_i", "stat_hit", "stat_miss"]


def port_signals(p):
    return [f"tr{p}_req_valid", f"tr{p}_req_va", f"tr{p}_req_write", f"tr{p}_rsp_valid",
            f"tr{p}_rsp_pa", f"tr{p}_rsp_host"]


def translation(w, port, va, t0, what):
    """The translation of va on port `port` requested first after t0: request and answer times,
    the walker's reads in between ([(t_read, addr, t_data, data)]), hit or miss, the answer."""
    req = None
    for t in w.rises(f"tr{port}_req_valid", t0):
        if w.at(f"tr{port}_req_va", t) == va:
            req = t
            break
    if req is None:
        raise g.GenError(f"{what}: no translation request for VA {va:#x} on port {port} after {t0}")
    rsp = w.first_rise(f"tr{port}_rsp_valid", req, what=what)
    reads = []
    rd = w.rises("u_mmu.u_walker.pt_rd_valid_o", req, rsp)
    rs = w.rises("u_mmu.u_walker.pt_rsp_valid_i", req, rsp)
    for a, b in zip(rd, rs):
        reads.append((a, w.at("u_mmu.u_walker.pt_rd_addr_o", a), b, w.at("u_mmu.u_walker.pt_rsp_data_i", b)))
    hit = bool(w.rises("stat_hit", req, rsp))
    return {"req": req, "rsp": rsp, "reads": reads, "hit": hit, "pa": w.at(f"tr{port}_rsp_pa", rsp),
            "host": w.at(f"tr{port}_rsp_host", rsp)}


def first_write(w, word, data, t0, what):
    """Time of the first device-memory write of data at word address `word` after t0."""
    for t, v in w.changes("dm_wr_addr", t0):
        if v == word and w.at("dm_wr_en", t) and (data is None or w.at("dm_wr_data", t) == data):
            return t
    # The address may already sit on the bus: look at write-enable rises too.
    for t in w.rises("dm_wr_en", t0):
        if w.at("dm_wr_addr", t) == word and (data is None or w.at("dm_wr_data", t) == data):
            return t
    raise g.GenError(f"{what}: no write of {data if data is None else hex(data)} at word {word:#x} after {t0}")


def popcount(v):
    return bin(v).count("1")


@provides("l02")
def lesson02(ctx):
    exe = ["examples/cuda_vmm_walkthrough"]
    plain = ctx.run("vmm_plain", exe)
    tr = ctx.run("vmm_trace", exe, trace=True)
    L = tr.err_lines
    f = {}
    a = g.find(L, r"^\[cuda\] cuMemAddressReserve$")
    blk, _ = g.pick(L, [r"cuMemAddressReserve$", r"va_reserve", r"cuMemAddressReserve: VA",
                        r"cuMemAddressReserve ->", r"\[cuda\] cuMemCreate$", r"phys_alloc",
                        r"cuMemCreate: handle", r"cuMemCreate ->"], start=a, what="l02 reserve/create")
    f["trace.reserve"] = g.block(blk)
    f["resv_va"] = g.grab(blk[1], r"-> va (0x[0-9a-f]+)")
    f["pa"] = g.grab(blk[5], r"-> pa (0x[0-9a-f]+)")
    m = g.find(L, r"^\[cuda\] cuMemMap$")
    blk, i = g.pick(L, [r"cuMemMap$", r"cuMemMap ->", r"cuMemMap$", r"\] map\(", r"pte\s+va", r"PTE_FILL",
                        r"TLB_INV", r"FENCE", r"INVALIDATE", r"cuMemMap: VA", r"cuMemMap ->"],
                    start=m, what="l02 cuMemMap")
    f["trace.map"] = g.block(blk)
    f["bad_map_error"] = g.grab(blk[1], r"-> (CUDA_\w+)")
    f["map_fill"] = g.grab(blk[5], r"(pa 0x[0-9a-f]+ count \d+ value 0x[0-9a-f]+)")
    f["map_pte_pa"] = g.grab(blk[5], r"pa (0x[0-9a-f]+)")
    f["map_pte"] = g.grab(blk[5], r"value (0x[0-9a-f]+)")
    f["map_fence"] = g.grab(blk[7], r"value (\d+)")
    s0 = g.find(L, r"^\[cuda\] cuMemSetAccess$", i)
    blk, i = g.pick(L, [r"cuMemSetAccess$", r"protect\(", r"pte\s+va", r"PTE_FILL", r"TLB_INV", r"FENCE",
                        r"INVALIDATE", r"cuMemSetAccess: VA"], start=s0, what="l02 cuMemSetAccess")
    f["trace.setaccess"] = g.block(blk)
    f["acc_pte"] = g.grab(blk[3], r"value (0x[0-9a-f]+)")
    f["acc_pte_ro"] = hx((int(f["acc_pte"], 16) & ~4) & 0xffffffff)
    h0 = g.find(L, r"^\[cuda\] cuMemcpyHtoD$", i)
    blk, i = g.pick(L, [r"cuMemcpyHtoD$", r"BIND_CTX", r"DMA_COPY", r"FENCE", r"TLB_FILL", r"TLB_FILL",
                        r"TLB_FILL", r"TLB_FILL", r"cuMemcpyHtoD ->"], start=h0, what="l02 HtoD")
    f["trace.htod"] = g.block(blk)
    f["staging_va"] = g.grab(blk[2], r"DMA_COPY\s+va (0x[0-9a-f]+)")
    h1 = g.find(L, r"^\[cuda\] cuMemcpyHtoD$", i)
    e1 = g.find(L, r"cuMemcpyHtoD ->", h1)
    f["htod2_fills"] = str(sum("TLB_FILL" in l for l in L[h1:e1]))
    k0 = g.find(L, r"cuLaunchKernel vmgpu_axpy", i)
    blk, i = g.pick(L, [r"cuLaunchKernel vmgpu_axpy", r"launch AXPY", r"WRITE_IMM", r"LAUNCH", r"FENCE",
                        r"cuLaunchKernel ->", r"cuCtxSynchronize$", r"FENCE", r"TLB_FILL", r"TLB_FILL",
                        r"TLB_FILL"], start=k0, what="l02 kernel")
    f["trace.kernel"] = g.block(blk)
    f["args_va"] = g.grab(blk[1], r"args at va (0x[0-9a-f]+)")
    sync_end = g.find(L, r"cuCtxSynchronize ->", i)
    f["kernel_fills"] = str(sum("TLB_FILL" in l for l in L[i - 3:sync_end]))
    u0 = g.find(L, r"^\[cuda\] cuMemUnmap$", i)
    blk, i = g.pick(L, [r"cuMemUnmap$", r"unmap\(", r"pte\s+va", r"PTE_FILL", r"TLB_INV", r"FENCE",
                        r"INVALIDATE", "...", r"\[cuda\] cuMemRelease$", r"phys_free",
                        r"allocation handle .* freed"], start=u0, what="l02 unmap")
    f["trace.unmap"] = g.block(blk)

    # The waveform.
    wv = ctx.run("vmm_waves", exe, waves=True)
    w = ctx.wave(wv, ["cycle", "u_cp.op_q", "u_cp.fence_q[0]", "dm_wr_en", "dm_wr_addr", "dm_wr_data",
                      "inv_valid", "inv_done", "inv_va", "inv_mode", "u_mmu.u_tlb.valid_q", "dma_start",
                      "cu_start", "u_mmu.fill"] + WALK + port_signals(0) + port_signals(1))
    map_pa = int(f["map_pte_pa"], 16)
    map_pte = int(f["map_pte"], 16)
    acc_pte = int(f["acc_pte"], 16)
    cyc = g.cycle_at
    wA = first_write(w, map_pa >> 2, map_pte, 0, "l02 cuMemMap's first PTE write")
    # The PTE_FILL was fetched when op_q last became 3 before its first write.
    fetch = max(t for t, v in w.changes("u_cp.op_q", 0, wA) if v == 3)
    count = int(g.grab(f["map_fill"], r"count (\d+)"))
    wA_last = first_write(w, (map_pa >> 2) + count - 1, map_pte + (count - 1) * 0x1000, wA, "l02 last PTE write")
    inv = w.first_rise("inv_valid", wA_last, what="l02 cuMemMap's TLB_INV")
    inv_done = w.first_rise("inv_done", inv, what="l02 inv_done")
    fence_t = w.first_value("u_cp.fence_q[0]", int(f["map_fence"]), wA_last, what="l02 the map's fence")
    wB = first_write(w, map_pa >> 2, acc_pte, wA_last, "l02 cuMemSetAccess's first PTE write")
    tC = w.first_rise("dma_start", wB, what="l02 the first copy")
    stg = int(f["staging_va"], 16)
    src = translation(w, 0, stg, tC, "l02 staging translation")
    dst = translation(w, 0, int(f["resv_va"], 16), tC, "l02 x translation")
    pa = int(f["pa"], 16)
    data_w = first_write(w, pa >> 2, None, dst["rsp"], "l02 first data word")
    tE = w.first_rise("cu_start", tC, what="l02 the kernel")
    args = translation(w, 1, int(f["args_va"], 16), tE, "l02 args translation")
    x = translation(w, 1, int(f["resv_va"], 16), tE, "l02 x in the kernel")
    y = translation(w, 1, int(f["resv_va"], 16) + 0x2000, tE, "l02 y in the kernel")
    out = translation(w, 1, int(f["resv_va"], 16) + 0x4000, tE, "l02 out in the kernel")
    unmap_inv = [t for t in w.rises("inv_valid", tE) if w.at("inv_va", t) == int(f["resv_va"], 16)]
    if not unmap_inv:
        raise g.GenError("l02: no TLB_INV of the mapping after the kernel (cuMemUnmap)")
    tF = unmap_inv[0]
    tF_done = w.first_rise("inv_done", tF)
    v_before, v_after = w.at("u_mmu.u_tlb.valid_q", tF), w.at("u_mmu.u_tlb.valid_q", tF_done + g.NS_PER_CYCLE)
    for name, t in (("fetch", fetch), ("A", wA), ("A_last", wA_last), ("inv", inv), ("inv_done", inv_done),
                    ("fence", fence_t), ("B", wB), ("C", tC), ("E", tE), ("F", tF), ("F_done", tF_done)):
        f["c." + name] = g.grp(cyc(t))
    f["c.args_end"] = g.grp(cyc(fetch) + 4)
    f["map_cycles"] = str(cyc(fence_t) - cyc(fetch))
    f["inv_cycles"] = str(cyc(inv_done) - cyc(inv))
    f["word"] = f"0x{map_pa >> 2:X}"
    f["word_last"] = f"0x{(map_pa >> 2) + count - 1:X}"
    f["pte_first"] = hx(map_pte)
    f["pte_second"] = hx(map_pte + 0x1000)
    f["pte_last"] = hx(map_pte + (count - 1) * 0x1000)
    f["acc_first"] = hx(acc_pte)
    f["valid_at_inv"] = f"{w.at('u_mmu.u_tlb.valid_q', inv):X}"

    def walk_row(tx):
        r = tx["reads"]
        if len(r) != 2:
            raise g.GenError(f"l02: expected a two-level walk, saw {len(r)} reads")
        return r
    r = walk_row(src)
    f["c.src"] = f"{g.grp(cyc(src['req']))}–{g.grp(cyc(src['rsp']))}"
    f["src_pde_addr"] = f"0x{r[0][1]:X}"
    f["src_pde_val"] = hx(r[0][3])
    f["src_pte_addr"] = f"0x{r[1][1]:X}"
    f["src_pte_val"] = hx_up(r[1][3])
    f["src_pa"] = f"0x{src['pa']:X}"
    f["src_host"] = str(src["host"])
    r = walk_row(dst)
    f["c.dst"] = f"{g.grp(cyc(dst['req']))}–{g.grp(cyc(dst['rsp']))}"
    f["c.dst_pte_read"] = g.grp(cyc(r[1][0]))
    f["c.dst_pte_data"] = g.grp(cyc(r[1][2]))
    f["c.dst_rsp"] = g.grp(cyc(dst["rsp"]))
    f["dst_pde_addr"] = f"0x{r[0][1]:X}"
    f["dst_pte_addr"] = f"0x{r[1][1]:X}"
    f["dst_pte_val"] = hx(r[1][3])
    f["dst_pa"] = f"0x{dst['pa']:X}"
    f["dst_valid"] = (f"{w.at('u_mmu.u_tlb.valid_q', dst['req']):X} → "
                      f"{w.at('u_mmu.u_tlb.valid_q', dst['rsp'] + g.NS_PER_CYCLE):X}")
    f["c.next"] = g.grp(cyc(dst["rsp"]) + 1)
    f["c.data"] = g.grp(cyc(data_w))
    f["data_word"] = f"0x{pa >> 2:X}"
    r = walk_row(args)
    miss_t = w.first_rise("stat_miss", args["req"])
    f["c.args_req"] = g.grp(cyc(args["req"]))
    f["c.args_miss"] = g.grp(cyc(miss_t))
    f["c.args_fill"] = g.grp(cyc(r[1][2]))
    f["c.args_rsp"] = g.grp(cyc(args["rsp"]))
    f["args_pte"] = hx(r[1][3])
    for nm, tx in (("x", x), ("y", y)):
        if not tx["hit"] or tx["reads"]:
            raise g.GenError(f"l02: the kernel's read of {nm} is no longer a TLB hit")
        f[f"c.{nm}"] = f"{g.grp(cyc(tx['req']))}–{g.grp(cyc(tx['rsp']))}"
    f["x_pa"] = f"0x{x['pa']:X}"
    f["hit_cycles"] = str(cyc(x["rsp"]) - cyc(x["req"]))
    r = walk_row(out)
    f["c.out"] = f"{g.grp(cyc(out['req']))}–{g.grp(cyc(out['rsp']))}"
    f["out_pte_addr"] = f"0x{r[1][1]:X}"
    f["out_pte_val"] = hx(r[1][3])
    f["out_pa"] = f"0x{out['pa']:X}"
    f["miss_cycles"] = str(cyc(out["rsp"]) - cyc(out["req"]))
    f["unmap_valid"] = f"0x{v_before:X} → 0x{v_after:X}"
    f["unmap_dropped"] = str(popcount(v_before) - popcount(v_after))
    f["unmap_kept"] = str(popcount(v_after))
    f["unmap_inv_cycles"] = str(cyc(tF_done) - cyc(tF))
    import wave_svg
    f["files"] = {"docs/lessons/02-cumemmap-all-the-way-down/waves.svg": wave_svg.render(
        ctx.tool("vmgpu-fst-dump"), wv.fst, tC, 16,
        ["dma_start", "tr0_req_valid", "tr0_req_write", "tr0_req_va", "stat_miss",
         "u_mmu.u_walker.pt_rd_addr_o=pt_rd_addr_o", "u_mmu.u_walker.pt_rsp_valid_i=pt_rsp_valid_i",
         "u_mmu.u_walker.pt_rsp_data_i=pt_rsp_data_i", "u_mmu.fill=tlb fill", "tr0_rsp_valid", "tr0_rsp_host",
         "tr0_rsp_pa", "u_mmu.u_tlb.valid_q=tlb valid_q"],
        [(tC, "C dma_start"), (dst["reads"][1][0], "D PTE read")],
        "Lesson 02: the first cuMemcpyHtoD walks the tables; D reads the PTE cuMemMap wrote")}
    marks = [wA, wB, tC, dst["reads"][1][0], tE, tF]
    f["gtkw"] = {
        "header": ["vmgpu lesson 02: what cuMemMap does, all the way down",
                   "Open with: gtkwave /tmp/lesson02.fst docs/lessons/02-cumemmap-all-the-way-down/view.gtkw",
                   "The waveform comes from: VMGPU_WAVES=/tmp/lesson02.fst build/examples/cuda_vmm_walkthrough",
                   "Generated by tools/lesson_numbers.py. Markers (ns; cycle n is at 20 n + 150 ns):",
                   f"A {marks[0]} cuMemMap's first PTE write, B {marks[1]} cuMemSetAccess rewrites it,",
                   f"C {marks[2]} the first cuMemcpyHtoD starts, D {marks[3]} the walker reads that PTE, "
                   f"E {marks[4]} the kernel starts,",
                   f"F {marks[5]} cuMemUnmap's TLB_INV drops {f['unmap_dropped']} TLB entries"],
        "timestart": fetch - 5 * g.NS_PER_CYCLE,
        "primary": wA,
        "markers": marks,
    }
    f["resv_va_l"] = f["resv_va"]
    return f


def hx(v):
    return f"0x{v:08x}"


def hx_up(v):
    return f"0x{v:08X}"


# -------------------------------------------------------------------------- lesson 04


def pte_addr_of(fill_line, map_va, va):
    """The PTE address of va, from a PTE_FILL line that starts at map_va's PTE."""
    base = int(g.grab(fill_line, r"pa (0x[0-9a-f]+)"), 16)
    return base + ((va >> 12) - (map_va >> 12)) * 4


def per_cycle(w, t0, t1, fn):
    """Count the cycles in [t0, t1] for which fn(time) is true (one sample per cycle)."""
    n = 0
    for c in range(g.cycle_at(t0), g.cycle_at(t1) + 1):
        if fn(g.time_of(c)):
            n += 1
    return n


@provides("l04")
def lesson04(ctx):
    f = {}
    # 1. external memory: one allocation, two contexts.
    ex = ctx.run("ext_trace", ["examples/external_memory"], trace=True)
    L = ex.err_lines
    c0 = g.find(L, r"cuMemCreate: handle", what="l04 external_memory")
    blk, i = g.pick(L, [r"cuMemCreate: handle", r"\[cuda\] cuMemSetAccess$", r"protect\(asid 2", r"pte\s+va",
                        r"ring1\s+PTE_FILL", r"ring1\s+TLB_INV", r"protect\(asid 1", r"pte\s+va",
                        r"ring0\s+PTE_FILL", r"ring0\s+TLB_INV"], start=c0, what="l04 ext create/map")
    f["ext.trace.create"] = g.block(blk)
    fill_b, fill_a = blk[4], blk[8]
    map_va = int(g.grab(blk[2], r"va (0x[0-9a-f]+)"), 16)
    f["ext.pte_b"] = g.grab(fill_b, r"pa 0x000?([0-9a-f]+) ", conv=lambda v: "0x" + v.lstrip("0"))
    f["ext.pte_a"] = g.grab(fill_a, r"pa 0x000?([0-9a-f]+) ", conv=lambda v: "0x" + v.lstrip("0"))
    e0 = g.find(L, r"cuMemExportToShareableHandle ->", i)
    blk, i = g.pick(L, [r"cuMemExportToShareableHandle ->", r"cuImportExternalMemory: fd",
                        r"\[cuda\] cuExternalMemoryGetMappedBuffer$", r"va_reserve", r"\] map\(asid 2", r"pte\s+va",
                        r"ring1\s+PTE_FILL", r"\] map\(asid 1", r"ring0\s+PTE_FILL", r"protect\(asid 2",
                        r"ring1\s+PTE_FILL", r"protect\(asid 1", r"ring0\s+PTE_FILL",
                        r"cuExternalMemoryGetMappedBuffer: \["], start=e0, what="l04 import")
    f["ext.trace.import"] = g.block(blk)
    buf_va = int(g.grab(blk[3], r"-> va (0x[0-9a-f]+)"), 16)
    buf_pte = g.grab(blk[12], r"value (0x[0-9a-f]+)")
    frame = int(buf_pte, 16) >> 12
    f["ext.buf_va"] = hx(buf_va)
    f["ext.buf_pte"] = buf_pte
    f["ext.frame"] = f"0x{frame:x}"
    second = map_va + 0x10000
    f["ext.row.a_own"] = f"0x{pte_addr_of(fill_a, map_va, second):x}"
    f["ext.row.b_own"] = f"0x{pte_addr_of(fill_b, map_va, second):x}"
    f["ext.row.b_buf"] = f"0x{int(g.grab(blk[10], r'pa (0x[0-9a-f]+)'), 16):x}"
    f["ext.row.a_buf"] = f"0x{int(g.grab(blk[12], r'pa (0x[0-9a-f]+)'), 16):x}"
    f["ext.second_va"] = hx(second)
    z0 = g.find(L, r"ring1\s+BIND_CTX\s+asid 2", i)
    blk, _ = g.pick(L, [r"ring1\s+BIND_CTX", r"ring1\s+DMA_COPY .* -> va " + hx(buf_va),
                        r"TLB_FILL\s+asid\s+2 va " + hx(buf_va), r"ring0\s+BIND_CTX",
                        r"ring0\s+DMA_COPY\s+va " + hx(second), r"TLB_FILL\s+asid\s+1 va " + hx(second)],
                    start=z0, what="l04 zero copy")
    f["ext.trace.zerocopy"] = g.block(blk)
    f["ext.b_wrote"] = g.grab(ex.out, r"^(B wrote \d+ ints.*match)$", "external_memory output")
    f["ext.a_filled"] = g.grab(ex.out, r"^(A filled .*through its buffer)$", "external_memory output")

    # 2-4. graphics interop: the trace.
    gi = ctx.run("gfx_trace", ["examples/graphics_interop", "frame.png"], trace=True)
    L = gi.err_lines
    v0 = g.find(L, r"ctx_create: asid 1, .* home ring 1", what="l04 vgfx context")
    blk, i = g.pick(L, [r"ctx_create: asid 1", r"vgfxInit: context", r"phys_alloc\(0x60000", r"\] map\(asid 1",
                        r"ring1\s+PTE_FILL.*count 96"], start=v0, what="l04 vgfx image")
    f["gfx.trace.vgfx"] = g.block(blk)
    r0 = g.find(L, r"^\[cuda\] cuGraphicsVgfxRegisterImage$", i)
    blk, i = g.pick(L, [r"cuGraphicsVgfxRegisterImage$", r"va_reserve\(asid 2", r"\] map\(asid 2", r"pte\s+va",
                        r"ring0\s+PTE_FILL", r"ring0\s+TLB_INV", r"ring0\s+FENCE"], start=r0, what="l04 register")
    f["gfx.trace.register"] = g.block(blk)
    m0 = g.find(L, r"^\[cuda\] cuGraphicsMapResources$", i)
    blk, i = g.pick(L, [r"cuGraphicsMapResources$", r"ring1\s+FENCE", r"ring0\s+WAIT_FENCE", r"\] map\(asid 2",
                        r"pte\s+va", r"ring0\s+PTE_FILL", r"ring0\s+TLB_INV", r"ring0\s+FENCE",
                        r"cuGraphicsMapResources: VA", r"cuGraphicsMapResources ->"], start=m0, what="l04 map")
    f["gfx.trace.map"] = g.block(blk)
    gfx_fence = int(g.grab(blk[1], r"value (\d+)"))
    map_fence = int(g.grab(blk[7], r"value (\d+)"))
    f["gfx.map_gfx_fence"] = str(gfx_fence)
    f["gfx.map_fence"] = str(map_fence)
    blk, i = g.pick(L, [r"\[vgfx\] error VGFX_ERROR_MAPPED_BY_CUDA"], start=i, what="l04 vgfx refusal")
    f["gfx.trace.refuse"] = g.block(blk)
    d0 = g.find(L, r"ring0\s+DMA_COPY .* -> va 0x10040000", i)
    blk, i = g.pick(L, [r"ring0\s+DMA_COPY", r"ring0\s+FENCE", r"cuMemcpy2DAsync ->",
                        r"\[cuda\] cuGraphicsUnmapResources$", r"\] map\(asid 2", r"pte\s+va", r"ring0\s+PTE_FILL",
                        r"ring0\s+TLB_INV", r"ring0\s+FENCE", r"ring1\s+WAIT_FENCE", r"cuGraphicsUnmapResources: VA",
                        r"cuGraphicsUnmapResources ->", r"GFX_MIPGEN", r"GFX_MIPGEN", "...",
                        r"GFX_MIPGEN .* 1 x 1 ", r"vgfxGenerateMipmaps:"], start=d0, what="l04 unmap")
    f["gfx.trace.unmap"] = g.block(blk)
    copy_fence = int(g.grab(blk[1], r"value (\d+)"))
    unmap_fence = int(g.grab(blk[8], r"value (\d+)"))
    f["gfx.copy_fence"] = str(copy_fence)
    f["gfx.unmap_fence"] = str(unmap_fence)
    f["gfx.mipgens"] = g.grab(blk[-1], r"(\d+) GFX_MIPGEN per layer")
    f["gfx.one_by_one"] = g.grab(gi.out, r"the 1x1 level is (0x[0-9a-f]+)", "graphics_interop output")
    f["gfx.probed"] = g.grab(gi.out, r"frame: (\d+ of \d+ probed pixels as drawn)", "graphics_interop output")
    import os
    png = os.path.join(ctx.tmp, "frame.png")
    f["gfx.png_bytes"] = g.grp(os.path.getsize(png))
    committed = os.path.join(g.ROOT, "docs/lessons/04-sharing-memory/frame.png")
    fresh = open(png, "rb").read()
    f["files"] = {"docs/lessons/04-sharing-memory/frame.png": fresh}

    # The waveform.
    wv = ctx.run("gfx_waves", ["examples/graphics_interop", "waves.png"], waves=True)
    sig = ["cycle", "u_cp.cur_q", "u_cp.op_q", "u_cp.fence_q[0]", "u_cp.fence_q[1]", "u_cp.waiting_q",
           "u_cp.fence_reached_q", "dma_start", "dma_done", "inv_valid", "inv_done", "inv_va", "inv_asid",
           "u_mmu.u_tlb.valid_q", "gfx_start", "gfx_done", "gfx_op", "gfx_src_va", "gfx_dst_va", "gfx_dst_w",
           "gfx_dst_h", "gfx_tr_req_valid", "gfx_tr_req_ready", "gfx_tr_req_write", "gfx_tr_req_va",
           "gfx_tr_rsp_valid", "tr1_rsp_pa", "dm_wr_en", "dm_wr_addr", "dm_wr_data"] + WALK + port_signals(0)
    w = ctx.wave(wv, sig)
    cyc = g.cycle_at
    c = {}
    t_g6 = w.first_value("u_cp.fence_q[1]", gfx_fence, what="l04 ring 1 fence at the map")
    c["g6"] = t_g6
    gdone = [t for t in w.rises("gfx_done") if t <= t_g6]
    c["last_gfx_before_map"] = gdone[-1] if gdone else None
    # A: ring 0 fetches its WAIT_FENCE (opcode 0x0A).
    tA = next(t for t, v in w.changes("u_cp.op_q", t_g6 - 2000 * g.NS_PER_CYCLE) if v == 0x0A and w.at("u_cp.cur_q", t) == 0)
    tA_next = next(t for t, v in w.changes("u_cp.op_q", tA + 1) if v != 0x0A)
    waited_A = any(v & 1 for t, v in w.changes("u_cp.waiting_q", tA, tA_next))
    if waited_A:
        raise g.GenError("l04: the map's WAIT_FENCE waits now; the lesson says it is satisfied at once")
    t_map_fence = w.first_value("u_cp.fence_q[0]", map_fence, tA, what="l04 the map's fence")
    c["A"], c["A_next"], c["map_fence"] = tA, tA_next, t_map_fence
    # B: ring 1 blocks in its WAIT_FENCE (waiting_q bit 1).
    tB = next(t for t, v in w.changes("u_cp.waiting_q", t_map_fence) if v & 2)
    c["B"] = tB
    f["gfx.fence_at_B"] = str(w.at("u_cp.fence_q[0]", tB))
    # C: the DMA copy into level 0 through VA 0x10040000 (ASID 2).
    dst = translation(w, 0, 0x10040000, tB, "l04 the copy into level 0")
    tC = max(t for t in w.rises("dma_start", 0, dst["req"]))
    c["C"], c["C_rsp"] = tC, dst["rsp"]
    if len(dst["reads"]) != 2:
        raise g.GenError("l04: the copy's first translation is no longer a two-level walk")
    f["gfx.c_pde_addr"] = f"0x{dst['reads'][0][1]:x}"
    f["gfx.c_pde_val"] = hx(dst["reads"][0][3])
    f["gfx.c_pte_addr"] = f"0x{dst['reads'][1][1]:x}"
    f["gfx.c_pte_val"] = hx(dst["reads"][1][3])
    f["gfx.c_pa"] = f"0x{dst['pa']:x}"
    t_copy_done = w.first_rise("dma_done", dst["rsp"])
    c["copy_done"] = t_copy_done
    c["copy_fence"] = w.first_value("u_cp.fence_q[0]", copy_fence, t_copy_done)
    f["gfx.copy_cycles"] = g.grp(cyc(t_copy_done) - cyc(tC))
    # D: the unmap's PTE_FILL and TLB_INV.
    unmap_pte_pa = int(g.grab(f["gfx.trace.unmap"].split("\n")[7], r"pa (0x[0-9a-f]+)"), 16)
    unmap_val = int(g.grab(f["gfx.trace.unmap"].split("\n")[7], r"value (0x[0-9a-f]+)"), 16)
    tD = first_write(w, unmap_pte_pa >> 2, unmap_val, t_copy_done, "l04 the unmap's PTE_FILL")
    tDi = next(t for t in w.rises("inv_valid", tD) if w.at("inv_asid", t) == 2)
    tDd = w.first_rise("inv_done", tDi)
    c["D"], c["D_inv"], c["D_done"] = tD, tDi, tDd
    vb, va_ = w.at("u_mmu.u_tlb.valid_q", tDi), w.at("u_mmu.u_tlb.valid_q", tDd + g.NS_PER_CYCLE)
    f["gfx.d_valid"] = f"{vb:X} to {va_:X}"
    f["gfx.d_dropped"] = str(popcount(vb) - popcount(va_))
    # E, F: ring 0's fence reaches the unmap's value; ring 1's wait completes.
    tE = w.first_value("u_cp.fence_q[0]", unmap_fence, tDd, what="l04 the unmap's fence")
    tF = next(t for t, v in w.changes("u_cp.waiting_q", tE) if not v & 2)
    t_pick = next(t for t, v in w.changes("u_cp.cur_q", tE) if v == 1)
    c["E"], c["F"], c["pick"] = tE, tF, t_pick
    f["gfx.wait_cost"] = str(cyc(tF) - cyc(tE))
    f["gfx.b_wait"] = g.grp(cyc(tF) - cyc(tB))
    # G: the first GFX_MIPGEN (gfx_op 2) after the wait, its translations, and H: its end.
    tG = next(t for t in w.rises("gfx_start", tF) if w.at("gfx_op", t) == 2)
    tG_fetch = max(t for t, v in w.changes("u_cp.op_q", tF, tG) if v == 0x0D)
    c["G"], c["G_fetch"] = tG, tG_fetch
    f["gfx.g_src"] = f"{w.at('gfx_src_va', tG):08x}"
    f["gfx.g_dst"] = f"{w.at('gfx_dst_va', tG):08x}"
    f["gfx.g_size"] = f"{w.at('gfx_dst_w', tG)}×{w.at('gfx_dst_h', tG)}"
    reqs = [t for t in w.rises("gfx_tr_req_valid", tG)][:3]
    first = reqs[0]
    rsp = w.first_rise("gfx_tr_rsp_valid", first)
    rd = w.rises("u_mmu.u_walker.pt_rd_valid_o", first, rsp)
    rs = w.rises("u_mmu.u_walker.pt_rsp_valid_i", first, rsp)
    if len(rd) != 2:
        raise g.GenError("l04: the mipgen's first translation is no longer a two-level walk")
    c["G_tr"], c["G_tr_rsp"] = first, rsp
    f["gfx.g_va"] = f"0x{w.at('gfx_tr_req_va', first):x}"
    f["gfx.g_pde_addr"] = f"0x{w.at('u_mmu.u_walker.pt_rd_addr_o', rd[0]):x}"
    f["gfx.g_pde_val"] = hx(w.at("u_mmu.u_walker.pt_rsp_data_i", rs[0]))
    f["gfx.g_pte_addr"] = f"0x{w.at('u_mmu.u_walker.pt_rd_addr_o', rd[1]):x}"
    f["gfx.g_pte_val"] = hx(w.at("u_mmu.u_walker.pt_rsp_data_i", rs[1]))
    f["gfx.g_pa"] = f"0x{w.at('tr1_rsp_pa', rsp):x}"
    second = w.first_rise("gfx_tr_req_valid", rsp)
    rsp2 = w.first_rise("gfx_tr_rsp_valid", second)
    c["G2"], c["G2_rsp"] = second, rsp2
    f["gfx.g2_va"] = f"0x{w.at('gfx_tr_req_va', second):x}"
    if not w.rises("stat_hit", second, rsp2):
        raise g.GenError("l04: the mipgen's second source row is no longer a TLB hit")
    third = next(t for t in w.rises("gfx_tr_req_valid", rsp2) if w.at("gfx_tr_req_write", t))
    rsp3 = w.first_rise("gfx_tr_rsp_valid", third)
    rd3 = w.rises("u_mmu.u_walker.pt_rd_valid_o", third, rsp3)
    rs3 = w.rises("u_mmu.u_walker.pt_rsp_valid_i", third, rsp3)
    c["G3"], c["G3_rsp"] = third, rsp3
    f["gfx.g3_va"] = f"0x{w.at('gfx_tr_req_va', third):x}"
    f["gfx.g3_pte_addr"] = f"0x{w.at('u_mmu.u_walker.pt_rd_addr_o', rd3[-1]):x}"
    f["gfx.g3_pte_val"] = hx(w.at("u_mmu.u_walker.pt_rsp_data_i", rs3[-1]))
    f["gfx.g3_pa"] = f"0x{w.at('tr1_rsp_pa', rsp3):x}"
    tH = w.first_rise("gfx_done", tG)
    c["H"] = tH
    mip_done = []
    t = tG
    n_mip = int(f["gfx.mipgens"])
    for _ in range(n_mip):
        t = w.first_rise("gfx_done", t + 1)
        mip_done.append(t)
    c["mips_end"] = mip_done[-1]
    f["gfx.h_cycles"] = g.grp(cyc(tH) - cyc(tG))
    ring1_fence = w.changes("u_cp.fence_q[1]", mip_done[-1])
    c["mips_fence"] = ring1_fence[0][0]
    f["gfx.mips_fence"] = str(ring1_fence[0][1])
    # Level 1's translations and misses (a request counts in the cycle it is accepted).
    f["gfx.l1_requests"] = str(per_cycle(w, tG, tH, lambda t: w.at("gfx_tr_req_valid", t) and w.at("gfx_tr_req_ready", t)))
    f["gfx.l1_misses"] = str(len(w.rises("stat_miss", tG, tH)))
    # Section 6's table: level 0 -> 1, levels 2..8, the frame's GFX_FILL, the 1:1 blit of level 0.
    px1 = w.at("gfx_dst_w", tG) * w.at("gfx_dst_h", tG)
    f["gfx.mip1_cycles"] = g.grp(cyc(tH) - cyc(tG))
    f["gfx.mip1_ppx"] = f"{(cyc(tH) - cyc(tG)) / px1:.2f}"
    f["gfx.mips_rest"] = g.grp(cyc(mip_done[-1]) - cyc(tH))
    fills = [t for t in w.rises("gfx_start", mip_done[-1]) if w.at("gfx_op", t) == 0]
    tFill = fills[0]
    tFill_done = w.first_rise("gfx_done", tFill)
    pxf = w.at("gfx_dst_w", tFill) * w.at("gfx_dst_h", tFill)
    f["gfx.fill_size"] = f"{w.at('gfx_dst_w', tFill)}×{w.at('gfx_dst_h', tFill)}"
    f["gfx.fill_cycles"] = g.grp(cyc(tFill_done) - cyc(tFill))
    f["gfx.fill_ppx"] = f"{(cyc(tFill_done) - cyc(tFill)) / pxf:.2f}"
    blits = [t for t in w.rises("gfx_start", tFill_done) if w.at("gfx_op", t) == 1
             and w.at("gfx_dst_w", t) == 256 and w.at("gfx_dst_h", t) == 256]
    tBl = blits[0]
    tBl_done = w.first_rise("gfx_done", tBl)
    f["gfx.blit_cycles"] = g.grp(cyc(tBl_done) - cyc(tBl))
    f["gfx.blit_ppx"] = f"{(cyc(tBl_done) - cyc(tBl)) / 65536:.2f}"
    last_mip = mip_done[-1]
    last_start = max(t for t in w.rises("gfx_start", 0, last_mip))
    f["gfx.level8_cycles"] = str(cyc(last_mip) - cyc(last_start))
    for k, t in c.items():
        if t is not None:
            f["gfx.c." + k] = g.grp(cyc(t))
    f["gfx.c.E1"] = g.grp(cyc(tE) + 1)
    f["gfx.a_cycles"] = str(cyc(t_map_fence) - cyc(tA))
    f["gfx.gtkw"] = {
        "header": ["vmgpu lesson 04: sharing memory between APIs (CUDA and the graphics engine, two rings, fences)",
                   "Open with: gtkwave /tmp/lesson04.fst docs/lessons/04-sharing-memory/view.gtkw",
                   "The waveform comes from: VMGPU_WAVES=/tmp/lesson04.fst build/examples/graphics_interop /tmp/lesson04.png",
                   "Generated by tools/lesson_numbers.py. Cycle n is at 20 n + 150 ns. Markers:",
                   f"A {tA} ring 0 fetches the map's WAIT_FENCE (already satisfied), B {tB} ring 1's WAIT_FENCE",
                   f"(ring 0 >= {unmap_fence}) blocks, C {dst['req']} the DMA asks for VA 0x10040000 in ASID 2 (CUDA writing level 0),",
                   f"D {tDi} the unmap's TLB_INV, E {tE} ring 0 reaches fence {unmap_fence}, F {tF} ring 1's WAIT_FENCE completes,",
                   f"G {tG} GFX_MIPGEN of level 1 starts, H {tH} it is done"],
        "timestart": tDi - 10 * g.NS_PER_CYCLE,
        "primary": tE,
        "markers": [tA, tB, dst["req"], tDi, tE, tF, tG, tH],
    }
    return f


@provides("l04ord")
def lesson04_ordering(ctx):
    """Section 5 of lesson 04: tests/gfx's `ordering` case, its output and its waveform (about
    370 MB and three minutes: ctest runs it as its own test, lesson_numbers_ordering)."""
    exe = ["tests/gfx/vmgpu_gfx_interop_tests", "ordering"]
    f = {}
    plain = ctx.run("ord_plain", exe)
    keep = [l for l in plain.out_lines if re.search(r"saw \d+ of \d+|^ordering: \d+ checks", l)]
    if len(keep) != 4:
        raise g.GenError(f"l04ord: expected 3 'saw' lines and the summary, got {keep}")
    f["out"] = g.block(keep)
    wv = ctx.run("ord_waves", exe, waves=True, timeout=1200)
    w = ctx.wave(wv, ["u_cp.fence_q[0]", "u_cp.fence_q[1]", "u_cp.waiting_q", "u_cp.op_q", "u_cp.cur_q"])
    cyc = g.cycle_at

    def wait_of(bit, after):
        block = next(t for t, v in w.changes("u_cp.waiting_q", after) if v & (1 << bit))
        release = next(t for t, v in w.changes("u_cp.waiting_q", block) if not v & (1 << bit))
        other = f"u_cp.fence_q[{1 - bit}]"
        target = w.at(other, release)
        reached = w.first_value(other, target, block)
        return block, release, target, reached, w.at(other, block)
    b, r, n, t_n, at_b = wait_of(0, 0)
    f["map_block"] = g.grp(cyc(b))
    f["map_target"] = str(n)
    f["map_other_at_block"] = str(at_b)
    f["map_reached"] = g.grp(cyc(t_n))
    f["map_release"] = g.grp(cyc(r))
    f["map_cost"] = str(cyc(r) - cyc(t_n))
    f["map_waited"] = g.grp(cyc(r) - cyc(b))
    grant = next(t for t, v in w.changes("u_cp.op_q", r) if v == 3 and w.at("u_cp.cur_q", t) == 0)
    f["map_grant"] = g.grp(cyc(grant))
    b, r, n, t_n, at_b = wait_of(1, r)
    f["unmap_block"] = g.grp(cyc(b))
    f["unmap_release"] = g.grp(cyc(r))
    f["unmap_target"] = str(n)
    f["unmap_cost"] = str(cyc(r) - cyc(t_n))
    return f


# ----------------------------------------------------------------------------- vmgpu-pt


def pt_run(ctx, name, args, waves=False):
    return ctx.run(name, ["tools/vmgpu-pt"] + args, waves=waves)


def check_tlb_model(ctx, run_text, run_waves, what):
    """vmgpu-pt rebuilds the TLB from the MMU's events; compare it, slot by slot, with the
    TLB's own registers in the waveform after the last fill."""
    model = {}
    for line in run_text.out_lines:
        m = re.match(r"\s+slot\s+(\d+): asid (\d+) va (0x[0-9a-f]+)", line)
        if m:
            model[int(m.group(1))] = (int(m.group(2)), int(m.group(3), 16) >> 12)
    sigs = ["u_mmu.u_tlb.valid_q", "u_mmu.u_tlb.fill_i"] + [f"u_mmu.u_tlb.asid_q[{i}]" for i in range(16)] + \
        [f"u_mmu.u_tlb.vpn_q[{i}]" for i in range(16)]
    w = ctx.wave(run_waves, sigs)
    fills = w.rises("u_mmu.u_tlb.fill_i")
    if not fills:
        raise g.GenError(f"{what}: no TLB fill in the waveform")
    t = fills[-1] + 3 * g.NS_PER_CYCLE
    valid = w.at("u_mmu.u_tlb.valid_q", t)
    hw = {i: (w.at(f"u_mmu.u_tlb.asid_q[{i}]", t), w.at(f"u_mmu.u_tlb.vpn_q[{i}]", t))
          for i in range(16) if valid >> i & 1}
    if hw != model:
        raise g.GenError(f"{what}: vmgpu-pt's TLB model {model} differs from the hardware's {hw}")
    return len(hw)


@provides("pt")
def pictures(ctx):
    f = {}
    walk_va = "0x00030000"
    args = ["--scenario", "lesson01", "--walk", walk_va, "--svg", "l01.svg", "--walk-svg", "l01-walk.svg"]
    r = pt_run(ctx, "pt_l01", args)
    rw = pt_run(ctx, "pt_l01_waves", ["--scenario", "lesson01"], waves=True)
    f["l01_tlb_checked"] = str(check_tlb_model(ctx, r, rw, "pt lesson01"))
    import os
    rd = lambda n: open(os.path.join(ctx.tmp, n)).read()  # noqa: E731
    tables = [l for l in r.out_lines if not l.startswith("walk of") and not re.match(r"\s+\d\.|\s+TLB:", l)]
    walk = [l for l in r.out_lines if l.startswith("walk of") or re.match(r"\s+\d\.|\s+TLB:", l)]
    f["l01_text"] = g.block(["$ vmgpu-pt --scenario lesson01 --walk " + walk_va] + tables)
    f["l01_walk_text"] = g.block(walk)
    m = pt_run(ctx, "pt_mixed", ["--scenario", "mixed", "--walk", "0x10041000", "--svg", "mixed.svg",
                                 "--walk-svg", "mixed-walk.svg"])
    mw = pt_run(ctx, "pt_mixed_waves", ["--scenario", "mixed"], waves=True)
    f["mixed_tlb_checked"] = str(check_tlb_model(ctx, m, mw, "pt mixed"))
    f["mixed_text"] = g.block(["$ vmgpu-pt --scenario mixed --walk 0x10041000"] + m.out_lines)
    f["files"] = {
        "docs/lessons/01-dma-through-mmu/page-tables.svg": rd("l01.svg"),
        "docs/lessons/01-dma-through-mmu/walk.svg": rd("l01-walk.svg"),
        "docs/pictures/page-tables-mixed.svg": rd("mixed.svg"),
        "docs/pictures/walk-no-access.svg": rd("mixed-walk.svg"),
    }
    return f


# ------------------------------------------------------------------- answers to "Try this"


def kv(run):
    out = {}
    for line in run.out_lines:
        parts = line.split(None, 1)
        if len(parts) == 2:
            out[parts[0]] = parts[1]
    return out


@provides("ans")
def answers(ctx):
    f = {}
    # Lesson 01.
    ro = kv(ctx.run("probe_ro_dst", ["tests/lessons/lesson_probe_dma", "ro_dst"]))
    f["01.ro_status"] = ro["copy_status"]
    f["01.ro_error"] = ro["copy_error"]
    f["01.ro_va"] = g.grab(ro["copy_error"], r"of VA (0x[0-9a-f]+)")
    f["01.ro_misses"] = ro["copy_tlb_misses"]
    f["01.ro_unchanged"] = ro["dst_unchanged"]
    sm = kv(ctx.run("probe_small", ["tests/lessons/lesson_probe_dma", "small"]))
    f["01.small_misses"] = sm["copy_tlb_misses"]
    smt = ctx.run("probe_small_trace", ["tests/lessons/lesson_probe_dma", "small"], trace=True)
    f["01.small_fills"] = str(sum("TLB_FILL" in l for l in smt.err_lines))
    f["01.small_lost"] = "no" if not any("events lost" in l for l in smt.err_lines) else "yes"
    un = kv(ctx.run("probe_unaligned", ["tests/lessons/lesson_probe_dma", "unaligned"]))
    f["01.un_match"] = un["dst_matches_source"]
    f["01.un_check"] = un["example_check"]
    f["01.un_cycles"] = g.grp(un["copy_cycles"])
    al = kv(ctx.run("probe_aligned_cycles", ["tests/lessons/lesson_probe_dma", "small"]))
    unw = ctx.run("probe_unaligned_waves", ["tests/lessons/lesson_probe_dma", "unaligned"], waves=True)
    w = ctx.wave(unw, ["dm_wr_en", "dm_wr_be", "dm_wr_addr", "dma_start", "dma_done"])
    t0, t1 = w.first_rise("dma_start"), w.first_rise("dma_done")
    be = {}
    for c in range(g.cycle_at(t0), g.cycle_at(t1) + 1):
        t = g.time_of(c)
        if w.at("dm_wr_en", t):
            v = w.at("dm_wr_be", t)
            be[v] = be.get(v, 0) + 1
    f["01.un_full"] = g.grp(be.get(15, 0))
    f["01.un_partial"] = str(sum(n for v, n in be.items() if v != 15))
    f["01.un_be"] = ", ".join(f"{n} × `{v:04b}`" for v, n in sorted(be.items()) if v != 15)
    f["01.un_words"] = g.grp(sum(be.values()))
    del al
    # Lesson 02.
    r = kv(ctx.run("probe_cuda_ro", ["tests/lessons/lesson_probe_cuda", "read_only"]))
    f["02.ro_htod"] = r["htod_into_read_only"]
    f["02.ro_dtoh"] = r["dtoh_from_read_only"]
    rt = ctx.run("probe_cuda_ro_trace", ["tests/lessons/lesson_probe_cuda", "read_only"], trace=True)
    i = g.find(rt.err_lines, r"^\[cuda\] cuMemSetAccess$")
    f["02.ro_fill"] = g.grab(rt.err_lines[g.find(rt.err_lines, r"PTE_FILL", i)], r"(PTE_FILL .*)")
    o = kv(ctx.run("probe_cuda_out", ["tests/lessons/lesson_probe_cuda", "out_unmapped"]))
    f["02.out_launch"] = o["launch"]
    f["02.out_sync"] = o["synchronize"]
    f["02.out_later"] = o["later_memcpy"]
    ot = ctx.run("probe_cuda_out_trace", ["tests/lessons/lesson_probe_cuda", "out_unmapped"], trace=True)
    f["02.out_fault"] = re.sub(r"\s+", " ", g.grab(ot.err, r"(mmu: FAULT\s+asid\s+\d+ va 0x[0-9a-f]+ \w+ on \w+)"))
    s16 = kv(ctx.run("probe_cuda_16", ["tests/lessons/lesson_probe_cuda", "sixteen"]))
    f["02.16_map_rt"] = s16["map_round_trips"]
    f["02.16_acc_rt"] = s16["setaccess_round_trips"]
    st = ctx.run("probe_cuda_16_trace", ["tests/lessons/lesson_probe_cuda", "sixteen"], trace=True)
    i = g.find(st.err_lines, r"^\[cuda\] cuMemMap$")
    j = g.find(st.err_lines, r"cuMemMap ->", i)
    fills = [l for l in st.err_lines[i:j] if "PTE_FILL" in l]
    f["02.16_fills"] = str(len(fills))
    f["02.16_count"] = g.grab(fills[0], r"count (\d+)")
    # Lesson 03.
    wm = kv(ctx.run("probe_cl_write", ["tests/lessons/lesson_probe_cl", "write_map"]))
    f["03.write_map_cycles"] = g.grp(wm["write_map_cycles"])
    wmt = ctx.run("probe_cl_write_trace", ["tests/lessons/lesson_probe_cl", "write_map"], trace=True)
    m = g.find(wmt.err_lines, r"\[opencl\] map .*flags 0x2")
    f["03.write_map_line"] = wmt.err_lines[m].split("] ", 1)[1]
    f["03.write_map_copy"] = g.grab(wmt.err_lines[g.find(wmt.err_lines, r"DMA_COPY", m)], r"(DMA_COPY\s+va 0x[0-9a-f]+ -> va 0x[0-9a-f]+)").replace("   ", " ")
    ia = kv(ctx.run("probe_cl_dst", ["tests/lessons/lesson_probe_cl", "in_as_dst"]))
    f["03.dst_status"] = g.grab(ia["event_status"], r"\((\w+)\)")
    f["03.dst_unchanged"] = ia["array_unchanged"]
    iat = ctx.run("probe_cl_dst_trace", ["tests/lessons/lesson_probe_cl", "in_as_dst"], trace=True)
    f["03.dst_fault"] = g.grab(iat.err, r"mmu: FAULT\s+asid\s+\d+ va (0x[0-9a-f]+ \w+ on \w+)")
    # Lesson 05.
    for n in (14, 15):
        o = ctx.run(f"stale_touch{n}", ["tests/lessons/lesson_stale_tlb", "--touch", str(n)]).out
        f[f"05.touch{n}"] = g.grab(o, r"after touching \d+ other pages: (read 0x[0-9a-f]+ \(\d+ TLB miss)") + "es)"
    # Lesson 06.
    o = ctx.run("grow_by_one", ["tests/lessons/lesson_grow_buffer", "--by-one"]).out
    m = re.search(r"total over (\d+) steps: alloc\+copy (\d+) cycles, in place (\d+) cycles", o)
    if not m:
        raise g.GenError("ans: lesson_grow_buffer --by-one printed no total")
    f["06.steps"], f["06.copy"], f["06.inpl"] = m.group(1), g.grp(m.group(2)), g.grp(m.group(3))
    f["06.ratio"] = f"{int(m.group(2)) / int(m.group(3)):.0f}"
    # Lesson 07.
    for v in ("start-unmapped", "ro-page1", "no-clear"):
        o = ctx.run(f"faults_{v}", ["tests/lessons/lesson_faults", "--" + v]).out
        key = "07." + v.replace("-", "_")
        f[key + ".fault"] = g.grab(o, r"faulted: (\w+ on \w+ of VA 0x[0-9a-f]+)")
        f[key + ".page1"] = g.grab(o, r"memory: page 1 first word (0x[0-9a-f]+)")
        if v == "no-clear":
            f[key + ".again"] = g.grab(o, r"not cleared: the same fill again -> (\w+)")
            f[key + ".destroy"] = g.grab(o, r"vmgpu_ctx_destroy -> (\w+)")
    return f


# ------------------------------------------------------------------- lessons 05, 06, 07


@provides("l05")
def lesson05(ctx):
    exe = ["tests/lessons/lesson_stale_tlb"]
    r = ctx.run("stale_plain", exe)
    t = ctx.run("stale_trace", exe, trace=True)
    L = t.err_lines
    f = {}
    f["out"] = g.block([l for l in r.out_lines if not l.startswith("lesson_stale_tlb:")])
    i = g.find(L, r"\(no TLB_INV\)")
    blk, _ = g.pick(L, [r"\(no TLB_INV\)", r"pte\s+va", r"PTE_FILL", r"FENCE", r"DMA_COPY", r"FENCE"], start=i,
                    what="l05 remap without invalidation")
    f["trace.noinv"] = g.block(blk)
    nxt = L[g.find(L, r"FENCE", g.find(L, r"DMA_COPY", i)) + 1]
    if "TLB_FILL" in nxt and "0x00010000" in nxt:
        raise g.GenError("l05: the copy after the remap without TLB_INV walked (no stale entry)")
    j = g.find(L, r"\] map\(asid \d+, va 0x00010000, size 0x1000\) -> pa 0x00140000 R-$", i + 1)
    blk, _ = g.pick(L, [r"\] map\(", r"pte\s+va", r"PTE_FILL", r"TLB_INV", r"FENCE", r"INVALIDATE", r"DMA_COPY",
                        r"FENCE", r"TLB_FILL"], start=j, what="l05 remap with invalidation")
    f["trace.inv"] = g.block(blk)
    k = g.find(L, r"PTE_FILL .* count 1 value 0x00000000")
    blk, _ = g.pick(L, [r"PTE_FILL .* value 0x00000000", r"FENCE", r"DMA_COPY", r"FENCE", r"TLB_INV", r"FENCE",
                        r"INVALIDATE", r"DMA_COPY", r"FENCE", r"mmu: FAULT"], start=k, what="l05 unmap")
    f["trace.unmap"] = g.block(blk)
    o = r.out
    f["pte_pa"] = g.grab(o, r"the PTE is at pa (0x[0-9a-f]+)")
    f["stale_read"] = g.grab(o, r"remapped without TLB_INV: .*read: (0x[0-9a-f]+)")
    f["stale_misses"] = g.grab(o, r"remapped without TLB_INV: .*\((\d+) TLB misses")
    f["evict_read"] = g.grab(o, r"after touching (\d+) other pages: read (0x[0-9a-f]+)", group=2)
    f["touched"] = g.grab(o, r"after touching (\d+) other pages")
    f["unmap_read"] = g.grab(o, r"PTE zeroed without TLB_INV: .*read: (0x[0-9a-f]+)")
    f["unmap_status"] = g.grab(o, r"PTE zeroed without TLB_INV: .*read: 0x[0-9a-f]+, (\w+)")
    f["unmap_fault"] = g.grab(o, r"after the TLB_INV: \w+: .*faulted: (\w+ on \w+)")
    f["order_inv"] = g.grab(o, r"copy, remap to new with TLB_INV, copy, one submit: (first copy 0x[0-9a-f]+, second 0x[0-9a-f]+)")
    f["order_noinv"] = g.grab(o, r"copy, remap back to old without TLB_INV, copy, one submit: (first copy 0x[0-9a-f]+, second 0x[0-9a-f]+)")
    return f


@provides("l06")
def lesson06(ctx):
    exe = ["tests/lessons/lesson_grow_buffer"]
    r = ctx.run("grow_plain", exe)
    t = ctx.run("grow_trace", exe, trace=True)
    f = {"out": g.block([l for l in r.out_lines if not l.startswith("lesson_grow_buffer:")])}
    o = r.out
    copy = [int(x) for x in re.findall(r"step alloc\+copy .*?: (\d+) cycles", o)]
    inpl = [int(x) for x in re.findall(r"step in place .*?: (\d+) cycles", o)]
    if len(copy) != 3 or len(inpl) != 3:
        raise g.GenError("l06: expected three steps of each kind")
    for k in range(3):
        f[f"copy{k}"] = g.grp(copy[k])
        f[f"inpl{k}"] = g.grp(inpl[k])
    f["copy_rt"] = g.grab(o, r"step alloc\+copy .*?(\d+) link round trips")
    f["inpl_rt"] = g.grab(o, r"step in place .*?(\d+) link round trips")
    f["copy_total"] = g.grp(sum(copy))
    f["inpl_total"] = g.grp(sum(inpl))
    f["ratio"] = f"{sum(copy) / sum(inpl):.0f}"
    f["per_kib"] = f"{(copy[2] - copy[1]) / 128:.0f}"
    f["inpl_growth"] = str(inpl[2] - inpl[0])
    L = t.err_lines
    i = g.find(L, r"\] map\(asid 1, va 0x10050000, size 0x10000\)")
    c = max(x for x in range(i) if L[x] == "[cuda] cuMemCreate")
    blk, _ = g.pick(L, [r"\[cuda\] cuMemCreate$", r"phys_alloc", r"cuMemCreate ->", r"\[cuda\] cuMemMap$", r"\] map\(",
                        r"pte\s+va", r"PTE_FILL", r"TLB_INV", r"FENCE", r"cuMemMap ->", r"\[cuda\] cuMemSetAccess$",
                        r"protect\(", r"PTE_FILL", r"TLB_INV", r"FENCE", r"cuMemSetAccess ->"], start=c,
                    what="l06 one step in place")
    f["trace.inplace"] = g.block([l for l in blk if "INVALIDATE" not in l])
    a = g.find(L, r"^\[cuda\] cuMemcpyDtoD$")
    a0 = max(x for x in range(a) if L[x] == "[cuda] cuMemAlloc")
    blk, _ = g.pick(L, [r"\[cuda\] cuMemAlloc$", r"phys_alloc", r"va_reserve", r"\] map\(", r"PTE_FILL", r"TLB_INV",
                        r"cuMemAlloc ->", r"\[cuda\] cuMemcpyDtoD$", r"DMA_COPY", r"cuMemcpyDtoD ->",
                        r"\[cuda\] cuMemFree$", r"unmap\(", r"PTE_FILL", r"TLB_INV", r"cuMemFree ->"], start=a0,
                    what="l06 one step by copy")
    f["trace.copy"] = g.block(blk)
    f["map_fill"] = g.grab(f["trace.inplace"], r"PTE_FILL\s+(pa 0x[0-9a-f]+ count \d+ value 0x[0-9a-f]+)")
    return f


@provides("l07")
def lesson07(ctx):
    exe = ["tests/lessons/lesson_faults"]
    r = ctx.run("faults_plain", exe)
    t = ctx.run("faults_trace", exe, trace=True)
    f = {"out": g.block([l for l in r.out_lines if not l.startswith("lesson_faults:")])}
    L = t.err_lines
    i = g.find(L, r"DMA_FILL")
    blk, _ = g.pick(L, [r"BIND_CTX", r"DMA_FILL", r"DMA_FILL", r"DMA_FILL", r"FENCE", r"TLB_FILL", r"TLB_FILL",
                        r"mmu: FAULT", r"fault: ring"], start=i - 1, what="l07 the fault")
    f["trace.fault"] = g.block(blk)
    o = r.out
    f["fault_va"] = g.grab(o, r"faulted: \w+ on \w+ of VA (0x[0-9a-f]+)")
    f["fault_reason"] = g.grab(o, r"faulted: (\w+) on")
    f["fault_off"] = g.grab(o, r"command at offset (0x[0-9a-f]+)")
    f["a_status"] = g.grab(o, r"^A: status (\w+)")
    f["b_result"] = g.grab(o, r"^B: a fill on ring 1 -> (\w+)")
    return f


@provides("l08")
def lesson08(ctx):
    """examples/ipc_share: two processes, one device server, the same frames in two ASIDs."""
    r = ctx.run("ipc_plain", ["examples/ipc_share"])
    t = ctx.run("ipc_trace", ["examples/ipc_share"], trace=True)
    o = r.out
    if "ipc share PASSED" not in o:
        raise g.GenError("l08: examples/ipc_share did not pass")
    # the pipe's inode number changes from run to run: shown as "inode"
    f = {"out": g.block([re.sub(r"pipe:\[\d+\]", "pipe:[inode]", l) for l in r.out_lines])}
    f["fd_kind"] = g.grab(o, r"exported as fd \d+ \((\w+):")
    f["words"] = g.grab(o, r"after the parent released: (\d+) of")
    L = t.err_lines
    f["server_open"] = g.grab(t.err, r"\[vmgpu\] open: device server \(pid \d+\) at \S+, device (\w+)")
    pd = re.findall(r"ctx_create: asid (\d+), page directory at pa (0x[0-9a-f]+)", t.err)
    if len(pd) != 2 or [a for a, _ in pd] != ["1", "2"]:
        raise g.GenError(f"l08: expected contexts of ASIDs 1 then 2, got {pd}")
    f["pd1"], f["pd2"] = pd[0][1], pd[1][1]
    i = g.find(L, r"cuMemCreate: handle", what="l08 create")
    f["create"] = g.grab(L[i], r"cuMemCreate: (handle 0x[0-9a-f]+ = device memory pa 0x[0-9a-f]+, 0x[0-9a-f]+ bytes)")
    f["pa"] = g.grab(L[i], r"pa (0x[0-9a-f]+)")
    blk1, j = g.pick(L, [r"map\(asid 1, va 0x[0-9a-f]+, size 0x[0-9a-f]+\) -> pa " + f["pa"], r"  pte ", r"PTE_FILL",
                        r"protect\(asid 1", r"  pte ", r"PTE_FILL"], start=i, what="l08 parent map")
    f["trace.map1"] = g.block(blk1)
    k = g.find(L, r"phys_export\(pa " + f["pa"], start=j, what="l08 export")
    blk2, j2 = g.pick(L, [r"phys_export\(pa", r"cuMemExportToShareableHandle: handle"], start=k, what="l08 export")
    f["trace.export"] = g.block(blk2)
    k = g.find(L, r"phys_import\(fd", start=j2, what="l08 import")
    blk3, j3 = g.pick(L, [r"phys_import\(fd", r"cuMemImportFromShareableHandle: fd",
                         r"map\(asid 2, va 0x[0-9a-f]+, size 0x[0-9a-f]+\) -> pa " + f["pa"], r"  pte ", r"PTE_FILL",
                         r"protect\(asid 2", r"  pte ", r"PTE_FILL"], start=k, what="l08 child map")
    f["trace.map2"] = g.block(blk3)
    f["pte_rw"] = g.grab("\n".join(blk1[-1:]), r"value (0x[0-9a-f]+)")
    f["pte_addr1"] = g.grab(blk1[2], r"PTE_FILL\s+pa (0x[0-9a-f]+)")
    f["pte_addr2"] = g.grab(blk3[4], r"PTE_FILL\s+pa (0x[0-9a-f]+)")
    # answers.md: the example twice in a row on one server (a grace period long enough for the
    # second run to find the first's server); and VMGPU_SERVER=0 (no shared owner)
    import os
    same = {"VMGPU_SERVER_SOCKET": os.path.join(ctx.tmp, "ipc_twice.sock"), "VMGPU_SERVER_GRACE_MS": "60000"}
    runs = [ctx.run(f"ipc_twice{k}", ["examples/ipc_share"], env=same, trace=True) for k in (1, 2)]
    seen = []
    for k, t2 in enumerate(runs):
        pids = set(re.findall(r"open: device server \(pid (\d+)\)", t2.err))
        asids = re.findall(r"ctx_create: asid (\d+)", t2.err)
        pas = set(re.findall(r"map\(asid \d+, va 0x[0-9a-f]+, size 0x20000\) -> pa (0x[0-9a-f]+)", t2.err))
        if len(asids) != 2 or len(pas) != 1:
            raise g.GenError(f"l08: run {k + 1} of two: contexts {asids}, shared frames {pas}")
        seen.append((pids, ", ".join(asids), pas.pop()))
    if seen[0][0] != seen[1][0]:
        raise g.GenError("l08: the second run did not reach the first run's server")
    f["twice1"] = f"ASIDs {seen[0][1]}, frames at pa {seen[0][2]}"
    f["twice2"] = f"ASIDs {seen[1][1]}, frames at pa {seen[1][2]}"
    n = ctx.run("ipc_inproc", ["examples/ipc_share"], env={"VMGPU_SERVER": "0"}, check=False)
    f["inproc_err"] = g.grab(n.err, r"child: (cuMemImportFromShareableHandle\(.*?\) failed: \w+)",
                             what="l08 VMGPU_SERVER=0")
    k = ctx.run("ipc_kill", ["tests/server/vmgpu_server_tests", "kill_client"])
    f["kill"] = g.block([l for l in k.out_lines if l.startswith("  [parent]")])
    return f


@provides("l09")
def lesson09(ctx):
    """tests/lessons/lesson_kernel_fault: the oob kernel's PTX store past a mapping, down to the
    MMU's walk, the fault registers and back to the PTX line."""
    exe = ["tests/lessons/lesson_kernel_fault"]
    r = ctx.run("kfault_plain", exe)
    t = ctx.run("kfault_trace", exe, trace=True)
    if "lesson_kernel_fault: done" not in r.out or "lesson_kernel_fault: done" not in t.out:
        raise g.GenError("l09: lesson_kernel_fault did not finish")
    f = {"out": g.block(r.out_lines)}
    o, L = t.out, t.err_lines
    out_va = int(g.grab(o, r"out\[\] at VA (0x[0-9a-f]+)"), 16)
    mapped = int(g.grab(o, r": (\d+) elements mapped"))
    stride = int(g.grab(o, r"grid stride (\d+)"))
    threads = int(g.grab(o, r"oob<<<\d+, (\d+)>>>"))
    # the PTX line of the store to out[] and the code it became, found in the PTX itself
    import os
    ptx = open(os.path.join(g.ROOT, "tests", "ptx", "fixtures", "oob.ptx")).read().split("\n")
    st = next(i + 1 for i, l in enumerate(ptx) if "st.global.u32" in l)
    f["st_line"] = str(st)
    i = g.find(L, r"module: kernel oob:", what="l09 listing")
    f["kernel"] = g.grab(L[i], r"kernel oob: (\d+ instructions at VA 0x[0-9a-f]+)")
    a = g.find(L, r"module:   ptx line 42:", start=i, what="l09 listing")
    b = g.find(L, r"module:   ptx line 47:", start=a, what="l09 listing")
    f["trace.listing"] = g.block(L[a:b + 2])
    sw = L[g.find(L, r"module:   ptx line %d:" % st, start=i) + 1]
    f["sw"] = g.grab(sw, r"\): [0-9a-f]{8}  (sw .*)$")
    f["sw_pc"] = g.grab(sw, r"module:\s+([0-9a-f]{8}) ")
    f["sw_off"] = g.grab(sw, r"\(\+(0x[0-9a-f]+)\)")
    # A's context: its ASID, page directory, the page table of out's 4 MiB region
    asid = g.grab(t.err, r"context 0x[0-9a-f]+ \(asid (\d+)\) is now in error")
    f["asid"] = asid
    k = g.find(L, r"map\(asid %s, va 0x%08x, size 0x[0-9a-f]+\) -> pa" % (asid, out_va), what="l09 out map")
    blk, _ = g.pick(L, [r"\] map\(asid", r"  pte ", r"PTE_FILL", r"protect\(asid " + asid, r"  pte ", r"PTE_FILL"],
                    start=k, what="l09 out map")
    f["trace.map"] = g.block(blk)
    pt = g.grab(t.err, r"ctx_create: asid %s[^\n]*\n(?:.*\n)*?\[vmgpu\]   pde  va 0x%08x\.\.0x[0-9a-f]+ -> page table at pa (0x[0-9a-f]+)"
                % (asid, out_va & ~0x3FFFFF), what="l09 page table")
    # the launch and the fault
    i1 = g.find(L, r"launch: oob<<<", start=k, what="l09 launch")
    i2 = g.find(L, r"launch_prog \(asid " + asid, start=i1, what="l09 launch")
    m = g.find(L, r"mmu: FAULT", start=i2, what="l09 fault")
    if not all("mmu: TLB_FILL" in l for l in L[m - 2:m]) or "] fault: ring" not in L[m + 1]:
        raise g.GenError("l09: the fault is not preceded by TLB fills and followed by the driver's report")
    blk = [L[i1], L[i2], "..."] + L[m - 2:m + 2]
    f["trace.fault"] = g.block(blk)
    fault = L[g.find(L, r"\] fault: ring", start=k)]
    va = int(g.grab(fault, r"of VA (0x[0-9a-f]+)"), 16)
    lane = int(g.grab(fault, r"by lane (\d+)"))
    warp = int(g.grab(fault, r"warp (\d+) at PC"))
    pc = g.grab(fault, r"at PC (0x[0-9a-f]+)")
    f["fault_va"], f["fault_reason"] = g.hx(va), g.grab(fault, r"faulted: (\w+) on")
    f["lane"], f["warp"], f["pc"] = str(lane), str(warp), pc
    f["ring"] = g.grab(fault, r"fault: ring (\d+)")
    elem = (va - out_va) // 4
    thread = elem % stride
    lanes = int(g.grab(t.err, r"= \d+ warps? of (\d+) lanes each"))
    if thread // lanes != warp or thread % lanes != lane or elem < mapped or int(pc, 16) != int(f["sw_pc"], 16):
        raise g.GenError(f"l09: the fault (VA {va:#x}, lane {lane} warp {warp}, PC {pc}) is not element {elem}'s "
                         f"thread {thread} at the out[] store ({f['sw_pc']})")
    f["elem"], f["thread"], f["lanes"] = str(elem), str(thread), str(lanes)
    f["elem_off"] = g.hx(va - out_va, 0)
    f["pd_index"], f["pt_index"] = g.hx(va >> 22, 3), g.hx((va >> 12) & 0x3FF, 3)
    f["page_table"] = pt
    f["pte_addr"] = g.hx(int(pt, 16) + ((va >> 12) & 0x3FF) * 4)
    f["trace.pc"] = g.block([L[g.find(L, r"launch: oob fault at PC", start=k)]])
    f["trace.sync"] = g.block([l for l in L[k:] if re.search(r"cuCtxSynchronize -> CUDA_ERROR_ILLEGAL_ADDRESS", l)][:1])
    if int(g.grab(t.out, r"; (\d+) at or past element")) != 0:
        raise g.GenError("l09: a store past the mapping was logged")
    f["logged"] = g.grab(r.out, r"^log: (\d+ of \d+) elements logged")
    f["threads"] = str(threads)
    # The same program on NVIDIA's H100 (recorded once, tests/cuda/probe/record_launchex_nvidia.sh)
    nv = open(os.path.join(g.ROOT, "tests", "lessons", "nvidia_kernel_fault_h100_580.159.04.txt")).read()
    runs = nv.split("A: out[] at VA ")[1:]
    if len(runs) != 2:
        raise g.GenError("l09: the NVIDIA record does not hold the two runs")
    f["nv_mapped"] = g.grab(runs[0], r": (\d+) elements mapped")
    f["nv_logged"] = g.grab(runs[0], r"^log: (\d+ of \d+) elements logged", what="l09 NVIDIA record")
    f["nv_past"] = g.grab(runs[0], r"; (\d+) at or past element")
    per = re.findall(r"^log: block \d+ logged (\d+) elements", runs[0], re.M)
    if len(per) != 4 or len(set(per)) != 1:
        raise g.GenError(f"l09: NVIDIA's blocks logged {per}")
    f["nv_per_block"] = per[0]
    f["nv12_past"] = g.grab(runs[1], r"; (\d+) at or past element")
    f["nv_b"] = g.grab(nv, r"^(cuMemAlloc\(&da, sizeof a\) -> \w+)")
    # Try this: one element past the mapping; one block of 12 threads
    e1 = ctx.run("kfault_extra1", exe + ["--extra", "1"], trace=True)
    f1 = e1.err_lines[g.find(e1.err_lines, r"\] fault: ring")]
    f["ans1.fault"] = g.grab(f1, r"(\w+ on write of VA 0x[0-9a-f]+)")
    f["ans1.who"] = g.grab(f1, r"(lane \d+ warp \d+)")
    f["ans1.logged"] = g.grab(e1.out, r"^log: (\d+ of \d+) elements logged")
    e2 = ctx.run("kfault_t12", exe + ["--blocks", "1", "--threads", "12"], trace=True)
    f2 = e2.err_lines[g.find(e2.err_lines, r"\] fault: ring")]
    f["ans2.fault"] = g.grab(f2, r"(\w+ on write of VA 0x[0-9a-f]+)")
    f["ans2.who"] = g.grab(f2, r"(lane \d+ warp \d+)")
    f["ans2.behind"] = g.block([l for l in e2.out_lines if l.startswith("log: thread")])
    # ... and one block of 48 threads: two warps (32 and 16 threads), one of them behind
    e3 = ctx.run("kfault_t48", exe + ["--blocks", "1", "--threads", "48"], trace=True)
    f3 = e3.err_lines[g.find(e3.err_lines, r"\] fault: ring")]
    f["ans3.fault"] = g.grab(f3, r"(\w+ on write of VA 0x[0-9a-f]+)")
    f["ans3.who"] = g.grab(f3, r"(lane \d+ warp \d+)")
    f["ans3.behind"] = g.block([l for l in e3.out_lines
                                if re.match(r"log: thread (0|15|16|31) \(", l)])
    return f


@provides("quiz")
def quiz(ctx):
    r = ctx.run("quiz_sample", ["tools/vmgpu-quiz", "--seed", "4", "--count", "2", "--answers"])
    return {"sample": g.block(["$ vmgpu-quiz --seed 4 --count 2 --answers"] + r.out_lines)}
