import sys, torch  # aot_eager vs eager, PyTorch 2.13.0 (aliasfuzz: wrong-gradient): exits 1 while the bug is there
def f(x):
    with torch.no_grad():
        v0 = x.view([-1])
    return v0
def args(): return [torch.tensor([-5.0]).requires_grad_()]
def same(a, b): return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(*[t.masked_fill(~(a.isfinite() | b.isfinite()), 0) for t in (a, b)], *TOL.get(a.dtype, (0, 0)))
TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10), torch.float16: (2e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}  # (rtol, atol) of aliasfuzz's oracle
e = args(); want = [f(*e), *e]  # outputs, then each input after the call
c = args(); cf = torch.compile(f, backend="aot_eager")
got = [cf(*c), *c]
def G(outs, a, W=[1]): l = sum([w * o.sum() for w, o in zip(W, outs) if o.is_floating_point() and o.requires_grad], torch.zeros(())); l.requires_grad and l.backward(); return [torch.zeros_like(t) if t.grad is None else t.grad for t in [getattr(t, 'leaf', t) for t in a] if t.requires_grad and t.is_leaf]  # loss = sum(W[k] * output k .sum()), backward: each leaf's .grad (a base's: the caller's leaf it was cloned from)
want += G(want[:1], e); got += G(got[:1], c); print("eager:", want, "\naot_eager:", got); sys.exit(0 if len(want) == len(got) and all(map(same, want, got)) else 1)
