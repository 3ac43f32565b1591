#!/usr/bin/env bash
# Planted mistakes (issue 25): a campaign of the functorch worker with one deliberate mistake in its
# graph (tests/workers/worker_planted.py --mistake drop-copy: the copy_ back into a mutated input
# removed), with --baseline functorch, reports exactly one new class, an input's lost write, exits 1,
# and hides no program of the mistake in a class marked as in the baseline; slice-offset (a wrong
# offset in slice_scatter, reached by setitems and slice and narrow writes) is one new class keyed on
# its graph change; the same campaign of the worker without a mistake (--mistake none) reports no new
# class and exits 0.
# The programs: short straight-line ones that write their inputs (tests/scripts/planted-policy.json).
# Usage: planted_one_new_class.sh ALIASFUZZ STACK_PYTHON [ITERATIONS]
set -u
af=$1 py=$2 n=${3:-4}
. "$(dirname "$0")/script_lib.sh"  # $tmp, $fail, jq, check
campaign() { # campaign MISTAKE: runs it, sets rc
  "$af" fuzz --converter "external:$py $(pwd)/tests/workers/worker_planted.py --mistake $1" --baseline functorch \
    --seed 1 --iterations "$n" --deadline 60 --jobs 1 --no-triggers --policy tests/scripts/planted-policy.json \
    --out "$tmp/$1" >"$tmp/$1.log" 2>&1
  rc=$?
  [ -f "$tmp/$1/classes.json" ] || { echo "not ok: $1: no classes.json"; tail -5 "$tmp/$1.log" | sed 's/^/    /'; exit 1; }
}
new_classes() { jq -c '[.classes[]? | select(.in_baseline != true)]' "$tmp/$1/classes.json"; }

campaign drop-copy
new=$(new_classes drop-copy)
check "drop-copy: new classes" "$(jq length <<<"$new")" 1
check "drop-copy: the new class is an input's lost write" \
  "$(jq -r '.[0] | "\(.verdict) \(.pattern | test("@in( |$)"))"' <<<"$new")" "input-mutation-lost true"
check "drop-copy: the new class's smallest program has one statement" "$(jq -r '.[0].statements' <<<"$new")" 1
check "drop-copy: programs the baseline passes in a class marked as in the baseline" \
  "$(jq '[.classes[]? | select(.in_baseline == true) | .quick_keys[]? | select(endswith("|baseline:new"))] | length' \
     "$tmp/drop-copy/classes.json")" 0
check "drop-copy: exit status (a new class)" "$rc" 1

# a wrong offset in the one lowering that setitems, narrow and slice writes all reach (slice_scatter):
# one new class, keyed on that change of the graph against the baseline's, whatever op reached it
campaign slice-offset
new=$(new_classes slice-offset)
check "slice-offset: new classes" "$(jq length <<<"$new")" 1
check "slice-offset: the new class keys on the graph change" "$(jq -r '.[0].graph_change' <<<"$new")" view_scatter
check "slice-offset: programs the baseline passes left in no class" \
  "$(jq '[.deferred // {} | to_entries[] | select(.key | endswith("|baseline:new")) | select(.value.change != "view_scatter")] | length' \
     "$tmp/slice-offset/classes.json")" 0

campaign none
check "none: new classes" "$(new_classes none | jq length)" 0
check "none: exit status" "$rc" 0
[ $fail = 0 ] || { echo "--- drop-copy classes:"; jq -c '.classes[]? | {verdict, pattern, in_baseline, quick_keys}' "$tmp"/*/classes.json; }
exit $fail
