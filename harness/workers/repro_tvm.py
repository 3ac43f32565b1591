# repro_tvm.py - how `tvm` converts, for its repro.py (inlined by aliasfuzz): TVM 0.11-0.14's Relay
# frontend (relay.frontend.from_pytorch) of the program plus af_returns_inputs, run by Relay's
# interpreter, as worker_tvm.py (afrelay holds the steps both take).
# TVM comes from AF_TVM_HOME (a folder with python/tvm/ and lib/libtvm.so: a TVM build, or an
# aliasfuzz checkout's .tvm/tvm-0.14.0/ that scripts/setup.sh unpacks), else an installed tvm. Run
# it with the PyTorch of the stack the finding came from (PyTorch 1.13: Debian 12's
# /usr/bin/python3). AF_TVM_EXECUTOR=compiled runs relay.build + the graph executor (the VM for
# control flow) instead of Relay's interpreter, as the worker's option.
from repro_common import *  # aliasfuzz: inline
from afrelay import *  # aliasfuzz: inline


def relay_or_exit():
    tvm, relay, kind, why = import_tvm()
    if tvm is None:
        print('ENVIRONMENT: no TVM with Relay (%s); set AF_TVM_HOME to a TVM 0.11-0.14 folder '
              '(python/ and lib/), see the header of the converter code below' % why)
        sys.exit(3)
    return tvm, relay


def tvm_convert_and_run(src, inputs):
    tvm, relay = relay_or_exit()
    import os
    if BUFFERS:  # as the worker: aliasfuzz-worker/1 hands a worker a function and its arguments
        raise NotImplementedError('the tvm worker does not convert programs with module state (buffers)')
    names = [i[0] for i in INPUTS]
    nout = len(OUTPUT_NAMES)
    shapes = [(n, (list(t.shape), str(t.dtype).replace('torch.', ''))) for n, t in zip(names, inputs)]
    try:
        fn = torch.jit.CompilationUnit(wrapper_source(src, names, nout)).af_returns_inputs
        mod, params = relay.frontend.from_pytorch(fn, shapes)
        with_inputs = True
    except NotImplementedError:
        raise
    except Exception as e:
        print('converting with the final inputs as extra outputs failed (%s); converting the program alone' %
              str(e).strip().splitlines()[-1])
        mod, params = relay.frontend.from_pytorch(torch.jit.CompilationUnit(src).program, shapes)
        with_inputs = False
    print('--- Relay module ---')
    print(mod['main'])
    args = relay_arguments(mod, params, dict(zip(names, [t.numpy() for t in inputs])))
    how = relay_executor(os.environ.get('AF_TVM_EXECUTOR', 'interp'), src)
    print('executor:', how)
    vals = [torch.from_numpy(v) for v in relay_run(tvm, relay, mod, args, how)]
    return vals[:nout], written_back(inputs, vals[nout:]) if with_inputs else [None] * len(names)


def convert_and_run(src, converted, inputs):
    if VERDICT != 'converter-timeout':
        return tvm_convert_and_run(src, inputs)
    # a timeout finding: it reproduces when the conversion and run outlast the deadline
    import os, time
    deadline = float(os.environ.get('AF_DEADLINE', '10'))
    relay_or_exit()  # (not timed: a worker has imported TVM before its first program)
    t0 = time.perf_counter()
    try:
        tvm_convert_and_run(src, inputs)
    except Exception as e:
        print('RESULT: found as converter-timeout, but the converter ended after %.1f s with %s: %s: a different '
              'failure' % (time.perf_counter() - t0, type(e).__name__, str(e).strip().splitlines()[-1] if str(e) else ''))
        sys.exit(2)
    dt = time.perf_counter() - t0
    if dt > deadline:
        print('RESULT: TIMEOUT (the bug reproduces): the converter took %.1f s, over the deadline of %g s (AF_DEADLINE)'
              % (dt, deadline))
        sys.exit(1)
    print('RESULT: the converter finished in %.1f s, within the deadline of %g s (AF_DEADLINE): the timeout does not '
          'reproduce' % (dt, deadline))
    sys.exit(0)
