"""Validate a located spec document and turn it into a :class:`~llverify.spec.model.Spec`.

Every problem is reported as a :class:`~llverify.spec.source.Diagnostic`
(``path:line:col: error: what``).  One file is validated as far as possible
so a user sees all of its errors at once: a bad layout does not hide a bad
check below it (checks that refer to a broken layout are not re-reported).

Top-level keys: ``layouts`` (mapping), ``checks`` (list), and the optional
``title`` and ``description`` strings.  See ``docs/spec.md``.
"""

from __future__ import annotations

from typing import Any, Mapping

from llverify.spec.argtypes import check_value, type_name
from llverify.spec.kinds import COMMON_KEYS, KINDS
from llverify.spec.layouts import LAYOUT_SOURCES, build_layout, decl_of
from llverify.spec.model import EXPECTS, METHODS, CheckDecl, LayoutDecl, Spec
from llverify.spec.source import Diagnostic, LList, LMap, Pos, SpecError, SpecErrors, load_file, load_text
from llverify.spec.suggest import suggest

__all__ = ["parse_document", "load_spec", "load_spec_text", "TOP_KEYS"]

TOP_KEYS: tuple[str, ...] = ("layouts", "checks", "title", "description")
MAX_TIMEOUT = 24 * 3600.0


def _end_line(checks: LList, i: int, fallback: int) -> int:
    """Last line of check ``i``: the line before the next check starts."""
    if i + 1 < len(checks.item_pos):
        return max(checks.item_pos[i].line, checks.item_pos[i + 1].line - 1)
    return fallback


def _subject(kind_name: str, args: Mapping[str, Any]) -> str:
    kind = KINDS[kind_name]
    names = [args[k] for k in kind.positional if k in args]
    if kind_name in ("conversion", "shuffle_plan", "optimal_swizzle") and len(names) == 2:
        return f"{names[0]} -> {names[1]}"
    if kind_name == "shape_op":
        return f"{args.get('op')}({args.get('layout')})"
    return ", ".join(str(n) for n in names)


