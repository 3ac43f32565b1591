#!/usr/bin/env python3
"""worker_iree.py - aliasfuzz worker `iree`: IREE's PyTorch path (iree.turbine.aot.export: torch.export
and torch-mlir's FX importer), compiled by iree-base-compiler for llvm-cpu and run in the IREE runtime
(iree-base-runtime) from Python. Speaks aliasfuzz-worker/1 (PROTOCOL.md). PyTorch 2.x only; packages
iree-turbine, iree-base-compiler, iree-base-runtime (scripts/requirements-nodeps.txt).

With each program, as IREE's users convert a module:
  1. the TorchScript source runs as Python (afworker.program_module): an nn.Module whose forward is
     the program;
  2. iree.turbine.aot.export(module, args=...) on the caller's tensors (torch.export, strict as
     turbine's default, then the FX importer: an input the program mutates becomes a
     !torch.tensor argument the function overwrites, a mutated buffer a mutable global), then
     .compile(save_to=None, target_backends="llvm-cpu");
  3. the VM flatbuffer loaded into a SystemContext on the "local-sync" device and its main
     function called with device arrays of the caller's tensors (iree.runtime.asdevicearray; each
     an array of its own: a write through one cannot show in another). IREE writes an input
     mutation into the argument's device buffer, so an input's final state is that array read back
     after the call (to_host), and every storage's ("bases") the final states written back into
     copies of the caller's storages.
  Module state: IREE keeps a buffer as a module global that its runtime API does not hand back, so
  for a program with buffers the module's forward also returns every input's final state (clones,
  afworker.program_module(returns_state=True)), and a buffer's final state is that extra output;
  inputs still come from their device arrays.
The graph text is the imported MLIR (torch dialect). Compiler diagnostics (which the compiler prints
on the C stderr) are captured and the first error line is in the message.

torch.export's refusals (as the export worker's) and the importer's NotImplementedError are
"unsupported", as is the compiler's "failed to
legalize operation 'torch...'" (an op IREE's torch lowering lacks); any other failure is "error"
(another legalization failure, an unresolved type materialization, is the compiler's own).

Options: --target-backend (default llvm-cpu), --device (default local-sync).
"""

import contextlib
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import afworker  # noqa: E402
from worker_export import unsupported_kinds  # noqa: E402


@contextlib.contextmanager
def captured_fd2(into):
    """Points file descriptor 2 at a temporary file while the block runs (the IREE compiler prints its
    diagnostics there from C), then appends what was written to the list into, line by line."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as f:
        os.dup2(f.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            f.seek(0)
            into.extend(f.read().decode("utf-8", "replace").splitlines())


def first_error(lines):
    """The first diagnostic line that says error (without the location prefix up to 'error: '), or None."""
    for l in lines:
        if "error:" in l:
            return l[l.index("error:"):].strip()
    return None


class IreeWorker(afworker.Torch2Worker):
    name = "iree"
    warm_up = ("mutation", "buffer")
    timing = ("export_compile_s", "run_s")

    @classmethod
    def options(cls, ap):
        ap.add_argument("--target-backend", default="llvm-cpu")
        ap.add_argument("--device", default="local-sync", help="IREE runtime driver (local-sync: one thread)")

    def requires(self):
        try:
            import iree.turbine.aot as aot
            import iree.runtime as rt
            import iree.compiler  # noqa: F401
        except ImportError as e:
            raise afworker.Unavailable("IREE is not installed (pip install --no-deps iree-turbine==3.9.0 "
                                       "iree-base-compiler==3.13.0 iree-base-runtime==3.13.0, "
                                       "scripts/requirements-nodeps.txt): %s" % e)
        self.aot, self.rt = aot, rt
        self.declines = unsupported_kinds(self.torch)
        from importlib.metadata import version
        return {p: version(p) for p in ("iree-turbine", "iree-base-compiler", "iree-base-runtime")}

    def settings(self):
        return {"target": self.args.target_backend, "device": self.args.device}

    def convert(self, req, warns):
        with afworker.step("the program as Python"):
            m, args = afworker.program_module(req, returns_state=bool(req.buffers))
        try:
            exported = self.aot.export(m, args=tuple(args))
        except Exception as e:
            # the importer's NotImplementedError ("an output of `None` is not yet implemented") declines too
            status = "unsupported" if isinstance(e, self.declines + (NotImplementedError,)) else "error"
            raise afworker.Failure(status, "iree.turbine.aot.export: " + afworker.exception_message(e))
        try:
            mlir = str(exported.mlir_module)
        except Exception as e:
            mlir = "<cannot print the imported module: %s>" % afworker.exception_message(e)
        diags = []
        try:
            with captured_fd2(diags):
                vmfb = exported.compile(save_to=None, target_backends=self.args.target_backend)
        except Exception as e:
            err = first_error(diags)
            # "failed to legalize operation 'torch.aten.X'": an op the torch-to-linalg lowering lacks;
            # other legalization failures (a type materialization left unresolved) are the compiler's
            status = "unsupported" if err and "failed to legalize operation 'torch." in err else "error"
            raise afworker.Failure(status, "iree compile (%s): %s%s" % (
                self.args.target_backend, afworker.exception_message(e), ": " + err if err else ""), graph=mlir)
        return mlir, vmfb

    def graph_text(self, converted):
        return converted[0]

    def run(self, req, converted, warns):
        rt = self.rt
        import numpy as np
        try:
            config = rt.Config(self.args.device)
            ctx = rt.SystemContext(config=config)
            ctx.add_vm_module(rt.VmModule.copy_buffer(config.vm_instance, converted[1].map_memory()))
            main = ctx.modules.module["main"]
            # the caller's tensors, each as a device array of its own
            # (t.contiguous().numpy(): np.ascontiguousarray would make a 0-dim array 1-dim)
            arrays = [rt.asdevicearray(config.device, t.contiguous().numpy()) for t in afworker.feeds(req)]
            res = main(*arrays)
            vals = list(res) if isinstance(res, (tuple, list)) else [res]
            vals = [v.to_host() if hasattr(v, "to_host") else np.asarray(v) for v in vals]
            after = [a.to_host() for a in arrays]
        except Exception as e:
            raise afworker.Failure("error", "iree runtime: " + afworker.exception_message(e))
        if req.buffers:  # the module returned every input's final state after its outputs
            try:
                outs, states = afworker.split_state(req, vals)
            except ValueError as e:
                raise afworker.Failure("error", str(e))
            final = [states[k] if k in req.buffers else after[req.args.index(k)] for k in range(len(req.names))]
        else:
            outs, final = vals, [after[req.args.index(k)] for k in range(len(req.names))]
        return outs, final, None


if __name__ == "__main__":
    afworker.main(IreeWorker)
