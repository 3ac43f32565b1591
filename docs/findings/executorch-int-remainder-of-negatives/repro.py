#!/usr/bin/env python3
# aliasfuzz 0.1.0 reproducer. Converter: executorch torch 2.13.0+cpu, executorch 1.5.1, runtime portable (executorch.runtime), python 3.11.7. Verdict when found: value-mismatch.
# Detail: input x: element 0 is -1, eager 1
# Origin: aliasfuzz 0.1.0, program seed 0
# Found on PyTorch 2.13.0 (venv: the torch wheel in .venv). Needs that PyTorch: pip install torch==2.13.0 (the CPU build)
# Run: python3 repro.py   (exit 1 while the bug is present, 0 once fixed, 3 when this Python
# lacks what it needs: torch of that version or the converter's package; AF_REPRO_ANY_TORCH=1
# runs it on another torch anyway, to see whether a finding is fixed there)
import os
import sys
from typing import List, Optional, Tuple

TORCH_NEEDED = "2.13.0"
ENV_STATUS = 3
try:
    import torch
except ImportError as _e:
    print('repro.py needs PyTorch %s, but %s cannot import torch (%s)' % (TORCH_NEEDED, sys.executable, _e))
    sys.exit(ENV_STATUS)
_have = torch.__version__.split('+')[0]
if not _have.startswith(TORCH_NEEDED) and os.environ.get('AF_REPRO_ANY_TORCH') != '1':
    print('repro.py needs PyTorch %s; %s has torch %s (set AF_REPRO_ANY_TORCH=1 to run it anyway)' %
          (TORCH_NEEDED, sys.executable, torch.__version__))
    sys.exit(ENV_STATUS)

SRC = "def program(x: Tensor, y: Tensor) -> Tensor:\n    x.remainder_(2)\n    return y\n"

# The same program, for reading:
#   def program(x: Tensor, y: Tensor) -> Tensor:
#       x.remainder_(2)
#       return y

CONVERTED = "# inputs\nx: USER_INPUT\ny: USER_INPUT\n\n# outputs\ncopy__default: USER_INPUT_MUTATION target='x'\ny: USER_OUTPUT\ndef forward(self, x, y):\n    alloc = executorch_exir_memory_alloc(((1, 1), torch.int64))\n    aten_remainder_scalar = torch.ops.aten.remainder.Scalar_out(x, 2, out = alloc);  alloc = None\n    copy_ = torch.ops.aten.copy_.default(x, aten_remainder_scalar);  x = aten_remainder_scalar = None\n    return (copy_, y)\n    "
CONVERTER = "executorch"
CONVERTER_VERSION = "torch 2.13.0+cpu, executorch 1.5.1, runtime portable (executorch.runtime), python 3.11.7"
VERDICT = "value-mismatch"
INPUTS = [
    ("x", [1, 1], torch.int64, []),
    ("y", [1, 1], torch.float32, []),
]
LAYOUTS = [None, None]  # inputs that view a storage of BASES: (base, strides, offset)
BASES = []  # (name, elements, dtype, owner input or -1 for a hidden base)
BUFFERS = []  # inputs that are module buffers (self.NAME): the program is an nn.Module's forward
OUTPUT_NAMES = ["y"]

# TorchScript exposes every ATen op as a Tensor method; plain Python lacks some (alias, fill,
# zero, copy, gelu_, ...). Give Python the same ATen ops under the same names, so the program
# text means the same in both.
def _aten_method(op):
    return lambda self, *args: op(self, *args)
import re as _re
for _name in sorted(set(_re.findall(r'\.([A-Za-z_][A-Za-z0-9_]*)\(', SRC + CONVERTED))):
    if not hasattr(torch.Tensor, _name) and hasattr(torch.ops.aten, _name):
        setattr(torch.Tensor, _name, _aten_method(getattr(torch.ops.aten, _name)))

# How executorch converts and runs the program:
# Needs: pip install torch==2.13.0 ruamel.yaml==0.19.1 PyYAML==6.0.4 tabulate==0.10.0, then
# pip install --no-deps executorch==1.5.1 (CPU wheels; --no-deps: executorch's metadata pulls torchao,
# coremltools, tokenizers... and no torch pin). export -> to_edge -> to_executorch, portable runtime;
# a mutated input comes back as an extra output, a mutated buffer is read with get_attribute.
def program_module(src, inputs, returns_state=False):
    """(nn.Module running SRC as Python, clones of its forward's arguments), as the worker."""
    names = [i[0] for i in INPUTS]
    params = [n for i, n in enumerate(names) if i not in BUFFERS]
    ns = {'torch': torch, 'Tensor': torch.Tensor, 'Tuple': Tuple, 'List': List, 'Optional': Optional}
    exec(src, ns)
    call = 'af_program(%s)' % ', '.join((['self'] if BUFFERS else []) + params)
    nout = len(OUTPUT_NAMES)
    if returns_state:
        items = [] if nout == 0 else ['af_result'] if nout == 1 else ['af_result[%d]' % k for k in range(nout)]
        items += [('self.' if i in BUFFERS else '') + n + '.clone()' for i, n in enumerate(names)]
        body = '    af_result = %s\n    return (%s)\n' % (call, ''.join(x + ', ' for x in items))
    else:
        body = '    return %s\n' % call
    fns = {'af_program': ns['forward'] if BUFFERS else ns['program'], 'torch': torch}
    exec('def forward(self%s):\n%s' % (''.join(', ' + p for p in params), body), fns)
    m = type('Program', (torch.nn.Module,), {'forward': fns['forward']})().eval()
    for i in BUFFERS:
        m.register_buffer(names[i], inputs[i].clone())
    fresh = make_inputs()  # another set laid out as the inputs are (LAYOUTS), as the worker's req.fresh()
    return m, [t for i, t in enumerate(fresh) if i not in BUFFERS]

