#!/usr/bin/env bash
# fuzz/campaign.sh - a nightly campaign of a coverage-guided engine (libFuzzer or AFL++) against one
# converter, on N cores, for a time budget; it stops by itself. At the end every finding input is
# decoded to a program (`aliasfuzz gen --bytes`), checked (`aliasfuzz run`), minimized into a
# reproducer folder (`aliasfuzz reduce`), deduplicated by signature into OUT/findings/<id>/, and
# summed up in OUT/REPORT.md and OUT/summary.json.
#
# usage: fuzz/campaign.sh --engine libfuzzer|afl --converter NAME [options]
#   --jobs N            cores: libFuzzer -fork=N, AFL++ one -M and N-1 -S instances (default 1)
#   --time SECONDS      fuzzing budget (default 600); reduction comes on top
#   --execs N           stop after N executions instead (libFuzzer -runs=N in one process,
#                       AFL++ -E N; --time still bounds it)
#   --out DIR           campaign folder, new or empty (default fuzz-out/<engine>-<converter>-<date>)
#   --build DIR         build with the engine's fuzz_* binaries, fuzz_seeds and aliasfuzz
#                       (default build-fuzz for libfuzzer, build-afl for afl; see README)
#   --aliasfuzz PATH    aliasfuzz used to decode and reduce (default BUILD/aliasfuzz)
#   --no-features       engines get no alias-pattern feedback (AF_FUZZ_FEATURES=0)
#   --verdicts LIST     only these verdicts are findings (AF_FUZZ_VERDICTS), e.g. shape-mismatch
#   --max-reduce N      minimize at most N finding inputs (default 200): the smallest of each
#                       finding class first (verdict + message), then the next of each, ...
#   --stop-on-first     end the fuzzing at the first finding (time-to-first-finding benchmarks)
#   --no-record         abort on every finding, as engines expect of crashes, instead of record
#                       mode (AF_FUZZ_RECORD: findings written to OUT/recorded, fuzzing goes on).
#                       Record mode is the default: a libFuzzer job stops at its first crash and
#                       an aborting AFL++ child costs a fork and an ASan report, so on converters
#                       with many findings (naive: ~1 input in 4) aborting cuts exec/s by 10-20x
#   --timeout SECONDS   per input (default 20)
# NAME is jit, functionalize, ref or naive (their own targets) or any other converter, incl.
# external:COMMAND (fuzz_external with AF_CONVERTER=NAME).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

engine="" conv="" jobs=1 budget=600 out="" build="" af="" features=1 verdicts="" max_reduce=200
stop_first=0 record=1 per_input=20 execs_max=0
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --engine) engine=$2; shift 2 ;;
    --converter) conv=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --time) budget=$2; shift 2 ;;
    --execs) execs_max=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --aliasfuzz) af=$2; shift 2 ;;
    --no-features) features=0; shift ;;
    --verdicts) verdicts=$2; shift 2 ;;
    --max-reduce) max_reduce=$2; shift 2 ;;
    --stop-on-first) stop_first=1; shift ;;
    --no-record) record=0; shift ;;
    --timeout) per_input=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "campaign.sh: unknown option $1" >&2; usage ;;
  esac
done
case "$engine" in libfuzzer|afl) ;; *) echo "campaign.sh: --engine libfuzzer|afl is required" >&2; usage ;; esac
[ -n "$conv" ] || { echo "campaign.sh: --converter NAME is required" >&2; usage; }
case "$jobs$budget$max_reduce$per_input$execs_max" in *[!0-9]*) echo "campaign.sh: --jobs, --time, --execs, --max-reduce, --timeout take integers" >&2; exit 2 ;; esac
[ "$jobs" -ge 1 ] || jobs=1

if [ -z "$build" ]; then
  if [ "$engine" = libfuzzer ]; then build=$here/build-fuzz; else build=$here/build-afl; fi
fi
build=$(cd "$build" 2>/dev/null && pwd) || { echo "campaign.sh: no build folder $build (see README: fuzz engines)" >&2; exit 2; }
case "$conv" in
  jit|functionalize|ref|naive) target=fuzz_$conv ;;
  *) target=fuzz_external; export AF_CONVERTER=$conv ;;
