"""DESIGN.md's layering rule, enforced: imports inside llverify only point down.

f2 -> layout/evaluate -> hw -> triton -> codegen/indexcode -> prove -> index ->
spec/report/cli -> gpu.  A module may import its own layer or any layer
below it, never one above (dynamic `importlib` lookups by the spec runner are
the front end's business and are not counted).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "llverify"

LAYERS = {
    "errors": 0, "installed": 0, "f2": 1,
    "layout": 2, "evaluate": 2, "column_action": 2, "layout_text": 2, "layout_views": 2, "layout_divide": 2, "layout_invert": 2,
    "hw": 3, "triton": 4, "codegen": 5, "indexcode": 5, "prove": 6, "index": 7,
    "spec": 8, "report": 8, "cli": 8, "ttgir": 8, "lowered": 8, "executor": 8, "sweep": 8, "triton_gate": 8, "gpu": 9,
    "__main__": 9,  # `python -m llverify`: the command line, the top of the house
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


# -- no import cycles between modules -------------------------------------------------------------
#
# The layer rule above allows imports within a layer, so it cannot see a cycle such as
# ``layout -> layout_divide -> layout``.  Here every ``import`` / ``from ... import`` anywhere in a
# module (top level, inside functions and methods, relative ones, and inside ``if TYPE_CHECKING:``) is an
# edge of the module graph, and the graph must be acyclic.  A type-only import cycle never runs, but it
# still says two modules each need the other: the type belongs lower down (where its values are made)
# or the lower module names what it reads as a ``Protocol`` (``layout_views.Viewable``).  An edge goes to
# the module named (``from llverify.hw import tiles`` to ``llverify.hw.tiles``, ``from llverify.hw import
# build`` to the package ``llverify.hw``), not to the parent packages Python also initialises on the way.


def module_names(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package at ``root`` (packages by ``__init__``)."""
    out = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _known(name: str, modules: set[str]) -> str | None:
    """The longest prefix of ``name`` that is one of ``modules`` (``None`` outside the package)."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        prefix = ".".join(parts[:n])
        if prefix in modules:
            return prefix
    return None


def imported_modules(name: str, source: str, modules: set[str], is_package: bool = False) -> set[str]:
    """The modules of ``modules`` that module ``name`` (with text ``source``) imports anywhere."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                pkg = name.split(".") if is_package else name.split(".")[:-1]
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join(pkg + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for t in targets:
            m = _known(t, modules)
            if m is not None and m != name:
                found.add(m)
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (anywhere in its text)."""
    paths = module_names(root)
    names = set(paths)
    return {n: imported_modules(n, p.read_text(), names, p.name == "__init__.py") for n, p in paths.items()}


def _shortest_path(graph: dict[str, set[str]], src: str, dst: str) -> list[str] | None:
    """A shortest path ``src -> ... -> dst`` (breadth first, ties broken by name), or ``None``."""
    parent = {src: src}
    frontier = [src]
    while frontier and dst not in parent:
        nxt = []
        for u in frontier:
            for v in sorted(graph.get(u, ())):
                if v not in parent:
                    parent[v] = u
                    nxt.append(v)
        frontier = nxt
    if dst not in parent:
        return None
    path = [dst]
    while path[-1] != src:
        path.append(parent[path[-1]])
    return path[::-1]


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every edge that lies on a cycle, shown as a shortest cycle through it (``[a, b, ..., a]``), each once."""
    cycles: dict[frozenset[tuple[str, str]], list[str]] = {}
    for u in sorted(graph):
        for v in sorted(graph[u]):
            back = _shortest_path(graph, v, u)
            if back is not None:
                c = [u] + back
                i = c.index(min(c[:-1]))  # rotate to start at the smallest name: one spelling per cycle
                c = c[i:-1] + c[:i] + [c[i]]
                cycles.setdefault(frozenset(zip(c, c[1:])), c)
    return sorted(cycles.values())


def test_no_import_cycles():
    cycles = import_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_cycle_detector_catches_a_synthetic_cycle(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("import pkg.b\n")
    (pkg / "b.py").write_text("def f():\n    from pkg.sub import c\n")      # function-level import
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text("from .. import a\nimport numpy\n")   # relative import back to a
    (pkg / "d.py").write_text("from pkg import a\n")                        # on no cycle
    (pkg / "e.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import f\n"
                              "else:\n    import pkg.d\n")
    (pkg / "f.py").write_text("import pkg.e\n")                             # e -> f for annotations only
    graph = import_graph(pkg)
    assert graph["pkg.sub.c"] == {"pkg.a"} and graph["pkg.b"] == {"pkg.sub.c"} and graph["pkg.e"] == {"pkg.d", "pkg.f"}
    assert import_cycles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"], ["pkg.e", "pkg.f", "pkg.e"]]
    (pkg / "b.py").write_text("def f():\n    pass\n")
    (pkg / "f.py").write_text("")
    assert import_cycles(import_graph(pkg)) == []


# -- no string imports ---------------------------------------------------------------------------
#
# A registry names its entries by importing them (``Kind("blocked", blocked)``, a check kind's
# ``impl``), never by ``importlib.import_module("llverify....")``: a string import is invisible to the
# two tests above and to every static tool.  The one exception is the command line (llverify/cli.py),
# which assembles ``llverify gpu`` from the layer above it: one string import, no other.
STRING_IMPORTS_ALLOWED = {Path("cli.py")}


def string_imports(source: str) -> list[int]:
    """Lines calling ``importlib.import_module`` / ``import_module`` / ``__import__``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name in ("import_module", "__import__"):
                lines.append(node.lineno)
    return lines


def test_no_string_imports():
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sorted(ROOT.rglob("*.py"))
             if p.relative_to(ROOT) not in STRING_IMPORTS_ALLOWED for n in string_imports(p.read_text())]
    assert not found, "string imports:\n" + "\n".join(found)
    assert len(string_imports((ROOT / "cli.py").read_text())) == 1  # the gpu subcommand only
    assert string_imports("import importlib\nm = importlib.import_module('llverify.hw')\n") == [2]
    assert not string_imports("from importlib import resources\n")


# -- plan proofs mirror codegen/ -----------------------------------------------------------------
#
# Each plan module of ``llverify/codegen/`` that has a proof has exactly one proof module, named after
# it: ``codegen/swizzle.py`` is proved by ``prove/plan_swizzle.py``, whose docstring names the codegen
# module and states what is proved.
def plan_proof_mismatches(root: Path) -> list[str]:
    """``prove/plan_<x>.py`` modules with no ``codegen/<x>.py``, or whose docstring does not name it."""
    bad = []
    for path in sorted((root / "prove").glob("plan_*.py")):
        plan = path.stem.removeprefix("plan_")
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        if not (root / "codegen" / f"{plan}.py").exists():
            bad.append(f"{path.name}: no codegen/{plan}.py")
        elif f"llverify.codegen.{plan}`" not in doc:
            bad.append(f"{path.name}: its docstring does not name llverify.codegen.{plan}")
    return bad


def test_plan_proofs_mirror_codegen_one_module_per_plan():
    assert not plan_proof_mismatches(ROOT)
    assert not list((ROOT / "prove").glob("plans*.py"))  # no grab-bag of plan proofs
    assert len(list((ROOT / "prove").glob("plan_*.py"))) >= 9


def test_the_mirror_check_catches_a_misnamed_proof(tmp_path):
    (tmp_path / "prove").mkdir()
    (tmp_path / "codegen").mkdir()
    (tmp_path / "codegen" / "swizzle.py").write_text("")
    (tmp_path / "prove" / "plan_swizzle.py").write_text('"""Proof of :mod:`llverify.codegen.banks`."""\n')
    (tmp_path / "prove" / "plan_swizzles.py").write_text('"""Proof of :mod:`llverify.codegen.swizzle`."""\n')
    assert plan_proof_mismatches(tmp_path) == ["plan_swizzle.py: its docstring does not name llverify.codegen.swizzle",
                                               "plan_swizzles.py: no codegen/swizzles.py"]
