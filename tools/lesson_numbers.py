#!/usr/bin/env python3
"""Write the numbers the lessons and docs quote from runs, from a fresh run; or check them.

    lesson_numbers.py [--build DIR]            rewrite every generated region that differs
    lesson_numbers.py [--build DIR] --check    exit 1, naming each stale region, when the text
                                               differs from what a fresh run gives
    lesson_numbers.py ... --only l02,bench     only the regions whose names start so
    lesson_numbers.py ... --list               the regions found and the runs they need

A generated region in Markdown is the text between <!-- gen:NAME --> and <!-- /gen -->, inline
(a number in a sentence or a table cell) or a block (a trace excerpt in a code block). A .gtkw
view whose first line is "[*] gen:NAME" has its [*] header, [timestart] and marker line
generated. Files a provider writes whole (SVG pictures) are listed by the provider and checked
the same way.

Every value comes from running the programs the lessons run (examples/, vmgpu-bench, vmgpu-pt,
the lessons' own probes in tests/lessons/) on the simulated device: their stdout, their
VMGPU_TRACE=1 stderr, and their waveforms (VMGPU_WAVES), read with vmgpu-fst-dump. Nothing is
typed in by hand; a provider that cannot find what it looks for stops with an error that says
what changed, so a lesson can go stale only by failing this check.

Host pointers (12 hex digits: 0x55..., 0x7f...) differ from run to run; they are compared as
equal, and a rewrite keeps the ones already in the text when nothing else changed.
"""
import argparse
import bisect
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

REGION = re.compile(r"<!-- gen:(?P<name>[A-Za-z0-9_.\-]+) -->(?P<body>.*?)<!-- /gen -->", re.S)
HOSTPTR = re.compile(r"0x[0-9a-f]{12}\b")


class GenError(Exception):
    pass


def normalize(text):
    return HOSTPTR.sub("0xHOSTPTR", text)


# ------------------------------------------------------------------------------ runs


class Run:
    """One program run on the simulated device: stdout, stderr and (if asked) its waveform."""

    def __init__(self, ctx, name, argv, env=None, waves=False, trace=False, check=True,
                 timeout=600, cwd=None):
        self.name = name
        env_full = dict(os.environ)
        for k in ("VMGPU_TRACE", "VMGPU_WAVES", "VMGPU_DEVICE"):
            env_full.pop(k, None)
        env_full["VMGPU_DEVICE"] = "sim"
        # Every run on a fresh device, as a user gets it when no server runs yet: a device
        # server of its own (the default device is reached through one; VMGPU_WAVES runs the
        # model in the process instead). Its processes (a fork, a child) share it.
        env_full["VMGPU_SERVER_SOCKET"] = os.path.join(ctx.tmp, name + ".sock")
        env_full["OCL_ICD_VENDORS"] = os.path.join(ctx.build, "sw", "opencl", "vendors")
        if trace:
            env_full["VMGPU_TRACE"] = "1"
        self.fst = None
        if waves:
            self.fst = os.path.join(ctx.tmp, name + ".fst")
            env_full["VMGPU_WAVES"] = self.fst
        env_full.update(env or {})
        exe = argv[0]
        if not os.path.isabs(exe):
            exe = os.path.join(ctx.build, exe)
        if not os.path.exists(exe):
            raise GenError(f"run {name}: {exe} is not built (build the lessons' targets first: "
                           "scripts/demo.sh builds them)")
        ctx.log(f"run {name}: {' '.join([os.path.relpath(exe, ctx.build)] + argv[1:])}"
                f"{' (trace)' if trace else ''}{' (waves)' if waves else ''}")
        r = subprocess.run([exe] + argv[1:], env=env_full, capture_output=True, text=True,
                           timeout=timeout, cwd=cwd or ctx.tmp)
        self.rc = r.returncode
        self.out = r.stdout
        self.err = r.stderr
        self.out_lines = r.stdout.splitlines()
        self.err_lines = r.stderr.splitlines()
        if check and r.returncode != 0:
            raise GenError(f"run {name} exited with {r.returncode}:\n{r.stdout[-2000:]}\n"
                           f"{r.stderr[-2000:]}")


