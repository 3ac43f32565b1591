# repro_main.py - the part of every repro.py after the converter's code: the inputs by the
# documented formula (and their layouts), the eager run, the comparison with the oracle's
# tolerances, and main(), which exits 1 while converter and eager differ. aliasfuzz inlines it when
# it writes a repro.py (harness/emit_repro.c writes the program's globals above it: SRC, CONVERTED,
# CONVERTER, VERDICT, INPUTS, LAYOUTS, BASES, BUFFERS, ATTRIBUTES, TRAIN, GRADS, BASE_GRADS, PARAMS, LOSS,
# AUTOGRAD_REFUSALS, OUTPUT_NAMES,
# PACKAGES, and inlines afconvert.py before it: as_list, aten_methods). A training program
# (TRAIN, docs/training.md) runs the weighted loss's backward after eager and after the converter,
# and every .grad is compared too; for autograd-accepts / autograd-rejects (oracle.h) it says whether
# exactly one side's autograd refuses the program (exit 1) or both agree (exit 0).

def default_values(i, n, dtype, data):
    """Element k of input i is ((7k + 3i) % 11) - 5 (uint8: (7k + 3i) % 11; bool: (k + i) % 3 == 0)
    unless data is given."""
    if data:
        return [data[k % len(data)] for k in range(n)]
    if dtype == torch.bool:
        return [float((k + i) % 3 == 0) for k in range(n)]
    if dtype == torch.uint8:
        return [float((k * 7 + i * 3) % 11) for k in range(n)]
    return [float(((k * 7 + i * 3) % 11) - 5) for k in range(n)]

def make_inputs(with_bases=False):
    """The inputs; an input with a layout (LAYOUTS) is torch.as_strided of its storage (BASES: the
    storage of the input `owner`, filled as that input would be, or a hidden base the caller
    owns), so inputs that view one storage share it, as they did when the bug was found."""
    bases, hidden = [], 0
    for name, n, dtype, owner in BASES:
        if owner >= 0:
            vals = default_values(owner, n, dtype, INPUTS[owner][3])
        else:
            vals, hidden = default_values(len(INPUTS) + hidden, n, dtype, []), hidden + 1
        t = torch.tensor(vals, dtype=torch.float64).to(dtype)
        if TRAIN and len(bases) in BASE_GRADS:  # the caller's leaf: the inputs view its clone
            leaf = t.requires_grad_(True)
            t = leaf.clone()
            t.af_leaf = leaf
        bases.append(t)
    out = []
    for i, (name, shape, dtype, data) in enumerate(INPUTS):
        if LAYOUTS[i] is not None:
            b, strides, offset = LAYOUTS[i]
            out.append(bases[b].as_strided(shape, strides, offset))
            continue
        n = 1
        for d in shape:
            n *= d
        out.append(torch.tensor(default_values(i, n, dtype, data), dtype=torch.float64).reshape(shape).to(dtype))
    return (out, bases) if with_bases else out

