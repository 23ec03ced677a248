"""Concrete failure predicates for layout claims, and their counterexamples.

Each function here takes the candidate point a method proposed, replays it
with ``LinearLayout.apply`` (never with the method that found it), shrinks
it (:mod:`~llverify.prove.minimize`) and returns a
:class:`~llverify.prove.verdict.Counterexample`, or raises
:class:`~llverify.prove.replay.ReplayFailure` when the replay does not show
the failure.  The kinds of failure:

* ``collision``: two distinct inputs ``x, x'`` with ``L(x) == L(x')`` (not
  injective; inputs are named ``register, lane, ..., register', lane', ...``);
* ``outside_image``: a value ``f(x)`` that no input of ``target`` reaches
  (not surjective; a conversion with no solution).  Replayed by evaluating
  ``target`` at every one-hot input and checking, by F2 elimination, that
  ``f(x)`` is not an XOR of those images, which by linearity (definition
  4.1) is exactly "not in the image";
* ``bad_column``: a one-hot input whose image has a forbidden number of set
  bits (definitions 4.10 and 4.14);
* ``repeated_column``: two one-hot inputs with the same non-zero image;
* ``out_of_bounds``: an input whose output leaves an allocation.
"""

from __future__ import annotations

from typing import Callable, Mapping

from llverify import f2
from llverify.layout import LinearLayout
from llverify.prove.points import flatten_in, flatten_out, one_hot
from llverify.prove.replay import plain, replayed_counterexample
from llverify.prove.verdict import Counterexample

__all__ = [
    "applied_columns",
    "bad_column",
    "collision",
    "outside_image",
    "out_of_bounds",
    "prime",
    "repeated_column",
    "split_pair",
]


def applied_columns(L: LinearLayout, allowed: int | None = None) -> list[int]:
    """Flat images of the one-hot inputs, computed with ``apply`` (bits in ``allowed`` only)."""
    cols = []
    for j in range(L.total_in_bits):
        if allowed is None or (allowed >> j) & 1:
            cols.append(flatten_out(L, L.apply(one_hot(L, j))))
    return cols


def prime(point: Mapping[str, int]) -> dict[str, int]:
    """``{"lane": 3} -> {"lane'": 3}``: names of the second point of a pair."""
    return {f"{k}'": v for k, v in point.items()}


def split_pair(L: LinearLayout, pair: Mapping[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """Inverse of ``{**x, **prime(x2)}``."""
    names = L.in_dim_names
    return {d: int(pair[d]) for d in names}, {d: int(pair[f"{d}'"]) for d in names}


def collision(L: LinearLayout, x: Mapping[str, int], x2: Mapping[str, int], *,
              allowed: int | None = None, note: str = "") -> Counterexample:
    """Distinct inputs with equal outputs; with ``allowed`` (a flat bit mask) both must use only those bits."""
    def holds(p: dict[str, int]) -> bool:
        a, b = split_pair(L, p)
        fa, fb = flatten_in(L, a), flatten_in(L, b)
        if allowed is not None and ((fa | fb) & ~allowed):
            return False
        return fa != fb and plain(L.apply(a)) == plain(L.apply(b))

    sides = {"L(x)": lambda p: L.apply(split_pair(L, p)[0]), "L(x')": lambda p: L.apply(split_pair(L, p)[1])}
    return replayed_counterexample(sides, {**dict(x), **prime(x2)}, holds=holds,
                                   note=note or "two different inputs give the same output")


def outside_image(f: Callable[[dict[str, int]], Mapping[str, int]], point: Mapping[str, int],
                  target: LinearLayout, *, allowed: int | None = None, label: str = "y",
                  note: str = "") -> Counterexample:
    """``f(point)`` (a named point of ``target``'s out space) is reached by no input of ``target``.

    ``allowed`` restricts ``target``'s inputs to the flat bits in the mask.
    """
    def holds(p: dict[str, int]) -> bool:
        y = f(p)
        for n, v in y.items():
            if not 0 <= v < target.out_dim_size(n):
                return False
        return not f2.in_span(flatten_out(target, y), applied_columns(target, allowed))

    return replayed_counterexample({label: lambda p: dict(f(p))}, point, holds=holds,
                                   extra={"reachable": lambda p: False},
                                   note=note or f"no input reaches {label}")


def bad_column(L: LinearLayout, j: int, bad: Callable[[int], bool], *, note: str = "") -> Counterexample:
    """The one-hot input ``e_j`` whose image has a forbidden number of non-zero bits."""
    def count(p: dict[str, int]) -> int:
        return f2.bit_count(flatten_out(L, L.apply(p)))

    def holds(p: dict[str, int]) -> bool:
        return f2.bit_count(flatten_in(L, p)) == 1 and bad(count(p))

    return replayed_counterexample({"L(x)": L.apply}, one_hot(L, j), holds=holds,
                                   extra={"non-zero bits": count}, note=note, shrink=False)


def repeated_column(L: LinearLayout, j: int, k: int, *, note: str = "") -> Counterexample:
    """Two different one-hot inputs with the same non-zero image."""
    def holds(p: dict[str, int]) -> bool:
        a, b = split_pair(L, p)
        fa, fb = flatten_in(L, a), flatten_in(L, b)
        if f2.bit_count(fa) != 1 or f2.bit_count(fb) != 1 or fa == fb:
            return False
        ya = plain(L.apply(a))
        return ya == plain(L.apply(b)) and flatten_out(L, ya) != 0

    sides = {"L(x)": lambda p: L.apply(split_pair(L, p)[0]), "L(x')": lambda p: L.apply(split_pair(L, p)[1])}
    return replayed_counterexample(sides, {**one_hot(L, j), **prime(one_hot(L, k))}, holds=holds,
                                   note=note or "two basis inputs have the same non-zero image", shrink=False)


def out_of_bounds(L: LinearLayout, x: Mapping[str, int], bounds: Mapping[str, int], *,
                  note: str = "") -> Counterexample:
    """An input whose output has ``L(x)[d] >= bounds[d]`` for some out dim ``d``."""
    def holds(p: dict[str, int]) -> bool:
        y = L.apply(p)
        return any(y[d] >= b for d, b in bounds.items())

    return replayed_counterexample({"L(x)": L.apply}, x, holds=holds,
                                   extra={"bounds": lambda p: dict(bounds)},
                                   note=note or "the output lies outside the allocation")

