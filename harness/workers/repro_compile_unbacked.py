# repro_compile_unbacked.py - how `aot_eager-unbacked` converts, for its repro.py (inlined by
# aliasfuzz): repro_compile.py's calls with TorchDynamo capturing data-dependent values and sizes
# (torch._dynamo.config.capture_scalar_outputs and capture_dynamic_output_shape_ops = True), as
# worker_aot_eager_unbacked.py compiles.
from repro_compile import *  # aliasfuzz: inline


def compile_options():
    import torch._dynamo.config
    torch._dynamo.config.capture_scalar_outputs = True  # read by every compile after this
    torch._dynamo.config.capture_dynamic_output_shape_ops = True
    return 'aot_eager', {}