def module_class(src):
    """Module state: SRC is the forward of an nn.Module (its buffers are the inputs BUFFERS); the
    class comes from a file so that torch.jit.script can read its source."""
    import importlib.util, os, tempfile
    text = ('import torch\nfrom torch import Tensor\nfrom typing import List, Optional, Tuple\n\n'
            'class Program(torch.nn.Module):\n' + ''.join('    ' + l + '\n' for l in src.splitlines()))
    path = os.path.join(tempfile.mkdtemp(prefix='aliasfuzz-'), 'aliasfuzz_program.py')
    with open(path, 'w') as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location('aliasfuzz_program', path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Program

def make_module(src, inputs, script):
    m = module_class(src)()
    for i in BUFFERS:
        if i in PARAMS:
            m.register_parameter(INPUTS[i][0], inputs[i])
        elif i in ATTRIBUTES:  # a plain tensor attribute, `self.NAME = tensor`
            setattr(m, INPUTS[i][0], inputs[i])
        else:
            m.register_buffer(INPUTS[i][0], inputs[i])
    return torch.jit.script(m) if script else m

def module_call(m, inputs, forward=None):
    """forward (m's own by default) on the inputs that are no buffer (the buffers set first);
    returns (outputs, final inputs): a buffer's final state is what the module's attribute is bound to."""
    for i in BUFFERS:
        setattr(m, INPUTS[i][0], inputs[i])
    outs = as_list((forward or m)(*[t for i, t in enumerate(inputs) if i not in BUFFERS]))
    return outs, [getattr(m, INPUTS[i][0]) if i in BUFFERS else t for i, t in enumerate(inputs)]

def train_leaves(inputs):
    """A training program's inputs (docs/training.md): an input that requires grad (GRADS) a leaf
    that does, a parameter (PARAMS) an nn.Parameter; the others as they are. The caller keeps the
    list: after the backward each leaf holds its .grad."""
    if not TRAIN:
        return inputs
    return [torch.nn.Parameter(t) if i in PARAMS else t.requires_grad_(True) if i in GRADS else t
            for i, t in enumerate(inputs)]

def grad_names():
    """The names of what requires grad, in train_backward's order: GRADS, then BASE_GRADS."""
    return [INPUTS[i][0] for i in GRADS] + [BASES[k][0] for k in BASE_GRADS]

def grad_mode_after():
    """The grad mode a call left (a program's torch.set_grad_enabled outlives it), put back on for
    the backward: compared between eager and the converter, as aliasfuzz's oracle does."""
    mode = torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    return mode

def train_backward(outs, leaves, bases=()):
    """A training program's backward: loss = sum(LOSS[k] * outs[k].sum()) over the floating-point
    outputs that require grad (none: no backward), loss.backward(). Returns the .grad of each input
    of GRADS, in that order, an unset one as zeros (as aliasfuzz's oracle compares them); [] when
    the program does not train."""
    if not TRAIN:
        return []
    loss = None
    for o, w in zip(outs, LOSS):
        if isinstance(o, torch.Tensor) and o.is_floating_point() and o.requires_grad:
            term = o.sum() * w
            loss = term if loss is None else loss + term
    if loss is not None:
        loss.backward()
    ts = [leaves[i] for i in GRADS] + [bases[k].af_leaf for k in BASE_GRADS]  # a base's: the caller's leaf
    return [torch.zeros_like(t).detach() if t.grad is None else t.grad.detach() for t in ts]

def autograd_refusal(exc):
    """The rule of autograd's own refusal of a training program that exc is (AUTOGRAD_REFUSALS: the
    oracle's table, by the fixed text of autograd's check), or None."""
    text = str(exc)
    for rule, t in AUTOGRAD_REFUSALS if TRAIN else ():
        if t in text:
            return rule
    return None

def run_script(src, inputs):
    """SRC scripted and run: a function, or a scripted module for module state."""
    if BUFFERS:
        return module_call(make_module(src, inputs, True), inputs)
    return as_list(torch.jit.CompilationUnit(src).program(*inputs)), inputs

def python_function(src):
    """SRC as a plain Python function (the program a user writes)."""
    ns = {'torch': torch, 'Tensor': torch.Tensor, 'Tuple': Tuple, 'List': List, 'Optional': Optional}
    exec(src, ns)
    return ns['program']

def run_eager(inputs):
    if BUFFERS:
        return module_call(make_module(SRC, inputs, False), inputs)
    return as_list(python_function(SRC)(*inputs)), inputs

def describe(t):
    if t is None:
        return 'None (the converter cannot express it)'
    return '%s %s\n%s' % (list(t.shape), str(t.dtype).replace('torch.', ''), t)

def differs(want, got):
    if got is None:
        return 'missing'
    if list(want.shape) != list(got.shape):
        return 'shape %s, eager %s' % (list(got.shape), list(want.shape))
    if want.dtype != got.dtype:
        return 'dtype %s, eager %s' % (got.dtype, want.dtype)
    if want.dtype.is_floating_point:  # the oracle's tolerances (oracle/oracle.h)
        rtol, atol = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10),
                      torch.float16: (2e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}[want.dtype]
        g, w = got.double(), want.double()
        both = ~(g.isfinite() | w.isfinite())  # any two non-finite values are equal, as in the oracle
        ok = torch.allclose(g.masked_fill(both, 0), w.masked_fill(both, 0), rtol=rtol, atol=atol)
    else:
        ok = torch.equal(got, want)
    return None if ok else 'values differ'

