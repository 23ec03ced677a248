"""The one-check start-up (issue 16: under 0.15 s wall) pays only for what the run uses: a quiet text run
whose checks all end as expected loads neither rich (its table is not printed), nor the process pool, nor
``importlib.metadata`` (Z3's version comes from its dist-info directory name), nor Z3 or numpy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("rich", "multiprocessing", "concurrent.futures", "importlib.metadata", "z3", "numpy",
         "llverify.spec.formats.jsonout", "llverify.spec.formats.sarif", "llverify.spec.formats.junit")

PROBE = ("import json, sys\nfrom llverify.cli import main\nsys.argv = ['llverify', 'check'] + sys.argv[1:]\n"
         "try:\n    main()\nexcept SystemExit:\n    pass\n"
         f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n")


def _loaded(*args: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_a_quiet_one_check_run_loads_nothing_heavy() -> None:
    assert _loaded("-q", "specs/01_first_check.yaml") == []


def test_the_table_still_loads_rich() -> None:
    # the probe must be able to fail: a run that prints the results table loads rich
    assert "rich" in _loaded("specs/01_first_check.yaml")
