#!/usr/bin/env python3
# By hand, beside repro.py: the same write through each torch.compile backend and dtype.
# python3 backends.py  (torch 2.13.0: aot_eager and inductor lose the float64 writes, eager and float32 keep them)
import torch


def f(x):
    x.log1p_()
    x.add_(1)
    return x * 2


for backend in ("eager", "aot_eager", "inductor"):
    for dt in (torch.float64, torch.float32):
        torch._dynamo.reset()
        want = f(torch.tensor(3.0, dtype=dt))
        x = torch.tensor(3.0, dtype=dt)
        got = torch.compile(f, backend=backend)(x)
        ok = torch.equal(got, want) and torch.equal(x, want / 2)
        print(f"{backend:9} {str(dt):14} result {got.item():.6f} (eager {want.item():.6f}), input after {x.item():.6f}: {'ok' if ok else 'WRONG'}")
