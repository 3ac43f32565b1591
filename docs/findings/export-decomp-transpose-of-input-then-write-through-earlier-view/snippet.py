import sys, torch  # export-decomp vs eager, PyTorch 2.13.0 (aliasfuzz: converter-error): exits 1 while the bug is there
class M(torch.nn.Module):
    def forward(self, x0, i0):
        v2 = x0.split(3, 1)[0]
        x0.transpose_(0, 1)
        v2.nan_to_num_(2.5, None, 1.0)
def args(): return [torch.tensor([[True, False, False, True, False], [False, True, False, False, True]]), torch.tensor([0, 1])]
def same(a, b): return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(*[t.masked_fill(~(a.isfinite() | b.isfinite()), 0) for t in (a, b)], *TOL.get(a.dtype, (0, 0)))
TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10), torch.float16: (2e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}  # (rtol, atol) of aliasfuzz's oracle
e = args(); m = M(); m(*e); want = [*e]  # outputs, then each input after the call
c = args(); cf = torch.export.export(M(), tuple(c)).run_decompositions().module()
cf(*c); got = [*c]
print("eager:", want, "\nexport-decomp:", got); sys.exit(0 if len(want) == len(got) and all(map(same, want, got)) else 1)
