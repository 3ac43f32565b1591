#!/usr/bin/env python3
"""worker_aot_eager_autocast.py - aliasfuzz worker `aot_eager-autocast`: the aot_eager worker
(worker_aot_eager.py, see there) calling the compiled program under
torch.autocast("cpu", dtype=torch.bfloat16), as a mixed-precision training loop calls its model
(the backward after the autocast block, as PyTorch's AMP recipe has it). torch.compile then
compiles under autocast: TorchDynamo records the autocast state in its guards and AOTAutograd runs
the compiled graph with autocast disabled inside it (its _DisableAutocast wrappers around the
forward, in inference and training), the ops autocast would cast having been cast while tracing.

With each program:
  1. the program runs in eager mode (Python) with and without autocast: where autocast changes
     anything (an op autocast runs in bfloat16, matmul and the like, or one it refuses), eager's
     truth is not the truth of the autocast call, and the answer is `unsupported` ("eager under
     autocast ...", a declared limit, REFUSES in workers.def), never a torch.compile finding. A
     plain run that fails is no verdict here: the compiled run is judged as aot_eager's would be;
  2. torch.compile(backend="aot_eager") of the program (TorchDynamo reset first) is called under
     autocast; its results are judged against aliasfuzz's eager run like aot_eager's.
Second calls as aot_eager's (PROTOCOL.md "Calling again"), also under autocast. Speaks
aliasfuzz-worker/1 (PROTOCOL.md)."""

import afworker  # run as a script: its folder is first on sys.path
import worker_aot_eager

AUTOCAST = ("cpu", "bfloat16")  # the device and the dtype of the autocast block


class AutocastWorker(worker_aot_eager.CompileWorker):
    name = "aot_eager-autocast"

    def settings(self):
        s = dict(super().settings())
        s["autocast"] = "torch.autocast(%r, dtype=torch.%s) around each call" % AUTOCAST
        return s

    def under_autocast(self, forward):
        """forward, called under the autocast block."""
        torch = self.torch

        def call(*args):
            with torch.autocast(AUTOCAST[0], dtype=getattr(torch, AUTOCAST[1])):
                return forward(*args)
        return call

    def precheck(self, req, m, eager):
        """Step 1: raises Failure('unsupported', 'eager under autocast ...') where autocast changes
        the program's eager results (outputs, final states, storages, gradients)."""
        forward = eager or m
        try:
            want = afworker.module_call(m, req, forward=forward)
            want_grads = (req.grads or []) + (req.base_grads or [])
        except Exception:
            return  # eager Python fails without autocast too: judged as aot_eager's run would be
        try:
            got = afworker.module_call(m, req, forward=self.under_autocast(forward))
        except Exception as e:
            raise afworker.Failure("unsupported", "eager under autocast fails (autocast does not take the program; "
                                   "torch.compile not run): %s" % afworker.exception_message(e))
        diffs = afworker.run_differences(req, want, want_grads, got, (req.grads or []) + (req.base_grads or []))
        if diffs:
            raise afworker.Failure("unsupported", "eager under autocast differs from eager without it (autocast "
                                   "changes the program; torch.compile not run): %s" % "; ".join(diffs[:4]))

    def run(self, req, converted, warns):
        m, compiled, graphs, seen, again = converted
        self.precheck(req, m, None if req.buffers else afworker.python_namespace(req.torchscript)[req.function])
        return super().run(req, (m, self.under_autocast(compiled), graphs, seen, again), warns)


if __name__ == "__main__":
    afworker.main(AutocastWorker)
