# repro_compile_autocast.py - how `aot_eager-autocast` converts, for its repro.py (inlined by
# aliasfuzz): repro_compile.py's calls, each call of the compiled program under
# torch.autocast('cpu', dtype=torch.bfloat16) as worker_aot_eager_autocast.py calls it (the
# backward after the block). It is judged against eager without autocast: the worker found that
# autocast changes nothing of this program in eager mode (its eager check).
from repro_compile import *  # aliasfuzz: inline


def compile_options():
    return 'aot_eager', {}


compile_plain = compile_program


def compile_program(src, m, own_cache=False):
    """repro_compile.py's compile_program, the callable it returns called under autocast."""
    compiled = compile_plain(src, m, own_cache)

    def under_autocast(*args):
        with torch.autocast('cpu', dtype=torch.bfloat16):
            return compiled(*args)
    return under_autocast