class Ctx:
    def __init__(self, build, verbose):
        self.build = os.path.abspath(build)
        self.verbose = verbose
        self.tmp = tempfile.mkdtemp(prefix="vmgpu-lessons-")
        self.runs = {}
        self.facts = {}
        self.done = set()

    def log(self, msg):
        if self.verbose:
            print(msg, file=sys.stderr)

    def run(self, name, argv, **kw):
        if name not in self.runs:
            self.runs[name] = Run(self, name, argv, **kw)
        return self.runs[name]

    def tool(self, name):
        p = os.path.join(self.build, "tools", name)
        if not os.path.exists(p):
            raise GenError(f"{p} is not built")
        return p

    def wave(self, run, signals, t0=None, t1=None):
        return Wave(self, run.fst, signals, t0, t1)

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


# ------------------------------------------------------------------------- waveforms

TOP = "vmgpu.vmgpu_top."


class Wave:
    """Value changes of a few signals (short names relative to vmgpu_top) in [t0, t1]."""

    def __init__(self, ctx, fst, signals, t0=None, t1=None):
        self.names = list(signals)
        args = [ctx.tool("vmgpu-fst-dump"), fst]
        if t0 is not None:
            args += ["--from", str(t0)]
        if t1 is not None:
            args += ["--to", str(t1)]
        args += [s if s.startswith("vmgpu.") else TOP + s for s in self.names]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode:
            raise GenError(f"vmgpu-fst-dump: {r.stderr.strip()}")
        self.ch = {n: [] for n in self.names}
        self._times = {}
        idx = {}
        for line in r.stdout.splitlines():
            if line.startswith("#"):
                _, k, _path, _w = line.split()
                idx[k] = self.names[int(k)]
                continue
            t, k, v = line.split()
            val = int(v, 16) if re.fullmatch(r"[0-9a-f]+", v) else None
            self.ch[idx[k]].append((int(t), val))

    def at(self, sig, t):
        """Value of sig at time t (after the changes at t)."""
        ch = self.ch[sig]
        if sig not in self._times:
            self._times[sig] = [tt for tt, _ in ch]
        k = bisect.bisect_right(self._times[sig], t)
        return ch[k - 1][1] if k else None

    def rises(self, sig, t0=0, t1=None):
        """Times at which sig becomes nonzero."""
        out, prev = [], None
        for tt, vv in self.ch[sig]:
            if (prev == 0 or prev is None) and vv and tt >= t0 and (t1 is None or tt <= t1):
                out.append(tt)
            prev = vv
        return out

    def first_rise(self, sig, t0=0, t1=None, what=None):
        r = self.rises(sig, t0, t1)
        if not r:
            raise GenError(f"waveform: no rise of {sig} after {t0}" + (f" ({what})" if what else ""))
        return r[0]

    def changes(self, sig, t0=0, t1=None):
        return [(t, v) for t, v in self.ch[sig] if t >= t0 and (t1 is None or t <= t1)]

    def first_value(self, sig, value, t0=0, t1=None, what=None):
        for t, v in self.ch[sig]:
            if t >= t0 and (t1 is None or t <= t1) and v == value:
                return t
        raise GenError(f"waveform: {sig} never {value:#x} after {t0}" + (f" ({what})" if what else ""))


# The simulated device's clock: cycle n is at 20 n + 150 ns in every waveform (checked against
# the cycle counter by cycle_of()).
NS_PER_CYCLE = 20
T_ZERO = 150


def cycle_at(t):
    return (t - T_ZERO) // NS_PER_CYCLE


def time_of(cycle):
    return cycle * NS_PER_CYCLE + T_ZERO


# --------------------------------------------------------------------------- helpers


def grp(n):
    """1234567 -> '1 234 567' (the docs' thousands separator); below 10 000 no grouping."""
    n = int(n)
    if abs(n) < 10000:
        return str(n)
    s = f"{abs(n):,}".replace(",", " ")
    return ("-" if n < 0 else "") + s


