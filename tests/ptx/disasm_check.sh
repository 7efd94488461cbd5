#!/bin/sh
# Every word the translator writes for the fixtures must decode as an RV32IMAF instruction
# (llvm-mc as the independent decoder of the encoder's output), and the count must match.
# amocas.w (Zacas, for atom.cas) is newer than LLVM 14: those words are counted apart.
# usage: disasm_check.sh <ptx_dump> <llvm-mc> <fixture dir>
set -u
dump=$1 mc=$2 dir=$3
fail=0 total=0
for f in "$dir"/*.ptx; do
  words=$("$dump" "$f" 2>/dev/null) || { echo "FAIL $f: not translated"; fail=$((fail + 1)); continue; }
  n=$(printf '%s\n' "$words" | grep -c '^0x')
  out=$(printf '%s\n' "$words" | "$mc" --disassemble -triple=riscv32 -mattr=+m,+a,+f 2>&1)
  bad=$(printf '%s\n' "$out" | grep -c 'invalid instruction encoding')
  got=$(printf '%s\n' "$out" | grep -c '^[[:space:]][a-z]')
  # AMO opcode (0x2f in the low 7 bits) with funct5 5: amocas.w
  cas=$(printf '%s\n' "$words" | grep -c '^0x[2a]f 0x.. 0x.. 0x2[89a-f]$')
  total=$((total + n))
  if [ "$bad" -ne "$cas" ] || [ $((got + cas)) -ne "$n" ]; then
    echo "FAIL $f: $n words, $got decoded, $bad invalid"
    fail=$((fail + 1))
  fi
done
echo "ptx_disasm: $total words checked, $fail files failed"
[ "$fail" -eq 0 ]
