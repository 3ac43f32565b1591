# repro_compile.py - how `aot_eager` and `inductor` convert, for their repro.py (inlined by
# aliasfuzz): torch.compile(backend=CONVERTER) of the program function, or of its module with
# module state, called as the worker calls it (worker_aot_eager.py; PROTOCOL.md "Calling again").
# inductor also needs a C++ compiler (g++).
from repro_common import *  # aliasfuzz: inline


def fresh_cache():
    """A compile cache folder of this run's own, removed when it ends (repro.py runs once per
    confirmation: a folder per run left in the temporary folder adds up over nightly campaigns)."""
    import atexit, os, shutil, tempfile
    path = tempfile.mkdtemp(prefix='aliasfuzz-inductor-repro-')
    atexit.register(shutil.rmtree, path, True)
    return path


def compile_options():
    """(backend, torch.compile's other keyword arguments): the converter's own name and the defaults;
    a variant's repro file (repro_compile_dynamic.py) defines it again after inlining this one."""
    return CONVERTER, {}


def compile_program(src, m, own_cache=False):
    """A fresh torch.compile(backend=CONVERTER) of the program (TorchDynamo's caches reset first, as
    the worker does for each program): of the module m with module state, else of the function.
    own_cache: a compile cache folder of its own (the program's second compile, as the worker gives
    it: the AOTAutograd cache ignores input aliasing and would serve the first compile's graph)."""
    torch._dynamo.reset()
    if own_cache:
        import os
        os.environ['TORCHINDUCTOR_CACHE_DIR'] = fresh_cache()
    backend, options = compile_options()
    if BUFFERS:
        return torch.compile(m, backend=backend, **options)
    return torch.compile(python_namespace(src)['program'], backend=backend, **options)


def check_call(what, m, compiled, args, eager_args):
    """One call of compiled on args, judged against eager on eager_args (the same values, laid out
    the same); exits 1 (the bug reproduces) when they differ."""
    want, want_in = run_eager(eager_args)
    torch.set_grad_enabled(True)  # (a program's torch.set_grad_enabled outlives each call)
    got, got_in = module_call(m, args, lambda *a: compiled(*a))
    torch.set_grad_enabled(True)
    bad = ['output %d' % k for k, w in enumerate(want) if k >= len(got) or differs(w, got[k])]
    bad += ['input %s' % INPUTS[i][0] for i, w in enumerate(want_in) if differs(w, got_in[i])]
    print('%s: %s' % (what, 'differs from eager: ' + ', '.join(bad) if bad else 'agrees with eager'))
    if bad:
        for k, w in enumerate(want):
            print('output %d: eager %s\noutput %d: converted %s' % (k, describe(w), k, describe(got[k] if k < len(got) else None)))
        for i, w in enumerate(want_in):
            print('input %s after the call: eager %s\ninput %s after the call: converted %s' % (
                INPUTS[i][0], describe(w), INPUTS[i][0], describe(got_in[i])))
        print('RESULT: MISMATCH (the bug reproduces) in %s: %s' % (what, ', '.join(bad)))
        sys.exit(1)


def convert_and_run(src, converted, inputs):
    import os
    if 'TORCHINDUCTOR_CACHE_DIR' not in os.environ:
        os.environ['TORCHINDUCTOR_CACHE_DIR'] = fresh_cache()
    m, _ = repro_module(src, inputs)
    from torch._dynamo.utils import counters
    if any(l is not None for l in LAYOUTS) and os.environ.get('AF_SECOND_CALL') != '0':
        # both calling orders, as aliasfuzz judges a caching converter (its PROTOCOL.md "Calling again"):
        # order 1 compiles on the inputs as laid out (LAYOUTS: they alias at compile time); order 2
        # compiles on fresh contiguous copies holding the same values (call 1), then calls what it
        # compiled on the inputs as laid out (call 2, below: main() judges it)
        check_call('order 1 of 2, compiled on the inputs as laid out', m, compile_program(src, m), make_inputs(),
                   make_inputs())
        compiled = compile_program(src, m, own_cache=True)
        plain = [t.clone(memory_format=torch.contiguous_format) for t in inputs]
        check_call('order 2 of 2, call 1 of 2 (fresh contiguous inputs)', m, compiled, plain, [t.clone() for t in plain])
        print('order 2 of 2, call 2 of 2: the inputs as laid out (LAYOUTS), the callable compiled for call 1')
    else:
        compiled = compile_program(src, m)
    outs, final = module_call(m, inputs, lambda *args: compiled(*args))
    for reason, n in counters['graph_break'].items():
        print('graph break (%dx): %s' % (n, str(reason).strip().splitlines()[0]))
    return outs, final
