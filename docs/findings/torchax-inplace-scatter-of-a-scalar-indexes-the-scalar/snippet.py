import sys, torch; import torchax, numpy as np  # torchax vs eager, PyTorch 2.13.0 (aliasfuzz: converter-error): exits 1 while the bug is there
class M(torch.nn.Module):
    def forward(self, x, y):
        x.scatter_(0, y, 0)
        return (x.clone(), y.clone())
def args(): return [torch.tensor([-5.0, 2.0]), torch.tensor([1])]
def same(a, b): return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(*[t.masked_fill(~(a.isfinite() | b.isfinite()), 0) for t in (a, b)], *TOL.get(a.dtype, (0, 0)))
TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10), torch.float16: (2e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}  # (rtol, atol) of aliasfuzz's oracle
e = args(); m = M(); want = list(m(*e))  # outputs, then each input after the call
c = args(); torchax.enable_accuracy_mode()
with torchax.default_env(): r = M().to("jax")(*[a.to("jax") for a in c])
got = [torch.from_numpy(np.asarray(v._elem)) for v in r]
print("eager:", want, "\ntorchax:", got); sys.exit(0 if len(want) == len(got) and all(map(same, want, got)) else 1)
