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
A torch.export refusal (afworker.export_declines) is "unsupported" with the reason, another torch.export failure "error"; the
frontend's "not supported" conversion failures are "unsupported"; other failures are "error".
"""


import afworker  # run as a script: its folder is first on sys.path


class OpenVinoWorker(afworker.Torch2Worker):
    name = "openvino"
    timing = ("convert_s", "compile_run_s")

    def requires(self):
        try:
            import openvino as ov
        except ImportError as e:
            raise afworker.Unavailable("OpenVINO is not installed (pip install openvino): %s" % e)
        except Exception as e:
            raise afworker.Unavailable("OpenVINO does not import: %s: %s" % (type(e).__name__, e))
        try:  # OpenVINO's telemetry: openvino_telemetry reads no switch of the environment, and each event is a thread
            # that forks a process to reach the network (openvino_telemetry's TelemetrySender). Nothing may try
            # the network, and a fork beside a conversion that crashes left the worker waiting on it (no answer
            # within the request's deadline where the crash was the verdict): its sender sends nothing.
            from openvino_telemetry.utils.sender import TelemetrySender

            TelemetrySender.send = lambda self, backend, message: None
        except Exception:
            pass
        self.ov = ov
        self.core = ov.Core()
        self.config = {"INFERENCE_NUM_THREADS": 1, "INFERENCE_PRECISION_HINT": "f32"}
        return {"openvino": ov.get_version() if hasattr(ov, "get_version") else ov.__version__}

    def convert(self, req, warns):
        ep = afworker.export_state(req)
        try:
            return self.ov.convert_model(ep)
        except Exception as e:
            msg = afworker.exception_message(e)
            unsupported = "not supported" in msg or "No conversion rule" in msg
            raise afworker.Failure("unsupported" if unsupported else "error", "openvino.convert_model: " + msg)

    def graph_text(self, model):
        return "\n".join("%s %s(%s)" % (op.get_friendly_name(), op.get_type_name(),
                                         ", ".join(str(i.get_source_output().get_node().get_friendly_name())
                                                   for i in op.inputs()))
                          for op in model.get_ordered_ops())

    def run(self, req, model, warns):
        with afworker.step("openvino compile/run"):
            compiled = self.core.compile_model(model, "CPU", self.config)
            # the caller's tensors, each as an array of its own (a write through one cannot show in another)
            feeds = [t.contiguous().numpy() for t in afworker.feeds(req)]
            if len(compiled.inputs) != len(feeds):
                raise afworker.Failure("error", "the model has %d inputs for %d program inputs" % (
                    len(compiled.inputs), len(feeds)))
            res = compiled(feeds)
            outs, final = afworker.split_state(req, [res[o] for o in compiled.outputs])
        return outs, final, None


if __name__ == "__main__":
    afworker.main(OpenVinoWorker)
