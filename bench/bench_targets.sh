#!/usr/bin/env bash
# bench/bench_targets.sh - every fuzz target on both engines for a fixed number of executions
# (issue 6: "both engines build and run each target for 10,000 executions"), and a fixed-time
# campaign against ref (which must find nothing), through fuzz/campaign.sh. Writes its section
# of bench/RESULTS.md (between the bench_targets markers) from the run folders. On demand, not
# in CI:
#
#   bench/bench_targets.sh [--execs N] [--converters "naive ref jit functionalize functorch"]
#                          [--ref-time SECONDS] [--build-lf DIR] [--build-afl DIR] [--work DIR]
#                          [--no-runs] [--no-write] [--note TEXT]
#
# A libFuzzer run that a converter crash stops early can be rerun by hand into
# WORK/x10k-<converter>-libfuzzer-fork (fuzz/campaign.sh without --execs: -fork=1 ignores
# crashes, a time budget) or WORK/x10k-<converter>-libfuzzer-2 (another random seed); the
# section lists them under the run they complete.
# Run folders: WORK/x10k-<converter>-<engine> (--execs, default 10000, with --time 1500 as a
# bound) and WORK/ref-afl-<SECONDS> (AFL++ against ref, --ref-time, default 600). --no-runs
# rebuilds the section from the folders already there.
set -uo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
execs=10000 convs="naive ref jit functionalize functorch" ref_time=600 blf=$here/build-fuzz bafl=$here/build-afl
work=/tmp/af-bench-targets runs=1 write=1 note=""
while [ $# -gt 0 ]; do
  case "$1" in
    --execs) execs=$2; shift 2 ;;
    --converters) convs=$2; shift 2 ;;
    --ref-time) ref_time=$2; shift 2 ;;
    --build-lf) blf=$2; shift 2 ;;
    --build-afl) bafl=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --no-runs) runs=0; shift ;;
    --no-write) write=0; shift ;;
    --note) note=$2; shift 2 ;;
    *) sed -n '2,15p' "$0" >&2; exit 2 ;;
  esac
done
mkdir -p "$work"
field() { sed -n "s/.*\"$2\": \\([^,}]*\\).*/\\1/p" "$1" | tr -d '"'; }
build_of() { [ "$1" = libfuzzer ] && echo "$blf" || echo "$bafl"; }

if [ "$runs" = 1 ]; then
  o=$work/ref-afl-$ref_time
  rm -rf "$o"
  fuzz/campaign.sh --engine afl --converter ref --build "$bafl" --time "$ref_time" --max-reduce 50 --out "$o" >/dev/null 2>&1
  for conv in $convs; do
    for engine in libfuzzer afl; do
      o=$work/x10k-$conv-$engine
      rm -rf "$o"
      fuzz/campaign.sh --engine "$engine" --converter "$conv" --build "$(build_of "$engine")" --execs "$execs" --time 1500 \
        --max-reduce 5 --out "$o" >/dev/null 2>&1
      echo "$conv $engine: $(cat "$o/summary.json" 2>/dev/null)" >&2
    done
  done
fi

row() { # folder engine converter
  local s=$1/summary.json
  [ -f "$s" ] || { echo "| $3 | $2 | (no run) | | | | |"; return; }
  local stop="executions reached"
  [ "$(field "$s" execs)" -lt "$execs" ] && stop="stopped early: $(grep -aom1 'SUMMARY: [A-Za-z]*Sanitizer: [A-Za-z-]*' "$1/engine.log" 2>/dev/null || echo see engine.log)"
  echo "| $3 | $2 | $(field "$s" execs) | $(field "$s" seconds) | $(field "$s" execs_per_sec) | $(field "$s" finding_inputs) / $(field "$s" findings) | $stop |"
}
host="$(date +%Y-%m-%d), $(uname -s) $(uname -m), $(nproc) online CPUs (shared with other work), AFL++ $(afl-fuzz -h 2>&1 | grep -o '++[0-9.a-z]*' | head -1 | tr -d +), clang $(clang-14 --version | grep -o 'version [0-9.]*' | cut -d' ' -f2)"
section=$(
  echo "<!-- bench_targets:begin -->"
  echo "## Fuzz targets: $execs executions per target and engine, and a campaign against ref (bench/bench_targets.sh)"
  echo
  echo "Command: \`bench/bench_targets.sh --execs $execs --converters \"$convs\" --ref-time $ref_time\` ($host). One core per run;"
  echo "\`fuzz/campaign.sh --execs\` (libFuzzer \`-runs\` in one process, AFL++ \`-E\`), findings in record mode; a libFuzzer process"
  echo "still stops at a real crash of the converter (a sanitizer report), which is then a finding. \`functorch\` runs through"
  echo "\`fuzz_external\` (a Python worker per process)."
  [ -z "$note" ] || { echo; echo "$note"; }
  echo
  echo "| converter | engine | executions | seconds | exec/s | finding inputs / distinct findings | end |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  for conv in $convs; do
    for engine in libfuzzer afl; do
      row "$work/x10k-$conv-$engine" "$engine" "$conv"
      # reruns of a run a converter crash stopped: -fork (crashes ignored, a time budget) or -N
      for o in "$work/x10k-$conv-$engine"-*; do
        [ -f "$o/summary.json" ] || continue
        case "$o" in
          *-fork) row "$o" "$engine -fork=1" "$conv" | sed 's/stopped early: [^|]*|/a time budget, crashes ignored |/' ;;
          *) row "$o" "$engine (rerun)" "$conv" ;;
        esac
      done
    done
  done
  echo
  s=$work/ref-afl-$ref_time/summary.json
  if [ -f "$s" ]; then
    echo "AFL++ against \`ref\` for $ref_time s: $(field "$s" execs) executions ($(field "$s" execs_per_sec)/s), $(field "$s" patterns) alias"
    echo "patterns executed, corpus $(field "$s" corpus), **$(field "$s" finding_inputs) finding inputs** (ref must pass everything)."
  fi
  echo "<!-- bench_targets:end -->"
)
echo "$section"
if [ "$write" = 1 ]; then
  . bench/section.sh
  bench_write_section bench_targets "$section"
fi
