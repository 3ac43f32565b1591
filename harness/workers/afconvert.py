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
