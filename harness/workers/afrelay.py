"""afrelay - how the tvm worker gets TVM 0.11-0.14 (Relay) and runs a Relay module, where the
worker (worker_tvm.py) and its repro.py (repro_tvm.py, which aliasfuzz inlines with this file)
do the same thing; see afconvert.py for the inlining."""

import os
import sys


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
