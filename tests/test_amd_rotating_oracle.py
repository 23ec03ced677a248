"""``#ttg.amd_rotating_shared`` against Triton 3.9's own C++: a differential test over the sampler's parameters.

The wheel has no Python path from a rotating attribute to its linear layout (Gluon has no builder for it and
``get_gluon_layout_from_memdesc`` answers "Unhandled encoding").  Triton's AMD lowering is the oracle instead:
for random parameters (``llverify.hw.sampling.amd_rotating_shared_case``), a random wave64 register layout
(a bijective ``#ttg.linear`` with registers only inside one swizzle vector, see ``_register_layout``) and
element width, a module that stores a tensor into a rotating buffer (``ttg.local_alloc``) and reads
it back (``ttg.local_load``) is lowered to LLVM IR by Triton's gfx942 backend in a child process
(``tests/_amd_rotating_child.py``); ``llverify lowered`` then evaluates every thread's shared addresses in that
code and proves ``right_elements``: each register goes to the address ``S^-1 R`` gives with llverify's
``amd_rotating_shared``.  Triton computes those addresses from its ``toLinearLayout`` of the attribute, so
equality on every thread is equality of the two layouts on every element (the register layout is onto).  Mutant: the same code checked against the plain ``swizzled_shared`` of the
same parameters is refuted wherever the rotation moves an element.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from llverify.hw import build
from llverify.hw.sampling import amd_rotating_shared_case
from llverify.lowered.validate import validate_texts
from llverify.triton import format_attr

HERE = Path(__file__).resolve().parent
DTYPES = {8: "i8", 16: "f16", 32: "f32"}


def module_text(shared: dict, register: dict, shape: list[int], bits: int, warps: int) -> str:
    """A wave64 gfx942 module: load a tensor, store it into a ``shared`` buffer, read it back, store it."""
    dt = DTYPES[bits]
    dims = "x".join(map(str, shape))
    ten = f"tensor<{dims}x{dt}, #reg>"
    ptrs = f"tensor<{dims}x!tt.ptr<{dt}>, #reg>"
    mem = f"!ttg.memdesc<{dims}x{dt}, #shared, #smem, mutable>"
    return "\n".join([
        f"#reg = {format_attr(register)}",
        f"#shared = {format_attr(shared)}",
        "#smem = #ttg.shared_memory",
        f'module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = {warps} : i32, '
        'ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {',
        f"  tt.func public @k(%arg0: !tt.ptr<{dt}>) {{",
        f"    %p = tt.splat %arg0 : !tt.ptr<{dt}> -> {ptrs}",
        f"    %v = tt.load %p : {ptrs}",
        f"    %a = ttg.local_alloc %v : ({ten}) -> {mem}",
        f"    %l = ttg.local_load %a : {mem} -> {ten}",
        f"    tt.store %p, %l : {ptrs}",
        "    tt.return",
        "  }",
        "}",
        ""])


def _rotation_matters(case: dict) -> bool:
    p = {k: v for k, v in case["shared"].items() if k != "kind"}
    return build("amd_rotating_shared", case["shape"], **p) != build("swizzled_shared", case["shape"], **p)


def _register_layout(rng: random.Random, shape: list[int], inner: int, reg_log: int) -> tuple[dict, int]:
    """A random ``#ttg.linear`` register layout that is a bijection onto the tensor (no element held twice, so
    no store is predicated): registers hold the ``reg_log`` lowest bits of dim ``inner`` (inside one swizzle
    vector, where every swizzled layout is the identity), the other unit bases are shuffled over the 6 lane
    bits of a wave64 and the warps.  Returns the layout and the warp count.

    Why registers stay inside a vector: ``right_elements`` finds, per instruction, *some* register whose
    addresses match, so it checks ``S^-1 R`` up to a relabelling of registers; a register bit the swizzle acts
    on could hide a wrong swizzle behind such a relabelling.  Inside a vector both layouts map register ``r``
    of thread ``t`` to ``base(t) + r``, so equal addresses at every thread force equal layouts."""
    units = [[1 << b if d == k else 0 for k in range(len(shape))]
             for d, n in enumerate(shape) for b in range(n.bit_length() - 1)]
    reg = [[1 << b if k == inner else 0 for k in range(len(shape))] for b in range(reg_log)]
    rest = [u for u in units if u not in reg]
    rng.shuffle(rest)
    lane, warp = rest[:6], rest[6:]
    return {"kind": "linear", "reg_bases": reg, "lane_bases": lane, "warp_bases": warp, "block_bases": []}, 1 << len(warp)


def sample(seed: int, n: int, n_rotating: int = 0) -> list[dict]:
    """``n`` cases as the sampler draws them (shapes of 64 to 1,024 threads' worth of elements, as one
    bijective register layout needs), then ``n_rotating`` more among those whose rotation moves an element (the buffer
    spans more than one rotation period: rarer in the plain draw)."""
    rng = random.Random(seed)
    out: list[dict] = []
    while len(out) < n + n_rotating:
        case = amd_rotating_shared_case(rng, cga=False)
        shape = case["shape"]
        bits = rng.choice([8, 16, 32])
        total_log = sum(d.bit_length() - 1 for d in shape)
        inner = case["params"]["order"][0]
        reg_log = rng.randint(0, min(case["params"]["vec"].bit_length() - 1, shape[inner].bit_length() - 1))
        if not 6 <= total_log - reg_log <= 10:  # one wave64 to 16 waves (1,024 threads, the workgroup limit)
            continue
        shared = {"kind": "amd_rotating_shared", **case["params"]}
        register, warps = _register_layout(rng, shape, inner, reg_log)
        c = {"shape": shape, "shared": shared, "bits": bits, "warps": warps,
             "ttgir": module_text(shared, register, shape, bits, warps)}
        if len(out) < n or _rotation_matters(c):
            out.append(c)
    return out


def lower_all(cases: list[dict], timeout: float = 900.0) -> list[dict]:
    """Triton's lowering of every case, in child processes (a crashed child's remaining cases run again, one
    child each, so one abort costs one case)."""
    results: list[dict] = []
    todo = list(cases)
    while todo:
        batch = todo if not results or len(todo) == len(cases) else todo[:1]
        proc = subprocess.run([sys.executable, str(HERE / "_amd_rotating_child.py")], input=json.dumps(
            [{"ttgir": c["ttgir"], "arch": "gfx942"} for c in batch]), capture_output=True, text=True, timeout=timeout)
        got = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        results += got
        todo = todo[len(got):]
        if todo and len(got) < len(batch):
            results.append({"ok": False, "error": f"Triton aborted: {proc.stderr.strip()[-200:]}"})
            todo = todo[1:]
    return results


def _right_elements(ttgir: str, llir: str, shared: int, strict: bool = True) -> dict[str, list[str]]:
    """Status of every ``right_elements`` finding per op; ``strict``: no other obligation is refuted either
    (in bounds, the wavefronts the layouts predict)."""
    out: dict[str, list[str]] = {}
    for f in validate_texts(ttgir, "m.ttgir", llir, "m.llir", shared):
        v = f.finding.verdict
        assert not strict or v.status != "refuted", v.message
        if v.property == "right_elements":
            out.setdefault(f.finding.op, []).append(v.status)
    return out


@pytest.fixture(scope="module")
def lowered() -> list[tuple[dict, dict]]:
    cases = sample(seed=12, n=160, n_rotating=40)
    return list(zip(cases, lower_all(cases)))


def test_random_rotating_layouts_equal_tritons_addresses(lowered) -> None:
    compiled = [(c, r) for c, r in lowered if r["ok"]]
    assert len(compiled) >= 0.9 * len(lowered), [r["error"] for _, r in lowered if not r["ok"]][:3]
    for case, res in compiled:
        found = _right_elements(case["ttgir"], res["llir"], res["shared"])
        assert set(found) == {"ttg.local_alloc", "ttg.local_load"}, (case["ttgir"], found)
        assert all(s == "proved" for ss in found.values() for s in ss), (case["ttgir"], found)


def test_the_plain_swizzle_is_refuted_where_rotation_matters(lowered) -> None:
    """Mutant: read the lowered code as if the buffer were ``swizzled_shared`` with the same parameters."""
    matters = [(c, r) for c, r in lowered if r["ok"] and _rotation_matters(c)]
    assert len(matters) >= 8
    for case, res in matters:
        mutant = case["ttgir"].replace("#ttg.amd_rotating_shared<", "#ttg.swizzled_shared<")
        found = _right_elements(mutant, res["llir"], res["shared"], strict=False)
        assert "refuted" in found.get("ttg.local_alloc", []), (case["ttgir"], found)


def test_the_sample_covers_the_parameter_space(lowered) -> None:
    """The 200 cases reach every rank, element width and each parameter's range (so the oracle saw them)."""
    ok = [c for c, r in lowered if r["ok"]]
    assert {len(c["shape"]) for c in ok} == {1, 2, 3}
    assert {c["bits"] for c in ok} == {8, 16, 32}
    for key in ("vec", "per_phase", "max_phase"):
        assert {c["shared"][key] for c in ok} == {1, 2, 4, 8}, key
