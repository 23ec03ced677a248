"""The solver budget's process-wide defaults, without loading Z3.

Z3 is imported only by the modules that build queries (:mod:`llverify.prove.bv` and its users); a
run that never asks a solver anything (every F2-decided claim) must not pay for loading it, yet every
verdict records the budget and the solver version.  This module holds both.

>>> default_rlimit() == DEFAULT_RLIMIT
True
"""

from __future__ import annotations

import sys
from functools import lru_cache

from llverify.installed import installed_distribution

__all__ = ["DEFAULT_RLIMIT", "set_default_rlimit", "default_rlimit", "z3_version"]

#: Z3 resource units per query unless a check or the command line says otherwise (deterministic)
DEFAULT_RLIMIT = 20_000_000
_rlimit: int | None = DEFAULT_RLIMIT


def set_default_rlimit(n: int | None) -> None:
    """Set the process-wide Z3 resource limit (``None``: unlimited; not deterministic-safe)."""
    global _rlimit
    if n is not None and n <= 0:
        raise ValueError("the Z3 rlimit must be positive (or None for no limit)")
    _rlimit = None if n is None else int(n)


def default_rlimit() -> int | None:
    return _rlimit


@lru_cache(maxsize=1)
def _installed_z3_version() -> str:
    """The installed z3-solver's version, first three components, without importing Z3: from the name of its
    ``z3_solver-X.Y.Z.W.dist-info`` directory beside the package (a directory listing, where
    ``importlib.metadata`` would cost a one-check run about 20 ms of imports), else from the package metadata."""
    found = installed_distribution("z3", "z3_solver")
    if found is None:
        return "none"
    if found.version is not None:
        return ".".join(found.version.split(".")[:3])
    from importlib.metadata import PackageNotFoundError, version

    try:
        return ".".join(version("z3-solver").split(".")[:3])
    except PackageNotFoundError:
        return "none"


def z3_version() -> str:
    """Z3's version string (``4.15.4``): from the loaded module when Z3 is loaded, else from the installed
    package's metadata (the same three components) without importing it."""
    z3 = sys.modules.get("z3")
    if z3 is not None and hasattr(z3, "get_version_string"):
        return str(z3.get_version_string())
    return _installed_z3_version()
