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

import argparse
import atexit
import logging
import os
import shutil
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import afworker  # noqa: E402


class LogCapture(logging.Handler):
    """Collects the records of the loggers it is attached to (recompilation reasons)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record):
        try:
            msg = afworker.clean(record.getMessage(), 500)
        except Exception:
            return
        self.messages.append(msg)


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


class CompileWorker:
    def __init__(self, torch, backend):
        self.torch, self.backend = torch, backend
        self.recompiles = LogCapture()
        self.last = None  # (program key, module, compiled callable, graphs) of the last request
        try:  # the recompiles artifact logger says why a frame was compiled again
            torch._logging.set_logs(recompiles=True)
            logging.getLogger("torch._dynamo.guards.__recompiles").addHandler(self.recompiles)
        except Exception:
            pass

    def handle(self, req):
        """Compiles the program (TorchDynamo reset first) and runs it once; with "again" in the
        request (PROTOCOL.md "Calling again") the callable compiled for the previous request, if
        it was this program, runs again on this request's inputs without a reset: TorchDynamo's
        guards decide whether its cached graph serves these inputs or it recompiles."""
        torch = self.torch
        from torch._dynamo.utils import counters
        warns = []
        key = (req.torchscript, req.function, tuple(req.buffers))
        again = req.again and self.last is not None and self.last[0] == key
        if req.again and not again:
            warns.append("second call: this worker holds no compiled callable of this program (restarted?): "
                         "compiled afresh")
        t0 = time.perf_counter()
        counters.clear()
        self.recompiles.messages = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if again:
                _, m, compiled, graphs = self.last
                seen = len(graphs)
            else:
                self.last = None
                graphs, seen = [], 0
                real = torch._dynamo.lookup_backend(self.backend)

                def backend(gm, example_inputs):  # the named backend, seeing what it is handed
                    graphs.append(gm)
                    return real(gm, example_inputs)

                backend.__name__ = self.backend  # (errors name the backend: "backend='inductor' raised")
                torch._dynamo.reset()
                try:
                    if req.buffers:
                        m, _ = afworker.program_module(req)
                        compiled = torch.compile(m, backend=backend)
                    else:
                        m = torch.nn.Module()  # no state: module_call only calls `compiled`
                        compiled = torch.compile(afworker.python_namespace(req.torchscript)[req.function], backend=backend)
                except Exception as e:
                    return afworker.fail("error", "the program as Python: " + afworker.exception_message(e))
                self.last = (key, m, compiled, graphs)
            try:
                outs, final, bases = afworker.module_call(m, req, forward=compiled)
            except Exception as e:
                self.note(counters, graphs[seen:], warns, caught)
                return afworker.fail("error", "torch.compile(backend=%r): %s" % (self.backend, afworker.exception_message(e)),
                                     graph=self.graph_text(graphs), warnings=warns)
        t1 = time.perf_counter()
        new = graphs[seen:]
        self.note(counters, new, warns, caught)
        if len(outs) != req.noutputs:
            warns.append("the compiled function returned %d values for %d outputs" % (len(outs), req.noutputs))
        try:
            encoded = [afworker.encode_tensor(t) for t in outs], [afworker.encode_tensor(t) for t in final]
            extra = afworker.bases_field(req, bases)
        except Exception as e:
            return afworker.fail("error", "an output that is not a plain tensor: " + afworker.exception_message(e),
                                 graph=self.graph_text(graphs), warnings=warns)
        if again:
            warns.insert(0, "second call of the compiled program: %s" % (
                "TorchDynamo compiled %d new graph(s) for these inputs" % len(new) if new else
                "served by the graph(s) compiled for the first call"))
        return afworker.ok(encoded[0], encoded[1], graph=self.graph_text(graphs), warnings=warns,
                           residual=sum(inplace_nodes(g) for g in graphs), graphs=len(new),
                           graph_breaks=sum(counters["graph_break"].values()),
                           recompiles=len(self.recompiles.messages), again=bool(again),
                           timing={"compile_and_run_s": round(t1 - t0, 4)}, **extra)

    def note(self, counters, graphs, warns, caught):
        """Graph breaks, recompilations and Python warnings as warning lines."""
        for reason, n in sorted(counters["graph_break"].items()):
            lines = []
            for line in str(reason).splitlines():
                if line.strip().startswith("Developer debug context"):
                    break
                if line.strip():
                    lines.append(line.strip())
            warns.append("graph break (%dx): %s" % (n, afworker.clean(" | ".join(lines), 400)))
        for msg in self.recompiles.messages:
            warns.append("recompile: " + msg)
        if len(graphs) > 1:
            warns.append("TorchDynamo handed the backend %d graphs" % len(graphs))
        afworker.add_warnings(caught, warns)

    @staticmethod
    def graph_text(graphs):
        if not graphs:
            return "(no graph: TorchDynamo compiled nothing, the program ran in Python)"
        return "\n".join("# graph %d\n%s" % (k, g.code.strip("\n")) for k, g in enumerate(graphs))


def warm_up(worker):
    """Compiles and runs a small program with an input mutation and one with a module buffer, so
    the first real request does not pay for lazy imports and first compiles (seconds, tens of
    seconds for Inductor's C++ toolchain check) and a broken install shows up as unavailable."""
    import torch
    progs = [
        ({"inputs": [{"name": "x"}], "outputs": ["r"]},
         "def program(x: Tensor) -> Tensor:\n    x.add_(1)\n    r = torch.mul(x, 2)\n    return r\n", "program",
         [torch.ones(3)]),
        ({"inputs": [{"name": "b", "buffer": True}, {"name": "x"}], "outputs": ["r"]},
         "def forward(self, x: Tensor) -> Tensor:\n    self.b.mul_(2)\n    r = torch.add(self.b, x)\n    return r\n",
         "forward", [torch.ones(3), torch.ones(3)]),
    ]
    for prog, src, fn, inputs in progs:
        names = [i["name"] for i in prog["inputs"]]
        req = afworker.Request({"id": 0, "program": prog, "torchscript": src, "function": fn,
                                "inputs": [afworker.encode_tensor(t, n) for t, n in zip(inputs, names)]})
        a = worker.handle(req)
        if a["status"] != "ok":
            return "warm-up program failed: %s" % a.get("message")
    return None


def inductor_cache(base):
    """A fresh cache folder for this worker process under base (or the temporary folder), set as
    TORCHINDUCTOR_CACHE_DIR before torch is imported and removed when the worker exits."""
    if base:
        os.makedirs(base, exist_ok=True)
    path = tempfile.mkdtemp(prefix="aliasfuzz-inductor-%d-" % os.getpid(), dir=base or None)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = path
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(path, "triton"))
    atexit.register(shutil.rmtree, path, True)
    return path


