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

A training program (PROTOCOL.md "Training", docs/training.md) takes torch.func's own training path
on PyTorch 2.x: torch.func.vjp(f, *primals, has_aux=True), f calling functionalize(fn) on the inputs
with the primals (the inputs that require grad) in their places, the other inputs captured; the
cotangent of each floating-point output is its loss weight times ones; the .grad of each input that
requires grad is what vjp_fn gives. torch.func refuses to let the function mutate a captured tensor
(an input that does not require grad, written in place): "unsupported", its own stated limit.

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


class Training:
    """What convert() hands run() for a training program: the function, run by train_run."""

    def __init__(self, fn):
        self.fn = fn


class FunctorchWorker(afworker.Worker):
    name = "functorch"
    train = True  # torch.func.vjp over functionalize (the module docstring), PyTorch 2.x
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
        try:
            from torch.func import vjp
            self.vjp = vjp
        except ImportError:  # PyTorch 1.13: no torch.func; training programs get the inference form
            self.vjp = None
            self.train = False
        return versions

    def settings(self):
        return {"mode": self.args.mode, "remove": self.args.remove}

    def convert(self, req, warns):
        with afworker.step("compile (%s)" % self.args.mode):
            if self.args.mode == "script":
                fn = getattr(afworker.script_unit(req.torchscript), req.function)
            else:
                fn = afworker.python_namespace(req.torchscript)[req.function]
        if req.train:  # vjp traces and runs in one call (train_run)
            return Training(fn)
        with afworker.step("functionalize + make_fx"):
            return self.make_fx(self.functionalize(fn, remove=self.args.remove))(*req.fresh()[0])

    def graph_text(self, gm):
        if isinstance(gm, Training):
            return "(training: torch.func.vjp(functionalize(program)) runs the program itself; no graph)"
        return gm.code.strip("\n")

    def train_run(self, req, fn):
        """torch.func.vjp over functionalize(fn) (the module docstring): (outputs, final states, storages);
        req.grads set."""
        torch = self.torch
        state, bases = req.fresh()
        at = list(req.grad_inputs)
        func = self.functionalize(fn, remove=self.args.remove)

        def f(*primals):
            args = list(state)
            for k, t in zip(at, primals):
                args[k] = t
            outs = afworker.as_list(func(*args))
            diff = tuple(o for o in outs if isinstance(o, torch.Tensor) and o.is_floating_point())
            return diff, (outs, args)

        with afworker.step("torch.func.vjp(functionalize(program))"):
            try:
                diff, vjp_fn, (outs, final) = self.vjp(f, *[state[k] for k in at], has_aux=True)
            except RuntimeError as e:
                if "mutate a captured Tensor" in str(e):  # torch.func's own stated limit
                    raise afworker.Failure("unsupported", "torch.func.vjp: %s" % afworker.exception_message(e))
                raise
        weights = [w for o, w in zip(outs, req.loss) if isinstance(o, torch.Tensor) and o.is_floating_point()]
        with afworker.step("vjp_fn (the backward)"):
            grads = vjp_fn(tuple(w * torch.ones_like(o) for o, w in zip(diff, weights)))
        req.grads = [None] * len(state)
        for k, g in zip(at, grads):
            req.grads[k] = g
        return outs, final, bases

    def run(self, req, gm, warns):
        if isinstance(gm, Training):
            return self.train_run(req, gm.fn)
        state, bases = req.fresh()  # laid out as the request says: shared storages stay shared
        with afworker.step("running the FX graph"):
            result = afworker.as_list(gm(*state))
        return result, state, bases

    def extra(self, req, gm):
        return {"residual": 0 if isinstance(gm, Training) else count_residual(gm)}


if __name__ == "__main__":
    afworker.main(FunctorchWorker)
