#!/usr/bin/env bash
# Converter-aware policy (issue 34, fuzz/refusals.h): a campaign of a converter that refuses every
# data-dependent branch by design (tests/workers/refuses_if.py: the functorch worker answering
# "unsupported" to any `if bool(...)`, its hello declaring the refusal with the knob "if", not
# certain) must
#   - list the refusal under "What this converter refuses" (classes.json "limit", report.md's
#     section and report.json's "limits"), and not count it among the bug classes;
#   - once a job saw the refusal, spend under 10% of the programs after it on that refusal (the
#     default `if` chance puts an if in about 40% of programs);
#   - record the policy each job took from when (state.json "policy_epochs"), and each finding's
#     program must come back byte for byte from `aliasfuzz gen --seed S` with its recorded policy.
# Programs are not minimized (--no-reduce): what is measured is what the generator wrote.
# Usage: refusal_policy.sh ALIASFUZZ STACK_PYTHON [ITERATIONS]
set -u
af=$1 py=$2 n=${3:-120}
. "$(dirname "$0")/script_lib.sh"  # $tmp, $fail, jq, check
d=$tmp/c
AF_KNOWN_DIR=none "$af" fuzz --converter "external:$py $(pwd)/tests/workers/refuses_if.py" --seed 1 --iterations "$n" \
  --deadline 60 --jobs 2 --no-reduce --no-triggers --quiet --out "$d" >"$tmp/log" 2>&1
rc=$?
[ -f "$d/classes.json" ] || { echo "not ok: no classes.json (exit $rc)"; tail -5 "$tmp/log" | sed 's/^/    /'; exit 1; }
cls=$(jq -c '[.classes[] | select(.detail | test("refuses_if: a data-dependent branch"))]' "$d/classes.json")
check "one class holds the refusal" "$(jq length <<<"$cls")" 1
check "it is marked a limit" "$(jq -r '.[0].limit' <<<"$cls")" "data-dependent control flow (refuses_if.py)"
first=$(jq '.[0].first.iteration' <<<"$cls") count=$(jq '.[0].count' <<<"$cls")
programs=$(jq '.programs' "$d/report.json")
# after the first refused program (iteration first): the programs of later iterations, and of them
# the refused ones (every refused program is counted in the class: no minimization, one quick key)
after=$((programs - first - 1)) refused_after=$((count - 1))
echo "#   $programs programs, the refusal first at iteration $first, $refused_after of the $after programs after it refused"
check "under 10% of the programs after the refusal was seen are refused" \
  "$([ "$after" -gt 30 ] && [ $((refused_after * 10)) -lt "$after" ] && echo yes || echo "no ($refused_after of $after)")" yes
# (training programs in the default policy meet torch.func's own declared limit too, a write into a
# captured tensor under vjp: the limits are counted as classes.json marks them)
nlimits=$(jq '[.classes[] | select(.limit != null)] | length' "$d/classes.json")
check "report.json counts it under limits, with any other limit" "$(jq '.limits.classes' "$d/report.json")" "$nlimits"
check "report.md lists it under What this converter refuses" \
  "$(grep -c "^## What this converter refuses ($nlimits class(es)" "$d/report.md") $(sed -n '/^## What this converter refuses/,$p' "$d/report.md" | grep -q 'data-dependent control flow (refuses_if.py)' && echo named)" "1 named"
nbugs=$(jq '[.classes[] | select(.limit == null and .user_path.status != "artifact")] | length' "$d/classes.json")
check "the headline's bug classes leave it out" \
  "$(grep -c "^- \*\*$nbugs bug class(es)\*\*" "$d/report.md")" 1
# the epochs: each job down-weights the if from the program after its first refused one
check "state.json: an epoch per job, the if down-weighted" \
  "$(jq -c '[.policy_epochs[] | select(.knob == "if") | .job] | sort' "$d/state.json")" "[0,1]"
check "state.json: the epochs' policy" \
  "$(jq -c '[.policy_epochs[].policy.chances.if] | unique' "$d/state.json")" "[0.003]"
# replay: every finding's program from `gen --seed S` with the policy its meta records (the
# policy of its job at its iteration)
bad=0
for f in "$d"/findings/*/; do
  seed=$(jq -r '.meta.seed' "$f/original.json")
  jq -c '.meta.policy' "$f/original.json" >"$tmp/pol.json"
  "$af" gen --seed "$seed" --policy "$tmp/pol.json" >"$tmp/gen.json" 2>/dev/null || bad=$((bad + 1))
  [ "$(jq -c 'del(.meta)' "$tmp/gen.json")" = "$(jq -c 'del(.meta)' "$f/original.json")" ] || { bad=$((bad + 1)); echo "#   differs: $f"; }
done
check "every finding's program comes back from gen --seed with its recorded policy" "$bad" 0
exit $fail
