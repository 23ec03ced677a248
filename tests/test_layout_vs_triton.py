"""Differential tests: llverify's LinearLayout against Triton's own (3.9.0 wheel).

Every case batch runs in a child process (Triton aborts on some inputs).  The
cases are random layouts from a seeded generator; each operation's result is
compared as Triton's ``toString()`` text, which pins bases, dim orders and
out sizes exactly.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from llverify import LayoutError, LinearLayout

triton = pytest.importorskip("triton", reason="triton is not importable: differential tests need the oracle")

CHILD = os.path.join(os.path.dirname(__file__), "_ll_oracle_child.py")
IN_NAMES = ["register", "lane", "warp", "block"]


def run_oracle(cases: list[dict]) -> list:
    proc = subprocess.run([sys.executable, CHILD], input=json.dumps(cases), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def oracle_aborts(case: dict) -> bool:
    proc = subprocess.run([sys.executable, CHILD], input=json.dumps([case]), capture_output=True, text=True,
                          timeout=120)
    return proc.returncode != 0


def ser(L: LinearLayout) -> dict:
    return {"bases": [[d, [list(b) for b in bs]] for d, bs in L.bases.items()],
            "outs": [[n, s] for n, s in L.out_dims.items()]}


def rand_layout(r: random.Random, outs: dict[str, int] | None = None, ins: list[str] | None = None,
                surjective: bool = False, max_bases: int = 5) -> LinearLayout:
    if outs is None:
        names = r.sample(["dim0", "dim1", "dim2"], r.randint(1, 3))
        outs = {n: 1 << r.randint(0, 5) for n in names}
    if ins is None:
        ins = r.sample(IN_NAMES, r.randint(1, 4))
    bases = {d: [[r.randrange(s) for s in outs.values()] for _ in range(r.randint(0, max_bases))] for d in ins}
    if surjective:
        for k, (o, s) in enumerate(outs.items()):
            b = 1
            while b < s:
                v = [0] * len(outs)
                v[k] = b
                bases[r.choice(ins)].insert(r.randint(0, len(bases[ins[0]])), v) if False else bases[r.choice(ins)].append(v)
                b <<= 1
        # shuffle each dim's bases so the identity is not always at the end
        for d in ins:
            r.shuffle(bases[d])
    return LinearLayout(bases, outs, require_surjective=surjective)


def make_cases(seed: int, n: int):
    r = random.Random(seed)
    ours, cases = [], []
    for _ in range(n):
        op = r.choice(["str", "apply", "matrix", "predicates", "pseudoinvert", "product", "compose",
                       "invert_and_compose", "invert_and_compose"])
        if op in ("str", "matrix", "predicates"):
            a = rand_layout(r)
            ours.append({"str": lambda a=a: str(a), "matrix": lambda a=a: a.get_matrix_view(),
                         "predicates": lambda a=a: [a.is_surjective(), a.is_injective(), a.is_invertible()]}[op])
            cases.append({"op": op, "a": ser(a)})
        elif op == "apply":
            a = rand_layout(r)
            x = {d: r.randrange(s) for d, s in a.in_dims.items()}
            ours.append(lambda a=a, x=x: dict(a.apply(x)))
            cases.append({"op": op, "a": ser(a), "x": x})
        elif op == "pseudoinvert":
            a = rand_layout(r, surjective=True)
            ours.append(lambda a=a: str(a.pseudoinvert()))
            cases.append({"op": op, "a": ser(a)})
        elif op == "product":
            a, b = rand_layout(r), rand_layout(r)
            try:
                a * b
            except LayoutError:
                continue
            ours.append(lambda a=a, b=b: str(a * b))
            cases.append({"op": op, "a": ser(a), "b": ser(b)})
        elif op == "compose":
            a = rand_layout(r)
            b_ins = list(a.out_dims)
            r.shuffle(b_ins)
            b = rand_layout(r, ins=b_ins, max_bases=0)
            b = LinearLayout({d: [[r.randrange(s) for s in b.out_dims.values()]
                                  for _ in range((a.out_dims[d] * (1 << r.randint(0, 1))).bit_length() - 1)]
                              for d in b_ins}, dict(b.out_dims), require_surjective=False)
            ours.append(lambda a=a, b=b: str(a.compose(b)))
            cases.append({"op": op, "a": ser(a), "b": ser(b)})
        else:
            b = rand_layout(r, surjective=True)
            outs = dict(b.out_dims)
            keys = list(outs)
            r.shuffle(keys)
            shared = [d for d in b.in_dim_names if r.random() < 0.5]
            ins = r.sample(IN_NAMES, r.randint(1, 4))
            a = rand_layout(r, outs={k: outs[k] for k in keys}, ins=ins)
            # sometimes copy a dim verbatim so the identity-dim path is taken
            bases = {d: [list(v) for v in bs] for d, bs in a.bases.items()}
            perm = [keys.index(k) for k in b.out_dim_names]
            for d in shared:
                if d in bases:
                    bases[d] = [[v[keys.index(k)] for k in keys] for v in
                                [[bb[b.out_dim_names.index(k)] for k in keys] for bb in b.bases[d]]]
            del perm
            a = LinearLayout(bases, {k: outs[k] for k in keys}, require_surjective=False)
            ours.append(lambda a=a, b=b: str(a.invert_and_compose(b)))
            cases.append({"op": op, "a": ser(a), "b": ser(b)})
    return ours, cases


@pytest.mark.parametrize("seed", [1, 2])
def test_random_operations_agree_with_triton(seed):
    ours, cases = make_cases(seed, 250)
    theirs = run_oracle(cases)
    ops = {}
    for mine, case, t in zip(ours, cases, theirs):
        assert mine() == t, f"{case['op']} disagrees:\ncase={json.dumps(case)}"
        ops[case["op"]] = ops.get(case["op"], 0) + 1
    # every operation was exercised
    assert set(ops) == {"str", "apply", "matrix", "predicates", "pseudoinvert", "product", "compose",
                        "invert_and_compose"}, ops
    print(f"triton {triton.__version__}: {sum(ops.values())} cases agree: {ops}")


@pytest.mark.slow
def test_random_operations_agree_with_triton_many():
    for seed in range(10, 30):
        ours, cases = make_cases(seed, 500)
        theirs = run_oracle(cases)
        for mine, case, t in zip(ours, cases, theirs):
            assert mine() == t, f"{case['op']} disagrees:\ncase={json.dumps(case)}"


def test_identity_zeros_strided_constructors_agree_with_triton():
    cases, ours = [], []
    for n in (1, 2, 8, 32):
        for L in (LinearLayout.identity_1d(n, "lane", "dim0"), LinearLayout.zeros_1d(n, "lane", "dim0", 4),
                  LinearLayout.strided_1d(n, 4, "lane", "dim1")):
            cases.append({"op": "str", "a": ser(L)})
            ours.append(str(L))
    assert run_oracle(cases) == ours


def test_where_we_raise_triton_aborts():
    """Our LayoutError cases are ones Triton refuses too (it aborts the process)."""
    a = LinearLayout({"register": [[1]], "lane": [[2]]}, {"dim0": 4})
    not_surj = LinearLayout({"register": [[1]]}, {"dim0": 4}, require_surjective=False)
    with pytest.raises(LayoutError, match="surjective"):
        a.invert_and_compose(not_surj)
    assert oracle_aborts({"op": "invert_and_compose", "a": ser(a), "b": ser(not_surj)})
    other_outs = LinearLayout({"register": [[1]]}, {"dim1": 2})
    with pytest.raises(LayoutError, match="dim0"):
        a.compose(other_outs)
    assert oracle_aborts({"op": "compose", "a": ser(a), "b": ser(other_outs)})


def test_dim_supremum_matches_triton_on_every_ordering():
    """Product dim order for every pair of orderings of up to three of four dims,
    including orders that disagree (Triton resolves them without complaint)."""
    import itertools

    names = ["a", "b", "c", "d"]
    cases, ours = [], []
    for k1 in range(1, 4):
        for k2 in range(1, 4):
            for x in itertools.permutations(names, k1):
                for y in itertools.permutations(names, k2):
                    A = LinearLayout({d: [[1]] for d in x}, {"o": 2}, require_surjective=False)
                    B = LinearLayout({d: [[1]] for d in y}, {"o": 2}, require_surjective=False)
                    cases.append({"op": "product", "a": ser(A), "b": ser(B)})
                    ours.append(str(A * B))
    assert run_oracle(cases) == ours


def identical_dim_cases(seed: int, n: int):
    """Conversions whose source copies some of the destination's in dims verbatim:
    exercises the identity-dim rule and its fallback (see llverify.layout_invert)."""
    r = random.Random(seed)
    ours, cases = [], []
    for _ in range(n):
        outs = {"dim0": 1 << r.randint(1, 3), "dim1": 1 << r.randint(0, 2)}
        dst = rand_layout(r, outs=outs, ins=r.sample(IN_NAMES, r.randint(1, 4)), surjective=True, max_bases=2)
        src_ins = r.sample(IN_NAMES, r.randint(1, 4))
        bases = {d: [[r.randrange(s) for s in outs.values()] for _ in range(r.randint(0, 2))] for d in src_ins}
        for d in set(src_ins) & set(dst.in_dim_names):
            if r.random() < 0.6:
                bases[d] = [list(v) for v in dst.bases[d]]
        src = LinearLayout(bases, outs, require_surjective=False)
        ours.append(lambda a=src, b=dst: str(a.invert_and_compose(b)))
        cases.append({"op": "invert_and_compose", "a": ser(src), "b": ser(dst)})
    return ours, cases


def test_identical_dims_map_like_triton():
    ours, cases = identical_dim_cases(3, 600)
    theirs = run_oracle(cases)
    for mine, case, t in zip(ours, cases, theirs):
        assert mine() == t, f"invert_and_compose disagrees:\ncase={json.dumps(case)}"
