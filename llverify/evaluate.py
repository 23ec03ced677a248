"""Vectorised evaluation of a layout on every input (numpy).

``evaluate(L)`` returns, per out dim, an array ``v`` of length
``L.total_in_size`` with ``v[x] = L(x)[out dim]``, where the flattened input
``x`` packs the in dims first-dim-lowest (``x = reg + 2^nr * (lane + 2^nl *
...)``).  It uses the doubling trick: the values on ``[2^k, 2^(k+1))`` are the
values on ``[0, 2^k)`` XOR column ``k``, so the whole table costs
``2^n`` XORs and no per-point Python work.

Example: ``evaluate_flat(identity_1d(4, "i", "o") * zeros_1d(2, "i", "o"))``
is ``[0, 1, 2, 3, 0, 1, 2, 3]``.

A size guard (``DEFAULT_MAX_POINTS = 2**26``, settable per call or with
:func:`set_max_points`) refuses larger domains with a ``SizeGuardError``
instead of exhausting memory.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from llverify.errors import LayoutError, SizeGuardError
from llverify.layout import LinearLayout

__all__ = ["DEFAULT_MAX_POINTS", "evaluate", "evaluate_flat", "xor_table", "inverse_table", "set_max_points", "max_points"]

DEFAULT_MAX_POINTS = 1 << 26
_max_points = DEFAULT_MAX_POINTS


def set_max_points(n: int) -> None:
    """Set the process-wide size guard (number of inputs evaluated at most)."""
    global _max_points
    if n <= 0:
        raise ValueError("the size guard must be positive")
    _max_points = int(n)


def max_points() -> int:
    return _max_points


def _guard(n_points: int, limit: int | None, what: str) -> None:
    lim = _max_points if limit is None else limit
    if n_points > lim:
        raise SizeGuardError(
            f"{what} has {n_points} points, above the size guard of {lim}; "
            "use an F2 or SMT method, or raise the guard")


def _dtype(bits: int) -> type:
    return np.uint32 if bits <= 32 else np.uint64


def evaluate_flat(layout: LinearLayout, limit: int | None = None) -> np.ndarray:
    """Flattened outputs (out dims concatenated, first lowest) for every flattened input."""
    n = layout.total_in_bits
    _guard(1 << n, limit, "layout domain")
    if layout.total_out_bits > 64:
        raise LayoutError("evaluate supports at most 64 out bits")
    return _doubled(layout.flat_columns, _dtype(layout.total_out_bits))


def _doubled(columns: Sequence[int], dtype: Any) -> np.ndarray:
    """``t[x] = XOR of columns[k] over the set bits k of x`` for every ``x < 2^len(columns)``: the doubling trick
    (``t[2^k + x] = t[x] ^ columns[k]`` for ``x < 2^k``), one XOR per entry."""
    out = np.empty(1 << len(columns), dtype=dtype)
    out[0] = 0
    for k, col in enumerate(columns):
        half = 1 << k
        np.bitwise_xor(out[:half], out.dtype.type(col), out=out[half:2 * half])
    return out


def xor_table(columns: Sequence[int], limit: int | None = None, what: str = "layout domain") -> np.ndarray:
    """The linear map with these F2 columns, tabulated: ``t[x] = XOR of columns[k] over the set bits k of x`` for
    every ``x < 2^len(columns)``, as ``int64`` (the doubling trick of the module docstring).

    Requires: every column below ``2^63``.  Raises ``SizeGuardError`` above the size guard (``limit``, default
    :func:`max_points`).  Example: ``xor_table([1, 4]).tolist() == [0, 1, 4, 5]``."""
    _guard(1 << len(columns), limit, what)
    return _doubled(columns, np.int64)


def evaluate(layout: LinearLayout, limit: int | None = None) -> dict[str, np.ndarray]:
    """Per out dim, the value at every flattened input (see the module docstring)."""
    flat = evaluate_flat(layout, limit)
    res: dict[str, np.ndarray] = {}
    for name, shift in layout.flat_out_shifts().items():
        size = layout.out_dim_size(name)
        res[name] = ((flat >> flat.dtype.type(shift)) & flat.dtype.type(size - 1)).astype(np.int64)
    return res


def inverse_table(layout: LinearLayout, limit: int | None = None) -> np.ndarray:
    """For an invertible layout, ``t[y] = x`` with ``L(x) == y`` (flattened both sides)."""
    if not layout.is_invertible():
        raise LayoutError("inverse_table needs an invertible layout")
    flat = evaluate_flat(layout, limit)
    inv = np.empty_like(flat)
    inv[flat] = np.arange(flat.size, dtype=flat.dtype)
    return inv
