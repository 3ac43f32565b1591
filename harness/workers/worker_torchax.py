#!/usr/bin/env python3
"""worker_torchax.py - aliasfuzz worker `torchax`: PyTorch programs run on JAX's CPU backend by
torchax (torch ops dispatched to jax.numpy through torchax's Environment). Speaks aliasfuzz-worker/1
(PROTOCOL.md). PyTorch 2.x only; packages torchax, jax, jaxlib (scripts/requirements-nodeps.txt).

Which torchax: every release from 0.0.5 to 0.0.13 (the newest) fails at `import torchax` beside
torch 2.13.0 (its amp.py and decompositions.py name Dimname overloads, torch.ops.aten.prod.dim_Dimname,
index_copy.dimname, all.dimname..., that torch 2.13 no longer has: AttributeError). 0.0.4, the newest
that imports, is pinned; it predates torchax's write-through views (torchax/view.py, in 0.0.13), so
a finding here must be checked against the newest torchax before it is called new. Where the import
fails the hello says unavailable with that error.

With each program, as torchax's users run a module in its eager mode (torchax.enable_accuracy_mode():
64-bit JAX and torch's result dtypes):
  1. the TorchScript source runs as Python (afworker.program_module): an nn.Module whose forward is
     the program, its buffers registered with register_buffer;
  2. inside `with torchax.default_env():` the module is moved to JAX (m.to("jax"): its buffers
     become torchax tensors) and called on the caller's tensors moved to JAX (t.to("jax"), each an
     array of its own: a write through one cannot show in another);
  3. an input's final state is its torchax tensor after the call (torchax rebinds the JAX array
     inside the tensor object on an in-place op), a buffer's the module's attribute after the call;
     every storage's ("bases") the final states written back into copies of the caller's storages.
The graph text is None (eager mode builds no graph). An op torchax has no lowering for
(OperatorNotFound, NotImplementedError) is "unsupported"; any other failure is "error".
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import afworker  # noqa: E402


class TorchaxWorker(afworker.Torch2Worker):
    name = "torchax"
    warm_up = ("mutation", "buffer")
    timing = ("move_s", "run_s")

    def prepare(self):
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        os.environ["ENABLE_RUNTIME_UPTIME_TELEMETRY"] = "0"  # torchax sets it to 1 for libtpu otherwise

    def requires(self):
        from importlib.metadata import version, PackageNotFoundError
        try:
            v = version("torchax")
        except PackageNotFoundError:
            v = None
        try:
            import jax
            import torchax
        except ImportError as e:
            raise afworker.Unavailable("torchax is not installed (pip install --no-deps torchax jax jaxlib, "
                                       "scripts/requirements-nodeps.txt): %s" % e)
        except Exception as e:  # 0.0.5-0.0.13 beside torch 2.13: AttributeError on a Dimname overload
            raise afworker.Unavailable("torchax %s does not import beside torch %s: %s" % (
                v, self.torch.__version__, afworker.exception_message(e)))
        self.torchax, self.jax = torchax, jax
        # torchax's accuracy mode (jax_enable_x64, torch's return dtypes, exact matmuls): without it JAX
        # computes int64 and float64 in 32 bits, a dtype change no torchax user who compares with eager keeps
        torchax.enable_accuracy_mode()
        self.env = torchax.default_env()
        import numpy as np
        self.np = np
        return {"torchax": v or getattr(torchax, "__version__", "?"), "jax": jax.__version__,
                "jax_backend": jax.default_backend(), "mode": "accuracy"}

    def convert(self, req, warns):
        with afworker.step("the program as Python"):
            m, _ = afworker.program_module(req)
        return m

    def host(self, t):
        """A torchax tensor's value as a numpy array (a plain torch tensor as it is)."""
        if t is None or not hasattr(t, "_elem"):
            return t
        return self.np.asarray(t._elem)

    def run(self, req, m, warns):
        try:
            with self.env:
                m.to("jax")
                inputs = [t.to("jax") for t in afworker.feeds(req)]
                outs = afworker.as_list(m(*inputs))
                final = [getattr(m, req.names[k]) if k in req.buffers else inputs[req.args.index(k)]
                         for k in range(len(req.names))]
            return [self.host(t) for t in outs], [self.host(t) for t in final], None
        except Exception as e:
            msg = afworker.exception_message(e)
            status = "unsupported" if type(e).__name__ in ("OperatorNotFound", "NotImplementedError") else "error"
            raise afworker.Failure(status, "torchax (eager on JAX): " + msg)


if __name__ == "__main__":
    afworker.main(TorchaxWorker)
