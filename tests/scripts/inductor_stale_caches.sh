#!/usr/bin/env bash
# An inductor worker killed at its deadline leaves its TORCHINDUCTOR_CACHE_DIR behind (atexit does
# not run); the next worker removes such folders (worker_aot_eager.py sweep_stale): a folder of a
# PID that no longer runs, unchanged for 10 minutes, goes; one of a live PID, or changed lately,
# stays; the worker's own folder is gone when it exits. Skipped (77) where torch does not import.
# Usage: inductor_stale_caches.sh ALIASFUZZ PYTHON
set -u
af=$1 py=$2
if ! err=$("$py" -c "import torch" 2>&1); then
  echo "skipped: $py cannot import torch: $(printf '%s\n' "$err" | tail -1)"
  exit 77
fi
tmp=$(mktemp -d /tmp/af-ind-stale.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cache=$tmp/cache
mkdir -p "$cache"
sh -c 'exit 0' & dead=$!
wait $dead
while kill -0 "$dead" 2>/dev/null; do sleep 0.1; done
mkdir -p "$cache/aliasfuzz-inductor-$dead-old/fxgraph" "$cache/aliasfuzz-inductor-$dead-new/fxgraph" \
  "$cache/aliasfuzz-inductor-$$-live/fxgraph" "$cache/other-folder"
touch -d '-1 hour' "$cache/aliasfuzz-inductor-$dead-old/fxgraph" "$cache/aliasfuzz-inductor-$dead-old" \
  "$cache/aliasfuzz-inductor-$$-live/fxgraph" "$cache/aliasfuzz-inductor-$$-live" "$cache/other-folder"
cat >"$tmp/p.json" <<'JSON'
{"format": "aliasfuzz-program/1", "inputs": [{"name": "x", "shape": [3], "dtype": "float32"}],
 "body": [{"op": "add_", "args": ["x", 1]}], "outputs": ["x"]}
JSON
out=$(AF_INDUCTOR_CACHE_DIR=$cache "$af" run "$tmp/p.json" --converter inductor 2>&1)
echo "$out"
ls -la "$cache"
fail=0
grep -q "p.json inductor pass" <<<"$out" || { echo "not ok: the program was not judged pass"; fail=1; }
[ ! -e "$cache/aliasfuzz-inductor-$dead-old" ] || { echo "not ok: a dead worker's old folder was kept"; fail=1; }
[ -d "$cache/aliasfuzz-inductor-$dead-new" ] || { echo "not ok: a dead worker's folder changed lately was removed"; fail=1; }
[ -d "$cache/aliasfuzz-inductor-$$-live" ] || { echo "not ok: a live process's folder was removed"; fail=1; }
[ -d "$cache/other-folder" ] || { echo "not ok: a folder not of a worker was removed"; fail=1; }
left=$(find "$cache" -maxdepth 1 -name 'aliasfuzz-inductor-*' | grep -v -e "-$dead-new" -e "-$$-live")
[ -z "$left" ] || { echo "not ok: the worker's own folder is left: $left"; fail=1; }
exit $fail
