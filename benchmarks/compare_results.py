"""Compare two llverify JSON outputs (``llverify ttgir --format json`` or ``llverify check --format json``),
ignoring timings: every status, message, counterexample and detail must be identical.

    python3 benchmarks/compare_results.py before.json after.json     # exit 0: identical, 1: differences listed

Used to show that a performance change does not change any verdict (issue 11's benchmark work).
"""

from __future__ import annotations

import json
import sys
from typing import Any

IGNORED = ("seconds",)


def strip(value: Any) -> Any:
    """``value`` without timing keys, recursively."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in IGNORED}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def main(before: str, after: str) -> int:
    with open(before) as fa, open(after) as fb:
        a, b = strip(json.load(fa)), strip(json.load(fb))
    if a == b:
        print(f"identical (timings ignored): {len(a.get('results', []))} results")
        return 0
    ra, rb = a.get("results", []), b.get("results", [])
    print(f"results: {len(ra)} vs {len(rb)}")
    shown = 0
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x != y and shown < 5:
            shown += 1
            for k in sorted(set(x) | set(y)):
                if x.get(k) != y.get(k):
                    print(f"result {i} {k}:\n  before: {json.dumps(x.get(k))[:400]}\n  after:  {json.dumps(y.get(k))[:400]}")
    for k in sorted(set(a) | set(b)):
        if k != "results" and a.get(k) != b.get(k):
            print(f"top-level '{k}' differs")
    return 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: " + __doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
