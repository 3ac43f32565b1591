#!/usr/bin/env bash
# Durability of a campaign folder (issue 27): the same campaign three ways, compared by what it
# ends with (every class with its count, every finding with its count):
#   1. uninterrupted;
#   2. killed with SIGKILL every KILL_EVERY seconds and resumed each time (same command);
#   3. on a tmpfs that fills up about halfway through (a filler file leaves half the space the
#      uninterrupted run took), rerun once the filler is removed.
# The campaign is `--converter naive` (deliberately wrong: many findings), one job, every finding
# minimized whatever the load (--reduce-share 1 --reduce-time 600), so that runs can be compared.
# Needs root for the tmpfs (the third run is skipped otherwise). Writes its section of
# bench/RESULTS.md. Run on demand, not in CI:
#   bash bench/bench_durability.sh [ITERATIONS] [KILL_EVERY] [AFBIN]
set -euo pipefail
cd "$(dirname "$0")/.."
iters=${1:-4000}
every=${2:-30}
bin=${3:-build/aliasfuzz}
[ -x "$bin" ] || { echo "bench_durability: $bin is not built" >&2; exit 2; }
bin=$(readlink -f "$bin")
tmp=$(mktemp -d)
mnt=""
cleanup() {
  [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
args=(fuzz --converter naive --seed 1 --iterations "$iters" --jobs 1 --reduce-share 1 --reduce-time 600 --quiet)

# what a campaign folder ended with, sorted
outcome() {
  python3 - "$1" <<'EOF'
import json, os, sys
d = sys.argv[1]
rows = []
for c in json.load(open(os.path.join(d, 'classes.json'))).get('classes', []):
    rows.append(f"class {c['id']} {c['count']}")
for f in sorted(os.listdir(os.path.join(d, 'findings'))):
    p = os.path.join(d, 'findings', f, 'finding.json')
    if os.path.exists(p):
        rows.append(f"finding {f} {json.load(open(p))['count']}")
print('\n'.join(sorted(rows)))
EOF
}
# "N classes (C programs), F findings (P programs)"
figures() {
  awk '$1 == "class" {c++; cp += $3} $1 == "finding" {f++; fp += $3} END {printf "%d classes (%d programs), %d findings (%d programs)", c, cp, f, fp}' "$1"
}
same() { cmp -s "$1" "$2" && echo "identical" || echo "DIFFERENT ($(diff "$1" "$2" | grep -c '^[<>]') lines differ)"; }

load0=$(cut -d' ' -f1-3 /proc/loadavg)
# 1. uninterrupted
t0=$(date +%s.%N)
rc=0; "$bin" "${args[@]}" --out "$tmp/plain" >"$tmp/plain.log" 2>&1 || rc=$?
t1=$(date +%s.%N)
outcome "$tmp/plain" >"$tmp/plain.txt"
plain_s=$(printf %.1f "$(echo "$t1 - $t0" | bc)")
plain_kb=$(du -sk "$tmp/plain" | cut -f1)
echo "uninterrupted: exit $rc, $plain_s s, $(figures "$tmp/plain.txt"), $plain_kb KB"

# 2. SIGKILL every $every s, resumed each time
kills=0
t0=$(date +%s.%N)
while :; do
  "$bin" "${args[@]}" --out "$tmp/killed" >>"$tmp/killed.log" 2>&1 &
  pid=$!
  for ((s = 0; s < every * 10; s++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    kills=$((kills + 1))
    sleep 0.2
  else
    rc=0; wait "$pid" || rc=$?
    [ "$rc" -le 1 ] && break
    echo "bench_durability: a resumed run exited $rc" >&2; tail -5 "$tmp/killed.log" >&2; exit 1
  fi
done
t1=$(date +%s.%N)
killed_s=$(printf %.1f "$(echo "$t1 - $t0" | bc)")
outcome "$tmp/killed" >"$tmp/killed.txt"
killed_same=$(same "$tmp/plain.txt" "$tmp/killed.txt")
echo "killed $kills times: $killed_s s, $(figures "$tmp/killed.txt"): $killed_same"

# 3. the filesystem fills up halfway
full_row="| disk full halfway, rerun after freeing it | - | - | not run: mounting a tmpfs needs root | - |"
full_note=""
if [ "$(id -u)" = 0 ]; then
  mnt=$tmp/mnt
  mkdir -p "$mnt"
  size_kb=$((plain_kb * 2 + 8192))
  if mount -t tmpfs -o size=${size_kb}k aliasfuzz-bench "$mnt" 2>/dev/null; then
    dd if=/dev/zero of="$mnt/filler" bs=1k count=$((size_kb - plain_kb / 2)) 2>/dev/null || true
    t0=$(date +%s.%N)
    rc1=0; "$bin" "${args[@]}" --out "$mnt/c" >"$tmp/full1.log" 2>&1 || rc1=$?
    first=$(grep -o 'NOT WRITTEN: [^;]*' "$tmp/full1.log" | head -1 | sed "s|$mnt/||")
    programs=$(tail -1 "$tmp/full1.log" | grep -o '^[0-9]* programs' || echo "? programs")
    rm -f "$mnt/filler"
    rc2=0; "$bin" "${args[@]}" --out "$mnt/c" >"$tmp/full2.log" 2>&1 || rc2=$?
    t1=$(date +%s.%N)
    outcome "$mnt/c" >"$tmp/full.txt"
    full_same=$(same "$tmp/plain.txt" "$tmp/full.txt")
    full_row="| disk full halfway (tmpfs of ${size_kb} KB, $((plain_kb / 2)) KB left free), rerun after freeing it | $rc1, then $rc2 | $(printf %.1f "$(echo "$t1 - $t0" | bc)") | $(figures "$tmp/full.txt") | $full_same |"
    full_note="The first run stopped after $programs: $first."
  else
    full_row="| disk full halfway | - | - | not run: mount -t tmpfs failed here | - |"
  fi
fi
echo "$full_row"
load1=$(cut -d' ' -f1-3 /proc/loadavg)

. bench/section.sh
bench_write_section durability "<!-- durability:begin -->
## A campaign killed every ${every} s, and one whose disk fills up halfway (issue 27, bench/bench_durability.sh)

\`aliasfuzz ${args[*]}\` ($(basename "$(dirname "$bin")")/aliasfuzz, $(date -u +%Y-%m-%d), $(nproc) cores shared with
other agents: load average $load0 before, $load1 after). Sized to run a few minutes, not the 10 of
the issue (the machine is shared). Compared by every class and every finding with its count.

| run | exit | wall s | outcome | vs uninterrupted |
|---|---|---:|---|---|
| uninterrupted | 1 | $plain_s | $(figures "$tmp/plain.txt") | - |
| SIGKILL every ${every} s, resumed ($kills kills) | 1 | $killed_s | $(figures "$tmp/killed.txt") | $killed_same |
$full_row

$full_note
<!-- durability:end -->"