esac
bin=$build/$target
[ -x "$bin" ] || { echo "campaign.sh: $bin missing: build it with -DAF_FUZZ=ON (make fuzz_targets)" >&2; exit 2; }
[ -n "$af" ] || af=$build/aliasfuzz
[ -x "$af" ] || af=$here/build/aliasfuzz
[ -x "$af" ] || { echo "campaign.sh: no aliasfuzz binary (--aliasfuzz PATH)" >&2; exit 2; }
seeds_tool=$build/fuzz_seeds
if [ "$engine" = afl ]; then
  command -v afl-fuzz >/dev/null || { echo "campaign.sh: afl-fuzz not found" >&2; exit 2; }
fi
[ -n "$out" ] || out=$here/fuzz-out/$engine-$(echo "$conv" | tr -c 'A-Za-z0-9_-' _)-$(date +%Y%m%d-%H%M%S)
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "campaign.sh: $out is not empty: pick a new --out (a campaign folder holds one run)" >&2; exit 2
fi
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
dict=$here/fuzz/dict/aliasfuzz.dict
log() { echo "campaign: $*" | tee -a "$out/campaign.log" >&2; }

# AFL++ insists on symbolize=0; LeakSanitizer off: LibTorch keeps caches until exit
if [ "$engine" = afl ]; then
  export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:symbolize=0:detect_leaks=0:allocator_may_return_null=1}
else
  export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:symbolize=1:detect_leaks=0:allocator_may_return_null=1}
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}

# ---- seeds: the committed corpora, only inputs that pass on this converter (a seed that is a
# finding already stops libFuzzer and AFL++'s dry run)
rm -rf "$out/seeds" && mkdir -p "$out/seeds"
if [ -x "$seeds_tool" ]; then
  "$seeds_tool" --converter "$conv" --max 200 --out "$out/seeds" "$here"/corpus/fuzz/{jit,functionalize,ref,naive,external} \
    >>"$out/campaign.log" 2>&1 || log "fuzz_seeds failed; see campaign.log"
fi
if [ -z "$(ls -A "$out/seeds")" ]; then
  cp "$here/corpus/fuzz/$([ "$target" = fuzz_external ] && echo external || echo "$conv")"/* "$out/seeds/" 2>/dev/null ||
    printf '\0' > "$out/seeds/empty"
fi
rm -f "$out/patterns.map"
export AF_FUZZ_PATTERNS=$out/patterns.map
[ "$features" = 1 ] || export AF_FUZZ_FEATURES=0
[ -z "$verdicts" ] || export AF_FUZZ_VERDICTS=$verdicts
log "$engine against $conv ($target), $jobs job(s), ${budget}s, features $([ "$features" = 1 ] && echo on || echo off)${verdicts:+, verdicts $verdicts}; $(ls "$out/seeds" | wc -l) seeds; out $out"

[ "$record" = 1 ] && [ "$stop_first" = 0 ] && export AF_FUZZ_RECORD=$out/recorded
start=$(date +%s)
watchdog=$((budget + 120))
case "$engine" in
  libfuzzer)
    mkdir -p "$out/corpus" "$out/crashes"
    args=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$budget"
          -timeout="$per_input" -rss_limit_mb=4096 -max_len=512 -dict="$dict" -artifact_prefix="$out/crashes/")
    if [ "$stop_first" = 1 ] || [ "$execs_max" -gt 0 ]; then
      # one process, no fork: the first crash ends the run (-runs counts executions of one process)
      args=(-max_total_time="$budget" -timeout="$per_input" -rss_limit_mb=4096 -max_len=512 -dict="$dict"
            -artifact_prefix="$out/crashes/")
      [ "$execs_max" -gt 0 ] && args+=(-runs="$execs_max")
    fi
    (cd "$out" && exec timeout -k 10 "$watchdog" "$bin" "${args[@]}" "$out/corpus" "$out/seeds") >"$out/engine.log" 2>&1
    ;;
  afl)
    export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1
    export AFL_MAP_SIZE=${AFL_MAP_SIZE:-131072} AFL_FAST_CAL=1 AFL_SKIP_CRASHES=1
    [ "$stop_first" = 1 ] && export AFL_BENCH_UNTIL_CRASH=1
    pids=() eopt=()
    [ "$execs_max" -gt 0 ] && eopt=(-E "$execs_max") # per instance
    for ((i = 0; i < jobs; i++)); do
      if [ "$i" = 0 ]; then role=(-M main); name=main; else role=(-S "s$i"); name=s$i; fi
      timeout -k 10 "$watchdog" afl-fuzz -i "$out/seeds" -o "$out/afl" "${role[@]}" -t $((per_input * 1000)) \
        -V "$budget" "${eopt[@]}" -x "$dict" -- "$bin" >"$out/afl-$name.log" 2>&1 &
      pids+=($!)
      [ "$i" = 0 ] && sleep 2 # the main instance sets the sync folder up
    done
    if [ "$stop_first" = 1 ]; then
      # the first instance to crash ends the campaign
      while :; do
        alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ "$alive" = 1 ] || break
        if ls "$out"/afl/*/crashes/id:* >/dev/null 2>&1; then kill -INT "${pids[@]}" 2>/dev/null; fi
        sleep 1
      done
    fi
    wait "${pids[@]}"
    ;;
