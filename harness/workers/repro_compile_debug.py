# repro_compile_debug.py - how `aot_eager-debug` converts, for its repro.py (inlined by aliasfuzz):
# repro_compile.py's calls with AOTAutograd's consistency checks on
# (torch._functorch.config.debug_assert = True), as worker_aot_eager_debug.py compiles.
from repro_compile import *  # aliasfuzz: inline


def compile_options():
    import torch._functorch.config
    torch._functorch.config.debug_assert = True  # read by every compile and call after this
    return 'aot_eager', {}
