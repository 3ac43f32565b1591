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

import os

import afworker  # run as a script: its folder is first on sys.path


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


class FunctorchWorker(afworker.Worker):
    name = "functorch"
    memory_cap = False
    warm_up = ()
    timing = ("trace_s", "run_s")

    @classmethod
    def options(cls, ap):
        ap.add_argument("--mode", choices=("script", "python"), default=os.environ.get("AF_FUNCTORCH_MODE", "script"))
        ap.add_argument("--remove", choices=("mutations", "mutations_and_views"), default="mutations")

    def requires(self):
        versions = {}
        try:
            self.functionalize, self.make_fx = functorch_api(self.torch, versions)
        except Exception as e:
            raise afworker.Unavailable("cannot import functionalize and make_fx: %s" % e)
        return versions

    def settings(self):
        return {"mode": self.args.mode, "remove": self.args.remove}

    def convert(self, req, warns):
        with afworker.step("compile (%s)" % self.args.mode):
            if self.args.mode == "script":
                fn = getattr(afworker.script_unit(req.torchscript), req.function)
            else:
                fn = afworker.python_namespace(req.torchscript)[req.function]
        with afworker.step("functionalize + make_fx"):
            return self.make_fx(self.functionalize(fn, remove=self.args.remove))(*req.fresh()[0])

    def graph_text(self, gm):
        return gm.code.strip("\n")

    def run(self, req, gm, warns):
        state, bases = req.fresh()  # laid out as the request says: shared storages stay shared
        with afworker.step("running the FX graph"):
            result = afworker.as_list(gm(*state))
        return result, state, bases

    def extra(self, req, gm):
        return {"residual": count_residual(gm)}


if __name__ == "__main__":
    afworker.main(FunctorchWorker)
