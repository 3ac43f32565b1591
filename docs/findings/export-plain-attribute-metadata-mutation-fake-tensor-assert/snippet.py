import sys, torch  # export vs eager, PyTorch 2.13.0 (aliasfuzz: converter-error): exits 1 while the bug is there
class M(torch.nn.Module):
    def __init__(self, x): super().__init__(); self.x = x
    def forward(self):
        self.x.as_strided_([2], [2], 1)
def args(): return [torch.tensor([[[-5.0, 2.0], [-2.0, 5.0]]])]
def same(a, b): return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(*[t.masked_fill(~(a.isfinite() | b.isfinite()), 0) for t in (a, b)], *TOL.get(a.dtype, (0, 0)))
TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10), torch.float16: (2e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}  # (rtol, atol) of aliasfuzz's oracle
e = args(); m = M(*e); m(*e[1:]); want = [m.x]  # outputs, then each input after the call
c = args(); cf = torch.export.export(M(*c), tuple(c[1:])).module()
cf(*c[1:]); got = [cf.x]
print("eager:", want, "\nexport:", got); sys.exit(0 if len(want) == len(got) and all(map(same, want, got)) else 1)
