#!/usr/bin/env bash
# repro.py of a converter-crash finding (issue 14): the conversion runs in a child process, so the
# crash is reported (exit 1, "the converter crashed (signal N)") instead of killing repro.py. The
# crash is real: OpenVINO 2026.4.1's worker segfaults on log1p_ of a 0-dim float64 input (seed
# i14-cf-001). Usage: repro_crash.sh ALIASFUZZ STACK_PYTHON
set -u
af=$1 py=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$af" reduce corpus/seed/i14-cf-001-inplace-write-into-a-0-dim-float64-input.json --converter openvino --isolate \
  --out "$tmp/out" >"$tmp/reduce.log" 2>&1 || { echo "not ok: reduce failed"; tail -5 "$tmp/reduce.log"; exit 1; }
repro=$(find "$tmp/out" -name repro.py | head -1)
[ -n "$repro" ] || { echo "not ok: no repro.py"; exit 1; }
grep -q "^# aliasfuzz .*Verdict when found: converter-crash" "$repro" || { echo "not ok: not a converter-crash finding"; head -3 "$repro"; exit 1; }
"$py" "$repro" >"$tmp/log" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "RESULT: the converter crashed (signal" "$tmp/log"; then
  echo "ok   repro.py of the crash exits 1 and names the signal"
else
  echo "not ok repro.py of the crash: exit $rc"; tail -5 "$tmp/log"; exit 1
fi
# the same guard ends a hang (converter-timeout): a deadline shorter than the child's start
AF_REPRO_DEADLINE=0.5 "$py" "$repro" >"$tmp/log" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "RESULT: the conversion ran past 0.5 s" "$tmp/log"; then
  echo "ok   a child past AF_REPRO_DEADLINE is stopped and reads as reproduced"
else
  echo "not ok AF_REPRO_DEADLINE: exit $rc"; tail -5 "$tmp/log"; exit 1
fi
