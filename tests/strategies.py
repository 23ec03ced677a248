"""Hypothesis strategies for random layouts (shared by the test modules)."""

from __future__ import annotations

from hypothesis import strategies as st

from llverify import LinearLayout

IN_NAMES = ("register", "lane", "warp", "block")
OUT_NAMES = ("dim0", "dim1", "dim2")


@st.composite
def out_dims(draw, names=OUT_NAMES, max_log2: int = 4, min_dims: int = 1):
    k = draw(st.integers(min_dims, len(names)))
    chosen = draw(st.permutations(names))[:k]
    return {n: 1 << draw(st.integers(0, max_log2)) for n in chosen}


@st.composite
def layouts(draw, outs=None, ins=None, max_bases: int = 4, surjective: bool | None = None,
            max_log2: int = 4):
    """A random layout; ``surjective=True`` forces it (adds identity bases as needed)."""
    outs = outs if outs is not None else draw(out_dims(max_log2=max_log2))
    if ins is None:
        k = draw(st.integers(1, len(IN_NAMES)))
        ins = list(draw(st.permutations(IN_NAMES))[:k])
    bases = {}
    for d in ins:
        n = draw(st.integers(0, max_bases))
        bases[d] = [[draw(st.integers(0, s - 1)) for s in outs.values()] for _ in range(n)]
    if surjective:
        # append the unit vectors of every out bit to the last in dim: rank becomes full
        last = ins[-1]
        for k, (o, s) in enumerate(outs.items()):
            b = 1
            while b < s:
                v = [0] * len(outs)
                v[k] = b
                bases[last].append(v)
                b <<= 1
    return LinearLayout(bases, outs, require_surjective=bool(surjective))
