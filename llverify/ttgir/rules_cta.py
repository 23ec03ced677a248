"""The ``cta_local`` rule: in a cluster (``ttg.num-ctas`` > 1) a CTA touches only its own shared memory.

``ttg.local_alloc`` / ``local_store`` / ``async_copy_global_to_local`` write, and ``ttg.local_load`` reads, CTA ``b``'s copy of a buffer with
CTA ``b``'s threads (``st/ld.shared``; no distributed shared memory): a store must hold in CTA ``b``'s registers
every element CTA ``b``'s copy keeps, a load must find in CTA ``b``'s copy every element its registers receive.
``ttng.warp_group_dot`` (wgmma) reads its operands from CTA ``b``'s shared memory (or registers) for the
accumulator elements CTA ``b`` holds: every row ``m`` of those (every ``k``) must be in CTA ``b``'s A, every column
``n`` in CTA ``b``'s B.  Each is :func:`llverify.prove.cta_locality.cta_local` of the two layouts, whose
``block`` in dim is the ``CGALayout``.  A module whose layouts all keep one CTA has no finding.

Not claimed: ``ttng.tc_gen5_mma`` (its tensor-memory accumulator carries its CTA split in the encoding only, and a
two-CTA MMA reads the peer CTA's B), TMA copies (a multicast writes several CTAs), accesses to a window of a buffer
(a subview).  ``ttg.async_copy_global_to_local`` is a store of the pointer tensor's layout.

``tt.scan`` needs each CTA to hold whole lines along its axis (Triton 3.9 lowers no other scan: 'TODO: unsupported
scan layout'), and on AMD so do ``tt.reduce`` and ``ttg.convert_layout`` (every element a CTA holds after the
conversion it held before); NVIDIA combines CTAs for those through distributed shared memory (no claim).

Target: on NVIDIA (sm_90 clusters) Triton 3.9 lowers a ``local_load`` that needs the other CTAs' copies, and a
store into a buffer that keeps each element in one CTA, through distributed shared memory (``mapa``,
``ld/st.shared::cluster``; compiled and read in ``tests/test_ttgir_cta_local.py``): ``unknown`` there (valid, its
cost not modelled).  A store into a buffer several CTAs keep whole writes only the CTA's own copy, cp.async and
wgmma never reach another CTA, and on AMD nothing does ("AMDGPU does not support cross-CTA shared memory
transfers"): refuted.

A store that leaves part of CTA ``b``'s copy of a buffer unwritten is refuted only where that part may be read:
when every use of the buffer is a store of the same layout, a ``local_load`` or a dealloc, and every load reads
back in each CTA only what that CTA wrote, it is proved (the unwritten element kept in the details); a load that
reads an unwritten element refutes it with that load's witness, and so does an MMA or TMA store reading the copy; a
use that may write the rest (a TMA copy), or a buffer passed in as an argument, leaves it ``unknown``
(:func:`_partial_copy`; the buffer is followed through ``memdesc_index`` slots).

Example: a ``64x128`` f16 tensor split over 2 CTAs along N (``CGALayout = [[0, 1]]``) stored into a buffer every
CTA keeps whole (``CGALayout = [[0, 0]]``), then loaded whole by every CTA: refuted, CTA 1 keeps column 0,
which only CTA 0's registers hold, and CTA 1's load reads it."""

from __future__ import annotations

from typing import Iterable

from llverify.layout import LinearLayout
from llverify.prove.cta_locality import cta_local
from llverify.prove.verdict import Verdict
from llverify.ttgir.layouts import BuiltLayout
from llverify.ttgir.memory_ops import SHARED_ACCESS_OPS, tensor_and_buffer
from llverify.ttgir.model import Op, TypeRef
from llverify.ttgir.rules_async_copy import ASYNC_COPY_OPS
from llverify.ttgir.rule_support import OpContext, enc_text, memoised, op_names, unknown

