#!/usr/bin/env python3
"""worker_aot_eager_unbacked.py - aliasfuzz worker `aot_eager-unbacked`: the aot_eager worker
(worker_aot_eager.py, see there) with TorchDynamo capturing data-dependent values and sizes
(torch._dynamo.config.capture_scalar_outputs and capture_dynamic_output_shape_ops = True, the
settings TorchDynamo's own graph-break hints name). A write through a boolean mask
(`x[m] += v`: its indices are `m.nonzero()`, a size no trace knows) or a `.item()` then stays in
the compiled graph as an unbacked symbol, where aot_eager breaks the graph there and runs it in
Python: AOTAutograd traces, functionalizes and writes back input mutations with sizes known only
at run time, and hands symbols between graphs. The same calls otherwise, second calls included
(PROTOCOL.md "Calling again"). Speaks aliasfuzz-worker/1 (PROTOCOL.md)."""

import afworker  # run as a script: its folder is first on sys.path
import worker_aot_eager

FLAGS = ("capture_scalar_outputs", "capture_dynamic_output_shape_ops")


class UnbackedWorker(worker_aot_eager.CompileWorker):
    name = "aot_eager-unbacked"

    def requires(self):
        out = super().requires()
        import torch._dynamo.config as dynamo_config

        for flag in FLAGS:  # read at every compile of this process
            setattr(dynamo_config, flag, True)
        return out

    def settings(self):
        """The two flags as this process runs with them, read back from torch ("not set" where
        torch 2.x could not be set up: the hello then says why the worker is unavailable)."""
        s = dict(super().settings())
        config = getattr(getattr(self.torch, "_dynamo", None), "config", None)
        for flag in FLAGS:
            s[flag] = str(getattr(config, flag, "not set"))
        return s


if __name__ == "__main__":
    afworker.main(UnbackedWorker)
