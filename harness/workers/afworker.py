"""afworker - the Python side of the aliasfuzz worker protocol (PROTOCOL.md, "aliasfuzz-worker/1").

A worker is a subclass of afworker.Worker with the hooks requires() (import the converter's
packages, say their versions), convert(req) and run(req, converted), served by
afworker.main(Cls) (options, torch, warm-up, memory cap, hello, requests); see Worker. Under it,
serve() speaks the protocol for any handler:

    import afworker
    def handle(req):            # req: afworker.Request
        ...
        return afworker.ok(outputs=[...], inputs=[...], graph="...", warnings=[...])
    afworker.serve("name", versions={...}, handle=handle)

serve() keeps the protocol stream clean: it takes a private copy of file descriptor 1 for the
answers and points fd 1 (and sys.stdout) at stderr, so a stray print() or a C library writing to
stdout cannot corrupt the stream. An exception in the handler becomes an "error" answer; the
worker keeps running. End of input ends the worker. An ok answer whose outputs or final input
states are not one per program output / input becomes an "error" answer naming the counts (the
converted program lost or added one: the converter's fault, which the client would otherwise see
as a protocol error).

Importing afworker enables faulthandler: a worker killed by a signal (a segfault in a native
library) leaves its Python stack on stderr, whose innermost frames aliasfuzz puts in the crash's
message (conv_worker.h, conv_worker_crash_site).

Tensors travel as {"shape": [...], "dtype": "float32", "data": base64 little-endian}. Torch is
imported lazily, so a worker can say hello (available: false) without it.
"""

import base64
import contextlib
import faulthandler
import json
import logging
import os
import re
import sys
import time
import traceback
import warnings

import afconvert  # beside this file

faulthandler.enable()  # on fd 2, all threads: the crashing one is "Current thread"

PROTOCOL = "aliasfuzz-worker/1"

# dtype name -> (little-endian numpy dtype of its bytes, torch dtype attribute). numpy has no
# bfloat16: its bytes travel through an int16 view of the tensor.
DTYPES = {
    "float32": ("<f4", "float32"),
    "float64": ("<f8", "float64"),
    "int64": ("<i8", "int64"),
    "bool": ("|b1", "bool"),
    "int32": ("<i4", "int32"),
    "int8": ("|i1", "int8"),
    "uint8": ("|u1", "uint8"),
    "float16": ("<f2", "float16"),
    "bfloat16": ("<i2", "bfloat16"),
}

_out = None  # the protocol stream (private copy of fd 1)


def _protect_stdout():
    """Moves the protocol stream off fd 1; returns a text file for answers."""
    global _out
    if _out is None:
        fd = os.dup(1)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        _out = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
    return _out


def send(obj):
    """Writes one JSON object as one line on the protocol stream."""
    out = _protect_stdout()
    out.write(json.dumps(obj, separators=(",", ":"), allow_nan=False))
    out.write("\n")
    out.flush()


def find_torch():
    """Imports torch; returns (module, None) or (None, reason)."""
    try:
        import torch  # noqa: F401
        torch.set_num_threads(1)
        return torch, None
    except Exception as e:  # ImportError, or a broken install raising something else
        return None, "cannot import torch with %s: %s: %s" % (sys.executable, type(e).__name__, e)


def torch2_reason(torch):
    """None when torch has torch.export (PyTorch 2.x), else why a 2.x worker cannot serve."""
    if hasattr(torch, "export") and hasattr(torch.export, "export"):
        return None
    return "torch %s has no torch.export (PyTorch 2.x only)" % torch.__version__


def torch_dtype(name):
    import torch
    return getattr(torch, DTYPES[name][1])


def decode_tensor(obj, what="tensor"):
    """A protocol tensor as a new torch tensor (owning its memory)."""
    import torch
    dtype = obj.get("dtype")
    if dtype not in DTYPES:
        raise ValueError("%s: unknown dtype %r" % (what, dtype))
    shape = [int(s) for s in obj.get("shape", [])]
    raw = base64.b64decode(obj.get("data", ""), validate=True)
    numel = 1
    for s in shape:
        numel *= s
    size = torch.empty((), dtype=torch_dtype(dtype)).element_size()
    if len(raw) != numel * size:
        raise ValueError("%s: %d bytes of data for shape %s %s" % (what, len(raw), shape, dtype))
    if numel == 0:
        return torch.empty(shape, dtype=torch_dtype(dtype))
    t = torch.frombuffer(bytearray(raw), dtype=torch_dtype(dtype))
    return t.reshape(shape).clone()