def pick(lines, patterns, start=0, what="trace"):
    """Lines matching the patterns in order (each after the previous match); "..." entries are
    kept as literal "..." lines; a pattern prefixed with "?" is optional. Returns (lines, end)."""
    out, i = [], start
    for p in patterns:
        if p == "...":
            out.append("...")
            continue
        optional = p.startswith("?")
        rx = re.compile(p[1:] if optional else p)
        j = i
        while j < len(lines) and not rx.search(lines[j]):
            j += 1
        if j == len(lines):
            if optional:
                continue
            raise GenError(f"{what}: no line matching /{rx.pattern}/ after line {i}:\n"
                           + "\n".join(lines[i:i + 12]))
        out.append(lines[j])
        i = j + 1
    return out, i


def find(lines, pattern, start=0, what="trace"):
    rx = re.compile(pattern)
    for i in range(start, len(lines)):
        if rx.search(lines[i]):
            return i
    raise GenError(f"{what}: no line matching /{pattern}/ after line {start}")


def grab(text, pattern, what="output", group=1, conv=None):
    m = re.search(pattern, text, re.M)
    if not m:
        raise GenError(f"{what}: nothing matches /{pattern}/")
    v = m.group(group)
    return conv(v) if conv else v


def block(lines, lang=""):
    return "```" + lang + "\n" + "\n".join(lines) + "\n```"


def hx(v, w=8):
    return f"0x{v:0{w}x}"


def hx_up(v, w=8):
    return f"0x{v:0{w}X}"


# ------------------------------------------------------------------------- providers

PROVIDERS = {}


def provider(prefix):
    def deco(fn):
        PROVIDERS[prefix] = fn
        return fn
    return deco


def fact(ctx, name):
    prefix = name.split(".", 1)[0]
    if prefix not in PROVIDERS:
        raise GenError(f"region {name}: no provider for '{prefix}'")
    if prefix not in ctx.done:
        ctx.done.add(prefix)
        got = PROVIDERS[prefix](ctx)
        for k, v in got.items():
            ctx.facts[k if k.startswith(prefix + ".") else prefix + "." + k] = v
    if name not in ctx.facts:
        raise GenError(f"region {name}: provider '{prefix}' does not give it")
    return ctx.facts[name]


import lesson_facts  # noqa: E402  (registers the providers)

lesson_facts.register(provider, sys.modules[__name__])


# ------------------------------------------------------------------------------ files


def doc_files():
    out = []
    for base in ("docs", "README.md"):
        p = os.path.join(ROOT, base)
        if os.path.isfile(p):
            out.append(p)
            continue
        for d, _, fs in os.walk(p):
            for f in sorted(fs):
                if f.endswith(".md") or f.endswith(".gtkw"):
                    out.append(os.path.join(d, f))
    return sorted(out)


def render_md(ctx, text, only, stale, path):
    def sub(m):
        name, body = m.group("name"), m.group("body")
        if only and not any(name.startswith(o) for o in only):
            return m.group(0)
        val = str(fact(ctx, name))
        new_body = "\n" + val + "\n" if "\n" in body or "\n" in val else val
        if normalize(new_body) == normalize(body):
            return m.group(0)
        stale.append((path, name, body, new_body))
        return f"<!-- gen:{name} -->{new_body}<!-- /gen -->"
    return REGION.sub(sub, text)


