"""The shared memory of a conversion, replayed at every thread at once: what each load sees, and races.

A conversion's accesses run in program order (*events*: one instruction slot, all threads), each in a CTA
interval ``c`` and a warp interval ``w`` (barriers cut the code; :mod:`llverify.lowered.convert`).  A write
``x`` is *ordered before* an access ``y`` (``OB(x, y)``) when ``y``'s thread wrote it, or ``c_x < c_y``, or
both threads are in one warp and ``w_x < w_y``.  At a cell (an element, or a byte):

* a write is **superseded** by the first later write ``x'`` of the cell with ``OB(x, x')``; the writes a read
  ``r`` **sees** are those of the cell before it, not superseded before it, with ``OB(x, r)``: the candidates
  for the value it gets (several when duplicated source registers store one element from several threads);
* ``r`` **races** when a thread of another warp writes the cell in ``r``'s CTA interval, or another thread of
  its warp in its warp interval (no barrier orders them, whichever program order says);
* ``r`` is **unwritten** when it sees no write.

Each rule is a sort and a binary search over all threads' accesses (numpy): the supersession of a write is
the minimum of three "next write" queries (a later CTA interval; the same warp, a later warp interval; the
same thread), the writes a read sees the range of its cell's earlier writes filtered by those rules.

>>> import numpy as np
>>> ev = [Event(True, 0, np.array([0, 4]), (0, 0)), Event(False, 0, np.array([4, 0]), (1, 1))]
>>> r = replay(ev, threads=2, lanes=2, js=(0,))
>>> r.first_failure, r.seen[2].tolist(), r.seen[0].tolist()  # writer threads, per read
(None, [1, 0], [0, 1])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Event", "Replayed", "replay"]


@dataclass(frozen=True)
class Event:
    """One access instruction slot at every thread: a store or a load of ``slot``, the element's byte
    address per thread ``at``, its (CTA interval, warp interval)."""

    is_store: bool
    slot: int
    at: np.ndarray
    intervals: tuple[int, int]


@dataclass(frozen=True)
class Replayed:
    """Per read (load events in order, threads ascending) and cell ``j`` of ``js``; ``seen`` pairs: arrays
    ``(read, j index, writer thread, store slot, writer j)``, ordered by read, j, then program order of the
    writes; ``race`` / ``unwritten``: ``[read, j index]``; ``first_failure``: the first read (in order) that
    races, is unwritten or mixes writers across its cells, or None."""

    reads_slot: np.ndarray
    reads_t: np.ndarray
    reads_base: np.ndarray
    reads_iv: np.ndarray
    seen: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    race: np.ndarray
    unwritten: np.ndarray
    mixed: np.ndarray
    first_failure: int | None


def _next(keys: np.ndarray, order: np.ndarray, e_sorted: np.ndarray, query: np.ndarray,
          same: np.ndarray) -> np.ndarray:
    """The event of the first sorted write at or after ``query`` whose group equals ``same`` (else a big
    number): ``keys`` sorted ascending, ``order`` the permutation that sorted them."""
    pos = np.searchsorted(keys, query, side="left")
    ok = pos < len(keys)
    pos_c = np.minimum(pos, len(keys) - 1)
    ok &= same(order[pos_c])
    return np.where(ok, e_sorted[pos_c], np.iinfo(np.int64).max)


def replay(events: list[Event], threads: int, lanes: int, js: tuple[int, ...]) -> Replayed:
    """Replay ``events`` (in program order) at every thread (see the module docstring)."""
    T, J = threads, len(js)
    t_all = np.arange(T, dtype=np.int64)
    jv = np.array(js, dtype=np.int64)
    A = np.stack([ev.at for ev in events]).astype(np.int64)  # [event, thread]
    stores = np.array([ev.is_store for ev in events], dtype=bool)
    slot_e = np.array([ev.slot for ev in events], dtype=np.int64)
    civ_e = np.array([ev.intervals[0] for ev in events], dtype=np.int64)
    wiv_e = np.array([ev.intervals[1] for ev in events], dtype=np.int64)

    def rows(sel: np.ndarray) -> list[np.ndarray]:
        """(event, thread, cell, CTA interval, warp interval, slot, j index) per (event, thread, j)."""
        ev_ix = np.flatnonzero(sel)
        n = len(ev_ix)
        e = np.repeat(ev_ix, T * J)
        cells = (A[ev_ix][:, :, None] + jv[None, None, :]).reshape(-1)
        return [e, np.tile(np.repeat(t_all, J), n), cells, civ_e[e], wiv_e[e], slot_e[e], np.tile(np.arange(J), n * T)]

    we, wt, wcell, wc, ww, wslot, wj = rows(stores)
    re_, rt, rcell, rc, rw, rslot, rj = rows(~stores)
    wwarp, rwarp = wt // lanes, rt // lanes
    allc = np.concatenate([wcell, rcell])
    lo_c = int(allc.min()) if len(allc) else 0
    span = int(allc.max()) - lo_c + 1 if len(allc) else 1
    if span <= 8 * len(allc) + 1024:  # dense cell ids: the cell's offset from the lowest
        cid = allc - lo_c
    else:
        _, cid = np.unique(allc, return_inverse=True)
        cid = cid.reshape(-1)
    wcid, rcid = cid[:len(wcell)], cid[len(wcell):]
    nE, nT, nW = len(events) + 1, T + 1, T // lanes + 2
    nC, nWi = int(max(wc.max(initial=0), rc.max(initial=0))) + 2, int(max(ww.max(initial=0), rw.max(initial=0))) + 2
    # supersession: the first later write of the cell ordered after it (a later CTA interval; the same warp
    # in a later warp interval; the same thread).  Rows are generated in program order (event, thread), so a
    # stable sort by a group key orders each group by program order, and the intervals (monotone in it) too.
    o_s = _stable_order(wcid)  # by cell, then event, thread
    k_a = (wcid * nC + wc)[o_s]  # ascending
    f_a = _scatter(o_s, _next(k_a, o_s, we[o_s], k_a + 1, lambda i: wcid[i] == wcid[o_s]))
    o_b = _stable_order(wcid * nW + wwarp)  # by cell, warp, then program order
    k_b = ((wcid * nW + wwarp) * nWi + ww)[o_b]  # ascending
    f_b = _scatter(o_b, _next(k_b, o_b, we[o_b], k_b + 1,
                              lambda i: (wcid[i] == wcid[o_b]) & (wwarp[i] == wwarp[o_b])))
    g_c = wcid * nT + wt  # (cell, thread): its writes in program order; the next one is the same thread's
    o_c = _stable_order(g_c)
    f_c = np.full(len(we), np.iinfo(np.int64).max)
    if len(o_c) > 1:
        same = g_c[o_c[1:]] == g_c[o_c[:-1]]
        f_c[o_c[:-1][same]] = we[o_c[1:][same]]
    sup = np.minimum(np.minimum(f_a, f_b), f_c)
    # the writes each read row sees: its cell's writes before it, not superseded before it, ordered before it
    ks = (wcid * nE + we)[o_s]  # ascending
    o_r = _stable_order(rcid)  # reads by cell, then program order: ascending queries below
    lo = _scatter(o_r, np.searchsorted(ks, (rcid * nE)[o_r], side="left"))
    hi = _scatter(o_r, np.searchsorted(ks, (rcid * nE + re_)[o_r], side="left"))
    cnt = hi - lo
    row = np.repeat(np.arange(len(rcid)), cnt)
    start = np.repeat(np.cumsum(cnt) - cnt, cnt)
    w = o_s[lo[row] + (np.arange(len(row)) - start)] if len(row) else np.zeros(0, dtype=np.int64)
    ob = (wt[w] == rt[row]) | (wc[w] < rc[row]) | ((wwarp[w] == rwarp[row]) & (ww[w] < rw[row]))
    keep = (sup[w] > re_[row]) & ob
    row, w = row[keep], w[keep]
    # races: a writer of the cell in the read's CTA interval from another warp, or in its warp interval from
    # another thread of its warp
    race = _scatter(o_r, _group_differs(k_a, wwarp[o_s], (rcid * nC + rc)[o_r], rwarp[o_r]))
    o_rw = _stable_order(rcid * nW + rwarp)
    race |= _scatter(o_rw, _group_differs(k_b, wt[o_b], ((rcid * nW + rwarp) * nWi + rw)[o_rw], rt[o_rw]))
    n_reads = len(rcid) // J if J else 0
    seen_n = np.bincount(row, minlength=len(rcid))
    unwritten = (seen_n == 0).reshape(n_reads, J)
    race = race.reshape(n_reads, J)
    read_of = row // J
    jpos = row % J
    mixed = np.zeros(n_reads, dtype=bool)
    if J > 1:  # an element assembled from bytes of different stored elements
        cut = np.searchsorted(row, np.arange(len(rcid) + 1))  # `row` is sorted: each read row's seen writes
        for r in np.flatnonzero(~unwritten.any(axis=1)):
            rows = [(wt[w[cut[r * J + k]:cut[r * J + k + 1]]], wslot[w[cut[r * J + k]:cut[r * J + k + 1]]],
                     wj[w[cut[r * J + k]:cut[r * J + k + 1]]]) for k in range(J)]
            ref = dict(zip(rows[0][0].tolist(), rows[0][1].tolist()))
            for k in range(J):
                got = {int(a): (int(s), int(jb)) for a, s, jb in zip(*rows[k])}
                if len(got) != len(ref) or any(got.get(a) != (s, k) for a, s in ref.items()):
                    mixed[r] = True
    bad = race.any(axis=1) | unwritten.any(axis=1) | mixed
    first = int(np.flatnonzero(bad)[0]) if bad.any() else None
    rows0 = np.arange(0, len(rcid), J) if J else np.zeros(0, dtype=np.int64)
    return Replayed(rslot[rows0], rt[rows0], rcell[rows0], np.stack([rc[rows0], rw[rows0]], axis=1),
                    (read_of, jpos, wt[w], wslot[w], wj[w]), race, unwritten, mixed, first)


def _scatter(order: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` computed in ``order`` (a permutation), back in the original order."""
    out = np.empty_like(values)
    out[order] = values
    return out


def _stable_order(key: np.ndarray) -> np.ndarray:
    """A stable argsort of non-negative integer keys (a radix sort when they fit 16 bits)."""
    if len(key) and int(key.max()) < 1 << 16:
        return np.argsort(key.astype(np.uint16), kind="stable")
    return np.argsort(key, kind="stable")


def _group_differs(w_key: np.ndarray, w_val: np.ndarray, r_key: np.ndarray, r_val: np.ndarray) -> np.ndarray:
    """Per read: some write with the read's key has a value other than the read's (``w_key`` sorted ascending,
    ``w_val`` in the same order: each group's min and max compared with ``r_val``)."""
    if len(w_key) == 0:
        return np.zeros(len(r_key), dtype=bool)
    starts = np.flatnonzero(np.concatenate([[True], w_key[1:] != w_key[:-1]]))
    keys = w_key[starts]
    lo_v = np.minimum.reduceat(w_val, starts)
    hi_v = np.maximum.reduceat(w_val, starts)
    pos = np.minimum(np.searchsorted(keys, r_key), len(keys) - 1)
    found = keys[pos] == r_key
    return found & ((lo_v[pos] != r_val) | (hi_v[pos] != r_val))
