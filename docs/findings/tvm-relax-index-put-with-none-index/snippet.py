import sys, torch; import tvm; from tvm.relax.frontend.torch import from_exported_program  # tvm-relax vs eager, PyTorch 2.13.0 (aliasfuzz: converter-error): exits 1 while the bug is there
class M(torch.nn.Module):
    def forward(self, x0, x1, x2, i0, x3):
        x0[i0, ..., None] += 1
        return (x0.clone(), x1.clone(), x2.clone(), i0.clone(), x3.clone())
def args(): return [torch.tensor([-5.0, 2.0, -2.0, 5.0]), ((torch.arange(64) * 7 + 3) % 11 - 5).to(torch.float32).reshape([4, 4, 4]), torch.tensor([[[1.0, -3.0], [4.0, 0.0], [-4.0, 3.0], [-1.0, -5.0]], [[2.0, -2.0], [5.0, 1.0], [-3.0, 4.0], [0.0, -4.0]], [[3.0, -1.0], [-5.0, 2.0], [-2.0, 5.0], [1.0, -3.0]], [[4.0, 0.0], [-4.0, 3.0], [-1.0, -5.0], [2.0, -2.0]]]), torch.tensor([3, 0, 1]), torch.tensor([[-4.0, 3.0, -1.0, -5.0], [2.0, -2.0, 5.0, 1.0], [-3.0, 4.0, 0.0, -4.0], [3.0, -1.0, -5.0, 2.0]])]
def same(a, b): return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(*[t.masked_fill(~(a.isfinite() | b.isfinite()), 0) for t in (a, b)], *TOL.get(a.dtype, (0, 0)))
TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10), torch.float16: (2e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}  # (rtol, atol) of aliasfuzz's oracle
e = args(); m = M(); want = list(m(*e))  # outputs, then each input after the call
c = args(); vm = tvm.relax.VirtualMachine(tvm.compile(from_exported_program(torch.export.export(M(), tuple(c))), target="llvm"), tvm.cpu())
r = vm["main"](*[tvm.runtime.tensor(a.numpy()) for a in c]); got = [torch.from_numpy(v.numpy()) for v in r]
print("eager:", want, "\ntvm-relax:", got); sys.exit(0 if len(want) == len(got) and all(map(same, want, got)) else 1)