def _parse_check(path: str, item: Any, where: Pos, index: int, end_line: int,
                 layouts: Mapping[str, Any]) -> CheckDecl:
    if isinstance(item, str):
        if item in KINDS:
            raise SpecError(path, where, f"check '{item}' needs arguments, e.g. `- {item}: <layout>`")
        raise SpecError(path, where, f"a check must be a mapping like `- surjective: src`, not the string {item!r}")
    if not isinstance(item, LMap):
        raise SpecError(path, where, f"a check must be a mapping like `- surjective: src`, not {type_name(item)}")
    props = [k for k in item if k not in COMMON_KEYS]
    if not props:
        raise SpecError(path, where, "check names no property (e.g. `surjective: src`); "
                        f"known properties: {', '.join(KINDS)}")
    for k in props:
        if k not in KINDS:
            raise SpecError(path, item.where_key(k),
                            f"unknown check property or key '{k}'{suggest(k, list(KINDS) + list(COMMON_KEYS))}")
    if len(props) > 1:
        raise SpecError(path, item.where_key(props[1]),
                        f"a check has exactly one property, found {', '.join(props)}; split it into several checks")
    prop = props[0]
    kind = KINDS[prop]
    raw = item[prop]
    apos = item.where(prop)
    # short forms -> the argument mapping
    if isinstance(raw, LMap):
        argmap: dict[str, tuple[Any, Pos]] = {k: (v, raw.where(k)) for k, v in raw.items()}
        for k in raw:
            if k not in kind.args:
                raise SpecError(path, raw.where_key(k),
                                f"unknown argument '{k}' of check '{prop}'{suggest(k, kind.args)}; "
                                f"arguments: {', '.join(kind.args)}")
    elif isinstance(raw, LList):
        if not kind.positional or len(raw) > len(kind.positional) or len(raw) == 0:
            raise SpecError(path, apos, f"check '{prop}' takes a list of {len(kind.positional)} layout name(s) "
                            f"({', '.join(kind.positional)}), got {len(raw)} item(s)")
        argmap = {k: (v, raw.where(i)) for i, (k, v) in enumerate(zip(kind.positional, raw))}
    elif isinstance(raw, str) and kind.positional:
        argmap = {kind.positional[0]: (raw, apos)}
    else:
        raise SpecError(path, apos, f"arguments of check '{prop}' must be a layout name, a list or a mapping, "
                        f"not {type_name(raw)}")
    args: dict[str, Any] = {}
    for k, (v, p) in argmap.items():
        args[k] = check_value(kind.args[k], v, p, path, f"argument '{k}' of check '{prop}'", layouts)
    missing = [k for k, a in kind.args.items() if a.required and k not in args]
    if missing:
        raise SpecError(path, apos, f"check '{prop}' is missing required argument(s): {', '.join(missing)}")

    def opt(key: str) -> Any:
        return item[key] if key in item else None

    expect = opt("expect") if "expect" in item else "proved"
    if expect not in EXPECTS:
        raise SpecError(path, item.where("expect"), f"expect is {expect!r}; expected one of {', '.join(EXPECTS)}")
    method = opt("method")
    if method is not None and method not in METHODS:
        raise SpecError(path, item.where("method"), f"method is {method!r}; expected one of {', '.join(METHODS)}")
    if method not in (None, "auto") and method not in kind.methods:
        what = (f"use one of {', '.join(kind.methods)}" if kind.methods
                else "its proof chooses its own complete methods")
        raise SpecError(path, item.where("method"), f"method '{method}' does not apply to check '{prop}': {what}")
    timeout = opt("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not 0 < timeout <= MAX_TIMEOUT):
        raise SpecError(path, item.where("timeout"), f"timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}], "
                        f"not {timeout!r}")
    rlimit = opt("rlimit")
    if rlimit is not None and (isinstance(rlimit, bool) or not isinstance(rlimit, int) or rlimit <= 0):
        raise SpecError(path, item.where("rlimit"), f"rlimit must be a positive integer, not {rlimit!r}")
    name = opt("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise SpecError(path, item.where("name"), "name must be a non-empty string")
    description = opt("description")
    if description is not None and not isinstance(description, str):
        raise SpecError(path, item.where("description"), "description must be a string")
    subject = _subject(prop, args)
    return CheckDecl(
        spec=path, index=index, name=name or f"{prop}({subject})", property=prop, args=args,
        expect=expect, timeout=float(timeout) if timeout is not None else None,
        method=None if method in (None, "auto") else method, rlimit=rlimit, pos=where,
        end_line=end_line, description=description or "", subject=subject, layouts=kind.layout_names(args))


def parse_document(doc: Any, path: str) -> Spec:
    """Validate a located document; raise :class:`SpecErrors` with every problem found."""
    diags: list[Diagnostic] = []
    if doc is None:
        raise SpecErrors([Diagnostic(path, Pos(), "empty spec: expected a mapping with `layouts:` and `checks:`")])
    if not isinstance(doc, LMap):
        raise SpecErrors([Diagnostic(path, getattr(doc, "pos", Pos()),
                                     f"a spec must be a mapping with `layouts:` and `checks:`, not {type_name(doc)}")])
    for k in doc:
        if k not in TOP_KEYS:
            diags.append(Diagnostic(path, doc.where_key(k), f"unknown top-level key '{k}'{suggest(k, TOP_KEYS)}; "
                                    f"expected {', '.join(TOP_KEYS)}"))
    title = doc.get("title", "")
    if not isinstance(title, str):
        diags.append(Diagnostic(path, doc.where("title"), "title must be a string"))
        title = ""
    description = doc.get("description", "")
    if not isinstance(description, str):
        diags.append(Diagnostic(path, doc.where("description"), "description must be a string"))
        description = ""

    decls: dict[str, LayoutDecl] = {}
    built: dict[str, Any] = {}
    broken: set[str] = set()
    raw_layouts = doc.get("layouts", LMap())
    if raw_layouts is None:
        raw_layouts = LMap(doc.where("layouts"))
    if not isinstance(raw_layouts, LMap):
        diags.append(Diagnostic(path, doc.where("layouts"), f"layouts must be a mapping of names to layouts, "
                                f"not {type_name(raw_layouts)}"))
        raw_layouts = LMap()
    for name, body in raw_layouts.items():
        try:
            decl = decl_of(path, name, body, raw_layouts.where_key(name), raw_layouts.where(name))
            decls[name] = decl
            built[name] = build_layout(path, decl, body, decls, built)
        except SpecError as exc:
            diags.append(exc.diagnostic)
            broken.add(name)

    if "checks" not in doc:
        diags.append(Diagnostic(path, doc.pos, "spec has no `checks:` list"))
        raw_checks = LList()
    else:
        raw_checks = doc["checks"]
        if not isinstance(raw_checks, LList):
            diags.append(Diagnostic(path, doc.where("checks"), f"checks must be a list, not {type_name(raw_checks)}"))
            raw_checks = LList()
    checks: list[CheckDecl] = []
    names: dict[str, Pos] = {}
    last_line = max([p.line for p in raw_checks.item_pos] + [doc.pos.line]) + 1
    known = {**{n: None for n in built}, **{n: None for n in broken}}
    for i, item in enumerate(raw_checks):
        where = raw_checks.where(i)
        try:
            chk = _parse_check(path, item, where, i, _end_line(raw_checks, i, last_line), known)
        except SpecError as exc:
            diags.append(exc.diagnostic)
            continue
        if any(n in broken for n in chk.layout_names()):
            continue  # already reported at the layout
        if chk.name in names:
            what = "duplicate check name" if isinstance(item, LMap) and "name" in item else "duplicate check"
            pos = item.where("name") if isinstance(item, LMap) and "name" in item else where
            if what == "duplicate check":
                k = 2
                while f"{chk.name} #{k}" in names:
                    k += 1
                chk = CheckDecl(**{**chk.__dict__, "name": f"{chk.name} #{k}"})
            else:
                diags.append(Diagnostic(path, pos, f"{what} '{chk.name}' (first at line {names[chk.name].line})"))
                continue
        names[chk.name] = where
        checks.append(chk)
    if diags:
        raise SpecErrors(sorted(diags, key=lambda d: (d.pos.line, d.pos.col)))
    return Spec(path=path, layouts=built, decls=decls, checks=tuple(checks), title=title, description=description)


def load_spec(path: str) -> Spec:
    """Read, parse and validate one spec file (raises :class:`SpecErrors`)."""
    try:
        doc = load_file(path)
    except SpecError as exc:
        raise SpecErrors([exc.diagnostic]) from None
    return parse_document(doc, path)


def load_spec_text(text: str, path: str = "<spec>.yaml") -> Spec:
    """Parse and validate spec text (tests, tools that generate specs)."""
    try:
        doc = load_text(text, path)
    except SpecError as exc:
        raise SpecErrors([exc.diagnostic]) from None
    return parse_document(doc, path)


__all__ += ["suggest", "LAYOUT_SOURCES"]
