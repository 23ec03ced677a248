"""The gate's unit of work: one input path checked into an :class:`~llverify.ttgir.modcache.Outcome`.

:func:`run_unit` runs in a worker (or in process for ``-j 1``); it never raises.  It returns what the
command prints for the path (the text report's lines, verdict counts, the findings when the run needs
them) and, when the run has a cache and the module is storable, the record for the module cache,
keyed by the SHA-256 of the very bytes it checked (see :mod:`llverify.ttgir.modcache`).  The parent
process writes the records, in one transaction, after the run.

The module cache, hashing, JSON and the gate are loaded when a unit runs, not when this module is imported:
a ``-j N`` parent without a cache only names :func:`run_unit` to its workers (and weighs the paths with
:func:`unit_cost`), so its serial start-up does not pay for them (about 10 ms).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from llverify.ttgir.modcache import Outcome

__all__ = ["run_unit", "preload", "lowered_findings", "finding_doc", "failed_outcome", "unit_cost", "DIVISION_COST"]


#: what a run needs of each module besides its counts and text lines (:func:`run_unit`'s ``need``)
NEEDS = ("text", "json", "sarif", "findings")


def run_unit(unit: tuple[Any, ...]) -> Outcome:
    """Gate ``path``; ``unit`` = (path, ``need``, --lowered, the cache key context or None[, --target]).

    ``need``: ``text`` (counts and the text report's lines only), ``json`` (also each result's fragment of
    the JSON report), ``sarif`` (also the SARIF results) or ``findings`` (the Finding objects themselves);
    True and False mean ``findings`` and ``text``.  ``--target``: the target of modules without
    ``ttg.target`` (None: their file's RUN line decides, :mod:`llverify.ttgir.default_target`)."""
    from llverify.ttgir.gate import gate_path
    from llverify.ttgir.modcache import key_context

    path, need, lowered, context = unit[:4]
    target = unit[4] if len(unit) > 4 else None
    need = "findings" if need is True else "text" if need is False else need
    if context is not None and key_context(lowered, target) != context:
        context = None  # this worker runs other code or solvers than the parent keyed (a remote Ray node): no record
    res, data = gate_path(path, target)
    findings = list(res.findings)
    errors = list(res.errors)
    side = None
    if lowered:
        low, low_errors, side = lowered_findings(path, data, target)
        findings.extend(low)
        errors.extend(low_errors)
    return make_outcome(path, findings, errors, res.modules, need, context, data, side)


#: the cost of one integer division in a module's text, in bytes of text of the same cost.  A buffer index
#: computed through a division (``x - (x / 3) * 3``, the stage counter of a pipeline of 3 buffers) is not
#: enumerable, so its range is a Z3 query over 64-bit words (``llverify.ttgir.scalars.SymbolicScalars``):
#: about 0.3 s each, against about 1.6 s per MB of text for the rest of the gate (median over the corpus,
#: 2026-11-27).  Such a module is 1-2 % of the corpus by size and an eighth of its CPU time.
DIVISION_COST = 200_000
_DIVISIONS = (b"arith.divui", b"arith.divsi")


def unit_cost(path: str) -> int:
    """The expected cost of gating ``path``, in bytes of ordinary TTGIR text: its size plus
    :data:`DIVISION_COST` per integer division op in it (0 when the file cannot be read: the unit reports that).
    Only the schedule depends on it (which worker checks which module, and when), never a result.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "m.ttgir")
    ...     with open(p, "wb") as f:
    ...         _ = f.write(b"%q = arith.divui %x, %c3 : i64")
    ...     unit_cost(p) == 30 + DIVISION_COST, unit_cost(os.path.join(d, "missing.ttgir"))
    (True, 0)
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return 0
    return len(data) + DIVISION_COST * sum(data.count(d) for d in _DIVISIONS)


def preload() -> None:
    """Import what every unit loads (the gate and its reader, the report, the module cache): a pool's parent
    calls it once before forking, so that the workers inherit the modules instead of each importing them,
    frozen out of the cyclic collector (docs/scale.md, "The pool forks once per run").  Z3 is not among
    them: only modules whose buffer indices go through a division load it."""
    from llverify.prove import solver_budget
    from llverify.ttgir import gate, loader, modcache, reader, report

    del solver_budget, gate, loader, modcache, reader, report  # imported is all that is asked of them


def failed_outcome(path: str, message: str) -> Outcome:
    """A unit whose worker died: one error for its path."""
    from llverify.ttgir.modcache import STATUSES, Outcome

    return Outcome(path, 0, (f"{path}:1:1: {message}",), 0, {s: 0 for s in STATUSES}, [], [], [], fragments=[],
                   sarif=[])


_SCALARS = (str, int, float, bool, type(None))


def _plain(value: Any) -> Any:
    """:func:`llverify.prove.verdict.to_jsonable`, fast on the plain dicts, tuples and scalars verdicts hold."""
    t = type(value)
    if t in _SCALARS:
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if t is tuple or t is list:
        return [_plain(v) for v in value]
    from llverify.prove.verdict import to_jsonable

    return to_jsonable(value)


def finding_doc(f: Any) -> dict[str, Any]:
    """What the module cache stores of a finding (:func:`llverify.ttgir.modcache.finding_from_doc` inverts it;
    only proved and unknown verdicts are stored, so there is never a counterexample)."""
    v = f.verdict
    src = f.source
    return {"rule": f.rule, "op": f.op, "line": f.location.line, "col": f.location.col,
            "source": None if src is None else [src.file, src.line, src.col, src.name],
            "kernel": f.kernel, "target": f.target, "stage": f.stage, "index": f.index, "expect": f.expect,
            "status": v.status, "property": v.property, "subject": v.subject, "method": v.method,
            "seconds": v.seconds, "message": v.message, "certificate": _plain(v.certificate),
            "details": _plain(v.details)}


def _storable(findings: Sequence[Any], errors: Sequence[str], modules: int) -> bool:
    from llverify.prove.solver_budget import DEFAULT_RLIMIT, default_rlimit
    from llverify.ttgir.modcache import volatile

    if errors or modules < 1 or default_rlimit() != DEFAULT_RLIMIT:
        return False
    for f in findings:
        v = f.verdict
        if v.status == "unknown":
            if volatile(v.message) or volatile(v.subject):
                return False
        elif v.status != "proved":
            return False  # a refutation is re-decided, an error re-checked, on every run
    return True


def make_outcome(path: str, findings: list[Any], errors: list[str], modules: int, need: str | bool,
                 context: str | None, data: bytes | None, side: dict[str, Any] | None) -> Outcome:
    """What the parent needs of one module (see :func:`run_unit` for ``need``), and the record to store when
    the run has a cache (``context``) and the module is storable."""
    import hashlib
    import json
    from dataclasses import replace

    from llverify.ttgir.gate import op_counts
    from llverify.ttgir.model import Location
    from llverify.ttgir.modcache import (JSON_PLACEHOLDER, PLACEHOLDER, STATUSES, Outcome, encode_fragments,
                                         encode_record, json_path, module_key)
    from llverify.ttgir.report import json_fragment, rule_text, sarif_result, text_lines

    need = "findings" if need is True else "text" if need is False else need
    counts = {s: 0 for s in STATUSES}
    for f in findings:
        counts[f.verdict.status] += 1
    diag, conv = text_lines(findings)
    per_op = op_counts(findings)
    rules = {name: rule_text(name) for name in dict.fromkeys(f.rule for f in findings)}
    storable = context is not None and data is not None and _storable(findings, errors, modules)
    # the findings located at the placeholder: all of them for JSON fragments, else those that print a line
    # or a SARIF result (the stored docs carry no file at all)
    anywhere = [replace(f, location=Location(PLACEHOLDER, f.location.line, f.location.col))
                if need == "json" or f.verdict.status != "proved" or f.rule == "conversion" else f
                for f in findings] if storable or need == "json" else []
    # JSON fragments: rendered once with the placeholder and the path put back, where every occurrence of the
    # placeholder is a whole JSON string (the fields that hold the module's path: its location, its "spec");
    # otherwise rendered at the path and not stored
    fragments = stored_fragments = None
    if need == "json":
        placed_json = [json_fragment(f) for f in anywhere]
        whole = f'"{JSON_PLACEHOLDER}"'
        if all(x.count(JSON_PLACEHOLDER) == x.count(whole) for x in placed_json):
            where = json_path(path)
            fragments = [x.replace(JSON_PLACEHOLDER, where) for x in placed_json]
            stored_fragments = placed_json
        else:
            fragments = [json_fragment(f) for f in findings]
    sarif = [(f.verdict.status, r) for f in findings if (r := sarif_result(f)) is not None] \
        if need == "sarif" else None
    record = None
    if storable:
        pdiag, pconv = text_lines(anywhere)
        psarif = [(f.verdict.status, r) for f in anywhere if (r := sarif_result(f)) is not None]
        # the stored lines, with this path put back, must be exactly what this run prints
        if ([x.replace(PLACEHOLDER, path) for x in pdiag] == diag
                and [x.replace(PLACEHOLDER, path) for x in pconv] == conv):
            summary, docs = encode_record(modules, counts, len(findings), pdiag, pconv,
                                          [finding_doc(f) for f in findings], per_op, rules, psarif)
            escaped = json.dumps(path, ensure_ascii=True)[1:-1]
            mentions_path = any(p in summary or p in docs for p in {path, escaped})
            extra = side if side is not None else ({"path": path} if mentions_path else None)
            record = (module_key(context, hashlib.sha256(data).hexdigest(), extra), summary, docs,
                      None if stored_fragments is None else encode_fragments(stored_fragments))
    return Outcome(path, modules, errors, len(findings), counts, diag, conv,
                   findings if need == "findings" else None, record, False, per_op, rules, fragments, sarif)


def lowered_findings(path: str, data: bytes | None, target: str | None = None
                     ) -> tuple[list[Any], list[str], dict[str, Any]]:
    """Lowered-code findings for a ``.ttgir`` whose ``.llir`` (and Triton's ``.json`` metadata, for the shared
    size) sit beside it, as in a Triton cache directory; nothing when they do not.  Also the side files'
    identity (:func:`llverify.ttgir.modcache.side_digests`) computed from the very bytes validated.
    ``target``: ``--target``, for a module without ``ttg.target`` (else its RUN line, as the gate does)."""
    import hashlib
    import json
    from dataclasses import replace

    from llverify.lowered.llir import LlirError, parse_llir
    from llverify.lowered.validate import validate
    from llverify.ttgir.default_target import NO_CHOICE, annotate, choose_target, needs_target, with_target
    from llverify.ttgir.loader import decode_text, read_bytes, read_text
    from llverify.errors import TtgirError
    from llverify.ttgir.reader import parse_module

    stem = os.path.splitext(path)[0]
    side: dict[str, Any] = {"path": path, "ttgir_suffix": path.endswith(".ttgir")}
    raw: dict[str, bytes | None] = {}
    for ext in ("llir", "json"):
        try:
            raw[ext] = read_bytes(f"{stem}.{ext}")
        except TtgirError:
            raw[ext] = None
        side[ext] = None if raw[ext] is None else hashlib.sha256(raw[ext]).hexdigest()
    if not (path.endswith(".ttgir") and raw["llir"] is not None and raw["json"] is not None):
        return [], [], side
    try:
        shared = int(json.loads(decode_text(raw["json"], stem + ".json")).get("shared") or 0)
        text = decode_text(data, path) if data is not None else read_text(path)
        module = parse_module(text, path)
        choice = choose_target(text, target) if needs_target(module) else NO_CHOICE
        found = validate(with_target(module, choice),
                         parse_llir(decode_text(raw["llir"], stem + ".llir"), stem + ".llir"), shared)
    except (TtgirError, LlirError, OSError, ValueError, TypeError, AttributeError) as exc:
        return [], [f"{stem}.llir:1:1: lowered code not validated: {exc}"], side
    out = []
    noted = annotate([lf.finding for lf in found], module, choice)
    for lf, finding in zip(found, noted):
        low = lf.lowered
        v = finding.verdict
        out.append(replace(finding, verdict=v.with_(details={**v.details, "lowered": {
            "file": low.file, "line": low.line, "col": low.col}}),
                           rule=v.property if v.property.startswith("lowered") else f"lowered_{v.property}"))
    return out, [], side
