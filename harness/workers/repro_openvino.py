# repro_openvino.py - how `openvino` converts, for its repro.py (inlined by aliasfuzz):
# openvino.convert_model of the returns_state module's torch.export ExportedProgram, compiled for
# CPU (f32); the final input states are extra outputs (worker_openvino.py). OpenVINO's PyTorch
# frontend imports packaging, which neither package installs.
from repro_common import *  # aliasfuzz: inline


def convert_and_run(src, converted, inputs):
    ov = need('openvino')
    need('packaging')
    import numpy as np
    m, args = repro_module(src, inputs, returns_state=True)
    model = ov.convert_model(torch.export.export(m, tuple(args)))
    cm = ov.compile_model(model, 'CPU', {'INFERENCE_NUM_THREADS': 1, 'INFERENCE_PRECISION_HINT': 'f32'})
    res = cm([a.numpy() for a in args])
    return split_state([torch.from_numpy(np.array(res[o])) for o in cm.outputs], inputs)
