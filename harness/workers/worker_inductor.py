#!/usr/bin/env python3
"""worker_inductor.py - aliasfuzz worker `inductor`: torch.compile(fn, backend="inductor") on the
CPU (Inductor compiles C++ with the machine's compiler). The same worker as worker_aot_eager.py
(see there) with --backend inductor: each worker process compiles into its own
TORCHINDUCTOR_CACHE_DIR, made under --cache-dir / AF_INDUCTOR_CACHE_DIR (a campaign's folder) or
the temporary folder, and removed when it exits. Speaks aliasfuzz-worker/1 (PROTOCOL.md)."""

import afworker  # run as a script: its folder is first on sys.path
import worker_aot_eager


class InductorWorker(worker_aot_eager.CompileWorker):
    name = "inductor"
    backend = "inductor"


if __name__ == "__main__":
    afworker.main(InductorWorker)
