#!/usr/bin/env python3
"""worker_aot_eager.py - aliasfuzz worker `aot_eager`: torch.compile(fn, backend="aot_eager") on
the CPU (TorchDynamo captures, AOTAutograd functionalizes, the graph runs eagerly). The same file
serves `inductor` (worker_inductor.py: --backend inductor). Speaks aliasfuzz-worker/1
(PROTOCOL.md). PyTorch 2.x only.

With each program:
  1. the TorchScript source runs as Python (afworker.python_namespace): the program function, or
     with module state an nn.Module whose forward is the program and whose buffers are
     registered (afworker.program_module);
  2. torch.compile(function or module, backend=B) with the defaults users get (fullgraph=False:
     a graph break splits the program and the rest runs in Python; dynamic shapes by default);
     TorchDynamo's caches are reset before each program;
  3. the compiled callable runs once on fresh clones of the inputs (the buffers set to clones).
     AOTAutograd writes input mutations back into its caller's tensors and buffer mutations into
     the module's buffers, so the final states are those clones and attributes after the call.
Graph breaks (with their reasons) and recompilations are reported in "warnings", and the FX
graphs TorchDynamo handed the backend are the graph text. "residual" counts in-place ops in those
graphs (AOTAutograd functionalizes them afterwards: informational).

Options: --backend aot_eager|inductor|eager (default aot_eager), --cache-dir DIR (inductor: the
folder under which this worker process makes its own TORCHINDUCTOR_CACHE_DIR; env
AF_INDUCTOR_CACHE_DIR; default the system's temporary folder; removed when the worker exits).
"""

import atexit
import logging
import os
import shutil
import sys
import tempfile
import time

import afworker  # run as a script: its folder is first on sys.path


def inplace_nodes(gm):
    n = 0
    for node in gm.graph.nodes:
        if node.op == "call_method":
            name = str(node.target)
        elif node.op == "call_function":
            name = getattr(node.target, "__name__", str(node.target))
        else:
            continue
        base = name.split(".")[0]
        if base.endswith("_") and not base.startswith("_"):
            n += 1
    return n


class CompileWorker(afworker.Torch2Worker):
    """Compiles the program (TorchDynamo reset first) and runs it once; with "again" in the
    request (PROTOCOL.md "Calling again") the callable compiled for the previous request, if it
    was this program, runs again on this request's inputs without a reset: TorchDynamo's guards
    decide whether its cached graph serves these inputs or it recompiles."""
    name = "aot_eager"
    backend = "aot_eager"
    caches = True
    train = True  # module_call runs the backward through the compiled callable (PROTOCOL.md "Training")
    warm_up = ("mutation", "buffer")
    timing = ("compile_and_run_s",)

    @classmethod
    def options(cls, ap):
        ap.add_argument("--backend", default=cls.backend, help="torch.compile backend (aot_eager, inductor, eager)")
        ap.add_argument("--cache-dir", default=os.environ.get("AF_INDUCTOR_CACHE_DIR", ""),
                        help="inductor: make this worker's TORCHINDUCTOR_CACHE_DIR under this folder")

    def prepare(self):
        if self.args.backend == "inductor":
            self.cache_root = inductor_cache(self.args.cache_dir)
            self.second_dir = self.compiled_key = None  # own_cache: the last program compiled, its second folder
            print("inductor cache: %s" % self.cache_root, file=sys.stderr)
            os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")  # no compile worker pool on shared cores

    def requires(self):
        self.recompiles = afworker.LogCapture(logging.DEBUG, limit=500)  # recompilation reasons
        self.last = None  # (program key, module, compiled callable, graphs) of the last request
        self.current = None  # what convert() returned for this request
        try:  # the recompiles artifact logger says why a frame was compiled again
            self.torch._logging.set_logs(recompiles=True)
            logging.getLogger("torch._dynamo.guards.__recompiles").addHandler(self.recompiles)
        except Exception:
            pass
        cxx = cpp_compiler() if self.args.backend == "inductor" else None
        return {"cxx": cxx} if cxx else {}

    def own_cache(self, key):
        """A program compiled afresh a second time in a row (its other calling order: PROTOCOL.md
        "Calling again") compiles with a cache folder of its own, so that each order is judged on
        what it says: the AOTAutograd cache's key ignores input aliasing, and the first compile's
        entry (a synthetic-base graph) would be served to the second (docs/findings/
        inductor-autograd-cache-ignores-input-aliasing). Other programs use the worker's folder."""
        if self.args.backend != "inductor":
            return
        if self.second_dir:
            shutil.rmtree(self.second_dir, True)
        again = key == self.compiled_key
        self.second_dir = tempfile.mkdtemp(prefix="order-", dir=self.cache_root) if again else None
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = self.second_dir or self.cache_root
        self.compiled_key = key

    def settings(self):
        return {"backend": self.args.backend}

    def compile(self, fn, backend):
        """torch.compile of fn (the program function or module) for backend, with the options users
        get by default; a variant passes its own (worker_aot_eager_dynamic.py: dynamic=True)."""
        return self.torch.compile(fn, backend=backend)

    def convert(self, req, warns):
        """(module, compiled callable, graphs, graphs seen before this call, again)."""
        torch = self.torch
        from torch._dynamo.utils import counters
        self.counters = counters
        key = (req.torchscript, req.function, tuple(req.buffers), tuple(req.attributes), tuple(req.grad_inputs), req.train)
        again = req.again and self.last is not None and self.last[0] == key
        if req.again and not again:
            warns.append("second call: this worker holds no compiled callable of this program (restarted?): "
                         "compiled afresh")
        counters.clear()
        self.recompiles.messages = []
        self.current = None
        if again:
            _, m, compiled, graphs = self.last
            self.current = (m, compiled, graphs, len(graphs), True)
            return self.current
        self.last = None
        graphs = []
        real = torch._dynamo.lookup_backend(self.args.backend)

        def backend(gm, example_inputs):  # the named backend, seeing what it is handed
            graphs.append(gm)
            return real(gm, example_inputs)

        backend.__name__ = self.args.backend  # (errors name the backend: "backend='inductor' raised")
        torch._dynamo.reset()
        self.own_cache(key)
        with afworker.step("the program as Python"):
            if req.buffers:
                m, _ = afworker.program_module(req)
                compiled = self.compile(m, backend)
            else:
                m = torch.nn.Module()  # no state: module_call only calls `compiled`
                compiled = self.compile(afworker.python_namespace(req.torchscript)[req.function], backend)
        self.last = (key, m, compiled, graphs)
        self.current = (m, compiled, graphs, 0, False)
        return self.current

    def run(self, req, converted, warns):
        m, compiled, graphs, seen, again = converted
        with afworker.step("torch.compile(backend=%r)" % self.args.backend):
            result = afworker.module_call(m, req, forward=compiled)
        if again:
            new = len(graphs) - seen
            warns.insert(0, "second call of the compiled program: %s" % (
                "TorchDynamo compiled %d new graph(s) for these inputs" % new if new else
                "served by the graph(s) compiled for the first call"))
        return result

    def note(self, caught, warns):
        """Graph breaks, recompilations and Python warnings as warning lines."""
        for reason, n in sorted(self.counters["graph_break"].items()):
            lines = []
            for line in str(reason).splitlines():
                if line.strip().startswith("Developer debug context"):
                    break
                if line.strip():
                    lines.append(line.strip())
            warns.append("graph break (%dx): %s" % (n, afworker.clean(" | ".join(lines), 400)))
        for msg in self.recompiles.messages:
            warns.append("recompile: " + msg)
        new = len(self.current[2]) - self.current[3] if self.current else 0
        if new > 1:
            warns.append("TorchDynamo handed the backend %d graphs" % new)
        afworker.add_warnings(caught, warns)

    def extra(self, req, converted):
        _, _, graphs, seen, again = converted
        return {"residual": sum(inplace_nodes(g) for g in graphs), "graphs": len(graphs) - seen,
                "graph_breaks": sum(self.counters["graph_break"].values()),
                "recompiles": len(self.recompiles.messages), "again": bool(again)}

    def graph_text(self, converted):
        graphs = converted[2]
        if not graphs:
            return "(no graph: TorchDynamo compiled nothing, the program ran in Python)"
        return "\n".join("# graph %d\n%s" % (k, g.code.strip("\n")) for k, g in enumerate(graphs))


