"""Record or compare the lowered-code validation results of every sample (soundness guard for speed work).

``record OUT.json``: the JSON results of ``llverify.lowered.validate`` on every ``tests/data/lowered*/*.ttgir``
sample, timings removed.  ``compare OUT.json``: re-run and report every difference of status, property, op,
message, counterexample or details (timings excepted); a change of proof method alone is counted, not a
difference.  Exit 1 on a difference.

    PYTHONPATH=. python3 benchmarks/lowered_snapshot.py record /tmp/before.json
    PYTHONPATH=. python3 benchmarks/lowered_snapshot.py compare /tmp/before.json
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_TIMING = {"seconds", "time", "elapsed"}


def _strip(x):
    if isinstance(x, dict):
        return {k: _strip(v) for k, v in x.items() if k not in _TIMING}
    if isinstance(x, list):
        return [_strip(v) for v in x]
    return x


def snapshot() -> tuple[dict, dict]:
    from llverify.lowered.validate import validate_texts

    out, times = {}, {}
    for ttgir in sorted(ROOT.glob("tests/data/lowered*/*.ttgir")):
        llir = ttgir.with_suffix(".llir")
        shared = int(json.loads(ttgir.with_suffix(".json").read_text())["shared"] or 0)
        t0 = time.process_time()
        res = validate_texts(ttgir.read_text(), ttgir.name, llir.read_text(), llir.name, shared)
        times[ttgir.name] = time.process_time() - t0
        out[ttgir.name] = [_strip(f.to_json()) for f in res]
    return out, times


def main() -> None:
    mode, path = sys.argv[1], Path(sys.argv[2])
    got, times = snapshot()
    for k, v in sorted(times.items(), key=lambda kv: -kv[1]):
        print(f"{v:7.2f} s CPU  {k}")
    print(f"{sum(times.values()):7.2f} s CPU in all")
    if mode == "record":
        path.write_text(json.dumps(got, indent=1, sort_keys=True))
        return
    want = json.loads(path.read_text())
    bad, methods = 0, {}
    for name in sorted(set(want) | set(got)):
        a, b = want.get(name), got.get(name)
        if a == b:
            continue
        if a is None or b is None or len(a) != len(b):
            print(f"DIFF {name}: {None if a is None else len(a)} vs {None if b is None else len(b)} results")
            bad += 1
            continue
        for x, y in zip(a, b):
            if x != y and {**x, "method": None} == {**y, "method": None}:
                change = (x["property"], x["status"], x["method"], y["method"])
                methods[change] = methods.get(change, 0) + 1
            elif x != y:
                bad += 1
                print(f"DIFF {name}:\n  before {json.dumps(x, sort_keys=True)}\n  after  {json.dumps(y, sort_keys=True)}")
    for (prop, status, m0, m1), n in sorted(methods.items()):
        print(f"method only: {n} {prop} {status}: {m0} -> {m1}")
    print("identical (statuses, messages, witnesses)" if not bad else f"{bad} difference(s)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