def render_gtkw(ctx, text, only, stale, path):
    lines = text.split("\n")
    m = re.match(r"\[\*\] gen:([A-Za-z0-9_.\-]+)\s*$", lines[0])
    if not m:
        return text
    name = m.group(1)
    if only and not any(name.startswith(o) for o in only):
        return text
    g = fact(ctx, name)
    body = [l for l in lines[1:]]
    while body and body[0].startswith("[*]"):
        body.pop(0)
    out = [lines[0]] + ["[*] " + h for h in g["header"]]
    markers = list(g["markers"]) + [-1] * (26 - len(g["markers"]))
    for l in body:
        if l.startswith("[timestart]"):
            l = f"[timestart] {g['timestart']}"
        elif l.startswith("*-"):
            zoom = l.split()[0]
            l = f"{zoom} {g['primary']} " + " ".join(str(x) for x in markers)
        out.append(l)
    new = "\n".join(out)
    if new != text:
        stale.append((path, name, text, new))
    return new


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("VMGPU_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--skip", default="", help="region name prefixes to leave alone (e.g. l04ord)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    only = [o for o in a.only.split(",") if o]
    skip = [o for o in a.skip.split(",") if o]
    if skip:
        names = set()
        for p in doc_files():
            names |= {m.group("name") for m in REGION.finditer(open(p).read())}
            gm = re.match(r"\[\*\] gen:(\S+)", open(p).read())
            if gm:
                names.add(gm.group(1))
        only = only or sorted(names)
        only = [o for o in only if not any(o.startswith(k) for k in skip)]
    files = doc_files()
    if a.list:
        for p in files:
            text = open(p).read()
            names = [m.group("name") for m in REGION.finditer(text)]
            g = re.match(r"\[\*\] gen:(\S+)", text)
            if g:
                names.append(g.group(1))
            if names:
                print(f"{os.path.relpath(p, ROOT)}: {len(names)} regions: {', '.join(sorted(set(names)))}")
        return 0
    ctx = Ctx(a.build, a.verbose)
    stale = []
    try:
        new_texts, orig_texts = {}, {}
        for p in files:
            text = open(p).read()
            orig_texts[p] = text
            new = (render_gtkw if p.endswith(".gtkw") else render_md)(ctx, text, only, stale, p)
            new_texts[p] = new
        extra = {}
        for prefix in sorted(ctx.done):
            for rel, content in (ctx.facts.get(prefix + ".files") or {}).items():
                p = os.path.join(ROOT, rel)
                binary = isinstance(content, bytes)
                old = (open(p, "rb" if binary else "r").read() if os.path.exists(p)
                       else (b"" if binary else ""))
                same = old == content if binary else normalize(old) == normalize(content)
                if not same:
                    stale.append((p, "file", "(binary)" if binary else old,
                                  "(binary, differs)" if binary else content))
                    extra[p] = content
    except GenError as e:
        print(f"lesson_numbers: {e}", file=sys.stderr)
        ctx.close()
        return 2
    finally:
        pass
    ctx.close()
    ctx_done = ctx  # its facts stay available (no new runs are needed to re-render)
    if a.check:
        for path, name, old, new in stale:
            print(f"STALE {os.path.relpath(path, ROOT)}: {name}")
            d = difflib.unified_diff(old.splitlines(), new.splitlines(), "text", "fresh run", lineterm="", n=1)
            for l in list(d)[:40]:
                print("    " + l)
        n_regions = sum(len(REGION.findall(open(p).read())) for p in files)
        print(f"lesson_numbers: {len(stale)} stale of {n_regions} regions "
              f"(+ views and pictures) in {len(files)} files")
        return 1 if stale else 0
    # Write only what changed, and apply the change to the file as it is *now*: others may edit
    # the same pages while the runs take their minutes, and their edits must survive.
    changed = {p for p, _, _, _ in stale}
    for p, new in new_texts.items():
        if p not in changed or new == orig_texts[p]:
            continue
        now = open(p).read()
        if now != orig_texts[p]:
            again = []
            new = (render_gtkw if p.endswith(".gtkw") else render_md)(ctx_done, now, only, again, p)
        with open(p, "w") as f:
            f.write(new)
        print(f"wrote {os.path.relpath(p, ROOT)}")
    for p, new in extra.items():
        binary = isinstance(new, bytes)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb" if binary else "w") as f:
            f.write(new)
        print(f"wrote {os.path.relpath(p, ROOT)}")
    print(f"lesson_numbers: {len(stale)} regions regenerated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
