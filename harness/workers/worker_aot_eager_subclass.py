#!/usr/bin/env python3
"""worker_aot_eager_subclass.py - aliasfuzz worker `aot_eager-subclass`: the aot_eager worker
(worker_aot_eager.py) with every tensor the program takes wrapped in a traceable wrapper tensor
subclass, TwoTensor (afsubclass.py: PyTorch's own test subclass, .a and .b, every op applied to
both), as users call torch.compile on DTensor, float8 or nested-tensor models: TorchDynamo and
AOTAutograd then trace through the subclass (its __tensor_flatten__/__tensor_unflatten__, subclass
metadata, subclass tangents in training). Speaks aliasfuzz-worker/1 (PROTOCOL.md).

With each program:
  1. the program runs in eager mode (Python) on plain tensors and on TwoTensor inputs: where the
     TwoTensor run fails, leaves .a and .b unequal, or differs from the plain run, the subclass
     itself does not carry the program, and the answer is `unsupported` ("eager on TwoTensor
     inputs ...", a declared limit, REFUSES in workers.def), never a torch.compile finding. A plain
     run that fails is no verdict here: the compiled run is judged as aot_eager's would be;
  2. torch.compile(backend="aot_eager") of the program (TorchDynamo reset first) runs once on
     TwoTensor inputs: storages are wrapped and inputs that view one storage view the one TwoTensor
     (layout_view of the wrapped storage), a leaf that requires grad is a TwoTensor leaf, a
     parameter an nn.Parameter of a TwoTensor, buffers TwoTensors; a training program's backward
     runs through the compiled callable (afworker.train_backward);
  3. outputs, final input states, storages and gradients are unwrapped (their .a). Where .a and .b
     of any of them differ (eager keeps them equal, step 1), the answer is an `error` naming each
     ("the compiled program on TwoTensor inputs left .a and .b unequal: output 0: element 3 is 1.0
     in .a, 2.0 in .b ..."): a finding of the compiled subclass path.
The truth stays aliasfuzz's eager run on plain tensors. No second calls (caches: false): that is
aot_eager's own path, the same compiled code.
"""

import afsubclass  # beside this file
import afworker  # run as a script: its folder is first on sys.path
import worker_aot_eager


class SubclassWorker(worker_aot_eager.CompileWorker):
    name = "aot_eager-subclass"
    caches = False

    def requires(self):
        versions = super().requires()
        try:
            afsubclass.two_tensor_class()
        except ImportError as e:
            raise afworker.Unavailable("torch.testing._internal.two_tensor.TwoTensor cannot be imported: %s" % e)
        return versions

    def settings(self):
        s = dict(super().settings())
        s["inputs"] = "TwoTensor (torch.testing._internal.two_tensor)"
        return s

    def fresh_wrapped(self, req):
        """req.fresh() with every storage and input wrapped: a storage that requires grad is a
        TwoTensor leaf whose clone the inputs view (req.leaves: the leaves, for base_grads)."""
        bases = [afsubclass.wrap(b) for b in req.bases]
        req.leaves = [b.requires_grad_(True) if g else None for b, g in zip(bases, req.base_grad)]
        bases = [l.clone() if l is not None else b for b, l in zip(bases, req.leaves)]
        inputs = [afworker.layout_view(bases[int(t["base"])], t) if "base" in t else afsubclass.wrap(x)
                  for t, x in zip(req.input_specs, req.inputs)]
        return inputs, bases

    def wrapped_call(self, req, m, forward):
        """afworker.module_call on TwoTensor inputs (fresh_wrapped); the results still wrapped."""
        state, bases = self.fresh_wrapped(req)
        state = afworker.train_leaves(req, state)
        for k in req.buffers:
            setattr(m, req.names[k], state[k])
        outs = afworker.call_forward(req, m if forward is None else forward, [state[k] for k in req.args])
        final = [getattr(m, req.names[k]) if k in req.buffers else state[k] for k in range(len(state))]
        afworker.train_backward(req, outs, state)
        return outs, final, bases

    def unwrapped(self, req, result, problems):
        """result (outputs, final states, storages) and req.grads / req.base_grads unwrapped (.a);
        problems gets each one whose .a and .b differ."""
        outs, final, bases = result
        outs = afsubclass.unwrap_named([("output %d" % k, t) for k, t in enumerate(outs)], problems)
        final = afsubclass.unwrap_named([("input %s after the call" % req.names[k], t) for k, t in enumerate(final)],
                                        problems)
        names = [b.get("name", str(k)) for k, b in enumerate(req.base_specs)]
        bases = afsubclass.unwrap_named([("storage %s" % names[k], t) for k, t in enumerate(bases)], problems)
        if req.grads is not None:
            req.grads = afsubclass.unwrap_named([("%s.grad" % req.names[k], t) for k, t in enumerate(req.grads)],
                                                problems)
        if req.base_grads is not None:
            req.base_grads = afsubclass.unwrap_named([("%s.grad" % names[k], t) for k, t in enumerate(req.base_grads)],
                                                     problems)
        return outs, final, bases

    def precheck(self, req, m, eager):
        """Step 1: raises Failure('unsupported', 'eager on TwoTensor inputs ...') where the subclass
        does not carry the program in eager mode."""
        try:
            want = afworker.module_call(m, req, forward=eager)
            want_grads = (req.grads or []) + (req.base_grads or [])
        except Exception:
            return  # eager Python fails on plain tensors too: judged as aot_eager's run would be
        problems = []
        try:
            got = self.unwrapped(req, self.wrapped_call(req, m, eager), problems)
        except Exception as e:
            raise afworker.Failure("unsupported", "eager on TwoTensor inputs fails (the subclass does not carry the "
                                   "program; torch.compile not run): %s" % afworker.exception_message(e))
        if problems:
            raise afworker.Failure("unsupported", "eager on TwoTensor inputs leaves .a and .b unequal (the subclass "
                                   "does not carry the program; torch.compile not run): %s" % "; ".join(problems[:4]))
        diffs = afworker.run_differences(req, want, want_grads, got, (req.grads or []) + (req.base_grads or []))
        if diffs:
            raise afworker.Failure("unsupported", "eager on TwoTensor inputs differs from eager on plain tensors (the "
                                   "subclass does not carry the program; torch.compile not run): %s" % "; ".join(diffs[:4]))

    def run(self, req, converted, warns):
        m, compiled, graphs, seen, again = converted
        eager = None if req.buffers else afworker.python_namespace(req.torchscript)[req.function]
        self.precheck(req, m, eager)
        problems = []
        with afworker.step("torch.compile(backend=%r) on TwoTensor inputs" % self.args.backend):
            result = self.wrapped_call(req, m, compiled)
        result = self.unwrapped(req, result, problems)
        if problems:
            raise afworker.Failure("error", "the compiled program on TwoTensor inputs left .a and .b unequal (eager on "
                                   "them keeps them equal): %s" % "; ".join(problems[:6]))
        return result


if __name__ == "__main__":
    afworker.main(SubclassWorker)
