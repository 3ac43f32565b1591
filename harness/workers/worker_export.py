#!/usr/bin/env python3
"""worker_export.py - aliasfuzz worker `export`: torch.export.export of the program, run through
ep.module(). Speaks aliasfuzz-worker/1 (PROTOCOL.md). PyTorch 2.x only.

With each program:
  1. the TorchScript source runs as Python (afworker.program_module): an nn.Module whose forward
     calls the program function, or, with module state, whose forward is the program and whose
     buffers are registered with register_buffer;
  2. torch.export.export(module, args) on copies of the inputs laid out as the request says
     (req.fresh(): inputs that share a storage share a copy of it, as the caller's do; non-strict by default, as
     torch.export does by default; --strict traces with TorchDynamo); `export-decomp` (--decompose,
     worker_export_decomp.py) then calls ep.run_decompositions() (the core ATen opset);
  3. ep.module() runs on fresh copies of the inputs laid out the same way, its buffers set to
     clones of theirs. The unlifted module writes input mutations back into its caller's tensors
     and buffer mutations into its buffers, as export's graph signature says (USER_INPUT_MUTATION,
     BUFFER_MUTATION), so an input's final state is its copy after the call, a buffer's is the
     module's attribute, and every storage's ("bases") the copy those inputs view.
The graph text is the exported program (graph signature and graph). "residual" counts in-place ops
left in the exported graph (export keeps them before run_decompositions).

An export failure that torch.export raises to say it cannot express the program (a graph break:
torch._dynamo.exc.Unsupported or UserError, a data-dependent guard) is "unsupported"; any other
export or run failure is "error".

Options: --decompose, --strict.
"""

import argparse
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import afworker  # noqa: E402


def unsupported_kinds(torch):
    """Exception classes by which torch.export declines a program."""
    kinds = []
    exc = getattr(getattr(torch, "_dynamo", None), "exc", None)
    for n in ("Unsupported", "UserError"):
        if exc is not None and hasattr(exc, n):
            kinds.append(getattr(exc, n))
    try:
        from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode
        kinds.append(GuardOnDataDependentSymNode)
    except ImportError:
        pass
    return tuple(kinds)


def count_inplace(gm):
    """In-place ATen ops (name ending in _) among gm's call_function nodes."""
    n = 0
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        name = getattr(getattr(node.target, "_schema", None), "name", "") or str(node.target)
        base = name.split("::")[-1].split(".")[0]
        if base.endswith("_") and not base.startswith("_"):
            n += 1
    return n


def caught_messages(caught, warns):
    afworker.add_warnings(caught, warns)


class ExportWorker:
    def __init__(self, torch, decompose, strict):
        self.torch, self.decompose, self.strict = torch, decompose, strict
        self.declines = unsupported_kinds(torch)

    def handle(self, req):
        torch = self.torch
        warns = []
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                m, args = afworker.program_module(req)
            except Exception as e:
                return afworker.fail("error", "the program as Python: " + afworker.exception_message(e))
            try:
                ep = torch.export.export(m, tuple(args), strict=self.strict)
                if self.decompose:
                    ep = ep.run_decompositions()
            except Exception as e:
                caught_messages(caught, warns)
                what = "torch.export.export" + (" + run_decompositions" if self.decompose else "")
                status = "unsupported" if isinstance(e, self.declines) else "error"
                return afworker.fail(status, "%s: %s" % (what, afworker.exception_message(e)), warnings=warns)
            t1 = time.perf_counter()
            try:
                graph = "%s\n%s" % (str(ep.graph_signature).strip(), ep.graph_module.code.strip("\n"))
            except Exception as e:
                graph = "<cannot print the exported program: %s>" % afworker.exception_message(e)
            try:
                gm = ep.module()
                outs, final, bases = afworker.module_call(gm, req)
            except Exception as e:
                caught_messages(caught, warns)
                return afworker.fail("error", "running ep.module(): " + afworker.exception_message(e), graph=graph,
                                     warnings=warns)
            t2 = time.perf_counter()
        caught_messages(caught, warns)
        if len(outs) != req.noutputs:
            warns.append("ep.module() returned %d values for %d outputs" % (len(outs), req.noutputs))
        return afworker.ok([afworker.encode_tensor(t) for t in outs], [afworker.encode_tensor(t) for t in final],
                           graph=graph, warnings=warns, residual=count_inplace(ep.graph_module),
                           timing={"export_s": round(t1 - t0, 4), "run_s": round(t2 - t1, 4)},
                           **afworker.bases_field(req, bases))


def warm_up(worker):
    """Exports and runs a small program with an input mutation and one with a module buffer, so the
    first real request does not pay for torch.export's lazy imports (seconds) and a broken install
    shows up as unavailable. None or the reason."""
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


def main(name="export", decompose=False):
    ap = argparse.ArgumentParser(description="aliasfuzz %s worker (speaks aliasfuzz-worker/1 on stdin/stdout)" % name)
    ap.add_argument("--decompose", action="store_true", default=decompose,
                    help="ep.run_decompositions() before running (the export-decomp converter)")
    ap.add_argument("--strict", action="store_true", help="torch.export.export(strict=True): trace with TorchDynamo")
    args = ap.parse_args()
    afworker._protect_stdout()
    versions = {}
    torch, why = afworker.find_torch()
    worker = None
    if torch is not None:
        versions["torch"] = torch.__version__
        if not hasattr(torch, "export") or not hasattr(torch.export, "export"):
            why = "torch %s has no torch.export (PyTorch 2.x only)" % torch.__version__
        else:
            worker = ExportWorker(torch, args.decompose, args.strict)
            why = warm_up(worker)
            if why:
                worker = None
    versions["ir"] = "core ATen (run_decompositions)" if args.decompose else "training IR"
    versions["strict"] = "yes" if args.strict else "no"
    versions["python"] = sys.version.split()[0]
    memory = afworker.limit_memory()
    if memory:
        versions["memory_mb"] = memory
    afworker.serve(name, versions, worker.handle if worker else None, available=worker is not None, reason=why,
                   module_state=True, layouts=True)


if __name__ == "__main__":
    main()
