"""The second pass of the TTGIR reader: builders (:mod:`llverify.ttgir.structure`) into the immutable model.

For each op the collected text is split at top level into results, name, operands, attributes, type signature and
``loc(...)`` (:mod:`llverify.ttgir.op_text`).  Types are resolved in program order: an operand's type is its
definition's (function argument, block argument, op result); a result's type comes from the op's printed signature
(``: T``, ``: T -> U``, ``: (T, U) -> V``, ``-> (T)`` of ``scf.for`` / ``scf.if``), read by
:class:`~llverify.ttgir.op_signature.OpTyping`.  Locations: ``Op.location`` is
the ``.ttgir`` line and column; ``Op.source`` follows the ``loc(...)`` (:class:`~llverify.ttgir.locations.Locations`).

An op or attribute the reader does not know is still an ``Op``; an encoding llverify cannot build is a ``TypeRef``
with ``encoding_error``; an op text longer than :data:`MAX_OP_CHARS` is refused.
"""

from __future__ import annotations

import re
from typing import Mapping, Match, Sequence

from llverify.ttgir.generic_form import (generic_function_header, generic_module_parts, is_generic_function,
                                        is_generic_module)
from llverify.ttgir.locations import Locations, split_loc
from llverify.ttgir.op_line import argument_list, argument_types
from llverify.ttgir.model import (Block, Function, Location, Module, Op, Region, TypeRef, Value, new_location, new_op,
                                  new_value)
from llverify.ttgir.op_signature import REGION_RESULT_OPS, OpTyping
from llverify.ttgir.op_text import (OPNAME, RESULTS, attr_dict, canonical_op_name, common_op, remove_dicts,
                                    result_names, scan_op, signature_colon, top_dicts, uses)
from llverify.ttgir.structure import OpBuilder, RegionBuilder, fail
from llverify.ttgir.syntax import find_top, matching_close, split_top, strip_parens, sub
from llverify.ttgir.types import AliasTable

__all__ = ["Assembler", "MAX_OP_CHARS"]

#: an op's collected text longer than this is refused (a dense constant is printed as a splat)
MAX_OP_CHARS = 1 << 20


