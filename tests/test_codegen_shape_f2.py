"""Shape ops proved by F2 (bit maps composed with layouts), cross-checked by exhaustive enumeration."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from llverify.codegen.shape_ops import infer_shape_op
from llverify.hw import build
from llverify.layout import LinearLayout as LL
from llverify.prove.plan_shape_ops import prove_shape_op


def layouts() -> dict[str, LL]:
    par = {"kind": "nvidia_mma", "version": [2, 0], "warps_per_cta": [2, 2], "instr_shape": [16, 8]}
    return {
        "blocked": build("blocked", [32, 16], size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[2, 2],
                         order=[1, 0]),
        "blocked_t": build("blocked", [16, 32], size_per_thread=[2, 1], threads_per_warp=[4, 8],
                           warps_per_cta=[1, 2], order=[0, 1]),
        "mma_v2": build("nvidia_mma", [32, 16], version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8]),
        "dot_a": build("dot_operand", [32, 16], operand_index=0, parent=par, k_width=2),
    }


def cases(L: LL):
    """(op, direction, params) applicable to the 2-D layout L."""
    n0, n1 = L.out_dims.values()
    yield "trans", "forward", {"perm": [1, 0]}
    yield "trans", "backward", {"perm": [1, 0]}
    yield "reshape", "forward", {"shape": [n0 * n1 // 4, 4]}
    yield "reshape", "forward", {"shape": [2, n0 // 2, n1]}
    yield "reshape", "backward", {"shape": [n0 * n1]}
    yield "join", "forward", {}
    yield "join", "forward", {"reg_bit": 2}
    yield "expand_dims", "forward", {"axis": 0}
    yield "expand_dims", "forward", {"axis": 2}


def plans():
    for name, L in layouts().items():
        for op, direction, kw in cases(L):
            yield f"{name}:{op}:{direction}:{kw}", infer_shape_op(op, L, direction, **kw)
        joined = infer_shape_op("join", L).outputs[0]
        yield f"{name}:split", infer_shape_op("split", joined)
        yield f"{name}:join-back", infer_shape_op("join", joined, "backward")
        yield f"{name}:split-back", infer_shape_op("split", L, "backward", reg_bit=1)
        e = infer_shape_op("expand_dims", L, axis=2).outputs[0]
        b = infer_shape_op("broadcast", e, dim=2, size=4)
        yield f"{name}:broadcast", b
        yield f"{name}:broadcast-back", infer_shape_op("broadcast", b.outputs[0], "backward", dim=2)
        yield f"{name}:squeeze", infer_shape_op("expand_dims", e, "backward", axis=2)


ALL = list(plans())


@pytest.mark.parametrize("name,plan", ALL, ids=[n for n, _ in ALL])
def test_f2_and_exhaustive_agree_proved(name, plan):
    f = prove_shape_op(plan, method="f2")
    e = prove_shape_op(plan, method="exhaustive")
    assert f.status == e.status == "proved", (f.message, e.message)
    assert f.method == "f2" and e.method == "exhaustive"
    assert f.certificate["points_checked"] < e.certificate["points"]
    assert prove_shape_op(plan).method == "f2"   # the default


def test_bit_maps_equal_the_op_semantics_on_every_point():
    """The F2 maps are built from the ops' definitions; check them against in_coord/in_point everywhere."""
    for name, plan in ALL:
        for k, Lo in enumerate(plan.outputs):
            cmap, pmap = plan.coord_bitmap(k), plan.point_bitmap(k)
            Li = plan.inputs[0]
            top_c, top_p = Li.total_out_bits, Li.total_in_bits
            out_shifts, in_shifts = Lo.flat_out_shifts(), Li.flat_out_shifts()
            # every coordinate of the output tensor
            for coords in itertools.product(*[range(s) for s in Lo.out_dims.values()]):
                c = dict(zip(Lo.out_dim_names, coords))
                flat = sum(v << out_shifts[n] for n, v in c.items())
                op_i, cin = plan.in_coord(k, c)
                want = sum(v << in_shifts[n] for n, v in cin.items()) | (op_i << top_c)
                assert cmap(flat) == want, (name, c)
            offs_o, offs_i = Lo.flat_in_offsets(), Li.flat_in_offsets()
            for x in range(Lo.total_in_size):
                hw = {d: (x >> offs_o[d]) & (Lo.in_dim_size(d) - 1) for d in Lo.in_dim_names}
                op_j, hin = plan.in_point(k, hw)
                want = sum(v << offs_i[d] for d, v in hin.items()) | (op_j << top_p)
                assert pmap(x) == want, (name, hw)


def _replays(plan, v) -> None:
    """The counterexample's slot really fails: recompute both sides from the layouts."""
    ce = dict(v.counterexample.inputs)
    k = ce.pop("output")
    Lo = plan.outputs[k]
    op_i, cin = plan.in_coord(k, dict(Lo.apply(ce)))
    op_j, hin = plan.in_point(k, ce)
    Li = plan.inputs[op_j]
    actual = dict(Li.apply({d: hin.get(d, 0) for d in Li.in_dim_names}))
    assert (op_i, cin) != (op_j, {n: actual[n] for n in cin})
    assert v.counterexample.sides["op(output element)"] == {"operand": op_i, **cin}


def _swap_regs(L: LL, i: int, j: int) -> LL:
    b = {d: [list(x) for x in bs] for d, bs in L.bases.items()}
    b["register"][i], b["register"][j] = b["register"][j], b["register"][i]
    return LL(list(b.items()), list(L.out_dims.items()), require_surjective=False)


def mutants():
    L = layouts()["blocked"]
    t = infer_shape_op("trans", L, perm=[1, 0])
    yield "trans forgot to transpose", dataclasses.replace(t, outputs=(L.transpose_outs(["dim1", "dim0"]),))
    r = infer_shape_op("reshape", L, shape=[128, 4])
    yield "reshape with two register bases swapped", dataclasses.replace(r, outputs=(_swap_regs(r.outputs[0], 0, 2),))
    j = infer_shape_op("join", L)
    yield "join reading the operand from the wrong register bit", dataclasses.replace(j, meta={"reg_bit": 1})
    s = infer_shape_op("split", j.outputs[0])
    yield "split with the halves swapped", dataclasses.replace(s, outputs=(s.outputs[0], _swap_regs(s.outputs[1], 0, 1)))
    e = infer_shape_op("expand_dims", L, axis=2).outputs[0]
    b = infer_shape_op("broadcast", e, dim=2, size=4)
    yield "broadcast dropping the wrong register bit", dataclasses.replace(b, meta={"dropped_reg_bits": [0, 1]})


@pytest.mark.parametrize("name,plan", list(mutants()), ids=[n for n, _ in mutants()])
def test_mutants_refuted_by_both_methods_with_replay(name, plan):
    f = prove_shape_op(plan, method="f2")
    e = prove_shape_op(plan, method="exhaustive")
    assert f.status == e.status == "refuted", (f.status, f.message, e.status)
    _replays(plan, f)
    _replays(plan, e)


def test_f2_proves_sizes_exhaustive_refuses():
    big = build("blocked", [4096, 4096], size_per_thread=[4, 8], threads_per_warp=[4, 8], warps_per_cta=[8, 1],
                order=[1, 0])
    plan = infer_shape_op("reshape", big, shape=[1024, 16384])
    e = prove_shape_op(plan, method="exhaustive")
    assert e.status == "unknown"
    f = prove_shape_op(plan)
    assert f.status == "proved" and f.seconds < 5
    t = prove_shape_op(infer_shape_op("trans", big, perm=[1, 0]))
    assert t.status == "proved"
