#!/usr/bin/env python3
"""worker_tvm.py - aliasfuzz worker `tvm`: TVM's Relay PyTorch frontend
(relay.frontend.from_pytorch), run on the CPU. Speaks aliasfuzz-worker/1 (PROTOCOL.md).

Written against TVM 0.11 to 0.14 (the last releases with Relay) on the PyTorch 1.13 stack.

Which TVM (the hello's versions say which, as "tvm_from"):
  1. AF_TVM_HOME: a folder with python/ (TVM's package) and lib/ (libtvm.so), e.g. a TVM build;
  2. else an installed `tvm` package that has Relay;
  3. else the checkout's .tvm/tvm-*/ (scripts/setup.sh unpacks ../shared/tvm/'s tarball there).
When there is none, the hello says available: false with the reason.

With each program:
  1. the TorchScript source is compiled with torch.jit.CompilationUnit, plus a wrapper that
     returns the program's outputs followed by every input after the call (as for onnx: a
     functional Relay module can only show an input's final state as an output);
  2. relay.frontend.from_pytorch(scripted_function, [(name, (shape, dtype)), ...]);
     "converted as aten::X ... side effects ignored" and other frontend log warnings go to
     "warnings";
  3. the Relay module runs, by default in Relay's interpreter (relay.create_executor("debug"),
     opt_level 0: no fusion and no optimisation passes, so the frontend is judged, not the
     optimiser; TVM 0.14's interpreter still builds each primitive function, here with LLVM's
     optimisation off, target "llvm -opt-level=0"), or compiled (--executor compiled:
     relay.build at opt_level 3 for "llvm" and the graph executor, or the VM for programs with
     control flow; graph / vm force one).
     Every parameter of the module's main function gets its value by position: TVM 0.14 can
     give one input several parameters of the same name (torch.cat([x, y]); torch.gt(x, y) has
     x, x, y, y), so feeding by name would leave all but one uninitialised. A parameter that is
     neither a program input nor one of the module's bound weights (a free variable the
     frontend left, e.g. after a loop) is a converter error naming it. Inputs the module
     dropped (an input whose only use was an in-place op) are simply not fed.
When the wrapper fails to convert but the program alone converts, every input's final state
comes back null, with a warning. A frontend NotImplementedError (unknown operators) is
"unsupported". TVM's own errors are reported by their message (the last lines of TVM's
backtrace), without the frames and with file paths cut to their base names, so a finding's
signature does not depend on where TVM was built or lives.

Environment, before `import tvm`: numpy's removed aliases (np.int, np.float, np.bool, ...) are
restored, since the 0.11-0.14 frontend still uses them and otherwise takes other paths; and
TOPHUB_LOCATION=NONE so nothing tries the network.

Options: --executor interp|compiled|graph|vm (default interp, or $AF_TVM_EXECUTOR), --target
(or $AF_TVM_TARGET; default above), --opt-level (for the compiled executors, default 3).
"""

import ast
import logging
import os
import re
import warnings

import afrelay  # run as a script: its folder is first on sys.path
import afworker

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout

EXECUTORS = ("interp", "compiled", "graph", "vm")


_BT_FRAME = re.compile(r"^\s*(\[bt\] \(\d+\)|\d+: )")
_PY_FRAME = re.compile(r'^\s*File "[^"]*", line \d+')
_ABS_PATH = re.compile(r"(?<![\w.])/(?:[^\s/:\"'()\[\]]+/)+(?=[^\s/:\"'()\[\]]+)")
_LOG_TIME = re.compile(r"\[\d\d:\d\d:\d\d\] ")  # dmlc's log prefix: another one each run
_NO_SPANS = "The source maps are not populated for this module. Please use `tvm.relay.transform.AnnotateSpans` " \
            "to attach source maps for error reporting."


_MISSING_OPS = re.compile(r"(not implemented: )(\[[^\]]*\])")


def _sorted_ops(m):
    try:
        return m.group(1) + repr(sorted(ast.literal_eval(m.group(2))))
    except (ValueError, SyntaxError, TypeError):
        return m.group(0)


def tidy(msg):
    """Paths cut to base names, log timestamps and TVM's advice about source maps dropped, and
    the frontend's list of missing operators sorted (it comes from a set: another order in each
    process, since Python's string hashes are seeded per process)."""
    msg = _LOG_TIME.sub("", _ABS_PATH.sub("", msg)).replace(_NO_SPANS, "")
    msg = _MISSING_OPS.sub(_sorted_ops, msg)
    return afworker.clean(re.sub(r"(: | \| )\s*\| ", r"\1", msg))


def tvm_message(e):
    """One line for an exception, TVM's own message first: a TVMError's text is a backtrace
    ("Traceback (most recent call last):", "[bt] (k) ..." or "k: ..." frames, then
    'File ".../interpreter.cc", line 660' and the message); keep what follows the last frame,
    tidied (tidy()) so that the same bug reads the same on every machine and run."""
    text = str(e).strip()
    lines = [l.rstrip() for l in text.splitlines() if l.strip()]
    if lines and (lines[0].startswith("Traceback") or any(_BT_FRAME.match(l) for l in lines)):
        last = -1
        for k, l in enumerate(lines):
            if _BT_FRAME.match(l) or _PY_FRAME.match(l) or l.startswith("Traceback"):
                last = k
        rest = [l.strip() for l in lines[last + 1:]]
        if rest:
            msg = " | ".join(rest[:4])
            if not re.match(r"^\w+(Error|Exception)\b", msg):
                msg = "%s: %s" % (type(e).__name__, msg)
            return tidy(msg)
    return tidy(afworker.exception_message(e))


