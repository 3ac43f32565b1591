#!/usr/bin/env bash
# report.html in a real browser (issue 30): a short naive campaign and a two-converter conformance
# run made here, each report.html opened in headless Chromium (Debian's package). --dump-dom: the
# campaign page's first table is the bug classes table and its charts are there (classes and
# findings, verdicts over time, the time split, programs/s), drawn as inline SVG; the conformance
# page has its pass-rate-per-family chart; neither page loads anything. --screenshot: the page
# renders, not blank. Exits 77 (ctest SKIP) only when no chromium is installed.
# Usage: report_in_browser.sh ALIASFUZZ [SCREENSHOT.png] (keeps the campaign's screenshot there)
set -u
af=$1 keep=${2:-}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: no chromium (scripts/setup.sh installs Debian's chromium package)"
  exit 77
fi
py=$(command -v python3) || { echo "not ok: no python3 to read the DOM"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "not ok $1"; fail=1; }
# headless Chromium as root in a container needs --no-sandbox; its own profile keeps runs apart
run_browser() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/profile" \
    --no-first-run --disable-extensions "$@" 2>>"$tmp/browser.log"
}

"$af" fuzz --converter naive --seed 1 --iterations 60 --jobs 1 --reduce-share 1 --out "$tmp/c" >"$tmp/fuzz.log" 2>&1
rc=$?
[ "$rc" = 1 ] || { bad "the naive campaign exits 1 (it finds bugs): exit $rc"; tail -5 "$tmp/fuzz.log"; exit 1; }
run_browser --dump-dom "file://$tmp/c/report.html" >"$tmp/dom.html" || { bad "chromium --dump-dom failed"; tail -5 "$tmp/browser.log"; exit 1; }
"$py" - "$tmp/dom.html" "$tmp/c/report.html" "$tmp/c" <<'EOF' || fail=1
import html.parser, json, sys
dom = open(sys.argv[1]).read()
src = open(sys.argv[2]).read()
state = json.load(open(sys.argv[3] + "/state.json"))
report = json.load(open(sys.argv[3] + "/report.json"))
class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.h2, self.svgs, self.shapes, self.loads, self.cells = [], [], [], {}, [], []
        self.in_h2 = self.in_td = False
        self.svg = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table": self.tables.append(a.get("class", ""))
        if tag == "h2": self.in_h2 = True; self.h2.append("")
        if tag == "svg": self.svg = a.get("aria-label", ""); self.svgs.append(self.svg)
        if self.svg is not None and tag in ("polyline", "polygon", "rect"):
            self.shapes.setdefault(self.svg, set()).add(tag)
        if tag in ("script", "link", "img", "iframe") or "src" in a: self.loads.append(tag)
        if tag == "td" and len(self.tables) == 1: self.in_td = True; self.cells.append("")
    def handle_endtag(self, tag):
        if tag == "h2": self.in_h2 = False
        if tag == "svg": self.svg = None
        if tag == "td": self.in_td = False
    def handle_data(self, d):
        if self.in_h2: self.h2[-1] += d
        if self.in_td: self.cells[-1] += d
p = Page(); p.feed(dom)
bad = 0
def check(cond, what):
    global bad
    print(("ok   " if cond else "not ok ") + what)
    bad |= not cond
check(p.tables and p.tables[0] == "classes", "the first table of the page is the bug classes table (tables: %s)" % p.tables[:4])
check(p.h2 and p.h2[0].startswith("Bug classes"), "the first section is the bug classes (h2: %s)" % p.h2[:3])
check("new" in p.cells and "write@in" in p.cells, "the classes table lists naive's write@in class as new: %s" % p.cells[:12])
want = {"bug classes and findings over the campaign": "polyline", "verdict counts over the campaign, stacked": "polygon",
        "where the campaign's time went": "rect", "programs per second over the campaign": "polyline"}
for label, shape in want.items():
    check(shape in p.shapes.get(label, ()), "chart '%s' is an inline SVG with a %s" % (label, shape))
# what the charts are drawn from: state.json's history samples carry the verdict counts, the last
# one the campaign's; every finding was minimized and generalized during the search
last = state["history"][-1]
check(len(last) == 3 and last[2] == report["verdicts"] and sum(last[2].values()) == last[1] == report["programs"],
      "state.json's last history sample holds the campaign's verdict counts: %s vs %s" % (last, report["verdicts"]))
check(state.get("generalize_seconds", 0) > 0 and "generalizing during the search" in dom,
      "the time split shows generalizing (%.2f s in state.json)" % state.get("generalize_seconds", 0))
check(not p.loads, "the page loads nothing (no script, link, img, src): %s" % p.loads)
check("<script" not in src and "url(" not in src and "@import" not in src, "report.html has no script, url() or @import")
sys.exit(bad)
EOF

# the page as a person sees it: rendered, not blank (many non-white pixels in the top 900 rows)
run_browser --window-size=1280,1800 --screenshot="$tmp/shot.png" "file://$tmp/c/report.html" >/dev/null ||
  { bad "chromium --screenshot failed"; tail -5 "$tmp/browser.log"; }
"$py" - "$tmp/shot.png" <<'EOF' || fail=1
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    if kind == b"IDAT": idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4}[ctype]
raw, stride, prev, rows, inked = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0, 0
colors = set()
for y in range(min(h, 900)):  # undo the PNG row filters, then count pixels that are not white
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for x in range(0, w, 4):
        px = bytes(line[x * bpp:x * bpp + 3])
        inked += px != b"\xff\xff\xff"
        colors.add(px)
ok = inked > 5000 and len(colors) > 20
print(("ok   " if ok else "not ok ") + "the screenshot (%dx%d) is a rendered page: %d inked pixels, %d colors in the top 900 rows" % (w, h, inked, len(colors)))
sys.exit(0 if ok else 1)
EOF
[ -n "$keep" ] && cp "$tmp/shot.png" "$keep"

# the conformance page: a pass-rate-per-family chart, one bar per converter
mkdir -p "$tmp/suite"
cp corpus/conformance/mx-slice-add_-*.json corpus/conformance/ali-base-and-slice-*.json "$tmp/suite/" 2>/dev/null
for conv in naive ref; do
  "$af" check "$tmp/suite" --converter "$conv" --expect "$tmp/expect-$conv.json" --update-expect --report "$tmp/rep" \
    --quiet >"$tmp/check.log" 2>&1 || { bad "check --converter $conv: exit $?"; tail -3 "$tmp/check.log"; }
done
run_browser --dump-dom "file://$tmp/rep/report.html" >"$tmp/cdom.html" || bad "chromium --dump-dom (conformance) failed"
if grep -q 'aria-label="pass rate per suite family, per converter"' "$tmp/cdom.html" &&
   [ "$(grep -o '<title>[a-z]*, matrix-through: [0-9]* of [0-9]* pass</title>' "$tmp/cdom.html" | wc -l)" = 2 ]; then
  ok "the conformance page has its pass rate per family chart, one bar per converter"
else
  bad "the conformance page's pass rate per family chart"; grep -o '<svg[^>]*>' "$tmp/cdom.html" | head -3
fi
exit $fail
