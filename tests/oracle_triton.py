"""Run Triton 3.9.0's own layout conversion on llverify-style cases, in child processes.

The oracle is ``triton._C.libtriton.gluon_ir.GluonOpBuilder``: its
``get_*_layout`` methods build the real MLIR attributes and
``to_linear_layout(attr, shape)`` runs Triton's C++ ``toLinearLayout``.  Some
invalid inputs make LLVM abort the whole process, so cases never run in the
test process: a child ``python3 oracle_triton.py`` reads a JSON list of cases
on stdin and prints one JSON line per case, flushing after each; when the child
dies, the case it was on is recorded as ``{"ok": False, "abort": True}`` and a
new child resumes with the next case.

A *case* is what :func:`llverify.hw.build` takes::

    {"kind": "blocked", "shape": [64, 64],
     "params": {"size_per_thread": [1, 4], "threads_per_warp": [8, 4],
                "warps_per_cta": [4, 1], "order": [1, 0]}}

How each kind's attribute is built is not written here: every kind declares
it (``Kind.gluon`` in :mod:`llverify.hw.registry`, a function of the builder
and the parameters), and :func:`gluon_attr` derives every branch from those
declarations; a kind without one is skipped (:func:`skip_reason`).  Nested
parents (``slice``, ``dot_operand``) are ``{"kind": ..., **params}`` dicts.
The legacy CGA triple ``ctas_per_cga/cta_split_num/cta_order`` is turned into
``cga_layout`` bases by Triton's own ``make_cga_layout``.

Public API (other test modules may import it)::

    available() -> bool                  # is triton importable here?
    triton_version() -> str | None
    run_cases(cases, batch_size=400, timeout=600.0) -> list[dict]
    skip_reason(kind) -> str | None      # why a kind is not compared (it declares no Gluon builder)
    run_type_cases(items, timeout=600.0) -> list[dict]   # Triton's MLIR parser on type text

A *type item* is ``{"type": "tensor<64x64xf16, #ttg.blocked<{...}>>", "shape":
[64, 64], "num_warps": 4, "threads": 32, "num_ctas": 1}``: the child writes a
module whose function takes an argument of that type, parses it with
``ir.parse_mlir_module``, recovers the Gluon layout of the argument
(``get_gluon_layout_from_tensor``/``_memdesc``), converts it with
``to_linear_layout(shape)`` and returns ``{"ok": True, "bases": ...,
"printed": <the argument type as Triton re-prints it>, "aliases": <alias lines>}``.

Each result is ``{"ok": True, "bases": {in_dim: [[...], ...]}}`` (in dims
``register/lane/warp/block``, ``offset/block`` or ``row/col``), or
``{"ok": True, "padded": {"pairs": ..., "offset_bases": ...}}`` for a ``#ttg.padded_shared`` type (it has no
linear layout: Triton aborts; its padding and linear component as Triton parsed them are the answer), or
``{"ok": False, "error": message}`` when Triton raised, or
``{"ok": False, "abort": True, "error": stderr tail}`` when it aborted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import lru_cache
from typing import Any, Mapping, Sequence

_SELF = os.path.abspath(__file__)
_ROOT = os.path.dirname(os.path.dirname(_SELF))


def skip_reason(kind: str) -> str | None:
    """Why cases of ``kind`` are not compared with Triton (no Gluon builder declared), or None when they are."""
    from llverify.errors import LayoutError
    from llverify.hw.kinds import lookup

    try:
        declared = lookup(kind)
    except LayoutError:
        return f"unknown kind {kind!r}"
    if declared.gluon is None:
        return f"kind {declared.name!r} declares no Gluon builder (Kind.gluon), so Triton cannot build it here"
    return None


@lru_cache(maxsize=1)
def triton_version() -> str | None:
    """The installed triton's version (probed in a child process), or None."""
    try:
        out = subprocess.run([sys.executable, "-c", "import triton; print(triton.__version__)"],
                             capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def available() -> bool:
    """True when triton (with its Gluon builder) can be imported in a child process."""
    return triton_version() is not None


def run_cases(cases: Sequence[dict[str, Any]], batch_size: int = 400,
              timeout: float = 600.0) -> list[dict[str, Any]]:
    """Run every case through Triton; one result per case, in order (see module doc).

    A case whose kind declares no Gluon builder never reaches Triton: its result is
    ``{"ok": False, "skipped": True, "error": <the reason>}``.
    """
    results: list[dict[str, Any] | None] = [None] * len(cases)
    todo: list[int] = []
    for i, case in enumerate(cases):
        why = skip_reason(case["kind"])
        if why is None:
            todo.append(i)
        else:
            results[i] = {"ok": False, "skipped": True, "error": why}
    while todo:
        got = _run_child([cases[i] for i in todo[:batch_size]], timeout)
        for i, r in zip(todo, got):
            results[i] = r
        todo = todo[len(got):]
    return [r for r in results if r is not None]


def run_type_cases(items: Sequence[dict[str, Any]], timeout: float = 600.0) -> list[dict[str, Any]]:
    """Parse every type item with Triton's MLIR parser (see module doc); one result per item."""
    results: list[dict[str, Any]] = []
    todo = list(items)
    while todo:
        got = _run_child(todo, timeout, mode="--types")
        results.extend(got)
        todo = todo[len(got):]
    return results


def _expand_aliases(text: str, aliases: Mapping[str, str]) -> str:
    """``text`` with every ``#alias`` replaced by its definition (nested ones too, up to six levels)."""
    import re

    for _ in range(6):
        new = re.sub(r"#([A-Za-z_][\w$]*)(?![\w.<])", lambda m: aliases.get(m.group(1), m.group(0)), text)
        if new == text:
            return text
        text = new
    return text


def layouts_against_triton(modules: Sequence[Any]) -> tuple[int, int, int]:
    """(compared, oracle gaps, compared layouts split over CTAs): every tensor / memdesc layout of the module files
    ``modules``, as llverify builds it, asserted equal to Triton's ``to_linear_layout`` of the same type text at
    the module's warp, lane and CTA counts.  A gap is a type Gluon's bridge cannot express (empty offset bases of
    a one-element buffer, AMD's rotating shared layout): counted, never passed as equal.  Requires: triton."""
    import re
    from pathlib import Path

    from llverify.ttgir.layouts import BuiltLayout, layout_of
    from llverify.ttgir.reader import parse_module

    items: dict[tuple[str, int, int, int], Any] = {}
    for path in modules:
        text = Path(path).read_text()
        aliases = {m.group(1): m.group(2) for m in re.finditer(r"^#([\w$]+) = (#.*)$", text, re.M)
                   if not m.group(2).startswith("loc")}
        mod = parse_module(text, str(path))
        for _, op, _ in mod.walk():
            for r in op.results:
                if r.type.kind in ("tensor", "memdesc") and r.type.has_layout:
                    key = (_expand_aliases(r.type.text, aliases), mod.num_warps, mod.threads_per_warp, mod.num_ctas)
                    if key not in items:
                        built = layout_of(r.type)
                        assert isinstance(built, BuiltLayout), (key[0], built)
                        items[key] = built
    keys = list(items)
    res = run_type_cases([{"type": k[0], "num_warps": k[1], "threads": k[2], "num_ctas": k[3],
                           "shape": list(items[k].shape)} for k in keys])
    compared = gaps = split = 0
    for k, r in zip(keys, res):
        if not r["ok"]:
            assert "offset_bases must not be empty" in r["error"] or "Unhandled encoding" in r["error"], r
            gaps += 1
            continue
        mine = {d: [list(b) for b in bs] for d, bs in items[k].layout.bases.items()}
        assert mine == r["bases"], k[0]
        compared += 1
        split += any(any(b) for b in r["bases"].get("block", []))
    return compared, gaps, split


def _run_child(batch: list[dict[str, Any]], timeout: float, mode: str = "--layouts") -> list[dict[str, Any]]:
    """Run a batch in one child; stop at the first abort (which is recorded)."""
    env = dict(os.environ)
    env.setdefault("TRITON_CACHE_DIR", "/tmp/llverify-oracle-cache")
    proc = subprocess.run([sys.executable, _SELF, mode], input=json.dumps(batch), capture_output=True,
                          text=True, timeout=timeout, env=env)
    out: list[dict[str, Any]] = []
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            out.append(json.loads(line))
    if len(out) < len(batch):
        tail = "\n".join(l for l in proc.stderr.splitlines()
                         if "leaked" not in l and "nanobind" not in l and "skipped remainder" not in l)
        out.append({"ok": False, "abort": True, "error": tail[-2000:]})
    return out


# --------------------------------------------------------------------------- child side
class GluonOracleBuilder:
    """The :class:`llverify.hw.kinds.GluonBuilder` a kind's ``gluon`` function receives: Triton's
    ``GluonOpBuilder`` (its methods by attribute) plus ``cga`` and ``nested``."""

    def __init__(self, builder: Any, gluon_ir: Any) -> None:
        self._builder, self._gluon_ir = builder, gluon_ir

    def __getattr__(self, name: str) -> Any:
        return getattr(self._builder, name)

    def cga(self, p: Mapping[str, Any]) -> list[list[int]]:
        """``cga_layout`` as given, or the legacy CGA triple through Triton's own ``make_cga_layout``."""
        if p.get("cga_layout") is not None:
            return [list(b) for b in p["cga_layout"]]
        if p.get("ctas_per_cga") is not None:
            return [list(b) for b in self._gluon_ir.make_cga_layout(list(p["ctas_per_cga"]),
                                                                    list(p["cta_split_num"]), list(p["cta_order"]))]
        return []

    def nested(self, spec: Mapping[str, Any]) -> Any:
        """A nested layout ``{"kind": ..., **params}`` (a parent) built through its own declaration."""
        params = dict(spec)
        return gluon_attr(self, params.pop("kind"), params)


def gluon_attr(builder: Any, kind: str, params: Mapping[str, Any]) -> Any:
    """The attribute of ``kind`` with ``params``, built by the kind's declared ``gluon`` function."""
    from llverify.hw.kinds import lookup

    build = lookup(kind).gluon
    if build is None:
        raise ValueError(f"oracle: {skip_reason(kind)}")
    return build(builder, params)


def _convert(obj: Any) -> dict[str, Any]:
    name = type(obj).__name__
    if name == "DistributedLinearLayout":
        return {"register": obj.reg_bases, "lane": obj.lane_bases, "warp": obj.warp_bases, "block": obj.block_bases}
    if name == "SharedLinearLayout":
        return {"offset": obj.offset_bases, "block": obj.block_bases}
    if hasattr(obj, "rows") and hasattr(obj, "cols"):
        return {"row": obj.rows, "col": obj.cols}
    raise ValueError(f"oracle: unexpected result type {name}")


def _types_main() -> None:
    import re
    import tempfile

    from triton._C.libtriton import gluon_ir, ir  # noqa: PLC0415

    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    items = json.loads(sys.stdin.read())
    path = os.path.join(tempfile.mkdtemp(prefix="llverify-oracle-"), "m.mlir")
    for it in items:
        try:
            text = ('module attributes {"ttg.num-warps" = %d : i32, "ttg.num-ctas" = %d : i32, '
                    '"ttg.threads-per-warp" = %d : i32} {\n  tt.func public @f(%%arg0: %s) {\n    tt.return\n  }\n}\n'
                    % (it.get("num_warps", 4), it.get("num_ctas", 1), it.get("threads", 32), it["type"]))
            with open(path, "w") as fh:
                fh.write(text)
            mod = ir.parse_mlir_module(path, ctx)
            arg = mod.get_function("f").args(0)
            memdesc = it["type"].lstrip().startswith("!")
            glayout = (builder.get_gluon_layout_from_memdesc(arg) if memdesc
                       else builder.get_gluon_layout_from_tensor(arg))
            if type(glayout).__name__ == "PaddedSharedLayout":
                # no linear layout exists (Triton aborts); the oracle is the parsed padding and linear component
                res = {"ok": True, "padded": {"pairs": [list(map(int, p)) for p in glayout.interval_padding_pairs],
                                              "offset_bases": [list(map(int, b)) for b in glayout.offset_bases]}}
                sys.stdout.write(json.dumps(res) + "\n")
                sys.stdout.flush()
                continue
            ll = builder.to_linear_layout(glayout._to_ir(builder), list(it["shape"]))
            printed = mod.str()
            m = re.search(r"%arg0: (.*?) loc\(", printed)
            res: dict[str, Any] = {"ok": True, "bases": {k: [list(map(int, b)) for b in v]
                                                         for k, v in _convert(ll).items()},
                                   "printed": m.group(1) if m else None,
                                   "aliases": "\n".join(l for l in printed.splitlines()
                                                        if l.startswith("#") and not l.startswith("#loc"))}
        except Exception as exc:  # noqa: BLE001 - the oracle's verdict is the message
            res = {"ok": False, "error": f"{type(exc).__name__}: {exc}".strip()}
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()
    os._exit(0)


def _child_main() -> None:
    sys.path.insert(0, _ROOT)  # this working tree's llverify: the kinds' declarations say how to build each
    from triton._C.libtriton import gluon_ir, ir  # noqa: PLC0415

    ctx = ir.context()
    ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    cases = json.loads(sys.stdin.read())
    for case in cases:
        try:
            attr = gluon_attr(GluonOracleBuilder(builder, gluon_ir), case["kind"], dict(case.get("params", {})))
            ll = builder.to_linear_layout(attr, list(case["shape"]))
            res: dict[str, Any] = {"ok": True, "bases": {k: [list(map(int, b)) for b in v]
                                                         for k, v in _convert(ll).items()}}
        except Exception as exc:  # noqa: BLE001 - the oracle's verdict is the message
            res = {"ok": False, "error": f"{type(exc).__name__}: {exc}".strip()}
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()
    sys.stdout.flush()
    os._exit(0)  # skip nanobind's leak report at interpreter exit


if __name__ == "__main__":
    _types_main() if "--types" in sys.argv[1:] else _child_main()
