"""Where an installed package lives and which distribution put it there, found without importing it.

``importlib.util.find_spec`` locates a package's directory without running its code, and pip leaves a
``<dist>-<version>.dist-info`` directory beside it; the name of that directory is the installed version.
Reading a directory listing costs microseconds, where ``importlib.metadata`` costs a short command about
20 ms of imports (``tests/test_check_startup_imports.py``), and importing Z3 itself far more.

>>> d = installed_distribution("llverify_no_such_package", "none")
>>> d is None
True
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass

__all__ = ["InstalledDistribution", "installed_distribution"]


@dataclass(frozen=True)
class InstalledDistribution:
    """A package found on the import path: its directory and the ``dist-info`` directories beside it whose
    distribution name is the one asked for (normally exactly one; several when stale copies were left)."""

    package_dir: str
    dist_infos: tuple[str, ...]

    @property
    def version(self) -> str | None:
        """The version in the name of the only matching ``dist-info`` (``z3_solver-4.15.4.0.dist-info`` ->
        ``4.15.4.0``), None when there is not exactly one."""
        if len(self.dist_infos) != 1:
            return None
        name = self.dist_infos[0][:-len(".dist-info")]
        return name.split("-", 1)[1] if "-" in name else None


def installed_distribution(module: str, distribution: str) -> InstalledDistribution | None:
    """The package ``module`` (not imported) and the ``distribution`` dist-infos beside it, or None when
    the package is not installed (or is a single-file module, which has no package directory).

    ``distribution`` is the dist-info name prefix, with underscores as pip writes it (``z3_solver``);
    the comparison ignores case.

    Postcondition: nothing of ``module`` is executed."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    pkg_dir = list(spec.submodule_search_locations)[0]
    prefix = distribution.lower() + "-"
    try:
        entries = os.listdir(os.path.dirname(pkg_dir))
    except OSError:
        entries = []
    found = tuple(sorted(e for e in entries if e.lower().startswith(prefix) and e.endswith(".dist-info")))
    return InstalledDistribution(pkg_dir, found)