def encode_tensor(t, name=None):
    """A torch tensor or numpy array as a protocol tensor. Raises ValueError for other dtypes."""
    import numpy as np
    dtype = None
    if hasattr(t, "detach"):  # torch
        t = t.detach().cpu().contiguous()
        dtype = str(t.dtype).replace("torch.", "")
        if dtype == "bfloat16":  # numpy has none: the same bytes as int16
            import torch
            t = t.view(torch.int16)
        t = t.numpy()
    a = np.array(t, order="C", copy=False)  # (ascontiguousarray would make a 0-d array 1-d)
    dtype = dtype or str(a.dtype)
    if dtype not in DTYPES:
        raise ValueError("dtype %s is not one aliasfuzz models (%s)" % (dtype, ", ".join(DTYPES)))
    a = a.astype(DTYPES[dtype][0], copy=False)
    obj = {"shape": [int(s) for s in a.shape], "dtype": dtype, "data": base64.b64encode(a.tobytes()).decode("ascii")}
    if name is not None:
        obj["name"] = name
    return obj


def layout_view(base, spec):
    """torch.as_strided(base, shape, strides, offset) of one input with a layout."""
    return base.as_strided([int(s) for s in spec["shape"]], [int(s) for s in spec["strides"]], int(spec.get("offset", 0)))


class Request:
    """One decoded request: id, program (the IR as a dict), torchscript, function, inputs."""

    def __init__(self, obj):
        self.id = obj["id"]
        self.program = obj["program"]
        self.torchscript = obj["torchscript"]
        self.function = obj.get("function", "program")
        self.input_specs = obj["inputs"]
        self.names = [i["name"] for i in self.input_specs]
        # input layouts (PROTOCOL.md "Input layouts"): flat storages, and inputs that view them
        self.base_specs = obj.get("bases", [])
        self.bases = [decode_tensor(b, "base %s" % b.get("name")) for b in self.base_specs]
        self.layouts = any("base" in t for t in self.input_specs)
        self.inputs = [self._view(t) if "base" in t else decode_tensor(t, "input %s" % t.get("name"))
                       for t in self.input_specs]
        self.noutputs = len(self.program.get("outputs", []))
        # a second call of the program converted for the previous request (PROTOCOL.md "Calling
        # again"): a worker whose hello says "caches" reuses what it compiled then
        self.again = bool(obj.get("again"))
        # module state: positions of the inputs that are buffers of an nn.Module (`self.NAME`);
        # the program is then that module's forward (PROTOCOL.md, "Module state")
        specs = self.program.get("inputs", [])
        spec_of = [spec if isinstance(spec, dict) else {} for spec in specs]
        self.buffers = [k for k, spec in enumerate(spec_of) if spec.get("buffer") or spec.get("param") or spec.get("attribute")]
        self.args = [k for k in range(len(self.names)) if k not in self.buffers]  # forward's parameters
        # the module state held in plain tensor attributes (`self.NAME = tensor`), not buffers
        self.attributes = [k for k, spec in enumerate(spec_of) if spec.get("attribute")]
        # training (PROTOCOL.md "Training"): the module's nn.Parameters (module state too), the
        # inputs that require grad (parameters included), the loss weights; req.grads is set by
        # train_backward after the call
        self.train = bool(self.program.get("train"))
        self.params = [k for k, spec in enumerate(spec_of) if spec.get("param")]
        self.grad_inputs = [k for k, spec in enumerate(spec_of) if spec.get("requires_grad") or spec.get("param")]
        self.loss = [float(w) for w in self.program.get("loss") or [1] * self.noutputs]
        self.grads = None
        self.grad_after = None  # the grad mode the call left (call_forward)
        # a storage that requires grad is the caller's leaf; the inputs view its clone (fresh())
        self.base_grad = [self.train and bool(b.get("requires_grad")) for b in self.base_specs]
        self.leaves = [None] * len(self.bases)
        self.base_grads = None


    def _view(self, spec):
        k = int(spec["base"])
        if not 0 <= k < len(self.bases):
            raise ValueError("input %s: base %d of %d" % (spec.get("name"), k, len(self.bases)))
        return layout_view(self.bases[k], spec)

    def fresh(self):
        """New copies of the inputs laid out as the request says (inputs that view one storage
        share a new copy of it) and the storages: (inputs, bases). Clone-per-input would break
        the aliasing a layout declares."""
        bases = [b.clone() for b in self.bases]
        # a storage that requires grad (PROTOCOL.md "Training"): the caller's leaf, the inputs views
        # of its clone (non-leaf views that the program may write in place)
        self.leaves = [b.requires_grad_(True) if g else None for b, g in zip(bases, self.base_grad)]
        bases = [l.clone() if l is not None else b for b, l in zip(bases, self.leaves)]
        inputs = [layout_view(bases[int(t["base"])], t) if "base" in t else x.clone()
                  for t, x in zip(self.input_specs, self.inputs)]
        return inputs, bases


