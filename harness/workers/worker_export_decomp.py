#!/usr/bin/env python3
"""worker_export_decomp.py - aliasfuzz worker `export-decomp`: torch.export.export, then
ep.run_decompositions() (the functional core ATen opset), run through ep.module(). The same
worker as worker_export.py (see there) with --decompose. Speaks aliasfuzz-worker/1 (PROTOCOL.md)."""

import afworker  # run as a script: its folder is first on sys.path
import worker_export


class ExportDecompWorker(worker_export.ExportWorker):
    name = "export-decomp"
    decompose = True


if __name__ == "__main__":
    afworker.main(ExportDecompWorker)
