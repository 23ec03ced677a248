"""Division of layouts (Triton's ``divideLeft`` / ``divideRight``), seed 000 section 5.3.

Left division ``A / B`` finds ``C`` with ``A == B * C``: the tile ``B`` (e.g. an
instruction's register/lane tile) is the innermost factor of ``A``.  It is
how "does this ldmatrix / vector instruction tile divide the layout" is
decided.
"""

from __future__ import annotations

import itertools

from llverify.layout import LinearLayout

__all__ = ["divide"]


def divide(self: LinearLayout, divisor: LinearLayout, left: bool) -> LinearLayout | None:
    """``C`` with ``self == divisor * C`` (``left``) or ``self == C * divisor``; None if none exists.

    Left division: along every in dim, ``self``'s first bases must be the
    divisor's (embedded in the low bits of each out dim) and the rest, shifted
    down by the divisor's out sizes, are C's.  Right division: the last bases
    are the divisor's shifted above C's out sizes.  The candidate is verified
    by recomputing the product; dim orders are searched (Triton's dim
    supremum may need another order of C's dims to reproduce ``self``).
    Example: ``(A * B).divide_left(A) == B``.
    """
    if not set(divisor.in_dim_names) <= set(self.in_dim_names) or \
            not set(divisor.out_dim_names) <= set(self.out_dim_names):
        return None
    d_out = dict(divisor._out)
    q_out = []
    for n, s in self._out:
        ds = d_out.get(n, 1)
        if s % ds:
            return None
        q_out.append((n, s // ds))
    q_size = dict(q_out)
    d_b = dict(divisor._bases)
    q_bases = []
    for d, bs in self._bases:
        nd = len(d_b.get(d, ()))
        if nd > len(bs):
            return None
        q_bases.append((d, list(bs[nd:] if left else bs[:len(bs) - nd])))
    # quotient components: with left division they sit above the divisor's bits
    if left:
        conv = []
        for d, bs in q_bases:
            nb = []
            for b in bs:
                comp = []
                for (n, _), c in zip(self._out, b):
                    ds = d_out.get(n, 1)
                    if c % ds:
                        return None
                    comp.append(c // ds)
                nb.append(tuple(comp))
            conv.append((d, nb))
        q_bases = conv
    else:
        for d, bs in q_bases:
            for b in bs:
                if any(c >= q_size[n] for (n, _), c in zip(self._out, b)):
                    return None
    drop_in = {d for d, bs in q_bases if not bs and d in d_b}
    drop_out = {n for n, s in q_out if s == 1 and n in d_out}
    keep = [k for k, (n, _) in enumerate(q_out) if n not in drop_out]
    cand = LinearLayout._make(
        [(d, [tuple(b[k] for k in keep) for b in bs]) for d, bs in q_bases if d not in drop_in],
        [q_out[k] for k in keep])
    full = LinearLayout._make([(d, [tuple(b) for b in bs]) for d, bs in q_bases], q_out)
    for c in (cand, full):
        # The quotient keeps self's dim orders; when the divisor's orders
        # disagree with self's, Triton's dim supremum may need the quotient's
        # dims in another order to reproduce self exactly, so try those too.
        for ins in itertools.islice(itertools.permutations(c.in_dim_names), 24):
            for outs in itertools.islice(itertools.permutations(c.out_dim_names), 6):
                cc = c.transpose_ins(list(ins)).transpose_outs(list(outs))
                prod = divisor * cc if left else cc * divisor
                if prod == self:
                    return cc
    return None
