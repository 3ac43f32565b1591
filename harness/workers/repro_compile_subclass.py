# repro_compile_subclass.py - how `aot_eager-subclass` converts, for its repro.py (inlined by
# aliasfuzz): as worker_aot_eager_subclass.py does, torch.compile(backend='aot_eager') of the
# program called on TwoTensor inputs (afsubclass.py), after eager checks that the subclass carries
# the program; the results unwrapped (.a), and .a and .b compared.
from repro_compile import *  # aliasfuzz: inline
from afsubclass import *  # aliasfuzz: inline


def compile_options():
    return 'aot_eager', {}


def wrapped_inputs(inputs):
    """The caller's inputs as TwoTensors: a storage the inputs view (their _base) wrapped once and
    viewed as they view it (LAYOUTS), a leaf that requires grad a TwoTensor leaf (the storage's
    leaf: af_leaf, make_inputs), a parameter an nn.Parameter of one. Returns (wrapped inputs,
    [(the caller's storage, its wrapped one, the wrapped leaf or None)])."""
    storages, out = {}, []
    for i, t in enumerate(inputs):
        if LAYOUTS[i] is not None:
            base = t._base
            if id(base) not in storages:
                leaf = getattr(base, 'af_leaf', None)
                wleaf = wrap(leaf).requires_grad_(True) if leaf is not None else None
                storages[id(base)] = (base, wleaf.clone() if wleaf is not None else wrap(base), wleaf)
            out.append(storages[id(base)][1].as_strided(t.shape, t.stride(), t.storage_offset()))
        elif i in PARAMS:
            out.append(torch.nn.Parameter(wrap(t)))
        elif t.requires_grad:
            out.append(wrap(t).requires_grad_(True))
        else:
            out.append(wrap(t))
    return out, list(storages.values())


def wrapped_run(m, inputs, forward):
    """forward on TwoTensor inputs and, for a training program, the backward through it; the
    results unwrapped into the caller's tensors: each .grad set on the caller's leaf, each storage's
    final state written into the caller's storage. Raises RuntimeError where .a and .b differ."""
    w, storages = wrapped_inputs(inputs)
    outs, final = module_call(m, w, forward)
    problems = []
    if TRAIN:
        loss = None
        for o, k in zip(outs, LOSS):
            if isinstance(o, torch.Tensor) and o.is_floating_point() and o.requires_grad:
                loss = o.sum() * k if loss is None else loss + o.sum() * k
        if loss is not None:
            loss.backward()
        for i in GRADS:
            if w[i].grad is not None:
                inputs[i].grad = unwrap_named([('%s.grad' % INPUTS[i][0], w[i].grad)], problems)[0].clone()
        for base, _, wleaf in storages:
            if wleaf is not None and wleaf.grad is not None:
                base.af_leaf.grad = unwrap_named([('a storage .grad', wleaf.grad)], problems)[0].clone()
    outs = unwrap_named([('output %d' % k, t) for k, t in enumerate(outs)], problems)
    final = unwrap_named([('input %s after the call' % INPUTS[i][0], t) for i, t in enumerate(final)], problems)
    with torch.no_grad():
        for base, wbase, _ in storages:
            base.copy_(unwrap_named([('a storage', wbase)], problems)[0])
    return outs, final, problems


def convert_and_run(src, converted, inputs):
    m, _ = repro_module(src, inputs)
    eager = None if BUFFERS else python_namespace(src)['program']
    want = module_call(m, train_leaves(make_inputs()), eager)  # (forward values and final states: a fresh set each)
    try:  # the subclass must carry the program in eager mode, else it is the subclass's limit
        got = wrapped_run(m, train_leaves(make_inputs()), eager)
    except Exception as e:
        raise RuntimeError('eager on TwoTensor inputs fails (the subclass does not carry the program): %s' % e)
    bad = got[2] + ['output %d' % k for k, (a, b) in enumerate(zip(want[0], got[0])) if value_difference(a, b)]
    bad += ['input %s' % INPUTS[i][0] for i, (a, b) in enumerate(zip(want[1], got[1])) if value_difference(a, b)]
    if bad:
        raise RuntimeError('eager on TwoTensor inputs differs from eager on plain tensors: %s' % ', '.join(bad))
    compiled = compile_program(src, m)
    outs, final, problems = wrapped_run(m, inputs, lambda *args: compiled(*args))
    if problems:
        raise RuntimeError('the compiled program on TwoTensor inputs left .a and .b unequal (eager on them keeps '
                           'them equal): %s' % '; '.join(problems))
    print('torch.compile(backend="aot_eager") ran on TwoTensor inputs; .a of each result compared with eager')
    return outs, final
