"""An op's types from its printed signature: what the TTGIR reader's second pass knows about typing one op.

An op prints its types after its operands in one of a few shapes (``: T``, ``: T, U``, ``: A -> B``,
``: (T, U) -> V``, ``: A * B -> C``, ``: A to B``; region ops ``-> (T, U)`` after their header).  From that text, the
op's name and its result and operand counts this module computes the op's *operand types as printed*, its *result
types* and the *printed type of each operand*, with the rules MLIR's printers leave implicit: a result type the op
fixes (``%w = ttg.warp_id`` is ``i32``), a result type printed without its dialect prefix, a condition type printed
before the result type (``arith.select``), the element type an op implies (``arith.cmpi`` gives ``i1``), a bare
``i1`` constant, ``ttng.tmem_load``'s unprinted token.

:class:`OpTyping` reads a type's text with one module's aliases and holds that module's memos (a type text's
type, a signature text's types, a common op line's whole typing), each a function of its key;
:func:`_result_types` and :func:`_implied_element` are pure.  The assembler (:mod:`llverify.ttgir.assemble`) gives
each op's parts and keeps the SSA environment.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Match

from llverify.ttgir.model import TypeRef
from llverify.ttgir.op_line import signature_types
from llverify.ttgir.op_text import remove_dicts, signature_colon
from llverify.ttgir.signatures import split_signature_plain
from llverify.ttgir.syntax import depth_at, find_top, matching_close, split_arrow, split_top, strip_parens
from llverify.ttgir.types import AliasTable, expand_type_aliases, parse_typeref, with_element

__all__ = ["OpTyping", "OpTypes", "SignatureTypes", "REGION_RESULT_OPS"]

#: (operand types as printed, region-op result types, result types, the printed type of each operand or ())
OpTypes = tuple[list[TypeRef], list[TypeRef], list[TypeRef], tuple[TypeRef, ...]]
#: (operand types, result types or None where no ``->`` / `` to `` was printed, region-op result types)
SignatureTypes = tuple[list[TypeRef], list[TypeRef] | None, list[TypeRef]]

#: ops whose results are typed after the op header (``-> (T, U)``), not by the signature alone
REGION_RESULT_OPS = ("scf.for", "scf.if", "scf.execute_region", "scf.index_switch")

#: ops whose assembly format leaves the result type out (the op fixes it): ``%w = ttg.warp_id``,
#: ``%t = ttg.async_commit_group tokens %a``, ``%t = ttg.async_wait %t0 {num = 0 : i32}``, and
#: ``%t = ttg.async_copy_global_to_local %p, %buf : T -> <...>`` (whose ``->`` type is the buffer operand's)
_IMPLIED_RESULT_TYPES = {"ttg.warp_id": "i32", "ttg.async_commit_group": "!ttg.async.token",
                         "ttg.async_wait": "!ttg.async.token", "ttg.async_copy_global_to_local": "!ttg.async.token"}

#: ops whose assembly format prints the result type without its dialect prefix (MLIR elides it where the op's
#: type constraint fixes it): Triton 3.9 prints ``tt.make_tensor_descriptor ... : <bf16>, <1x64xbf16, #shared>``
#: for ``!tt.ptr<bf16>, !tt.tensordesc<1x64xbf16, #shared>``
_UNQUALIFIED_RESULT_TYPES = {"tt.make_tensor_descriptor": "!tt.tensordesc"}

#: ops printing their operand types then the result type, without an arrow
_LAST_TYPE_IS_RESULT = ("arith.select", "tt.make_tensor_descriptor")

#: the ops :func:`_implied_element` changes a type of
_IMPLIED_ELEMENT_OPS = frozenset({"arith.cmpi", "arith.cmpf", "tt.load", "tt.atomic_rmw", "tt.atomic_cas"})

#: ``arith.constant``'s operand text when MLIR prints an ``i1`` constant bare: ``%true = arith.constant true``
_BARE_I1 = re.compile(r"\s*(?:true|false)\s*")

#: a keyword printed after a region op's result types (``scf.execute_region -> (T, U) no_inline {``)
_TRAILING_KEYWORD = re.compile(r"(?<=[>)\w])\s+[a-z_]+$")


class OpTyping:
    """The types of one module's ops from their printed signatures, type texts read with the module's layout
    ``aliases`` and its type aliases (``!name = type``, expanded first).

    Three memos, each a function of its key (so shared by the ops of a module): ``type_cache`` (per type text,
    :meth:`typeref`), ``sig_types`` (per signature text, :meth:`signature` outside the region ops) and ``op_types``
    (per common op line, :meth:`common_types`).  Callers do not mutate the lists returned.
    """

    def __init__(self, aliases: AliasTable | Mapping[str, Any], type_aliases: Mapping[str, str]) -> None:
        self.aliases, self.type_aliases = aliases, type_aliases
        self.type_cache: dict[str, TypeRef] = {}
        self.sig_types: dict[str, SignatureTypes] = {}
        #: per (name, signature, result count, operand count, constant text) of a common line: :meth:`types`
        self.op_types: dict[tuple[str, str, int, int, str], OpTypes] = {}

    def typeref(self, text: str) -> TypeRef:
        """The type printed as ``text`` (blanks around it ignored; type aliases expanded), kept per text.

        >>> OpTyping({}, {"t": "tensor<4xf32>"}).typeref(" !t ").shape
        (4,)
        """
        t = text.strip()
        hit = self.type_cache.get(t)
        if hit is None:
            hit = parse_typeref(expand_type_aliases(t, self.type_aliases) if self.type_aliases and "!" in t else t,
                                self.aliases)
            self.type_cache[t] = hit
        return hit

    def common_types(self, name: str, signature: str, fast: Match[str] | None, n_results: int, n_operands: int,
                     operand_text: str) -> OpTypes:
        """:meth:`types` of a common op line alone (``rest`` not read: no region op), kept per the arguments it
        depends on (the operand text only for ``arith.constant``).

        >>> ty = OpTyping({}, {})
        >>> from llverify.ttgir.op_line import fast_line
        >>> m = fast_line("%c = arith.cmpi slt, %a, %b : i32")
        >>> [t.text for t in ty.common_types("arith.cmpi", "i32", m, 1, 2, "slt, %a, %b")[2]]
        ['i1']
        """
        key = (name, signature, n_results, n_operands, operand_text if name == "arith.constant" else "")
        typed = self.op_types.get(key)
        if typed is None:
            typed = self.op_types[key] = self.types(name, "", signature, fast, n_results, n_operands, operand_text)
        return typed

    def types(self, name: str, rest: str, signature: str, fast: Match[str] | None, n_results: int,
              n_operands: int, operand_text: str) -> OpTypes:
        """(operand types as printed, region-op result types, result types, the printed type of each operand or
        ()) of an op: a function of its name, ``rest`` (the text after the name, read by the region ops only), its
        signature (attribute dictionaries removed), result and operand counts and, for ``arith.constant``, its
        operand text.  The printed type of each operand is the signature's left side where it has one type per
        operand and an arrow, and ``A * B -> C`` (``tt.dot``, ``tt.dot_scaled``, ``ttng.warp_group_dot``) with the
        accumulator typed as the result (and a wgmma's ``useC`` flag as ``i1``).

        >>> ty = OpTyping({}, {})
        >>> lhs, _, res, printed = ty.types("arith.addi", "", "i32", None, 1, 2, "%a, %b")
        >>> [t.text for t in lhs], [t.text for t in res], printed
        (['i32'], ['i32'], ())
        >>> [t.text for t in ty.types("arith.constant", "", "", None, 1, 1, "true")[2]]
        ['i1']
        """
        lhs_types, rhs_types, for_results = self.signature(name, rest, signature, fast)
        if name == "arith.constant" and not signature.strip() and _BARE_I1.fullmatch(operand_text):
            lhs_types = [self.typeref("i1")]  # MLIR prints an i1 constant bare: `%true = arith.constant true`
        res_types = _result_types(name, n_results, lhs_types, rhs_types, for_results)
        qualifier = _UNQUALIFIED_RESULT_TYPES.get(name)
        if qualifier is not None:
            res_types = [self.typeref(qualifier + t.text) if t.text.startswith("<") else t for t in res_types]
        implied = _IMPLIED_RESULT_TYPES.get(name)
        if implied is not None and n_results == 1:
            res_types = [self.typeref(implied)]  # printed without its result type (the op fixes it)
        if rhs_types is None and not for_results and name in _IMPLIED_ELEMENT_OPS:
            res_types = [_implied_element(name, t) for t in res_types]
        printed: tuple[TypeRef, ...] = ()
        if lhs_types and rhs_types is not None:
            if len(lhs_types) == n_operands:
                printed = tuple(lhs_types)
            elif name in _ACCUMULATING and len(rhs_types) == 1:
                # `A * B -> C`: the accumulator has the result's type; a wgmma's optional `useC` flag is an i1
                if len(lhs_types) + 1 == n_operands:
                    printed = (*lhs_types, rhs_types[0])
                elif name == "ttng.warp_group_dot" and len(lhs_types) == 2 and n_operands == 4:
                    printed = (*lhs_types, rhs_types[0], self.typeref("i1"))
        return lhs_types, for_results, res_types, printed

    def generic_types(self, name: str, signature: str, n_results: int, n_operands: int) -> OpTypes:
        """:meth:`types` of an op in MLIR's generic form, ``"name"(%a, ...) ... : (A, ...) -> (R, ...)``: the
        operand types are the left of the arrow, one per operand, the result types its right (a region op's too);
        none of the printed forms' conventions apply.

        >>> ty = OpTyping({}, {})
        >>> lhs, region, res, printed = ty.generic_types("scf.for", "(i32, i32, i32, f32) -> f32", 1, 4)
        >>> [t.text for t in res], [t.text for t in region], len(printed)
        (['f32'], ['f32'], 4)
        """
        lhs, rhs = split_arrow(signature)
        lhs_types = [self.typeref(t) for t in split_top(strip_parens(lhs.strip()), ",") if t.strip()]
        rhs_types = [] if rhs is None else [self.typeref(t) for t in split_top(strip_parens(rhs.strip()), ",")
                                             if t.strip()]
        res_types = _result_types(name, n_results, lhs_types, rhs_types, []) if rhs is not None else (
            [TypeRef("", "other")] * n_results)
        printed = tuple(lhs_types) if len(lhs_types) == n_operands else ()
        return lhs_types, rhs_types if name in REGION_RESULT_OPS else [], res_types, printed

    def signature(self, name: str, rest: str, signature: str, fast: Match[str] | None = None) -> SignatureTypes:
        """:meth:`read_signature`; outside the region ops (which read ``rest``) a function of the signature text,
        so kept per text.  ``fast``: the op's common-line match, whose signature splits in one pass
        (:func:`~llverify.ttgir.op_line.signature_types`)."""
        if name in REGION_RESULT_OPS:
            return self.read_signature(name, rest, signature)
        hit = self.sig_types.get(signature)
        if hit is None:
            if fast is not None and name != "scf.for":
                lhs, rhs = signature_types(fast)
                hit = ([self.typeref(t) for t in lhs], None if rhs is None else [self.typeref(t) for t in rhs], [])
            else:
                hit = self.read_signature(name, rest, signature)
            self.sig_types[signature] = hit
        return hit

    def read_signature(self, name: str, rest: str, signature: str) -> SignatureTypes:
        """(operand types, result types or None, region-op result types) of a printed signature: the operand
        types are the left of a top-level ``->`` or `` to `` (each ``A * B`` part split too), the result types
        its right (None without one); a region op's result types are the ``-> (T, U)`` of its header in ``rest``
        (``scf.for`` also reads its signature: the induction variable's type, not returned here).

        >>> ty = OpTyping({}, {})
        >>> lhs, rhs, _ = ty.read_signature("arith.extf", "", "f16 to f32")
        >>> [t.text for t in lhs], [t.text for t in rhs]
        (['f16'], ['f32'])
        >>> [t.text for t in ty.read_signature("scf.if", " %c -> (i32, f32) ", "")[2]]
        ['i32', 'f32']
        """
        for_results: list[TypeRef] = []
        if name in REGION_RESULT_OPS:
            sig_at, _ = signature_colon(rest)
            head = rest if sig_at < 0 or name == "scf.if" else rest[:sig_at]
            head = remove_dicts(head)  # `-> (T, U) {tt.num_stages = 3 : i32}`: the trailing attributes are no type
            arrow = find_top(head, "->")
            if arrow >= 0:
                tail = _without_keyword(head[arrow + 2:].strip())
                for_results = [self.typeref(t) for t in split_top(strip_parens(tail), ",") if t.strip()]
            if name != "scf.for":
                return [], None, for_results
        if not signature.strip() or name == "scf.for":
            return [], None, for_results
        plain = split_signature_plain(signature)
        if plain is not None:
            return ([self.typeref(t) for t in plain[0]], None if plain[1] is None else
                    [self.typeref(t) for t in plain[1]], for_results)
        lhs, rhs = split_arrow(signature)
        if rhs is None:
            cast = find_top(signature, " to ")
            if cast >= 0:  # casts print `: A to B` (arith.extf, arith.truncf, arith.bitcast, ...)
                lhs, rhs = signature[:cast], signature[cast + 4:]
        lhs_types = [self.typeref(t) for part in split_top(strip_parens(lhs), ",")
                     for t in split_top(part, " * ") if t.strip()]
        rhs_types = None if rhs is None else [self.typeref(t) for t in split_top(strip_parens(rhs), ",") if t.strip()]
        return lhs_types, rhs_types, for_results

    def region_arg_types(self, name: str, signature: str, for_results: list[TypeRef]) -> list[TypeRef]:
        """The types of a region op's header block arguments: ``scf.for``'s induction variable (its signature,
        ``index`` when none is printed) then its ``iter_args`` (the op's result types); ``scf.while``'s
        before-region arguments (its signature's left side); none for other ops.

        >>> ty = OpTyping({}, {})
        >>> [t.text for t in ty.region_arg_types("scf.for", "", [ty.typeref("f32")])]
        ['index', 'f32']
        """
        if name == "scf.for":
            iv = self.typeref(signature) if signature.strip() else TypeRef("index", "scalar", (), "index")
            return [iv, *for_results]
        if name == "scf.while":
            lhs, _ = split_arrow(signature)
            return [self.typeref(t) for t in split_top(strip_parens(lhs), ",") if t.strip()]
        return []


#: ops printed ``%a, %b, %c : A * B -> C`` whose accumulator ``%c`` has the result's type
_ACCUMULATING = frozenset({"tt.dot", "tt.dot_scaled", "ttng.warp_group_dot"})


def _result_types(name: str, n: int, lhs: list[TypeRef], rhs: list[TypeRef] | None,
                 for_results: list[TypeRef]) -> list[TypeRef]:
    """The ``n`` result types of an op from its signature's operand types ``lhs``, result types ``rhs`` (None: no
    arrow printed) and region-op result types: the last operand type for :data:`_LAST_TYPE_IS_RESULT` ops printed
    without an arrow; ``ttng.tmem_load``'s result then its async token; else the region results, the arrow's
    right, the operand types (one per result) or the first operand type, repeated when one type is given for
    several results, padded with an unread type (``TypeRef("", "other")``) when fewer are given.

    >>> from llverify.ttgir.types import parse_typeref
    >>> i1, f32 = parse_typeref("i1", {}), parse_typeref("f32", {})
    >>> [t.text for t in _result_types("arith.select", 1, [i1, f32], None, [])]
    ['f32']
    >>> [t.text for t in _result_types("arith.addf", 2, [f32], None, [])]
    ['f32', 'f32']
    """
    if name in _LAST_TYPE_IS_RESULT and rhs is None and len(lhs) >= 2:
        # `arith.select %c, %a, %b : tensor<..xi1>, tensor<..xf32>`: condition type first, result type last;
        # `tt.make_tensor_descriptor %p, [..], [..] : !tt.ptr<f16>, !tt.tensordesc<..>`: base, then result
        return [lhs[-1]] * n
    if name == "ttng.tmem_load" and n == 2 and rhs is not None and len(rhs) == 1:
        # `%v, %tok = ttng.tmem_load %m[%dep] : !ttg.memdesc<..> -> tensor<..>`: the second result is the
        # async token, whose type the printer leaves out
        return [rhs[0], TypeRef("!ttg.async.token", "other")]
    if for_results:
        cand = for_results
    elif rhs is not None:
        cand = rhs
    elif len(lhs) == n:
        cand = lhs
    elif len(lhs) >= 1:
        cand = [lhs[0]] * n
    else:
        cand = []
    if len(cand) == n:
        return list(cand)
    if len(cand) == 1:
        return list(cand) * n
    unknown = TypeRef("", "other")
    return (list(cand) + [unknown] * n)[:n]


def _implied_element(name: str, t: TypeRef) -> TypeRef:
    """The result type of an op whose printed type is its operand's, with the element type the op implies:
    ``i1`` for ``arith.cmpi`` / ``arith.cmpf``, the pointee for ``tt.load`` / ``tt.atomic_rmw`` / ``tt.atomic_cas``
    of a tensor of pointers; ``t`` otherwise.

    >>> from llverify.ttgir.types import parse_typeref
    >>> _implied_element("tt.load", parse_typeref("tensor<4x!tt.ptr<f16>>", {})).text
    'tensor<4xf16>'
    """
    if name in ("arith.cmpi", "arith.cmpf"):
        return with_element(t, "i1")
    if name in ("tt.load", "tt.atomic_rmw", "tt.atomic_cas") and t.element.startswith("!tt.ptr<"):
        inner = t.element[len("!tt.ptr<"):-1].split(",")[0].strip()
        return with_element(t, inner)
    return t


def _without_keyword(tail: str) -> str:
    """The result types after a region op's ``->``, without a trailing keyword (``no_inline``).

    >>> _without_keyword("(f32, i32) no_inline"), _without_keyword("tensor<4xf32> no_inline"), _without_keyword("i32")
    ('(f32, i32)', 'tensor<4xf32>', 'i32')
    """
    if tail.startswith("("):
        close = matching_close(tail, 0)
        return tail[:close + 1] if close > 0 else tail
    m = _TRAILING_KEYWORD.search(tail)
    return tail[:m.start()] if m is not None and depth_at(tail, m.start()) == 0 else tail

