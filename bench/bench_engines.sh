#!/usr/bin/env bash
# bench/bench_engines.sh - libFuzzer vs AFL++ on aliasfuzz's fuzz targets, with and without the
# alias-pattern features (AF_FUZZ_FEATURES=0), through fuzz/campaign.sh. Writes its section of
# bench/RESULTS.md (between the bench_engines markers). Run on demand, not in CI:
#
#   bench/bench_engines.sh [--time SECONDS] [--reps N] [--converters "naive functionalize"]
#                          [--max-reduce N] [--build-lf DIR] [--build-afl DIR] [--work DIR] [--no-write]
#                          [--no-ttff] [--no-runs]
#
# 1. time to first finding of the shape bug: campaigns against naive that count only
#    shape-mismatch and stop at the first one (--stop-on-first), N repetitions per cell; the
#    first input of each is minimized with `aliasfuzz reduce`;
# 2. fixed-time campaigns (--time, default 180 s, one core) against each converter: executions
#    per second, alias patterns executed (AF_FUZZ_PATTERNS), patterns in the final corpus
#    (fuzz_seeds --count), finding inputs, finding classes (verdict + message, before
#    minimization), distinct findings after minimizing --max-reduce inputs (default 20, one per
#    class first) and the time to the first finding.
# The section is made from every run folder in --work (default /tmp/af-bench-engines), so parts
# can be rerun (--no-ttff, --no-runs, --converters X) without losing the others.
set -uo pipefail
cd "$(dirname "$0")/.."
here=$(pwd)
budget=180 reps=3 convs="naive functionalize" max_reduce=20 do_ttff=1 do_runs=1 blf=$here/build-fuzz bafl=$here/build-afl work=/tmp/af-bench-engines write=1
while [ $# -gt 0 ]; do
  case "$1" in
    --time) budget=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --converters) convs=$2; shift 2 ;;
    --max-reduce) max_reduce=$2; shift 2 ;;
    --build-lf) blf=$2; shift 2 ;;
    --build-afl) bafl=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --no-write) write=0; shift ;;
    --no-ttff) do_ttff=0; shift ;;
    --no-runs) do_runs=0; shift ;;
    *) sed -n '2,20p' "$0" >&2; exit 2 ;;
  esac
done
mkdir -p "$work"
field() { sed -n "s/.*\"$2\": \\([^,}]*\\).*/\\1/p" "$1" | tr -d '"'; }
# alias patterns of the final corpus (replayed through ref by fuzz_seeds), cached in the run folder
corpus_patterns() {
  local corpus=$1/corpus
  [ "$2" = afl ] && corpus=$1/afl/main/queue
  [ -s "$1/corpus_patterns" ] || "$(build_of "$2")/fuzz_seeds" --converter ref --count "$corpus" 2>/dev/null |
    sed -n 's/.*patterns \([0-9]*\).*/\1/p' >"$1/corpus_patterns"
  cat "$1/corpus_patterns"
}
build_of() { [ "$1" = libfuzzer ] && echo "$blf" || echo "$bafl"; }

# ---- 1. time to first finding (shape bug on naive)
for engine in libfuzzer afl; do
  for feat in on off; do
    for ((r = 1; r <= reps && do_ttff; r++)); do
      o=$work/ttff-$engine-$feat-$r
      rm -rf "$o"
      extra=(); [ "$feat" = off ] && extra=(--no-features)
      fuzz/campaign.sh --engine "$engine" --converter naive --build "$(build_of "$engine")" --time 300 \
        --verdicts shape-mismatch --stop-on-first --max-reduce 1 --out "$o" "${extra[@]}" >/dev/null 2>&1
      echo "ttff $engine features=$feat rep $r: $(cat "$o/summary.json" 2>/dev/null)" >&2
    done
  done
done

# ---- 2. fixed-time campaigns
for conv in $convs; do
  for engine in libfuzzer afl; do
    for feat in on off; do
      [ "$do_runs" = 1 ] || continue
      o=$work/run-$conv-$engine-$feat
      rm -rf "$o"
      extra=(); [ "$feat" = off ] && extra=(--no-features)
      fuzz/campaign.sh --engine "$engine" --converter "$conv" --build "$(build_of "$engine")" --time "$budget" \
        --max-reduce "$max_reduce" --out "$o" "${extra[@]}" >/dev/null 2>&1
      corpus_patterns "$o" "$engine"
      echo "run $conv $engine features=$feat: $(cat "$o/summary.json" 2>/dev/null)" >&2
    done
  done
done

