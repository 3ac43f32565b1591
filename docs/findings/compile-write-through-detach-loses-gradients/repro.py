"""A write through .detach() with data that requires grad, under torch.compile (torch 2.13.0+cpu):
the gradients are silently wrong (docs/findings/compile-write-through-detach-loses-gradients).
Exits 1 while a gradient differs from eager's. usage: python repro.py [aot_eager|inductor]"""
import sys

import torch


def f_input(x, o):  # x does not require grad; tr-detach-add_-input
    v = x.detach()
    v.add_(o)
    return x, v


def f_through(x, o):  # x requires grad; tr-detach-add_-through
    b = x * 2
    v = b.detach()
    v.add_(o)
    return b, v


def grads(fn, x_requires_grad):
    x = torch.arange(24.0).reshape(4, 6).requires_grad_(x_requires_grad)
    o = torch.ones(4, 6, requires_grad=True)
    a, v = fn(x, o)
    loss = 3 * v.sum() + (2 * a.sum() if a.requires_grad else 0)
    loss.backward()
    return {"x.grad": x.grad, "o.grad": o.grad}


bad = 0
for backend in sys.argv[1:] or ["aot_eager", "inductor"]:
    for f, xg in ((f_input, False), (f_through, True)):
        torch._dynamo.reset()
        want, got = grads(f, xg), grads(torch.compile(f, backend=backend), xg)
        for k in want:
            w, g = want[k], got[k]
            same = (w is None and g is None) or (w is not None and g is not None and torch.equal(w, g))
            bad += not same
            print("%-9s %-9s %s: %s" % (backend, f.__name__, k, "same" if same else "eager %s, compiled %s" % (
                None if w is None else w.flatten()[0].item(), None if g is None else g.flatten()[0].item())))
print("RESULT:", "MISMATCH (the bug reproduces)" if bad else "all gradients equal")
sys.exit(1 if bad else 0)