def ok(outputs, inputs, graph=None, warnings=(), residual=None, **extra):
    a = {"status": "ok", "outputs": outputs, "inputs": inputs, "graph": graph, "warnings": list(warnings)}
    if residual is not None:
        a["residual"] = int(residual)
    a.update(extra)
    return a


def fail(status, message, graph=None, warnings=()):
    assert status in ("unsupported", "error", "crash")
    return {"status": status, "message": message, "graph": graph, "warnings": list(warnings)}


_ADDR = re.compile(r" at 0x[0-9a-fA-F]+")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def clean(msg, limit=2000):
    """A message without object addresses (they defeat deduplication) and terminal colours,
    bounded in length."""
    msg = _ADDR.sub("", _ANSI.sub("", str(msg))).strip()
    return msg if len(msg) <= limit else msg[:limit] + "..."


# Modules every conversion passes through (dispatch, wrappers): not where a converter went wrong.
_GENERIC_FRAMES = ("torch/_ops.py", "torch/utils/_", "torch/_tensor.py", "torch/overrides.py", "torch/_compile.py",
                   "torch/_dynamo/eval_frame.py", "torch/fx/graph_module.py", "torch/fx/interpreter.py",
                   "torch/nn/modules/module.py", "functools.py", "contextlib.py")


def error_site(e, n=2):
    """Where an exception was raised in the converter's own code: its innermost frames inside an
    installed package (site-packages or dist-packages), past the generic dispatch and wrapper
    modules, as ' (in pkg/path.py:function < pkg/path.py:function)' (no line numbers: they move
    between builds); '' when none. It keys converter errors by where they happen (fuzz/classes.h):
    one message raised from two places is two bugs."""
    frames = []
    for fr in reversed(traceback.extract_tb(e.__traceback__)):
        path = fr.filename.replace("\\", "/")
        for marker in ("/site-packages/", "/dist-packages/"):
            if marker in path:
                rel = path.split(marker, 1)[1]
                if not any(rel.startswith(g) or rel == g for g in _GENERIC_FRAMES):
                    frames.append("%s:%s" % (rel, fr.name))
                break
        if len(frames) >= n:
            break
    return " (in %s)" % " < ".join(frames) if frames else ""


def exception_message(e):
    """One line: 'Type: message' of an exception (_exception_text), then where it was raised
    (error_site), which a long message's cut never takes away."""
    site = error_site(e)
    return clean(_exception_text(e), limit=2000 - len(site)) + site


def _exception_text(e):
    """One line: 'Type: message' of an exception. A TorchScript interpreter traceback is cut down
    to the error it ends with plus the statement it points at."""
    text = str(e).strip()
    lines = [l.rstrip() for l in text.splitlines() if l.strip()]
    if "Traceback of TorchScript" in text and lines:
        last = lines[-1].strip()
        where = ""
        for k, l in enumerate(lines):
            if "<--- HERE" in l and k > 0:
                where = lines[k - 1].strip()
        msg = last if re.match(r"^\w+(Error|Exception)\b", last) else "%s: %s" % (type(e).__name__, last)
        if re.match(r"^\w+(Error|Exception):?$", msg):  # e.g. bool() of a traced value under make_fx
            msg = msg.rstrip(":") + ": (PyTorch gave no message)"
        return clean(msg + (" (at `%s`)" % where if where else ""))
    lines = [_ANSI.sub("", l) for l in lines]
    # torch.onnx's exporter errors: the step that failed, then its "## Exception summary"
    if "## Exception summary" in lines:
        k = lines.index("## Exception summary")
        step = re.sub(r"\. Next steps:.*$", "", lines[0].strip())
        rest = [l.strip() for l in lines[k + 1:] if not l.startswith("(Refer to the full stack trace")]
        return clean("%s: %s | %s" % (type(e).__name__, step, " | ".join(rest[:3])))
    # OpenVINO's frontend: "Summary:" and the ops it could not convert
    if "Summary:" in [l.strip() for l in lines]:
        k = [l.strip() for l in lines].index("Summary:")
        return clean("%s: %s | %s" % (type(e).__name__, lines[k - 1].strip(), " | ".join(l.strip() for l in lines[k + 1:k + 4])))
    # otherwise the head; TorchScript compile errors and C++ messages add long excerpts
    head = " | ".join(l.strip() for l in lines[:4])
    return clean("%s: %s" % (type(e).__name__, head))


as_list = afconvert.as_list  # a function's result as a list of tensors


def script_unit(src):
    """torch.jit.CompilationUnit of src. TorchScript resolves free names (torch, Tensor, ...) in
    the calling frame, so they are bound here rather than wherever the caller happens to be."""
    import torch
    from torch import Tensor  # noqa: F401
    from typing import List, Optional, Tuple  # noqa: F401
    return torch.jit.CompilationUnit(src)


