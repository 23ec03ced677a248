"""Triton 3.9's layout *views*: the text ``triton-tensor-layout`` prints, character for character.

Triton renders a layout two ways (``getDistributedLayoutStr`` /
``getSharedLayoutStr``, exposed by the wheel as
``LinearLayout.get_distributed_view(hw)`` / ``get_shared_view(hw)``).  This
module produces the same strings from an llverify
:class:`~llverify.layout.LinearLayout`; it is an independent implementation
of the observed format, checked against the wheel in
``tests/test_layout_views.py``.

**Distributed layouts** (in dims exactly ``register, lane, warp, block``, in
any order):

* *tensor view* (``hw=False``): the tensor drawn element by element, row-major
  over the out dims in the layout's out-dim order (the first out dim is the
  outermost).  Each element lists every hardware position holding it, in the
  order block, warp, lane, register (outermost first), joined by ``|``.  A
  holder reads ``T<thread>:<register>`` where ``thread = warp * lanes +
  lane``, prefixed ``B<block>:`` when there are several blocks.  Each holder
  is left-padded by the number of digits its block, thread and register fall
  short of the block count, thread count and register count (the sizes, not
  the largest values).  An element nobody holds is empty.
* *hardware view* (``hw=True``): ``Block<b>:`` headers (only with several
  blocks), then ``Warp<w>:`` headers, then one line per register listing each
  lane's coordinates ``(c0,c1,...)``, joined by ``", "``; every coordinate is
  left-padded to the width of its out-dim size.

**Shared layouts** (in dims exactly ``offset, block``): positions are walked
block by block and, inside a block, offsets ``0 .. elements / blocks - 1``
(an offset past the ``offset`` dim's size keeps only its low bits, as
Triton's ``apply`` does; offsets past that count are not shown).

* *tensor view*: the position sequence drawn in the tensor's shape; each cell
  is the coordinates that position stores, ``(c0:c1:...)``, padded as above,
  cells separated by a bare ``,``.
* *hardware view*: ``Block: <b>:`` then one ``Offset: <o> -> (c0,c1,...)``
  line per offset.

In the tensor views, each element is preceded by one ``[`` per trailing dim
it starts and followed by one ``]`` per trailing dim it ends; a line starts
after the last dim's end, and the first element of a line is indented by the
number of dims it does not open.  Every line, the last included, ends with
``\\n``.

Worked example, four lanes holding two registers each of a 2x4 tensor::

    >>> from llverify.layout import LinearLayout
    >>> L = LinearLayout({"register": [[0, 1]], "lane": [[0, 2], [1, 0]], "warp": [], "block": []},
    ...                  {"dim0": 2, "dim1": 4})
    >>> print(distributed_view(L), end="")
    [[T0:0, T0:1, T1:0, T1:1]
    [ T2:0, T2:1, T3:0, T3:1]]
    >>> print(distributed_view(L, hw=True), end="")
    Warp0:
    (0,0), (0,2), (1,0), (1,2)
    (0,1), (0,3), (1,1), (1,3)

and a 2x2 shared buffer stored transposed::

    >>> S = LinearLayout({"offset": [[1, 0], [0, 1]], "block": []}, {"dim0": 2, "dim1": 2})
    >>> print(shared_view(S), end="")
    [[(0:0),(1:0)]
    [ (0:1),(1:1)]]
    >>> print(shared_view(S, hw=True), end="")
    Block: 0:
    Offset: 0 -> (0,0)
    Offset: 1 -> (1,0)
    Offset: 2 -> (0,1)
    Offset: 3 -> (1,1)

Layouts without the needed in dims, or with no out dim, raise
:class:`~llverify.errors.LayoutError`; one whose tensor or hardware position
count exceeds ``max_elements`` (default :data:`MAX_VIEW_ELEMENTS`) raises
:class:`~llverify.errors.SizeGuardError` (Triton has no cap; the string grows
with the element count, about 10 to 30 characters each).
"""

from __future__ import annotations

