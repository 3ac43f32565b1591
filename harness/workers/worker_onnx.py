#!/usr/bin/env python3
"""worker_onnx.py - aliasfuzz worker `onnx`: torch.onnx.export of the scripted program, run in
ONNX Runtime. Speaks aliasfuzz-worker/1 (PROTOCOL.md).

What it does with each program:
  1. compiles the TorchScript source with torch.jit.CompilationUnit, plus a wrapper function that
     calls the program and returns its outputs followed by every input after the call (a
     functional graph can only show an input's final state as an output);
  2. exports the wrapper with torch.onnx.export (opset --opset, default 16). When that export
     fails but the program alone exports, the program's model is used and every input's final
     state comes back null ("cannot express"), with a warning saying why;
  3. runs the model in ONNX Runtime: the Python `onnxruntime` module where it imports, otherwise
     the persistent Node helper ort_helper.js (npm onnxruntime-node, installed by
     scripts/setup.sh).
Exporter warnings (e.g. "Removing mutation ... This changes graph semantics") are returned in
"warnings". An exporter UnsupportedOperatorError is "unsupported"; any other export or runtime
failure is "error"; a dead runtime helper is "crash".

Options: --opset N (env AF_ONNX_OPSET), --runtime auto|python|node (env AF_ONNX_RUNTIME),
--node PATH (env AF_NODE), --no-return-inputs (export the program alone: inputs always null).
"""

import base64
import io
import json
import os
import re
import shutil
import subprocess
import sys
import warnings

import afworker  # run as a script: its folder is first on sys.path

HERE = os.path.dirname(os.path.abspath(__file__))

NOISE = ("no signature found for",)  # ScriptFunctions have no Python signature: harmless


class RuntimeCrash(Exception):
    """The runtime process died: reported as status "crash"."""


