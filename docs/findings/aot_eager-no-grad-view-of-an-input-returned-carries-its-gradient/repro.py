#!/usr/bin/env python3
# aliasfuzz 0.1.0 reproducer. Converter: aot_eager torch 2.13.0+cpu, backend aot_eager, python 3.11.7. Verdict when found: wrong-gradient.
# Detail: x.grad: element 0 is 1, eager 0
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

SRC = "def program(x: Tensor) -> Tensor:\n    with torch.no_grad():\n        v0 = x.view([-1])\n    return v0\n"

# The same program, for reading:
#   def program(x: Tensor) -> Tensor:
#       with torch.no_grad():
#           v0 = x.view([-1])
#       return v0

CONVERTED = "# graph 0\ndef forward(self, L_x_ : torch.Tensor):\n    l_x_ = L_x_\n    _set_grad_enabled = torch._C._set_grad_enabled(False);  _set_grad_enabled = None\n    v0 = l_x_.view([-1]);  l_x_ = None\n    _set_grad_enabled_1 = torch._C._set_grad_enabled(True);  _set_grad_enabled_1 = None\n    return (v0,)\n    "
CONVERTER = "aot_eager"
CONVERTER_VERSION = "torch 2.13.0+cpu, backend aot_eager, python 3.11.7"
VERDICT = "wrong-gradient"
PACKAGES = ""  # pip packages besides torch (harness/converters/workers.def)
INPUTS = [
    ("x", [1], torch.float32, []),
]
LAYOUTS = [None]  # inputs that view a storage of BASES: (base, strides, offset)
BASES = []  # (name, elements, dtype, owner input or -1 for a hidden base)
BUFFERS = []  # inputs that are module buffers (self.NAME): the program is an nn.Module's forward
ATTRIBUTES = []  # module state (in BUFFERS) held in plain tensor attributes (self.NAME = t), not register_buffer
TRAIN = True  # a training step: after the forward, LOSS's weighted loss backpropagated
GRADS = [0]  # inputs that require grad (leaves): their .grad is compared
BASE_GRADS = []  # hidden bases of BASES that require grad: the caller's leaf, the inputs view its clone
PARAMS = []  # inputs that are nn.Parameters of the module
LOSS = [1]  # loss = sum(LOSS[k] * outputs[k].sum()) over the floating-point outputs that require grad
AUTOGRAD_REFUSALS = [("saved-modified", "one of the variables needed for gradient computation has been modified by an inplace operation"), ("leaf-write", "a leaf Variable that requires grad is being used in an in-place operation"), ("leaf-write", "a view of a leaf Variable that requires grad is being used in an in-place operation"), ("leaf-write", "is a leaf that requires grad, or a view of one, written in place outside torch.no_grad()"), ("no-grad-view-write", "A view was created in no_grad mode and is being modified inplace"), ("no-grad-view-write", "is a view made under torch.no_grad() of a tensor that requires grad, written in place outside torch.no_grad()"), ("view-base-modified", "is a view and its base or another view of its base has been modified inplace"), ("multi-output-view-write", "This view is the output of a function that returns multiple views"), ("custom-function-view-write", "This view was created inside a custom Function"), ("resize-requires-grad", "cannot resize variables that require grad")]  # (rule, text its error message holds): autograd's own refusals of a training program
OUTPUT_NAMES = ["v0"]

# ---- afconvert.py (inlined) ----
"""afconvert - how the named converters convert, where a worker and a repro.py do the same thing.

The workers import it (through afworker); aliasfuzz inlines it into each repro.py of a worker
converter when it writes one (harness/emit_repro.c: a line `from afconvert import *  # aliasfuzz:
inline` of a repro_*.py file becomes this file), so a repro.py stays one self-contained file and
converts exactly as the worker does. Plain functions of the program's source, names and tensors
(no protocol, no request); torch and the converters' packages are imported inside them.
"""

import re


def as_list(result):
    """A function's result as a list of tensors: a tuple or list spread, None empty."""
    if result is None:
        return []
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


