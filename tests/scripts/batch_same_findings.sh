#!/usr/bin/env bash
# Batched conversion (issue 32, docs/batching.md): a campaign of a worker that is wrong on one
# pattern (tests/workers/worker_planted.py --mistake slice-offset: a wrong offset in slice_scatter)
# with --batch 4 finds exactly what the same campaign finds with --batch 1: the same findings
# (signature, iteration, seed and program as found), the same verdict counts; and it converted
# combined programs (the worker logs how many programs each conversion held: AF_PLANTED_LOG),
# fewer conversions than programs.
# With HANG_OP the worker also never answers a program holding op HANG_OP (--hang-on; a short
# --deadline, the worker's own request deadline far beyond it, so the campaign kills the job): the
# converter-timeout must be charged to the program that hangs, as --batch 1 charges it, not to the
# first program of the batch it was combined in.
# Usage: batch_same_findings.sh ALIASFUZZ STACK_PYTHON [ITERATIONS [HANG_OP]]
set -u
af=$1 py=$2 n=${3:-16} hang=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v jq >/dev/null || { echo "not ok: needs jq"; exit 1; }
fail=0
check() { # check WHAT GOT WANT
  if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else echo "not ok $1: $2, expected $3"; fail=1; fi
}
worker="$py $(pwd)/tests/workers/worker_planted.py --mistake slice-offset" deadline=60
[ -z "$hang" ] || { worker+=" --hang-on $hang" deadline=30; export AF_WORKER_TIMEOUT=600; }
campaign() { # campaign K
  AF_PLANTED_LOG="$tmp/log$1" "$af" fuzz --converter "external:$worker" \
    --seed 1 --iterations "$n" --deadline "$deadline" --jobs 1 --no-triggers --no-reduce --policy tests/scripts/planted-policy.json \
    --batch "$1" --quiet --out "$tmp/b$1" >"$tmp/b$1.out" 2>&1
  [ -f "$tmp/b$1/state.json" ] || { echo "not ok: --batch $1: no state.json"; tail -5 "$tmp/b$1.out" | sed 's/^/    /'; exit 1; }
}
# each finding: signature, verdict, iteration, seed, count, and its program as found
findings() {
  for f in "$tmp/b$1"/findings/*/finding.json; do
    jq -c '{signature, verdict, detail, first, count}' "$f"
    jq -cS 'del(.meta)' "$(dirname "$f")/original.json"
  done
}
campaign 1
campaign 4
check "--batch 4 is recorded in the campaign's options" "$(jq .options.batch "$tmp/b4/state.json")" 4
check "the planted mistake is found (a value-mismatch finding)" \
  "$(ls "$tmp/b1/findings" | grep -c '^value-mismatch-')" 1
[ -z "$hang" ] || check "the planted hang is found (one converter-timeout finding)" \
  "$(ls "$tmp/b1/findings" | grep -c '^converter-timeout-')" 1
check "--batch 4: the same findings as --batch 1 (signature, verdict, detail, iteration, seed, count, program)" \
  "$(findings 4 | md5sum | cut -c1-32)" "$(findings 1 | md5sum | cut -c1-32)"
check "--batch 4: the same verdict counts as --batch 1" \
  "$(jq -c '[.jobs[].verdicts]' "$tmp/b4/state.json")" "$(jq -c '[.jobs[].verdicts]' "$tmp/b1/state.json")"
check "--batch 1: one program per conversion" "$(sort -u "$tmp/log1" | tr '\n' ' ')" "1 "
check "--batch 4: conversions of 4 programs combined" "$(grep -c '^4$' "$tmp/log4" | awk '{print ($1 > 0)}')" 1
[ -n "$hang" ] || check "--batch 4: fewer conversions than --batch 1" \
  "$(( $(wc -l <"$tmp/log4") < $(wc -l <"$tmp/log1") ))" 1 # (a hang splits its batch and judges it again alone)
[ $fail = 0 ] || { echo "--- findings, --batch 1:"; findings 1; echo "--- --batch 4:"; findings 4; echo "--- conversions:"; sort "$tmp/log4" | uniq -c; }
exit $fail
