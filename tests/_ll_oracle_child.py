"""Child process for the Triton differential tests: reads cases (JSON) on stdin,
evaluates them with ``triton.tools.LinearLayout``, prints results (JSON).

Run in a separate process because Triton aborts the whole process on some
invalid inputs.  Each case: {"op": ..., "a": layout, "b": layout, "x": inputs}.
A layout is {"bases": [[in_dim, [[...], ...]], ...], "outs": [[out_dim, size], ...]}.
"""

from __future__ import annotations

import json
import sys

from triton.tools import LinearLayout as T


def build(spec):
    names = [n for n, _ in spec["outs"]]
    sizes = [s for _, s in spec["outs"]]
    return T.from_bases([(d, bs) for d, bs in spec["bases"]], names, sizes, False)


def run(case):
    op = case["op"]
    a = build(case["a"])
    if op == "str":
        return str(a)
    if op == "apply":
        return dict(a.apply(case["x"]))
    if op == "matrix":
        return a.get_matrix_view()
    if op == "predicates":
        return [a.is_surjective(), a.is_injective(), a.is_invertible()]
    if op == "pseudoinvert":
        return str(a.pseudoinvert())
    if op == "invert":
        return str(a.invert())
    if op == "distributed_view":
        return a.get_distributed_view(bool(case["hw"]))
    if op == "shared_view":
        return a.get_shared_view(bool(case["hw"]))
    b = build(case["b"])
    if op == "product":
        return str(a * b)
    if op == "compose":
        return str(a.compose(b))
    if op == "invert_and_compose":
        return str(a.invert_and_compose(b))
    raise ValueError(op)


def main() -> None:
    cases = json.load(sys.stdin)
    out = []
    for c in cases:
        out.append(run(c))
        # flush progress so a crash tells the parent how far we got
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
