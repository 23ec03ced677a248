"""The vectorised memory replay of a conversion (``llverify/lowered/replay.py``) against a direct reference: the
write-by-write replay it replaced (a cell keeps the writes no later write is ordered after; a read sees those
ordered before it), on random programs with duplicated writers, several rounds, CTA and warp barriers, races
and unwritten cells.  A mutant replay that forgets supersession is caught."""

from __future__ import annotations

import random

import numpy as np
import pytest

from llverify.lowered import replay as replay_mod
from llverify.lowered.replay import Event, replay


def reference(events: list[Event], threads: int, lanes: int, js: tuple[int, ...]):
    """Per read (events in order, threads ascending): per j the ordered list of (writer, slot, writer j) it
    sees, and per j whether it races."""
    mem: dict[int, list] = {}
    cta: dict[tuple[int, int], set[int]] = {}
    warp: dict[tuple[int, int], set[int]] = {}
    reads = []
    for ev in events:
        civ, wiv = ev.intervals
        for t in range(threads):
            base, wt = int(ev.at[t]), t // lanes
            if ev.is_store:
                for k, j in enumerate(js):
                    lst = mem.setdefault(base + j, [])
                    lst[:] = [w for w in lst if not (w[0] == t or w[1] < civ or (w[0] // lanes == wt and w[2] < wiv))]
                    lst.append((t, civ, wiv, ev.slot, k))
                    cta.setdefault((civ, base + j), set()).add(t)
                    warp.setdefault((wiv, base + j), set()).add(t)
            else:
                got = []
                for j in js:
                    got.append([(w[0], w[3], w[4]) for w in mem.get(base + j, ())
                                if w[0] == t or w[1] < civ or (w[0] // lanes == wt and w[2] < wiv)])
                reads.append((t, base, civ, wiv, got))
    out = []
    for t, base, civ, wiv, got in reads:
        races = []
        for j in js:
            others = ({x for x in cta.get((civ, base + j), ()) if x // lanes != t // lanes}
                      | {x for x in warp.get((wiv, base + j), ()) if x // lanes == t // lanes and x != t})
            races.append(bool(others))
        out.append((got, races))
    return out


def random_events(rng: random.Random, threads: int, lanes: int) -> list[Event]:
    events, civ, wiv, slots = [], 0, 0, [0, 0]
    for _ in range(rng.randrange(2, 9)):
        r = rng.random()
        if r < 0.2:
            civ, wiv = civ + 1, wiv + 1
        elif r < 0.3:
            wiv += 1
        store = rng.random() < 0.5
        at = np.array([rng.randrange(12) for _ in range(threads)]) if rng.random() < 0.5 else \
            np.array([(t * rng.choice([1, 2, 3]) + rng.randrange(3)) % 16 for t in range(threads)])
        events.append(Event(store, slots[not store], at, (civ, wiv)))
        slots[not store] += 1
    return events


@pytest.mark.parametrize("seed", range(80))
def test_replay_matches_the_write_by_write_reference(seed: int) -> None:
    rng = random.Random(seed)
    threads, lanes = 8, 4
    js = rng.choice([(0,), (0, 1)])
    events = random_events(rng, threads, lanes)
    if not any(e.is_store for e in events) or all(e.is_store for e in events):
        return
    want = reference(events, threads, lanes, js)
    got = replay(events, threads, lanes, js)
    read_of, jpos, writer, wslot, wj = got.seen
    for r, (seen, races) in enumerate(want):
        for k in range(len(js)):
            sel = (read_of == r) & (jpos == k)
            assert list(zip(writer[sel].tolist(), wslot[sel].tolist(), wj[sel].tolist())) == seen[k], (seed, r, k)
            assert bool(got.race[r, k]) == races[k], (seed, r, k)
            assert bool(got.unwritten[r, k]) == (not seen[k]), (seed, r, k)


def test_a_replay_without_supersession_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real_next = replay_mod._next

    def never(keys, order, e_sorted, query, same):  # noqa: ANN001, ANN202
        return np.full(len(query), np.iinfo(np.int64).max)

    monkeypatch.setattr(replay_mod, "_next", never)
    caught = False
    for seed in range(80):
        rng = random.Random(seed)
        js = rng.choice([(0,), (0, 1)])
        events = random_events(rng, 8, 4)
        if not any(e.is_store for e in events) or all(e.is_store for e in events):
            continue
        want = reference(events, 8, 4, js)
        got = replay(events, 8, 4, js)
        n = sum(len(s) for seen, _ in want for s in seen)
        caught |= n != len(got.seen[0])
    assert caught
    monkeypatch.setattr(replay_mod, "_next", real_next)
