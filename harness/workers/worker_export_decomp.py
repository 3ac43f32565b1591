#!/usr/bin/env python3
"""worker_export_decomp.py - aliasfuzz worker `export-decomp`: torch.export.export, then
ep.run_decompositions() (the functional core ATen opset), run through ep.module(). The same
worker as worker_export.py (see there) with --decompose. Speaks aliasfuzz-worker/1 (PROTOCOL.md)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import worker_export  # noqa: E402

if __name__ == "__main__":
    worker_export.main("export-decomp", decompose=True)
