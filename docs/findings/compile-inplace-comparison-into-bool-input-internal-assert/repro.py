"""An in-place comparison into a bool input with an operand that requires grad, under torch.compile
(torch 2.13.0+cpu): an INTERNAL ASSERT in the autograd engine, where eager runs it.
Exits 1 while the compile fails. usage: python repro.py [aot_eager|inductor]"""
import sys

import torch


def f(v, w):
    v.ge_(w)  # v: bool, w: float that requires grad; the result is bool, nothing to differentiate


bad = 0
for backend in sys.argv[1:] or ["aot_eager", "inductor"]:
    v, w = torch.tensor(True), torch.tensor(-1.0, requires_grad=True)
    f(v.clone(), w)  # eager: fine
    torch._dynamo.reset()
    try:
        torch.compile(f, backend=backend)(v.clone(), w)
        print(backend, "ok")
    except Exception as e:
        bad += 1
        print(backend, "FAILS:", [l for l in str(e).splitlines() if "INTERNAL ASSERT" in l][:1] or str(e)[:200])
print("RESULT:", "MISMATCH (the bug reproduces)" if bad else "compiled runs it as eager does")
sys.exit(1 if bad else 0)
