#!/usr/bin/env python3
"""worker_onnx_dynamo.py - aliasfuzz worker `onnx-dynamo`: torch.onnx.export(..., dynamo=True) (the
torch.export-based ONNX exporter of PyTorch 2.x), run in ONNX Runtime from Python. Speaks
aliasfuzz-worker/1 (PROTOCOL.md). The TorchScript-based exporter is the `onnx` worker.

With each program:
  1. the TorchScript source runs as Python: an nn.Module (afworker.program_module with
     returns_state) whose forward returns the program's outputs followed by the final state of
     every input, buffers included (an ONNX graph cannot mutate its caller's tensors, so a final
     state must be an output, computed by the exporter);
  2. torch.onnx.export(module, args, dynamo=True, opset_version=--opset) on clones of the inputs;
     the module's buffers become the model's initializers (their values at export time, which are
     the request's);
  3. ONNX Runtime (CPUExecutionProvider, one thread) runs the model on the non-buffer inputs
     (by name; inputs the model dropped are not fed).
A torch.export failure under the exporter (it declines the program) and the exporter's own
"unsupported" errors are "unsupported"; other failures are "error".

Options: --opset N (env AF_ONNX_OPSET; default: the exporter's own).
"""

import argparse
import io
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import afworker  # noqa: E402

class OnnxDynamoWorker:
    def __init__(self, torch, onnx, ort, opset):
        self.torch, self.onnx, self.ort, self.opset = torch, onnx, ort, opset

    def export(self, m, args, warns):
        kw = {"dynamo": True, "verbose": False}
        if self.opset:
            kw["opset_version"] = self.opset
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            prog = self.torch.onnx.export(m, tuple(args), **kw)
        afworker.add_warnings(caught, warns)
        return prog.model_proto.SerializeToString()

    def handle(self, req):
        torch = self.torch
        warns = []
        t0 = time.perf_counter()
        try:
            m, args = afworker.program_module(req, returns_state=True)
        except Exception as e:
            return afworker.fail("error", "the program as Python: " + afworker.exception_message(e))
        try:
            model = self.export(m, args, warns)
        except Exception as e:
            msg = afworker.exception_message(e)
            unsupported = "UnsupportedOperatorError" in msg or "Failed to export the model with torch.export" in msg
            return afworker.fail("unsupported" if unsupported else "error", "torch.onnx.export(dynamo=True): " + msg,
                                 warnings=warns)
        t1 = time.perf_counter()
        try:
            graph = self.onnx.printer.to_text(self.onnx.load_from_string(model).graph)
        except Exception as e:
            graph = "<cannot print the ONNX graph: %s>" % afworker.exception_message(e)
        try:
            opts = self.ort.SessionOptions()
            opts.intra_op_num_threads = 1
            opts.inter_op_num_threads = 1
            s = self.ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
            # the caller's tensors, each as an array of its own (a write through one cannot show in another)
            caller = [t.contiguous().numpy() for t in afworker.feeds(req)]
            by_name = {req.names[k]: a for k, a in zip(req.args, caller)}
            declared = [i.name for i in s.get_inputs()]
            if all(n in by_name for n in declared):
                feeds = {n: by_name[n] for n in declared}
            elif len(declared) == len(req.args):
                feeds = {n: a for n, a in zip(declared, caller)}
                warns.append("model inputs are named %s, not %s: fed by position" % (declared, list(by_name)))
            else:
                return afworker.fail("error", "the model has inputs %s for program inputs %s" % (declared, list(by_name)),
                                     graph=graph, warnings=warns)
            vals = s.run(None, feeds)
            outs, final = afworker.split_state(req, vals)
        except Exception as e:
            return afworker.fail("error", "onnxruntime: " + afworker.exception_message(e), graph=graph, warnings=warns)
        t2 = time.perf_counter()
        return afworker.ok([afworker.encode_tensor(t) for t in outs], [afworker.encode_tensor(t) for t in final],
                           graph=graph, warnings=warns, residual=0,  # ONNX has no in-place ops
                           timing={"export_s": round(t1 - t0, 4), "run_s": round(t2 - t1, 4)},
                           **afworker.bases_field(req, afworker.write_back(req, final)))


def main():
    ap = argparse.ArgumentParser(description="aliasfuzz onnx-dynamo worker (speaks aliasfuzz-worker/1 on stdin/stdout)")
    ap.add_argument("--opset", type=int, default=int(os.environ.get("AF_ONNX_DYNAMO_OPSET", "0")) or None)
    args = ap.parse_args()
    afworker._protect_stdout()
    versions = {}
    torch, why = afworker.find_torch()
    worker = None
    if torch is not None:
        versions["torch"] = torch.__version__
        why = afworker.torch2_reason(torch)
    if torch is not None and why is None:
        try:
            import onnx
            import onnxruntime
            import onnxscript
            versions["onnx"] = onnx.__version__
            versions["onnxscript"] = onnxscript.__version__
            versions["onnxruntime"] = onnxruntime.__version__
            worker = OnnxDynamoWorker(torch, onnx, onnxruntime, args.opset)
        except Exception as e:
            why = "the dynamo ONNX exporter needs onnx, onnxscript and onnxruntime: %s: %s" % (type(e).__name__, e)
    if worker is not None:
        why = warm_up(worker)
        if why:
            worker = None
    if args.opset:
        versions["opset"] = args.opset
    versions["python"] = sys.version.split()[0]
    memory = afworker.limit_memory()
    if memory:
        versions["memory_mb"] = memory
    afworker.serve("onnx-dynamo", versions, worker.handle if worker else None, available=worker is not None,
                   reason=why, module_state=True, layouts=True)


def warm_up(worker):
    import torch
    req = afworker.Request({"id": 0, "program": {"inputs": [{"name": "x"}], "outputs": ["r"]},
                            "torchscript": "def program(x: Tensor) -> Tensor:\n    x.add_(1)\n    r = torch.mul(x, 2)\n    return r\n",
                            "inputs": [afworker.encode_tensor(torch.ones(2), "x")]})
    a = worker.handle(req)
    return None if a["status"] == "ok" else "warm-up program failed: %s" % a.get("message")


if __name__ == "__main__":
    main()
