#!/usr/bin/env python3
"""worker_tvm_relax.py - aliasfuzz worker `tvm-relax`: TVM Relax's PyTorch frontend
(tvm.relax.frontend.torch.from_exported_program, package apache-tvm), compiled for the CPU (llvm)
and run in the Relax VM. Speaks aliasfuzz-worker/1 (PROTOCOL.md). PyTorch 2.x only; the Relay
frontend of TVM 0.11-0.14 is the `tvm` worker.

With each program:
  1. the TorchScript source runs as Python: an nn.Module (afworker.program_module with
     returns_state) whose forward returns the program's outputs followed by the final state of
     every input, buffers included (a Relax function cannot mutate its caller's tensors);
  2. torch.export.export(module, args) on clones of the inputs, then from_exported_program(ep)
     (the buffers become bound constants holding the request's values);
  3. tvm.compile(mod, target="llvm") (relax.build on older releases) and relax.VirtualMachine on
     tvm.cpu() with the non-buffer inputs, in order.
A torch.export failure is "unsupported" with the reason (the frontend never saw the program); a
frontend that does not know an op (its "Unsupported function types" / NotImplementedError /
KeyError of the converter table) is "unsupported"; other failures are "error".

Options: --target (default llvm).
"""

import argparse
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import afworker  # noqa: E402


def import_tvm():
    """(tvm, relax, from_exported_program, None) or (None, None, None, reason)."""
    try:
        import tvm
        from tvm import relax
        from tvm.relax.frontend.torch import from_exported_program
    except ImportError as e:
        return None, None, None, "TVM with Relax is not installed (pip install apache-tvm): %s" % e
    except Exception as e:
        return None, None, None, "TVM does not import: %s: %s" % (type(e).__name__, e)
    return tvm, relax, from_exported_program, None


class TvmRelaxWorker:
    def __init__(self, torch, tvm, relax, from_ep, target):
        self.torch, self.tvm, self.relax, self.from_ep, self.target = torch, tvm, relax, from_ep, target
        self.build = getattr(tvm, "compile", None) or relax.build

    def handle(self, req):
        torch, tvm, relax = self.torch, self.tvm, self.relax
        warns = []
        t0 = time.perf_counter()
        try:
            m, args = afworker.program_module(req, returns_state=True)
        except Exception as e:
            return afworker.fail("error", "the program as Python: " + afworker.exception_message(e))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                ep = torch.export.export(m, tuple(args))
            except Exception as e:
                return afworker.fail("unsupported", "torch.export.export (before the frontend): " +
                                     afworker.exception_message(e))
            try:
                mod = self.from_ep(ep)
            except Exception as e:
                msg = afworker.exception_message(e)
                unsupported = isinstance(e, (NotImplementedError, KeyError)) or "Unsupported function type" in msg
                return afworker.fail("unsupported" if unsupported else "error", "from_exported_program: " + msg)
        afworker.add_warnings(caught, warns)
        t1 = time.perf_counter()
        try:
            graph = mod.script(show_meta=False)
        except Exception:
            graph = str(mod)
        try:
            ex = self.build(mod, target=self.target)
            dev = tvm.cpu(0)
            vm = relax.VirtualMachine(ex, dev)
            make = getattr(tvm.runtime, "tensor", None) or tvm.nd.array
            # the caller's tensors, each as an array of its own (a write through one cannot show in another)
            res = vm["main"](*[make(t.contiguous().numpy(), dev) for t in afworker.feeds(req)])
            vals = list(res) if not hasattr(res, "numpy") else [res]
            outs, final = afworker.split_state(req, [v.numpy() for v in vals])
        except Exception as e:
            return afworker.fail("error", "tvm build/run: " + afworker.exception_message(e), graph=graph, warnings=warns)
        t2 = time.perf_counter()
        return afworker.ok([afworker.encode_tensor(t) for t in outs], [afworker.encode_tensor(t) for t in final],
                           graph=graph, warnings=warns, residual=0,
                           timing={"convert_s": round(t1 - t0, 4), "build_run_s": round(t2 - t1, 4)},
                           **afworker.bases_field(req, afworker.write_back(req, final)))


def warm_up(worker):
    import torch
    req = afworker.Request({"id": 0, "program": {"inputs": [{"name": "x"}], "outputs": ["r"]},
                            "torchscript": "def program(x: Tensor) -> Tensor:\n    x.add_(1)\n    r = torch.mul(x, 2)\n    return r\n",
                            "inputs": [afworker.encode_tensor(torch.ones(2), "x")]})
    a = worker.handle(req)
    return None if a["status"] == "ok" else "warm-up program failed: %s" % a.get("message")


def main():
    ap = argparse.ArgumentParser(description="aliasfuzz tvm-relax worker (speaks aliasfuzz-worker/1 on stdin/stdout)")
    ap.add_argument("--target", default="llvm")
    args = ap.parse_args()
    afworker._protect_stdout()
    versions = {}
    torch, why = afworker.find_torch()
    worker = None
    if torch is not None:
        versions["torch"] = torch.__version__
        why = afworker.torch2_reason(torch)
    if torch is not None and why is None:
        tvm, relax, from_ep, why = import_tvm()
        if tvm is not None:
            versions["tvm"] = getattr(tvm, "__version__", "?")
            try:
                import tvm_ffi
                versions["tvm_ffi"] = getattr(tvm_ffi, "__version__", "?")
            except ImportError:
                pass
            worker = TvmRelaxWorker(torch, tvm, relax, from_ep, args.target)
            why = warm_up(worker)
            if why:
                worker = None
    versions["target"] = args.target
    versions["python"] = sys.version.split()[0]
    memory = afworker.limit_memory()
    if memory:
        versions["memory_mb"] = memory
    afworker.serve("tvm-relax", versions, worker.handle if worker else None, available=worker is not None, reason=why,
                   module_state=True, layouts=True)


if __name__ == "__main__":
    main()
