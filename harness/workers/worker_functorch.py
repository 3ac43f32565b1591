#!/usr/bin/env python3
"""worker_functorch.py - aliasfuzz worker `functorch`: functorch.functionalize + make_fx, then
the traced FX graph is run. Speaks aliasfuzz-worker/1 (PROTOCOL.md).

With each program:
  1. the TorchScript source becomes a function: by default the *scripted* function
     (torch.jit.CompilationUnit), which the TorchScript interpreter runs op by op through the
     dispatcher, so functionalize sees exactly the scripted program's aten ops; --mode python
     runs the same source as plain Python instead (what a functorch user usually traces);
  2. make_fx(functionalize(fn, remove=...)) traces it on copies of the inputs laid out as the
     request says (req.fresh(): inputs that share a storage share a copy of it; real tensors, so
     data-dependent shapes such as boolean-mask indexing trace with these inputs' values);
  3. the FX graph runs on fresh copies laid out the same way. functionalize writes input
     mutations back with copy_ (and as_strided_ for shape changes) at the end of the graph, so
     the final state of each input is that copy after the run, and of each storage ("bases")
     the copy the inputs view.
The graph text is the GraphModule's code. "residual" counts in-place ops left in the graph other
than those writing a graph input back (the expected form of an input mutation).

Options: --mode script|python (env AF_FUNCTORCH_MODE), --remove mutations|mutations_and_views.
"""

import argparse
import os
import sys
import time
import typing
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import afworker  # noqa: E402


def python_function(src, name):
    """The TorchScript source run as Python (it is valid Python with these names defined)."""
    import torch
    g = {"torch": torch, "Tensor": torch.Tensor, "Tuple": typing.Tuple, "List": typing.List,
         "Optional": typing.Optional}
    aten_methods(torch, src)
    exec(compile(src, "<program>", "exec"), g)
    return g[name]


def aten_methods(torch, src):
    """TorchScript exposes every ATen op as a Tensor method; plain Python lacks some (alias, fill,
    zero, copy, gelu_, ...). Give Python the same ATen ops under the same names."""
    import re
    for name in sorted(set(re.findall(r"\.([A-Za-z_][A-Za-z0-9_]*)\(", src))):
        if not hasattr(torch.Tensor, name) and hasattr(torch.ops.aten, name):
            op = getattr(torch.ops.aten, name)
            setattr(torch.Tensor, name, (lambda o: lambda self, *args: o(self, *args))(op))


def _inplace(node):
    if getattr(node, "op", None) != "call_function":
        return False
    name = getattr(getattr(node.target, "overloadpacket", None), "__name__", str(node.target))
    return name.endswith("_") and not name.startswith("_")


def count_residual(gm):
    """In-place ops in the graph that do not write back into a graph input (directly, or through
    an in-place op on it such as the as_strided_ that restores a changed shape)."""
    n = 0
    for node in gm.graph.nodes:
        if not _inplace(node):
            continue
        base = node.args[0] if node.args else None
        while _inplace(base):
            base = base.args[0] if base.args else None
        if getattr(base, "op", None) != "placeholder":
            n += 1
    return n


class FunctorchWorker:
    def __init__(self, torch, make_fx, functionalize, mode, remove):
        self.torch, self.make_fx, self.functionalize = torch, make_fx, functionalize
        self.mode, self.remove = mode, remove

    def handle(self, req):
        warns = []
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if self.mode == "script":
                    fn = getattr(afworker.script_unit(req.torchscript), req.function)
                else:
                    fn = python_function(req.torchscript, req.function)
            except Exception as e:
                return afworker.fail("error", "compile (%s): %s" % (self.mode, afworker.exception_message(e)))
            try:
                gm = self.make_fx(self.functionalize(fn, remove=self.remove))(*req.fresh()[0])
            except Exception as e:
                return afworker.fail("error", "functionalize + make_fx: " + afworker.exception_message(e),
                                     warnings=[afworker.clean(w.message) for w in caught])
            t1 = time.perf_counter()
            graph = gm.code.strip("\n")
            state, bases = req.fresh()  # laid out as the request says: shared storages stay shared
            try:
                result = afworker.as_list(gm(*state))
            except Exception as e:
                return afworker.fail("error", "running the FX graph: " + afworker.exception_message(e), graph=graph,
                                     warnings=[afworker.clean(w.message) for w in caught])
        for w in caught:
            msg = afworker.clean(w.message)
            if msg not in warns:
                warns.append(msg)
        t2 = time.perf_counter()
        if len(result) != req.noutputs:
            warns.append("the graph returned %d values for %d outputs" % (len(result), req.noutputs))
        outputs = [afworker.encode_tensor(t) for t in result]
        inputs = [afworker.encode_tensor(t) for t in state]
        return afworker.ok(outputs, inputs, graph=graph, warnings=warns, residual=count_residual(gm),
                           timing={"trace_s": round(t1 - t0, 4), "run_s": round(t2 - t1, 4)},
                           **afworker.bases_field(req, bases))


def functorch_api(torch, versions):
    """functionalize and make_fx: torch.func's on PyTorch 2.x (functorch's there are deprecated
    aliases of them), the functorch package's on 1.13."""
    try:
        from torch.func import functionalize
        from torch.fx.experimental.proxy_tensor import make_fx
        versions["functorch"] = "torch.func %s" % torch.__version__
    except ImportError:
        import functorch
        from functorch import functionalize, make_fx
        versions["functorch"] = getattr(functorch, "__version__", torch.__version__)
    return functionalize, make_fx


def main():
    ap = argparse.ArgumentParser(description="aliasfuzz functorch worker (speaks aliasfuzz-worker/1 on stdin/stdout)")
    ap.add_argument("--mode", choices=("script", "python"), default=os.environ.get("AF_FUNCTORCH_MODE", "script"))
    ap.add_argument("--remove", choices=("mutations", "mutations_and_views"), default="mutations")
    args = ap.parse_args()
    afworker._protect_stdout()
    versions = {}
    torch, why = afworker.find_torch()
    worker = None
    if torch is not None:
        versions["torch"] = torch.__version__
        try:
            functionalize, make_fx = functorch_api(torch, versions)
            worker = FunctorchWorker(torch, make_fx, functionalize, args.mode, args.remove)
        except Exception as e:
            why = "cannot import functionalize and make_fx: %s" % e
    versions["mode"] = args.mode
    versions["remove"] = args.remove
    versions["python"] = sys.version.split()[0]
    afworker.serve("functorch", versions, worker.handle if worker else None, available=worker is not None, reason=why,
                   layouts=True)


if __name__ == "__main__":
    main()
