# repro_iree.py - how `iree` converts, for its repro.py (inlined by aliasfuzz): iree.turbine.aot.export,
# compiled for llvm-cpu, the IREE runtime (local-sync); an input mutation is read back from the
# argument's device array, a buffer's final state is an extra output of the module (worker_iree.py);
# the final states are written back into the caller's storages as the worker does (written_back).
# Install: pip install --no-deps iree-turbine iree-base-compiler iree-base-runtime, after their
# run-time dependencies (PACKAGES).
from repro_common import *  # aliasfuzz: inline


def convert_and_run(src, converted, inputs):
    aot = need('iree.turbine.aot', 'iree-turbine')
    rt = need('iree.runtime', 'iree-base-runtime')
    import numpy as np
    params = forward_params()
    m, args = repro_module(src, inputs, returns_state=bool(BUFFERS))
    exported = aot.export(m, args=tuple(args))
    print('--- imported MLIR ---')
    print(exported.mlir_module)
    vmfb = exported.compile(save_to=None, target_backends='llvm-cpu')
    cfg = rt.Config('local-sync')
    ctx = rt.SystemContext(config=cfg)
    ctx.add_vm_module(rt.VmModule.copy_buffer(cfg.vm_instance, vmfb.map_memory()))
    arrays = [rt.asdevicearray(cfg.device, a.contiguous().numpy()) for a in args]  # a 0-dim input stays 0-dim
    r = ctx.modules.module['main'](*arrays)
    vals = [torch.from_numpy(np.array(v.to_host())) for v in (r if isinstance(r, (list, tuple)) else [r])]
    after = [torch.from_numpy(np.array(a.to_host())) for a in arrays]
    n = len(OUTPUT_NAMES)
    return vals[:n], written_back(inputs, [vals[n + i] if i in BUFFERS else after[params.index(i)] for i in range(len(INPUTS))])