class NodeRuntime:
    """ONNX Runtime through the persistent Node helper."""

    def __init__(self, node):
        self.node = node
        self.proc = None
        self.version = None
        self.next_id = 0

    def start(self):
        helper = os.path.join(HERE, "ort_helper.js")
        if not os.path.isdir(os.path.join(HERE, "node_modules", "onnxruntime-node")):
            raise RuntimeError("onnxruntime-node is not installed in %s (run scripts/setup.sh, or: cd harness/workers "
                               "&& ONNXRUNTIME_NODE_INSTALL=skip npm install)" % HERE)
        node = shutil.which(self.node) or self.node
        self.proc = subprocess.Popen([node, helper], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=HERE,
                                     text=True, bufsize=1)
        hello = self.proc.stdout.readline()
        try:
            h = json.loads(hello)
        except ValueError:
            self.stop()
            raise RuntimeError("ort_helper.js did not say hello (got %r)" % hello[:200])
        if "error" in h:
            self.stop()
            raise RuntimeError(h["error"])
        self.version = h.get("onnxruntime")
        self.node_version = h.get("node")

    def stop(self):
        if self.proc:
            try:
                self.proc.kill()
                self.proc.wait()
            except OSError:
                pass
        self.proc = None

    def run(self, model, feeds):
        """model: bytes; feeds: protocol tensors with names. Returns {name: protocol tensor}."""
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        self.next_id += 1
        req = {"id": self.next_id, "model": base64.b64encode(model).decode("ascii"), "inputs": feeds}
        try:
            self.proc.stdin.write(json.dumps(req, separators=(",", ":")) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            code = self.proc.wait()
            self.proc = None
            how = "killed by signal %d" % -code if code < 0 else "exited with status %d" % code
            raise RuntimeCrash("onnxruntime (node helper) %s while running the model" % how)
        a = json.loads(line)
        if a.get("status") != "ok":
            raise RuntimeError(a.get("message", "unknown error"))
        return {t["name"]: t for t in a["outputs"]}, [t["name"] for t in a["outputs"]]


class PythonRuntime:
    """ONNX Runtime through its Python module, where installed."""

    def __init__(self, ort):
        self.ort = ort
        self.version = ort.__version__

    def start(self):
        pass

    def run(self, model, feeds):
        opts = self.ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        s = self.ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
        wanted = {i.name for i in s.get_inputs()}
        args = {f["name"]: afworker.decode_tensor(f).numpy() for f in feeds if f["name"] in wanted}
        names = [o.name for o in s.get_outputs()]
        vals = s.run(names, args)
        return {n: afworker.encode_tensor(v, n) for n, v in zip(names, vals)}, names


def make_runtime(kind, node):
    """(runtime, None) or (None, reason)."""
    reasons = []
    if kind in ("auto", "python"):
        try:
            import onnxruntime
            return PythonRuntime(onnxruntime), None
        except Exception as e:
            reasons.append("Python onnxruntime: %s" % e)
            if kind == "python":
                return None, "; ".join(reasons)
    rt = NodeRuntime(node)
    try:
        rt.start()
        return rt, None
    except Exception as e:
        reasons.append("Node onnxruntime-node: %s" % e)
        return None, "no ONNX Runtime: " + "; ".join(reasons)


def is_unsupported(torch, e):
    cls = getattr(getattr(torch.onnx, "errors", None), "UnsupportedOperatorError", None)
    if cls is not None and isinstance(e, cls):
        return True
    return bool(re.search(r"Exporting the operator .* to ONNX opset version \d+ is not supported", str(e)))


class OnnxWorker(afworker.Worker):
    name = "onnx"
    memory_cap = False
    warm_up = ("plain",)
    timing = ("export_s", "run_s")

    @classmethod
    def options(cls, ap):
        ap.add_argument("--opset", type=int, default=int(os.environ.get("AF_ONNX_OPSET", "16")))
        ap.add_argument("--runtime", choices=("auto", "python", "node"), default=os.environ.get("AF_ONNX_RUNTIME", "auto"))
        ap.add_argument("--node", default=os.environ.get("AF_NODE", "node"))
        ap.add_argument("--no-return-inputs", action="store_true")

    def requires(self):
        try:
            import onnx
        except Exception as e:
            raise afworker.Unavailable("cannot import onnx: %s (install python3-onnx)" % e)
        self.onnx = onnx
        rt, why = make_runtime(self.args.runtime, self.args.node)
        if rt is None:
            raise afworker.Unavailable(why)
        self.rt = rt
        # PyTorch 2.x exports through torch.export by default (dynamo=True, the onnx-dynamo
        # worker); this worker is the TorchScript-based exporter on both stacks.
        import inspect
        self.torchscript_kw = {"dynamo": False} if "dynamo" in inspect.signature(self.torch.onnx.export).parameters else {}
        if isinstance(rt, NodeRuntime):
            return {"onnx": onnx.__version__, "onnxruntime": "%s (node %s)" % (rt.version, rt.node_version)}
        return {"onnx": onnx.__version__, "onnxruntime": "%s (python)" % rt.version}

    def settings(self):
        return {"opset": self.args.opset}

    def export(self, fn, args, input_names, output_names, warns):
        buf = io.BytesIO()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.torch.onnx.export(fn, args, buf, opset_version=self.args.opset, input_names=input_names,
                                   output_names=output_names, do_constant_folding=True, **self.torchscript_kw)
        for w in caught:
            msg = afworker.clean(w.message)
            if not msg.startswith(NOISE) and msg not in warns:
                warns.append(msg)
        return buf.getvalue()

    def convert(self, req, warns):
        """(ONNX model bytes, whether it returns the final input states)."""
        out_names = ["output_%d" % k for k in range(req.noutputs)]
        caller, _ = req.fresh()  # the caller's tensors, laid out as the request says
        try:
            if not self.args.no_return_inputs:
                src, wname = afworker.wrapper_source(req)
                fn = getattr(afworker.script_unit(src), wname)
                try:
                    return self.export(fn, tuple(caller), req.names, out_names + final_names(req), warns), True
                except Exception as e:
                    first = afworker.exception_message(e)
                    if is_unsupported(self.torch, e):
                        raise afworker.Failure("unsupported", "torch.onnx.export: " + first)
                    warns.append("exporting with the final inputs as extra outputs failed (%s); exporting the "
                                 "program alone, so final input states cannot be expressed" % first)
            fn = getattr(afworker.script_unit(req.torchscript), req.function)
            return self.export(fn, tuple(req.fresh()[0]), req.names, out_names, warns), False
        except afworker.Failure:
            raise
        except Exception as e:
            status = "unsupported" if is_unsupported(self.torch, e) else "error"
            raise afworker.Failure(status, "torch.onnx.export: " + afworker.exception_message(e))

    def graph_text(self, converted):
        return self.onnx.helper.printable_graph(self.onnx.load_from_string(converted[0]).graph)

    def run(self, req, converted, warns):
        model, with_inputs = converted
        # each input as an array of its own (what ONNX Runtime takes): a write through one can never
        # show in another, whatever storage the caller's tensors shared
        feeds = [afworker.encode_tensor(t, n) for t, n in zip(req.fresh()[0], req.names)]
        try:
            results, order = self.rt.run(model, feeds)
        except RuntimeCrash as e:
            raise afworker.Failure("crash", str(e))
        except Exception as e:
            raise afworker.Failure("error", "onnxruntime: " + afworker.clean(e))
        # By name; an exporter that renamed outputs is read by position instead.
        want = ["output_%d" % k for k in range(req.noutputs)] + (final_names(req) if with_inputs else [])
        if all(n in results for n in want):
            vals = [results[n] for n in want]
        elif len(order) == len(want):
            vals = [results[n] for n in order]
            warns.append("model outputs are named %s, not %s: read by position" % (order, want))
        else:
            raise afworker.Failure("error", "the model has %d outputs (%s), %d expected" % (
                len(order), ", ".join(order), len(want)))
        vals = [afworker.decode_tensor(v) for v in vals]
        return vals[:req.noutputs], vals[req.noutputs:] if with_inputs else [None] * len(req.names), None


def final_names(req):
    return ["final_%s" % n for n in req.names]


if __name__ == "__main__":
    afworker.main(OnnxWorker)
