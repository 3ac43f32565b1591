"""afworker - the Python side of the aliasfuzz worker protocol (PROTOCOL.md, "aliasfuzz-worker/1").

A worker module builds its hello and a handler, then calls serve():

    import afworker
    def handle(req):            # req: afworker.Request
        ...
        return afworker.ok(outputs=[...], inputs=[...], graph="...", warnings=[...])
    afworker.serve("name", versions={...}, handle=handle)

serve() keeps the protocol stream clean: it takes a private copy of file descriptor 1 for the
answers and points fd 1 (and sys.stdout) at stderr, so a stray print() or a C library writing to
stdout cannot corrupt the stream. An exception in the handler becomes an "error" answer; the
worker keeps running. End of input ends the worker.

Tensors travel as {"shape": [...], "dtype": "float32", "data": base64 little-endian}. Torch is
imported lazily, so a worker can say hello (available: false) without it.
"""

import base64
import json
import os
import re
import sys
import traceback

PROTOCOL = "aliasfuzz-worker/1"

# dtype name -> (struct code width, numpy dtype string, torch dtype attribute)
DTYPES = {
    "float32": ("<f4", "float32"),
    "float64": ("<f8", "float64"),
    "int64": ("<i8", "int64"),
    "bool": ("|b1", "bool"),
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


def torch_dtype(name):
    import torch
    return {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64, "bool": torch.bool}[name]


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
    if hasattr(t, "detach"):  # torch
        t = t.detach().cpu().contiguous().numpy()
    a = np.array(t, order="C", copy=False)  # (ascontiguousarray would make a 0-d array 1-d)
    dtype = str(a.dtype)
    if dtype not in DTYPES:
        raise ValueError("dtype %s is not one aliasfuzz models (float32, float64, int64, bool)" % dtype)
    a = a.astype(DTYPES[dtype][0], copy=False)
    obj = {"shape": [int(s) for s in a.shape], "dtype": dtype, "data": base64.b64encode(a.tobytes()).decode("ascii")}
    if name is not None:
        obj["name"] = name
    return obj


class Request:
    """One decoded request: id, program (the IR as a dict), torchscript, function, inputs."""

    def __init__(self, obj):
        self.id = obj["id"]
        self.program = obj["program"]
        self.torchscript = obj["torchscript"]
        self.function = obj.get("function", "program")
        self.input_specs = obj["inputs"]
        self.names = [i["name"] for i in self.input_specs]
        self.inputs = [decode_tensor(t, "input %s" % t.get("name")) for t in self.input_specs]
        self.noutputs = len(self.program.get("outputs", []))


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


def clean(msg, limit=2000):
    """A message without object addresses (they defeat deduplication), bounded in length."""
    msg = _ADDR.sub("", str(msg)).strip()
    return msg if len(msg) <= limit else msg[:limit] + "..."


def exception_message(e):
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
    # otherwise the head; TorchScript compile errors and C++ messages add long excerpts
    head = " | ".join(l.strip() for l in lines[:4])
    return clean("%s: %s" % (type(e).__name__, head))


def as_list(result):
    """A function's result as a list of tensors: a tuple or list spread, None empty."""
    if result is None:
        return []
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


def script_unit(src):
    """torch.jit.CompilationUnit of src. TorchScript resolves free names (torch, Tensor, ...) in
    the calling frame, so they are bound here rather than wherever the caller happens to be."""
    import torch
    from torch import Tensor  # noqa: F401
    from typing import List, Optional, Tuple  # noqa: F401
    return torch.jit.CompilationUnit(src)


def wrapper_source(req, name="af_returns_inputs"):
    """TorchScript source: the program plus a function `name` taking the same inputs that
    returns the program's outputs followed by every input after the call, as one flat tuple, so
    a functional export expresses the final state of each input. Returns (source, name)."""
    params = ", ".join("%s: Tensor" % n for n in req.names)
    args = ", ".join(req.names)
    res = "af_result"
    while res in req.names:
        res += "_"
    body = []
    n = req.noutputs
    if n == 0:
        body.append("    %s(%s)" % (req.function, args))
        items = []
    elif n == 1:
        body.append("    %s = %s(%s)" % (res, req.function, args))
        items = [res]
    else:
        body.append("    %s = %s(%s)" % (res, req.function, args))
        items = ["%s[%d]" % (res, k) for k in range(n)]
    items += list(req.names)
    if len(items) == 1:
        ret = "(%s,)" % items[0]
    else:
        ret = "(%s)" % ", ".join(items)
    body.append("    return %s" % ret)
    src = req.torchscript.rstrip("\n") + "\n\n\ndef %s(%s):\n%s\n" % (name, params, "\n".join(body))
    return src, name


def serve(name, versions, handle, available=True, reason=None, argv=None):
    """Says hello, then answers requests until end of input. handle(Request) returns an answer
    dict (ok() / fail()); the id is added here."""
    _protect_stdout()
    send({"protocol": PROTOCOL, "name": name, "versions": versions, "available": bool(available),
          "reason": None if available else reason})
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
                answer = handle(Request(obj))
        except Exception as e:  # a broken request or a bug in the handler: say so, keep serving
            traceback.print_exc(file=sys.stderr)
            answer = fail("error", "worker %s: %s" % (name, exception_message(e)))
        answer["id"] = rid
        try:
            send(answer)
        except ValueError as e:  # NaN in a number field, say
            send({"id": rid, "status": "error", "message": "worker %s: cannot encode answer: %s" % (name, e)})