from typing import Callable, Mapping, Protocol, Sequence

from llverify.errors import LayoutError, SizeGuardError

__all__ = ["distributed_view", "shared_view", "triton_view", "MAX_VIEW_ELEMENTS", "DISTRIBUTED_IN_DIMS",
           "SHARED_IN_DIMS"]

class Viewable(Protocol):
    """What a view reads of a layout (a :class:`~llverify.layout.LinearLayout` is one): its dims, and its
    columns flattened over all in dims with each out dim's bit offset in a flattened output.  Naming this
    instead of the class keeps the layout module, which calls the views, the only one importing the other."""

    @property
    def in_dims(self) -> Mapping[str, int]: ...

    @property
    def out_dims(self) -> Mapping[str, int]: ...

    @property
    def num_out_dims(self) -> int: ...

    @property
    def total_out_size(self) -> int: ...

    @property
    def flat_columns(self) -> Sequence[int]: ...

    def flat_out_shifts(self) -> Mapping[str, int]: ...


#: The default cap on both the tensor's element count and the number of hardware positions a view
#: walks (65536: a 256x256 tensor).  Pass ``max_elements=`` to print larger layouts.
MAX_VIEW_ELEMENTS = 1 << 16

#: In dims a distributed view needs (all of them, nothing else; any order).
DISTRIBUTED_IN_DIMS = ("register", "lane", "warp", "block")
#: In dims a shared view needs (both, nothing else; any order).
SHARED_IN_DIMS = ("offset", "block")


def _check(layout: Viewable, need: Sequence[str], view: str, max_elements: int) -> None:
    have = list(layout.in_dims)
    missing = [d for d in need if d not in have]
    extra = [d for d in have if d not in need]
    if missing or extra:
        parts = []
        if missing:
            parts.append("lacks in dim" + ("s " if len(missing) > 1 else " ") + ", ".join(f"'{d}'" for d in missing))
        if extra:
            parts.append("has extra in dim" + ("s " if len(extra) > 1 else " ") + ", ".join(f"'{d}'" for d in extra))
        raise LayoutError(f"{view} view needs exactly the in dims {list(need)}; the layout (in dims {have}) "
                          + " and ".join(parts))
    if layout.num_out_dims == 0:
        raise LayoutError(f"{view} view needs at least one out dim; the layout has none")
    n_out = layout.total_out_size
    if n_out > max_elements:
        raise SizeGuardError(f"{view} view of {n_out} tensor elements exceeds the cap of {max_elements} "
                             f"(max_elements)")


def _xor_table(columns: Sequence[int]) -> list[int]:
    """Flat output of every value of one in dim (entry v = XOR of the columns of v's set bits)."""
    table = [0]
    for c in columns:
        table += [t ^ c for t in table]
    return table


def _dim_tables(layout: Viewable) -> dict[str, list[int]]:
    tables, j = {}, 0
    flat = layout.flat_columns
    for d, size in layout.in_dims.items():
        n = size.bit_length() - 1
        tables[d] = _xor_table(flat[j:j + n])
        j += n
    return tables


def _coords(layout: Viewable) -> Callable[[int], list[int]]:
    """Flat output value -> its coordinates, one per out dim in out-dim order."""
    fields = [(s, layout.out_dims[n] - 1) for n, s in layout.flat_out_shifts().items()]
    return lambda v: [(v >> s) & m for s, m in fields]


def _pad(value: int, size: int) -> str:
    """``value`` right-aligned to the width of ``size`` written in decimal."""
    return str(value).rjust(len(str(size)))


def _short(value: int, size: int) -> int:
    """How many digits ``value`` has fewer than ``size``."""
    return len(str(size)) - len(str(value))


