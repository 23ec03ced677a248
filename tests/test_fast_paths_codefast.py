"""The shape-op fast paths (issue 11) agree with the definitions they replace; each comparison can fail.

``expand_dims`` and ``broadcast`` forward transform the operand's flat columns directly (a size-1 out dim has
no out bit; a broadcast dim's new bits shift the later dims' bits up).  Each is compared, as a layout (dims and
columns, so equality and hash), with the nested-basis rebuild it replaces (``_expand_rebuilt``,
``_broadcast_fwd_rebuilt``) on random layouts whose out dims ``dim0..`` come in any order, with size-1 dims and
with or without a register dim; and the mutants below show the comparison is not vacuous.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.codegen import shape_ops
from llverify.codegen.common import log2
from llverify.codegen.shape_ops import _bases, _broadcast_fwd, _expand, _names, _rebuild, _sizes
from llverify.errors import LayoutError
from llverify.layout import LinearLayout
from llverify.prove import locality
from strategies import layouts


def _expand_rebuilt(L: LinearLayout, axis: int) -> LinearLayout:
    """The definition of :func:`_expand`: a zero component inserted at ``axis`` into every basis, rebuilt."""
    r = L.num_out_dims
    if not 0 <= axis <= r:
        raise LayoutError(f"expand_dims: axis {axis} out of range for rank {r}")
    Lc = L.transpose_outs(_names(r))
    return _rebuild({d: [x[:axis] + [0] + x[axis:] for x in bs] for d, bs in _bases(Lc).items()},
                    _sizes(Lc)[:axis] + [1] + _sizes(Lc)[axis:])


def _broadcast_fwd_rebuilt(L: LinearLayout, dim: int, size: int) -> tuple[LinearLayout, list[int]]:
    """The definition of :func:`_broadcast_fwd`: the new register bases appended to the nested bases, rebuilt."""
    Lc = L.transpose_outs(_names(L.num_out_dims))
    if not 0 <= dim < Lc.num_out_dims or _sizes(Lc)[dim] != 1:
        raise LayoutError(f"broadcast: input dim {dim} must exist and have size 1")
    n = log2(size)
    b = _bases(Lc)
    regs = b.get("register", [])
    new = [[(1 << i) if k == dim else 0 for k in range(Lc.num_out_dims)] for i in range(n)]
    b["register"] = regs + new
    sizes = _sizes(Lc)
    sizes[dim] = size
    return _rebuild(b, sizes), list(range(len(regs), len(regs) + n))


@st.composite
def dim_layouts(draw, unit_dim: bool = False):
    """A random layout on out dims ``dim0..dim{k-1}`` (any order, sizes 1..16; one size-1 dim when asked)."""
    k = draw(st.integers(1, 4))
    sizes = [1 << draw(st.integers(0, 4)) for _ in range(k)]
    if unit_dim:
        sizes[draw(st.integers(0, k - 1))] = 1
    order = draw(st.permutations(range(k)))
    outs = {f"dim{i}": sizes[i] for i in order}
    return draw(layouts(outs=outs))


@given(dim_layouts(), st.data())
@settings(max_examples=300, deadline=None)
def test_expand_dims_on_columns_equals_rebuilt(L, data):
    axis = data.draw(st.integers(0, L.num_out_dims))
    fast, ref = _expand(L, axis), _expand_rebuilt(L, axis)
    assert fast == ref and hash(fast) == hash(ref) and dict(fast.bases) == dict(ref.bases)


@given(dim_layouts(unit_dim=True), st.integers(0, 4), st.data())
@settings(max_examples=300, deadline=None)
def test_broadcast_on_columns_equals_rebuilt(L, n, data):
    dim = data.draw(st.sampled_from([i for i in range(L.num_out_dims) if L.out_dim_size(f"dim{i}") == 1]))
    fast, ref = _broadcast_fwd(L, dim, 1 << n), _broadcast_fwd_rebuilt(L, dim, 1 << n)
    assert fast[1] == ref[1]
    assert fast[0] == ref[0] and hash(fast[0]) == hash(ref[0]) and dict(fast[0].bases) == dict(ref[0].bases)


# -- mutants: a fast path that drops the shift of the later dims, or puts the new registers first --------------

_L = LinearLayout({"register": [[1, 0, 0]], "lane": [[0, 0, 2], [2, 0, 0]], "warp": [[0, 0, 1]]},
                  {"dim0": 4, "dim1": 1, "dim2": 4})


def test_broadcast_mutant_without_shift_is_caught():
    fast, _ = _broadcast_fwd(_L, 1, 4)
    ref, _ = _broadcast_fwd_rebuilt(_L, 1, 4)
    assert fast == ref
    wrong = LinearLayout._raw(fast._in, fast._out, tuple(c & 0b11 if c >= 16 else c for c in fast._flat))
    assert wrong != ref


def test_broadcast_mutant_registers_placed_first_is_caught(monkeypatch):
    orig = shape_ops._broadcast_fwd

    def first(L, dim, size):
        out, regs = orig(L, dim, size)
        n = len(regs)
        reg_bits = out._in[0][1]
        cols = list(out._flat)
        cols[:reg_bits] = cols[reg_bits - n:reg_bits] + cols[:reg_bits - n]
        return LinearLayout._raw(out._in, out._out, tuple(cols)), regs

    monkeypatch.setattr(shape_ops, "_broadcast_fwd", first)
    assert shape_ops._broadcast_fwd(_L, 1, 4)[0] != _broadcast_fwd_rebuilt(_L, 1, 4)[0]


def test_expand_mutant_with_wrong_renumbering_is_caught():
    fast = _expand(_L, 1)
    ref = _expand_rebuilt(_L, 1)
    assert fast == ref
    sizes = [s for _, s in fast._out]
    wrong = LinearLayout._raw(fast._in, tuple(zip([f"dim{i}" for i in range(4)], sizes[:1] + sizes[2:] + [1])),
                              fast._flat)
    assert wrong != ref


# -- thread locality of a layout with itself ---------------------------------------------------------------------

def _same(v, w) -> bool:
    return (v.status, v.method, v.certificate, v.details, v.message) == (w.status, w.method, w.certificate,
                                                                         w.details, w.message)


@given(layouts())
@settings(max_examples=300, deadline=None)
def test_thread_local_of_equal_layouts_equals_elimination(A):
    fast = locality.thread_local(A, A)
    general = locality._thread_local_general(A, A, "B is thread-local to A", 0.0)
    assert _same(fast, general)


# register columns with a zero (a broadcast register) and a repeat: the fast path must decline (the general
# solution of the dependent bit is not 2^i), and the verdict must still be the general one
_DEP = LinearLayout.from_bases({"register": [[1], [0], [1], [2]], "lane": [[4], [8]]}, ["dim0"])


def test_thread_local_dependent_registers_use_elimination():
    assert locality._equal_layouts(_DEP, "s", 0.0) is None
    assert _same(locality.thread_local(_DEP, _DEP), locality._thread_local_general(_DEP, _DEP, "s", 0.0))


def test_thread_local_mutant_without_independence_test_is_caught(monkeypatch):
    monkeypatch.setattr(locality, "is_independent", lambda cols: True)
    assert not _same(locality.thread_local(_DEP, _DEP),
                     locality._thread_local_general(_DEP, _DEP, "B is thread-local to A", 0.0))