esac
end=$(date +%s)
log "fuzzing ended after $((end - start)) s"

# ---- engine figures
execs=0
if [ "$engine" = libfuzzer ]; then
  execs=$(grep -aoE '^#[0-9]+' "$out/engine.log" | tail -1 | tr -d '#')
  corpus_dir=$out/corpus
  # find, not a glob: a long record-mode run leaves more inputs than an argument list holds
  mapfile -t inputs < <(find "$out/crashes" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) 2>/dev/null
                        find "$out/recorded" -maxdepth 1 -type f ! -name '.*' 2>/dev/null)
else
  for s in "$out"/afl/*/fuzzer_stats; do
    [ -f "$s" ] && execs=$((execs + $(awk -F: '/^execs_done/ {gsub(/ /, "", $2); print $2}' "$s")))
  done
  corpus_dir=$out/afl/main/queue
  mapfile -t inputs < <(find "$out"/afl/*/crashes "$out"/afl/*/hangs -maxdepth 1 -type f -name 'id:*' 2>/dev/null
                        find "$out/recorded" -maxdepth 1 -type f ! -name '.*' 2>/dev/null)
fi
execs=${execs:-0}
if [ "$execs" = 0 ]; then
  log "the engine did not run; the end of its log:"
  tail -n 15 "$out"/engine.log "$out"/afl-main.log 2>/dev/null | tee -a "$out/campaign.log" >&2
  exit 1
fi
secs=$((end - start > 0 ? end - start : 1))
patterns=$(tr -d '\000' <"$out/patterns.map" 2>/dev/null | wc -c)
corpus_n=$(ls "$corpus_dir" 2>/dev/null | wc -l)
first=""
if [ "${#inputs[@]}" -gt 0 ]; then
  first=$(printf '%s\0' "${inputs[@]}" | xargs -0 stat -c %Y | sort -n | head -1)
  first=$((first - start))
fi

# ---- finding classes: recorded inputs are replayed in one process (fuzz_seeds --classes) and
# grouped by verdict + the message's key line with numbers and names blanked; engine crash
# artifacts are a class each
unset AF_FUZZ_RECORD AF_FUZZ_PATTERNS
: >"$out/classes.tsv" # size \t class \t file
rec=()
for f in "${inputs[@]}"; do
  case "$f" in "$out"/recorded/*) rec+=("$f") ;; *) printf '%s\tengine:%s\t%s\n' "$(stat -c %s "$f")" "$(basename "$f")" "$f" >>"$out/classes.tsv" ;; esac
done
if [ "${#rec[@]}" -gt 0 ]; then
  find "$out/recorded" -type f ! -name '.*' -printf '%s\t%p\n' >"$out/recorded.sizes"
  if [ -x "$seeds_tool" ]; then
    "$seeds_tool" --converter "$conv" --classes "$out/recorded" >"$out/recorded.list" 2>>"$out/campaign.log"
  fi
  # size \t class \t file; inputs the listing missed (no fuzz_seeds, or it failed) get their
  # file name's verdict as class
  awk -F'\t' 'FNR == NR {cls[$1] = $2; next}
               {c = cls[$2]; if (c == "") {c = $2; sub(/.*\//, "", c); sub(/-[0-9a-f]*$/, "", c)}; print $1 "\t" c "\t" $2}' \
    "$out/recorded.list" "$out/recorded.sizes" >>"$out/classes.tsv" 2>/dev/null ||
    awk -F'\t' '{c = $2; sub(/.*\//, "", c); sub(/-[0-9a-f]*$/, "", c); print $1 "\t" c "\t" $2}' "$out/recorded.sizes" >>"$out/classes.tsv"
fi
nclasses=$(cut -f2 "$out/classes.tsv" | sort -u | grep -c .)

# ---- decode, check, minimize: one input per class first (smallest first), then a second per
# class, ... up to --max-reduce; in parallel, one findings store each
mkdir -p "$out/programs" "$out/reduced" "$out/findings"
: >"$out/inputs.tsv"
k=0
while IFS=$'\t' read -r size f; do
  k=$((k + 1))
  id=$(printf 'input-%04d' "$k")
  printf '%s\t%s\t%s\n' "$id" "$size" "$f" >>"$out/inputs.tsv"
done < <(sort -t$'\t' -k2,2 -k1,1n "$out/classes.tsv" | awk -F'\t' '{r[$2]++; print r[$2] "\t" $1 "\t" $3}' |
         sort -t$'\t' -k1,1n -k2,2n | cut -f2,3 | head -n "$max_reduce")
skipped=$(( ${#inputs[@]} > max_reduce ? ${#inputs[@]} - max_reduce : 0 ))

reduce_one() { # ID FILE: writes OUT/reduced/ID.status: "<status>\t<verdict>\t<finding id>\t<detail>"
  local id=$1 f=$2 p=$out/programs/$1.json line rc iso="" fid=""
  if ! "$af" gen --bytes "$f" >"$p" 2>"$out/reduced/$id.err"; then
    printf 'decode-error\t-\t-\t%s\n' "$(head -c 200 "$out/reduced/$id.err")" >"$out/reduced/$id.status"; return
  fi
  line=$(timeout -k 5 $((per_input * 3)) "$af" run "$p" --converter "$conv" 2>>"$out/reduced/$id.err"); rc=$?
  case $rc in
    0) printf 'not-reproduced\tpass\t-\t%s\n' "the input passes when replayed (a timeout or out-of-memory artifact?)" >"$out/reduced/$id.status"; return ;;
    1) ;;
    124|137) printf 'hang\tconverter-timeout\t-\tno verdict within %s s\n' $((per_input * 3)) >"$out/reduced/$id.status"; return ;;
    2) printf 'error\t-\t-\t%s\n' "$(tail -1 "$out/reduced/$id.err" | head -c 200)" >"$out/reduced/$id.status"; return ;;
    *) iso=--isolate ;; # the converter took aliasfuzz down: judge every candidate in a child
  esac
  local verdict=${line#"$p $conv "}; verdict=${verdict%% *}
  [ -n "$iso" ] && verdict=converter-crash
  timeout -k 5 1800 "$af" reduce "$p" --converter "$conv" --out "$out/reduced/$id" $iso >"$out/reduced/$id.log" 2>&1
  fid=$(ls "$out/reduced/$id/findings" 2>/dev/null | grep -v '^\.' | head -1)
  printf 'reduced\t%s\t%s\t%s\n' "$verdict" "${fid:--}" "$(echo "${line#"$p $conv "}" | cut -c1-200)" >"$out/reduced/$id.status"
}
export -f reduce_one
export out af conv per_input
if [ -s "$out/inputs.tsv" ]; then
  log "minimizing $(wc -l <"$out/inputs.tsv") finding input(s)$([ "$skipped" -gt 0 ] && echo " ($skipped more skipped: --max-reduce)")"
  cut -f1,3 "$out/inputs.tsv" | xargs -P "$jobs" -L 1 bash -c 'reduce_one "$0" "$1"'
fi

# ---- deduplicate by signature into OUT/findings/<id>/
: >"$out/findings.tsv"
while IFS=$'\t' read -r id size f; do
  IFS=$'\t' read -r status verdict fid detail <"$out/reduced/$id.status" || continue
  if [ "$status" = reduced ] && [ "$fid" != - ] && [ ! -d "$out/findings/$fid" ]; then
    mv "$out/reduced/$id/findings/$fid" "$out/findings/$fid"
    cp "$f" "$out/findings/$fid/input.bin"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$status" "$verdict" "$fid" "$f" "$detail" >>"$out/findings.tsv"
done <"$out/inputs.tsv"
nfind=$(ls "$out/findings" | grep -vc '^\.')

# ---- report
{
  echo "# aliasfuzz $engine campaign against \`$conv\`"
  echo
  echo "| | |"
  echo "| --- | --- |"
  echo "| engine | $engine ($target), $jobs job(s)$([ -n "${AF_FUZZ_RECORD:-}" ] && echo ", findings in record mode (recorded/)") |"
  echo "| budget | ${budget} s of fuzzing (ran $secs s) |"
  echo "| semantic features | $([ "$features" = 1 ] && echo on || echo "off (AF_FUZZ_FEATURES=0)") |"
  echo "| verdicts counted | ${verdicts:-every bug verdict and invalid-program} |"
  echo "| executions | $execs ($((execs / secs))/s) |"
  echo "| corpus | $corpus_n inputs |"
  echo "| alias patterns executed | $patterns |"
  echo "| finding inputs | ${#inputs[@]} (minimized: $(wc -l <"$out/inputs.tsv"), skipped: $skipped) |"
  echo "| time to first finding | $([ -n "$first" ] && echo "$first s" || echo none) |"
  echo "| finding classes (verdict + message, before minimization) | $nclasses |"
  echo "| distinct findings (signatures after minimization) | $nfind |"
  echo
  if [ "$nfind" -gt 0 ]; then
    echo "## Findings (by signature)"
    echo
    echo "| finding | verdict | inputs | reproducer |"
    echo "| --- | --- | --- | --- |"
    for d in "$out"/findings/*/; do
      fid=$(basename "$d")
      n=$(awk -F'\t' -v f="$fid" '$4 == f' "$out/findings.tsv" | wc -l)
      v=$(awk -F'\t' -v f="$fid" '$4 == f {print $3; exit}' "$out/findings.tsv")
      echo "| \`$fid\` | $v | $n | [findings/$fid/repro.py](findings/$fid/repro.py) |"
    done
    echo
  fi
  other=$(awk -F'\t' '$2 != "reduced"' "$out/findings.tsv" | wc -l)
  if [ "$other" -gt 0 ]; then
    echo "## Inputs that did not reduce to a finding"
    echo
    awk -F'\t' '$2 != "reduced" {printf "- %s: %s %s — %s\n", $5, $2, $3, $6}' "$out/findings.tsv"
    echo
  fi
  echo "Rerun one input: \`aliasfuzz gen --bytes INPUT > p.json && aliasfuzz run p.json --converter $conv\`;"
  echo "the engine log is engine.log (libFuzzer) or afl-*.log and afl/ (AFL++)."
} >"$out/REPORT.md"
printf '{"engine": "%s", "converter": "%s", "jobs": %d, "seconds": %d, "features": %s, "verdicts": "%s", "execs": %d, "execs_per_sec": %d, "corpus": %d, "patterns": %d, "finding_inputs": %d, "finding_classes": %d, "time_to_first_finding": %s, "findings": %d}\n' \
  "$engine" "$conv" "$jobs" "$secs" "$([ "$features" = 1 ] && echo true || echo false)" "$verdicts" "$execs" \
  $((execs / secs)) "$corpus_n" "$patterns" "${#inputs[@]}" "$nclasses" "${first:-null}" "$nfind" >"$out/summary.json"
log "done: $nfind distinct finding(s) from ${#inputs[@]} input(s); $out/REPORT.md"
exit 0
