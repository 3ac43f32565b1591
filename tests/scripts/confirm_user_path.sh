#!/usr/bin/env bash
# Issue 26: a finding is judged on the user's path, the public API its converter stands for (repro.py
# in a fresh process, fuzz/confirm.h), and `aliasfuzz repro` exits as repro.py does.
#   quick:    two hand-picked programs on functionalize: logical_not_ of an int64 input fails in
#             process only (LibTorch alone has no Meta kernel for it; torch.func.functionalize from
#             Python converts it right): repro.py exits 0 and `aliasfuzz repro` says the in-process
#             run still fails but exits 0 (a harness artifact); the unfold write-back of seed case
#             i14-cf-002 fails on both paths (exit 1 from both).
#   campaign CONVERTER ITERATIONS [ARTIFACT_RE]: a small campaign; for every finding folder repro.py and
#             `aliasfuzz repro` give the same exit status; every class is marked on the user's path; with
#             ARTIFACT_RE, a class whose detail matches it is marked "artifact" and report.md lists it apart.
# Usage: confirm_user_path.sh ALIASFUZZ STACK_PYTHON quick | campaign CONVERTER ITERATIONS [ARTIFACT_RE]
set -u
af=$1 py=$2 mode=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
not_ok() { echo "not ok $*"; fail=1; }

# repro.py and `aliasfuzz repro` of finding folder $1 agree; prints "PYEXIT AFEXIT"
both() {
  "$py" "$1/repro.py" >"$tmp/py.log" 2>&1
  local pe=$?
  "$af" repro "$1" >"$tmp/af.log" 2>&1
  local ae=$?
  echo "$pe $ae"
}

if [ "$mode" = quick ]; then
  cat >"$tmp/meta.json" <<'EOF'
{"format": "aliasfuzz-program/1", "inputs": [{"name": "x", "shape": [2, 3], "dtype": "int64"}],
 "body": [{"op": "logical_not_", "args": ["x"]}], "outputs": ["x"],
 "meta": {"note": "issue 26: no Meta kernel for logical_not_ in LibTorch alone"}}
EOF
  for case in "$tmp/meta.json:0" "corpus/seed/i14-cf-002-write-through-an-unfold-window-of-one.json:1"; do
    file=${case%:*} want=${case##*:}
    "$af" reduce "$file" --converter functionalize --out "$tmp/r$want" >"$tmp/reduce.log" 2>&1 ||
      { not_ok "reduce $file on functionalize failed"; tail -3 "$tmp/reduce.log"; continue; }
    dir=$(dirname "$(find "$tmp/r$want" -name repro.py | head -1)")
    read -r pe ae <<<"$(both "$dir")"
    if [ "$pe" = "$want" ] && [ "$ae" = "$want" ]; then
      echo "ok   $(basename "$file"): repro.py exit $pe, aliasfuzz repro exit $ae"
    else
      not_ok "$(basename "$file"): repro.py exit $pe, aliasfuzz repro exit $ae, want $want from both"
      tail -4 "$tmp/py.log" "$tmp/af.log"
    fi
    grep -q "in process: converter-error on functionalize.*still reproduces\|in process: value-mismatch\|in process: input-mutation-lost" "$tmp/af.log" ||
      not_ok "aliasfuzz repro does not report the in-process verdict: $(head -1 "$tmp/af.log")"
    if [ "$want" = 0 ]; then
      grep -q "user path (torch.func.functionalize(remove='mutations')): repro.py exit 0: not seen there: a harness artifact" "$tmp/af.log" &&
        echo "ok   aliasfuzz repro calls the Meta-kernel finding a harness artifact" ||
        { not_ok "aliasfuzz repro does not call it an artifact"; cat "$tmp/af.log"; }
    fi
  done
  # --in-process keeps the old meaning: the in-process verdict alone
  "$af" repro "$(dirname "$(find "$tmp/r0" -name repro.py | head -1)")" --in-process >"$tmp/af.log" 2>&1
  [ $? = 1 ] && echo "ok   --in-process exits by the in-process verdict (1)" || not_ok "--in-process: $(tail -1 "$tmp/af.log")"
  exit $fail
fi

[ "$mode" = campaign ] || { echo "not ok usage: $0 ALIASFUZZ PYTHON quick|campaign CONVERTER ITERATIONS [RE]"; exit 2; }
conv=$4 iters=$5 artifact_re=${6:-}
"$af" fuzz --converter "$conv" --iterations "$iters" --jobs 2 --no-triggers --quiet --out "$tmp/c" \
  >"$tmp/fuzz.log" 2>&1
[ $? -le 1 ] || { not_ok "fuzz --converter $conv failed"; tail -5 "$tmp/fuzz.log"; exit 1; }
n=0 agree=0
for dir in "$tmp"/c/findings/*/; do
  [ -f "$dir/repro.py" ] || continue
  n=$((n + 1))
  read -r pe ae <<<"$(both "$dir")"
  if [ "$pe" = "$ae" ]; then agree=$((agree + 1)); else not_ok "$conv $(basename "$dir"): repro.py exit $pe, aliasfuzz repro exit $ae"; fi
done
[ "$n" -gt 0 ] || not_ok "$conv: the campaign of $iters iterations made no finding folder"
echo "# $conv: $n finding folder(s), $agree agree"
"$py" - "$tmp/c/classes.json" "$artifact_re" <<'EOF' || fail=1
import json, re, sys
idx = json.load(open(sys.argv[1]))
pat = sys.argv[2]
bad = 0
counts = {}
for c in idx["classes"]:
    up = c.get("user_path", {})
    st = up.get("status")
    counts[st] = counts.get(st, 0) + 1
    if st not in ("confirmed", "artifact", "unconfirmed") or not c.get("user_path_line"):
        print("not ok class %s has no user-path mark: %r" % (c["id"], up)); bad = 1
    print("# class %s: %s, %s on the user's path: %s" % (c["id"], c["verdict"], st, up.get("result") or up.get("why") or ""))
    if pat and re.search(pat, c.get("detail") or "") and st != "artifact":
        print("not ok class %s (%s) should be a harness artifact: %r" % (c["id"], (c.get("detail") or "")[:80], up)); bad = 1
if pat and not any(re.search(pat, c.get("detail") or "") for c in idx["classes"]):
    print("not ok no class matches %r: the campaign is too short to show the artifact" % pat); bad = 1
print("# classes on the user's path: %s" % counts)
sys.exit(bad)
EOF
if [ -n "$artifact_re" ]; then
  grep -q "^## Not seen from .*: harness artifacts" "$tmp/c/report.md" && echo "ok   report.md lists the artifacts apart" ||
    not_ok "report.md has no artifacts section"
fi
[ $fail = 0 ] && echo "ok   $conv: every repro.py and aliasfuzz repro agree, every class is marked"
exit $fail