__all__ = ["CTA_LOCAL_OPS", "LOWERED_STAGES", "access_cta_local", "conversion_crosses_ctas", "crosses_ctas", "cta_locality", "mma_operand_needs"]

#: reductions and scans, whose axis a CTA must hold whole
AXIS_OPS = ("tt.reduce", "tt.scan")
#: the ops whose data must stay inside each CTA (per target: see the module docstring)
CTA_LOCAL_OPS = (*SHARED_ACCESS_OPS, *ASYNC_COPY_OPS, "ttng.warp_group_dot", "ttg.convert_layout", *AXIS_OPS)

_PROP = "cta_local"


def _ctas(layout: LinearLayout) -> int:
    return layout.in_dim_size("block") if layout.has_in_dim("block") else 1


#: the MLIR_ENABLE_DUMP snapshots Triton lowers to LLVM (printed just before these passes); every other snapshot
#: of a dump is an intermediate state, where data may still cross CTAs until a later pass removes it
LOWERED_STAGES = ("ConvertTritonGPUToLLVM", "ConvertTritonAMDGPUToLLVM")


def cta_locality(ctx: OpContext) -> Iterable[Verdict]:
    """The rule's verdicts for one op (see the module docstring): claimed on a module Triton lowers (a final TTGIR,
    or a dump's snapshot just before its LLVM lowering), not on a dump's intermediate snapshots; a valid gfx1250
    2-CTA kernel's early snapshots convert across CTAs and RemoveLayoutConversions removes them."""
    if ctx.module.stage and ctx.module.stage not in LOWERED_STAGES:
        return
    op = ctx.op
    if op.name == "ttng.warp_group_dot":
        yield from _mma(ctx)
        return
    if op.name in AXIS_OPS:
        yield from _axis_op(ctx)
        return
    if op.name == "ttg.convert_layout":
        yield from _conversion(ctx)
        return
    moved = _async_copy(op) if op.name in ASYNC_COPY_OPS else tensor_and_buffer(op, SHARED_ACCESS_OPS)
    if moved is None:
        return
    reg, mem, direction = moved
    R, M = ctx.built(reg), ctx.built(mem)
    if not isinstance(R, BuiltLayout) or not isinstance(M, BuiltLayout):
        return  # the layout rule reports why it does not build
    if _ctas(R.layout) == 1 and _ctas(M.layout) == 1:
        return
    subject = f"{op_names(op)} ({direction}, per CTA): {enc_text(reg)} <-> {enc_text(mem)}"
    if tuple(reg.shape) != tuple(M.shape) or dict(R.layout.out_dims) != dict(M.layout.out_dims):
        yield unknown(_PROP, subject, f"an access of shape {list(reg.shape)} to a buffer of shape {list(M.shape)} (a "
                                      f"window): which CTA keeps each element of the window is not modelled")
        return
    v = access_cta_local(R.layout, M.layout, direction)
    if v.status == "refuted" and _reaches_other_ctas(ctx, op, direction, M.layout):
        yield unknown(_PROP, subject, f"{v.message}; Triton 3.9 lowers this {direction} through distributed shared "
                                      f"memory (mapa, {'ld' if direction == 'load' else 'st'}.shared::cluster), whose "
                                      f"cost is not modelled")
        return
    if v.status == "refuted" and op.name in _STORES_FROM_REGISTERS:
        v = _partial_copy(ctx, op, R.layout, v)
    yield v.with_(subject=subject)


#: stores whose partial write of a CTA's copy is harmless when nothing reads the rest (cp.async into a buffer
#: the CTAs keep whole is not lowered at all: Triton fails to legalize it)
_STORES_FROM_REGISTERS = ("ttg.local_alloc", "ttg.local_store")
#: ops that use a buffer without reading or writing its elements
_INERT_USES = ("ttg.local_dealloc", "ttng.wait_barrier", "ttng.warp_group_dot_wait", "ttg.async_wait")
#: ops that read a buffer's elements (never write them) in a way :func:`_partial_copy` does not bound
#: (a view such as memdesc_trans is not one: what its users read is not followed, so it leaves the verdict unknown)
_READING_USES = ("ttng.warp_group_dot", "ttng.tc_gen5_mma", "ttng.tc_gen5_mma_scaled",
                 "ttng.async_tma_copy_local_to_global", "ttng.async_tma_reduce")


