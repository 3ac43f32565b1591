# repro_tvm_relax.py - how `tvm-relax` converts, for its repro.py (inlined by aliasfuzz): TVM
# Relax's from_exported_program of the returns_state module's ExportedProgram, tvm.compile for
# llvm, the Relax VM; the final input states are extra outputs (worker_tvm_relax.py).
from repro_common import *  # aliasfuzz: inline


def convert_and_run(src, converted, inputs):
    tvm = need('tvm')
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program
    m, args = repro_module(src, inputs, returns_state=True)
    mod = from_exported_program(torch.export.export(m, tuple(args)))
    print('--- Relax module ---')
    print(mod.script(show_meta=False))
    build = getattr(tvm, 'compile', None) or relax.build
    vm = relax.VirtualMachine(build(mod, target='llvm'), tvm.cpu(0))
    make = getattr(tvm.runtime, 'tensor', None) or tvm.nd.array
    res = vm['main'](*[make(a.numpy(), tvm.cpu(0)) for a in args])
    return split_state([torch.from_numpy(v.numpy()) for v in ([res] if hasattr(res, 'numpy') else list(res))], inputs)
