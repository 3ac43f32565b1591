#!/usr/bin/env python3
"""worker_executorch.py - aliasfuzz worker `executorch`: ExecuTorch's ahead-of-time flow
(torch.export.export -> executorch.exir.to_edge -> to_executorch), the .pte program run by the
portable runtime from Python (executorch.runtime). Speaks aliasfuzz-worker/1 (PROTOCOL.md).
PyTorch 2.x only; package executorch (scripts/requirements-nodeps.txt).

With each program, as ExecuTorch's users convert a module with state:
  1. the TorchScript source runs as Python (afworker.program_module): an nn.Module whose forward
     is the program, its buffers registered with register_buffer (module state, as a KV cache is);
  2. torch.export.export(module, args) on the caller's tensors, to_edge(ep), then
     to_executorch(ExecutorchBackendConfig(emit_mutable_buffer_names=True)) with
     InitializedMutableBufferPass on every buffer: without it ExecuTorch serializes a mutated
     buffer's shape and dtype only ("meaningless initial state", its emitter warns), and its
     users who need the initial value (a cache position) run that pass;
  3. Runtime.get().load_program(pte).load_method("forward").execute(the caller's tensors).
     The portable runtime keeps a mutated buffer in the method's memory across calls (read back
     with the method's get_attribute(name), which emit_mutable_buffer_names enables) and returns
     a mutated input as an extra output before the program's outputs (the program's graph
     signature: USER_INPUT_MUTATION outputs; it does not write into the caller's tensor). So an
     input's final state is that output, a buffer's is get_attribute (a buffer the program does not
     mutate keeps its serialized value), and every storage's ("bases") the final states written
     back into copies of the caller's storages.
The graph text is the ExecuTorch program's graph signature and graph.

torch.export's refusals (as the export worker's) and to_edge's (an op outside the Edge dialect:
SpecViolationError) are "unsupported", as are a kernel the portable runtime lacks ("Missing
operator", Error::OperatorMissing 0x14 when the method loads) and an input that is neither
contiguous nor channels-last (the runtime refuses it by design); any other failure is "error".
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import afworker  # noqa: E402
from worker_export import unsupported_kinds  # noqa: E402


def buffer_patterns(req):
    """InitializedMutableBufferPass's patterns: the placeholder names torch.export gives the buffers
    (b_NAME; the pass matches by substring)."""
    return ["b_" + req.names[k] for k in req.buffers]


class ExecuTorchWorker(afworker.Torch2Worker):
    name = "executorch"
    warm_up = ("mutation", "buffer")
    timing = ("convert_s", "run_s")

    def requires(self):
        try:
            import executorch
            from executorch import exir
            from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass
            from executorch.runtime import Runtime
        except ImportError as e:
            raise afworker.Unavailable("ExecuTorch is not installed (pip install --no-deps executorch==1.5.1, "
                                       "scripts/requirements-nodeps.txt): %s" % e)
        self.exir, self.init_pass, self.runtime = exir, InitializedMutableBufferPass, Runtime.get()
        self.declines = unsupported_kinds(self.torch)
        try:
            from importlib.metadata import version
            v = version("executorch")
        except Exception:
            v = getattr(executorch, "__version__", "?")
        return {"executorch": v}

    def settings(self):
        return {"runtime": "portable (executorch.runtime)"}

    def convert(self, req, warns):
        torch, exir = self.torch, self.exir
        with afworker.step("the program as Python"):
            m, args = afworker.program_module(req)
        try:
            ep = torch.export.export(m, tuple(args))
        except Exception as e:
            status = "unsupported" if isinstance(e, self.declines) else "error"
            raise afworker.Failure(status, "torch.export.export: " + afworker.exception_message(e))
        try:
            edge = exir.to_edge(ep)
        except Exception as e:
            status = "unsupported" if type(e).__name__ == "SpecViolationError" else "error"
            raise afworker.Failure(status, "to_edge: " + afworker.exception_message(e))
        try:
            config = exir.ExecutorchBackendConfig(emit_mutable_buffer_names=True,
                                                  passes=[self.init_pass(buffer_patterns(req))] if req.buffers else [])
            et = edge.to_executorch(config)
        except Exception as e:
            raise afworker.Failure("error", "to_executorch: " + afworker.exception_message(e))
        return et

    def graph_text(self, et):
        ep = et.exported_program()
        return "%s\n%s" % (str(ep.graph_signature).strip(), ep.graph_module.code.strip("\n"))

    def run(self, req, et, warns):
        try:
            method = self.runtime.load_program(et.buffer).load_method("forward")
        except Exception as e:
            msg = afworker.exception_message(e)
            # a kernel the portable runtime lacks: "Missing operator" goes to the runtime's log, the
            # exception says only "Failed to load method forward, error: 0x:14" (Error::OperatorMissing)
            missing = "issing operator" in msg or re.search(r"error: 0x:?14\b", msg)
            raise afworker.Failure("unsupported" if missing else "error", "loading the program in the portable runtime: " + msg)
        inputs = afworker.feeds(req)
        try:
            res = list(method.execute(inputs))
        except Exception as e:
            msg = afworker.exception_message(e)
            # the runtime takes contiguous or channels-last inputs only (by design: it reads data_ptr in
            # the planned order; pytorch/executorch#18562): a strided input is a limit, not a bug
            status = "unsupported" if "should be contiguous or channels-last" in msg else "error"
            raise afworker.Failure(status, "executing the method: " + msg)
        return self.unpack(req, et, method, res)

    def unpack(self, req, et, method, res):
        """(outputs, final input states, None) from the method's outputs by the program's graph
        signature: mutated inputs first as extra outputs, mutated buffers kept in the method."""
        specs = et.exported_program().graph_signature.output_specs
        kinds = [s.kind.name for s in specs]
        returned = [s for s in specs if s.kind.name != "BUFFER_MUTATION"]
        if len(res) != len(returned):
            raise afworker.Failure("error", "the method returned %d values for %d (graph signature: %s)" % (
                len(res), len(returned), ", ".join(kinds)))
        final = [None] * len(req.names)
        outs = []
        arg_of = {req.names[k]: k for k in req.args}
        for spec, v in zip(returned, res):
            if spec.kind.name == "USER_INPUT_MUTATION":
                final[arg_of[spec.target]] = v
            elif spec.kind.name == "USER_OUTPUT":
                if v is None and req.noutputs == 0:  # forward's `return None` (a program without outputs)
                    continue
                outs.append(v)
            else:
                raise afworker.Failure("error", "an output of kind %s in the graph signature" % spec.kind.name)
        mutated = {s.target for s in specs if s.kind.name == "BUFFER_MUTATION"}
        inputs = afworker.feeds(req)  # the caller's tensors as they were: ExecuTorch does not write into them
        for k in range(len(req.names)):
            name = req.names[k]
            if k in req.buffers:
                try:
                    final[k] = method._method.get_attribute(name) if name in mutated else req.inputs[k].clone()
                except Exception as e:
                    raise afworker.Failure("error", "reading buffer %s back (get_attribute): %s" % (
                        name, afworker.exception_message(e)))
            elif final[k] is None:
                final[k] = inputs[req.args.index(k)]
        return outs, final, None


if __name__ == "__main__":
    afworker.main(ExecuTorchWorker)
