#!/bin/bash
# merge_campaigns.sh AFBIN - `aliasfuzz merge` (issue 32, fuzz/merge.h): merging the same folders
# again changes no file; the order of the parts changes nothing; a folder of another converter, a
# folder that is no campaign's and a campaign folder as OUT are refused with the folder and the
# field named, leaving OUT as it was; a shard folder resumes only with its own --shard. TAP lines.
set -u
af=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
w=$(mktemp -d /tmp/af_merge_XXXXXX)
trap 'rm -rf "$w"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); echo "not ok $n - $1"; }
sums() { (cd "$1" && find . -type f ! -name .lock | sort | xargs md5sum); }
common=(--converter naive --seed 5 --iterations 30 --no-reduce --no-triggers --deadline 60 --quiet)
for k in 1 2 3; do "$af" fuzz "${common[@]}" --shard $k/3 --out "$w/s$k" > /dev/null 2>&1; done
"$af" fuzz --converter ref --seed 5 --iterations 3 --quiet --out "$w/ref" > /dev/null 2>&1
"$af" merge "$w/m" "$w/s1" "$w/s2" "$w/s3" > "$w/out1" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "3 part(s) (3 new" "$w/out1" && ok "merge of 3 shards: exit 0, 3 new parts" || bad "merge: exit $rc: $(cat "$w/out1")"
sums "$w/m" > "$w/sum1"
"$af" merge "$w/m" "$w/s2" "$w/s1" "$w/s3" > "$w/out2" 2>&1
sums "$w/m" > "$w/sum2"
cmp -s "$w/sum1" "$w/sum2" && grep -q "(0 new, 0 updated, 3 already merged)" "$w/out2" &&
  ok "merging the same folders again changes no file" || bad "a second merge changed: $(diff "$w/sum1" "$w/sum2" | head; cat "$w/out2")"
"$af" merge "$w/m2" "$w/s3" > /dev/null 2>&1 && "$af" merge "$w/m2" "$w/s2" "$w/s1" > /dev/null 2>&1
sums "$w/m2" | grep -v ' ./parts/' > "$w/sum3"
grep -v ' ./parts/' "$w/sum1" > "$w/sum1p"
# the part records name the folder each came from; everything else is the same whatever the order
cmp -s "$w/sum1p" "$w/sum3" && ok "parts merged in another order and in two runs give the same folder" ||
  bad "order changed: $(diff "$w/sum1p" "$w/sum3" | head)"
if python3 "$here/tests/scripts/compare_campaigns.py" "$w/m" "$w/m2" > /dev/null; then ok "and the same classes"; else bad "classes differ by order"; fi
"$af" merge "$w/m3" "$w/s1" > /dev/null 2>&1 && "$af" merge "$w/m3" "$w/m" > "$w/outn" 2>&1
if grep -q "3 part(s) (2 new, 0 updated, 1 already merged)" "$w/outn" && python3 "$here/tests/scripts/compare_campaigns.py" "$w/m" "$w/m3" > /dev/null; then
  ok "a merge merged into another brings its parts (the one it had already: unchanged)"
else bad "a merge of a merge: $(cat "$w/outn")"; fi
"$af" merge "$w/m" "$w/ref" > "$w/out3" 2>&1
rc=$?
sums "$w/m" > "$w/sum4"
[ $rc -eq 2 ] && grep -q "$w/ref: its campaign's converter is 'ref', but .* has 'naive'" "$w/out3" && cmp -s "$w/sum1" "$w/sum4" &&
  ok "a folder of another converter is refused, naming it and the field; OUT unchanged" || bad "another converter: exit $rc: $(cat "$w/out3")"
mkdir -p "$w/empty"
"$af" merge "$w/m" "$w/empty" > "$w/out4" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "$w/empty: not a campaign folder (no state.json)" "$w/out4" && ok "a folder that is no campaign's is refused" ||
  bad "no campaign: exit $rc: $(cat "$w/out4")"
"$af" merge "$w/s1" "$w/s2" > "$w/out5" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "$w/s1 holds a campaign, not a merge" "$w/out5" && ok "a campaign folder as OUT is refused" || bad "campaign as OUT: exit $rc: $(cat "$w/out5")"
"$af" fuzz "${common[@]}" --shard 2/3 --out "$w/s1" > "$w/out6" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "holds a campaign of shard 1/3, this one is shard 2/3" "$w/out6" && ok "a shard folder resumes only with its own --shard" ||
  bad "resume with another shard: exit $rc: $(cat "$w/out6")"
"$af" report "$w/m" > /dev/null 2>&1 && grep -q "merged from 3 campaign folder(s)" "$w/m/report.md" && grep -q "shard 3/3" "$w/m/report.html" &&
  ok "aliasfuzz report re-renders the merge, naming its parts" || bad "report of the merge: $(head -6 "$w/m/report.md")"
echo "1..$n"
