import sys, torch; import openvino as ov  # openvino vs eager, PyTorch 2.13.0 (aliasfuzz: converter-error): exits 1 while the bug is there
class M(torch.nn.Module):
    def forward(self, x, y):
        v0 = x.detach()
        x.add_(y)
        return (v0, x.clone(), y.clone())
def args(): return [torch.tensor([[-5.0]]), torch.tensor([[-2.0]])]
def same(a, b): return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(*[t.masked_fill(~(a.isfinite() | b.isfinite()), 0) for t in (a, b)], *TOL.get(a.dtype, (0, 0)))
TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10), torch.float16: (2e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}  # (rtol, atol) of aliasfuzz's oracle
e = args(); m = M(); want = list(m(*e))  # outputs, then each input after the call
c = args(); cm = ov.compile_model(ov.convert_model(torch.export.export(M(), tuple(c))), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
r = cm([a.numpy() for a in c]); got = [torch.as_tensor(r[o]) for o in cm.outputs]
print("eager:", want, "\nopenvino:", got); sys.exit(0 if len(want) == len(got) and all(map(same, want, got)) else 1)
