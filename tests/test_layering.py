"""DESIGN.md's layering rule, enforced: imports inside llverify only point down.

f2 -> layout/evaluate -> hw -> triton -> codegen -> prove -> index ->
spec/report/cli -> gpu.  A module may import its own layer or any layer
below it, never one above (dynamic `importlib` lookups by the spec runner are
the front end's business and are not counted).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "llverify"

LAYERS = {
    "errors": 0, "f2": 1,
    "layout": 2, "evaluate": 2, "column_action": 2, "layout_text": 2, "layout_divide": 2, "layout_invert": 2,
    "hw": 3, "triton": 4, "codegen": 5, "prove": 6, "index": 7,
    "spec": 8, "report": 8, "cli": 8, "ttgir": 8, "lowered": 8, "executor": 8, "sweep": 8, "triton_gate": 8, "gpu": 9,
}


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "llverify":
        return None
    if len(parts) == 1:
        return 2  # the package root re-exports layout-layer types (and the version)
    return LAYERS.get(parts[1])


def test_every_module_is_assigned_a_layer():
    names = {p.stem if p.parent == ROOT else p.relative_to(ROOT).parts[0] for p in ROOT.rglob("*.py")}
    names.discard("__init__")
    assert names <= set(LAYERS), sorted(names - set(LAYERS))


def upward_imports(rel: Path, source: str) -> list[str]:
    mine = LAYERS[rel.parts[0].removesuffix(".py")]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            mods = [node.module]
        else:
            continue
        for m in mods:
            theirs = layer_of(m)
            if theirs is not None and theirs > mine:
                found.append(f"{rel}: imports {m}")
    return found


def test_imports_only_point_down():
    upward = []
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if rel != Path("__init__.py"):
            upward += upward_imports(rel, path.read_text())
    assert not upward, "\n".join(upward)


def test_the_checker_catches_an_upward_import():
    assert upward_imports(Path("layout.py"), "from llverify.prove import equal\n") == [
        "layout.py: imports llverify.prove"]
    assert upward_imports(Path("hw/blocked.py"), "import llverify.spec.cli\n")
    assert not upward_imports(Path("prove/x.py"), "from llverify.codegen import convert\nimport numpy\n")
