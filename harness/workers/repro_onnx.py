# repro_onnx.py - how `onnx` converts, for its repro.py (inlined by aliasfuzz): the TorchScript-based
# torch.onnx.export of the program plus af_returns_inputs (afconvert.wrapper_source: its outputs,
# then every input after the call), run in ONNX Runtime: its Python module where it imports, else
# aliasfuzz's Node helper (AF_ORT_HELPER: harness/workers/ort_helper.js), as worker_onnx.py.
from repro_common import *  # aliasfuzz: inline
import base64, io, json, os, subprocess, warnings
ONNX_OPSET = int(os.environ.get('AF_ONNX_OPSET', '16'))
ORT_HELPER = os.environ.get('AF_ORT_HELPER')  # aliasfuzz's harness/workers/ort_helper.js, for Node's ONNX Runtime


def onnx_export(fn, inputs, names, outs):
    buf = io.BytesIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        import inspect  # PyTorch 2.x: the TorchScript-based exporter is dynamo=False
        kw = {'dynamo': False} if 'dynamo' in inspect.signature(torch.onnx.export).parameters else {}
        torch.onnx.export(fn, tuple(t.clone() for t in inputs), buf, opset_version=ONNX_OPSET,
                          input_names=names, output_names=outs, do_constant_folding=True, **kw)
    for w in caught:
        if 'no signature found' not in str(w.message):
            print('exporter warning:', w.message)
    return buf.getvalue()


def onnx_run(model, names, inputs):
    """ONNX Runtime: its Python module where it imports, else aliasfuzz's Node helper."""
    try:
        import onnxruntime
    except ImportError:
        onnxruntime = None
    if onnxruntime is None and not ORT_HELPER:
        raise ImportError('ONNX Runtime: pip install onnxruntime (the version in this file\'s CONVERTER_VERSION), '
                          'or set AF_ORT_HELPER to aliasfuzz\'s harness/workers/ort_helper.js (npm onnxruntime-node)')
    if onnxruntime is not None:
        s = onnxruntime.InferenceSession(model, providers=['CPUExecutionProvider'])
        want = {i.name for i in s.get_inputs()}
        return [torch.from_numpy(o) for o in s.run(None, {n: t.numpy() for n, t in zip(names, inputs) if n in want})]
    import numpy as np
    feeds = [{'name': n, 'shape': list(t.shape), 'dtype': str(t.dtype).replace('torch.', ''),
              'data': base64.b64encode(t.contiguous().numpy().tobytes()).decode()} for n, t in zip(names, inputs)]
    req = json.dumps({'id': 1, 'model': base64.b64encode(model).decode(), 'inputs': feeds})
    p = subprocess.run([os.environ.get('AF_NODE', 'node'), ORT_HELPER], input=req + '\n', capture_output=True, text=True)
    lines = p.stdout.splitlines()
    if len(lines) < 2:
        raise RuntimeError('%s failed: %s' % (ORT_HELPER, (p.stdout + p.stderr)[-2000:]))
    a = json.loads(lines[1])
    if a['status'] != 'ok':
        raise RuntimeError('onnxruntime: ' + a['message'])
    return [torch.from_numpy(np.frombuffer(base64.b64decode(o['data']), dtype=o['dtype']).copy().reshape(o['shape']))
            for o in a['outputs']]


def convert_and_run(src, converted, inputs):
    names = [i[0] for i in INPUTS]
    nout = len(OUTPUT_NAMES)
    outs = ['output_%d' % k for k in range(nout)]
    try:
        fn = torch.jit.CompilationUnit(wrapper_source(src, names, nout)).af_returns_inputs
        model, with_inputs = onnx_export(fn, inputs, names, outs + ['final_' + n for n in names]), True
    except torch.onnx.errors.UnsupportedOperatorError:
        raise
    except Exception as e:
        print('exporting with the final inputs as extra outputs failed (%s); exporting the program alone' %
              str(e).strip().splitlines()[0])
        model, with_inputs = onnx_export(torch.jit.CompilationUnit(src).program, inputs, names, outs), False
    vals = onnx_run(model, names, inputs)
    return vals[:nout], written_back(inputs, vals[nout:]) if with_inputs else [None] * len(names)