def wrapper_source(req, name="af_returns_inputs"):
    """TorchScript source: the program plus a function `name` taking the same inputs that
    returns the program's outputs followed by every input after the call, as one flat tuple
    (afconvert.wrapper_source). Returns (source, name)."""
    return afconvert.wrapper_source(req.torchscript, req.names, req.noutputs, req.function, name), name


def python_namespace(src):
    """The TorchScript source executed as plain Python (afconvert.python_namespace: the ATen ops
    TorchScript has as Tensor methods added to torch.Tensor first, as repro.py does)."""
    return afconvert.python_namespace(src)


def program_module(req, returns_state=False):
    """The program as a torch.nn.Module and the arguments of its forward (afconvert.program_module:
    module state registered as buffers holding clones of the request's values; with returns_state
    forward returns the outputs then every input's final state). Returns (module, [arguments]),
    the arguments laid out as the request says: inputs that share a storage still do."""
    m = afconvert.program_module(python_namespace(req.torchscript), req.function, req.names, req.buffers,
                                 req.noutputs, req.inputs, returns_state, parameters=req.params,
                                 attributes=req.attributes)
    inputs, _ = req.fresh()
    return m, [inputs[k] for k in req.args]


def state_module(req):
    """program_module(req, returns_state=True) for a converter whose model returns the final
    states: (module, arguments); raises Failure ("error") when the program does not run as Python."""
    with step("the program as Python"):
        return program_module(req, returns_state=True)


def export_declines(torch):
    """Exception classes by which torch.export declines a program (it cannot express it: a graph
    break, torch._dynamo.exc.Unsupported or UserError; a data-dependent guard). Any other export
    failure is an error of the converter the user runs, not a refusal."""
    kinds = []
    exc = getattr(getattr(torch, "_dynamo", None), "exc", None)
    for n in ("Unsupported", "UserError"):
        if exc is not None and hasattr(exc, n):
            kinds.append(getattr(exc, n))
    try:
        from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode
        kinds.append(GuardOnDataDependentSymNode)
    except ImportError:
        pass
    return tuple(kinds)


def declined_by_export(e, torch):
    """Whether e, or an exception it was raised from (a converter that wraps torch.export's own:
    __cause__ / __context__), is torch.export declining the program (export_declines)."""
    kinds, seen = export_declines(torch), set()
    while e is not None and id(e) not in seen:
        if isinstance(e, kinds):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def export_state(req):
    """torch.export.export of state_module(req), for a frontend that takes an ExportedProgram;
    raises Failure: "unsupported" when torch.export declines the program (export_declines: the
    frontend never saw it), "error" when torch.export fails otherwise (a bug on the user's path)."""
    import torch
    m, args = state_module(req)
    try:
        return torch.export.export(m, tuple(args))
    except Exception as e:
        status = "unsupported" if declined_by_export(e, torch) else "error"
        raise Failure(status, "torch.export.export (before the frontend): %s" % exception_message(e))


def module_call(m, req, forward=None):
    """Runs forward (m's own by default) on fresh copies of the request's inputs laid out as the
    request says (req.fresh(): inputs that view one storage share a new copy of it), the buffers
    of m set to copies first. Returns (outputs as a list, final state of every input in program
    order, final state of every storage): a plain input's is its copy after the call (a converter
    that writes input mutations back into its caller's tensors), a buffer's is what m's attribute
    is bound to afterwards, a storage's is the copy the inputs viewed ([] without layouts)."""
    state, bases = req.fresh()
    state = train_leaves(req, state)
    for k in req.buffers:
        setattr(m, req.names[k], state[k])
    outs = call_forward(req, m if forward is None else forward, [state[k] for k in req.args])
    final = [getattr(m, req.names[k]) if k in req.buffers else state[k] for k in range(len(state))]
    train_backward(req, outs, state)
    return outs, final, bases


def run_differences(req, want, want_grads, got, got_grads):
    """What differs between two runs of one request (a variant worker's eager check: eager on
    TwoTensor inputs, eager under autocast, against eager as it is), within the oracle's
    tolerances: want and got are module_call's (outputs, final input states, storages), *_grads
    each run's req.grads + req.base_grads. A list of 'what: difference' lines, [] when they agree."""
    import afsubclass  # value_difference: the oracle's comparison, as repro.py's
    named = [("output %d" % k, w, g) for k, (w, g) in enumerate(zip(want[0], got[0]))]
    named += [("input %s after the call" % req.names[k], w, g) for k, (w, g) in enumerate(zip(want[1], got[1]))]
    named += [("storage %d" % k, w, g) for k, (w, g) in enumerate(zip(want[2], got[2]))]
    named += [("gradient %d" % k, w, g) for k, (w, g) in enumerate(zip(want_grads, got_grads))]
    diffs = ["%s: %s" % (what, d) for what, w, g in named for d in [afsubclass.value_difference(w, g)] if d]
    if len(want[0]) != len(got[0]):
        diffs.insert(0, "%d outputs, %d in the other run" % (len(got[0]), len(want[0])))
    return diffs


