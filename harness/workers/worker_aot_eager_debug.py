#!/usr/bin/env python3
"""worker_aot_eager_debug.py - aliasfuzz worker `aot_eager-debug`: the aot_eager worker
(worker_aot_eager.py, see there) with AOTAutograd's own consistency checks on
(torch._functorch.config.debug_assert = True): at compile time AOTAutograd then checks the graph
it made against the metadata it collected (the forward's outputs, the input mutations it writes
back), and at run time each call's inputs against what the graph was compiled for (which inputs
require grad: DebugAssertWrapper). A failed check is AOTAutograd's own assertion, a
converter-error naming it; the same program on plain aot_eager runs with the checks off (the
class's switch back to aot_eager says whether the default configuration goes wrong too). The
same calls otherwise, second calls included (PROTOCOL.md "Calling again"). Speaks
aliasfuzz-worker/1 (PROTOCOL.md)."""

import afworker  # run as a script: its folder is first on sys.path
import worker_aot_eager


class DebugAssertWorker(worker_aot_eager.CompileWorker):
    name = "aot_eager-debug"

    def requires(self):
        out = super().requires()
        import torch._functorch.config as functorch_config

        functorch_config.debug_assert = True  # read at every compile and call of this process
        return out

    def settings(self):
        """debug_assert as this process runs with it, read back from torch ("not set" where torch 2.x
        could not be set up: the hello then says why the worker is unavailable)."""
        s = dict(super().settings())
        config = getattr(getattr(self.torch, "_functorch", None), "config", None)
        s["debug_assert"] = str(getattr(config, "debug_assert", "not set"))
        return s


if __name__ == "__main__":
    afworker.main(DebugAssertWorker)
