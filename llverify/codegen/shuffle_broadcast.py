"""Warp-shuffle conversions when the source or destination broadcasts (seed 000, section 5.4, generalised).

:func:`llverify.codegen.shuffle.shuffle_plan` builds the section-5.4 plan when
A and B are injective on (register, lane).  Here A (source) and B
(destination) may hold copies: zero or repeated lane columns, zero or
repeated register columns, and warp (block) bases that differ between A and
B while every element a warp needs is still held, as a copy, by the same warp
of A (the class Triton handles since PR #11646: ``16x1`` rows held by all 32
lanes of every warp of A, 8 lanes of each warp of B sharing a row).

Warp 0 first.  Let ``ra`` be A's distinct register bits, ``rb`` B's, ``n``
lane bits.  A *reading map* is a linear ``c: F2^rb ⊕ F2^n -> F2^ra ⊕ F2^n``
(destination slot -> source slot of warp 0) with ``A(c(y)) == B(y)``: each
non-zero B column is sent to the A bit with the same column when there is
one, else to an F2 solution over A's columns (none: the warp does not hold
the element, no shuffle plan); a zero B column (lanes sharing an element)
goes to 0, so all lanes of a broadcast group read the same source lane.

Rounds.  Round ``k`` (``k < 2^rb``) gives lane ``u`` its register
``r_k(u) = k ^ Ψ u`` for a linear ``Ψ: F2^n -> F2^rb``; so every register of
every lane is filled once over the ``2^rb`` rounds.  Lane u reads lane
``c_L(r_k(u), u)``, which must send its register ``c_R(r_k(u), u)``.  One
shuffle sends one value per lane, so two readers of one sender must want
the same register: with ``Γ = {(Ψ u, u)}``, for every ``g ∈ Γ``,
``c_L(g) = 0  =>  c_R(g) = 0``.  Since ``r_k(u1) ^ r_k(u2) = Ψ(u1 ^ u2)`` does
not depend on k, this one condition on Γ makes every round consistent.  Ψ is
found column by column with backtracking (the condition is closed under
taking subspaces, so a partial Γ that fails prunes); ``Ψ = 0`` is tried
first (each lane fills its own register k in round k).  In the injective
case this is section 5.4's requirement that span(I ∪ G) meets no register
of A or B.

Other warps (and blocks).  In warp w, B holds ``B(r, u) ^ B_w`` and A holds
``A(r', t) ^ A_w``.  With ``δ_w = A_w ^ B_w = A(ρ_w, λ_w)`` (solved over A's
lane columns first, so the copy read is one of the warp's own lanes, else
over registers and lanes; no solution: the element lives only in another
warp, shared memory is needed), the holder of B's element in warp w is
``(r' ^ ρ_w, t ^ λ_w)`` where ``(r', t)`` holds it in warp 0, by linearity.
So in warp w lane t sends the registers warp 0's lane ``t ^ λ_w`` sends,
XOR ``ρ_w``, and lane u reads lane ``src_lane[u] ^ λ_w``: the plan stores
``(ρ_j, λ_j)`` per warp (block) bit (``warp_shifts``, ``block_shifts``).

Destination broadcast registers are filled after the rounds by register
copies within the lane (``dst_copy[r]``: the register whose value register r
copies).  One element per shuffle (no packing of sub-word elements).

Worked example (Triton's PR #11646 test, ``16x1`` f32, 4 warps):
A = lanes (1, 2, 4, 8, 0) rows, warps (0, 0); B = lanes (0, 0, 0, 1, 2),
warps (4, 8), 3 zero registers.  ``c`` sends B's lanes 3, 4 to A's lanes 0, 1
and lanes 0..2 to 0; ``Ψ = 0``; one round: lane u reads lane ``u >> 3``;
warp bits shift the source lane by ``λ = 4, 8`` (lanes 2, 3 of A): warp w
lane u reads lane ``(u >> 3) ^ 4w``; registers 1..7 copy register 0.
:func:`llverify.prove.plan_shuffle.prove_shuffle_plan` proves it on every warp.
"""

from __future__ import annotations