def call_forward(req, forward, args):
    """forward(*args) as a list; for a training request req.grad_after is the grad mode the call
    left (a program's torch.set_grad_enabled outlives it: PROTOCOL.md "Training"), and the mode
    before the call is put back for the backward."""
    import torch
    before = torch.is_grad_enabled()
    try:
        outs = as_list(forward(*args))
        if req.train:
            req.grad_after = torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(before)
    return outs


def train_leaves(req, state):
    """A training request's inputs (PROTOCOL.md "Training"): every input that requires grad a leaf
    that does, a parameter an nn.Parameter; the others as they are."""
    import torch
    if not req.train:
        return state
    return [torch.nn.Parameter(t) if k in req.params else t.requires_grad_(True) if k in req.grad_inputs else t
            for k, t in enumerate(state)]


def train_backward(req, outs, leaves):
    """A training request's backward (PROTOCOL.md "Training"): loss = sum of loss[k] *
    outs[k].sum() over the floating-point outputs that require grad (none: no backward), then
    loss.backward(); req.grads is then each input's .grad (None where it requires none or the
    backward never reached it). leaves: the tensors the call took, in program order."""
    import torch
    if not req.train:
        return
    loss = None
    for o, w in zip(outs, req.loss):
        if isinstance(o, torch.Tensor) and o.is_floating_point() and o.requires_grad:
            term = o.sum() * w
            loss = term if loss is None else loss + term
    if loss is not None:
        with step("loss.backward()"):  # the phase, in the message: autograd's refusals come from here or the forward
            loss.backward()
    req.grads = [leaves[k].grad if k in req.grad_inputs else None for k in range(len(leaves))]
    req.base_grads = [l.grad if l is not None else None for l in req.leaves]


def feeds(req):
    """The non-buffer inputs as the caller's tensors (req.fresh(): laid out as the request says),
    for a converted model that takes arrays: what a user who passes those tensors hands it (each
    becomes an array of its own, so a write through one never shows in another)."""
    inputs, _ = req.fresh()
    return [inputs[k] for k in req.args]


def write_back(req, final):
    """The storages' final states for a converter whose model returns each input's final state
    instead of writing it (ONNX, TVM, OpenVINO: afworker.program_module(returns_state=True) or
    wrapper_source): copies of the request's storages with every returned final state written
    into its input's view (afconvert.write_states, as repro.py does). [] without layouts."""
    if not req.bases:
        return []
    _, bases = req.fresh()
    views = [layout_view(bases[int(spec["base"])], spec) if "base" in spec else None for spec in req.input_specs]
    afconvert.write_states(views, final)
    return bases


def bases_field(req, bases):
    """The answer's "bases" (every storage's final state) as keyword arguments for ok(): none for
    a request without storages."""
    return {"bases": encode_all(bases)} if req.bases else {}


def encode_all(ts):
    """encode_tensor of each (None stays None)."""
    return [None if t is None else encode_tensor(t) for t in ts]


# library chatter that says nothing about the program (deprecations inside PyTorch itself)
WARNING_NOISE = ("`isinstance(treespec, LeafSpec)` is deprecated", "Exporting a model while it is in training mode",
                 "`torch._prims_common.check` is deprecated")


def add_warnings(caught, warns):
    """Appends the messages of warnings.catch_warnings(record=True)'s list to warns, one line
    each, without duplicates and WARNING_NOISE."""
    for w in caught:
        msg = clean(" | ".join(l.strip() for l in str(w.message).splitlines() if l.strip()), 500)
        if msg and not msg.startswith(WARNING_NOISE) and msg not in warns:
            warns.append(msg)
    return warns


def split_state(req, vals):
    """The values of a program_module(returns_state=True) export: (outputs, final input states),
    or raises ValueError when their number is not outputs + inputs."""
    n, ni = req.noutputs, len(req.names)
    if len(vals) != n + ni:
        raise ValueError("the converted model has %d outputs, %d expected (%d program outputs + %d final input "
                         "states)" % (len(vals), n + ni, n, ni))
    return list(vals[:n]), list(vals[n:])


def limit_memory(default_mb=None):
    """Caps the worker's address space (RLIMIT_AS) at AF_WORKER_MEMORY_MB megabytes (default_mb
    when unset; 0 or unset with no default: no cap), so a compile that blows up fails with a
    MemoryError or dies (a converter-crash finding) instead of taking the machine down. Returns
    the cap in MB, or None."""
    import resource
    mb = os.environ.get("AF_WORKER_MEMORY_MB")
    mb = int(mb) if mb and mb.isdigit() else default_mb
    if not mb:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = mb << 20
    if hard != resource.RLIM_INFINITY and want > hard:
        want = hard
    resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    return want >> 20


