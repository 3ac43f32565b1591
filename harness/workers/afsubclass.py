"""afsubclass - tensor-subclass inputs for the `aot_eager-subclass` converter: each tensor the program
takes wrapped in TwoTensor (torch.testing._internal.two_tensor, PyTorch's own test subclass: a
traceable wrapper subclass holding two plain tensors, .a and .b, every op applied to both), as a
user who compiles a model over DTensor, float8 or nested tensors hands torch.compile a traceable
wrapper subclass. worker_aot_eager_subclass.py imports it; aliasfuzz inlines it into that
converter's repro.py (repro_compile_subclass.py: `from afsubclass import *  # aliasfuzz: inline`).
Plain functions of tensors; torch is imported inside them.
"""


def two_tensor_class():
    """The TwoTensor class (ImportError where this PyTorch has none)."""
    from torch.testing._internal.two_tensor import TwoTensor
    return TwoTensor


def wrap(t):
    """TwoTensor(t, t.clone()) of t's values (detached: the caller makes a leaf of it)."""
    t = t.detach()
    return two_tensor_class()(t.clone(), t.clone())


def is_wrapped(t):
    return isinstance(t, two_tensor_class())


def inner_mismatch(t):
    """None when t is no TwoTensor or its two inner tensors agree (shape, dtype, every value; NaN
    agrees with NaN); else what differs, in words."""
    import torch
    if not is_wrapped(t):
        return None
    a, b = t.a.detach(), t.b.detach()
    if list(a.shape) != list(b.shape):
        return "shapes %s (.a) and %s (.b)" % (list(a.shape), list(b.shape))
    if a.dtype != b.dtype:
        return "dtypes %s (.a) and %s (.b)" % (a.dtype, b.dtype)
    same = a == b
    if a.is_floating_point():
        same |= a.isnan() & b.isnan()
    bad = torch.nonzero(~same.reshape(-1)).reshape(-1)
    if bad.numel() == 0:
        return None
    k = int(bad[0])
    return "element %d is %s in .a, %s in .b (%d of %d elements differ)" % (
        k, a.reshape(-1)[k].item(), b.reshape(-1)[k].item(), bad.numel(), a.numel())


def unwrap(t):
    """The .a of a TwoTensor (detached), else t itself."""
    return t.a.detach() if is_wrapped(t) else t


def unwrap_named(named, problems):
    """[(what, tensor or None)] -> the tensors unwrapped; appends 'what: mismatch' to problems for
    each TwoTensor whose inner tensors differ."""
    out = []
    for what, t in named:
        d = inner_mismatch(t)
        if d:
            problems.append("%s: %s" % (what, d))
        out.append(unwrap(t))
    return out


# the oracle's tolerances (oracle/oracle.h), as repro.py's differs() has them
TOLERANCES = {"float32": (1e-5, 1e-5), "float64": (1e-10, 1e-10), "float16": (2e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5)}


def value_difference(want, got):
    """None when got matches want within the oracle's tolerances (two non-finite values agree), else
    what differs, in words; either may be None (no tensor)."""
    import torch
    if want is None or got is None:
        return None if want is None and got is None else "one is missing"
    if not isinstance(want, torch.Tensor) or not isinstance(got, torch.Tensor):
        return None if want == got else "%r, %r" % (got, want)
    if list(want.shape) != list(got.shape):
        return "shape %s, %s" % (list(got.shape), list(want.shape))
    if want.dtype != got.dtype:
        return "dtype %s, %s" % (got.dtype, want.dtype)
    want, got = want.detach(), got.detach()
    if want.dtype.is_floating_point:
        rtol, atol = TOLERANCES.get(str(want.dtype).replace("torch.", ""), (1e-5, 1e-5))
        g, w = got.double(), want.double()
        both = ~(g.isfinite() | w.isfinite())
        ok = torch.allclose(g.masked_fill(both, 0), w.masked_fill(both, 0), rtol=rtol, atol=atol)
    else:
        ok = torch.equal(got, want)
    return None if ok else "values differ"
