"""shape_op: "no data moves between threads" versus "equals the op's no-op layout" (issue 13 item 4), on the
result layouts Triton itself chose in the TTGIR corpus."""

from __future__ import annotations

from pathlib import Path

from llverify.codegen.shape_ops import infer_shape_op
from llverify.prove.locality import thread_local
from llverify.prove.properties import equal
from llverify.ttgir.layouts import BuiltLayout, layout_of
from llverify.ttgir.reader import parse_module

CORPUS = Path(__file__).resolve().parent / "data" / "ttgir"


def test_triton_inferred_expand_dims_and_broadcast_move_no_data() -> None:
    checked = 0
    for path in sorted(CORPUS.glob("*cuda_90-w4.ttgir")):
        mod = parse_module(path.read_text(), str(path))
        for _, op, _ in mod.walk():
            if op.name not in ("tt.expand_dims", "tt.broadcast") or not op.operand_types:
                continue
            a, r = layout_of(op.operand_types[0]), layout_of(op.results[0].type)
            if not (isinstance(a, BuiltLayout) and isinstance(r, BuiltLayout)):
                continue
            if op.name == "tt.expand_dims":
                inferred = infer_shape_op("expand_dims", a.layout, axis=op.attr_int("axis")).outputs[0]
            else:
                inferred = a.layout
                for d, (x, y) in enumerate(zip(op.operand_types[0].shape, op.results[0].type.shape)):
                    if x != y:
                        inferred = infer_shape_op("broadcast", inferred, dim=d, size=y).outputs[0]
            declared = r.layout
            inferred = inferred.transpose_outs(list(declared.out_dim_names))
            assert thread_local(inferred, declared).status == "proved", (path.name, op.location.line)
            assert equal(inferred, declared).status in ("proved", "refuted")  # decided, never an error
            checked += 1
    assert checked >= 50


def test_no_data_movement_is_refuted_when_an_element_changes_thread() -> None:
    from llverify.hw.registry import build

    L = build("blocked", [64, 64], size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1],
              order=[1, 0])
    T = infer_shape_op("trans", L, perm=[1, 0]).outputs[0]
    wrong = build("blocked", [64, 64], size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1],
                  order=[1, 0])
    v = thread_local(T, wrong)
    assert v.status == "refuted"
    x = dict(v.counterexample.inputs)
    e = dict(wrong.apply(**x))
    thread = {d: x[d] for d in ("lane", "warp", "block")}
    assert all(dict(T.apply(register=r, **thread)) != e for r in range(T.in_dim_size("register")))
