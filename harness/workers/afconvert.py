"""afconvert - how the named converters convert, where a worker and a repro.py do the same thing.

The workers import it (afworker, worker_tvm); aliasfuzz inlines it into each repro.py of a worker
converter when it writes one (harness/emit_repro.c: a line `from afconvert import *  # aliasfuzz:
inline` of a repro_*.py file becomes this file), so a repro.py stays one self-contained file and
converts exactly as the worker does. Plain functions of the program's source, names and tensors
(no protocol, no request); torch and the converters' packages are imported inside them.
"""

import os
import re
import sys


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


def program_module(ns, function, names, buffers, nout, values, returns_state=False):
    """The program as a torch.nn.Module (a new class each call). ns: python_namespace of its
    source. Module state (buffers: positions of the inputs that are buffers): the source's
    function is the module's forward and every buffer is registered under its name, holding a
    clone of values[k]. Otherwise forward(self, <inputs>) calls the program function. With
    returns_state, forward returns the program's outputs followed by the final state of every
    input, in program order (a buffer: what `self.NAME` is bound to after the call), each a clone,
    as one flat tuple, so a functional export expresses input and buffer mutations as outputs."""
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
        m.register_buffer(names[k], values[k].clone())
    return m


# ---- TVM Relay (0.11-0.14): the tvm worker and its repro.py ----

def restore_numpy_aliases():
    """numpy >= 1.24 removed np.int, np.float, ...; the 0.11-0.14 frontend still uses them and
    otherwise takes other paths."""
    import numpy as np
    for alias, real in (("int", int), ("float", float), ("bool", bool), ("object", object), ("complex", complex),
                        ("str", str)):
        if alias not in np.__dict__:
            setattr(np, alias, real)


def tvm_home_of(folder):
    """(python dir, lib dir) of a TVM folder, or None: python/tvm/__init__.py and lib/libtvm.so
    (a build folder keeps the libraries at its top: build/libtvm.so)."""
    py = os.path.join(folder, "python")
    if not os.path.isfile(os.path.join(py, "tvm", "__init__.py")):
        return None
    for lib in (os.path.join(folder, "lib"), os.path.join(folder, "build"), folder):
        if os.path.isfile(os.path.join(lib, "libtvm.so")):
            return py, lib
    return None


def find_tvm(checkout=None):
    """Where TVM comes from: (kind, python dir or None, lib dir or None, None) or (None, None,
    None, reason). kind: "AF_TVM_HOME", "installed" or "checkout .tvm/" (an aliasfuzz checkout's
    .tvm/tvm-*/, which scripts/setup.sh unpacks; none when checkout is None)."""
    import glob
    import importlib.util
    env = os.environ.get("AF_TVM_HOME")
    if env:
        home = tvm_home_of(env)
        if home is None:
            return None, None, None, ("AF_TVM_HOME=%s has no TVM (wanted python/tvm/ and lib/libtvm.so in it)" % env)
        return "AF_TVM_HOME", home[0], home[1], None
    try:
        spec = importlib.util.find_spec("tvm")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin:
        relay_frontend = os.path.join(os.path.dirname(spec.origin), "relay", "frontend", "pytorch.py")
        if os.path.isfile(relay_frontend):
            return "installed", None, None, None
    for folder in sorted(glob.glob(os.path.join(checkout, ".tvm", "tvm-*")), reverse=True) if checkout else ():
        home = tvm_home_of(folder)
        if home is not None:
            return "checkout .tvm/", home[0], home[1], None
    if spec is not None:
        return "installed", None, None, None  # without Relay: import_tvm says so
    return None, None, None, ("TVM is not installed (no AF_TVM_HOME, no importable tvm with Relay for %s, no "
                              "TVM in the checkout's .tvm/: run scripts/setup.sh, which unpacks ../shared/tvm/, or "
                              "see the README's \"Getting TVM\")" % sys.executable)