def check_counts(answer, obj):
    """answer, or an error answer when an ok one has not one output per program output and one
    final state per program input."""
    if answer.get("status") != "ok":
        return answer
    prog = obj.get("program") or {}
    for field, want in (("outputs", len(prog.get("outputs") or [])), ("inputs", len(prog.get("inputs") or []))):
        got = len(answer.get(field) or [])
        if got != want:
            return fail("error", "the converted program gave %d %s for the program's %d" % (
                got, "outputs" if field == "outputs" else "final input states", want),
                graph=answer.get("graph"), warnings=answer.get("warnings") or ())
    return answer


# The most statements (nested ones counted) a worker converts: torch.export took 37 s on 1000 and
# over 60 s (the deadline) on 10000 on a loaded machine; a bigger program is declined at once, naming
# the limit (issue 27). AF_WORKER_MAX_STMTS changes it.
MAX_STMTS = int(os.environ.get("AF_WORKER_MAX_STMTS") or 2000)


def count_stmts(body):
    """Statements of a program body (a JSON list), those inside if/for blocks included."""
    n = 0
    for st in body if isinstance(body, list) else ():
        n += 1
        if isinstance(st, dict):
            n += sum(count_stmts(st.get(k)) for k in ("then", "else", "body"))
    return n


def serve(name, versions, handle, available=True, reason=None, argv=None, module_state=False, layouts=False,
          caches=False, refuses=(), train=False):
    """Says hello, then answers requests until end of input. handle(Request) returns an answer
    dict (ok() / fail()); the id is added here. module_state: the handler converts programs with
    module buffers (the hello says so, PROTOCOL.md "Module state"); without it such a request is
    answered unsupported here. layouts: the handler builds inputs with layouts (req.fresh(), and
    the answer's "bases": PROTOCOL.md "Input layouts"); without it such a request is answered
    unsupported here. caches: the handler keeps what it converted for the last request and
    reuses it for a request with "again" (PROTOCOL.md "Calling again"); the hello says so. refuses:
    what the converter refuses by design, [{"name", "match", "knob", "certain"}] (PROTOCOL.md,
    the hello's "refuses"); the hello says it when there is one."""
    # train: the handler runs training programs (PROTOCOL.md "Training": the backward, and the
    # answer's "grads"); the hello says so; without it such a request is answered unsupported here
    _protect_stdout()
    send({"protocol": PROTOCOL, "name": name, "versions": versions, "available": bool(available),
          "reason": None if available else reason, "module_state": bool(module_state), "layouts": bool(layouts),
          "caches": bool(caches), "train": bool(train), **({"refuses": list(refuses)} if refuses else {})})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        rid = None
        try:
            obj = json.loads(line)
            rid = obj.get("id")
            if not available:
                answer = fail("error", "worker %s is not available: %s" % (name, reason))
            else:
                req = Request(obj)
                if req.buffers and not module_state:
                    answer = fail("unsupported", "worker %s does not convert programs with module state (buffers)" % name)
                elif req.train and not train:
                    answer = fail("unsupported", "worker %s does not run training programs" % name)
                elif req.layouts and not layouts:
                    answer = fail("unsupported", "worker %s does not build inputs with layouts" % name)
                elif count_stmts(req.program.get("body")) > MAX_STMTS:
                    answer = fail("unsupported", "worker %s: %d statements, over the workers' limit of %d (AF_WORKER_MAX_STMTS)" % (
                        name, count_stmts(req.program.get("body")), MAX_STMTS))
                else:
                    answer = check_counts(handle(req), obj)
        except Exception as e:  # a broken request or a bug in the handler: say so, keep serving
            traceback.print_exc(file=sys.stderr)
            answer = fail("error", "worker %s: %s" % (name, exception_message(e)))
        answer["id"] = rid
        try:
            send(answer)
        except ValueError as e:  # NaN in a number field, say
            send({"id": rid, "status": "error", "message": "worker %s: cannot encode answer: %s" % (name, e)})


# ---- afworker.Worker: one converter, and afworker.main(Cls) that serves it ----