def _partial_copy(ctx: OpContext, op: Op, R: LinearLayout, v: Verdict) -> Verdict:
    """A store ``v`` refuted because it leaves part of CTA ``b``'s copy of the buffer unwritten (Triton writes only
    the CTA's own copy).  That is harmless when nothing reads the unwritten part.  The buffer is followed from its
    ``local_alloc`` (defined once in this function) through ``ttg.memdesc_index`` views (a pipeline's slots); then

    - every use a ``local_alloc`` / ``local_store`` from registers of one layout ``W`` (the writers), a
      ``local_load`` (a reader) or one that touches no element (a dealloc, a barrier wait), and every reader's layout
      (if any) CTA-local to ``W`` (:func:`cta_local`: each element CTA ``b``'s load receives was written by CTA
      ``b``): proved,
      the unwritten element kept in the details; a reader that needs an unwritten element refutes the store with
      that reader's witness;
    - a use that reads the whole copy (an MMA's shared operand, a TMA store; :data:`_READING_USES`): ``v`` stands (an
      H200 run of such a 2-CTA wgmma gets the unwritten half's columns wrong: tests/data/ttgir_cta/partial_copy/);
    - a buffer that is not a ``local_alloc`` here (a function or block argument), or any other use (it may write the
      rest: a TMA copy into it; a loop-carried view): ``unknown``.

    Example (Triton's membar-cluster lit test): a ``256`` tensor split over 2 CTAs stored into a buffer both CTAs
    keep whole, then loaded in the same split layout: each CTA reads back only the half it wrote (proved)."""
    name = op.results[0].name if op.name == "ttg.local_alloc" else (op.operands[1] if len(op.operands) > 1 else "")
    if not name:
        return v
    ops = _function_ops(ctx)
    defs: dict[str, list[Op]] = {}
    for _, other, _ in ops:
        for r in other.results:
            defs.setdefault(r.name, []).append(other)
    root = name
    while len(defs.get(root, ())) == 1 and defs[root][0].name == "ttg.memdesc_index" and defs[root][0].operands:
        root = defs[root][0].operands[0]
    found = defs.get(root, [])
    if len(found) != 1 or found[0].name != "ttg.local_alloc":
        made = ("an argument" if not found else "defined more than once" if len(found) > 1 else
                f"made by {found[0].name}")
        return unknown(_PROP, v.subject, f"{v.message}; the buffer is {made} here: whether the unwritten part is "
                                         f"read is not modelled")
    names = {root}
    writers: list[Op] = [found[0]] if found[0].operands else []
    readers: list[Op] = []
    for _, other, _ in ops:
        used = [u for u in other.operands if u in names]
        if not used:
            continue
        if other.name == "ttg.memdesc_index" and other.operands[0] in names and other.results:
            view = other.results[0].name
            if len(defs.get(view, ())) != 1:
                return unknown(_PROP, v.subject, f"{v.message}; a view of the buffer is named twice: not modelled")
            names.add(view)
        elif other.name == "ttg.local_store" and other.operands[1:2] == (used[0],) and other.operands[0] not in names:
            writers.append(other)
        elif other.name == "ttg.local_load" and other.operands[0] in names and other.results:
            readers.append(other)
        elif other.name in _READING_USES:
            if "two_ctas" in other.attributes:  # a two-CTA MMA reads B from both CTAs of the pair
                where = other.location
                return unknown(_PROP, v.subject, f"{v.message}; the two-CTA {other.name} at {where.line}:{where.col} "
                                                 f"reads operands from both CTAs: which copy it reads is not modelled")
            return v
        elif other.name not in _INERT_USES:
            where = other.location
            return unknown(_PROP, v.subject, f"{v.message}; {other.name} at {where.line}:{where.col} also uses this "
                                             f"buffer (it may write the rest of the copy): not modelled")
    written = [ctx.built(w.operand_types[0]) for w in writers]
    if not written or any(not isinstance(w, BuiltLayout) for w in written) or any(
            w.layout != written[0].layout for w in written[1:]):
        return unknown(_PROP, v.subject, f"{v.message}; the buffer's stores have different layouts: not modelled")
    W = written[0].layout
    for reader in readers:
        got = ctx.built(reader.results[0].type)
        if not isinstance(got, BuiltLayout) or dict(got.layout.out_dims) != dict(W.out_dims):
            return unknown(_PROP, v.subject, f"{v.message}; a load of another shape: not modelled")
        r = decided_cta_local(W, got.layout)
        if r.status != "proved":
            if r.status != "refuted":
                return unknown(_PROP, v.subject, f"{v.message}; a load of it was not decided: {r.message}")
            where = reader.location
            return r.with_(message=f"the store leaves part of each CTA's copy of the buffer unwritten, and the "
                                   f"local_load at {where.line}:{where.col} reads it: {r.message}")
    read = (f"every local_load of this buffer ({len(readers)}) reads in each CTA only elements that CTA wrote"
            if readers else "nothing reads this buffer")
    return Verdict("proved", _PROP, v.subject, "f2", v.seconds,
                   f"{read} (the store leaves the rest of the CTA's copy unwritten: {v.message})",
                   details={"unwritten": v.counterexample.to_json() if v.counterexample is not None else None})


