"""Hypothesis strategies for random small layouts (shared by the tests/test_prove_* files)."""

from __future__ import annotations

from hypothesis import strategies as st

from llverify.layout import LinearLayout

IN_DIMS = ("register", "lane", "warp")


@st.composite
def layouts(draw, max_in_bits: int = 7, max_out_bits: int = 7, in_dims=IN_DIMS, out_bits=None, structured=None):
    """A random layout; ``structured`` biases the columns toward one-hot (distributed-like) values."""
    n_out = [draw(st.integers(0, 3)) for _ in range(2)] if out_bits is None else list(out_bits)
    while sum(n_out) > max_out_bits:
        n_out[n_out.index(max(n_out))] -= 1
    outs = [("dim0", 1 << n_out[0]), ("dim1", 1 << n_out[1])]
    total_out = sum(n_out)
    budget = max_in_bits
    bases = []
    struct = draw(st.booleans()) if structured is None else structured
    for d in in_dims:
        k = draw(st.integers(0, min(3, budget)))
        budget -= k
        bs = []
        for _ in range(k):
            if struct and total_out:
                r = draw(st.integers(-1, total_out - 1))
                flat = 0 if r < 0 else 1 << r
            else:
                flat = draw(st.integers(0, (1 << total_out) - 1))
            bs.append([flat & ((1 << n_out[0]) - 1), flat >> n_out[0]])
        bases.append((d, bs))
    return LinearLayout(bases, outs, require_surjective=False)


def flip_bit(L: LinearLayout, j: int, r: int) -> LinearLayout:
    """``L`` with bit ``r`` of its flat column ``j`` flipped."""
    cols = list(L.flat_columns)
    cols[j] ^= 1 << r
    return from_columns(L, cols)


def from_columns(L: LinearLayout, cols: list[int]) -> LinearLayout:
    """A layout with ``L``'s dims and the given flat columns."""
    shifts = L.flat_out_shifts()
    bases, j = [], 0
    for d, s in L.in_dims.items():
        bs = []
        for _ in range(s.bit_length() - 1):
            bs.append([(cols[j] >> shifts[n]) & (L.out_dim_size(n) - 1) for n in L.out_dim_names])
            j += 1
        bases.append((d, bs))
    return LinearLayout(bases, list(L.out_dims.items()), require_surjective=False)
