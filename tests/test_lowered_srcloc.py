"""Attribution without ``USE_IR_LOC=ttgir``: debug locations that name the Python source.

The same kernel (``tests/data/lowered_srcloc``, a block-scaled dot for gfx950) compiled twice: by default (the
LLVM IR's locations name ``make_kernel.py`` lines) and under ``USE_IR_LOC=ttgir`` (they name ``.ttgir`` lines,
the exact attribution).  Every op the source-position attribution claims must get the verdict the exact
attribution gives it; positions shared by several candidate ops stay unattributed.
"""

from __future__ import annotations

import json
from pathlib import Path

from llverify.lowered.attribution import Attribution
from llverify.lowered.validate import validate_texts
from llverify.ttgir.model import Location, Op

DATA = Path(__file__).parent / "data" / "lowered_srcloc"
STEM = "scaled_dot_e2m1-hip_gfx950-w4"


def _run(mode: str) -> list[dict]:
    base = DATA / f"{STEM}-{mode}"
    shared = json.loads(base.with_suffix(".json").read_text())["shared"]
    found = validate_texts(base.with_suffix(".ttgir").read_text(), str(base.with_suffix(".ttgir")),
                           base.with_suffix(".llir").read_text(), str(base.with_suffix(".llir")), shared)
    return [f.to_json() for f in found]


def _per_op(results: list[dict]) -> dict[tuple[int, str], str]:
    return {(r["location"]["line"], r["property"]): r["status"] for r in results
            if r["property"] in ("right_elements", "tma_tiling")}


def test_source_positions_attribute_what_the_exact_attribution_decides_the_same_way() -> None:
    default, exact = _run("default"), _run("irloc")
    by_source, by_ttgir = _per_op(default), _per_op(exact)
    assert by_source, "the source-position attribution attributed no op"
    for key, status in by_source.items():
        assert by_ttgir.get(key) == status, (key, status, by_ttgir.get(key))
    assert all(r["status"] != "refuted" for r in default)
    # most accesses are attributed: the only unknowns left are positions with several candidates
    unattributed = [r for r in default if r["property"] == "attribution"]
    assert len(unattributed) < len(default) // 4
    assert all("shared by" in r["message"] for r in unattributed)


def _op(name: str, line: int) -> Op:
    return Op(name, (), (), (), {}, (), Location("m.ttgir", line, 5), None, name)


def test_direction_decides_only_for_one_way_ops() -> None:
    alloc, load, load2, cvt = _op("ttg.local_alloc", 1), _op("ttg.local_load", 2), _op("ttg.local_load", 3), \
        _op("ttg.convert_layout", 4)
    attr = Attribution({"1": (alloc, load), "2": (load, load2), "3": (alloc, cvt), "4": (cvt,)}, "source")
    assert attr.op_of("1", "load") is load and attr.op_of("1", "ldmatrix") is load
    assert attr.op_of("1", "store") is alloc
    assert attr.op_of("1", "asm") is None          # no known direction: several candidates stay unattributed
    assert attr.op_of("2", "load") is None          # two loads at one position
    assert attr.op_of("3", "load") is None          # the conversion would get its loads without its stores
    assert attr.op_of("3", "store") is None
    assert attr.op_of("4", "store") is cvt and attr.dbgs_of(cvt) == ["4"]


def test_a_pair_from_two_kernels_is_refused() -> None:
    import subprocess
    import sys

    lowered = Path(__file__).parent / "data" / "lowered"
    res = subprocess.run([sys.executable, "-m", "llverify.cli", "lowered",
                          str(lowered / "attention-q64k64d64-cuda_90-w4.ttgir"),
                          str(lowered / "softmax-r4c128-cuda_90-w4.llir"), "--shared", "1024"],
                         capture_output=True, text=True)
    assert res.returncode == 2
    assert "not this TTGIR's lowering" in res.stderr and "@softmax" in res.stderr and "Traceback" not in res.stderr
