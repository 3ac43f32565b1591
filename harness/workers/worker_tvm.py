#!/usr/bin/env python3
"""worker_tvm.py - aliasfuzz worker `tvm`: TVM's Relay PyTorch frontend
(relay.frontend.from_pytorch), built for the CPU and run. Speaks aliasfuzz-worker/1 (PROTOCOL.md).

Written against TVM 0.11 to 0.14 (the last releases with Relay). Where TVM does not import, the
hello says available: false, "TVM is not installed".

With each program:
  1. the TorchScript source is compiled with torch.jit.CompilationUnit, plus a wrapper that
     returns the program's outputs followed by every input after the call (as for onnx: a
     functional Relay module can only show an input's final state as an output);
  2. relay.frontend.from_pytorch(scripted_function, [(name, (shape, dtype)), ...]);
     "converted as aten::X ... side effects ignored" and other frontend log warnings go to
     "warnings";
  3. relay.build for llvm and the graph executor (relay.create_executor("vm") for programs with
     control flow, or --executor vm). Inputs the Relay module dropped (an input whose only use
     was an in-place op) are not set.
When the wrapper fails to convert but the program alone converts, every input's final state
comes back null, with a warning. A frontend NotImplementedError (unknown operators) is
"unsupported".

Environment, before `import tvm`: numpy's removed aliases (np.int, np.float, np.bool, ...) are
restored, since the 0.11-0.14 frontend still uses them and otherwise takes other paths; and
TOPHUB_LOCATION=NONE so nothing tries the network.

Options: --target (default llvm), --opt-level (default 3), --executor auto|graph|vm.
"""

import argparse
import logging
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import afworker  # noqa: E402


def import_tvm():
    """(tvm, relay, graph_executor, None) or (None, None, None, reason)."""
    os.environ.setdefault("TOPHUB_LOCATION", "NONE")
    try:
        import numpy as np
        for alias, real in (("int", int), ("float", float), ("bool", bool), ("object", object), ("complex", complex),
                            ("str", str)):
            if alias not in np.__dict__:
                setattr(np, alias, real)
    except ImportError as e:
        return None, None, None, "TVM is not installed (numpy missing: %s)" % e
    try:
        import tvm
        from tvm import relay
        from tvm.contrib import graph_executor
    except ImportError as e:
        return None, None, None, "TVM is not installed (import tvm: %s)" % e
    except Exception as e:  # a broken build
        return None, None, None, "TVM does not import: %s: %s" % (type(e).__name__, e)
    if not hasattr(relay, "frontend") or not hasattr(relay.frontend, "from_pytorch"):
        return None, None, None, "TVM %s has no relay.frontend.from_pytorch (Relay was removed after 0.14)" % \
            getattr(tvm, "__version__", "?")
    return tvm, relay, graph_executor, None


