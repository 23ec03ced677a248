"""Chains of ``ttg.convert_layout`` along a value's def-use path, composed, and matched across a pass.

A use of a value (operand ``k`` of a non-convert op ``Q``) is reached from a
*root* (the first definition that is not a conversion: an op result, a block
or function argument) through a chain of conversions ``L0 -> L1 -> ... -> Ln``.
Step ``i`` reads its operand through its printed source layout ``S_i`` and
writes ``D_i``; its plan is ``C_i = D_i⁻¹ S_i`` (seed 000, section 5.2:
``D_i(C_i(x)) = S_i(x)``).  The chain's *composed map* is

    ``M = D_n ∘ C_n ∘ ... ∘ C_1``   (hardware of the root -> logical coordinates)

and the chain moves the data unchanged iff ``M == L0`` as linear maps over F2
(every hardware position of the root delivers its element to a position of
``Q``'s operand holding the same logical coordinate).  This is the obligation
``conversion_chain``, decided by :func:`llverify.prove.properties.equal` (an F2
certificate, a replayed counterexample).  For two snapshots around a pass (one
``MLIR_ENABLE_DUMP`` transition), the same use (``Q`` matched by op name and
Python source location) is reached from a root matched the same way, so a pass
that folds ``A -> B -> C`` into ``A -> C``, or removes a conversion by
rematerialising the producer in the converted layout, is checked by composing
each side's chain: both compose to their root's layout, and where the root's
layout did not change the two composed maps are F2-equal, i.e. the pass's
direct conversion equals the chain it replaced.

Example: ``%1 = convert %0 : #A -> #B``, ``%2 = convert %1 : #B -> #C``,
``tt.store %p, %2`` is one chain of the store's operand 1, composed map
``C ∘ C⁻¹B ∘ B⁻¹A = A``.  Had the second step been printed ``#B' -> #C``
(reading ``%1`` as if it were laid out by ``#B'``), the composed map is
``B' ∘ B⁻¹ ∘ A``, which differs from ``A`` at some hardware position: refuted
there.

>>> from llverify.ttgir.reader import parse_module
>>> A = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"
>>> B = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>"
>>> def module(second_source):
...     return parse_module(f'''module attributes {{"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"}} {{
...   tt.func @k(%x: tensor<32x32xf32, {A}> loc("k.py":1:0)) {{
...     %y = ttg.convert_layout %x : tensor<32x32xf32, {A}> -> tensor<32x32xf32, {B}> loc("k.py":2:0)
...     %z = ttg.convert_layout %y : tensor<32x32xf32, {second_source}> -> tensor<32x32xf32, {A}> loc("k.py":3:0)
...     tt.return %z : tensor<32x32xf32, {A}> loc("k.py":4:0)
...   }} loc("k.py":1:0)
... }} loc("k.py":1:0)''')
>>> (use,) = uses(module(B).functions[0])
>>> use.chain.root, len(use.chain.steps), compose_chain(use.chain).status
('arg#0', 2, 'proved')
>>> compose_chain(uses(module(A).functions[0])[0].chain).status
'refuted'
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

from llverify.layout import LayoutError, LinearLayout
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.layouts import BuiltLayout, layout_of
from llverify.ttgir.model import Function, Module, Op, Region, TypeRef
from llverify.ttgir.rule_support import memo_equal

__all__ = ["Chain", "Use", "uses", "compose_chain", "op_key", "same_root", "function_pairs", "root_index", "is_pure"]

CONVERT = "ttg.convert_layout"


def op_key(op: Op) -> str | None:
    """``name@file:line:col`` of the op's Python source, or None without one."""
    return None if op.source is None else f"{op.name}@{op.source}"


def _root_key(op: Op) -> str | None:
    """A root is named by its Python source location alone: a pass may change the op computing a value
    (``tt.dot`` becomes ``ttng.warp_group_dot`` at the same location) without changing the value."""
    return None if op.source is None else f"{op.source}"


