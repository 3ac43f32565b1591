#!/usr/bin/env python3
"""worker_aot_eager_dynamic.py - aliasfuzz worker `aot_eager-dynamic`: the aot_eager worker
(worker_aot_eager.py, see there) compiling with torch.compile(..., dynamic=True): every input's
sizes are symbolic from the first compile (the default compiles static sizes first and makes a
dimension dynamic only when a later call changes it), so AOTAutograd traces, functionalizes and
writes input mutations back with symbolic shapes (symints saved for backward, dynamic output
sizes, size guards). The same calls otherwise, second calls included (PROTOCOL.md "Calling
again"). Speaks aliasfuzz-worker/1 (PROTOCOL.md)."""

import afworker  # run as a script: its folder is first on sys.path
import worker_aot_eager


class DynamicWorker(worker_aot_eager.CompileWorker):
    name = "aot_eager-dynamic"

    def settings(self):
        s = dict(super().settings())
        s["compile"] = "dynamic=True"
        return s

    def compile(self, fn, backend):
        return self.torch.compile(fn, backend=backend, dynamic=True)

    def graph_text(self, converted):
        """The graphs, each after a line with the sizes its inputs were traced with (symbols where
        dynamic: "# graph 0 inputs: L_x_ [s77, 3]"): which sizes the compile left symbolic."""
        text = super().graph_text(converted)
        for k, g in enumerate(converted[2]):
            sizes = []
            for node in g.graph.nodes:
                v = node.meta.get("example_value") if node.op == "placeholder" else None
                if isinstance(v, self.torch.Tensor):
                    sizes.append("%s [%s]" % (node.name, ", ".join(str(s) for s in v.shape)))
            text = text.replace("# graph %d\n" % k, "# graph %d inputs: %s\n" % (k, ", ".join(sizes) or "none"), 1)
        return text


if __name__ == "__main__":
    afworker.main(DynamicWorker)
