"""Division of layouts (Triton's ``divideLeft`` / ``divideRight``), seed 000 section 5.3.

Left division ``A / B`` finds ``C`` with ``A == B * C``: the tile ``B`` (e.g. an
instruction's register/lane tile) is the innermost factor of ``A``.  It is
how "does this ldmatrix / vector instruction tile divide the layout" is
decided.

As in Triton 3.9 (``divideLeft``/``divideRight`` in lib/Tools/LinearLayout.cpp,
documented in include/triton/Tools/LinearLayout.h), ``C`` always has exactly
``A``'s in and out dims, in ``A``'s order, size-1 dims included: in dim ``d``
has ``log2 |A_d| - log2 |B_d|`` bases and out dim ``o`` has size
``|A_o| / |B_o|`` (a dim ``B`` lacks counts as size 1).  Matrix-wise ``A`` must
be block diagonal, ``[[B, 0], [0, C]]`` for left division and
``[[C, 0], [0, B]]`` for right division, along every dim ``B`` has:

* left: the first ``log2 |B_d|`` bases of ``A_d`` equal ``B_d``'s (0 where ``B``
  lacks the out dim); each later basis, divided component-wise by ``B``'s out
  sizes (exactly), is a basis of ``C``;
* right: the first ``log2 |C_d|`` bases of ``A_d`` are ``C``'s as they are; each
  later basis, divided by ``C``'s out sizes, equals the matching basis of ``B``.

Example: ``A = I(4, register, dim0) * I(8, lane, dim0)``, ``B = I(4, register,
dim0)``: ``divide_left(A, B)`` has in dims ``register`` (size 1, no bases) and
``lane`` (``(4)..`` divided by 4: ``(1), (2), (4)``), out dim ``dim0`` of size 8.

:func:`quotient` works on plain data (bases and out dims) and returns the
candidate ``C``; :meth:`LinearLayout.divide_left
<llverify.layout.LinearLayout.divide_left>` / ``divide_right`` build it and
keep it only if the product rebuilds ``A`` (so this module does not import
:mod:`llverify.layout`).
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["quotient"]

Basis = tuple[int, ...]
Bases = Sequence[tuple[str, Sequence[Basis]]]
Dims = Sequence[tuple[str, int]]


def quotient(bases: Bases, out: Dims, d_bases: Bases, d_out: Dims,
             left: bool) -> tuple[list[tuple[str, list[Basis]]], list[tuple[str, int]]] | None:
    """The candidate ``C`` (its bases and out dims) of ``A == B * C`` (``left``) or ``A == C * B``.

    ``bases``/``out`` are ``A``'s, ``d_bases``/``d_out`` the divisor ``B``'s,
    each as (name, bases) and (name, size) pairs in dim order.  ``C`` has
    ``A``'s in/out dim names and order (see the module docstring).  ``None``
    when the block structure rules a quotient out; the caller still checks
    that the product rebuilds ``A`` (Triton only asserts that equality, in
    debug builds), so a candidate that fails it is None rather than a wrong
    quotient.
    """
    in_names = [d for d, _ in bases]
    out_names = [n for n, _ in out]
    if not {d for d, _ in d_bases} <= set(in_names) or not {n for n, _ in d_out} <= set(out_names):
        return None
    d_size = dict(d_out)
    q_out: list[tuple[str, int]] = []
    for n, s in out:
        ds = d_size.get(n, 1)
        if s % ds:
            return None
        q_out.append((n, s // ds))
    d_by_dim = dict(d_bases)
    d_out_names = [n for n, _ in d_out]
    q_bases: list[tuple[str, list[Basis]]] = []
    for d, bs in bases:
        div = d_by_dim.get(d, ())
        n_c = len(bs) - len(div)
        if n_c < 0:
            return None
        if left:
            for b, want in zip(bs, div):
                expect = {o: c for o, c in zip(d_out_names, want)}
                if any(c != expect.get(o, 0) for (o, _), c in zip(out, b)):
                    return None
            mine = []
            for b in bs[len(div):]:
                comp = []
                for (o, _), c in zip(out, b):
                    ds = d_size.get(o, 1)
                    if c % ds:
                        return None
                    comp.append(c // ds)
                mine.append(tuple(comp))
        else:
            mine = [tuple(b) for b in bs[:n_c]]
            q_size = dict(q_out)
            for b, want in zip(bs[n_c:], div):
                got = dict(zip(out_names, b))
                for o, c in zip(d_out_names, want):
                    if got[o] % q_size[o] or got[o] // q_size[o] != c:
                        return None
        q_bases.append((d, mine))
    sizes = dict(q_out)
    if any(c >= sizes[o] for _, bs in q_bases for b in bs for (o, _), c in zip(q_out, b)):
        return None
    return q_bases, q_out
