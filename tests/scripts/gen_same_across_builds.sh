#!/usr/bin/env bash
# The same seed gives the same program whichever compiler built the tool: REF's (build/, gcc) and
# OTHER's (the clang libFuzzer build) `gen` output over 500 seeds and the bytes of 40 ref corpus
# inputs. Two draws in one unsequenced expression once made them differ (ops_shape.c's layout
# sampler). Exit 77 (skipped) when REF is not built. Usage: gen_same_across_builds.sh REF OTHER
set -u
ref=$1 other=$2
[ -x "$ref" ] || { echo "skipped: $ref is not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for b in ref other; do
  bin=${!b}
  { "$bin" gen --seed 1 --count 500 &&
    for f in $(ls corpus/fuzz/ref | head -40); do "$bin" gen --bytes "corpus/fuzz/ref/$f" || exit 1; done; } >"$tmp/$b" ||
    { echo "not ok: $bin gen failed"; exit 1; }
done
[ "$(grep -c '"format": "aliasfuzz-program/1"' "$tmp/ref")" -ge 540 ] || { echo "not ok: $ref made fewer than 540 programs"; exit 1; }
if cmp -s "$tmp/ref" "$tmp/other"; then echo "ok   the two builds generate the same 540 programs"; exit 0; fi
echo "not ok: the builds differ"; diff "$tmp/ref" "$tmp/other" | head -20; exit 1
