"""Run ``_scale_oracle_child.py`` (Triton 3.9's Gluon scale-layout helpers) on a list of cases, in child processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = Path(__file__).parent / "_scale_oracle_child.py"


def scale_oracle(kind: str, cases: list[list]) -> list[dict]:
    """One answer per case (``kind``: ``mfma`` or ``wmma``, as the child takes them): the oracle's bases, or
    ``{"error": ...}`` for a case it refused or one on which LLVM aborted the child (the rest then run in a new
    child)."""
    got: list[dict] = []
    while len(got) < len(cases):
        proc = subprocess.run([sys.executable, str(CHILD), kind], input=json.dumps(cases[len(got):]),
                              capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": ""})
        got += [json.loads(line[5:]) for line in proc.stdout.splitlines() if line.startswith("CASE ")]
        if len(got) < len(cases):
            assert proc.returncode != 0, proc.stderr[-2000:]  # a child that ended cleanly answered every case
            got.append({"error": "aborted"})
    return got
