"""SMT-LIB 2 export and independent re-checking of SMT obligations.

Every SMT obligation llverify discharges is a quantifier-free bit-vector
query (``QF_BV``) whose ``unsat`` proves the claim (the query is the negated
claim).  :func:`obligation_text` wraps a query in a self-describing
``.smt2`` file (comment header, ``(check-sat)``), :func:`write_smt2` saves
it, and :func:`recheck` answers it again, with the ``z3`` binary
(``z3 -smt2 file``) when one is on ``PATH`` and otherwise through Z3's
SMT-LIB parser in-process.  A test checks that the re-checked answer is the
one the prover got.

Example::

    v = surjective(L, method="smt")
    path = write_smt2("surj.smt2", v.certificate["smt2"])
    recheck(path.read_text()) == "unsat"
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import z3

__all__ = ["obligation_text", "recheck", "write_smt2", "z3_binary"]


def z3_binary() -> str | None:
    """Path of a ``z3`` executable on PATH, or None."""
    return shutil.which("z3")


def obligation_text(query: str, comment: str = "") -> str:
    """A standalone ``.smt2`` file: a comment header, the query, one ``(check-sat)``."""
    body = query if "(check-sat)" in query else query.rstrip() + "\n(check-sat)\n"
    head = "".join(f"; {line}\n" for line in comment.splitlines()) if comment else ""
    return head + "; unsat proves the claim; sat gives a counterexample\n" + body


def write_smt2(path: str | Path, query: str, comment: str = "") -> Path:
    """Write :func:`obligation_text` of ``query`` to ``path``; returns the path."""
    p = Path(path)
    p.write_text(obligation_text(query, comment))
    return p


def recheck(text: str, *, rlimit: int | None = None, use_binary: bool | None = None,
            timeout_s: float = 120.0) -> str:
    """Answer an SMT-LIB query afresh: ``"sat"``, ``"unsat"`` or ``"unknown"``.

    ``use_binary``: True forces the ``z3`` binary, False the in-process parser,
    None (default) uses the binary when present.
    """
    exe = z3_binary() if use_binary is not False else None
    if use_binary and exe is None:
        raise FileNotFoundError("no z3 binary on PATH")
    if exe is not None:
        args = [exe, "-smt2", "-in"] + ([f"rlimit={int(rlimit)}"] if rlimit else [])
        res = subprocess.run(args, input=text, capture_output=True, text=True, timeout=timeout_s)
        first = (res.stdout.strip().splitlines() or ["unknown"])[0].strip()
        return first if first in ("sat", "unsat", "unknown") else "unknown"
    s = z3.Solver()
    if rlimit:
        s.set("rlimit", int(rlimit))
    s.from_string(text)
    return str(s.check())
