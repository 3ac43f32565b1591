#!/usr/bin/env bash
# Planted mistakes (issue 25): one campaign per mistake of tests/workers/worker_planted.py (the
# functorch worker with one deliberate mistake edited into its FX graph), with --baseline functorch
# (the unmodified converter), and what the class model makes of it: classes, new classes, whether
# any program of the planted mistake (judged new on the baseline) sits in a class marked as in the
# baseline, flaky findings, failing programs in no class. Every new class's smallest program is
# printed to OUTPREFIX<mistake>/new-classes.txt to be read by hand (is it the planted mistake?).
# "none" (no mistake) is the control: it must give no new class. Writes its section of
# bench/RESULTS.md. Run on demand, not in CI (one campaign after another, one job each):
#   bash bench/bench_planted.sh [SECONDS] [MISTAKE...]
# Env: AF_BENCH_BUILD (default build), AF_BENCH_DEADLINE (--deadline, default 10),
#      AF_BENCH_OUT (folder prefix, default /tmp/planted-; the folders are kept),
#      AF_BENCH_PARALLEL (campaigns at a time, default 1), AF_BENCH_KEEP=1 (a mistake whose folder
#      has a report.json already is not run again, only tabulated).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-150}
shift $(( $# >= 1 ? 1 : 0 )) || true
mistakes=("$@")
[ ${#mistakes[@]} -gt 0 ] ||
  mistakes=(none drop-copy slice-offset scatter-lost select-index diagonal-offset strided-offset stale-copy)
bin=${AF_BENCH_BUILD:-build}/aliasfuzz
deadline=${AF_BENCH_DEADLINE:-10}
prefix=${AF_BENCH_OUT:-/tmp/planted-}
[ -x "$bin" ] || { echo "bench_planted: build first ($bin is missing)" >&2; exit 2; }
py=$(pwd)/.venv/bin/python
[ -x "$py" ] || { echo "bench_planted: $py is missing (scripts/setup.sh makes the 2.13 stack's .venv)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench_planted: needs jq" >&2; exit 2; }
. bench/section.sh

lanes=${AF_BENCH_PARALLEL:-1}
campaign() { # campaign MISTAKE: its folder, its log, and its wall time in FOLDER.wall
  local m=$1 out=$prefix$1 start
  rm -rf "$out"
  start=$(date +%s)
  "$bin" fuzz --converter "external:$py $(pwd)/tests/workers/worker_planted.py --mistake $m" --baseline functorch \
    --seed 1 --time "$secs" --deadline "$deadline" --jobs 1 --out "$out" --quiet >"$out.log" 2>&1 || true
  echo $(( $(date +%s) - start )) >"$out.wall"
}
for m in "${mistakes[@]}"; do
  [ "${AF_BENCH_KEEP:-0}" = 1 ] && [ -f "$prefix$m/report.json" ] && continue
  while [ "$(jobs -rp | wc -l)" -ge "$lanes" ]; do wait -n || true; done
  campaign "$m" &
done
wait

rows=""
for m in "${mistakes[@]}"; do
  out=$prefix$m
  wall=$(cat "$out.wall" 2>/dev/null || echo "?")
  [ -f "$out/classes.json" ] && [ -f "$out/report.json" ] ||
    { echo "bench_planted: $m: no classes.json/report.json in $out (see $out.log)" >&2; exit 1; }
  c=$out/classes.json
  programs=$(jq '.programs' "$out/report.json")
  failing=$(jq '[.verdicts | to_entries[] | select(.key != "pass") | .value] | add // 0' "$out/report.json")
  classes=$(jq '[.classes[]?] | length' "$c")
  new=$(jq '[.classes[]? | select(.in_baseline != true)] | length' "$c")
  newprog=$(jq '[.classes[]? | select(.in_baseline != true) | .count] | add // 0' "$c")
  # a known class holding a quick key whose program the baseline passed: the planted mistake hidden
  hidden=$(jq '[.classes[]? | select(.in_baseline == true) | .quick_keys[]? | select(endswith("|baseline:new"))] | length' "$c")
  flaky=$(jq '[.flaky[]?] | length' "$c")
  uncl=$(jq '[.deferred // {} | to_entries[] | .value.count] | add // 0' "$c")
  # of those, the ones the baseline passed: the planted mistake's programs that no class holds
  unew=$(jq -r '[.deferred // {} | to_entries[] | select(.key | endswith("|baseline:new")) | .value.count] |
                "\(length) / \(add // 0)"' "$c")
  newdesc=$(jq -r '[.classes[]? | select(.in_baseline != true) |
                   "\(.verdict) `\(if .pattern == "" then (.error_key // "") else .pattern end)`\(if .graph_change then " graph change `\(.graph_change)`" else "" end) (\(.statements) st., \(.count) prog., \(.findings | length) find.)"] | join("; ")' "$c")
  {
    for id in $(jq -r '.classes[]? | select(.in_baseline != true) | .smallest' "$c"); do
      echo "== $id"; sed -n '/^## Program/,/^## Reproduce/p' "$out/findings/$id/README.md"
    done
  } >"$out/new-classes.txt"
  rows+="| $m | $programs | $failing | $classes | $new | $newprog | $hidden | $flaky | $uncl | $unew | ${wall} s | ${newdesc:-none} |"$'\n'
  echo "$m: $programs programs, $classes classes, $new new ($newdesc), $hidden planted quick keys in known classes" >&2
done

section=$(cat <<MD
<!-- bench_planted:begin -->
## Planted mistakes: one new class each? (bench/bench_planted.sh, issue 25)

Command: \`AF_BENCH_BUILD=${bin%/aliasfuzz} AF_BENCH_DEADLINE=$deadline AF_BENCH_PARALLEL=$lanes bash bench/bench_planted.sh $secs ${mistakes[*]}\`
($(date -u +%Y-%m-%d), $(uname -sm), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end).
Each row is \`$bin fuzz --converter 'external:.venv/bin/python tests/workers/worker_planted.py --mistake M'
--baseline functorch --seed 1 --time $secs --deadline $deadline --jobs 1 --out ${prefix}M\`: the functorch worker with
one mistake edited into its FX graph (the mistakes: the header of tests/workers/worker_planted.py), its baseline the
unmodified functorch worker; \`none\` is the control. One job per campaign, ${AF_BENCH_PARALLEL:-1} campaign(s) at a time. Columns:
failing = programs not judged pass; new = classes not marked in the baseline, new prog. the programs they count;
hidden = quick keys the baseline passed (the planted mistake's) in a class marked as in the baseline (must be 0);
unclassified = failing programs left deferred in no class, "of which new" those under quick keys the baseline passed
(the planted mistake's programs that no class holds: quick keys, programs); wall = the campaign's whole run (search, minimizing,
baseline). Each new class's smallest program is in ${prefix}M/new-classes.txt.

| mistake | programs | failing | classes | new | new prog. | hidden | flaky | unclassified | of which new (keys / prog.) | wall | new classes: verdict, pattern or error key |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |
${rows}
<!-- bench_planted:end -->
MD
)
bench_write_section bench_planted "$section"
echo "bench_planted: wrote its section of bench/RESULTS.md" >&2
