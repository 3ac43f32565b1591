#!/usr/bin/env python3
"""worker_planted.py - the functorch worker with ONE deliberate mistake planted in its graph, as a
maintainer's regression would plant it (issue 25, "Planted mistakes": a campaign with --baseline
functorch must report exactly one new class, the planted mistake, and none of its findings in a
class marked as in the baseline). Speaks aliasfuzz-worker/1 (harness/workers/PROTOCOL.md).

The conversion is harness/workers/worker_functorch.py's, imported, not copied: the scripted
program through torch.func.functionalize + make_fx. The traced FX graph is then edited with
torch.fx before it runs, only where the mistake's pattern occurs (a program without that pattern
gets exactly the functorch worker's graph and answer):

  drop-copy        the copy_ that writes a mutated graph input back is removed (a lost write to an
                   input)
  slice-offset     slice_scatter(base, src, dim, start, end) scatters at start+1, end+1 (only where
                   end+1 stays within the dimension: a wrong scatter offset, not an error)
  scatter-lost     a *_scatter (slice_, select_, diagonal_, as_strided_scatter) is replaced by its
                   base (a write through a view lost)
  select-index     select_scatter(base, src, dim, i) scatters at index (i+1) mod size (where the
                   dimension has more than one index)
  diagonal-offset  diagonal_scatter(base, src, k, d1, d2) scatters at offset k+1, or k-1 where k+1's
                   diagonal is shorter (only where the diagonal keeps its length)
  strided-offset   as_strided_scatter(base, src, size, stride, off) scatters at storage offset off+1
                   (only where that stays inside the base)
  stale-copy       the copy_ into a graph input takes the value before the last write: the first
                   argument of the op that made the written value (only where that is not the
                   input itself, so a single write is left alone: drop-copy is that mistake)
  none             no mistake (the functorch worker's own answers)

Options: --mistake NAME (env AF_PLANTED_MISTAKE), and worker_functorch's --mode and --remove.
--hang-on OP (env AF_PLANTED_HANG): a request whose program holds a statement of op OP (in a
block too) never gets an answer (a planted hang: fuzz --batch must charge the converter-timeout
to that program, not to its batch's first, tests/scripts/batch_same_findings.sh).
The hello's versions name the mistake; the answer's graph text is the edited graph.

Use: aliasfuzz fuzz --converter 'external:.venv/bin/python tests/workers/worker_planted.py
--mistake drop-copy' --baseline functorch (bench/bench_planted.sh runs one campaign per mistake).
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "harness", "workers"))
import afworker  # noqa: E402
import worker_functorch  # noqa: E402


def _name(node):
    """The op's name without overload ("slice_scatter", "copy_"), or "" for a non-call node."""
    if getattr(node, "op", None) != "call_function":
        return ""
    return getattr(getattr(node.target, "overloadpacket", None), "__name__", str(node.target))


def _arg(node, i, default):
    """Positional argument i of node, or default where the trace left it out."""
    return node.args[i] if len(node.args) > i else default


def _set_arg(node, i, value, defaults):
    """Sets positional argument i, filling the ones the trace left out with defaults[len(args):i]."""
    args = list(node.args)
    while len(args) < i:
        args.append(defaults[len(args)])
    if len(args) == i:
        args.append(value)
    else:
        args[i] = value
    node.args = tuple(args)


def _shape(node):
    val = node.meta.get("val") if hasattr(node, "meta") else None
    return tuple(val.shape) if val is not None and hasattr(val, "shape") else None


def _write_backs(graph):
    """The copy_ nodes whose destination is a graph input (functionalize's write-backs)."""
    return [n for n in graph.nodes if _name(n) == "copy_" and getattr(n.args[0], "op", None) == "placeholder"]


def _drop(node, replacement):
    node.replace_all_uses_with(replacement)
    node.graph.erase_node(node)


def drop_copy(graph):
    for n in _write_backs(graph):
        _drop(n, n.args[0])


def stale_copy(graph):
    for n in _write_backs(graph):
        dest, value = n.args[0], n.args[1]
        before = _arg(value, 0, None) if _name(value) else None
        if getattr(before, "op", None) in ("placeholder", "call_function") and before is not dest \
                and _shape(before) == _shape(dest) and _shape(dest) is not None:
            n.args = (dest, before) + tuple(n.args[2:])


SCATTERS = ("slice_scatter", "select_scatter", "diagonal_scatter", "as_strided_scatter")


def scatter_lost(graph):
    for n in list(graph.nodes):
        if _name(n) in SCATTERS:
            _drop(n, n.args[0])


def _nodes(graph, name):
    return [n for n in graph.nodes if _name(n) == name]