@dataclass(frozen=True)
class Chain:
    """The conversions from ``root`` to a use, root first.  ``root``: ``"op-key#result"``,
    ``"arg#i"`` (function argument), ``"block(owner-loc)#r.i"`` (argument ``i`` of region ``r``'s entry block),
    or None when the root cannot be named by location.  ``root_type``: its type as defined."""

    root: str | None
    root_type: TypeRef | None
    steps: tuple[Op, ...]
    root_op: Op | None = None
    root_operands: tuple[str | None, ...] = ()  # the roots of the root op's own operands


@dataclass(frozen=True)
class Use:
    """Operand ``operand`` of ``op`` (a non-conversion op), reached through ``chain``."""

    op: Op
    operand: int
    chain: Chain

    @property
    def key(self) -> str | None:
        k = op_key(self.op)
        return None if k is None else f"{k}[{self.operand}]"


#: one definition: (root name, type, defining op or None for arguments)
Def = tuple[str | None, TypeRef | None, Op | None]


@dataclass(frozen=True)
class Scopes:
    """The definitions of one function resolved as MLIR scopes them: ``operands[id(op)]`` is, for each operand
    of ``op``, the definition visible where ``op`` stands (textual order; a name defined in a region is visible
    in it and its nested regions only, so sibling regions may reuse a name, as Triton's named values do:
    ``%s`` in both branches of an ``scf.if``); ``every`` lists every definition once."""

    operands: dict[int, tuple[Def | None, ...]]
    every: tuple[Def, ...]


def _scopes(fn: Function) -> Scopes:
    """:class:`Scopes` of ``fn``: one walk in textual order, the visible names saved on entering a region and
    restored on leaving it.

    Postcondition: an operand resolves to the latest definition of its name that is visible at the op."""
    operands: dict[int, tuple[Def | None, ...]] = {}
    every: list[Def] = []
    visible: dict[str, Def] = {}
    for i, a in enumerate(fn.arguments):
        d: Def = (f"arg#{i}", a.type, None)
        visible[a.name] = d
        every.append(d)

    def walk(region: Region, owner: Op | None, r: int) -> None:
        for bi, block in enumerate(region.blocks):
            if owner is not None:
                k = _root_key(owner)
                for i, a in enumerate(block.arguments):
                    d = (None if k is None or bi else f"block({k})#{r}.{i}", a.type, None)
                    visible[a.name] = d
                    every.append(d)
            for op in block.ops:
                operands[id(op)] = tuple(visible.get(n) for n in op.operands)
                for ri, sub in enumerate(op.regions):
                    saved = dict(visible)
                    walk(sub, op, ri)
                    visible.clear()
                    visible.update(saved)
                k = _root_key(op)
                for j, res in enumerate(op.results):
                    d = (None if k is None else f"{k}#{j}", res.type, op)
                    visible[res.name] = d
                    every.append(d)

    walk(fn.body, None, 0)
    return Scopes(operands, tuple(every))


def _ops(region: Region) -> Iterator[Op]:
    stack = [region]
    while stack:
        reg = stack.pop()
        for block in reg.blocks:
            for op in block.ops:
                yield op
                stack.extend(op.regions)


def uses(fn: Function, every: bool = False) -> list[Use]:
    """Every operand of every non-conversion op of ``fn`` whose value comes through a conversion, with its
    chain (``every``: also the operands with an empty chain).  Names resolve as MLIR scopes them
    (:func:`_scopes`).  A cycle of conversions, impossible in SSA, stops the walk."""
    sc = _scopes(fn)
    out = []
    for op in _ops(fn.body):
        if op.name == CONVERT:
            continue
        for k, d in enumerate(sc.operands.get(id(op), ())):
            steps: list[Op] = []
            cur = d
            while len(steps) <= 64:
                if cur is None or cur[2] is None or cur[2].name != CONVERT or not cur[2].operands:
                    break
                steps.append(cur[2])
                cur = sc.operands[id(cur[2])][0]
            if not steps and not every:
                continue
            root, rtype, rop = cur if cur is not None else (None, None, None)
            inner = tuple(_trace(sc, o) for o in sc.operands[id(rop)]) if rop is not None else ()
            out.append(Use(op, k, Chain(root, rtype, tuple(reversed(steps)), rop, inner)))
    return out


