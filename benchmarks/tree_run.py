"""One checkout's llverify in a child process: how the A/B benchmarks run their base and new trees.

``python -c`` puts the working directory first on ``sys.path``, ahead of ``PYTHONPATH``, so a child started in
one checkout imports *that* checkout's llverify whatever ``PYTHONPATH`` says (the A/B scripts once compared the
new tree with itself this way).  :func:`run_in_tree` starts the child in the tree, with the tree on
``PYTHONPATH``; the child code should still assert which ``llverify`` it imported.
"""

from __future__ import annotations

import os
import subprocess
import sys

__all__ = ["run_in_tree"]


def run_in_tree(tree: str, code: str, args: list[str]) -> str:
    """``python -c code *args`` against ``tree``'s llverify; its standard output.  Exits this script with the
    child's standard error when the child fails."""
    p = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=tree,
                       env={**os.environ, "PYTHONPATH": tree})
    if p.returncode:
        raise SystemExit(p.stderr[-3000:])
    return p.stdout