class LogCapture(logging.Handler):
    """Collects warnings the frontend logs during one conversion."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        try:
            msg = afworker.clean(record.getMessage())
        except Exception:
            return
        if msg not in self.messages:
            self.messages.append(msg)


def flatten(value):
    """Relay results (NDArray, ADT / tuple, nested) as a flat list of numpy arrays."""
    if hasattr(value, "numpy"):
        return [value.numpy()]
    if hasattr(value, "asnumpy"):
        return [value.asnumpy()]
    out = []
    for v in value:
        out.extend(flatten(v))
    return out


class TvmWorker:
    def __init__(self, torch, tvm, relay, graph_executor, target, opt_level, executor):
        self.torch, self.tvm, self.relay, self.ge = torch, tvm, relay, graph_executor
        self.target, self.opt_level, self.executor = target, opt_level, executor

    def convert(self, fn, req, log):
        shapes = [(n, (list(t.shape), str(t.dtype).replace("torch.", ""))) for n, t in zip(req.names, req.inputs)]
        root = logging.getLogger()
        root.addHandler(log)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                mod, params = self.relay.frontend.from_pytorch(fn, shapes)
            for w in caught:
                log.messages.append(afworker.clean(w.message))
        finally:
            root.removeHandler(log)
        return mod, params

    def build_and_run(self, mod, params, req, use_vm):
        tvm, relay = self.tvm, self.relay
        dev = tvm.cpu(0)
        present = [p.name_hint for p in mod["main"].params]
        feeds = {n: t.numpy() for n, t in zip(req.names, req.inputs)}
        if use_vm:
            with tvm.transform.PassContext(opt_level=self.opt_level):
                run = relay.create_executor("vm", mod=mod, device=dev, target=self.target).evaluate()
            args = [tvm.nd.array(feeds[n], dev) for n in present if n in feeds]
            return flatten(run(*args))
        with tvm.transform.PassContext(opt_level=self.opt_level):
            lib = relay.build(mod, target=self.target, params=params)
        m = self.ge.GraphModule(lib["default"](dev))
        for n in present:
            if n in feeds:
                m.set_input(n, tvm.nd.array(feeds[n], dev))
        m.run()
        return [m.get_output(k).numpy() for k in range(m.get_num_outputs())]

    def handle(self, req):
        t0 = time.perf_counter()
        log = LogCapture()
        src, wname = afworker.wrapper_source(req)
        with_inputs = True
        try:
            try:
                fn = getattr(afworker.script_unit(src), wname)
                mod, params = self.convert(fn, req, log)
            except NotImplementedError:
                raise
            except Exception as e:
                log.messages.append("converting with the final inputs as extra outputs failed (%s); converting the "
                                    "program alone, so final input states cannot be expressed"
                                    % afworker.exception_message(e))
                with_inputs = False
                fn = getattr(afworker.script_unit(req.torchscript), req.function)
                mod, params = self.convert(fn, req, log)
        except NotImplementedError as e:
            return afworker.fail("unsupported", "from_pytorch: " + afworker.exception_message(e), warnings=log.messages)
        except Exception as e:
            return afworker.fail("error", "from_pytorch: " + afworker.exception_message(e), warnings=log.messages)
        graph = mod.astext(show_meta_data=False) if hasattr(mod, "astext") else str(mod)
        t1 = time.perf_counter()
        use_vm = self.executor == "vm" or (self.executor == "auto" and any(
            k in req.torchscript for k in ("\n    if ", "\n    for ", "\n    while ")))
        try:
            vals = self.build_and_run(mod, params, req, use_vm)
        except Exception as e:
            return afworker.fail("error", "build/run (%s): %s" % ("vm" if use_vm else "graph executor",
                                                                 afworker.exception_message(e)),
                                 graph=graph, warnings=log.messages)
        t2 = time.perf_counter()
        want = req.noutputs + (len(req.names) if with_inputs else 0)
        if len(vals) != want:
            return afworker.fail("error", "the Relay module returned %d values, %d expected" % (len(vals), want),
                                 graph=graph, warnings=log.messages)
        outputs = [afworker.encode_tensor(v) for v in vals[:req.noutputs]]
        inputs = [afworker.encode_tensor(v) for v in vals[req.noutputs:]] if with_inputs else [None] * len(req.names)
        return afworker.ok(outputs, inputs, graph=graph, warnings=log.messages, residual=0,  # Relay is functional
                           timing={"convert_s": round(t1 - t0, 4), "build_run_s": round(t2 - t1, 4)})


def main():
    ap = argparse.ArgumentParser(description="aliasfuzz tvm worker (speaks aliasfuzz-worker/1 on stdin/stdout)")
    ap.add_argument("--target", default=os.environ.get("AF_TVM_TARGET", "llvm"))
    ap.add_argument("--opt-level", type=int, default=3)
    ap.add_argument("--executor", choices=("auto", "graph", "vm"), default="auto")
    args = ap.parse_args()
    afworker._protect_stdout()
    versions = {}
    worker = None
    tvm, relay, ge, why = import_tvm()
    if tvm is not None:
        versions["tvm"] = getattr(tvm, "__version__", "?")
        torch, why = afworker.find_torch()
        if torch is not None:
            versions["torch"] = torch.__version__
            worker = TvmWorker(torch, tvm, relay, ge, args.target, args.opt_level, args.executor)
    versions["target"] = args.target
    versions["python"] = sys.version.split()[0]
    afworker.serve("tvm", versions, worker.handle if worker else None, available=worker is not None, reason=why)


if __name__ == "__main__":
    main()
