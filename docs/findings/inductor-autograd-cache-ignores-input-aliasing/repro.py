# inductor: the AOTAutograd cache serves a graph compiled for aliased inputs to a compile on
# separate inputs (torch 2.13.0+cpu). Written by hand after aliasfuzz's judge met it (see README.md).
# Exits 1 while the bug is there, 0 once fixed. Uses a cache folder of its own.
import os, sys, tempfile
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="af-autograd-cache-")
import torch


def f(x, y):
    x.mul_(2)
    return torch.add(x, y)


b = torch.arange(8, dtype=torch.float32)
torch.compile(f, backend="inductor")(b[:4], b[2:6])  # inputs overlap: a synthetic-base graph
torch._dynamo.reset()                                 # a new compile (or a new process, same cache folder)
x, y = torch.arange(4.0), torch.arange(4.0)
want = f(x.clone(), y.clone())
try:
    got = torch.compile(f, backend="inductor")(x, y)  # separate inputs
except Exception as e:
    print("compile on separate inputs failed:", type(e).__name__, str(e).splitlines()[0])
    sys.exit(1)
print("eager:", want, "\ninductor:", got)
sys.exit(0 if torch.equal(want, got) else 1)
