# repro_functorch.py - how `functorch` converts, for its repro.py (inlined by aliasfuzz): the
# scripted program through functionalize + make_fx, the FX graph run on copies of the inputs
# (worker_functorch.py, its default --mode script).


def convert_and_run(src, converted, inputs):
    try:
        from torch.func import functionalize  # PyTorch 2.x
        from torch.fx.experimental.proxy_tensor import make_fx
    except ImportError:
        from functorch import functionalize, make_fx  # PyTorch 1.13
    fn = torch.jit.CompilationUnit(src).program
    gm = make_fx(functionalize(fn))(*[t.clone() for t in inputs])
    print('--- functionalized FX graph ---')
    print(gm.code)
    state = [t.clone() for t in inputs]
    return as_list(gm(*state)), state