# ---- results from the run folders
declare -A ttff res
runs_convs=""
for engine in libfuzzer afl; do
  for feat in on off; do
    vals=""
    for o in "$work"/ttff-$engine-$feat-*; do
      [ -f "$o/summary.json" ] || continue
      t=$(field "$o/summary.json" time_to_first_finding)
      vals="$vals ${t:-null}/$(field "$o/summary.json" findings)"
    done
    ttff[$engine-$feat]=$vals
  done
done
for o in "$work"/run-*; do
  s=$o/summary.json
  [ -f "$s" ] || continue
  conv=$(field "$s" converter) engine=$(field "$s" engine)
  feat=$([ "$(field "$s" features)" = true ] && echo on || echo off)
  case " $runs_convs " in *" $conv "*) ;; *) runs_convs="$runs_convs $conv" ;; esac
  res[$conv-$engine-$feat]="$(field "$s" execs_per_sec)|$(field "$s" patterns)|$(corpus_patterns "$o" "$engine")|$(field "$s" corpus)|$(field "$s" finding_inputs)|$(field "$s" finding_classes)|$(field "$s" findings)|$(field "$s" time_to_first_finding)|$(field "$s" seconds)"
done

# ---- the section
med() { # median of the numeric first fields of "t/f" words; "none" entries count as above all
  echo "$@" | tr ' ' '\n' | sed '/^$/d' | cut -d/ -f1 | sed 's/^null$/999999/' | sort -n |
    awk '{a[NR]=$1} END {m=a[int((NR+1)/2)]; if (m==999999) print "none"; else print m " s"}'
}
host="$(date +%Y-%m-%d), $(uname -s) $(uname -m), $(nproc) online CPUs (shared with other work), AFL++ $(afl-fuzz -h 2>&1 | grep -o '++[0-9.a-z]*' | head -1 | tr -d +), clang $(clang-14 --version | grep -o 'version [0-9.]*' | cut -d' ' -f2)"
section=$(
  echo "<!-- bench_engines:begin -->"
  echo "## Fuzz engines: libFuzzer vs AFL++, with and without alias-pattern features (bench/bench_engines.sh)"
  echo
  echo "Command: \`bench/bench_engines.sh --time SECONDS --reps $reps --converters \"...\" --max-reduce $max_reduce\` (the seconds of each table below; $host). Targets built with"
  echo "\`-DAF_FUZZ=ON\` (ASan + UBSan on our code) by clang-14 (libFuzzer) and afl-clang-fast (AFL++, persistent"
  echo "mode through libAFLDriver); one core per campaign; features off = \`AF_FUZZ_FEATURES=0\` (the engines then see"
  echo "only the edges of our own code: LibTorch carries no instrumentation)."
  echo
  echo "**Time to first finding of the shape bug** (naive, only shape-mismatch counted, from the start of the"
  echo "engine incl. LibTorch start-up; each run: seconds/finding folders after \`aliasfuzz reduce\`):"
  echo
  echo "| engine | features | runs (s / reproducer folders) | median |"
  echo "| --- | --- | --- | --- |"
  for engine in libfuzzer afl; do
    for feat in on off; do
      echo "| $engine | $feat | $(echo ${ttff[$engine-$feat]} | sed 's/null/none/g; s/ /, /g') | $(med ${ttff[$engine-$feat]}) |"
    done
  done
  echo
  for conv in $runs_convs; do
    echo "**Campaigns against \`$conv\`** (seconds of fuzzing per run in the table; libFuzzer: \`-fork=1\`; AFL++: one \`-M\` instance; findings"
    echo "in record mode for both; classes: verdict + message before minimization; distinct findings: signatures"
    echo "after minimizing $max_reduce inputs, one per class first):"
    echo
    echo "| engine | features | seconds | exec/s | alias patterns executed | patterns in final corpus | corpus | finding inputs | finding classes | distinct findings | first finding |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    for engine in libfuzzer afl; do
      for feat in on off; do
        IFS='|' read -r eps pat cpat corp fin fcl fnd first secs <<<"${res[$conv-$engine-$feat]:-}"
        echo "| $engine | $feat | $secs | $eps | $pat | $cpat | $corp | $fin | $fcl | $fnd | ${first/null/none} s |"
      done
    done
    echo
  done
  echo "Folders of every run: \`$work\` (REPORT.md, summary.json, findings/ per campaign)."
  echo "<!-- bench_engines:end -->"
)
echo "$section"
if [ "$write" = 1 ]; then
  . bench/section.sh
  bench_write_section bench_engines "$section"
fi
