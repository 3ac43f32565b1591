#!/bin/bash
# dask_shards.sh AFBIN PYTHON - issue 32's done-when test: one campaign of 120 iterations, and the same
# campaign as 4 shards (`fuzz --shard K/4`) on a dask.distributed LocalCluster of 2 workers
# (scripts/af_dask.py) merged by `aliasfuzz merge`, give the same classes, counts and findings
# (tests/scripts/compare_campaigns.py). Deterministic by options, not by a weaker comparison: the
# in-process naive converter (deliberately wrong: nearly every program fails), --no-reduce (each
# failing program is its own finding with its plain pattern: no minimization budget, no timing),
# --jobs 1 in each, --deadline 60 (no timeout under load), --no-triggers. PYTHON: the 2.x stack's,
# with dask (scripts/requirements.txt). TAP lines; "not ok" fails the ctest.
set -u
af=$1 py=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
w=$(mktemp -d /tmp/af_dask_XXXXXX)
trap 'rm -rf "$w"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); echo "not ok $n - $1"; }
if ! "$py" -c 'import distributed' 2>/dev/null; then
  bad "$py has no dask.distributed: run scripts/setup.sh (scripts/requirements.txt pins it)"
  exit 1
fi
common=(--converter naive --seed 3 --iterations 120 --no-reduce --no-triggers --deadline 60 --jobs 1 --quiet)
"$af" fuzz "${common[@]}" --out "$w/one" > "$w/one.log" 2>&1
rc=$?
[ $rc -eq 1 ] && ok "one campaign of 120 iterations: exit 1 (naive has bugs)" || bad "one campaign: exit $rc: $(tail -3 "$w/one.log")"
"$py" "$here/scripts/af_dask.py" --aliasfuzz "$af" --shards 4 --workers 2 --out "$w/dask" -- "${common[@]}" > "$w/dask.log" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "af_dask.py: 4 shards on a LocalCluster of 2 workers, merged: exit 0" || bad "af_dask.py: exit $rc: $(tail -5 "$w/dask.log")"
shards=$(grep -c '^af_dask: shard [1-4]/4 on worker .*: exit 1:' "$w/dask.log")
workers=$(sed -n 's/^af_dask: shard [1-4]\/4 on worker \([^:]*:[^:]*:[0-9]*\): .*/\1/p' "$w/dask.log" | sort -u | wc -l)
[ "$shards" -eq 4 ] && [ "$workers" -eq 2 ] && ok "each shard ran as a Dask task, on both workers" ||
  bad "$shards shard(s) ran, on $workers worker(s): $(cat "$w/dask.log")"
if python3 "$here/tests/scripts/compare_campaigns.py" "$w/one" "$w/dask/merged" > "$w/cmp.log" 2>&1; then
  ok "merged shards and the one campaign: $(tail -1 "$w/cmp.log")"
else
  bad "merged shards differ from the one campaign: $(head -20 "$w/cmp.log")"
fi
grep -q 'merged from 4 campaign folder(s)' "$w/dask/merged/report.md" && grep -q 'shard 4/4' "$w/dask/merged/report.md" &&
  ok "the merged report names its 4 parts and their shards" || bad "report.md of the merge: $(head -8 "$w/dask/merged/report.md")"
echo "1..$n"