def need(package, pip):
    import importlib
    try:
        return importlib.import_module(package)
    except ImportError as e:
        print('ENVIRONMENT: this reproducer needs %s (pip install %s): %s' % (package, pip, e))
        sys.exit(3)

def convert_and_run(src, converted, inputs):
    need('executorch', 'executorch==1.5.1')
    from executorch.exir import to_edge, ExecutorchBackendConfig
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass
    from executorch.runtime import Runtime
    names = [i[0] for i in INPUTS]
    params = [i for i in range(len(INPUTS)) if i not in BUFFERS]  # forward's arguments
    m, args = program_module(src, inputs)
    pats = ['b_' + names[i] for i in BUFFERS]  # keep the buffers' initial values
    et = to_edge(torch.export.export(m, tuple(args))).to_executorch(ExecutorchBackendConfig(
        emit_mutable_buffer_names=True, passes=[InitializedMutableBufferPass(pats)] if pats else []))
    print('--- ExecuTorch program ---')
    print(et.exported_program())
    method = Runtime.get().load_program(et.buffer).load_method('forward')
    res = list(method.execute(args))
    specs = et.exported_program().graph_signature.output_specs
    mutated = {s.target for s in specs if s.kind.name == 'BUFFER_MUTATION'}
    outs, returned = [], {}
    for s, v in zip([s for s in specs if s.kind.name != 'BUFFER_MUTATION'], res):
        if s.kind.name == 'USER_INPUT_MUTATION':
            returned[s.target] = v
        else:
            outs.append(v)
    final = [(method._method.get_attribute(n) if n in mutated else inputs[i].clone()) if i in BUFFERS
             else returned.get(n, args[params.index(i)]) for i, n in enumerate(names)]
    return outs, final

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
        bases.append(torch.tensor(vals, dtype=torch.float64).to(dtype))
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

def as_list(r):
    if r is None:
        return []
    if isinstance(r, (tuple, list)):
        return list(r)
    return [r]

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
        m.register_buffer(INPUTS[i][0], inputs[i])
    return torch.jit.script(m) if script else m

def module_call(m, inputs, forward=None):
    """forward (m's own by default) on the inputs that are no buffer (the buffers set first);
    returns (outputs, final inputs): a buffer's final state is what the module's attribute is bound to."""
    for i in BUFFERS:
        setattr(m, INPUTS[i][0], inputs[i])
    outs = as_list((forward or m)(*[t for i, t in enumerate(inputs) if i not in BUFFERS]))
    return outs, [getattr(m, INPUTS[i][0]) if i in BUFFERS else t for i, t in enumerate(inputs)]

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
        ok = torch.allclose(got.double(), want.double(), rtol=rtol, atol=atol, equal_nan=True)
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
    try:
        e_out, e_in = run_eager(e_args)
    except Exception as exc:
        print('RESULT: eager PyTorch itself rejects the program (invalid program): %s' % str(exc).splitlines()[0])
        return 1
    if 'convert_and_run' not in globals():
        print('this converter has no Python reproduction; eager outputs:')
        for k, t in enumerate(e_out):
            print('output %d:' % k, describe(t))
        return 2
    try:
        c_args, c_bases = make_inputs(True)
        c_out, c_in = convert_and_run(SRC, CONVERTED, c_args)
    except ImportError as exc:
        print('RESULT: cannot run the converter here: %s' % exc)
        return ENV_STATUS
    except Exception as exc:
        import traceback
        traceback.print_exc()
        print('RESULT: the converter raised %s: %s' % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else ''))
        if VERDICT in ('converter-error', 'converter-crash', 'converter-unsupported', 'converter-timeout'):
            return 1
        print('(found as %s: this is a different failure)' % VERDICT)
        return 2
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
    if bad:
        print('RESULT: MISMATCH (the bug reproduces): ' + '; '.join(bad))
        return 1
    if VERDICT in ('converter-error', 'converter-crash', 'converter-unsupported', 'converter-timeout'):
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
