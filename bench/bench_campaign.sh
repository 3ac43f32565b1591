#!/usr/bin/env bash
# Campaign throughput per converter: programs/s of `aliasfuzz fuzz` with one job, median of RUNS
# runs of SECONDS each, with minimization on (the campaign as users run it) and off (judging
# alone), on every PyTorch stack that is built (build/: the default, 2.13; build-113/: Debian's
# 1.13; AF_BENCH_BUILDS="build build-113" chooses). Writes its section of bench/RESULTS.md. Run on
# demand, not in CI:
#   bash bench/bench_campaign.sh [SECONDS] [RUNS] [CONVERTER...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-15}
runs=${2:-3}
shift $(( $# >= 2 ? 2 : $# )) || true
convs=("$@")
[ ${#convs[@]} -gt 0 ] || convs=(ref jit functionalize)
builds=()
for d in ${AF_BENCH_BUILDS:-build build-113}; do [ -x "$d/aliasfuzz" ] && builds+=("$d"); done
[ ${#builds[@]} -gt 0 ] || { echo "bench_campaign: build first (cmake --build build)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

rows=""
stacks=""
for d in "${builds[@]}"; do
bin=$d/aliasfuzz
stack=$("$bin" --version | sed -n 's/.*stack \(torch-[0-9.]*\).*/\1/p')
stacks+="$stack ($d/, $("$bin" --version | sed -n 's/.*(LibTorch \([^,]*\),.*/LibTorch \1/p')); "
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
    rows+="| $stack | $c | $mode | $(printf '%.1f' "$med") | $(printf '%.1f ' "${vals[@]}")|"$'\n'
    echo "$stack $c $mode: median $med programs/s (runs: ${vals[*]})" >&2
  done
done
done

section=$(cat <<MD
<!-- bench_campaign:begin -->
## Campaign throughput (bench/bench_campaign.sh)

Command: \`bash bench/bench_campaign.sh $secs $runs ${convs[*]}\` ($(date -u +%Y-%m-%d), $(uname -sm), $(nproc) CPUs,
one job, default policy, seeds 1..$runs, $secs s per run; "reduce" minimizes new findings as
campaigns do, "noreduce" measures judging alone: generate, run eagerly, convert, run, compare).
Stacks: ${stacks}all runs of one stack after another, in one invocation.

| stack | converter | mode | median programs/s | runs |
| --- | --- | --- | ---: | --- |
${rows}
<!-- bench_campaign:end -->
MD
)
. bench/section.sh
bench_write_section bench_campaign "$section"
echo "bench_campaign: wrote bench/RESULTS.md" >&2
