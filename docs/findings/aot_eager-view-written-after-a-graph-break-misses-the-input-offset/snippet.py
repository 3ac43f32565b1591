import sys, torch  # aot_eager vs eager, PyTorch 2.13.0 (aliasfuzz: value-mismatch): exits 1 while the bug is there
def f(x, y):
    v0 = x.expand_as(x)
    if bool(y):
        pass
    else:
        v0.addcmul_(x, x, value=1)
    return x
def args(): x = torch.tensor([-5, 2, -2, 5, 1, -3, 4]); return [x.as_strided([1], [1], 4), torch.tensor([0])]
def same(a, b): return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(*[t.masked_fill(~(a.isfinite() | b.isfinite()), 0) for t in (a, b)], *TOL.get(a.dtype, (0, 0)))
TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10), torch.float16: (2e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}  # (rtol, atol) of aliasfuzz's oracle
e = args(); want = [f(*e), *e]  # outputs, then each input after the call
c = args(); cf = torch.compile(f, backend="aot_eager")
cf(*[t.clone(memory_format=torch.contiguous_format) for t in c])  # call 1 (separate inputs) compiles; call 2 reuses it; got = [cf(*c), *c]
print("eager:", want, "\naot_eager:", got); sys.exit(0 if len(want) == len(got) and all(map(same, want, got)) else 1)
