#!/usr/bin/env bash
# Training programs (issue 33): a short training campaign (tests/scripts/train-policy.json: every
# program a training program) of the aot_eager worker with one planted gradient mistake
# (tests/workers/worker_grad_planted.py --mistake operand-grad: the .grad of an in-place op's operand
# dropped) finds it as exactly one wrong-gradient class naming the dropped .grad; the same campaign
# with --mistake none has no wrong-gradient class (aot_eager's own gradients agree with eager's).
# Usage: train_planted.sh ALIASFUZZ STACK_PYTHON [ITERATIONS]
set -u
# 30 programs: the generator's no_grad/.detach() forms (issue 33) moved the stream; seed 1's first
# program with the planted mistake's pattern is now the 25th (12 had it before)
# The policy turns issue 33's third-slice forms and the outputs that view one intermediate off
# (train_state_read, train_view_input, train_data, train_out_views, train_grad_mode 0:
# no draw, the stream as before them): they make aot_eager's own real gradient bugs (module state
# written then read: docs/findings/aot_eager-buffer-mutated-then-read-doubles-input-grad; a view made
# with grad mode off and returned: docs/findings/aot_eager-no-grad-view-of-an-input-returned-carries-its-gradient),
# which the --mistake none baseline would count.
af=$1 py=$2 n=${3:-30}
. "$(dirname "$0")/script_lib.sh"  # $tmp, $fail, jq, check
campaign() { # campaign MISTAKE
  "$af" fuzz --converter "external:$py $(pwd)/tests/workers/worker_grad_planted.py --mistake $1" \
    --seed 1 --iterations "$n" --deadline 60 --jobs 1 --no-triggers --policy tests/scripts/train-policy.json \
    --out "$tmp/$1" >"$tmp/$1.log" 2>&1
  [ -f "$tmp/$1/classes.json" ] || { echo "not ok: $1: no classes.json"; tail -5 "$tmp/$1.log" | sed 's/^/    /'; exit 1; }
}
grad_classes() { jq -c '[.classes[]? | select(.verdict == "wrong-gradient")]' "$tmp/$1/classes.json"; }

campaign operand-grad
got=$(grad_classes operand-grad)
check "operand-grad: wrong-gradient classes" "$(jq length <<<"$got")" 1
check "operand-grad: its finding names a dropped .grad (element is 0 where eager's is not)" \
  "$(grep -l 'detail: .*\.grad: element [0-9]* is 0, eager' "$tmp"/operand-grad/findings/wrong-gradient-*/README.md 2>/dev/null | wc -l | tr -d ' ')" 1
campaign none
check "none: wrong-gradient classes" "$(jq length <<<"$(grad_classes none)")" 0
exit $fail
