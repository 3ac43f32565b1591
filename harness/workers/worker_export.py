#!/usr/bin/env python3
"""worker_export.py - aliasfuzz worker `export`: torch.export.export of the program, run through
ep.module(). Speaks aliasfuzz-worker/1 (PROTOCOL.md). PyTorch 2.x only.

With each program:
  1. the TorchScript source runs as Python (afworker.program_module): an nn.Module whose forward
     calls the program function, or, with module state, whose forward is the program and whose
     buffers are registered with register_buffer;
  2. torch.export.export(module, args) on copies of the inputs laid out as the request says
     (req.fresh(): inputs that share a storage share a copy of it, as the caller's do; non-strict by default, as
     torch.export does by default; --strict traces with TorchDynamo); `export-decomp` (--decompose,
     worker_export_decomp.py) then calls ep.run_decompositions() (the core ATen opset);
  3. ep.module() runs on fresh copies of the inputs laid out the same way, its buffers set to
     clones of theirs. The unlifted module writes input mutations back into its caller's tensors
     and buffer mutations into its buffers, as export's graph signature says (USER_INPUT_MUTATION,
     BUFFER_MUTATION), so an input's final state is its copy after the call, a buffer's is the
     module's attribute, and every storage's ("bases") the copy those inputs view.
The graph text is the exported program (graph signature and graph). "residual" counts in-place ops
left in the exported graph (export keeps them before run_decompositions).

An export failure that torch.export raises to say it cannot express the program (a graph break:
torch._dynamo.exc.Unsupported or UserError, a data-dependent guard) is "unsupported"; any other
export or run failure is "error".

Options: --decompose, --strict.
"""

import afworker  # run as a script: its folder is first on sys.path


unsupported_kinds = afworker.export_declines  # (worker_executorch and worker_iree import it from here)


def count_inplace(gm):
    """In-place ATen ops (name ending in _) among gm's call_function nodes."""
    n = 0
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        name = getattr(getattr(node.target, "_schema", None), "name", "") or str(node.target)
        base = name.split("::")[-1].split(".")[0]
        if base.endswith("_") and not base.startswith("_"):
            n += 1
    return n


class ExportWorker(afworker.Torch2Worker):
    name = "export"
    train = True  # module_call runs the backward through ep.module() (PROTOCOL.md "Training")
    warm_up = ("mutation", "buffer")
    timing = ("export_s", "run_s")
    decompose = False

    @classmethod
    def options(cls, ap):
        ap.add_argument("--decompose", action="store_true", default=cls.decompose,
                        help="ep.run_decompositions() before running (the export-decomp converter)")
        ap.add_argument("--strict", action="store_true", help="torch.export.export(strict=True): trace with TorchDynamo")

    def requires(self):
        self.declines = unsupported_kinds(self.torch)
        return {}

    def settings(self):
        return {"ir": "core ATen (run_decompositions)" if self.args.decompose else "training IR",
                "strict": "yes" if self.args.strict else "no"}

    def convert(self, req, warns):
        with afworker.step("the program as Python"):
            m, args = afworker.program_module(req)
        try:
            ep = self.torch.export.export(m, tuple(args), strict=self.args.strict)
            if self.args.decompose:
                ep = ep.run_decompositions()
        except Exception as e:
            what = "torch.export.export" + (" + run_decompositions" if self.args.decompose else "")
            status = "unsupported" if isinstance(e, self.declines) else "error"
            raise afworker.Failure(status, "%s: %s" % (what, afworker.exception_message(e)))
        return ep

    def graph_text(self, ep):
        return "%s\n%s" % (str(ep.graph_signature).strip(), ep.graph_module.code.strip("\n"))

    def run(self, req, ep, warns):
        with afworker.step("running ep.module()"):
            return afworker.module_call(ep.module(), req)

    def extra(self, req, ep):
        return {"residual": count_inplace(ep.graph_module)}


if __name__ == "__main__":
    afworker.main(ExportWorker)
