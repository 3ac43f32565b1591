# bench/section.sh - sourced by the bench scripts: bench_write_section NAME TEXT replaces the
# text between <!-- NAME:begin --> and <!-- NAME:end --> in bench/RESULTS.md (TEXT includes both
# markers), or appends TEXT when the file has no such section yet.
bench_write_section() {
  local name=$1 text=$2 f=bench/RESULTS.md
  [ -f "$f" ] || printf '# Benchmarks\n\n' >"$f"
  if grep -q "<!-- $name:begin -->" "$f"; then
    awk -v s="$text" -v b="<!-- $name:begin -->" -v e="<!-- $name:end -->" \
      'BEGIN{skip=0} $0 == b {print s; skip=1; next} $0 == e {skip=0; next} !skip' "$f" >"$f.tmp"
  else
    { cat "$f"; echo; echo "$text"; } >"$f.tmp"
  fi
  mv "$f.tmp" "$f"
}
