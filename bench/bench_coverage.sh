#!/usr/bin/env bash
# Coverage of torch 2.13's mutation and aliasing code by aliasfuzz's aot_eager programs (issue 33):
# the aot_eager worker run under coverage.py, line coverage of the six files where AOTAutograd and
# functionalization handle mutation and aliasing (bench/coverage/report.py FILES), counting only
# the lines that importing them does not already run. Phases, each in its own data folder, every
# process of a phase combined (parallel mode + combine):
#   import    python imports torch, TorchDynamo, AOTAutograd and the six modules (the baseline);
#   hello     one aot_eager worker started and stopped (its warm-up programs, nothing else);
#   seed      `aliasfuzz check corpus/seed --converter aot_eager`;
#   campaign  `aliasfuzz fuzz --converter aot_eager --policy bench/policy-train.json --time TIME
#             --jobs 1 --deadline 60 --seed 1` (training programs; minimization and repro.py
#             confirmation included: their processes are measured too);
# and seed+campaign, the figure the issue asks for (60%). With MODES (the second argument, or
# AF_COVERAGE_MODES: converters that are aot_eager called another way, e.g. "aot_eager-subclass
# aot_eager-dynamic"; docs/converters.md) the same TIME is also run split: the same command for
# aot_eager and for each mode, TIME/(1 + modes) seconds each (phases split-NAME), each converter
# one shard of the campaign's iteration space (`--shard K/N`: the K-th of the N converters runs
# iterations K, K+N, ...; without shards every mode judged the same first programs), and the table
# adds seed+split, aot_eager with its modes in the same campaign time, beside seed+campaign, aot_eager
# alone (both measured in the same run, so the split costs TIME more). coverage.py is installed with .venv's
# Python into a folder of its own (pip --target, not .venv; git-ignored), and reaches the workers
# through PYTHONPATH: bench/coverage/sitecustomize.py starts it in every Python process that has
# COVERAGE_PROCESS_START set, so the tool starts its workers as it always does. .venv's torch is
# checked before and after. Writes its section of bench/RESULTS.md. Run on demand, not in CI:
#   bash bench/bench_coverage.sh [TIME [MODES]]   (TIME: the campaign's seconds, default 300)
# Env: AF_BENCH_BUILD (default build), AF_BENCH_OUT (work folder, default a new /tmp/coverage-*;
#      kept), AF_COVERAGE_LIB (where coverage.py is installed, default bench/.coverage-lib).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
time_s=${1:-300}
modes=${2:-${AF_COVERAGE_MODES:-}}
bin=${AF_BENCH_BUILD:-build}/aliasfuzz
py=.venv/bin/python
lib=${AF_COVERAGE_LIB:-bench/.coverage-lib}
pin=7.17.3
torch_want=2.13.0+cpu
work=${AF_BENCH_OUT:-$(mktemp -d /tmp/coverage-XXXXXX)}
[ -x "$bin" ] || { echo "bench_coverage: build first ($bin is missing)" >&2; exit 2; }
[ -x "$py" ] || { echo "bench_coverage: .venv is missing (scripts/setup.sh)" >&2; exit 2; }
. bench/section.sh
case $lib in /*) ;; *) lib=$root/$lib ;; esac
mkdir -p "$work"

torch_version() { "$py" -c 'import importlib.metadata as m; print(m.version("torch"))'; }
check_torch() {
  local v
  v=$(torch_version)
  [ "$v" = "$torch_want" ] || { echo "bench_coverage: .venv's torch is $v, not $torch_want ($1)" >&2; exit 1; }
}
check_torch "before installing coverage.py"
if [ "$(PYTHONPATH=$lib "$py" -c 'import coverage; print(coverage.__version__)' 2>/dev/null)" != "$pin" ]; then
  rm -rf "$lib"
  "$py" -m pip install --quiet --no-deps --target "$lib" "coverage==$pin"
fi
check_torch "after installing coverage.py into $lib"

# rc PHASE: the coverage configuration of one phase (its own data folder)
rc() {
  rm -rf "${work:?}/$1"  # (a phase of an earlier run into the same folder would be counted with it)
  mkdir -p "$work/$1"
  {
    printf '[run]\nparallel = True\ndata_file = %s/%s/cov\ninclude =\n' "$work" "$1"
    "$py" -c 'import sys; sys.path.insert(0, "bench/coverage"); import report; print("\n".join("    */" + f for f in report.FILES))'
  } >"$work/$1.rc"
  echo "$work/$1.rc"
}
# measured PHASE CMD...: runs CMD with every Python process under coverage.py into PHASE's folder
measured() {
  local phase=$1
  shift
  PYTHONPATH=$root/bench/coverage:$lib${PYTHONPATH:+:$PYTHONPATH} COVERAGE_PROCESS_START=$(rc "$phase") "$@"
}
load() { cut -d' ' -f1 /proc/loadavg; }

