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
A torch.export refusal (afworker.export_declines) is "unsupported" with the reason, another torch.export failure "error"; a
frontend that does not know an op (its "Unsupported function types" / NotImplementedError /
KeyError of the converter table) is "unsupported"; other failures are "error".

Options: --target (default llvm).
"""

import afworker  # run as a script: its folder is first on sys.path


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


class TvmRelaxWorker(afworker.Torch2Worker):
    name = "tvm-relax"
    timing = ("convert_s", "build_run_s")

    @classmethod
    def options(cls, ap):
        ap.add_argument("--target", default="llvm")

    def requires(self):
        tvm, relax, from_ep, why = import_tvm()
        if tvm is None:
            raise afworker.Unavailable(why)
        self.tvm, self.relax, self.from_ep = tvm, relax, from_ep
        self.build = getattr(tvm, "compile", None) or relax.build
        versions = {"tvm": getattr(tvm, "__version__", "?")}
        try:
            import tvm_ffi
            versions["tvm_ffi"] = getattr(tvm_ffi, "__version__", "?")
        except ImportError:
            pass
        return versions

    def settings(self):
        return {"target": self.args.target}

    def convert(self, req, warns):
        ep = afworker.export_state(req)
        try:
            return self.from_ep(ep)
        except Exception as e:
            msg = afworker.exception_message(e)
            unsupported = isinstance(e, (NotImplementedError, KeyError)) or "Unsupported function type" in msg
            raise afworker.Failure("unsupported" if unsupported else "error", "from_exported_program: " + msg)

    def graph_text(self, mod):
        try:
            return mod.script(show_meta=False)
        except Exception:
            return str(mod)

    def run(self, req, mod, warns):
        tvm = self.tvm
        with afworker.step("tvm build/run"):
            ex = self.build(mod, target=self.args.target)
            dev = tvm.cpu(0)
            vm = self.relax.VirtualMachine(ex, dev)
            make = getattr(tvm.runtime, "tensor", None) or tvm.nd.array
            # the caller's tensors, each as an array of its own (a write through one cannot show in another)
            res = vm["main"](*[make(t.contiguous().numpy(), dev) for t in afworker.feeds(req)])
            vals = list(res) if not hasattr(res, "numpy") else [res]
            outs, final = afworker.split_state(req, [v.numpy() for v in vals])
        return outs, final, None


if __name__ == "__main__":
    afworker.main(TvmRelaxWorker)