def main():
    torch.set_num_threads(1)
    print('aliasfuzz reproducer: converter %s (%s), found as %s' % (CONVERTER, CONVERTER_VERSION, VERDICT))
    print('PyTorch', torch.__version__)
    print('--- program (TorchScript) ---')
    print(SRC)
    initial, initial_bases = make_inputs(True)
    e_args, e_bases = make_inputs(True)
    e_args = train_leaves(e_args)
    refused = None  # (rule, message) of eager's autograd refusing the program (autograd-accepts)
    try:
        e_out, e_in = run_eager(e_args)
        e_mode = grad_mode_after()
        e_grads = train_backward(e_out, e_args, e_bases)
    except Exception as exc:
        rule = autograd_refusal(exc)
        if VERDICT != 'autograd-accepts' or not rule:
            print('RESULT: eager PyTorch itself rejects the program (invalid program): %s' % str(exc).splitlines()[0])
            return 1
        refused = (rule, str(exc).splitlines()[0])
        print("eager's autograd refuses the program (%s): %s" % refused)
    if 'convert_and_run' not in globals():
        print('this converter has no Python reproduction; eager outputs:')
        for k, t in enumerate(e_out):
            print('output %d:' % k, describe(t))
        return 2
    try:
        c_args, c_bases = make_inputs(True)
        c_args = train_leaves(c_args)
        torch.set_grad_enabled(True)
        c_out, c_in = convert_and_run(SRC, CONVERTED, c_args)
        c_mode = grad_mode_after()
        c_grads = train_backward(c_out, c_args, c_bases)  # through what the converter returned
    except ImportError as exc:
        print('RESULT: cannot run the converter here: %s' % exc)
        return ENV_STATUS
    except Exception as exc:
        import traceback
        traceback.print_exc()
        print('RESULT: the converter raised %s: %s' % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else ''))
        rule = autograd_refusal(exc)
        if refused and rule:
            print("RESULT: the converter's autograd refuses it too (%s), as eager's does (%s): they agree" % (rule, refused[0]))
            return 0
        if VERDICT == 'autograd-rejects' and rule:
            print("RESULT: AUTOGRAD REJECTS (the bug reproduces): the converter's autograd refuses the program (%s), "
                  "eager runs it and its backward" % rule)
            return 1
        if VERDICT in ('converter-error', 'converter-crash', 'converter-unsupported', 'converter-timeout'):
            return 1
        print('(found as %s: this is a different failure)' % VERDICT)
        return 2
    if refused:
        print("RESULT: AUTOGRAD ACCEPTS (the bug reproduces): eager's autograd refuses the program (%s), the converter "
              "ran it and its backward; its gradients: %s" % (refused[0], ', '.join(
                  '%s.grad %s' % (name, describe(c_grads[j])) for j, name in enumerate(grad_names()))))
        return 1
    bad = []
    if len(c_out) != len(e_out):
        bad.append('converter returned %d outputs, eager %d' % (len(c_out), len(e_out)))
    for k, want in enumerate(e_out):
        got = c_out[k] if k < len(c_out) else None
        d = differs(want, got)
        print('output %d (%s): eager %s' % (k, OUTPUT_NAMES[k], describe(want)))
        print('output %d (%s): converted %s' % (k, OUTPUT_NAMES[k], describe(got)))
        if d:
            bad.append('output %d (%s): %s' % (k, OUTPUT_NAMES[k], d))
    for i, want in enumerate(e_in):
        got = c_in[i] if i < len(c_in) else None
        changed = differs(initial[i], want) is not None
        if got is None and not changed:
            continue
        d = differs(want, got)
        if d:
            print('input %s after the run: eager %s' % (INPUTS[i][0], describe(want)))
            print('input %s after the run: converted %s' % (INPUTS[i][0], describe(got)))
            bad.append('input %s: %s' % (INPUTS[i][0], d))
    for k, (name, n, dtype, owner) in enumerate(BASES):  # hidden bases: memory the caller owns
        if owner < 0 and differs(e_bases[k], c_bases[k]):
            print('base %s after the run: eager %s' % (name, describe(e_bases[k])))
            print('base %s after the run: converted %s' % (name, describe(c_bases[k])))
            bad.append('base %s: %s' % (name, differs(e_bases[k], c_bases[k])))
    for j, name in enumerate(grad_names()):  # training: every .grad after the backward
        d = differs(e_grads[j], c_grads[j])
        print('%s.grad: eager %s' % (name, describe(e_grads[j])))
        print('%s.grad: converted %s' % (name, describe(c_grads[j])))
        if d:
            bad.append('%s.grad: %s' % (name, d))
    if TRAIN and e_mode != c_mode:
        print('grad mode after the call: eager %s, converted %s' % (e_mode, c_mode))
        bad.append('grad mode after the call: %s, eager %s' % ('on' if c_mode else 'off', 'on' if e_mode else 'off'))
    if bad:
        print('RESULT: MISMATCH (the bug reproduces): ' + '; '.join(bad))
        return 1
    if VERDICT in ('converter-error', 'converter-crash', 'converter-unsupported', 'converter-timeout', 'autograd-rejects'):
        print('RESULT: the converter no longer fails: converter and eager agree')
        return 0
    print('RESULT: converter and eager agree (the bug does not reproduce)')
    return 0

def guarded():
    # converter-crash, converter-timeout: the conversion runs in a child (this file again), so a
    # crash or a hang is seen, not suffered: the bug reproduces (exit 1) when the child dies by a
    # signal or runs past AF_REPRO_DEADLINE seconds (default 300). A crash from corrupted memory
    # need not come every time: a child that ends well is run again, AF_REPRO_TRIES times in all
    # (default 3), before the bug reads as not reproduced
    import subprocess
    deadline = float(os.environ.get('AF_REPRO_DEADLINE', '300'))
    tries = max(1, int(os.environ.get('AF_REPRO_TRIES', '3')))
    cmd = [sys.executable] + (['-S'] if sys.flags.no_site else []) + sys.argv
    for k in range(tries):
        try:
            r = subprocess.run(cmd, env=dict(os.environ, AF_REPRO_CHILD='1'), timeout=deadline)
        except subprocess.TimeoutExpired:
            print('RESULT: the conversion ran past %g s (AF_REPRO_DEADLINE): the bug reproduces' % deadline)
            return 1
        if r.returncode < 0:
            print('RESULT: the converter crashed (signal %d): the bug reproduces' % -r.returncode)
            return 1
        if r.returncode != 0:
            return r.returncode
        if k + 1 < tries:
            print('(the child ended well: run %d of %d, AF_REPRO_TRIES)' % (k + 2, tries))
    return 0

if __name__ == '__main__':
    if VERDICT in ('converter-crash', 'converter-timeout') and not os.environ.get('AF_REPRO_CHILD'):
        sys.exit(guarded())
    sys.exit(main())
