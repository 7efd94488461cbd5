#!/usr/bin/env python3
"""The trace's MMU events after an event-FIFO overflow (ctest trace_event_fifo).

Runs examples/dma_through_mmu with VMGPU_TRACE=1. Its 128 KiB copy misses the TLB on every
page (64 fills for 32 source and 32 destination pages), more than the hardware's event FIFO
holds. The trace must then say how many events were lost, once, and show the newest ones:
  - exactly one "N older events lost" line, under the copy's wait;
  - N plus the fills shown after it equals the fills the copy made (2 per page);
  - the last fill shown is the copy's last destination page (the FIFO kept the newest);
  - the faulting copy that follows reports its fill and its FAULT with no loss line (the
    overflow state was cleared when it was reported).

    trace_events.py PATH/TO/dma_through_mmu
"""
import os
import re
import subprocess
import sys


def main():
    exe = sys.argv[1]
    env = dict(os.environ, VMGPU_TRACE="1", VMGPU_DEVICE="sim")
    env.pop("VMGPU_WAVES", None)
    r = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=300)
    lines = r.stderr.splitlines()
    fails = []

    def check(ok, msg):
        print(("ok   " if ok else "FAIL ") + msg)
        if not ok:
            fails.append(msg)

    copies = [i for i, l in enumerate(lines) if re.search(r"ring\d+\s+DMA_COPY", l)]
    check(len(copies) == 2, f"two DMA_COPY commands in the trace (found {len(copies)})")
    if len(copies) != 2:
        return 1
    m = re.search(r"va (0x[0-9a-f]+) -> va (0x[0-9a-f]+), (\d+) x 1 bytes", lines[copies[0]])
    src, dst, nbytes = int(m.group(1), 16), int(m.group(2), 16), int(m.group(3))
    pages = nbytes // 4096
    lost_lines = [i for i, l in enumerate(lines) if "events lost" in l or "overflowed" in l]
    check(len(lost_lines) == 1, f"exactly one loss line (found {len(lost_lines)}: "
          f"{[lines[i].strip() for i in lost_lines]})")
    if not lost_lines:
        return 1
    first = lost_lines[0]
    check(copies[0] < first < copies[1], "the loss line belongs to the first copy")
    lm = re.search(r"mmu: (?:at least )?(\d+) older events lost", lines[first])
    check(lm is not None, f"the loss line says how many were lost: {lines[first].strip()}")
    lost = int(lm.group(1)) if lm else 0
    fills = []
    for l in lines[first + 1:copies[1]]:
        f = re.search(r"TLB_FILL\s+asid\s+\d+ va (0x[0-9a-f]+) .*\((read|write)\)", l)
        if f:
            fills.append((int(f.group(1), 16), f.group(2)))
    check(lost + len(fills) == 2 * pages,
          f"{lost} lost + {len(fills)} shown = {lost + len(fills)} fills, the copy made {2 * pages}")
    last_dst = dst + nbytes - 4096
    check(bool(fills) and fills[-1] == (last_dst, "write"),
          f"the newest fill is kept: last shown {fills[-1][0]:#x} ({fills[-1][1]}) "
          f"vs the copy's last destination page {last_dst:#x}" if fills else "no fills shown")
    tail = lines[copies[1]:]
    check(any("FAULT" in l and "mmu:" in l for l in tail), "the faulting copy's FAULT event is shown")
    check(not any("lost" in l or "overflowed" in l for l in tail),
          "no loss reported for the faulting copy (the overflow state cleared)")
    print(f"trace_event_fifo: {len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
