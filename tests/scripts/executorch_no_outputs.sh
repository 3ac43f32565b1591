#!/usr/bin/env bash
# A program without outputs on ExecuTorch (worker_executorch.py, repro_executorch.py): forward's
# `return None` is a USER_OUTPUT None in the graph signature, not an output. `x.add_(1)` passes;
# docs/findings/executorch-squeeze-of-an-input-keeps-its-old-shape is its shape-mismatch (the input's
# state), and the repro.py `aliasfuzz reduce` writes for it exits 1 on that input alone (no "converter
# returned 1 outputs, eager 0"). Both were converter-error / an extra output before. Skipped (77)
# where executorch does not import.
# Usage: executorch_no_outputs.sh ALIASFUZZ PYTHON
set -u
af=$1 py=$2
if ! err=$("$py" -c "import executorch" 2>&1); then
  echo "skipped: $py cannot import executorch: $(printf '%s\n' "$err" | tail -1)"
  exit 77
fi
tmp=$(mktemp -d /tmp/af-et-no-outputs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
finding=docs/findings/executorch-squeeze-of-an-input-keeps-its-old-shape/repro.json
cat >"$tmp/add.json" <<'JSON'
{"format": "aliasfuzz-program/1", "inputs": [{"name": "x", "shape": [2], "dtype": "float32"}],
 "body": [{"op": "add_", "args": ["x", 1]}], "outputs": []}
JSON
out=$("$af" run "$tmp/add.json" "$finding" --converter executorch 2>&1)
echo "$out"
fail=0
grep -q "add.json executorch pass" <<<"$out" || { echo "not ok: x.add_(1) without outputs does not pass"; fail=1; }
grep -q "repro.json executorch shape-mismatch  input x: shape \[1\], eager \[\]" <<<"$out" ||
  { echo "not ok: the squeeze_ finding is not its input's shape-mismatch"; fail=1; }
"$af" reduce "$finding" --converter executorch --max-tests 1 --out "$tmp/r" >"$tmp/reduce.log" 2>&1 ||
  { echo "not ok: reduce failed"; tail -3 "$tmp/reduce.log"; exit 1; }
repro=$(find "$tmp/r" -name repro.py | head -1)
"$py" "$repro" >"$tmp/repro.log" 2>&1
st=$?
grep RESULT "$tmp/repro.log"
[ $st -eq 1 ] && grep -q "RESULT: MISMATCH.*input x: shape \[1\], eager \[\]" "$tmp/repro.log" &&
  ! grep -q "converter returned" "$tmp/repro.log" || { echo "not ok: repro.py exited $st"; tail -5 "$tmp/repro.log"; fail=1; }
exit $fail