from itertools import combinations, product
from typing import Sequence

from llverify import f2
from llverify.codegen.common import flat_bases, kept_register_bits, original_register, remove_broadcast_registers
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["reading_map", "warp_shifts", "broadcast_rounds", "dst_register_copies", "triton_mixed_transpositions"]






def reading_map(A: LinearLayout, B: LinearLayout) -> tuple[list[int], int, int] | None:
    """``c`` as its columns (one per B bit: reduced registers, then lanes), with ``ra``, ``rb``; None if
    warp 0 of A does not hold every element of warp 0 of B.

    A source slot is the int ``reduced_register | lane << ra``.  ``A``, ``B``: same out-dim order.
    """
    Ar, Br = remove_broadcast_registers(A), remove_broadcast_registers(B)
    a_reg, a_lane = flat_bases(Ar, "register"), flat_bases(Ar, "lane")
    b_reg, b_lane = flat_bases(Br, "register"), flat_bases(Br, "lane")
    ra, rb = len(a_reg), len(b_reg)
    a_cols = a_reg + a_lane
    cols: list[int] = []
    for idx, b in enumerate(b_reg + b_lane):
        if b == 0:
            cols.append(0)
            continue
        same_kind = rb <= idx and ra + (idx - rb) < len(a_cols) and a_cols[ra + (idx - rb)] == b
        if same_kind:                                   # lane j of B is lane j of A: a fixed lane bit
            cols.append(1 << (ra + idx - rb))
        elif b in a_cols:
            cols.append(1 << a_cols.index(b))
        else:
            sol = f2.solve(a_cols, b)
            if sol is None:
                return None
            cols.append(sol)
    return cols, ra, rb


def warp_shifts(A: LinearLayout, B: LinearLayout, dim: str) -> tuple[tuple[int, int], ...] | None:
    """Per ``dim`` bit j: ``(ρ_j, λ_j)`` (original A register bits, lane) with ``A(ρ_j, λ_j) = A_j ^ B_j``;
    None if some ``A_j ^ B_j`` is not held by a warp of A (needs another warp)."""
    a_d, b_d = flat_bases(A, dim), flat_bases(B, dim)
    if len(a_d) != len(b_d):
        return None
    a_reg, a_lane = flat_bases(A, "register"), flat_bases(A, "lane")
    out = []
    for x, y in zip(a_d, b_d):
        delta = x ^ y
        lam = f2.solve(a_lane, delta)               # a copy in one of the warp's own lanes first
        if lam is not None:
            out.append((0, lam))
            continue
        sol = f2.solve(a_reg + a_lane, delta)
        if sol is None:
            return None
        out.append((sol & ((1 << len(a_reg)) - 1), sol >> len(a_reg)))
    return tuple(out)


def _consistent(images: list[int], ra: int) -> bool:
    """For every g in span(Γ) (given by ``images = c(g_j)``): ``c_L(g) == 0`` implies ``c(g) == 0``."""
    lane_parts = [v >> ra for v in images]
    return all(not f2.combine(images, z) for z in f2.nullspace(lane_parts))


def _find_gamma(cols: list[int], kernel: list[int], ra: int, rb: int,
                free: list[int]) -> tuple[list[int], list[int]] | None:
    """Ψ's columns and ``c(g_j)`` for ``g_j = (Ψ_j, e_{free[j]})`` meeting the module's condition, or None.

    ``c(g_j) = c0(g_j) ^ κ_j`` with ``κ_j`` in ``span(kernel)`` (A's copies: another lane or register
    holding the same element), so a sender's copy can serve a second reader.  Backtracking over
    ``(Ψ_j, κ_j)``, ``Ψ_j = 0`` and ``κ_j = 0`` first; complete for the given ``c0`` and ``free``.
    """
    kappas = [f2.combine(kernel, m) for m in range(1 << len(kernel))]
    psi: list[int] = []
    images: list[int] = []

    def extend(j: int) -> bool:
        if j == len(free):
            return True
        for p in range(1 << rb):
            base = f2.combine(cols, p | (1 << (rb + free[j])))
            for kap in kappas:
                if _consistent(images + [base ^ kap], ra):
                    psi.append(p)
                    images.append(base ^ kap)
                    if extend(j + 1):
                        return True
                    psi.pop()
                    images.pop()
        return False

    return (psi, images) if extend(0) else None


