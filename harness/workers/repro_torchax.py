# repro_torchax.py - how `torchax` converts, for its repro.py (inlined by aliasfuzz): the module run
# in torchax's eager mode on JAX's CPU backend (worker_torchax.py); the final states written back into
# the caller's storages as the worker does (written_back). Install: pip install --no-deps
# torchax jax jaxlib (PACKAGES; newer torchax releases do not import beside torch 2.13).
from repro_common import *  # aliasfuzz: inline


def convert_and_run(src, converted, inputs):
    torchax = need('torchax')
    import numpy as np
    torchax.enable_accuracy_mode()  # 64-bit JAX, torch's result dtypes (as the worker)
    names = [i[0] for i in INPUTS]
    params = forward_params()
    m, args = repro_module(src, inputs)
    with torchax.default_env():
        m.to('jax')
        xs = [a.to('jax') for a in args]
        r = m(*xs)
        outs = list(r) if isinstance(r, (list, tuple)) else [] if r is None else [r]
        final = [getattr(m, n) if i in BUFFERS else xs[params.index(i)] for i, n in enumerate(names)]
    host = lambda t: torch.from_numpy(np.array(t._elem)) if hasattr(t, '_elem') else t
    return [host(t) for t in outs], written_back(inputs, [host(t) for t in final])  # JAX arrays are copies
