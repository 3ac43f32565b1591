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
# A class its campaign keyed on what annotation found after the search (annotate.c: "needs float64",
# the twin-dtype rule; such a class lists the "patterns" it was seen as) stays keyed so when merged:
# shard 1's and shard 2's first classes, rekeyed so by hand as annotate_float64 would, are one
# class in the merge of the two (the merge of the untouched shards has one class more), and a
# folder merged alone keeps its keys. The summary's bug classes are the report's.
if command -v jq > /dev/null; then
  rekey='(.classes[0]) |= (.patterns = [.pattern] | .key = ((.key | split("|"))[0] + "|wrong-result|needs float64"))'
  for k in 1 2; do
    cp -r "$w/s$k" "$w/f$k"
    jq "$rekey" "$w/s$k/classes.json" > "$w/f$k/classes.json"
  done
  "$af" merge "$w/m12" "$w/s1" "$w/s2" > /dev/null 2>&1
  "$af" merge "$w/mf" "$w/f1" "$w/f2" > "$w/outf" 2>&1
  "$af" merge "$w/mf1" "$w/f1" > /dev/null 2>&1
  plain=$(jq '.classes | length' "$w/m12/classes.json")
  folded=$(jq '.classes | length' "$w/mf/classes.json")
  f64=$(jq '[.classes[] | select(.key | endswith("|needs float64"))] | length' "$w/mf/classes.json")
  both=$(jq --argjson a "$(jq '.classes[0].findings' "$w/f1/classes.json")" --argjson b "$(jq '.classes[0].findings' "$w/f2/classes.json")" \
    '[.classes[] | select(.key | endswith("|needs float64")) | .findings as $f | ($a + $b) - $f | length == 0] | any' "$w/mf/classes.json")
  if [ "$f64" = 1 ] && [ "$both" = true ] && [ "$folded" -eq $((plain - 1)) ]; then
    ok "two shards' classes keyed 'needs float64' are one class in their merge ($plain -> $folded classes)"
  else bad "annotated keys in a merge: $f64 float64 class(es), both findings in it: $both, $plain vs $folded classes"; fi
  if cmp -s <(jq -S '[.classes[].key] | sort' "$w/f1/classes.json") <(jq -S '[.classes[].key] | sort' "$w/mf1/classes.json"); then
    ok "a folder merged alone keeps its class keys, annotated ones included"
  else bad "a folder merged alone: keys $(jq -c '[.classes[].key]' "$w/mf1/classes.json" | head -c 300)"; fi
  said=$(sed -n 's/.* programs, \([0-9]*\) bug class(es).*/\1/p' "$w/outf")
  if [ -n "$said" ] && grep -q "^- \*\*$said bug class(es)\*\*" "$w/mf/report.md"; then
    ok "merge says the bug classes its report says ($said)"
  else bad "merge said '$said' bug classes, its report: $(grep 'bug class' "$w/mf/report.md" | head -2)"; fi
fi
echo "1..$n"