WARM_UP_PROGRAMS = {
    # an input mutation
    "mutation": ({"inputs": [{"name": "x"}], "outputs": ["r"]},
                 "def program(x: Tensor) -> Tensor:\n    x.add_(1)\n    r = torch.mul(x, 2)\n    return r\n", "program", 1),
    # a module buffer written in place
    "buffer": ({"inputs": [{"name": "b", "buffer": True}, {"name": "x"}], "outputs": ["r"]},
               "def forward(self, x: Tensor) -> Tensor:\n    self.b.mul_(2)\n    r = torch.add(self.b, x)\n    return r\n",
               "forward", 2),
    # no mutation at all
    "plain": ({"inputs": [{"name": "x"}], "outputs": ["r"]},
              "def program(x: Tensor) -> Tensor:\n    r = torch.mul(x, 2)\n    return r\n", "program", 1),
}


class Unavailable(Exception):
    """Raised by Worker.requires(): the converter cannot work here; the message is the hello's reason."""


class Failure(Exception):
    """Raised by Worker.convert() or Worker.run() for an answer other than ok: status is
    "unsupported", "error" or "crash"; graph the converted graph's text when there is one."""

    def __init__(self, status, message, graph=None):
        super().__init__(message)
        assert status in ("unsupported", "error", "crash")
        self.status, self.message, self.graph = status, message, graph


class Worker:
    """One converter behind the protocol. A subclass names itself and fills the hooks; main(Cls)
    parses its options, checks torch, calls requires(), warms up, says hello and serves:

        class MyWorker(afworker.Worker):
            name = "my-converter"
            def requires(self):               # import the converter's packages: {name: version}
                import mypkg
                return {"mypkg": mypkg.__version__}
            def convert(self, req, warns):    # the converted program (anything run() takes)
                return mypkg.convert(afworker.program_module(req)[0])
            def run(self, req, converted, warns):
                return afworker.module_call(converted, req)   # (outputs, final input states, bases)
        if __name__ == "__main__":
            afworker.main(MyWorker)

    Class attributes say what the hello says (module_state, layouts, caches, refuses) and how it is served:
    torch2 (the converter needs PyTorch 2.x's torch.export: the hello says unavailable otherwise),
    memory_cap (AF_WORKER_MEMORY_MB applies after the warm-up, limit_memory), warm_up (names in
    WARM_UP_PROGRAMS run through handle() before the hello: a broken install shows up as
    unavailable, and the first program does not pay for lazy imports), timing (the answer's
    timing keys of convert() and run()).

    Python warnings raised in convert() and run() become answer warnings (add_warnings); a
    Failure becomes fail() with the graph text when convert() got that far."""

    name = None
    module_state = False
    layouts = True
    caches = False
    refuses = ()
    train = False  # the hello's "train": run() calls module_call (or train_leaves/train_backward)
    torch2 = False
    memory_cap = True
    warm_up = ("mutation",)
    timing = ("convert_s", "run_s")

    def __init__(self, args):
        self.args = args
        self.torch = None

    @classmethod
    def options(cls, ap):
        """Adds the worker's command-line options to the argparse parser ap."""

    def prepare(self):
        """Runs before torch is imported (environment variables a library reads at import)."""

    def requires(self):
        """Imports what the converter needs (self.torch is set); returns {name: version} for the
        hello. Raises Unavailable (or any exception) when it cannot work here."""
        return {}

    def settings(self):
        """{name: value} the hello's versions add whether or not the worker is available (its options)."""
        return {}

    def convert(self, req, warns):
        """Converts req's program; returns what run() takes. Raises Failure for an answer that is
        not ok. warns: a list of warning lines to append to."""
        raise NotImplementedError

    def run(self, req, converted, warns):
        """Runs converted on fresh inputs laid out as req says; returns (outputs, final input
        states, storages): lists of tensors or numpy arrays (a final state may be None: cannot be
        expressed). storages None: the final states written back into copies of the storages
        (write_back), as for a converter whose model returns them instead of writing them."""
        raise NotImplementedError

    def graph_text(self, converted):
        """The converted program as text for the answer's graph, or None."""
        return None

    def extra(self, req, converted):
        """More answer fields (residual, counters)."""
        return {"residual": 0}

    def note(self, caught, warns):
        """Python warnings caught during convert() and run() (warnings.catch_warnings(record=True))
        as warning lines."""
        add_warnings(caught, warns)

    def handle(self, req):
        """convert(), run(), and the answer: outputs, final input states, the storages' final
        states, graph, warnings, extra(), timing. The process's grad mode is put back after each
        request: a program's torch.set_grad_enabled ends with it (call_forward reports it)."""
        import torch
        grad_mode = torch.is_grad_enabled()
        try:
            return self.answer(req)
        finally:
            torch.set_grad_enabled(grad_mode)

    def answer(self, req):
        """handle()'s work."""
        warns = []
        converted = None
        t0 = time.perf_counter()
        t1 = t0
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                converted = self.convert(req, warns)
                t1 = time.perf_counter()
                outs, final, bases = self.run(req, converted, warns)
            except Failure as f:
                self.note(caught, warns)
                graph = f.graph if f.graph is not None or converted is None else self._graph(converted)
                return fail(f.status, f.message, graph=graph, warnings=warns)
        t2 = time.perf_counter()
        self.note(caught, warns)
        graph = self._graph(converted)
        if len(outs) != req.noutputs:
            warns.append("the converted program returned %d values for %d outputs" % (len(outs), req.noutputs))
        if bases is None and req.bases:
            bases = write_back(req, final) if all(t is not None for t in final) else [None] * len(req.bases)
        try:
            encoded = [encode_tensor(t) for t in outs], encode_all(final)
            extra = {"bases": encode_all(bases)} if req.bases else {}
        except Exception as e:
            return fail("error", "an output that is not a plain tensor: " + exception_message(e), graph=graph,
                        warnings=warns)
        if req.train:  # PROTOCOL.md "Training"
            if req.grads is None:
                return fail("error", "worker %s: a training program ran without its backward" % self.name, graph=graph, warnings=warns)
            extra["grads"] = encode_all(req.grads)
            if req.grad_after is not None:
                extra["grad_enabled_after"] = req.grad_after
            if any(req.base_grad):
                extra["base_grads"] = encode_all(req.base_grads)
        extra.update(self.extra(req, converted))
        spans = (t1 - t0, t2 - t1) if len(self.timing) == 2 else (t2 - t0,)
        extra["timing"] = {k: round(v, 4) for k, v in zip(self.timing, spans)}
        return ok(encoded[0], encoded[1], graph=graph, warnings=warns, **extra)

    def _graph(self, converted):
        try:
            return self.graph_text(converted)
        except Exception as e:
            return "<cannot print the converted program: %s>" % exception_message(e)

    def warm(self):
        """Runs the warm_up programs through handle(); None, or why the worker cannot serve."""
        import torch
        for key in self.warm_up:
            prog, src, fn, n = WARM_UP_PROGRAMS[key]
            names = [i["name"] for i in prog["inputs"]]
            req = Request({"id": 0, "program": prog, "torchscript": src, "function": fn,
                           "inputs": [encode_tensor(torch.ones(3), nm) for nm in names[:n]]})
            a = self.handle(req)
            if a["status"] != "ok":
                return "warm-up program failed: %s" % a.get("message")
        return None


