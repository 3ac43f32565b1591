"""bench/coverage/report.py - the figures of bench/bench_coverage.sh: line coverage of the six
files where AOTAutograd and functionalization handle mutation and aliasing (issue 33), counting
only the lines that importing them does not already run.

usage: report.py WORK RC PHASE...   (run with coverage.py importable)
WORK/PHASE/ holds the parallel data files of one phase (one per process); PHASE "import" is the
baseline. A PHASE written A+B is the union of phases A and B. Prints markdown: a table per phase,
then the functions of the six files whose non-import lines the last phase reaches least."""
import ast
import os
import sys

FILES = [
    "torch/_functorch/_aot_autograd/collect_metadata_analysis.py",
    "torch/_functorch/_aot_autograd/functional_utils.py",
    "torch/_functorch/_aot_autograd/input_output_analysis.py",
    "torch/_functorch/_aot_autograd/runtime_wrappers.py",
    "torch/_functorch/_aot_autograd/schemas.py",
    "torch/_subclasses/functional_tensor.py",
]


def phase_lines(work, rc, phase):
    """{short name: set of lines run} of one phase, its processes combined."""
    folder = os.path.join(work, phase)
    files = [f for f in os.listdir(folder) if f.startswith("cov.")] if os.path.isdir(folder) else []
    if not files:
        sys.exit("report.py: no coverage data in %s (did the phase run under coverage?)" % folder)
    import coverage

    cov = coverage.Coverage(data_file=os.path.join(folder, "cov"), config_file=rc)
    cov.combine([folder], keep=True)
    data = cov.get_data()
    out = {name: set() for name in FILES}
    paths = {}
    for path in data.measured_files():
        for name in FILES:
            if path.endswith("/" + name):
                out[name] |= set(data.lines(path) or ())
                paths[name] = path
    return out, paths, len(files)


def statements(rc, path):
    import coverage

    cov = coverage.Coverage(data_file=None, config_file=rc)
    return set(cov.analysis2(path)[1])


def functions(path):
    """[(qualified name, first line, last line)] of every function, innermost last."""
    tree = ast.parse(open(path).read())
    out = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    out.append((q, child.lineno, child.end_lineno))
                walk(child, q + ".")
            else:
                walk(child, prefix)

    walk(tree, "")
    return out


def main():
    work, rc, phases = sys.argv[1], sys.argv[2], sys.argv[3:]
    runs, paths = {}, {}
    for phase in ["import"] + phases:
        total = {name: set() for name in FILES}
        procs = 0
        for part in phase.split("+"):
            lines, p, n = phase_lines(work, rc, part)
            paths.update(p)
            procs += n
            for name in FILES:
                total[name] |= lines[name]
        runs[phase] = (total, procs)
    missing = [n for n in FILES if n not in paths]
    if missing:
        sys.exit("report.py: never measured: %s" % ", ".join(missing))
    stmts = {n: statements(rc, paths[n]) for n in FILES}
    imported = runs["import"][0]
    base = {n: stmts[n] - imported[n] for n in FILES}
    print("| file | statements | run at import | not run at import | " +
          " | ".join("%s" % p for p in phases) + " |")
    print("|---|---:|---:|---:|" + "---:|" * len(phases))
    rows = FILES + ["all six"]
    for n in rows:
        names = FILES if n == "all six" else [n]
        s = sum(len(stmts[k]) for k in names)
        i = sum(len(stmts[k] & imported[k]) for k in names)
        b = sum(len(base[k]) for k in names)
        cells = []
        for p in phases:
            r = sum(len(runs[p][0][k] & base[k]) for k in names)
            cells.append("%d (%.1f%%)" % (r, 100.0 * r / b if b else 0))
        label = ("`%s`" % n.split("/")[-1]) if n != "all six" else "**all six**"
        print("| %s | %d | %d | %d | %s |" % (label, s, i, b, " | ".join(cells)))
    print()
    print("Processes measured: " + ", ".join("%s %d" % (p, runs[p][1]) for p in ["import"] + phases))
    last = phases[-1]
    print()
    print("Functions of the six files by non-import lines that `%s` does not reach (the 40 largest gaps):" % last)
    print()
    print("| file | function | lines | not reached |")
    print("|---|---|---:|---:|")
    gaps = []
    for n in FILES:
        fs = functions(paths[n])
        owner = {}
        for q, a, b in fs:  # innermost wins: later (nested) entries overwrite
            for line in range(a, b + 1):
                owner[line] = q
        per = {}
        for line in base[n]:
            q = owner.get(line, "(module level)")
            tot, miss = per.get(q, (0, 0))
            per[q] = (tot + 1, miss + (line not in runs[last][0][n]))
        for q, (tot, miss) in per.items():
            if miss:
                gaps.append((miss, tot, n.split("/")[-1], q))
    gaps.sort(key=lambda g: (-g[0], g[2], g[3]))
    for miss, tot, f, q in gaps[:40]:
        print("| `%s` | `%s` | %d | %d |" % (f, q, tot, miss))


if __name__ == "__main__":
    main()
