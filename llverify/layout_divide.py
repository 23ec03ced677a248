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
"""

from __future__ import annotations

from llverify.layout import LinearLayout

__all__ = ["divide"]


def divide(self: LinearLayout, divisor: LinearLayout, left: bool) -> LinearLayout | None:
    """``C`` with ``self == divisor * C`` (``left``) or ``self == C * divisor``; None if none exists.

    ``C`` has ``self``'s in/out dim names and order (see the module docstring).
    The candidate is checked by recomputing the product, up to dim order
    (Triton only asserts that equality, in debug builds); a candidate that
    fails it is None rather than a wrong quotient.
    """
    if not set(divisor.in_dim_names) <= set(self.in_dim_names) or \
            not set(divisor.out_dim_names) <= set(self.out_dim_names):
        return None
    d_out = dict(divisor._out)
    q_out: list[tuple[str, int]] = []
    for n, s in self._out:
        ds = d_out.get(n, 1)
        if s % ds:
            return None
        q_out.append((n, s // ds))
    d_bases = dict(divisor._bases)
    d_out_names = divisor.out_dim_names
    q_bases: list[tuple[str, list[tuple[int, ...]]]] = []
    for d, bs in self._bases:
        div = d_bases.get(d, ())
        n_c = len(bs) - len(div)
        if n_c < 0:
            return None
        if left:
            for b, want in zip(bs, div):
                expect = {o: c for o, c in zip(d_out_names, want)}
                if any(c != expect.get(o, 0) for (o, _), c in zip(self._out, b)):
                    return None
            mine = []
            for b in bs[len(div):]:
                comp = []
                for (o, _), c in zip(self._out, b):
                    ds = d_out.get(o, 1)
                    if c % ds:
                        return None
                    comp.append(c // ds)
                mine.append(tuple(comp))
        else:
            mine = [tuple(b) for b in bs[:n_c]]
            q_size = dict(q_out)
            for b, want in zip(bs[n_c:], div):
                got = dict(zip(self.out_dim_names, b))
                for o, c in zip(d_out_names, want):
                    if got[o] % q_size[o] or got[o] // q_size[o] != c:
                        return None
        q_bases.append((d, mine))
    sizes = dict(q_out)
    if any(c >= sizes[o] for _, bs in q_bases for b in bs for (o, _), c in zip(q_out, b)):
        return None
    cand = LinearLayout._make(q_bases, q_out)
    prod = divisor * cand if left else cand * divisor
    if prod.transpose_ins(self.in_dim_names).transpose_outs(self.out_dim_names) != self:
        return None
    return cand
