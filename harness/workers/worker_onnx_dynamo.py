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
torch.export declining the program under the exporter (afworker.declined_by_export) and the
exporter's own "unsupported" errors are "unsupported"; other failures, another torch.export
failure among them, are "error".

Options: --opset N (env AF_ONNX_OPSET; default: the exporter's own).
"""

import os

import afworker  # run as a script: its folder is first on sys.path


class OnnxDynamoWorker(afworker.Torch2Worker):
    name = "onnx-dynamo"
    timing = ("export_s", "run_s")

    @classmethod
    def options(cls, ap):
        ap.add_argument("--opset", type=int, default=int(os.environ.get("AF_ONNX_DYNAMO_OPSET", "0")) or None)

    def requires(self):
        try:
            import onnx
            import onnxruntime
            import onnxscript
        except Exception as e:
            raise afworker.Unavailable("the dynamo ONNX exporter needs onnx, onnxscript and onnxruntime: %s: %s" % (
                type(e).__name__, e))
        self.onnx, self.ort = onnx, onnxruntime
        return {"onnx": onnx.__version__, "onnxscript": onnxscript.__version__, "onnxruntime": onnxruntime.__version__}

    def settings(self):
        return {"opset": self.args.opset} if self.args.opset else {}

    def convert(self, req, warns):
        m, args = afworker.state_module(req)
        kw = {"dynamo": True, "verbose": False}
        if self.args.opset:
            kw["opset_version"] = self.args.opset
        try:
            return self.torch.onnx.export(m, tuple(args), **kw).model_proto.SerializeToString()
        except Exception as e:
            msg = afworker.exception_message(e)
            unsupported = "UnsupportedOperatorError" in msg or afworker.declined_by_export(e, self.torch)
            raise afworker.Failure("unsupported" if unsupported else "error", "torch.onnx.export(dynamo=True): " + msg)

    def graph_text(self, model):
        return self.onnx.printer.to_text(self.onnx.load_from_string(model).graph)

    def run(self, req, model, warns):
        with afworker.step("onnxruntime"):
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
                raise afworker.Failure("error", "the model has inputs %s for program inputs %s" % (declared, list(by_name)))
            outs, final = afworker.split_state(req, s.run(None, feeds))
        return outs, final, None


if __name__ == "__main__":
    afworker.main(OnnxDynamoWorker)
