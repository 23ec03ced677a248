"""Nsight Compute bridge: the command line, and a parser for its CSV output.

The harness reads five counters per kernel launch (they were seen working on
an H200 with ``--clock-control none``):

* ``smsp__sass_inst_executed_op_shared_st.sum`` / ``..._ld.sum``: warp-level
  shared store / load instructions executed;
* ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum`` / ``..._ld.sum``:
  wavefronts those instructions took;
* ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum``: store bank
  conflicts (a cross-check).

Wavefronts per instruction = wavefronts / instructions: 1 for a conflict-free
4-byte access, 32 for a 32-way conflict, 4 for a conflict-free 16-byte one.
:func:`parse_csv` reads ``ncu --csv`` output (the "details" page: one row per
launch and metric, columns ``ID``, ``Kernel Name``, ``Metric Name``,
``Metric Value``); values may carry thousands separators.  Example: rows
``"0","llv_x",...,"smsp__sass_inst_executed_op_shared_st.sum","","64"`` and
``...wavefronts_mem_shared_op_st.sum","","256"`` give
``{"store": 4.0}`` per instruction for launch 0.
"""

from __future__ import annotations

import csv
import io
import shutil
from dataclasses import dataclass, field
from typing import Mapping, Sequence

__all__ = ["METRICS", "Launch", "ncu_command", "parse_csv", "per_instruction", "ncu_path"]

ST_INST = "smsp__sass_inst_executed_op_shared_st.sum"
LD_INST = "smsp__sass_inst_executed_op_shared_ld.sum"
ST_WAVES = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
LD_WAVES = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
ST_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
METRICS = (ST_CONFLICTS, ST_WAVES, LD_WAVES, ST_INST, LD_INST)


@dataclass(frozen=True)
class Launch:
    """One profiled kernel launch: its id, kernel name and metric values."""

    id: int
    kernel: str
    metrics: Mapping[str, float] = field(default_factory=dict)


def ncu_path() -> str | None:
    """The ``ncu`` executable (PATH, then the usual install folders), or None."""
    p = shutil.which("ncu")
    if p:
        return p
    import glob  # noqa: PLC0415
    for pattern in ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu", "/usr/local/cuda*/bin/ncu"):
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    return None


def ncu_command(program: Sequence[str], log_file: str, kernel_regex: str = "^llv_",
                ncu: str = "ncu") -> list[str]:
    """``ncu --clock-control none --metrics ... --csv`` around ``program``, output to ``log_file``."""
    return [ncu, "--clock-control", "none", "--metrics", ",".join(METRICS), "--csv",
            "--kernel-name", f"regex:{kernel_regex}", "--log-file", log_file, *program]


def _number(text: str) -> float | None:
    t = text.strip().replace(",", "").replace('"', "")
    if not t or t.lower() in {"n/a", "nan"}:
        return None
    try:
        return float(t)
    except ValueError:
        return None


def parse_csv(text: str) -> list[Launch]:
    """Launches in the order they were profiled (see the module docstring)."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("==")]
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        return []
    reader = csv.DictReader(io.StringIO("\n".join(lines[start:])))
    launches: dict[int, tuple[str, dict[str, float]]] = {}
    for row in reader:
        try:
            lid = int(row["ID"])
        except (KeyError, TypeError, ValueError):
            continue
        name = (row.get("Kernel Name") or "").strip()
        name = name.split("(")[0].strip()
        metric = (row.get("Metric Name") or "").strip()
        value = _number(row.get("Metric Value") or "")
        entry = launches.setdefault(lid, (name, {}))
        if metric and value is not None:
            entry[1][metric] = value
    return [Launch(i, n, m) for i, (n, m) in sorted(launches.items())]


def per_instruction(m: Mapping[str, float]) -> dict[str, float | None]:
    """Wavefronts per instruction for stores and loads (None where a kernel has no such instruction)."""
    out: dict[str, float | None] = {}
    for key, inst, waves in (("store", ST_INST, ST_WAVES), ("load", LD_INST, LD_WAVES)):
        n = m.get(inst)
        out[key] = (m.get(waves, 0.0) / n) if n else None
    return out
