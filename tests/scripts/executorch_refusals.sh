#!/usr/bin/env bash
# What ExecuTorch's portable runtime refuses by design is "unsupported", not "error"
# (worker_executorch.py): an input that is neither contiguous nor channels-last (the seed case
# lay-003, a transposed input), and a kernel the runtime lacks, which the exception names only as
# "Failed to load method forward, error: 0x:14" (Error::OperatorMissing; here
# aten::scatter_reduce.two_out). Skipped (77) where executorch does not import.
# Usage: executorch_refusals.sh ALIASFUZZ PYTHON
set -u
af=$1 py=$2
if ! err=$("$py" -c "import executorch" 2>&1); then
  echo "skipped: $py cannot import executorch: $(printf '%s\n' "$err" | tail -1)"
  exit 77
fi
tmp=$(mktemp -d /tmp/af-et-refusals.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/scatter-reduce-prod.json" <<'JSON'
{"format": "aliasfuzz-program/1",
 "inputs": [{"name": "x", "shape": [2], "dtype": "float32"}, {"name": "i", "shape": [2], "dtype": "int64", "data": [0, 1]},
            {"name": "v", "shape": [2], "dtype": "float32"}],
 "body": [{"op": "scatter_reduce_", "args": ["x", -1, "i", "v", "prod", true]}],
 "outputs": ["x"]}
JSON
out=$("$af" run corpus/seed/lay-003-transposed-input-written-through.json "$tmp/scatter-reduce-prod.json" --converter executorch 2>&1)
echo "$out"
fail=0
grep -q "lay-003-transposed-input-written-through.json executorch converter-unsupported .*contiguous or channels-last" <<<"$out" ||
  { echo "not ok: the transposed input is not unsupported"; fail=1; }
grep -q "scatter-reduce-prod.json executorch converter-unsupported .*0x:14" <<<"$out" ||
  { echo "not ok: the missing kernel (0x14) is not unsupported"; fail=1; }
exit $fail
