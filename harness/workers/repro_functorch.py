# repro_functorch.py - how `functorch` converts, for its repro.py (inlined by aliasfuzz): the
# scripted program through functionalize + make_fx, the FX graph run on copies of the inputs
# (worker_functorch.py, its default --mode script). A training program (TRAIN) takes torch.func's
# training path as the worker does: torch.func.vjp over functionalize(program), the inputs that
# require grad the primals, each floating-point output's cotangent its loss weight times ones; the
# gradients vjp_fn gives are set as the leaves' .grad (repro_main's train_backward then finds no
# output that requires grad and reads them).


def convert_and_run(src, converted, inputs):
    try:
        from torch.func import functionalize  # PyTorch 2.x
        from torch.fx.experimental.proxy_tensor import make_fx
    except ImportError:
        from functorch import functionalize, make_fx  # PyTorch 1.13
    fn = torch.jit.CompilationUnit(src).program
    if TRAIN:
        return train_vjp(functionalize(fn), inputs)
    gm = make_fx(functionalize(fn))(*[t.clone() for t in inputs])
    print('--- functionalized FX graph ---')
    print(gm.code)
    state = [t.clone() for t in inputs]
    return as_list(gm(*state)), state


def train_vjp(func, inputs):
    from torch.func import vjp
    state = [t.detach().clone() for t in inputs]

    def f(*primals):
        args = list(state)
        for k, t in zip(GRADS, primals):
            args[k] = t
        outs = as_list(func(*args))
        return tuple(o for o in outs if o.is_floating_point()), (outs, args)

    diff, vjp_fn, (outs, final) = vjp(f, *[state[k] for k in GRADS], has_aux=True)
    weights = [w for o, w in zip(outs, LOSS) if o.is_floating_point()]
    grads = vjp_fn(tuple(w * torch.ones_like(o) for o, w in zip(diff, weights)))
    for k, g in zip(GRADS, grads):
        inputs[k].grad = g
    print('--- torch.func.vjp(functionalize(program)): no graph; the backward is vjp_fn ---')
    return outs, final