def _function_ops(ctx: OpContext) -> list[tuple]:
    """Every op of the context's function (pre-order), walked once per module and function."""
    key = "#ops:" + ctx.function.name
    ops = ctx.value_sets.get(key)
    if ops is None:
        ops = ctx.value_sets[key] = [t for t in ctx.module.walk() if t[0] is ctx.function]
    return ops


def _reaches_other_ctas(ctx: OpContext, op: Op, direction: str, M: LinearLayout) -> bool:
    """Whether Triton 3.9 lowers this access with distributed shared memory (so reaching another CTA's copy is
    valid): NVIDIA loads, and NVIDIA stores into a buffer that keeps each element in one CTA only (``M``
    injective).  Into a buffer several CTAs keep whole it writes only its own copy, and cp.async has no cluster
    form (Triton fails to legalize it); AMD has none at all (its lowering aborts).  Each case compiled and read in
    ``tests/test_ttgir_cta_local.py``."""
    if not (ctx.module.target or "").startswith("cuda:") or op.name in ASYNC_COPY_OPS:
        return False
    return direction == "load" or M.is_injective()


def access_cta_local(R: LinearLayout, M: LinearLayout, direction: str) -> Verdict:
    """:func:`cta_local` of an access (``direction``) of the register layout ``R`` to the buffer layout ``M`` (same
    shape): a store supplies from the registers what the buffer keeps, a load from the buffer what the registers
    receive."""
    return decided_cta_local(R, M) if direction == "store" else decided_cta_local(M, R)


def crosses_ctas(R: LinearLayout, M: LinearLayout, direction: str) -> bool:
    """Whether an access (``direction``) of the register layout ``R`` to the buffer layout ``M`` of the same shape
    needs another CTA's shared memory (:func:`access_cta_local` refuted); False when both keep one CTA."""
    if _ctas(R) == 1 and _ctas(M) == 1 or dict(R.out_dims) != dict(M.out_dims):
        return False
    return access_cta_local(R, M, direction).status == "refuted"


def conversion_crosses_ctas(A: LinearLayout, B: LinearLayout) -> bool:
    """Whether a conversion from ``A`` to ``B`` gives some CTA an element it did not hold (:func:`cta_local` of
    ``A`` supplying ``B`` refuted): the one definition of a conversion between CTAs, read by the conversion rule's
    cost and by this rule."""
    if _ctas(A) == 1 and _ctas(B) == 1:
        return False
    return decided_cta_local(A, B).status == "refuted"


