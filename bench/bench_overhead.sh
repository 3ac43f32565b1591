#!/usr/bin/env bash
# aliasfuzz's own per-program overhead for each worker converter (issue 14): over every Nth seed
# case, `aliasfuzz run --json` times each program end to end (eager run, request encoding, the
# worker's decoding, conversion, run, answer, judging) and the worker says how long its convert
# and run took (the answer's "timing"); overhead = everything but the worker's convert and run.
# Only programs the worker answered with a timing count (ok answers). Run on demand, not in CI:
#   bash bench/bench_overhead.sh [EVERY] [CONVERTER...]
set -euo pipefail
cd "$(dirname "$0")/.."
every=${1:-4}
shift $(( $# >= 1 ? 1 : 0 )) || true
convs=("$@")
[ ${#convs[@]} -gt 0 ] || convs=(export export-decomp aot_eager inductor onnx-dynamo tvm-relax openvino onnx functorch)
bin=build/aliasfuzz
[ -x "$bin" ] || { echo "bench_overhead: build first (cmake --build build)" >&2; exit 2; }
mapfile -t seeds < <(ls corpus/seed/*.json | awk -v n="$every" 'NR % n == 1')
rows=""
for c in "${convs[@]}"; do
  out=$("$bin" run "${seeds[@]}" --converter "$c" --json 2>/dev/null || true)
  line=$(printf '%s\n' "$out" | python3 -c '
import json, sys, statistics
tot = conv = 0.0
per = []
for l in sys.stdin:
    try:
        r = json.loads(l)
    except ValueError:
        continue
    if "converter_seconds" not in r:
        continue
    tot += r["seconds"]; conv += r["converter_seconds"]
    per.append(1000 * (r["seconds"] - r["converter_seconds"]))
if not per:
    print("| %s | 0 | - | - | - | - |" % sys.argv[1])
else:
    print("| %s | %d | %.1f | %.1f | %.2f | %.1f%% |" % (sys.argv[1], len(per), 1000 * conv / len(per),
          statistics.median(per), max(per), 100 * (tot - conv) / tot))
' "$c")
  echo "$line" >&2
  rows+="$line"$'\n'
done
section=$(cat <<MD
<!-- bench_overhead:begin -->
## aliasfuzz's own overhead per program, per worker (bench/bench_overhead.sh)

Command: \`bash bench/bench_overhead.sh $every ${convs[*]}\` ($(date -u +%Y-%m-%d), $(uname -sm), $(nproc) CPUs,
$("$bin" --version)); every ${every}th seed case (${#seeds[@]} programs), those the worker answered ok.
"worker ms" is the worker's own convert + run (its answer's timing), "overhead ms" everything else
of the program as \`aliasfuzz run\` timed it: the eager run, encoding, the protocol, the worker's
decoding and encoding, judging. The share is overhead / total over all counted programs.

| converter | programs | mean worker ms | median overhead ms | max overhead ms | overhead share |
| --- | ---: | ---: | ---: | ---: | ---: |
${rows}
<!-- bench_overhead:end -->
MD
)
. bench/section.sh
bench_write_section bench_overhead "$section"
echo "bench_overhead: wrote bench/RESULTS.md" >&2
