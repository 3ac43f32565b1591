#!/usr/bin/env python3
"""compare_campaigns.py A B: whether campaign folders A and B (one a merge) hold the same classes,
counts and findings (issue 32): each class's key, verdict, pattern, count, findings, smallest program,
statements and first iteration; the flaky and harness lists; each finding's count, first and latest
iteration and class; the report's programs and verdicts. Prints what differs; exit 1 when anything does."""
import json
import os
import sys


def classes(d):
    idx = json.load(open(os.path.join(d, "classes.json")))
    out = {}
    for c in idx["classes"]:
        out[c["key"]] = (c["verdict"], c.get("pattern"), c["count"], sorted(c["findings"]), c.get("smallest"), c.get("statements"),
                         c["first"]["iteration"])
    apart = {k: sorted((e["finding"], e["count"]) for e in idx.get(k, [])) for k in ("flaky", "harness")}
    return out, apart


def findings(d):
    out = {}
    for f in sorted(os.listdir(os.path.join(d, "findings"))):
        if f.startswith("."):
            continue
        j = json.load(open(os.path.join(d, "findings", f, "finding.json")))
        out[f] = (j["count"], j["first"]["iteration"], j["latest"]["iteration"], j.get("class"))
    return out


def figures(d):
    r = json.load(open(os.path.join(d, "report.json")))
    return r["programs"], r["verdicts"], len(r["classes"]), len(r["findings"])


def main(a, b):
    bad = 0
    for what, f in (("classes", classes), ("findings", findings), ("report figures", figures)):
        x, y = f(a), f(b)
        if what == "classes":
            (x, xa), (y, ya) = x, y
            if xa != ya:
                bad += 1
                print(f"flaky/harness lists differ: {xa} vs {ya}")
        if x != y:
            bad += 1
            if isinstance(x, dict):
                for k in sorted(set(x) | set(y)):
                    if x.get(k) != y.get(k):
                        print(f"{what} differ at {k[:100]}: {x.get(k)} vs {y.get(k)}")
            else:
                print(f"{what} differ: {x} vs {y}")
    n = len(classes(a)[0])
    print(f"{'different' if bad else 'the same'}: {n} classes, {len(findings(a))} findings, {figures(a)[0]} programs")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