def aten_methods(src):
    """TorchScript exposes every ATen op as a Tensor method; plain Python lacks some (alias, fill,
    zero, copy, gelu_, ...). Gives torch.Tensor those that src calls, calling the same ATen ops."""
    import torch
    for name in sorted(set(re.findall(r"\.([A-Za-z_][A-Za-z0-9_]*)\(", src))):
        if not hasattr(torch.Tensor, name) and hasattr(torch.ops.aten, name):
            op = getattr(torch.ops.aten, name)
            setattr(torch.Tensor, name, (lambda o: lambda self, *args: o(self, *args))(op))


def python_namespace(src):
    """The TorchScript source executed as plain Python (it is valid Python with these names
    defined), for converters that take Python callables (torch.export, torch.compile): a dict of
    what it defines (aten_methods first)."""
    import typing
    import torch
    aten_methods(src)
    g = {"torch": torch, "Tensor": torch.Tensor, "Tuple": typing.Tuple, "List": typing.List,
         "Optional": typing.Optional}
    exec(compile(src, "<aliasfuzz program>", "exec"), g)
    return g


def fresh_name(base, names):
    """base, with underscores added until it is none of names."""
    while base in names:
        base += "_"
    return base


def wrapper_source(src, names, nout, function="program", name="af_returns_inputs"):
    """TorchScript source: src plus a function `name` taking the same inputs that returns the
    program's outputs followed by every input after the call, as one flat tuple, so a functional
    export expresses the final state of each input."""
    res = fresh_name("af_result", names)
    call = "%s(%s)" % (function, ", ".join(names))
    body = ["    " + call] if nout == 0 else ["    %s = %s" % (res, call)]
    items = [] if nout == 0 else [res] if nout == 1 else ["%s[%d]" % (res, k) for k in range(nout)]
    items += list(names)
    ret = "(%s,)" % items[0] if len(items) == 1 else "(%s)" % ", ".join(items)
    params = ", ".join("%s: Tensor" % n for n in names)
    return "%s\n\n\ndef %s(%s):\n%s\n    return %s\n" % (src.rstrip("\n"), name, params, "\n".join(body), ret)


def program_module(ns, function, names, buffers, nout, values, returns_state=False, parameters=(), attributes=()):
    """The program as a torch.nn.Module (a new class each call). ns: python_namespace of its
    source. Module state (buffers: positions of the inputs that are buffers): the source's
    function is the module's forward and every buffer is registered under its name, holding a
    clone of values[k]. Otherwise forward(self, <inputs>) calls the program function. With
    returns_state, forward returns the program's outputs followed by the final state of every
    input, in program order (a buffer: what `self.NAME` is bound to after the call), each a clone,
    as one flat tuple, so a functional export expresses input and buffer mutations as outputs.
    parameters: the positions among buffers that are nn.Parameters (training programs), registered
    as parameters instead; attributes: the positions among buffers that are plain tensor attributes
    (`self.NAME = tensor`, not register_buffer: torch.export lifts them as constants), set so."""
    import torch
    params = [n for k, n in enumerate(names) if k not in buffers]
    res = fresh_name("af_result", names)
    call = "af_program(%s)" % ", ".join((["self"] if buffers else []) + params)
    inner = ns.get(function) or ns["forward"] if buffers else ns[function]
    lines = ["def forward(self%s):" % "".join(", " + p for p in params)]
    if not returns_state:
        lines.append("    return " + call)
    else:
        lines.append("    %s = %s" % (res, call))
        items = [] if nout == 0 else [res] if nout == 1 else ["%s[%d]" % (res, k) for k in range(nout)]
        # each final state as a clone, a tensor of its own: a program that returns an input would
        # otherwise hand the converter one tensor as two outputs (OpenVINO 2026.4's frontend
        # rejects that: "Tensor name is not a number"), which is no aliasing bug of the program
        items += ["self.%s.clone()" % n if k in buffers else "%s.clone()" % n for k, n in enumerate(names)]
        lines.append("    return (%s,)" % ", ".join(items) if items else "    return ()")
    fns = {"af_program": inner, "torch": torch}
    exec(compile("\n".join(lines) + "\n", "<aliasfuzz forward>", "exec"), fns)
    m = type("Program", (torch.nn.Module,), {"forward": fns["forward"]})().eval()  # exporters warn about training mode
    for k in buffers:
        if k in parameters:
            m.register_parameter(names[k], torch.nn.Parameter(values[k].clone()))
        elif k in attributes:
            setattr(m, names[k], values[k].clone())
        else:
            m.register_buffer(names[k], values[k].clone())
    return m


