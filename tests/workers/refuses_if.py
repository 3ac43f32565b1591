#!/usr/bin/env python3
"""refuses_if.py - the functorch worker that refuses every data-dependent branch by design, as
torch.export does (issue 34, "Converter-aware policy"): a program whose TorchScript has an
`if bool(...)` is answered "unsupported" with a message its hello declares under "refuses"
(harness/workers/PROTOCOL.md), every other program is converted as harness/workers/worker_functorch.py
converts it (imported, not copied). A campaign must list the refusal under "What this converter
refuses", count it as no bug, and down-weight the generator's `if` once the refusal was seen
(fuzz/refusals.h).

Options: --certain: the hello says the refusal is certain (every program with an if is refused),
so a campaign down-weights the if from its first program; without it, from the program after the
first refused one (each job on its own).

Use: aliasfuzz fuzz --converter 'external:.venv/bin/python tests/workers/refuses_if.py' ...
(tests/scripts/refusal_policy.sh).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "harness", "workers"))
import afworker  # noqa: E402
import worker_functorch  # noqa: E402

MESSAGE = "refuses_if: a data-dependent branch (if on a tensor's value), refused by design"


class RefusesIfWorker(worker_functorch.FunctorchWorker):
    name = "functorch-refuses-if"
    refuses = ()

    @classmethod
    def options(cls, ap):
        super().options(ap)
        ap.add_argument("--certain", action="store_true")

    def prepare(self):
        self.refuses = ({"name": "data-dependent control flow (refuses_if.py)", "match": "refuses_if: a data-dependent branch",
                         "knob": "if", "certain": bool(self.args.certain)},)

    def settings(self):
        return dict(super().settings(), refuses_if="certain" if self.args.certain else "learned")

    def convert(self, req, warns):
        if "if bool(" in req.torchscript:
            raise afworker.Failure("unsupported", MESSAGE)
        return super().convert(req, warns)


if __name__ == "__main__":
    afworker.main(RefusesIfWorker)
