"""Intel's DPAS layouts: ``#ttig.dpas`` (the accumulator) and its ``#ttg.dot_op`` operands.

The Intel XPU backend of Triton (intel/intel-xpu-backend-for-triton) lowers ``tt.dot`` to the DPAS systolic
instruction.  One instruction multiplies an ``M x K`` tile A by a ``K x N`` tile B into an ``M x N`` tile C with
``M = repeat_count`` (1..8), ``K = systolic_depth * ops_per_chan`` (the depth is 8; 1, 2 or 4 values per channel
for 32-, 16- and 8-bit elements) and ``N = execution_size``, spread over the ``threads_per_warp`` lanes of a
sub-group (16 or 32).  The layouts are Intel's ``DPAStoLinearLayout``, as F2 bases:

* **C** (``operand_index`` 2, the accumulator): lanes run along N (``execution_size`` of them), the remaining lane
  bits down M (``rows = threads_per_warp / execution_size`` rows per register); registers take the rest of M.
* **A** (0): values are packed to 16 bits (``ops_per_chan`` 4: two 8-bit values per register pair), so a row of
  K holds ``cols = systolic_depth * ops_per_chan / packed`` packed values, one per lane; a register bit selects the
  value inside a pack, lanes run along K then down M, registers take the rows left over.
* **B** (1): ``ops_per_chan`` consecutive K values in consecutive registers, lanes along N then ``rows`` groups of
  ``ops_per_chan`` down K, registers the rest of K.

Then each tile repeats ``rep_cluster`` times in registers (A along M, B along N, C along N then M), over the warps
(row-major ``warps_per_cta``; A and B broadcast along K: their K warps are zero bases), and in registers again to
cover the shape (K first for A and B, N first for C), and is fitted to the shape as every Triton layout is
(:func:`~llverify.hw.cga.combine_with_shape`, one CTA).

The printed ``A``, ``B`` and ``C`` fields are the instruction-times-cluster shapes; they are derived, and Intel's
parser ignores them, so they are accepted and not read.  ``fp4_k_pack`` only affects the block-scaled scale
operands, which are not modelled here.

Worked example (Intel's own unit test): C of ``repeat_count = 8, execution_size = 16, ops_per_chan = 2`` on 32
lanes, shape ``8 x 16``: registers ``[[2, 0], [4, 0]]``, lanes ``[[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]]``.

>>> L = intel_dpas(8, 8, 16, 2, 32, [1, 1], [1, 1], shape=[8, 16])
>>> L.bases["register"], L.bases["lane"]
(((2, 0), (4, 0)), ((0, 1), (0, 2), (0, 4), (0, 8), (1, 0)))
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Sequence

from llverify.errors import LayoutError
from llverify.hw.blocked import check_shape
from llverify.hw.cga import Tile, as_int_list, check_pow2, check_rank, combine_with_shape
from llverify.layout import LinearLayout

__all__ = ["intel_dpas", "dpas_dot_operand", "dpas_k_width"]

KIND = "intel_dpas"


def _params(repeat_count: object, systolic_depth: object, execution_size: object, ops_per_chan: object,
            threads_per_warp: object, warps_per_cta: object, rep_cluster: object, fp4_k_pack: object
            ) -> tuple[int, int, int, int, int, list[int], list[int]]:
    """The parameters checked as Intel's ``DpasEncodingAttr`` verifier checks them, and every size a power of two
    (the F2 layout needs it; Intel asserts it where it builds the layout)."""
    ints = {}
    for name, v in (("repeat_count", repeat_count), ("systolic_depth", systolic_depth),
                    ("execution_size", execution_size), ("ops_per_chan", ops_per_chan),
                    ("threads_per_warp", threads_per_warp)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise LayoutError(f"{KIND}: {name} = {v!r} must be a positive integer")
        ints[name] = v
    rc, sd, es, opc, tpw = (ints[n] for n in ("repeat_count", "systolic_depth", "execution_size", "ops_per_chan",
                                              "threads_per_warp"))
    if rc > 8:
        raise LayoutError(f"{KIND}: repeat_count = {rc} must be in [1, 8]")
    if opc not in (1, 2, 4):
        raise LayoutError(f"{KIND}: ops_per_chan = {opc} must be 1, 2 or 4")
    if sd != 8:
        raise LayoutError(f"{KIND}: systolic_depth = {sd} must be 8")
    if tpw < es:
        raise LayoutError(f"{KIND}: threads_per_warp = {tpw} is smaller than execution_size = {es}")
    check_pow2([rc, es, tpw], "repeat_count, execution_size and threads_per_warp", KIND)
    if fp4_k_pack is not None and (fp4_k_pack != 2 or opc != 4):
        raise LayoutError(f"{KIND}: fp4_k_pack = {fp4_k_pack!r} must be 2, with ops_per_chan = 4")
    wpc = as_int_list(warps_per_cta, "warps_per_cta", KIND)
    if len(wpc) not in (2, 3):
        raise LayoutError(f"{KIND}: warps_per_cta = {wpc} must have rank 2 or 3")
    check_pow2(wpc, "warps_per_cta", KIND)
    cluster = as_int_list(rep_cluster, "rep_cluster", KIND)
    check_rank(cluster, "rep_cluster", len(wpc), KIND)
    check_pow2(cluster, "rep_cluster", KIND)
    return rc, sd, es, opc, tpw, wpc, cluster


def _instruction(operand: int, rc: int, sd: int, es: int, opc: int, tpw: int
                 ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(register bases, lane bases) of one instruction's tile of ``operand`` (0 A, 1 B, 2 C) as ``(row, col)``
    vectors of the tile (see the module docstring)."""
    regs: list[tuple[int, int]] = []
    lanes: list[tuple[int, int]] = []
    if operand == 0:
        packed = 2 if opc == 4 else 1  # values per 16-bit pack
        cols = sd * opc // packed  # packed values along a row of K: one per lane
        rows = -(-tpw // cols)  # rows one register of the sub-group holds
        regs += [(0, p) for p in _powers(packed)]
        regs += [(r * rows, 0) for r in _powers(rc // rows)]
        lanes += [(0, packed * c) for c in _powers(cols)]
        lanes += [(r, 0) for r in _powers(tpw // cols)]
    elif operand == 1:
        rows = tpw // es
        regs += [(v, 0) for v in _powers(opc)]
        regs += [(r * opc, 0) for r in _powers(sd // rows, start=rows)]
        lanes += [(0, c) for c in _powers(es)]
        lanes += [(r * opc, 0) for r in _powers(rows)]
    else:
        rows = tpw // es
        regs += [(r, 0) for r in _powers(rc // rows, start=rows)]
        lanes += [(0, c) for c in _powers(es)]
        lanes += [(r, 0) for r in _powers(rows)]
    return regs, lanes


def _powers(n: int, start: int = 1) -> list[int]:
    """``start, 2 start, 4 start, ...`` below ``start * n`` (``n`` rounded down to a power of two; none for
    ``n <= 1``).

    >>> _powers(8), _powers(4, start=2), _powers(1)
    ([1, 2, 4], [2, 4], [])
    """
    out, k = [], 1
    while k * 2 <= n:
        out.append(start * k)
        k *= 2
    return out


def _extent(vectors: Sequence[tuple[int, int]], axis: int) -> int:
    """The out-dim size the bases span along ``axis`` (single-bit bases: twice the largest, or 1)."""
    top = max((v[axis] for v in vectors), default=0)
    return 2 * top if top else 1


def _repetitions(operand: int, shape: Sequence[int], rc: int, sd: int, es: int, opc: int, wpc: Sequence[int],
                 cluster: Sequence[int]) -> list[int]:
    """Intel's ``calculateDPASRepetitions``: how often the warps' tile repeats along each dim of ``shape`` (at
    least once), indexed by dim of the shape."""
    rank = len(shape)
    m, n = rank - 2, rank - 1
    per_warp = [1] * rank
    if operand == 0:
        per_warp[m], per_warp[n] = rc * cluster[m], sd * opc
        spread = (m,)  # the dims the warps split
    elif operand == 1:
        per_warp[m], per_warp[n] = sd * opc, es * cluster[n]
        spread = (n,)
    else:
        per_warp[m], per_warp[n] = rc * cluster[m], es * cluster[n]
        spread = (m, n)
    reps = [max(1, shape[0] // (per_warp[0] * wpc[0]))] if rank == 3 else []
    for d in (m, n):
        reps.append(max(1, shape[d] // (per_warp[d] * (wpc[d] if d in spread else 1))))
    return reps


def _layout(operand: int, shape: Sequence[int], rc: int, sd: int, es: int, opc: int, tpw: int, wpc: list[int],
            cluster: list[int]) -> LinearLayout:
    rank = len(wpc)
    shp = check_shape(shape, rank, KIND)
    m, n = rank - 2, rank - 1
    regs, lanes = _instruction(operand, rc, sd, es, opc, tpw)
    t = Tile(rank)

    def lift(v: tuple[int, int]) -> list[int]:
        full = [0] * rank
        full[m], full[n] = v
        return full

    t.ins["register"] = [lift(v) for v in regs]
    t.ins["lane"] = [lift(v) for v in lanes]
    t.order = [m, n]
    t.sizes[m] = max(_extent(regs, 0), _extent(lanes, 0))
    t.sizes[n] = max(_extent(regs, 1), _extent(lanes, 1))
    t.in_dim("warp")
    if operand == 0:  # A: clustered along M; its K warps hold the same data
        k, non_k = n, m
        t.identity(cluster[m], "register", m)
        t.zeros(wpc[n], "warp", n).identity(wpc[m], "warp", m)
    elif operand == 1:  # B: clustered along N; its K warps hold the same data
        k, non_k = m, n
        t.identity(cluster[n], "register", n)
        t.identity(wpc[n], "warp", n).zeros(wpc[m], "warp", m)
    else:  # C: clustered along N, then M; warps row-major
        k, non_k = n, m
        t.identity(cluster[n], "register", n).identity(cluster[m], "register", m)
        t.identity(wpc[n], "warp", n).identity(wpc[m], "warp", m)
    if rank == 3:
        t.identity(wpc[0], "warp", 0)
    reps = _repetitions(operand, shp, rc, sd, es, opc, wpc, cluster)  # per dim of the shape
    t.identity(reps[k], "register", k).identity(reps[non_k], "register", non_k)
    if rank == 3:
        t.identity(reps[0], "register", 0)
    return combine_with_shape(t, [], shp, KIND)


def intel_dpas(repeat_count: int, systolic_depth: int, execution_size: int, ops_per_chan: int,
               threads_per_warp: int, warps_per_cta: Sequence[int], rep_cluster: Sequence[int],
               shape: Sequence[int], fp4_k_pack: int | None = None, shape_a: object = None, shape_b: object = None,
               shape_c: object = None) -> LinearLayout:
    """The DPAS accumulator layout (C) on ``shape`` (see the module docstring).

    Requires: Intel's verifier's conditions (``repeat_count`` in [1, 8], ``systolic_depth`` 8, ``ops_per_chan`` in
    {1, 2, 4}, ``threads_per_warp >= execution_size``), sizes powers of two, rank 2 or 3.
    Postcondition: registers, lanes, warps and one block onto ``shape``; equal to Intel's
    ``DPAStoLinearLayout(shape, dpas)`` (tests/test_intel_dpas.py replays Intel's unit-test expectations).
    ``shape_a``/``shape_b``/``shape_c``: the printed ``A``, ``B``, ``C`` fields, not read (derived)."""
    rc, sd, es, opc, tpw, wpc, cluster = _params(repeat_count, systolic_depth, execution_size, ops_per_chan,
                                                 threads_per_warp, warps_per_cta, rep_cluster, fp4_k_pack)
    return _layout(2, shape, rc, sd, es, opc, tpw, wpc, cluster)


def dpas_k_width(operand_index: int, ops_per_chan: int) -> int:
    """The ``kWidth`` Intel's ``#ttg.dot_op`` verifier requires of a DPAS operand: A ``ops_per_chan`` when it is 1,
    else half of it (8-bit values are packed in pairs); B ``ops_per_chan``.

    >>> dpas_k_width(0, 2), dpas_k_width(1, 2), dpas_k_width(0, 1)
    (1, 2, 1)
    """
    if operand_index == 0:
        return ops_per_chan if ops_per_chan == 1 else ops_per_chan // 2
    return ops_per_chan


def dpas_dot_operand(operand_index: int, parent: Mapping[str, Any], k_width: int,
                     shape: Sequence[int]) -> LinearLayout:
    """Operand A (``operand_index`` 0) or B (1) of a ``#ttig.dpas`` parent on ``shape``.

    Requires: the parent's conditions (:func:`intel_dpas`); ``k_width`` as Intel's verifier requires
    (:func:`dpas_k_width`); for A, ``repeat_count`` rows of packed values fill the sub-group
    (``repeat_count * packed_per_row >= threads_per_warp``).
    Postcondition: Intel's ``DPAStoLinearLayout(shape, dpas, operand_index)``; ``k_width`` does not enter it."""
    if operand_index not in (0, 1):
        raise LayoutError(f"dot_operand: operand_index = {operand_index!r} must be 0 or 1")
    extra = sorted(set(parent) - _PARENT_PARAMETERS)
    if extra:
        raise LayoutError(f"dot_operand: unknown parameter(s) of the {KIND} parent: {', '.join(extra)}")
    try:
        rc, sd, es, opc, tpw, wpc, cluster = _params(
            parent["repeat_count"], parent["systolic_depth"], parent["execution_size"], parent["ops_per_chan"],
            parent["threads_per_warp"], parent["warps_per_cta"], parent["rep_cluster"], parent.get("fp4_k_pack"))
    except KeyError as exc:
        raise LayoutError(f"dot_operand: the {KIND} parent misses {exc.args[0]}") from None
    want = dpas_k_width(operand_index, opc)
    if k_width != want:
        raise LayoutError(f"dot_operand: kWidth = {k_width} must be {want} for operand {operand_index} of a DPAS "
                          f"parent with ops_per_chan = {opc} (Intel's #ttg.dot_op verifier)")
    if operand_index == 0:
        per_row = sd if opc == 1 else sd * 2
        if rc * per_row < tpw:
            raise LayoutError(f"dot_operand: repeat_count {rc} rows of {per_row} packed values do not fill the "
                              f"{tpw} lanes of operand A (Intel's #ttg.dot_op verifier)")
    return _layout(operand_index, shape, rc, sd, es, opc, tpw, wpc, cluster)


#: what a ``#ttig.dpas`` parent spec may hold: :func:`intel_dpas`'s parameters (``shape`` is the operand's), ``kind``
_PARENT_PARAMETERS = frozenset(inspect.signature(intel_dpas).parameters) - {"shape"} | {"kind"}
