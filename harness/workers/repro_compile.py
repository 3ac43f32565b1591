# repro_compile.py - how `aot_eager` and `inductor` convert, for their repro.py (inlined by
# aliasfuzz): torch.compile(backend=CONVERTER) of the program function, or of its module with
# module state, called as the worker calls it (worker_aot_eager.py; PROTOCOL.md "Calling again").
from repro_common import *  # aliasfuzz: inline


def convert_and_run(src, converted, inputs):
    import os, tempfile
    os.environ.setdefault('TORCHINDUCTOR_CACHE_DIR', tempfile.mkdtemp(prefix='aliasfuzz-inductor-'))
    m, _ = repro_module(src, inputs)
    if BUFFERS:  # the module, compiled
        compiled = torch.compile(m, backend=CONVERTER)
    else:  # the program function, compiled
        compiled = torch.compile(python_namespace(src)['program'], backend=CONVERTER)
    from torch._dynamo.utils import counters
    if any(l is not None for l in LAYOUTS) and os.environ.get('AF_SECOND_CALL') != '0':
        # calling again (aliasfuzz's PROTOCOL.md): call 1 on fresh contiguous copies holding the same
        # values compiles; call 2 below, on the inputs as laid out (LAYOUTS), reuses what it compiled
        plain = [t.clone(memory_format=torch.contiguous_format) for t in inputs]
        want, want_in = run_eager([t.clone() for t in plain])
        got, got_in = module_call(m, plain, lambda *args: compiled(*args))
        bad = ['output %d' % k for k, w in enumerate(want) if k >= len(got) or differs(w, got[k])]
        bad += ['input %s' % INPUTS[i][0] for i, w in enumerate(want_in) if differs(w, got_in[i])]
        print('call 1 of 2 (fresh contiguous inputs): %s' % ('differs from eager: ' + ', '.join(bad) if bad else 'agrees with eager'))
        if bad:
            for k, w in enumerate(want):
                print('call 1 output %d: eager %s\ncall 1 output %d: converted %s' % (k, describe(w), k, describe(got[k] if k < len(got) else None)))
            print('RESULT: MISMATCH (the bug reproduces) on call 1 of 2: ' + ', '.join(bad))
            sys.exit(1)
        print('call 2 of 2: the inputs as laid out (LAYOUTS), the callable compiled for call 1')
    outs, final = module_call(m, inputs, lambda *args: compiled(*args))
    for reason, n in counters['graph_break'].items():
        print('graph break (%dx): %s' % (n, str(reason).strip().splitlines()[0]))
    return outs, final