def slice_offset(graph):
    # slice_scatter(self, src, dim=0, start=None, end=None, step=1)
    for n in _nodes(graph, "slice_scatter"):
        shape = _shape(n.args[0])
        if shape is None or not shape:
            continue
        dim = _arg(n, 2, 0)
        size = shape[dim]
        start, end = _arg(n, 3, None), _arg(n, 4, None)
        start = 0 if start is None else (start + size if start < 0 else start)
        end = size if end is None else (end + size if end < 0 else min(end, size))
        start = max(0, min(start, size))
        if start < end and end + 1 <= size:
            _set_arg(n, 3, start + 1, (None, None, 0, None))
            _set_arg(n, 4, end + 1, (None, None, 0, None))


def select_index(graph):
    # select_scatter(self, src, dim, index)
    for n in _nodes(graph, "select_scatter"):
        shape = _shape(n.args[0])
        if shape is None:
            continue
        size = shape[n.args[2]]
        if size > 1:
            n.args = n.args[:3] + ((n.args[3] % size + 1) % size,)


def _diagonal_length(n, m, k):
    return max(0, min(n, m - k)) if k >= 0 else max(0, min(n + k, m))


def diagonal_offset(graph):
    # diagonal_scatter(self, src, offset=0, dim1=0, dim2=1)
    for n in _nodes(graph, "diagonal_scatter"):
        shape = _shape(n.args[0])
        if shape is None:
            continue
        k, d1, d2 = _arg(n, 2, 0), _arg(n, 3, 0), _arg(n, 4, 1)
        rows, cols = shape[d1], shape[d2]
        length = _diagonal_length(rows, cols, k)
        for other in (k + 1, k - 1):
            if length > 0 and _diagonal_length(rows, cols, other) == length:
                _set_arg(n, 2, other, (None, None, 0))
                break


def strided_offset(graph):
    # as_strided_scatter(self, src, size, stride, storage_offset=None)
    for n in _nodes(graph, "as_strided_scatter"):
        shape = _shape(n.args[0])
        if shape is None:
            continue
        numel = 1
        for s in shape:
            numel *= s
        size, stride, off = n.args[2], n.args[3], _arg(n, 4, None) or 0
        if any(s == 0 for s in size):
            continue
        last = off + 1 + sum((s - 1) * st for s, st in zip(size, stride))
        if last < numel:
            _set_arg(n, 4, off + 1, (None, None, None, None))


MISTAKES = {
    "none": None,
    "drop-copy": drop_copy,
    "slice-offset": slice_offset,
    "scatter-lost": scatter_lost,
    "select-index": select_index,
    "diagonal-offset": diagonal_offset,
    "strided-offset": strided_offset,
    "stale-copy": stale_copy,
}


def planted(make_fx, mistake):
    """make_fx whose traced graph gets the mistake (recompiled: gm.code shows it)."""
    edit = MISTAKES[mistake]
    if edit is None:
        return make_fx

    def traced(fn, *a, **k):
        trace = make_fx(fn, *a, **k)

        def run(*inputs):
            gm = trace(*inputs)
            edit(gm.graph)
            gm.graph.lint()
            gm.recompile()
            return gm
        return run
    return traced


def _holds_op(body, op):
    """Whether a statement of body (a program's "body", blocks included) is op."""
    return any(st.get("op") == op or any(_holds_op(st.get(b) or [], op) for b in ("body", "then", "else")) for st in body)


class PlantedWorker(worker_functorch.FunctorchWorker):
    """The functorch worker whose make_fx plants the mistake. Its warm-up runs one program with an
    input mutation through the whole path (script, functionalize, make_fx, the edit, a run) before
    the hello, so that the first program of a campaign does not pay the first trace's imports
    against its --deadline."""
    name = "functorch-planted"
    warm_up = ("mutation",)

    @classmethod
    def options(cls, ap):
        super().options(ap)
        ap.add_argument("--mistake", choices=sorted(MISTAKES), default=os.environ.get("AF_PLANTED_MISTAKE", "none"))
        ap.add_argument("--hang-on", default=os.environ.get("AF_PLANTED_HANG", ""))

    def prepare(self):
        if self.args.mistake not in MISTAKES:
            sys.exit("worker_planted.py: unknown mistake %r (AF_PLANTED_MISTAKE); one of %s" % (
                self.args.mistake, ", ".join(sorted(MISTAKES))))

    def requires(self):
        versions = super().requires()
        self.make_fx = planted(self.make_fx, self.args.mistake)
        return versions

    def settings(self):
        return dict(super().settings(), mistake=self.args.mistake)

    def convert(self, req, warns):
        # AF_PLANTED_LOG=FILE: one line per conversion, the number of programs it held (a combined
        # program's meta says, fuzz --batch: tests/scripts/batch_same_findings.sh)
        log = os.environ.get("AF_PLANTED_LOG")
        if log:
            meta = req.program.get("meta") or {}
            with open(log, "a", encoding="utf-8") as f:
                f.write("%d\n" % int(meta.get("batch", 1)))
        if self.args.hang_on and _holds_op(req.program.get("body", []), self.args.hang_on):
            while True:
                time.sleep(60)
        return super().convert(req, warns)


if __name__ == "__main__":
    afworker.main(PlantedWorker)
