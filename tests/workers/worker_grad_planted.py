#!/usr/bin/env python3
"""worker_grad_planted.py - the aot_eager worker (harness/workers/worker_aot_eager.py, imported, not
copied) with ONE deliberate gradient mistake planted in its answers, for issue 33's done-when: a
short training campaign must find it as one class (tests/scripts/train_planted.sh). Speaks
aliasfuzz-worker/1 (harness/workers/PROTOCOL.md, "Training").

  operand-grad  the .grad of an input that is read as an operand of an in-place op (`y.add_(x)`:
                x, not y) is dropped from the answer (null: the gradient that reached it through
                the in-place write, and any other, lost); other programs get exactly aot_eager's
                answer
  autograd-refuses
                its backward raises autograd's own refusal where eager's does not: each output
                that requires grad also flows (with zero weight) through a product of a copy of
                itself that is then written in place (a tensor saved for backward and modified:
                autograd's version counter check, the real error), values and grads otherwise
                aot_eager's (oracle.h autograd-rejects)
  autograd-accepts
                the forward and backward run under torch.autograd.graph.
                allow_mutation_on_saved_tensors(), so a tensor saved for backward and modified in
                place since does not stop the backward as it stops eager's (autograd-accepts)
  none          no mistake (aot_eager's own answers)

Options: --mistake NAME (env AF_GRAD_MISTAKE), and worker_aot_eager's own.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "harness", "workers"))
import afworker  # noqa: E402
import worker_aot_eager  # noqa: E402


def _statements(body):
    for st in body if isinstance(body, list) else ():
        if isinstance(st, dict):
            yield st
            for k in ("then", "else", "body"):
                yield from _statements(st.get(k))


def inplace_operands(program):
    """Names read as a tensor operand (not the target) of an in-place op (name ending in '_')."""
    names = set()
    for st in _statements(program.get("body")):
        op, args = st.get("op", ""), st.get("args") or []
        if op.endswith("_") and not op.startswith("_") and len(args) > 1:
            names.update(a for a in args[1:] if isinstance(a, str))
    return names


def refusing(torch, fn):
    """fn, whose outputs that require grad each also flow through s * s (zero weight: torch.where
    takes the output's own values), s a copy of the output written in place after the product saved
    it: the backward then raises autograd's own "modified by an inplace operation"."""
    def call(*args):
        outs = fn(*args)
        single = not isinstance(outs, (tuple, list))
        res = []
        for o in [outs] if single else outs:
            if isinstance(o, torch.Tensor) and o.requires_grad and o.is_floating_point():
                s = o.clone()
                t = s * s  # saves s
                s.add_(0)  # and modifies it: version 1, the backward expects 0
                o = torch.where(torch.zeros_like(o, dtype=torch.bool), t, o)
            res.append(o)
        return res[0] if single else type(outs)(res)
    return call


class GradPlanted(worker_aot_eager.CompileWorker):
    name = "aot_eager-grad-planted"

    @classmethod
    def options(cls, ap):
        super().options(ap)
        ap.add_argument("--mistake", default=os.environ.get("AF_GRAD_MISTAKE", "operand-grad"),
                        choices=("operand-grad", "autograd-refuses", "autograd-accepts", "none"))

    def settings(self):
        return dict(super().settings(), mistake=self.args.mistake)

    def run(self, req, converted, warns):
        if self.args.mistake == "autograd-refuses" and req.train:
            m, compiled, graphs, seen, again = converted
            converted = (m, refusing(self.torch, compiled), graphs, seen, again)
        if self.args.mistake == "autograd-accepts" and req.train:
            with self.torch.autograd.graph.allow_mutation_on_saved_tensors():
                return super().run(req, converted, warns)
        result = super().run(req, converted, warns)
        if self.args.mistake == "operand-grad" and req.train and req.grads is not None:
            ops = inplace_operands(req.program)
            req.grads = [None if req.names[k] in ops else g for k, g in enumerate(req.grads)]
        return result


if __name__ == "__main__":
    afworker.main(GradPlanted)