def main(name="aot_eager", backend="aot_eager"):
    ap = argparse.ArgumentParser(description="aliasfuzz %s worker (speaks aliasfuzz-worker/1 on stdin/stdout)" % name)
    ap.add_argument("--backend", default=backend, help="torch.compile backend (aot_eager, inductor, eager)")
    ap.add_argument("--cache-dir", default=os.environ.get("AF_INDUCTOR_CACHE_DIR", ""),
                    help="inductor: make this worker's TORCHINDUCTOR_CACHE_DIR under this folder")
    args = ap.parse_args()
    afworker._protect_stdout()
    versions = {}
    if args.backend == "inductor":
        print("inductor cache: %s" % inductor_cache(args.cache_dir), file=sys.stderr)
        os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")  # no compile worker pool on shared cores
    torch, why = afworker.find_torch()
    worker = None
    if torch is not None:
        versions["torch"] = torch.__version__
        if not hasattr(torch, "compile"):
            why = "torch %s has no torch.compile (PyTorch 2.x only)" % torch.__version__
        else:
            try:
                worker = CompileWorker(torch, args.backend)
                why = warm_up(worker)
            except Exception as e:
                why = "cannot set up torch.compile(backend=%r): %s" % (args.backend, afworker.exception_message(e))
            if why:
                worker = None
    versions["backend"] = args.backend
    if args.backend == "inductor":
        try:
            import torch._inductor.cpp_builder as cb
            versions["cxx"] = os.path.basename(str(cb.get_cpp_compiler()))
        except Exception:
            pass
    versions["python"] = sys.version.split()[0]
    memory = afworker.limit_memory()
    if memory:
        versions["memory_mb"] = memory
    afworker.serve(name, versions, worker.handle if worker else None, available=worker is not None, reason=why,
                   module_state=True, layouts=True, caches=True)


if __name__ == "__main__":
    main()
