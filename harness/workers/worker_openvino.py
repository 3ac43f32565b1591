#!/usr/bin/env python3
"""worker_openvino.py - aliasfuzz worker `openvino`: OpenVINO's PyTorch frontend
(openvino.convert_model on the program's torch.export ExportedProgram), compiled for the CPU
device and run. Speaks aliasfuzz-worker/1 (PROTOCOL.md). PyTorch 2.x only.

With each program:
  1. the TorchScript source runs as Python: an nn.Module with its buffers registered
     (afworker.program_module with returns_state) whose forward returns the program's outputs
     followed by the final state of every input, buffers included (an OpenVINO model cannot
     mutate its caller's tensors or keep state between calls here);
  2. torch.export.export(module, args) on clones of the inputs, then openvino.convert_model(ep)
     (the ExportedProgram path of the frontend; handing convert_model the nn.Module itself would
     make OpenVINO trace it with torch.jit.trace, which hides in-place shape changes);
  3. openvino.compile_model(model, "CPU") with one inference thread and f32 precision (no bf16
     downcast on CPUs that have it), run on the non-buffer inputs in order.
A torch.export failure is "unsupported" with the reason (the frontend never saw the program); the
frontend's "not supported" conversion failures are "unsupported"; other failures are "error".
"""

import argparse
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import afworker  # noqa: E402


class OpenVinoWorker:
    def __init__(self, torch, ov):
        self.torch, self.ov = torch, ov
        self.core = ov.Core()
        self.config = {"INFERENCE_NUM_THREADS": 1, "INFERENCE_PRECISION_HINT": "f32"}

    def handle(self, req):
        torch, ov = self.torch, self.ov
        warns = []
        t0 = time.perf_counter()
        try:
            m, args = afworker.program_module(req, returns_state=True)
        except Exception as e:
            return afworker.fail("error", "the program as Python: " + afworker.exception_message(e))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                ep = torch.export.export(m, tuple(args))
            except Exception as e:
                return afworker.fail("unsupported", "torch.export.export (before the frontend): " +
                                     afworker.exception_message(e))
            try:
                model = ov.convert_model(ep)
            except Exception as e:
                msg = afworker.exception_message(e)
                unsupported = "not supported" in msg or "No conversion rule" in msg
                return afworker.fail("unsupported" if unsupported else "error", "openvino.convert_model: " + msg)
        afworker.add_warnings(caught, warns)
        t1 = time.perf_counter()
        try:
            graph = "\n".join("%s %s(%s)" % (op.get_friendly_name(), op.get_type_name(),
                                             ", ".join(str(i.get_source_output().get_node().get_friendly_name())
                                                       for i in op.inputs()))
                              for op in model.get_ordered_ops())
        except Exception as e:
            graph = "<cannot print the OpenVINO model: %s>" % afworker.exception_message(e)
        try:
            compiled = self.core.compile_model(model, "CPU", self.config)
            # the caller's tensors, each as an array of its own (a write through one cannot show in another)
            feeds = [t.contiguous().numpy() for t in afworker.feeds(req)]
            if len(compiled.inputs) != len(feeds):
                return afworker.fail("error", "the model has %d inputs for %d program inputs" %
                                     (len(compiled.inputs), len(feeds)), graph=graph, warnings=warns)
            res = compiled(feeds)
            outs, final = afworker.split_state(req, [res[o] for o in compiled.outputs])
        except Exception as e:
            return afworker.fail("error", "openvino compile/run: " + afworker.exception_message(e), graph=graph,
                                 warnings=warns)
        t2 = time.perf_counter()
        return afworker.ok([afworker.encode_tensor(t) for t in outs], [afworker.encode_tensor(t) for t in final],
                           graph=graph, warnings=warns, residual=0,
                           timing={"convert_s": round(t1 - t0, 4), "compile_run_s": round(t2 - t1, 4)},
                           **afworker.bases_field(req, afworker.write_back(req, final)))


def warm_up(worker):
    import torch
    req = afworker.Request({"id": 0, "program": {"inputs": [{"name": "x"}], "outputs": ["r"]},
                            "torchscript": "def program(x: Tensor) -> Tensor:\n    x.add_(1)\n    r = torch.mul(x, 2)\n    return r\n",
                            "inputs": [afworker.encode_tensor(torch.ones(2), "x")]})
    a = worker.handle(req)
    return None if a["status"] == "ok" else "warm-up program failed: %s" % a.get("message")


def main():
    ap = argparse.ArgumentParser(description="aliasfuzz openvino worker (speaks aliasfuzz-worker/1 on stdin/stdout)")
    ap.parse_args()
    afworker._protect_stdout()
    os.environ.setdefault("OPENVINO_TELEMETRY_ENABLE", "0")  # nothing may try the network
    versions = {}
    torch, why = afworker.find_torch()
    worker = None
    if torch is not None:
        versions["torch"] = torch.__version__
        why = afworker.torch2_reason(torch)
    if torch is not None and why is None:
        try:
            import openvino as ov
            versions["openvino"] = ov.get_version() if hasattr(ov, "get_version") else ov.__version__
            worker = OpenVinoWorker(torch, ov)
        except ImportError as e:
            why = "OpenVINO is not installed (pip install openvino): %s" % e
        except Exception as e:
            why = "OpenVINO does not import: %s: %s" % (type(e).__name__, e)
        if worker is not None:
            why = warm_up(worker)
            if why:
                worker = None
    versions["python"] = sys.version.split()[0]
    memory = afworker.limit_memory()
    if memory:
        versions["memory_mb"] = memory
    afworker.serve("openvino", versions, worker.handle if worker else None, available=worker is not None, reason=why,
                   module_state=True, layouts=True)


if __name__ == "__main__":
    main()
