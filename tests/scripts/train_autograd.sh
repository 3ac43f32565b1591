#!/usr/bin/env bash
# Training programs (issue 33): autograd accepting or refusing differently is a verdict of its own
# (oracle/oracle.h autograd-rejects, autograd-accepts). With the aot_eager worker and one planted
# mistake each (tests/workers/worker_grad_planted.py):
#   autograd-refuses  its backward raises autograd's own refusal of a tensor saved for backward and
#                     modified, on a program eager accepts: autograd-rejects, the rule named;
#   autograd-accepts  it runs under allow_mutation_on_saved_tensors: a program eager's autograd
#                     refuses (y saved by y * y, then y.add_(1)) runs: autograd-accepts.
# aot_eager itself refuses that program too: pass (both refuse), and accepts the other: pass. ref and
# functionalize (they judge the inference form) pass the refused program: no false alarm.
# Usage: train_autograd.sh ALIASFUZZ STACK_PYTHON
set -u
af=$1 py=$2
. "$(dirname "$0")/script_lib.sh"  # $tmp, $fail, jq, check
cat >"$tmp/accepted.json" <<'JSON'
{"format": "aliasfuzz-program/1",
 "inputs": [{"name": "x", "shape": [3], "dtype": "float32", "requires_grad": true}],
 "body": [{"out": "r", "op": "mul", "args": ["x", "x"]}],
 "outputs": ["r"], "train": true, "loss": [2]}
JSON
cat >"$tmp/refused.json" <<'JSON'
{"format": "aliasfuzz-program/1",
 "inputs": [{"name": "x", "shape": [3], "dtype": "float32", "requires_grad": true}],
 "body": [{"out": "y", "op": "mul", "args": ["x", 2]},
          {"out": "z", "op": "mul", "args": ["y", "y"]},
          {"op": "add_", "args": ["y", 1]}],
 "outputs": ["z"], "train": true, "loss": [1]}
JSON
verdict() { # verdict PROGRAM CONVERTER: "verdict detail-rule" of aliasfuzz run --json
  "$af" run "$tmp/$1.json" --converter "$2" --json 2>"$tmp/err" |
    jq -r '"\(.verdict) \((.detail // "") | split(":")[0])"' 2>/dev/null ||
    { echo "not ok: run $1 on $2 gave no JSON"; tail -3 "$tmp/err"; }
}
planted() { echo "external:$py $(pwd)/tests/workers/worker_grad_planted.py --mistake $1"; }
check "accepted program, backward refused by the worker" "$(verdict accepted "$(planted autograd-refuses)")" \
  "autograd-rejects saved-modified"
check "refused program, run by the worker" "$(verdict refused "$(planted autograd-accepts)")" \
  "autograd-accepts saved-modified"
check "accepted program, aot_eager" "$(verdict accepted "$(planted none)" | cut -d' ' -f1)" pass
check "refused program, aot_eager (refuses too)" "$(verdict refused "$(planted none)" | cut -d' ' -f1)" pass
check "refused program, ref (inference form)" "$(verdict refused ref | cut -d' ' -f1)" pass
check "refused program, functionalize (inference form)" "$(verdict refused functionalize | cut -d' ' -f1)" pass
exit $fail
