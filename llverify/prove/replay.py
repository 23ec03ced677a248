"""Replay a counterexample on concrete functions before anyone sees it.

A refutation is only reported after evaluating every side of the claim at
the counterexample, concretely (``LinearLayout.apply``, a Python function,
generated code run in an interpreter), and seeing the difference.  This
module holds the generic part, usable for any sides of type
``Callable[[dict[str, int]], Any]``:

* :func:`replay` evaluates every side at a point;
* :func:`differs` says whether the values show a difference;
* :func:`replayed_counterexample` does both, minimises the point (see
  :mod:`llverify.prove.minimize`) and builds the
  :class:`~llverify.prove.verdict.Counterexample`; if the replay shows no
  difference it raises :class:`ReplayFailure` (an internal error of the
  prover, never a refutation).

Example::

    cx = replayed_counterexample({"A(x)": A.apply, "B(x)": B.apply}, {"lane": 5})
    cx.sides["A(x)"] != cx.sides["B(x)"]   # guaranteed
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from llverify.errors import LlverifyError
from llverify.prove.minimize import minimize
from llverify.prove.verdict import Counterexample

__all__ = ["ReplayFailure", "differs", "plain", "replay", "replayed_counterexample"]

Side = Callable[[dict[str, int]], Any]


class ReplayFailure(LlverifyError):
    """A counterexample proposed by a method did not show the failure when replayed."""


def plain(value: Any) -> Any:
    """Mappings (e.g. ``apply``'s read-only result) as plain dicts, recursively."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    return value


def replay(sides: Mapping[str, Side], point: Mapping[str, int]) -> dict[str, Any]:
    """Evaluate every side at ``point``: ``{side name: plain value}``."""
    return {name: plain(f(dict(point))) for name, f in sides.items()}


def differs(values: Mapping[str, Any]) -> bool:
    """True iff at least two of the values are different."""
    vals = list(values.values())
    return any(v != vals[0] for v in vals[1:])


def replayed_counterexample(sides: Mapping[str, Side], point: Mapping[str, int], *,
                            holds: Callable[[dict[str, int]], bool] | None = None,
                            extra: Mapping[str, Side] | None = None,
                            note: str = "", shrink: bool = True) -> Counterexample:
    """Replay, minimise and package a counterexample.

    ``holds`` is the failure predicate (default: the sides differ).  ``extra``
    sides are evaluated and shown but do not decide the failure (e.g. ``C(x)``
    in a conversion).  Raises :class:`ReplayFailure` if ``holds`` is false at
    ``point``.
    """
    def default_holds(p: dict[str, int]) -> bool:
        return differs(replay(sides, p))

    pred = holds or default_holds
    start = {k: int(v) for k, v in point.items()}
    try:
        ok = pred(dict(start))
    except (ValueError, KeyError, IndexError) as e:
        raise ReplayFailure(f"counterexample {start} could not be replayed: {e}") from e
    if not ok:
        raise ReplayFailure(f"counterexample {start} does not show the failure when replayed: "
                            f"{replay(sides, start)}")
    best = minimize(start, pred) if shrink else start
    values = replay(sides, best)
    if extra:
        values.update(replay(extra, best))
    return Counterexample(inputs=best, sides=values, note=note)