def _amd(ctx: OpContext) -> bool:
    return (ctx.module.target or "").startswith("hip:")


#: Triton 3.9's AMD backend moves no data between CTAs (its abort, read in tests/test_ttgir_cta_local.py)
_AMD_ABORT = "Triton 3.9's AMD lowering aborts: 'AMDGPU does not support cross-CTA shared memory transfers'"


def _conversion(ctx: OpContext) -> Iterable[Verdict]:
    """``ttg.convert_layout`` in a cluster: every element CTA ``b`` holds after it, CTA ``b`` held before.  Claimed on
    AMD only (refuted there when it fails: Triton aborts); on NVIDIA a conversion between CTAs is lowered through
    distributed shared memory (the conversion rule flags it), so there is no claim."""
    op = ctx.op
    if not _amd(ctx) or not op.operand_types or not op.results:
        return
    src, dst = op.operand_types[0], op.results[0].type
    A, B = ctx.built(src), ctx.built(dst)
    if not isinstance(A, BuiltLayout) or not isinstance(B, BuiltLayout) or max(_ctas(A.layout), _ctas(B.layout)) == 1:
        return
    subject = f"{op_names(op)} (per CTA): {enc_text(src)} -> {enc_text(dst)}"
    v = decided_cta_local(A.layout, B.layout)
    if v.status == "refuted":
        v = v.with_(message=f"{v.message}; {_AMD_ABORT}")
    yield v.with_(subject=subject)


def _axis_op(ctx: OpContext) -> Iterable[Verdict]:
    """``tt.reduce`` / ``tt.scan`` in a cluster: each CTA holds whole lines along the axis, i.e. every CTA needs every
    element on the lines through the elements it holds (:func:`whole_lines`), decided by :func:`cta_local`.  A scan
    along a split axis is refuted on every target (Triton 3.9: 'TODO: unsupported scan layout'); a reduction on AMD
    (Triton aborts), while NVIDIA combines the CTAs' partial results through distributed shared memory (no claim)."""
    op = ctx.op
    axis = op.attr_int("axis")
    if axis is None or not op.operand_types or (op.name == "tt.reduce" and not _amd(ctx)):
        return
    t = op.operand_types[0]
    L = ctx.built(t)
    if not isinstance(L, BuiltLayout) or _ctas(L.layout) == 1 or not 0 <= axis < len(L.layout.out_dim_names):
        return
    subject = f"{op_names(op)} axis={axis} (per CTA): {enc_text(t)}"
    v = decided_cta_local(L.layout, whole_lines(L.layout, axis))
    if v.status == "refuted":
        why = "Triton 3.9 cannot lower it ('TODO: unsupported scan layout')" if op.name == "tt.scan" else _AMD_ABORT
        v = v.with_(message=f"the axis is split over the CTAs: {v.message}; {why}")
    yield v.with_(subject=subject)


def whole_lines(L: LinearLayout, axis: int) -> LinearLayout:
    """``L`` with one more in dim, ``axis``, whose bases walk out dim ``axis``: CTA ``b`` of the result holds every
    element on the lines (along ``axis``) through the elements CTA ``b`` holds in ``L``.

    >>> L = LinearLayout({"register": [(1, 0)], "block": [(0, 1)]}, [("dim0", 2), ("dim1", 2)])
    >>> dict(whole_lines(L, 1).bases)["axis"]
    ((0, 1),)"""
    walk = _walk(len(L.out_dim_names), axis, L.out_dim_size(L.out_dim_names[axis]))
    return LinearLayout({**{d: list(bs) for d, bs in L.bases.items()}, "axis": walk}, list(L.out_dims.items()),
                        require_surjective=False)


