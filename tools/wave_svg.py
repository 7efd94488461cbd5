#!/usr/bin/env python3
"""A waveform picture (SVG) from an FST file, for readers without GTKWave.

    wave_svg.py FILE.fst --from NS --cycles N [--marker NS:LABEL]... [--title T] [--tools DIR] SIGNAL...

SIGNAL is a path below vmgpu.vmgpu_top (dma_start, u_mmu.u_walker.pt_rd_addr_o, ...), optionally
"path=Label". One column per device cycle (cycle n is at 20 n + 150 ns), sampled after the
cycle's clock edge, so a value drawn in a column is what the hardware held during that cycle.
One-bit signals are drawn as lines, wider ones as boxes with their hex value where it changes.
tools/lesson_numbers.py uses render() for the lessons' pictures; the signals come from
vmgpu-fst-dump (FST reader of Verilator's own FST writer).
"""
import argparse
import os
import subprocess
import sys

NS, T0 = 20, 150


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def sample(dump, fst, t0, cycles, paths):
    """Per-cycle values {path: [v0, v1, ...]} and widths {path: w}."""
    full = [p if p.startswith("vmgpu.") else "vmgpu.vmgpu_top." + p for p in paths]
    t1 = t0 + cycles * NS
    r = subprocess.run([dump, fst, "--from", str(t0), "--to", str(t1)] + full, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr.strip())
    idx, width, ch = {}, {}, {p: [] for p in paths}
    for line in r.stdout.splitlines():
        if line.startswith("#"):
            _, k, _path, w = line.split()
            idx[k] = paths[int(k)]
            width[paths[int(k)]] = int(w)
            continue
        t, k, v = line.split()
        ch[idx[k]].append((int(t), v))
    out = {}
    for p in paths:
        vals, cur, j = [], None, 0
        c = ch[p]
        for i in range(cycles):
            t = t0 + i * NS
            while j < len(c) and c[j][0] <= t:
                cur = c[j][1]
                j += 1
            vals.append(cur)
        out[p] = vals
    return out, width


def render(dump, fst, t0, cycles, signals, markers=(), title=""):
    """SVG text. t0 is the time (ns) of the first cycle drawn; signals are "path" or "path=Label"."""
    paths = [s.split("=", 1)[0] for s in signals]
    labels = [s.split("=", 1)[1] if "=" in s else s.split(".")[-1] for s in signals]
    vals, width = sample(dump, fst, t0, cycles, paths)
    cw, rh, lw, top = 46, 26, 200, 70
    W = lw + cycles * cw + 20
    H = top + len(paths) * rh + 40
    c0 = (t0 - T0) // NS
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
         'font-family="DejaVu Sans Mono, monospace" font-size="11">',
         f'<rect x="0" y="0" width="{W}" height="{H}" fill="#fafafa"/>',
         f'<text x="10" y="20" font-size="14" font-weight="bold">{esc(title)}</text>',
         f'<text x="10" y="38" fill="#555">cycles {c0}..{c0 + cycles - 1} (t = 20 n + 150 ns); each column is one '
         'cycle, as the hardware held it</text>']
    for i in range(cycles):
        x = lw + i * cw
        o.append(f'<line x1="{x}" y1="{top - 12}" x2="{x}" y2="{H - 30}" stroke="#e3e3e3"/>')
        o.append(f'<text x="{x + cw / 2}" y="{top - 16}" text-anchor="middle" fill="#777">{i}</text>')
    for k, p in enumerate(paths):
        y = top + k * rh
        o.append(f'<text x="10" y="{y + 17}">{esc(labels[k])}</text>')
        v = vals[p]
        if width.get(p, 1) == 1:
            pts = []
            for i, s in enumerate(v):
                yy = y + 5 if s == "1" else y + 21
                pts += [(lw + i * cw, yy), (lw + (i + 1) * cw, yy)]
            o.append('<polyline fill="none" stroke="#1f6f3f" stroke-width="2" points="' +
                     " ".join(f"{a},{b}" for a, b in pts) + '"/>')
        else:
            i = 0
            while i < cycles:
                j = i
                while j + 1 < cycles and v[j + 1] == v[i]:
                    j += 1
                x0, x1 = lw + i * cw + 2, lw + (j + 1) * cw - 2
                o.append(f'<path d="M{x0},{y + 13} L{x0 + 4},{y + 4} L{x1 - 4},{y + 4} L{x1},{y + 13} '
                         f'L{x1 - 4},{y + 22} L{x0 + 4},{y + 22} Z" fill="#fff" stroke="#2c5d8a"/>')
                text = v[i] if v[i] is not None else "?"
                if (j - i + 1) * cw >= len(text) * 7 + 8:
                    o.append(f'<text x="{(x0 + x1) / 2}" y="{y + 17}" text-anchor="middle">{esc(text)}</text>')
                i = j + 1
    for t, label in markers:
        i = (t - t0) / NS
        if 0 <= i <= cycles:
            x = lw + i * cw
            o.append(f'<line x1="{x}" y1="{top - 12}" x2="{x}" y2="{H - 30}" stroke="#c0392b" stroke-width="1.5"/>')
            o.append(f'<text x="{x + 3}" y="{H - 16}" fill="#c0392b" font-weight="bold">{esc(label)}</text>')
    o.append("</svg>")
    return "\n".join(o) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fst")
    ap.add_argument("signals", nargs="+")
    ap.add_argument("--from", dest="t0", type=int, required=True)
    ap.add_argument("--cycles", type=int, default=16)
    ap.add_argument("--marker", action="append", default=[])
    ap.add_argument("--title", default="")
    ap.add_argument("--tools", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "tools"))
    a = ap.parse_args()
    marks = [(int(m.split(":", 1)[0]), m.split(":", 1)[1]) for m in a.marker]
    sys.stdout.write(render(os.path.join(a.tools, "vmgpu-fst-dump"), a.fst, a.t0, a.cycles, a.signals, marks, a.title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