def _trace(sc: Scopes, d: Def | None) -> str | None:
    """The root of a definition, through conversions."""
    for _ in range(65):
        if d is None:
            return None
        if d[2] is None or d[2].name != CONVERT or not d[2].operands:
            return d[0]
        d = sc.operands[id(d[2])][0]
    return None


#: ops that compute their results from their operands and attributes alone (no memory, no regions): two
#: such ops with equal names, attributes, result types and operand values compute equal values
PURE_PREFIXES = ("arith.", "math.")
PURE_OPS = frozenset({"tt.make_range", "tt.splat", "tt.expand_dims", "tt.broadcast", "tt.addptr", "tt.trans",
                      "tt.reshape", "tt.join", "tt.split", "tt.cat", "tt.get_program_id", "tt.get_num_programs"})


def is_pure(op: Op) -> bool:
    return not op.regions and (op.name in PURE_OPS or op.name.startswith(PURE_PREFIXES))


@dataclass(frozen=True)
class RootIndex:
    """The located roots of one function: ``unique`` maps a root (``"file:line:col#j"``) that exactly one op
    result carries to that op and its operands' roots; ``names`` maps every root to the op names there, each
    with the number of ops of that name carrying it."""

    unique: dict
    names: dict


def root_index(fn: Function) -> RootIndex:
    """:class:`RootIndex` of ``fn`` (conversions are never roots)."""
    sc = _scopes(fn)
    out: dict[str, tuple[Op, tuple[str | None, ...]] | None] = {}
    names: dict[str, dict[str, int]] = {}
    for root, _t, op in sc.every:
        if root is None or op is None or op.name == CONVERT:
            continue
        entry = (op, tuple(_trace(sc, o) for o in sc.operands[id(op)]))
        out[root] = None if root in out else entry
        at = names.setdefault(root, {})
        at[op.name] = at.get(op.name, 0) + 1
    return RootIndex({k: v for k, v in out.items() if v is not None}, names)


def same_root(before: Chain, after: Chain, index: RootIndex | None = None) -> str | None:
    """How two chains are known to start at the same value, or None.

    ``"location"``: the same source location and result, and the same op name (or, given ``index``, the
    before snapshot's roots, an op name new at that location: ``tt.dot`` became ``ttng.warp_group_dot``);
    where several ops of that name shared that location before the pass, also a pure op with the same
    attributes and operand roots.
    ``"folded"``: a conversion folded into its producer (Triton's ``convert(make_range)`` canonicalisation)
    created a clone of the old root at the location of one of the old chain's conversions (in the
    conversion's layout).  ``"cse"``: the new root already existed before the pass as an op identical to the
    old root.  Clones and CSE are accepted only for pure ops (:func:`is_pure`) with equal names, attributes,
    result types and operand roots."""
    b, a = before.root_op, after.root_op
    if before.root is not None and before.root == after.root:
        if b is None or a is None:
            return "location"  # a function or block argument, by position
        shared = index is not None and index.names.get(before.root, {}).get(b.name, 0) > 1
        if a.name == b.name and (not shared or (is_pure(a) and dict(a.attributes) == dict(b.attributes)
                                                and a_roots_equal(before, after))):
            return "location"
        if a.name != b.name and index is not None and a.name not in index.names.get(after.root, {}):
            return "location"
    if b is None or a is None or after.root is None or before.root is None or not is_pure(b):
        return None
    if any(c.source == a.source for c in before.steps) and _identical(b, before.root_operands, a,
                                                                      after.root_operands, before.root, after.root,
                                                                      same_layout=False):
        return "folded"
    twin = index.unique.get(after.root) if index is not None else None
    if twin is not None and _identical(b, before.root_operands, twin[0], twin[1], before.root, after.root):
        return "cse"
    return None


def a_roots_equal(before: Chain, after: Chain) -> bool:
    """The two roots' own operands come from the same roots (all located)."""
    return None not in after.root_operands and before.root_operands == after.root_operands