def import_tvm(checkout=None):
    """TVM with Relay: (tvm, relay, kind, None) or (None, None, None, reason). Before `import tvm`
    numpy's aliases are restored and TOPHUB_LOCATION=NONE (nothing tries the network)."""
    if "tvm" in sys.modules:
        import tvm
        from tvm import relay
        return tvm, relay, "imported", None
    os.environ.setdefault("TOPHUB_LOCATION", "NONE")
    kind, py, lib, why = find_tvm(checkout)
    if kind is None:
        return None, None, None, why
    if py is not None:
        sys.path.insert(0, py)
        os.environ["TVM_LIBRARY_PATH"] = lib
    try:
        restore_numpy_aliases()
    except ImportError as e:
        return None, None, None, "TVM is not installed (numpy missing: %s)" % e
    try:
        import tvm
        from tvm import relay
    except ImportError as e:
        return None, None, None, "TVM is not installed (import tvm from %s: %s)" % (kind, e)
    except Exception as e:  # a broken build
        return None, None, None, "TVM (%s) does not import: %s: %s" % (kind, type(e).__name__, e)
    if not hasattr(relay, "frontend") or not hasattr(relay.frontend, "from_pytorch"):
        return None, None, None, "TVM %s (%s) has no relay.frontend.from_pytorch (Relay was removed after 0.14)" % (
            getattr(tvm, "__version__", "?"), kind)
    print("TVM %s from %s (%s)" % (tvm.__version__, kind, os.path.dirname(tvm.__file__)), file=sys.stderr)
    return tvm, relay, kind, None


def relay_executor(how, src):
    """The executor that runs a program: how, or for "compiled" the graph executor, the VM for a
    program with control flow."""
    if how != "compiled":
        return how
    return "vm" if any(k in src for k in ("\n    if ", "\n    for ", "\n    while ")) else "graph"


def relay_arguments(mod, params, feeds):
    """The value of every parameter of main, in order (by name: feeds, the program's inputs as
    arrays, then the module's bound weights): TVM 0.14 may give one input several parameters of
    one name, so they are fed by position. Raises LookupError naming the parameters that have none."""
    args, missing = [], []
    for p in mod["main"].params:
        n = p.name_hint
        if n in feeds:
            args.append(feeds[n])
        elif n in params:
            args.append(params[n].numpy())
        else:
            missing.append(n)
    if missing:
        raise LookupError("the Relay module's main has parameter%s %s that %s no program input nor bound weight "
                          "(a free variable the frontend left)" % (
                              "s" if len(missing) > 1 else "", ", ".join("%%%s" % n for n in missing),
                              "are" if len(missing) > 1 else "is"))
    return args


def relay_flatten(value):
    """Relay results (NDArray, ADT / tuple, nested) as a flat list of numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    if hasattr(value, "asnumpy"):
        return [value.asnumpy()]
    out = []
    for v in value:
        out.extend(relay_flatten(v))
    return out


def relay_run(tvm, relay, mod, args, how, target=None, opt_level=3):
    """Runs main on args with the executor how: interp (Relay's interpreter at opt_level 0, built
    for target or "llvm -opt-level=0": the frontend is judged, not the optimiser), vm or graph
    (relay.build at opt_level for target or "llvm"). A flat list of numpy arrays."""
    dev = tvm.cpu(0)
    if how == "interp":
        with tvm.transform.PassContext(opt_level=0):
            run = relay.create_executor("debug", mod=mod, device=dev, target=target or "llvm -opt-level=0").evaluate()
            return relay_flatten(run(*args))
    if how == "vm":
        with tvm.transform.PassContext(opt_level=opt_level):
            run = relay.create_executor("vm", mod=mod, device=dev, target=target or "llvm").evaluate()
        return relay_flatten(run(*args))
    with tvm.transform.PassContext(opt_level=opt_level):
        lib = relay.build(mod, target=target or "llvm")
    from tvm.contrib import graph_executor
    m = graph_executor.GraphModule(lib["default"](dev))
    for k, a in enumerate(args):  # by position: several parameters may share one name
        m.set_input(k, tvm.nd.array(a, dev))
    m.run()
    return [m.get_output(k).numpy() for k in range(m.get_num_outputs())]