def _bits(u: int, idx: Sequence[int]) -> int:
    """The bits ``idx`` of ``u``, packed (bit ``idx[j]`` of u -> bit j)."""
    return sum((u >> b & 1) << j for j, b in enumerate(idx))


Round = tuple[tuple[int, ...], tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]


def broadcast_rounds(A: LinearLayout, B: LinearLayout) -> tuple[list[Round], list[int], tuple[int, ...]]:
    """The warp-0 rounds ``(src_lane, send_regs, recv_regs)`` (original register numbers), Ψ and the
    serialised lane bits.

    Serialised lane bits S (tried by increasing size, ``S = ∅`` first): round ``(k, m)`` serves only the
    lanes whose S bits are m (the others read themselves and store nothing), so the consistency
    condition is needed only on ``Γ`` over the other lane bits; ``2^(rb + |S|)`` rounds.  ``S`` = all
    lanes always works (one reader per round).  Raises ``LayoutError`` when warp 0 of A lacks an
    element of B.
    """
    found = reading_map(A, B)
    if found is None:
        raise LayoutError("shuffle_plan: a warp of the destination needs an element its source warp does not hold")
    cols, ra, rb = found
    n = len(flat_bases(B, "lane"))
    if len(flat_bases(A, "lane")) != n:
        raise LayoutError("shuffle_plan: source and destination have different numbers of lanes")
    Ar = remove_broadcast_registers(A)
    kernel = f2.nullspace(flat_bases(Ar, "register") + flat_bases(Ar, "lane"))
    if len(kernel) > 6:
        raise LayoutError(f"shuffle_plan: {len(kernel)} independent source copies; the plan search is limited to 6")
    choice = None
    for x in range(n + 1):
        for ser in combinations(range(n), x):
            free = [j for j in range(n) if j not in ser]
            g = _find_gamma(cols, kernel, ra, rb, free)
            if g is not None:
                choice = (list(ser), free, *g)
                break
        if choice is not None:
            break
    assert choice is not None  # x = n: one reader per round is always consistent
    ser, free, psi, images = choice
    a_kept, b_kept = kept_register_bits(A), kept_register_bits(B)
    ser_cols = [cols[rb + j] for j in ser]
    rounds = []
    for k, m in product(range(1 << rb), range(1 << len(ser))):
        src_lane, recv, send = [], [], {}
        for u in range(1 << n):
            if _bits(u, ser) != m:
                src_lane.append(u)
                recv.append(())
                continue
            uf = _bits(u, free)
            r = k ^ f2.combine(psi, uf)
            s = f2.combine(cols, k) ^ f2.combine(images, uf) ^ f2.combine(ser_cols, m)   # c((k, 0) + g_u)
            t, sr = s >> ra, s & ((1 << ra) - 1)
            if send.setdefault(t, sr) != sr:  # pragma: no cover (the condition on Γ excludes it)
                raise LayoutError("shuffle_plan: internal error, a sender would have to send two registers")
            src_lane.append(t)
            recv.append((original_register(r, b_kept),))
        sends = tuple((original_register(send.get(t, 0), a_kept),) for t in range(1 << n))
        rounds.append((tuple(src_lane), sends, tuple(recv)))
    return rounds, psi, tuple(ser)


def dst_register_copies(B: LinearLayout) -> tuple[int, ...]:
    """``copy[r]``: the kept register holding register r's element in every lane (``()`` if B has no copies)."""
    kept = kept_register_bits(B)
    n = B.in_dim_size_log2("register") if B.has_in_dim("register") else 0
    if len(kept) == n:
        return ()
    cols = flat_bases(B, "register")
    red = flat_bases(remove_broadcast_registers(B), "register")
    out = []
    for r in range(1 << n):
        sol = f2.solve(red, f2.combine(cols, r))
        assert sol is not None  # the kept columns span every register column
        out.append(original_register(sol, kept))
    return tuple(out)