class TvmWorker(afworker.Worker):
    name = "tvm"
    memory_cap = False
    warm_up = ()

    @classmethod
    def options(cls, ap):
        ap.add_argument("--target", default=os.environ.get("AF_TVM_TARGET"),
                        help="TVM target (default: llvm -opt-level=0 for the interpreter, llvm compiled)")
        ap.add_argument("--opt-level", type=int, default=3, help="opt_level of the compiled executors")
        ap.add_argument("--executor", choices=EXECUTORS, default=os.environ.get("AF_TVM_EXECUTOR", "interp"),
                        help="interp: Relay's interpreter (default); compiled: relay.build + graph executor, the VM "
                             "for control flow; graph / vm: always that one")

    def requires(self):
        # first torch: on the 2.x stack the reason is the stack, not TVM
        why = torch_too_new(self.torch)
        if why is None and self.args.executor not in EXECUTORS:
            why = "AF_TVM_EXECUTOR=%s is none of %s" % (self.args.executor, ", ".join(EXECUTORS))
        if why is None:
            self.tvm, self.relay, kind, why = afrelay.import_tvm(ROOT)
        if why is not None:
            raise afworker.Unavailable(why)
        # (the interpreter still lowers each primitive function and builds it for the target: with
        # LLVM's own optimisation off, afrelay.relay_run, that costs 0.1 s a program instead of 0.25 s)
        self.opt_level, self.executor = self.args.opt_level, self.args.executor
        return {"tvm": getattr(self.tvm, "__version__", "?"), "tvm_from": kind}

    def settings(self):
        return {"executor": self.args.executor,
                "target": self.args.target or ("llvm -opt-level=0" if self.args.executor == "interp" else "llvm")}

    def from_pytorch(self, fn, req, log):
        shapes = [(n, (list(t.shape), str(t.dtype).replace("torch.", ""))) for n, t in zip(req.names, req.inputs)]
        root = logging.getLogger()
        root.addHandler(log)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                mod, params = self.relay.frontend.from_pytorch(fn, shapes)
            for w in caught:  # (not the libraries' DeprecationWarnings: distutils' Version, ...)
                if not issubclass(w.category, DeprecationWarning):
                    log.messages.append(afworker.clean(w.message))
        finally:
            root.removeHandler(log)
        return mod, params

    def executor_for(self, req):
        return afrelay.relay_executor(self.executor, req.torchscript)

    def convert(self, req, warns):
        """(Relay module, its bound weights, whether it returns the final input states)."""
        log = afworker.LogCapture(unique=True)  # the frontend's logged warnings
        log.messages = warns
        src, wname = afworker.wrapper_source(req)
        try:
            try:
                fn = getattr(afworker.script_unit(src), wname)
                return self.from_pytorch(fn, req, log) + (True,)
            except NotImplementedError:
                raise
            except Exception as e:
                warns.append("converting with the final inputs as extra outputs failed (%s); converting the "
                             "program alone, so final input states cannot be expressed" % tvm_message(e))
                fn = getattr(afworker.script_unit(req.torchscript), req.function)
                return self.from_pytorch(fn, req, log) + (False,)
        except NotImplementedError as e:
            raise afworker.Failure("unsupported", "from_pytorch: " + tvm_message(e))
        except Exception as e:
            raise afworker.Failure("error", "from_pytorch: " + tvm_message(e))

    def graph_text(self, converted):
        mod = converted[0]
        return mod.astext(show_meta_data=False) if hasattr(mod, "astext") else str(mod)

    def run(self, req, converted, warns):
        mod, params, with_inputs = converted
        how = self.executor_for(req)
        # the caller's tensors (laid out as the request says), each as an array of its own: Relay
        # takes arrays, so a write through one input never shows in another that shared its storage
        feeds = {n: t.contiguous().numpy() for n, t in zip(req.names, req.fresh()[0])}
        try:
            args = afrelay.relay_arguments(mod, params, feeds)
        except LookupError as e:
            raise afworker.Failure("error", str(e))
        try:
            vals = afrelay.relay_run(self.tvm, self.relay, mod, args, how, self.args.target, self.opt_level)
        except Exception as e:
            what = {"interp": "Relay interpreter", "graph": "graph executor", "vm": "vm"}[how]
            raise afworker.Failure("error", "run (%s): %s" % (what, tvm_message(e)))
        want = req.noutputs + (len(req.names) if with_inputs else 0)
        if len(vals) != want:
            raise afworker.Failure("error", "the Relay module returned %d values, %d expected" % (len(vals), want))
        return vals[:req.noutputs], list(vals[req.noutputs:]) if with_inputs else [None] * len(req.names), None

    def note(self, caught, warns):
        """(the frontend's warnings are taken while it converts: from_pytorch)"""

    def extra(self, req, converted):
        return {"residual": 0, "executor": self.executor_for(req)}  # Relay is functional


def torch_too_new(torch):
    """A reason when this torch is newer than any TVM Relay frontend was written for (2.0), else None."""
    try:
        major, minor = (int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
    except ValueError:
        return None
    if (major, minor) > (2, 0) and not os.environ.get("AF_TVM_ANY_TORCH"):
        return ("TVM Relay's PyTorch frontend (0.11-0.14) predates torch %s; the tvm worker runs on the PyTorch "
                "1.13 stack (cmake -DAF_TORCH=system; AF_TVM_ANY_TORCH=1 tries anyway)" % torch.__version__)
    return None


if __name__ == "__main__":
    afworker.main(TvmWorker)
