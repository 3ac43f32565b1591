#!/usr/bin/env python3
"""float64_planted.py - a worker for tests/test_float64.c (the dtype trigger, fuzz/float64.h): eager
PyTorch in Python (the program scripted, never traced, run on the request's inputs) with a planted
mistake that depends on the dtype only, the way IREE's float64 demotion does (iree-org/iree#24180):

  every write into a float64 input is lost: the input's final state is its value before the call,
  whatever op or view wrote it (the outputs are what the program returned)

  a float64 output is refused at run time ("planted: a float64 result does not fit its float32
  buffer"), as IREE's run time refuses the float32 buffer it made for one (no write needed)

--zero-lost: also every `zero_()` is dropped, on any dtype (a second, dtype-independent bug: its
class keeps its write pattern).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "harness", "workers"))
import afworker  # noqa: E402
import torch  # noqa: E402


class Float64Planted(afworker.Worker):
    name = "float64-planted"
    memory_cap = False
    warm_up = ()

    @classmethod
    def options(cls, ap):
        ap.add_argument("--zero-lost", dest="zero_lost", action="store_true")

    def convert(self, req, warns):
        src = req.torchscript
        if self.args.zero_lost:
            src = src.replace(".zero_()", ".clone()")
        return getattr(afworker.script_unit(src), req.function)

    def run(self, req, fn, warns):
        inputs, bases = req.fresh()
        before = [t.clone() if t.dtype == torch.float64 else None for t in inputs]
        outs = afworker.as_list(fn(*inputs))
        if any(isinstance(o, torch.Tensor) and o.dtype == torch.float64 for o in outs):
            raise RuntimeError("planted: a float64 result does not fit its float32 buffer")
        final = [b if b is not None else t for t, b in zip(inputs, before)]
        return outs, final, bases


if __name__ == "__main__":
    afworker.main(Float64Planted)
