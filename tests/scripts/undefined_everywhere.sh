#!/usr/bin/env bash
# Programs eager leaves undefined (issue 29, corpus/undefined/) are invalid-program on every
# converter given, `ref` included, through `aliasfuzz run` (a line per file naming the statement,
# exit 1) and through `aliasfuzz check` (each a regression: a conformance case must be defined).
# Usage: undefined_everywhere.sh ALIASFUZZ CONVERTER...
set -u
af=$1
shift
files=(corpus/undefined/*.json)
n=${#files[@]}
[ "$n" -ge 7 ] || { echo "not ok: $n programs in corpus/undefined"; exit 1; }
fail=0
for c in "$@"; do
  out=$("$af" run "${files[@]}" --converter "$c" 2>&1)
  rc=$?
  good=$(printf '%s\n' "$out" | grep -c " $c invalid-program  body\[")
  if [ "$rc" = 1 ] && [ "$good" = "$n" ]; then
    echo "ok   run --converter $c: $n of $n invalid-program, naming the statement"
  else
    echo "not ok run --converter $c: exit $rc, $good of $n invalid-program"
    printf '%s\n' "$out" | grep -v " invalid-program  body\[" | head -5
    fail=1
  fi
done
# check: every case a regression with verdict invalid-program (one converter is enough: eager decides)
out=$("$af" check corpus/undefined --converter "$1" --quiet 2>&1)
rc=$?
regs=$(printf '%s\n' "$out" | grep -c "^REGRESSION .*got invalid-program: body\[")
if [ "$rc" != 0 ] && [ "$regs" = "$n" ]; then
  echo "ok   check --converter $1: $n of $n regressions with invalid-program"
else
  echo "not ok check --converter $1: exit $rc, $regs of $n invalid-program regressions"
  printf '%s\n' "$out" | head -5
  fail=1
fi
exit $fail