def write_states(views, final):
    """Writes each final state into its view of the caller's storage (None entries skipped), in
    input order, as a caller who applies a converted model's returned states to the tensors they
    passed does: for the converters whose model returns every input's final state instead of
    writing it (ONNX, TVM, OpenVINO). A view that overlaps itself (a stride 0 over a size above 1:
    an expanded input, which eager cannot write either) is skipped."""
    import torch
    for v, t in zip(views, final):
        if v is None or t is None or any(st == 0 and sz > 1 for st, sz in zip(v.stride(), v.shape)):
            continue
        if not isinstance(t, torch.Tensor):
            t = torch.from_numpy(t)
        with torch.no_grad():
            v.copy_(t.reshape(v.shape).to(v.dtype))

# TorchScript exposes every ATen op as a Tensor method; plain Python lacks some (alias, fill,
# zero, copy, gelu_, ...): the same ATen ops under the same names, so the text means the same.
aten_methods(SRC + CONVERTED)

# How aot_eager converts and runs the program:
# repro_compile.py - how `aot_eager` and `inductor` convert, for their repro.py (inlined by
# aliasfuzz): torch.compile(backend=CONVERTER) of the program function, or of its module with
# module state, called as the worker calls it (worker_aot_eager.py; PROTOCOL.md "Calling again").
# inductor also needs a C++ compiler (g++).
# ---- repro_common.py (inlined) ----
# repro_common.py - what the repro.py of the worker converters share: aliasfuzz
# inlines it (and afconvert.py) into repro.py when it writes one (harness/emit_repro.c). It uses
# repro.py's globals (INPUTS, BUFFERS, ATTRIBUTES, OUTPUT_NAMES, PACKAGES, make_inputs, module_call).


def written_back(inputs, final):
    """final, after writing each state into its input where the input views a storage (LAYOUTS),
    as the worker does (afconvert.write_states): the storages then hold what a caller who applies
    the returned states has, and repro.py compares hidden ones with eager's."""
    write_states([t if LAYOUTS[i] is not None else None for i, t in enumerate(inputs)], final)
    return final


def repro_module(src, inputs, returns_state=False):
    """(nn.Module of SRC run as Python, its forward's arguments laid out as the inputs are), built
    as the worker builds it (afconvert.program_module)."""
    names = [i[0] for i in INPUTS]
    # (a training program's parameters are nn.Parameters, as the worker registers them; the values
    # are copied, so the leaves the caller passes stay the caller's)
    m = program_module(python_namespace(src), 'forward' if BUFFERS else 'program', names, BUFFERS,
                       len(OUTPUT_NAMES), [t.detach() for t in inputs], returns_state, parameters=PARAMS,
                       attributes=ATTRIBUTES)
    fresh = make_inputs()  # another set laid out as the inputs are (LAYOUTS), as the worker's req.fresh()
    return m, [t for i, t in enumerate(fresh) if i not in BUFFERS]


def need(package, dist=None):
    """Imports package, or exits 3 (ENVIRONMENT) naming what to install: the pin of its pip
    distribution dist (default: the package's own name, or apache-NAME) in PACKAGES."""
    import importlib
    dists = (dist,) if dist else (package, 'apache-' + package)
    words = PACKAGES.split()  # (the names after a '--no-deps' install with pip's --no-deps)
    pip = next(('--no-deps ' * ('--no-deps' in words[:k]) + p for k, p in enumerate(words)
                if re.split('[=<>]', p)[0] in dists), dist or package)
    try:
        return importlib.import_module(package)
    except ImportError as e:
        print('ENVIRONMENT: this reproducer needs %s (pip install %s): %s' % (package, pip, e))
        sys.exit(3)


def forward_params():
    """The positions of the inputs that are forward's arguments (not buffers)."""
    return [i for i in range(len(INPUTS)) if i not in BUFFERS]


def split_state(vals, inputs):
    """The values of a returns_state model: (outputs, final input states), the states written back
    into inputs (the caller's tensors) where they view a storage (written_back)."""
    n = len(OUTPUT_NAMES)
    return vals[:n], written_back(inputs, vals[n:])
# ---- end of repro_common.py ----


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