def triton_mixed_transpositions(A: LinearLayout, B: LinearLayout) -> int | None:
    """Register<->lane transpositions in Triton's bit permutation of a warp-local conversion, or None.

    Triton 3.9 (``getWarpLayoutConvertDecomposition``, documented in lib/Analysis/Utility.cpp) drops
    broadcast registers, pads the smaller register count with zero columns, sends each source bit to the
    destination bit with the same (non-zero, unit) column, and pairs the remaining "free" bits (zero
    columns, and, since PR #11646, columns a warp supplies) first with themselves, then in order
    (registers before lanes).  Each register bit sent to a lane bit is one mixed transposition of its
    cycle walk.  None: a column is not a single tensor bit, or columns repeat (not a bit permutation).
    """
    Ar, Br = remove_broadcast_registers(A), remove_broadcast_registers(B)
    a_reg, a_lane = flat_bases(Ar, "register"), flat_bases(Ar, "lane")
    b_reg, b_lane = flat_bases(Br, "register"), flat_bases(Br, "lane")
    if len(a_lane) != len(b_lane):
        return None
    nr = max(len(a_reg), len(b_reg))
    a_cols = [("register", i, c) for i, c in enumerate(a_reg + [0] * (nr - len(a_reg)))] + \
             [("lane", i, c) for i, c in enumerate(a_lane)]
    b_cols = [("register", i, c) for i, c in enumerate(b_reg + [0] * (nr - len(b_reg)))] + \
             [("lane", i, c) for i, c in enumerate(b_lane)]
    for cs in (a_cols, b_cols):
        nz = [c for _, _, c in cs if c]
        if any(c & (c - 1) for c in nz) or len(set(nz)) != len(nz):
            return None
    where = {c: (d, i) for d, i, c in b_cols if c}
    perm: dict[tuple[str, int], tuple[str, int]] = {}
    a_free = []
    for d, i, c in a_cols:
        if c in where:
            perm[(d, i)] = where[c]
        else:
            a_free.append((d, i))
    hit = set(perm.values())
    b_free = [(d, i) for d, i, _ in b_cols if (d, i) not in hit]
    if len(a_free) != len(b_free):
        return None
    for s in [s for s in a_free if s in b_free]:
        perm[s] = s
    rest_b = [t for t in b_free if t not in a_free]
    for s, t in zip([s for s in a_free if s not in b_free], rest_b):
        perm[s] = t
    return sum(1 for s, t in perm.items() if s[0] == "register" and t[0] == "lane")


def broadcast_shuffle_plan(src: LinearLayout, dst: LinearLayout, bitwidth: int = 32):
    """The plan of the module docstring as a :class:`~llverify.codegen.shuffle.ShufflePlan` (no word view).

    ``V = I = E = F = G = ()`` and ``R`` lists B's distinct register columns (round k = register k ^ Ψ u);
    ``broadcast`` is set, ``warp_shifts``/``block_shifts``/``dst_copy`` carry the rest.
    """
    from llverify.codegen.shuffle_types import ShufflePlan, ShuffleRound

    A = src.transpose_outs(list(dst.out_dim_names))
    shifts = {d: warp_shifts(A, dst, d) for d in ("warp", "block")}
    for d, s in shifts.items():
        if s is None:
            raise LayoutError(f"shuffle_plan: a {d} of the destination needs elements no lane of the same {d} "
                              "of the source holds (not even a broadcast copy); it needs shared memory")
    rounds, psi, ser = broadcast_rounds(A, dst)
    R = tuple(flat_bases(remove_broadcast_registers(dst), "register"))
    return ShufflePlan(src, dst, bitwidth, (), (), (), (), (), R,
                       tuple(ShuffleRound(*r) for r in rounds), warp_uniform=all(not any(x for p in s for x in p)
                                                                                 for s in shifts.values()),
                       warp_shifts=shifts["warp"] or (), block_shifts=shifts["block"] or (),
                       dst_copy=dst_register_copies(dst), broadcast=True, psi=tuple(psi),
                       serialised_lanes=ser)