class Assembler:
    """Second pass: turn builders into the immutable model, resolving types in program order."""

    def __init__(self, path: str, aliases: AliasTable, locs: Locations,
                 type_aliases: Mapping[str, str] | None = None) -> None:
        self.path, self.aliases, self.locs = path, aliases, locs
        self.types: dict[str, TypeRef] = {}
        # per signature text (ops share them): its attribute dicts and the text without them
        self.sig_dicts: dict[str, tuple[dict[str, str], str]] = {}
        #: per attribute dictionary text, its entries; per signature or attribute text, whether common_op may read it
        self.attr_dicts: dict[str, dict[str, str]] = {}
        self.balanced: dict[str, bool] = {}
        #: type texts read with this module's aliases, and the types of each op from its printed signature
        self.typing = OpTyping(aliases, type_aliases or {})

    def module(self, top: RegionBuilder, attrs: dict[str, str], stage: str, line: int = 0) -> Module:
        items = top.blocks[0].items if top.blocks else []
        if len(items) == 1 and is_generic_module(items[0]):  # `"builtin.module"() ({ ... }) {attrs} : () -> ()`
            top, inner = generic_module_parts(items[0])
            attrs = {**attrs, **inner}
            items = top.blocks[0].items if top.blocks else []
        legacy = any(k.strip('"').startswith("triton_gpu.") for k in attrs)  # Triton 3.2 and older
        attrs = {canonical_op_name(k.strip('"')): v for k, v in attrs.items()}  # "triton_gpu.num-warps"
        functions: list[Function] = []
        loose: list[OpBuilder] = []
        for item in items:
            if OPNAME.match(item.head) and item.head.startswith("tt.func"):
                functions.append(self.function(item))
            elif is_generic_function(item):
                functions.append(self.generic_function(item))
            elif _is_loose_op(item):
                loose.append(item)
        if loose:
            functions.append(self.top_level(loose))
        return Module(path=self.path, target=_unquote(attrs.get("ttg.target", "")),
                      num_warps=_int_attr(attrs.get("ttg.num-warps"), 4),
                      threads_per_warp=_int_attr(attrs.get("ttg.threads-per-warp"), 32),
                      num_ctas=_int_attr(attrs.get("ttg.num-ctas"), 1), functions=tuple(functions),
                      aliases={**self.aliases.specs, **{k: f"error: {v}" for k, v in self.aliases.errors.items()}},
                      attributes=attrs, stage=stage, line=line, legacy_dialect=legacy)

    def function(self, b: OpBuilder) -> Function:
        # the printed argument list read one match per argument: then every `loc(` up to its `)` is inside it, so
        # the head has a top-level location only when one follows
        m = _FUNC_HEAD.match(b.head)
        listed = argument_list(b.head, m.end()) if m else None
        if listed is not None and "loc(" not in b.head[listed[1]:]:
            head, loc = b.head.rstrip(), None
        else:
            listed = None
            head, loc = split_loc(b.head)
            m = _FUNC_HEAD.match(head)
        if not m:
            raise fail(self.path, b.line, b.col, f"malformed tt.func: {head[:60]!r}")
        fname = m.group(2) if m.group(2) is not None else _unescape_symbol(m.group(3))
        self.types = {}  # tt.func is isolated from above: SSA names do not carry over from the previous function
        rest = head[m.end():]
        args: list[Value] = []
        results: tuple[TypeRef, ...] = ()
        if listed is not None:
            args = self._typed_args(listed[0])
            rest = head[listed[1] + 1:].strip()
        elif rest.startswith("("):
            close = matching_close(rest, 0)
            if close < 0:
                raise fail(self.path, b.line, b.col, "unbalanced argument list of tt.func")
            args = self.block_args(rest[1:close])
            rest = rest[close + 1:].strip()
        if rest.startswith("->"):
            sig = rest[2:]
            cut = find_top(sig, "attributes")
            res = sig[:cut] if cut >= 0 else sig
            results = tuple(self.typing.typeref(t) for t in split_top(strip_parens(res.strip()), ",") if t.strip())
        body = self.region(b.regions[0]) if b.regions else Region(())
        return Function(fname, tuple(args), results, body, Location(self.path, b.line, b.col),
                        self.locs.resolve(loc), public=(m.group(1) or "public") == "public",
                        num_warps=_function_warps(rest))

    def top_level(self, items: Sequence[OpBuilder]) -> Function:
        """The ops written outside any function (a fragment pasted from a bug report or a review: alias definitions
        and ``%4 = ttg.convert_layout %3 : A -> B``), in order, as the body of one function named
        :data:`TOP_LEVEL`.  MLIR refuses such a module (an operand without a definition), but each op's printed
        signature types its operands, so every obligation of the op is still decided; the function has no
        arguments and its own SSA scope."""
        self.types = {}
        body = Region((Block((), tuple(self.op(b) for b in items), ""),))
        return Function(TOP_LEVEL, (), (), body, Location(self.path, items[0].line, items[0].col), None)

    def generic_function(self, b: OpBuilder) -> Function:
        """A ``tt.func`` in MLIR's generic form (:mod:`llverify.ttgir.generic_form`): its arguments are its entry
        block's, moved to the function as the printed form has them."""
        try:
            name, public, result_texts, loc = generic_function_header(b)
        except ValueError as exc:
            raise fail(self.path, b.line, b.col, str(exc)) from None
        self.types = {}  # isolated from above, as the printed form
        body = self.region(b.regions[0]) if b.regions else Region(())
        args: tuple[Value, ...] = ()
        if body.blocks:
            first = body.blocks[0]
            args = first.arguments
            body = Region((Block((), first.ops, first.label), *body.blocks[1:]))
        results = tuple(self.typing.typeref(t) for t in result_texts)
        return Function(name, tuple(args), results, body, Location(self.path, b.line, b.col), self.locs.resolve(loc),
                        public=public, num_warps=_function_warps(" ".join([b.head, *b.tails])))

    def block_args(self, text: str) -> list[Value]:
        fast = argument_types(text)  # one match per argument for the printed form
        if fast is not None:
            return self._typed_args(fast)
        out = []
        for part in split_top(text, ","):
            part, _ = split_loc(part.strip())
            if not part:
                continue
            name, _, ty = part.partition(":")
            ty = ty.strip()
            brace = find_top(ty, "{")
            if brace > 0:
                ty = ty[:brace].strip()  # argument attributes {tt.divisibility = 16 : i32}
            ref = self.typing.typeref(ty) if ty else TypeRef("", "other")
            v = Value(name.strip(), ref)
            self.types[v.name] = ref
            out.append(v)
        return out

    def _typed_args(self, args: list[tuple[str, str]]) -> list[Value]:
        """The values of (name, type text) arguments, each recorded as defined."""
        out = []
        for name, ty in args:
            ref = self.typing.typeref(ty)
            self.types[name] = ref
            out.append(new_value(name, ref))
        return out

    def region(self, r: RegionBuilder, header_args: Sequence[str] = ()) -> Region:
        """``header_args``: the op header's block arguments (``scf.for``: induction variable, then iter_args),
        given to the entry block."""
        blocks = []
        for k, bb in enumerate(r.blocks):
            args: list[Value] = []
            if k == 0 and header_args:
                args = [Value(a, self.types.get(a, TypeRef("", "other"))) for a in header_args]
            label = ""
            if bb.label:
                lab = bb.label.rstrip(":").strip()
                i = lab.find("(")
                label = lab if i < 0 else lab[:i].strip()
                if i >= 0 and lab.endswith(")"):
                    args = self.block_args(lab[i + 1:-1])
            elif not blocks:
                m = _PARTITION_HEAD.match(r.head)
                if m:  # `partition0(%a: T, ...) num_warps(4)`: the partition region's block arguments
                    args = self.block_args(m.group(1))
            blocks.append(Block(tuple(args), tuple(self.op(o) for o in bb.items), label))
        return Region(tuple(blocks))

    def op(self, b: OpBuilder) -> Op:
        """The op of a builder: a common line alone (no regions, no text after it: nearly every op) by
        :meth:`_common_op`, any other by :meth:`_general_op`."""
        fast = b.fast
        if fast is not None and not b.tails and not b.regions:
            parts = fast.groups("")
            if parts[1] not in _GENERAL_ONLY and not parts[1].startswith("triton_"):
                return self._common_op(b, parts, fast)
        return self._general_op(b)

    def _common_op(self, b: OpBuilder, parts: tuple[str, ...], fast: Match[str]) -> Op:
        """:meth:`_general_op`'s answer for a common line alone whose name is none of :data:`_GENERAL_ONLY`, with
        what follows from the op's name and printed signature alone (:meth:`OpTyping.common_types`, kept per
        Assembler)."""
        if len(b.head) > MAX_OP_CHARS:
            raise fail(self.path, b.line, b.col, f"operation longer than {MAX_OP_CHARS} characters")
        results_text, name, operand_text, attributes, signature, _, loc = parts
        attrs = dict(self._attr_dict(attributes)) if attributes else {}
        operands = tuple(uses(operand_text))
        if name == _SCATTER and len(operands) >= 3:
            operands = _typed_order(operands)
        names = result_names(results_text) if "," in results_text or ":" in results_text else (
            [results_text] if results_text else [])
        lhs_types, _, res_types, printed = self.typing.common_types(name, signature, fast, len(names),
                                                                    len(operands), operand_text)
        types = self.types
        results = []
        for rn, rt in zip(names, res_types):
            results.append(new_value(rn, rt))
            types[rn] = rt
        op_types = []
        unread = False
        aligned = lhs_types and len(lhs_types) == len(operands)
        for i, u in enumerate(operands):
            t = types.get(u)
            if t is None:
                if aligned:
                    t = lhs_types[i]
            elif not t.text:
                unread = True
            op_types.append(t)
        if unread:
            self._fill_unread(operands, op_types, printed)
        return new_op(name, tuple(results), operands, tuple(op_types), attrs, (),
                      new_location(self.path, b.line, b.col), self.locs.resolve(loc or None), b.head[:200], printed)

    def _general_op(self, b: OpBuilder) -> Op:
        text = " ".join([b.head, *b.tails]) if b.tails else b.head
        if len(text) > MAX_OP_CHARS:
            raise fail(self.path, b.line, b.col, f"operation longer than {MAX_OP_CHARS} characters")
        fast = b.fast if not b.tails else None
        common = None if fast is not None else common_op(text, self.balanced)  # else one match for most ops
        generic = False  # `"scf.for"(%a, ...) ({...}) : (T, ...) -> U`: types as printed, block arguments labelled
        if fast is not None:  # the common op line, matched when it was read (llverify.ttgir.op_line)
            results_text, name, operand_text, attributes, signature, _, loc = fast.groups("")
            if name.startswith("triton_"):
                name = canonical_op_name(name)
            loc = loc or None
            rest = "" if name not in _READS_REST else (
                operand_text + attributes + " : " + signature if signature else operand_text + attributes)
            attrs = dict(self._attr_dict(attributes)) if attributes else {}
        elif common is not None:
            results_text, loc, signature = common.results, common.loc, common.signature
            name = canonical_op_name(common.name)
            before_sig = common.operands + common.attributes
            rest = before_sig + " : " + signature
            attrs = dict(self._attr_dict(common.attributes)) if common.attributes else {}
            operand_text = common.operands
        else:
            results_text, name, rest, before_sig, signature, loc, generic = self._split(b, text)
            attrs = {}
            for brace in top_dicts(before_sig):
                attrs.update(attr_dict(brace))
            operand_text = remove_dicts(before_sig)
        # region-header block arguments (scf.for induction variable, iter_args, scf.while before-args)
        region_args = self._region_header_args(name, rest) if name in ("scf.for", "scf.while") and not generic else []
        if fast is None:  # (a common line's signature holds no dictionary and no blank at either end)
            sig = self.sig_dicts.get(signature)
            if sig is None:
                sig_attrs: dict[str, str] = {}
                for brace in top_dicts(signature):
                    sig_attrs.update(attr_dict(brace))
                sig = self.sig_dicts[signature] = (sig_attrs, remove_dicts(signature).strip())
            attrs.update(sig[0])
            signature = sig[1]
        if name == "ttg.warp_specialize" and "partitionNumWarps" not in attrs:
            # Triton 3.9 prints each worker's warp count only in its region header: `partition0(...) num_warps(2) {`
            counts = [m.group(2) for r in b.regions for m in [_PARTITION_HEAD.match(r.head)] if m]
            if counts:
                attrs["partitionNumWarps"] = f"array<i32: {', '.join(counts)}>"
        if region_args:
            defined = {a for a, _ in region_args}
            operands = tuple(u for u in uses(operand_text) if u not in defined)
        else:
            operands = tuple(uses(operand_text))
        if name == _SCATTER and len(operands) >= 3:
            operands = _typed_order(operands)
        names = result_names(results_text) if "," in results_text or ":" in results_text else (
            [results_text] if results_text else [])
        lhs_types, for_results, res_types, printed = (
            self.typing.generic_types(name, signature, len(names), len(operands)) if generic else
            self.typing.types(name, rest, signature, fast, len(names), len(operands), operand_text))
        results = []
        for rn, rt in zip(names, res_types):
            v = new_value(rn, rt)
            self.types[rn] = rt
            results.append(v)
        if region_args:  # block arguments of the region header get types too
            for (arg, _), ty in zip(region_args, self.typing.region_arg_types(name, signature, for_results)):
                self.types[arg] = ty
        op_types = []
        unread = False  # an operand whose definition printed no type (filled from this op's signature below)
        for i, u in enumerate(operands):
            t = self.types.get(u)
            if t is None and lhs_types and len(lhs_types) == len(operands):
                t = lhs_types[i]
            elif t is not None and not t.text:
                unread = True
            op_types.append(t)
        header = [a for a, _ in region_args] if name == "scf.for" else []
        regions = tuple(self.region(r, header if i == 0 else ()) for i, r in enumerate(b.regions)) if b.regions else ()
        if unread:
            self._fill_unread(operands, op_types, printed)
        return new_op(name, tuple(results), operands, tuple(op_types), attrs, regions,
                      new_location(self.path, b.line, b.col), self.locs.resolve(loc), b.head[:200], printed)

    def _fill_unread(self, operands: tuple[str, ...], op_types: list[TypeRef | None],
                     printed: tuple[TypeRef, ...]) -> None:
        """A value defined without a printed type (``%1 = nvg.cluster_id``: the op infers it) has the type its uses
        print: MLIR gives a value one type and refuses a module whose uses disagree (``op_types`` updated)."""
        for i, t in enumerate(printed):
            if not (op_types[i] and op_types[i].text) and t.text and operands[i] in self.types:
                op_types[i] = self.types[operands[i]] = t

    def _split(self, b: OpBuilder, text: str) -> tuple[str, str, str, str, str, str | None, bool]:
        """(results text, canonical op name, the text after the name, its part before the signature separator,
        the signature, the location, whether the name is quoted: MLIR's generic form) of an op's text: the
        one-pass scan for texts without strings, the general bracket-aware split for the others."""
        scan = scan_op(text)  # one pass over nearly every op (no quotes); the general path reads the others
        body, loc = (scan[0], scan[1]) if scan is not None else split_loc(text)
        results_text = ""
        start = 0  # where the op name starts in the text
        m = RESULTS.match(body)
        if m:
            results_text = m.group(1)
            start = m.end()
            body = body[start:] if scan is not None else sub(body, start, len(body))
        nm = OPNAME.match(body)
        if not nm:
            raise fail(self.path, b.line, b.col, f"expected an operation name, found {body[:40]!r}")
        name = canonical_op_name(nm.group(1) or nm.group(2))
        if scan is not None:
            # the results and the name hold no bracket, so `rest` scans as the text from `start` on: its last
            # top-level ` : ` is the text's last one inside it
            rest = body[nm.end():]
            start += nm.end()
            end = start + len(rest)
            inside = [c - start for c in scan[2] if start <= c and c + 3 <= end]
            sig_at, sig_end = (inside[-1], inside[-1] + 3) if inside else signature_colon(rest)
            before_sig = rest if sig_at < 0 else rest[:sig_at]
            signature = "" if sig_at < 0 else rest[sig_end:]
        else:
            rest = sub(body, nm.end(), len(body))
            sig_at, sig_end = signature_colon(rest)
            before_sig = rest if sig_at < 0 else sub(rest, 0, sig_at)
            signature = "" if sig_at < 0 else sub(rest, sig_end, len(rest))
        return results_text, name, rest, before_sig, signature, loc, nm.group(1) is not None

    def _attr_dict(self, text: str) -> dict[str, str]:
        """:func:`~llverify.ttgir.op_text.attr_dict` of an attribute dictionary's text (``text`` may start with
        blanks), kept per text (callers copy it)."""
        hit = self.attr_dicts.get(text)
        if hit is None:
            hit = self.attr_dicts[text] = attr_dict(text)
        return hit

    def _region_header_args(self, name: str, rest: str) -> list[tuple[str, str]]:
        out = []
        if name == "scf.for":
            m = re.match(r"^\s*(%[\w$.\-]+)\s*=", rest)
            if m:
                out.append((m.group(1), "iv"))
        i = rest.find("iter_args(") if name == "scf.for" else (rest.find("(") if name == "scf.while" else -1)
        if i >= 0:
            start = rest.find("(", i)
            close = matching_close(rest, start)
            if close > 0:
                for part in split_top(rest[start + 1:close], ","):
                    lhs = part.split("=")[0].strip()
                    if lhs.startswith("%"):
                        out.append((lhs, "iter"))
        return out


