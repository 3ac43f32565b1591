#!/usr/bin/env bash
# The seed gate of a converter whose packages are optional (issue 31: executorch, iree, torchax):
# skipped (exit 77) when the stack's Python cannot import the package, else `aliasfuzz check` of
# one shard of the seed corpus against the converter's seed expectations.
# Usage: gate_if_installed.sh ALIASFUZZ PYTHON MODULE CONVERTER SHARD JUNIT
set -u
af=$1 py=$2 module=$3 conv=$4 shard=$5 junit=$6
if ! err=$("$py" -c "import $module" 2>&1); then
  echo "skipped: $py cannot import $module (scripts/setup.sh installs scripts/requirements-nodeps.txt): $(printf '%s\n' "$err" | tail -1)"
  exit 77
fi
exec "$af" check corpus/seed --converter "$conv" --shard "$shard" --quiet \
  --expect "corpus/expectations/torch-2.13/$conv-seed.json" --junit "$junit"