modules=$("$py" -c 'import sys; sys.path.insert(0, "bench/coverage"); import report
print(", ".join(f[:-3].replace("/", ".") for f in report.FILES))')
echo "bench_coverage: import" >&2
measured import "$py" -c "import torch, torch._dynamo, torch._functorch.aot_autograd, $modules"
echo "bench_coverage: hello" >&2
measured hello "$py" -u harness/workers/worker_aot_eager.py </dev/null >/dev/null
echo "bench_coverage: seed corpus (load $(load))" >&2
measured seed "$bin" check corpus/seed --converter aot_eager --quiet >"$work/seed.log" 2>&1 || true
# campaign CONVERTER PHASE SECONDS [K/N]: the campaign of one phase, into $work/PHASE-out (with K/N:
# shard K of N of that campaign, `fuzz --shard K/N`: the programs of iterations K, K+N, K+2N, ...)
campaign() {
  rm -rf "$work/$2-out"
  measured "$2" "$bin" fuzz --converter "$1" --policy bench/policy-train.json --time "$3" --jobs 1 \
    --deadline 60 --seed 1 ${4:+--shard "$4"} --quiet --out "$work/$2-out" >"$work/$2.log" 2>&1 || true
}
programs_of() { jq "[.jobs[].programs] | add" "$work/$1-out/state.json" 2>/dev/null || echo "?"; }
echo "bench_coverage: $time_s-s campaign (load $(load))" >&2
campaign aot_eager campaign "$time_s"
programs=$(programs_of campaign)
phases="hello seed campaign seed+campaign"
split_note=""
if [ -n "$modes" ]; then
  set -- aot_eager $modes
  share=$((time_s / $#))
  split=""
  counts=""
  k=0
  for conv in "$@"; do
    k=$((k + 1))
    echo "bench_coverage: $share-s campaign of $conv, shard $k/$# of the split (load $(load))" >&2
    campaign "$conv" "split-$conv" "$share" "$k/$#"
    split="$split${split:+ }split-$conv"
    counts="$counts${counts:+, }$conv $share s, $(programs_of "split-$conv") programs"
  done
  phases="hello seed campaign $split seed+campaign seed+${split// /+}"
  split_note="
The split (\`$*\`, the same command each with \`--shard K/$#\`, K the converter's place in that list, so that
together they run the programs of one campaign's iterations, each once: $share s of search each: $counts): each
split-NAME column is that shard alone; the last column is the seed corpus plus all of them, beside seed+campaign
(aot_eager alone, $time_s s)."
fi
load_after=$(load)
check_torch "after the runs"

# shellcheck disable=SC2086
table=$(PYTHONPATH=$lib "$py" bench/coverage/report.py "$work" "$work/import.rc" $phases)
echo "$table"
bench_write_section coverage "<!-- coverage:begin -->
## Coverage of torch's mutation and aliasing code by aot_eager programs (bench/bench_coverage.sh, issue 33)

\`bash bench/bench_coverage.sh $time_s${modes:+ \"$modes\"}\` on $(date -u +%Y-%m-%d) (coverage.py $pin, torch $torch_want; load $load_after
after the campaign, $programs programs judged in it): lines of each file reached, among those that importing it
does not already run. Written by the script; the reading is below its end marker.$split_note

$table
<!-- coverage:end -->"
echo "bench_coverage: written to bench/RESULTS.md (work folder $work)" >&2