# `tt.func private @name(...)`, or a quoted symbol `@"triton.language.standard.zeros__(0, 0)c..."` (the
# not-yet-inlined helpers of the early snapshots of an MLIR_ENABLE_DUMP; MLIR escapes `"` and `\` inside)
_FUNC_HEAD = re.compile(r'^tt\.func\s+(?:(public|private|nested)\s+)?@(?:([\w$.\-]+)|"((?:[^"\\\n]|\\.)*)")\s*')


def _unescape_symbol(text: str) -> str:
    """The content of a quoted MLIR symbol: ``\\"``, ``\\\\`` and two-digit hex escapes ``\\22``."""
    return re.sub(r"\\([0-9a-fA-F]{2}|.)", lambda m: chr(int(m.group(1), 16)) if len(m.group(1)) == 2
                  else m.group(1), text)


#: the name of the function that holds a module's ops written outside any function (:meth:`Assembler.top_level`)
TOP_LEVEL = "(top level)"

#: a top-level op read as a fragment of a function's body: an op of a dialect whose ops hold layouts or feed them
#: (Triton's, its backends', and the upstream ones a kernel body uses), never a symbol or a container (``tt.func``,
#: ``llvm.func``, ``llvm.mlir.global``, another project's ``cuda_tile.module``)
_FRAGMENT_OP = re.compile(r'^(?:%[^=]*=\s*)?"?(?:tt|ttg|ttng|tti|amdg|ttig|triton_gpu|triton_nvidia_gpu|triton_amdgpu'
                          r'|triton_intel_gpu|arith|math|scf|ub)\.(?!func\b)')