def _nested(cells: Sequence[str], shape: Sequence[int], sep: str) -> str:
    """``cells`` (row-major over ``shape``) drawn with one bracket level per dim (module docstring)."""
    rank = len(shape)
    spans = []  # spans[k] = elements in the trailing k+1 dims
    p = 1
    for s in reversed(shape):
        p *= s
        spans.append(p)
    last = shape[-1]
    out: list[str] = []
    fresh = True
    for i, cell in enumerate(cells):
        opened = 0
        while opened < rank and i % spans[opened] == 0:
            opened += 1
        out.append("[" * opened)
        if fresh:
            out.append(" " * (rank - opened))
            fresh = False
        out.append(cell)
        closed = 0
        while closed < rank and (i + 1) % spans[closed] == 0:
            closed += 1
        out.append("]" * closed)
        if (i + 1) % last == 0:
            out.append("\n")
            fresh = True
        else:
            out.append(sep)
    return "".join(out)


def distributed_view(layout: Viewable, hw: bool = False, *, max_elements: int = MAX_VIEW_ELEMENTS) -> str:
    """Triton's ``getDistributedLayoutStr(layout, hw)``: who holds each element, or what each thread holds.

    ``hw=False`` draws the tensor with each element's holders ``[B<b>:]T<thread>:<register>``;
    ``hw=True`` lists, per block and warp, one line per register of every lane's coordinates (see
    the module docstring for the exact rules).  A 1-D layout with two registers and two lanes::

        >>> from llverify.layout import LinearLayout
        >>> L = LinearLayout({"register": [[1]], "lane": [[2]], "warp": [], "block": []}, {"dim0": 4})
        >>> distributed_view(L)
        '[T0:0, T0:1, T1:0, T1:1]\\n'
        >>> distributed_view(L, hw=True)
        'Warp0:\\n(0), (2)\\n(1), (3)\\n'

    Raises :class:`~llverify.errors.LayoutError` unless the in dims are exactly ``register, lane,
    warp, block`` and there is an out dim; :class:`~llverify.errors.SizeGuardError` past
    ``max_elements`` elements or hardware positions.
    """
    _check(layout, DISTRIBUTED_IN_DIMS, "a distributed", max_elements)
    ins = layout.in_dims
    n_reg, n_lane, n_warp, n_block = (ins[d] for d in DISTRIBUTED_IN_DIMS)
    positions = n_reg * n_lane * n_warp * n_block
    if positions > max_elements:
        raise SizeGuardError(f"a distributed view of {positions} hardware positions (register x lane x warp x "
                             f"block) exceeds the cap of {max_elements} (max_elements)")
    tab = _dim_tables(layout)
    t_reg, t_lane, t_warp, t_block = (tab[d] for d in DISTRIBUTED_IN_DIMS)
    shape = list(layout.out_dims.values())
    coords = _coords(layout)
    n_threads = n_warp * n_lane

    if hw:
        text: dict[int, str] = {}

        def cell(v: int) -> str:
            s = text.get(v)
            if s is None:
                s = text[v] = "(" + ",".join(_pad(c, n) for c, n in zip(coords(v), shape)) + ")"
            return s

        lines = []
        for b in range(n_block):
            if n_block > 1:
                lines.append(f"Block{b}:\n")
            vb = t_block[b]
            for w in range(n_warp):
                lines.append(f"Warp{w}:\n")
                vw = vb ^ t_warp[w]
                for r in range(n_reg):
                    vr = vw ^ t_reg[r]
                    lines.append(", ".join(cell(vr ^ t_lane[l]) for l in range(n_lane)) + "\n")
        return "".join(lines)

    # row-major position of every flat output value (the first out dim outermost)
    strides = []
    p = 1
    for s in reversed(shape):
        strides.append(p)
        p *= s
    strides.reverse()
    holders: list[list[str]] = [[] for _ in range(layout.total_out_size)]
    flat_to_pos: dict[int, int] = {}
    reg_txt = [(_short(r, n_reg), f":{r}") for r in range(n_reg)]
    for b in range(n_block):
        head = f"B{b}:" if n_block > 1 else ""
        short_b = _short(b, n_block)
        vb = t_block[b]
        for w in range(n_warp):
            vw = vb ^ t_warp[w]
            for l in range(n_lane):
                t = w * n_lane + l
                vl = vw ^ t_lane[l]
                lead = short_b + _short(t, n_threads)
                who = f"{head}T{t}"
                for r in range(n_reg):
                    v = vl ^ t_reg[r]
                    pos = flat_to_pos.get(v)
                    if pos is None:
                        pos = flat_to_pos[v] = sum(c * st for c, st in zip(coords(v), strides))
                    short_r, tail = reg_txt[r]
                    holders[pos].append(" " * (lead + short_r) + who + tail)
    return _nested(["|".join(h) for h in holders], shape, ", ")


