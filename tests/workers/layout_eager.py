#!/usr/bin/env python3
"""layout_eager.py - a worker for tests/test_layouts.c (issue 16): eager PyTorch in Python, on
inputs built from the request's layouts by afworker (Request.fresh: each storage decoded, every
input with a layout torch.as_strided of it). It scripts the program (torch.jit.CompilationUnit,
never trace) and runs it on those inputs; the answer carries the outputs, the final state of
every input and of every storage ("bases"). The C test compares all of it with the C eager
runner byte for byte: the same layouts built in Python give the same eager results.

--forgets-aliasing-when-called-again: the hello says "caches": true, and a request with "again"
(PROTOCOL.md "Calling again") runs on a clone of each input of its own, so inputs that share a
storage no longer do: deliberately wrong, the way a cached graph that assumes its first call's
unaliased inputs would be. The test checks that aliasfuzz judges the second call and names it.

--wrong-when-compiled-on-aliased-inputs: the hello says "caches": true, and a request without
"again" whose inputs share a storage runs on a clone of each input of its own (the writes through
one no longer show in the others): deliberately wrong the way a graph compiled on inputs that alias
at compile time (AOTAutograd's synthetic-base path) would be, and right on a second call ("again")
of what it compiled on fresh inputs. The test checks that aliasfuzz judges both calling orders and
names order 1.

--breaks-after-poison: a program whose meta says "misbehave": "poison" is answered right but leaves
the process broken: the next request, whatever it is, reads address 0 through ctypes (a segfault
in native code, as a converter whose library a program damaged). afworker's faulthandler then
shows the Python frames (tests/test_workers.c, crash attribution with a real afworker worker)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "harness", "workers"))
import afworker  # noqa: E402



def read_freed_memory():
    import ctypes
    ctypes.string_at(0)


class LayoutEager(afworker.Worker):
    name = "layout-eager"
    memory_cap = False
    warm_up = ()

    @classmethod
    def options(cls, ap):
        ap.add_argument("--forgets-aliasing-when-called-again", dest="forgets", action="store_true")
        ap.add_argument("--wrong-when-compiled-on-aliased-inputs", dest="wrong_aliased", action="store_true")
        ap.add_argument("--breaks-after-poison", dest="breaks", action="store_true")

    def __init__(self, args):
        super().__init__(args)
        self.caches = args.forgets or args.wrong_aliased
        self.broken = False

    def convert(self, req, warns):
        if self.broken:
            read_freed_memory()
        self.broken = self.args.breaks and (req.program.get("meta") or {}).get("misbehave") == "poison"
        return getattr(afworker.script_unit(req.torchscript), req.function)

    def run(self, req, fn, warns):
        inputs, bases = req.fresh()
        shared = len({t["base"] for t in req.input_specs if "base" in t}) < sum("base" in t for t in req.input_specs)
        if (self.args.forgets and req.again) or (self.args.wrong_aliased and not req.again and shared):
            inputs = [t.clone() for t in inputs]  # the bases no longer see any write
        return afworker.as_list(fn(*inputs)), inputs, bases


if __name__ == "__main__":
    afworker.main(LayoutEager)