class Torch2Worker(Worker):
    """A PyTorch 2.x worker (PROTOCOL.md "PyTorch 2.x workers"): torch.export / torch.compile
    take Python callables, so the program runs as Python (python_namespace, program_module), and
    module state is converted."""
    module_state = True
    torch2 = True


@contextlib.contextmanager
def step(what, status="error"):
    """Turns an exception raised inside the block (other than a Failure) into Failure(status,
    'what: Type: message (in site)')."""
    try:
        yield
    except Failure:
        raise
    except Exception as e:
        raise Failure(status, "%s: %s" % (what, exception_message(e)))


class LogCapture(logging.Handler):
    """Collects the messages of the loggers it is attached to, at level and above (clean()ed to
    limit characters; with unique, each once)."""

    def __init__(self, level=logging.WARNING, limit=2000, unique=False):
        super().__init__(level)
        self.limit, self.unique = limit, unique
        self.messages = []

    def emit(self, record):
        try:
            msg = clean(record.getMessage(), self.limit)
        except Exception:
            return
        if not (self.unique and msg in self.messages):
            self.messages.append(msg)


def main(cls, argv=None):
    """Serves the worker class cls: its options (cls.options), torch (find_torch; torch2_reason
    when cls.torch2), requires(), the warm-up, the memory cap, the hello, then requests until end
    of input."""
    import argparse
    ap = argparse.ArgumentParser(description="aliasfuzz %s worker (speaks %s on stdin/stdout)" % (cls.name, PROTOCOL))
    cls.options(ap)
    worker = cls(ap.parse_args(argv))
    _protect_stdout()
    worker.prepare()
    versions = {}
    torch, why = find_torch()
    if torch is not None:
        versions["torch"] = torch.__version__
        worker.torch = torch
        why = torch2_reason(torch) if cls.torch2 else None
        if why is None:
            try:
                versions.update(worker.requires())
            except Unavailable as e:
                why = str(e)
            except Exception as e:
                why = "cannot set up %s: %s" % (cls.name, exception_message(e))
        if why is None:
            why = worker.warm()
    versions.update(worker.settings())
    versions["python"] = sys.version.split()[0]
    if cls.memory_cap:
        memory = limit_memory()
        if memory:
            versions["memory_mb"] = memory
    serve(worker.name, versions, worker.handle if why is None else None, available=why is None, reason=why,
          module_state=worker.module_state, layouts=worker.layouts, caches=worker.caches, refuses=worker.refuses,
          train=worker.train)