def _is_loose_op(b: OpBuilder) -> bool:
    """Whether a top-level op of a module is a function-body op written outside any function (a fragment)."""
    return _FRAGMENT_OP.match(b.head) is not None


_PARTITION_HEAD = re.compile(r"^partition\d+\s*\((.*)\)\s*num_warps\s*\(\s*(\d+)\s*\)\s*$", re.S)

#: the ops whose reading looks at the text after the name beyond its signature (region headers, region results)
_READS_REST = frozenset({"scf.for", "scf.while", *REGION_RESULT_OPS})

#: ops read by :meth:`Assembler._general_op` even as a common line alone: those whose reading looks past the signature
#: or at their regions
_GENERAL_ONLY = _READS_REST | {"ttg.warp_specialize"}

_SCATTER = "ttg.local_atomic_scatter_rmw"


def _typed_order(operands: tuple[str, ...]) -> tuple[str, ...]:
    """``ttg.local_atomic_scatter_rmw``'s operands in its type order: printed ``%dst[%indices], %values, %mask`` but
    typed ``functional-type(operands)``: dst, values, indices, mask."""
    return (operands[0], operands[2], operands[1], *operands[3:])


def _unquote(text: str) -> str:
    t = text.strip()
    return t[1:-1] if len(t) >= 2 and t[0] == t[-1] == '"' else t


def _int_attr(text: str | None, default: int) -> int:
    if not text:
        return default
    head = text.split(":")[0].strip()
    return int(head) if head.lstrip("-").isdigit() and len(head) < 12 else default


_FUNC_WARPS = re.compile(r'"ttg\.num-warps"\s*=\s*(\d+)\s*:\s*i32')


def _function_warps(head: str) -> int | None:
    """The ``"ttg.num-warps" = N : i32`` a ``tt.func`` header's attributes state (after its argument list, where no
    argument's type or location can print that key), or None."""
    m = _FUNC_WARPS.search(head)
    return int(m.group(1)) if m else None