def cpp_compiler():
    """The C++ compiler Inductor calls (its base name), or None."""
    try:
        import torch._inductor.cpp_builder as cb
        return os.path.basename(str(cb.get_cpp_compiler()))
    except Exception:
        return None


CACHE_PREFIX = "aliasfuzz-inductor-"
STALE_S = 600  # a dead worker's folder nothing wrote into for this long is removed


def sweep_stale(root):
    """Removes the cache folders of inductor workers that are gone. A worker killed at its deadline
    or over its memory cap cannot remove its own (atexit does not run): two days of campaigns left
    354 of them, 236 MB, in /tmp. A folder CACHE_PREFIX<pid>-* is removed when no process <pid>
    runs and neither it nor an entry directly in it changed for STALE_S seconds (a live worker
    of another PID namespace sharing the folder keeps writing into it)."""
    try:
        names = os.listdir(root)
    except OSError:
        return
    now = time.time()
    for name in names:
        head, _, rest = name[len(CACHE_PREFIX):].partition("-")
        if not name.startswith(CACHE_PREFIX) or not head.isdigit() or not rest or int(head) == os.getpid():
            continue
        try:
            os.kill(int(head), 0)
            continue  # it runs
        except ProcessLookupError:
            pass
        except OSError:
            continue  # someone else's: not ours to judge
        path = os.path.join(root, name)
        try:
            newest = max([os.stat(path).st_mtime] + [e.stat().st_mtime for e in os.scandir(path)])
        except OSError:
            continue
        if now - newest >= STALE_S:
            shutil.rmtree(path, True)


def inductor_cache(base):
    """A fresh cache folder for this worker process under base (or the temporary folder), set as
    TORCHINDUCTOR_CACHE_DIR before torch is imported and removed when the worker exits; the
    folders dead workers left there are removed first (sweep_stale)."""
    if base:
        os.makedirs(base, exist_ok=True)
    sweep_stale(base or tempfile.gettempdir())
    path = tempfile.mkdtemp(prefix=CACHE_PREFIX + "%d-" % os.getpid(), dir=base or None)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = path
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(path, "triton"))
    atexit.register(shutil.rmtree, path, True)
    return path


if __name__ == "__main__":
    afworker.main(CompileWorker)
