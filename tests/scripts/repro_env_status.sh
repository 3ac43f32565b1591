#!/usr/bin/env bash
# repro.py and its environment (issue 13): a finding's repro.py exits 1 under the stack's own Python
# (the bug reproduces), 3 under a Python that cannot import torch, 3 under a torch of the other
# stack, and names neither this checkout nor the build folder.
# Usage: repro_env_status.sh ALIASFUZZ STACK_PYTHON [OTHER_STACK_PYTHON]
set -u
af=$1 py=$2 other=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$af" reduce corpus/seed/design-003-unsqueeze-inplace.json --converter naive --out "$tmp/out" >/dev/null 2>&1 ||
  { echo "not ok: reduce failed"; exit 1; }
repro=$(find "$tmp/out" -name repro.py | head -1)
[ -n "$repro" ] || { echo "not ok: no repro.py"; exit 1; }
# the README says where the program came from: a hand-written one has no seed; a generated one's
# 64-bit seed (a string in the meta) is named whole (it once read as 0)
if grep -q "found by: .*a program without a seed" "$(dirname "$repro")/README.md"; then echo "ok   a hand-written program: no seed named"
else echo "not ok: README of a hand-written program: $(grep 'found by' "$(dirname "$repro")/README.md")"; fail=1; fi
sed 's/"meta": {/"meta": {"seed": "18446744073709551557", /' corpus/seed/design-003-unsqueeze-inplace.json >"$tmp/seeded.json"
"$af" reduce "$tmp/seeded.json" --converter naive --out "$tmp/seeded" >/dev/null 2>&1
if grep -q "found by: .*program seed 18446744073709551557" "$tmp"/seeded/findings/*/README.md 2>/dev/null; then echo "ok   a generated program's seed is named whole"
else echo "not ok: README of a seeded program: $(grep -h 'found by' "$tmp"/seeded/findings/*/README.md 2>/dev/null)"; fail=1; fi
expect() { # expect STATUS WHAT CMD...
  local want=$1 what=$2
  shift 2
  "$@" >"$tmp/log" 2>&1
  local got=$?
  if [ "$got" = "$want" ]; then echo "ok   $what: exit $got"; else echo "not ok $what: exit $got, expected $want"; sed 's/^/    /' "$tmp/log" | tail -5; fail=1; fi
}
expect 1 "the stack's Python reproduces the bug" "$py" "$repro"
expect 3 "a Python without torch (site-packages off)" "$py" -S "$repro"
grep -q "needs PyTorch" "$tmp/log" || { echo "not ok: no 'needs PyTorch' message"; fail=1; }
if [ -n "$other" ] && [ -x "$other" ] && "$other" -c 'import torch' 2>/dev/null; then
  expect 3 "the other stack's torch" "$other" "$repro"
  AF_REPRO_ANY_TORCH=1 "$other" "$repro" >/dev/null 2>&1
  got=$?
  if [ "$got" = 1 ] || [ "$got" = 0 ]; then echo "ok   AF_REPRO_ANY_TORCH=1 runs it on the other torch: exit $got"; else echo "not ok AF_REPRO_ANY_TORCH=1: exit $got"; fail=1; fi
fi
here=$(pwd)
if grep -q "$here" "$repro"; then echo "not ok: repro.py names $here"; fail=1; else echo "ok   repro.py names no path of this checkout"; fi
exit $fail