def _async_copy(op: Op) -> tuple[TypeRef, TypeRef, str] | None:
    """``ttg.async_copy_global_to_local %ptrs, %buf``: each thread writes the elements its pointers address into the
    buffer at their coordinates, a store of the pointer tensor's layout."""
    ptrs, buf = (op.operand_types + (None, None))[:2]
    if ptrs is None or buf is None or ptrs.kind != "tensor" or not ptrs.has_layout or buf.kind != "memdesc":
        return None
    return ptrs, buf, "store"


def _mma(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    if len(op.operand_types) < 3:
        return
    a, b, acc = op.operand_types[:3]
    built = [ctx.built(t) for t in (a, b, acc)]
    if not all(isinstance(x, BuiltLayout) for x in built):
        return
    A, B, C = (x.layout for x in built)  # type: ignore[union-attr]
    if max(_ctas(A), _ctas(B), _ctas(C)) == 1:
        return
    for name, operand, t in (("A", A, a), ("B", B, b)):
        subject = f"{op_names(op)} (operand {name} per CTA): {enc_text(t)} for {enc_text(acc)}"
        need = mma_operand_needs(C, operand, name)
        if isinstance(need, str):
            yield unknown(_PROP, subject, need)
            continue
        yield decided_cta_local(operand, need).with_(subject=subject)


def mma_operand_needs(acc: LinearLayout, operand: LinearLayout, which: str) -> LinearLayout | str:
    """What the accumulator layout ``acc`` (``[m, n]``) needs of operand ``which`` (``"A"``: ``[m, k]``, ``"B"``:
    ``[k, n]``): ``acc``'s in dims with each basis projected to the operand's kept coordinate (``m`` for A, ``n`` for
    B; ``k`` = 0), plus an in dim ``k`` whose bases walk every ``k``.  A string says why not (rank other than 2,
    sizes that disagree).

    Postcondition: the CTA ``b`` of the result holds ``{(m, k) : m a row of acc's CTA b, every k}`` for A.

    Example: ``acc`` 2x2 with ``register: [[1, 0]], block: [[0, 1]]`` (CTA b holds column b) needs of a 2x4 B
    ``register: [[0, 0]], block: [[0, 1]], k: [[1, 0], [2, 0]]`` (every k of column b)."""
    names, sizes = list(acc.out_dim_names), [acc.out_dim_size(d) for d in acc.out_dim_names]
    onames = list(operand.out_dim_names)
    if len(names) != 2 or len(onames) != 2:
        return f"an MMA of rank {len(names)} (operand rank {len(onames)}): only rank 2 is modelled"
    osizes = [operand.out_dim_size(d) for d in onames]
    keep = 0 if which == "A" else 1  # the accumulator coordinate the operand shares: m (A) or n (B)
    k_at = 1 if which == "A" else 0  # where k sits in the operand
    if sizes[keep] != osizes[keep]:
        return f"the accumulator is {sizes} and operand {which} {osizes}: their shared dim differs"

    def project(basis: tuple[int, ...]) -> tuple[int, ...]:
        out = [0, 0]
        out[keep] = basis[keep]
        return tuple(out)

    bases = {d: [project(tuple(bs)) for bs in acc.bases[d]] for d in acc.in_dim_names}
    bases["k"] = _walk(2, k_at, osizes[k_at])
    return LinearLayout(bases, list(zip(onames, osizes)), require_surjective=False)


def _walk(rank: int, axis: int, size: int) -> list[tuple[int, ...]]:
    """The unit steps along out dim ``axis`` (of ``size``) of a rank-``rank`` tensor: one basis per bit."""
    return [tuple((1 << j) if i == axis else 0 for i in range(rank)) for j in range(size.bit_length() - 1)]


@memoised()
def decided_cta_local(supply: LinearLayout, need: LinearLayout) -> Verdict:
    """:func:`~llverify.prove.cta_locality.cta_local` once per layout pair."""
    return cta_local(supply, need, subject="per CTA", prop=_PROP)
