#!/usr/bin/env bash
# The ClusterFuzzLite / OSS-Fuzz build (.clusterfuzzlite/build.sh) run here without docker, as
# the infrastructure runs it: the variables base-builder sets for libFuzzer + AddressSanitizer
# (CC CXX CFLAGS CXXFLAGS LIB_FUZZING_ENGINE SANITIZER FUZZING_ENGINE ARCHITECTURE SRC OUT WORK),
# the source tree copied to $SRC/aliasfuzz (what `COPY . $SRC/aliasfuzz` copies: tracked and
# untracked, not ignored files) with .venv standing for the image's torch environment. Then, as
# on a runner: the source copy is removed, and each fuzz target in $OUT runs in an environment
# with none of our variables (base-runner's ASAN_OPTIONS, the options file's flags, its seed
# corpus) for RUNS executions; it must finish them with no harness error (AF_FUZZ_VERDICTS=
# invalid-program: converter findings are the campaigns' business, as in the other fuzz-engine
# tests). Before that, each target must pass at least one of its seeds (AF_FUZZ_VERDICTS=pass: a
# pass is the finding that stops it), so a worker target whose Python cannot run its worker fails.
# Checks that the targets load LibTorch and the worker's Python from $OUT only.
# Exit 77 (skipped) without clang-14, zip/unzip or the .venv torch stack.
# Usage: cfl_build_and_run.sh ROOT STATE [RUNS]  (ROOT: the source tree; STATE: a folder kept
# between runs, so the build in $WORK is incremental; RUNS default 3000)
set -euo pipefail
root=$(cd "$1" && pwd) state=$2 runs=${3:-3000}
for tool in clang-14 clang++-14 zip unzip git; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed"; exit 77; }
done
[ -x "$root/.venv/bin/python" ] || { echo "skipped: $root/.venv (the 2.13 stack) does not exist"; exit 77; }
t0=$SECONDS
say() { echo "== cfl: $* ($((SECONDS - t0)) s)"; }

export SRC="$state/src" OUT="$state/out" WORK="$state/work"
rm -rf "$SRC" "$OUT" "$state/run"
mkdir -p "$SRC/aliasfuzz" "$OUT" "$WORK" "$state/run"
# the checkout as docker's COPY sees it; mtimes kept, so $WORK's build stays incremental
(cd "$root" && git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
  tar --null -T - -cf -) | tar -C "$SRC/aliasfuzz" -xf -
export AF_CFL_VENV
AF_CFL_VENV=$(readlink -f "$root/.venv")

# base-builder's values for FUZZING_ENGINE=libfuzzer SANITIZER=address (compile, compile_libfuzzer)
export CC=clang-14 CXX=clang++-14 SANITIZER=address FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS -stdlib=libc++"
export CCACHE_BASEDIR="$SRC/aliasfuzz" CCACHE_NOHASHDIR=true
say "build.sh"
(cd "$SRC" && bash -eu "$SRC/aliasfuzz/.clusterfuzzlite/build.sh") >"$state/build.log" 2>&1 ||
  { tail -40 "$state/build.log"; echo "not ok: build.sh failed (log: $state/build.log)"; exit 1; }
tail -1 "$state/build.log"

# the runner: no source tree, no build Python, none of our variables
rm -rf "$SRC"
fail=0
targets=$(cd "$OUT" && for f in fuzz_*; do if [ -x "$f" ] && [ -f "$f" ]; then echo "$f"; fi; done)
[ "$(echo "$targets" | wc -w)" -ge 3 ] || { echo "not ok: expected at least 3 targets in $OUT, got: $targets"; exit 1; }
py="$OUT/aliasfuzz-runtime/python/bin/python3"
where=$(env -i PATH=/usr/bin:/bin "$py" -c 'import sys, torch; print(sys.prefix, torch.__file__, torch.__version__)') ||
  { echo "not ok: the bundled Python cannot import torch"; exit 1; }
case "$where" in
  "$OUT"/*" $OUT"/*) echo "ok   bundled Python: $where" ;;
  *) echo "not ok: the bundled Python is not self-contained: $where"; fail=1 ;;
esac
runner_asan="alloc_dealloc_mismatch=0:allocator_may_return_null=1:allocator_release_to_os_interval_ms=500:check_malloc_usable_size=0:detect_container_overflow=1:detect_odr_violation=0:detect_leaks=1:detect_stack_use_after_return=1:fast_unwind_on_fatal=0:handle_abort=1:handle_segv=1:handle_sigill=1:max_uar_stack_size_log=16:print_scariness=1:quarantine_size_mb=10:strict_memcmp=1:symbolize=1:use_sigaltstack=1:dedup_token_length=3"
for t in $targets; do
  outside=$(ldd "$OUT/$t" | awk '$2 == "=>" {print $3}' | grep -E 'torch|cjson|python' | grep -v "^$OUT/" || true)
  [ -z "$outside" ] || { echo "not ok: $t loads libraries from outside \$OUT: $outside"; fail=1; }
  [ -f "$OUT/${t}_seed_corpus.zip" ] && [ -f "$OUT/$t.dict" ] && [ -f "$OUT/$t.options" ] ||
    { echo "not ok: $t lacks its seed corpus, dictionary or options file"; fail=1; continue; }
  work="$state/run/$t"
  mkdir -p "$work/corpus" "$work/seeds"
  unzip -q "$OUT/${t}_seed_corpus.zip" -d "$work/seeds"
  opts=$(sed -n '/^\[libfuzzer\]/,/^\[/{s/^\([a-z_]*\) *= *\(.*\)$/-\1=\2/p}' "$OUT/$t.options")
  runner() { (cd "$work" && env -i PATH=/usr/bin:/bin HOME="$work" ASAN_OPTIONS="$runner_asan" AF_FUZZ_VERDICTS="$1" "$OUT/$t" $opts "${@:2}"); }
  # the converter converts: with "pass" as the only finding, a seed that passes stops the target
  # (a worker that cannot start, or a missing package, gives no pass)
  runner pass -artifact_prefix="$work/pass-" "$work"/seeds/* >"$work/pass.log" 2>&1 || true
  if grep -q "aliasfuzz-finding: verdict=pass" "$work/pass.log"; then echo "ok   $t: a seed passes through its converter"
  else tail -15 "$work/pass.log"; echo "not ok: $t: no seed passes (log $work/pass.log)"; fail=1; fi
  s0=$SECONDS
  rc=0
  runner invalid-program -runs="$runs" -seed=1 -dict="$OUT/$t.dict" -artifact_prefix="$work/" corpus seeds >"$work/log" 2>&1 || rc=$?
  # libFuzzer counts the seeds' executions too: "Done N runs" with N >= RUNS
  done_runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/log" | tail -1)
  if [ $rc -eq 0 ] && [ "${done_runs:-0}" -ge "$runs" ]; then
    echo "ok   $t: $done_runs runs in $((SECONDS - s0)) s ($(grep -o 'exec/s: [0-9]*' "$work/log" | tail -1))"
  else
    tail -25 "$work/log"
    echo "not ok: $t (exit $rc; log $work/log)"
    fail=1
  fi
done
say "done"
exit $fail