def _identical(b: Op, b_roots: tuple, a: Op, a_roots: tuple, b_root: str, a_root: str,
               same_layout: bool = True) -> bool:
    j = b_root.rsplit("#", 1)[1]
    if a_root.rsplit("#", 1)[1] != j or a.name != b.name or dict(a.attributes) != dict(b.attributes):
        return False
    if None in a_roots or a_roots != b_roots or len(a.results) != len(b.results):
        return False
    ta, tb = a.results[int(j)].type, b.results[int(j)].type
    if (ta.shape, ta.element) != (tb.shape, tb.element):
        return False
    return not same_layout or (ta.encoding == tb.encoding and ta.encoding is not None)


def _built(t: TypeRef | None) -> LinearLayout | str:
    if t is None:
        return "type not read"
    b = layout_of(t)
    return b.layout if isinstance(b, BuiltLayout) else b.reason


def _step_types(cvt: Op) -> tuple[TypeRef | None, TypeRef | None]:
    src = cvt.printed_operand_types[0] if cvt.printed_operand_types else (
        cvt.operand_types[0] if cvt.operand_types else None)
    return src, (cvt.results[0].type if cvt.results else None)


def _identity(L: LinearLayout) -> LinearLayout:
    out = LinearLayout.empty()
    for d, n in L.in_dims.items():
        out = out * LinearLayout.identity_1d(n, d, d)
    return out


def compose_chain(chain: Chain) -> Verdict:
    """``conversion_chain`` for one chain: its composed map equals its root's layout (module docstring)."""
    t0 = time.perf_counter()
    subject = f"{len(chain.steps)} conversion(s) from {chain.root_type.text if chain.root_type else '?'}"
    L0 = _built(chain.root_type)
    if isinstance(L0, str):
        return Verdict("unknown", "conversion_chain", subject, None, time.perf_counter() - t0,
                       f"the root's layout is not built: {L0}")
    steps = []
    for i, cvt in enumerate(chain.steps):
        S, D = (_built(t) for t in _step_types(cvt))
        if isinstance(S, str) or isinstance(D, str):
            return Verdict("unknown", "conversion_chain", subject, None, time.perf_counter() - t0,
                           f"conversion {i}: a layout is not built: {S if isinstance(S, str) else D}")
        steps.append((S, D))
    return _compose(L0, tuple(steps)).with_(subject=subject)


@lru_cache(maxsize=4096)
def _compose(L0: LinearLayout, steps: tuple[tuple[LinearLayout, LinearLayout], ...]) -> Verdict:
    t0 = time.perf_counter()
    H = _identity(L0)
    prev = L0
    for i, (S, D) in enumerate(steps):
        if dict(S.in_dims) != dict(prev.in_dims) or dict(S.out_dims) != dict(prev.out_dims):
            return Verdict("refuted", "conversion_chain", "", "exhaustive", time.perf_counter() - t0,
                           f"conversion {i} reads its operand with hardware or tensor sizes that are not those of "
                           "the value it is given",
                           Counterexample({"conversion": i},
                                          {"value": f"{dict(prev.in_dims)} -> {dict(prev.out_dims)}",
                                           "read as": f"{dict(S.in_dims)} -> {dict(S.out_dims)}"},
                                          "sizes read from the two types"))
        try:
            C = S.invert_and_compose(D)  # D(C(x)) == S(x)
            H = H.compose(C.transpose_ins(list(H.out_dim_names)))
        except LayoutError as exc:
            return Verdict("unknown", "conversion_chain", "", None, time.perf_counter() - t0,
                           f"conversion {i}: no conversion plan: {exc}")
        prev = D
    M = H.compose(prev.transpose_ins(list(H.out_dim_names)))
    v = memo_equal(M, L0)
    msg = {"proved": f"the {len(steps)} conversion(s) compose to the root's layout: every element reaches the use "
                     "at its own coordinate",
           "refuted": "the conversions do not compose to the root's layout: an element reaches the use at another "
                      "coordinate"}.get(v.status, v.message)
    return v.with_(property="conversion_chain", message=msg, seconds=time.perf_counter() - t0)


def function_pairs(before: Module, after: Module) -> Iterator[tuple[Function, Function]]:
    """Functions of the two snapshots matched by name."""
    b = {f.name: f for f in before.functions}
    for fa in after.functions:
        if fa.name in b:
            yield b[fa.name], fa
