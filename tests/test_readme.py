"""The README's Python tour is real output: every `>>>` example is re-run here.

Each ```python block is replayed as an interactive session (statements
compiled in 'single' mode, so expression values are echoed as the REPL does)
and what it prints must equal the text shown under it in the README.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def sessions() -> list[list[tuple[str, str]]]:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    out = []
    for block in blocks:
        steps: list[tuple[str, str]] = []
        src: list[str] = []
        expected: list[str] = []
        for line in block.splitlines():
            if line.startswith(">>> "):
                if src:
                    steps.append(("\n".join(src), "\n".join(expected)))
                src, expected = [line[4:]], []
            elif line.startswith("... ") and not expected:
                src.append(line[4:])
            else:
                expected.append(line)
        if src:
            steps.append(("\n".join(src), "\n".join(expected)))
        out.append(steps)
    return out


def test_readme_python_examples_print_what_the_readme_shows():
    all_sessions = sessions()
    assert all_sessions, "the README has a Python tour"
    namespace: dict = {}
    for steps in all_sessions:
        for src, expected in steps:
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                exec(compile(src + "\n", "README.md", "single"), namespace)  # the README's own example code
            got = "\n".join(line.rstrip() for line in buf.getvalue().rstrip("\n").splitlines())
            want = "\n".join(line.split("  #")[0].rstrip() for line in expected.splitlines())
            assert got == want, f"README example:\n{src}\nprinted:\n{got}\nREADME shows:\n{want}"
