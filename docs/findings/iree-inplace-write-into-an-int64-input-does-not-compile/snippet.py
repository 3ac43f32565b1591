import sys, torch; import iree.turbine.aot as aot, iree.runtime as rt  # iree vs eager, PyTorch 2.13.0 (aliasfuzz: converter-error): exits 1 while the bug is there
class M(torch.nn.Module):
    def forward(self, x):
        x.add_(1)
        return (x, x.clone())
def args(): return [torch.tensor([-5])]
def same(a, b): return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(*[t.masked_fill(~(a.isfinite() | b.isfinite()), 0) for t in (a, b)], *TOL.get(a.dtype, (0, 0)))
TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10), torch.float16: (2e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}  # (rtol, atol) of aliasfuzz's oracle
e = args(); m = M(); want = list(m(*e))  # outputs, then each input after the call
c = args(); cfg = rt.Config("local-sync"); ctx = rt.SystemContext(config=cfg); vm = aot.export(M(), args=tuple(c)).compile(save_to=None)
ctx.add_vm_module(rt.VmModule.copy_buffer(cfg.vm_instance, vm.map_memory())); r = ctx.modules.module["main"](*[a.numpy() for a in c])
got = [torch.from_numpy(v.to_host()) for v in (r if isinstance(r, (list, tuple)) else [r])]
print("eager:", want, "\niree:", got); sys.exit(0 if len(want) == len(got) and all(map(same, want, got)) else 1)