def shared_view(layout: Viewable, hw: bool = False, *, max_elements: int = MAX_VIEW_ELEMENTS) -> str:
    """Triton's ``getSharedLayoutStr(layout, hw)``: which element each shared-memory offset stores.

    ``hw=False`` draws the offsets (block by block) in the tensor's shape, each cell the
    coordinates ``(c0:c1:...)`` stored there; ``hw=True`` prints ``Block: <b>:`` and one
    ``Offset: <o> -> (c0,c1,...)`` line per offset (see the module docstring).  A 4-element buffer
    whose offsets 2 and 3 are swapped::

        >>> from llverify.layout import LinearLayout
        >>> S = LinearLayout({"offset": [[1], [3]], "block": []}, {"dim0": 4})
        >>> shared_view(S)
        '[(0),(1),(3),(2)]\\n'
        >>> print(shared_view(S, hw=True), end="")
        Block: 0:
        Offset: 0 -> (0)
        Offset: 1 -> (1)
        Offset: 2 -> (3)
        Offset: 3 -> (2)

    Raises :class:`~llverify.errors.LayoutError` unless the in dims are exactly ``offset, block``
    and there is an out dim; :class:`~llverify.errors.SizeGuardError` past ``max_elements``.
    """
    _check(layout, SHARED_IN_DIMS, "a shared", max_elements)
    shape = list(layout.out_dims.values())
    total = layout.total_out_size
    n_block = layout.in_dims["block"]
    per_block = total // n_block
    tab = _dim_tables(layout)
    t_off, t_block = tab["offset"], tab["block"]
    mask = layout.in_dims["offset"] - 1
    coords = _coords(layout)
    padded = []
    for b in range(n_block):
        vb = t_block[b]
        padded.extend([_pad(c, n) for c, n in zip(coords(vb ^ t_off[o & mask]), shape)]
                      for o in range(per_block))
    if hw:
        lines = []
        for b in range(n_block):
            lines.append(f"Block: {b}:\n")
            for o in range(per_block):
                lines.append(f"Offset: {o} -> (" + ",".join(padded[b * per_block + o]) + ")\n")
        return "".join(lines)
    cells = ["(" + ":".join(p) + ")" for p in padded]
    cells += [""] * (total - len(cells))
    return _nested(cells, shape, ",")


def triton_view(layout: Viewable, hw: bool = False, *, max_elements: int = MAX_VIEW_ELEMENTS) -> str:
    """The view Triton prints for ``layout``: :func:`shared_view` if it has an ``offset`` in dim, else
    :func:`distributed_view` (what ``triton-tensor-layout`` picks by the encoding's family).

        >>> from llverify.layout import LinearLayout
        >>> triton_view(LinearLayout({"offset": [[1]], "block": []}, {"dim0": 2}))
        '[(0),(1)]\\n'

    A layout that is neither (tensor memory's ``row, col``) raises
    :class:`~llverify.errors.LayoutError`.
    """
    ins = list(layout.in_dims)
    if "offset" in ins:
        return shared_view(layout, hw, max_elements=max_elements)
    if any(d in ins for d in DISTRIBUTED_IN_DIMS[:3]):
        return distributed_view(layout, hw, max_elements=max_elements)
    raise LayoutError(f"Triton prints no view of a layout with in dims {ins}: a distributed view needs "
                      f"{list(DISTRIBUTED_IN_DIMS)}, a shared one {list(SHARED_IN_DIMS)}")
