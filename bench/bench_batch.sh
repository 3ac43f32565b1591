#!/usr/bin/env bash
# Batched conversion (issue 32, docs/batching.md): programs per second per core of the slow worker
# converters with --batch 1 (off) and --batch K (on), side by side in one run: for each converter,
# the same campaign (seed 1, ITERATIONS programs, one job, --no-reduce: judging only, no
# minimization, --no-triggers) run REPEAT times each way, off and on alternating, and the medians.
# Each run's verdict counts must be the same both ways (batching changes no verdict): the table
# says whether they were. The 1-minute load average is read before each run and after the last
# (the table lists them in run order: off, on, off, on, ...). Writes its
# section of bench/RESULTS.md. Run on demand, not in CI:
#   bash bench/bench_batch.sh [ITERATIONS] [CONVERTER...]
# Env: AF_BENCH_BUILD (default build), AF_BENCH_BATCH (K, default 4), AF_BENCH_REPEAT (runs each
#      way, default 1), AF_BENCH_DEADLINE (--deadline, default 60), AF_BENCH_OUT (folder prefix,
#      default /tmp/batch-; kept).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-24}
shift $(( $# >= 1 ? 1 : 0 )) || true
convs=("$@")
[ ${#convs[@]} -gt 0 ] || convs=(aot_eager export-decomp tvm-relax onnx-dynamo openvino inductor)
bin=${AF_BENCH_BUILD:-build}/aliasfuzz
k=${AF_BENCH_BATCH:-4}
repeat=${AF_BENCH_REPEAT:-1}
deadline=${AF_BENCH_DEADLINE:-60}
prefix=${AF_BENCH_OUT:-/tmp/batch-}
[ -x "$bin" ] || { echo "bench_batch: build first ($bin is missing)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench_batch: needs jq" >&2; exit 2; }
. bench/section.sh

load() { cut -d' ' -f1 /proc/loadavg; }
median() { sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
run() { # run CONVERTER BATCH REP: prints the campaign's wall seconds (worker start included)
  local out=$prefix$1-b$2-r$3 start end
  rm -rf "$out"
  start=$(date +%s.%N)
  "$bin" fuzz --converter "$1" --seed 1 --iterations "$n" --jobs 1 --deadline "$deadline" --no-reduce --no-triggers \
    --batch "$2" --quiet --out "$out" >"$out.log" 2>&1 || true
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f\n", b - a}'
}
verdicts() { jq -cS '[.jobs[].verdicts] | add' "$prefix$1-b$2-r$3/state.json" 2>/dev/null || echo missing; }

rows=""
for c in "${convs[@]}"; do
  loads=() off=() on=() same=yes
  for r in $(seq 1 "$repeat"); do
    loads+=("$(load)")
    off+=("$(run "$c" 1 "$r")")
    loads+=("$(load)")
    on+=("$(run "$c" "$k" "$r")")
    [ "$(verdicts "$c" 1 "$r")" = "$(verdicts "$c" "$k" "$r")" ] || same="no: $(verdicts "$c" 1 "$r") vs $(verdicts "$c" "$k" "$r")"
  done
  loads+=("$(load)")
  moff=$(printf '%s\n' "${off[@]}" | median) mon=$(printf '%s\n' "${on[@]}" | median)
  row=$(awk -v c="$c" -v n="$n" -v a="$moff" -v b="$mon" -v ao="${off[*]}" -v bo="${on[*]}" -v s="$same" -v l="${loads[*]}" \
    'BEGIN {printf "| %s | %d | %.1f (%s) | %.2f | %.1f (%s) | %.2f | %.2f | %s | %s |", c, n, a, ao, n / a, b, bo, n / b, a / b, s, l}')
  echo "$row"
  rows+="$row"$'\n'
done

text="<!-- batch:begin -->
## Batched conversion (issue 32): programs/s per core, --batch 1 and --batch $k

\`AF_BENCH_REPEAT=$repeat bash bench/bench_batch.sh $n ${convs[*]}\` ($(date -u +%Y-%m-%d), $(nproc) cores shared with other work: the
last column is the 1-minute load average before each run, in run order (off, on, off, on, ...), and after the last). Each converter: the campaign \`fuzz --converter C
--seed 1 --iterations $n --jobs 1 --no-reduce --no-triggers\` with \`--batch 1\` and with \`--batch $k\`, alternating,
$repeat time(s) each; seconds are the campaign's wall time (worker start included; each run's seconds in
parentheses, the median first); programs/s = $n / median. One job: programs/s per core.

| converter | programs | --batch 1: s | programs/s | --batch $k: s | programs/s | speed-up | same verdicts | load |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows}<!-- batch:end -->"
bench_write_section batch "$text"
