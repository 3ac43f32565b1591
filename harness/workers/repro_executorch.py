# repro_executorch.py - how `executorch` converts, for its repro.py (inlined by aliasfuzz):
# torch.export -> to_edge -> to_executorch, run by the portable runtime; a mutated input comes back
# as an extra output, a mutated buffer is read with get_attribute (worker_executorch.py); the final
# states are written back into the caller's storages as the worker does (written_back).
# Install: pip install --no-deps executorch (its metadata pulls torchao, coremltools, tokenizers...
# and no torch pin), after its run-time dependencies (PACKAGES).
from repro_common import *  # aliasfuzz: inline


def convert_and_run(src, converted, inputs):
    need('executorch')
    from executorch.exir import to_edge, ExecutorchBackendConfig
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass
    from executorch.runtime import Runtime
    names = [i[0] for i in INPUTS]
    params = forward_params()
    m, args = repro_module(src, inputs)
    pats = ['b_' + names[i] for i in BUFFERS]  # keep the buffers' initial values
    et = to_edge(torch.export.export(m, tuple(args))).to_executorch(ExecutorchBackendConfig(
        emit_mutable_buffer_names=True, passes=[InitializedMutableBufferPass(pats)] if pats else []))
    print('--- ExecuTorch program ---')
    print(et.exported_program())
    method = Runtime.get().load_program(et.buffer).load_method('forward')
    res = list(method.execute(args))
    specs = et.exported_program().graph_signature.output_specs
    mutated = {s.target for s in specs if s.kind.name == 'BUFFER_MUTATION'}
    outs, returned = [], {}
    for s, v in zip([s for s in specs if s.kind.name != 'BUFFER_MUTATION'], res):
        if s.kind.name == 'USER_INPUT_MUTATION':
            returned[s.target] = v
        elif v is not None or OUTPUT_NAMES:  # (None: forward's `return None`, a program without outputs)
            outs.append(v)
    final = [(method._method.get_attribute(n) if n in mutated else inputs[i].clone()) if i in BUFFERS
             else returned.get(n, args[params.index(i)]) for i, n in enumerate(names)]
    return outs, written_back(inputs, final)  # the states a caller applies (ExecuTorch writes none back)
