# repro_onnx_dynamo.py - how `onnx-dynamo` converts, for its repro.py (inlined by aliasfuzz):
# torch.onnx.export(dynamo=True) of the returns_state module, run in ONNX Runtime; the final input
# states are extra model outputs (worker_onnx_dynamo.py).
from repro_common import *  # aliasfuzz: inline


def convert_and_run(src, converted, inputs):
    for p in ('onnx', 'onnxscript', 'onnxruntime'):
        need(p)
    import onnxruntime
    m, args = repro_module(src, inputs, returns_state=True)
    prog = torch.onnx.export(m, tuple(args), dynamo=True, verbose=False)
    s = onnxruntime.InferenceSession(prog.model_proto.SerializeToString(), providers=['CPUExecutionProvider'])
    feeds = dict(zip([n for i, (n, *_) in enumerate(INPUTS) if i not in BUFFERS], [a.numpy() for a in args]))
    return split_state([torch.from_numpy(v) for v in s.run(None, {i.name: feeds[i.name] for i in s.get_inputs()})], inputs)
