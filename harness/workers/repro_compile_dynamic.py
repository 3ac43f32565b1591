# repro_compile_dynamic.py - how `aot_eager-dynamic` converts, for its repro.py (inlined by
# aliasfuzz): repro_compile.py's calls with torch.compile(backend='aot_eager', dynamic=True), as
# worker_aot_eager_dynamic.py compiles.
from repro_compile import *  # aliasfuzz: inline


def compile_options():
    return 'aot_eager', {'dynamic': True}
