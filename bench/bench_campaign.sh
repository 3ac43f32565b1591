#!/usr/bin/env bash
# Campaign throughput per converter: programs/s of `aliasfuzz fuzz` with one job, median of RUNS
# runs of SECONDS each, with minimization on (the campaign as users run it) and off (judging
# alone). Writes its section of bench/RESULTS.md. Run on demand, not in CI:
#   bash bench/bench_campaign.sh [SECONDS] [RUNS] [CONVERTER...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-15}
runs=${2:-3}
shift $(( $# >= 2 ? 2 : $# )) || true
convs=("$@")
[ ${#convs[@]} -gt 0 ] || convs=(ref jit functionalize)
bin=build/aliasfuzz
[ -x "$bin" ] || { echo "bench_campaign: build first (cmake --build build)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

rows=""
for c in "${convs[@]}"; do
  for mode in reduce noreduce; do
    vals=()
    for r in $(seq 1 "$runs"); do
      out="$tmp/$c-$mode-$r"
      extra=""
      [ "$mode" = noreduce ] && extra="--no-reduce"
      "$bin" fuzz --converter "$c" --seed "$r" --time "$secs" --jobs 1 --out "$out" --quiet $extra >/dev/null 2>&1 || true
      pps=$(grep -o '"programs_per_second":[^,]*' "$out/report.json" | head -1 | cut -d: -f2 | tr -d ' \t')
      vals+=("$pps")
    done
    med=$(printf '%s\n' "${vals[@]}" | median)
    rows+="| $c | $mode | $(printf '%.0f' "$med") | $(printf '%.0f ' "${vals[@]}")|"$'\n'
    echo "$c $mode: median $med programs/s (runs: ${vals[*]})" >&2
  done
done

section=$(cat <<MD
<!-- bench_campaign:begin -->
## Campaign throughput (bench/bench_campaign.sh)

Command: \`bash bench/bench_campaign.sh $secs $runs ${convs[*]}\` ($(date -u +%Y-%m-%d), $(uname -sm), $(nproc) CPUs,
one job, default policy, seeds 1..$runs, $secs s per run; "reduce" minimizes every new finding as
campaigns do, "noreduce" measures judging alone: generate, run eagerly, convert, run, compare).

| converter | mode | median programs/s | runs |
| --- | --- | ---: | --- |
${rows}
<!-- bench_campaign:end -->
MD
)
. bench/section.sh
bench_write_section bench_campaign "$section"
echo "bench_campaign: wrote bench/RESULTS.md" >&2
