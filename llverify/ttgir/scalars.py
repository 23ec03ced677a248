"""The values a scalar SSA value of a TTGIR function can take: exact sets, by enumeration.

Triton's pipeliner indexes multi-buffered allocations with loop-carried counters::

    %i   = scf.for ... iter_args(%idx = %c1_i32, ...)      // the buffer index, carried
    %n   = arith.addi %idx, %c1_i32 : i32
    %w   = arith.cmpi sge, %n, %c2_i32 : i32
    %nxt = arith.select %w, %c0_i32, %n : i32              // wraps at the buffer count
    ...  = ttg.memdesc_index %buf[%idx]
    scf.yield ..., %nxt, ...

:func:`value_set` returns every value a name can hold, or ``None`` with no claim.  Constants are
themselves; ``arith`` integer ops are evaluated exactly, one loop state at a time (two's complement at the type's
width; division by zero and signed overflow of division make the set unknown), so an ``arith.select``
keeps the correlation between its condition and its arms; a value computed from an ``scf.for``'s block
arguments is evaluated in every state of the loop's **orbit**: starting from the init values, the
body's scalar yields are evaluated on every reachable state (and every induction-variable value) until
no new state appears.  The orbit holds every state the loop can reach whatever its trip count (an over-approximation
of the states a given trip count reaches, so a claim on every member is sound), and enumerating it is a
complete proof, not an estimate.  The induction variable of a loop with constant bounds is its
``range(lb, ub, step)``.  Anything else (kernel arguments, program ids, loads, tensors, sets above
:data:`MAX_VALUES`, loop states above :data:`MAX_STATES`) gives ``None``.

>>> from llverify.ttgir.reader import parse_module
>>> m = parse_module('''
... module attributes {"ttg.num-warps" = 4 : i32} {
...   tt.func @f(%n: i32) {
...     %c0 = arith.constant 0 : i32
...     %c1 = arith.constant 1 : i32
...     %c3 = arith.constant 3 : i32
...     %c8 = arith.constant 8 : i32
...     %r = scf.for %k = %c0 to %c8 step %c1 iter_args(%idx = %c0) -> (i32) : i32 {
...       %a = arith.addi %idx, %c1 : i32
...       %w = arith.cmpi sge, %a, %c3 : i32
...       %s = arith.select %w, %c0, %a : i32
...       scf.yield %s : i32
...     }
...     tt.return
...   }
... }''')
>>> vs = ValueSets(m.functions[0])
>>> sorted(vs.value_set("%idx")), sorted(vs.value_set("%k")), vs.value_set("%n")
([0, 1, 2], [0, 1, 2, 3, 4, 5, 6, 7], None)
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from llverify.ttgir.branches import BRANCH_OPS, successors
from llverify.ttgir.constants import integer_constant
from llverify.ttgir.int_arith import CASTS, NotComputable, binary, cast, compare, int_width, wrap
from llverify.ttgir.model import Block, Function, Op, Region

__all__ = ["ValueSets", "NotComputable", "int_width", "MAX_VALUES", "MAX_STATES"]

#: a value set larger than this is not enumerated (None)
MAX_VALUES = 4096
#: a loop whose reachable scalar state exceeds this is not enumerated (None)
MAX_STATES = 4096

def _visible(name: str, scopes: list[dict[str, str]]) -> str | None:
    """The key ``name`` has in the innermost of ``scopes`` (outermost first) that binds it, or None (keys are
    strings)."""
    for s in reversed(scopes):
        key = s.get(name)
        if key is not None:
            return key
    return None


class ValueSets:
    """Value sets of one function's scalar values (see the module docstring); memoised per instance."""

    def __init__(self, fn: Function, scope: Region | None = None, parent: "ValueSets | None" = None,
                 captured: Sequence[str] = ()) -> None:
        """``scope``: a ``ttg.warp_specialize`` partition region (None: the function body).  Partitions are
        isolated from above and MLIR numbers each one's values afresh (Triton 3.4 prints ``%53`` in two
        partitions), so each is its own scope: its ops are indexed only in its own instance, never in the
        function's.  Its block arguments receive the op's operands ``captured``, resolved in ``parent``
        (Triton 3.6 passes a buffer index 0 in that way): a captured value is known when the parent knows
        it as one value, else unknown."""
        self.defs: dict[str, tuple[Op, int]] = {}
        self.loop_args: dict[str, tuple[Op, int]] = {}  # name -> (scf.for, index among its block args)
        # the state of unstructured (cf) loops: a labelled block's argument -> (its block, its index); the keys of
        # each labelled block's arguments; the values each branch passes to it; regions holding a branch not read
        self.block_args: dict[str, tuple[tuple[int, str], int]] = {}
        self._block_keys: dict[tuple[int, str], tuple[str, ...]] = {}
        self._edges: dict[tuple[int, str], list[tuple[str, ...]]] = {}
        self._unread_branches: set[int] = set()
        self.captures: dict[str, str] = {}  # a partition's block argument -> the operand it receives (in parent)
        self.parent = parent
        self.arg_widths: dict[str, int | None] = {}
        # a name defined twice where one definition is visible from the other is not valid MLIR; should a
        # printer do it anyway, the name is never resolved (a free variable in the Z3 terms), since a use could
        # see either definition.  MLIR does print one name in *sibling* regions (an `scf.for` body and an
        # `scf.if` after it both holding `%acc_33`): each region is a scope, a use resolves to the definition
        # visible from it, and a later sibling's definition gets the key `name@k` (see `key_of`).
        self._redefined: set[str] = set()
        self._operands: dict[int, tuple[str, ...]] = {}  # id(op) -> its operands' keys, resolved in its scope
        self._arg_keys: dict[int, tuple[str, ...]] = {}  # id(scf.for) -> its body's block argument keys
        self._seen_names: dict[str, int] = {}
        if scope is None:
            self.arg_widths = {a.name: int_width(a.type.text) for a in fn.arguments}
            top = [{a.name: a.name for a in fn.arguments}]
            for b in fn.body.blocks[1:]:  # the entry block's arguments are the function's
                self._block(fn.body, b, tuple(self._define(a.name, top) for a in b.arguments))
            self._index(fn.body, top)
        else:
            args = scope.blocks[0].arguments if scope.blocks else ()
            for a, operand in zip(args, captured):
                self.captures[a.name] = operand
                self.arg_widths[a.name] = int_width(a.type.text)
            top = [{a.name: a.name for a in args}]
            for b in scope.blocks[1:]:
                self._block(scope, b, tuple(self._define(a.name, top) for a in b.arguments))
            self._index(scope, top)
        for name in self._redefined:
            self.defs.pop(name, None)
            self.loop_args.pop(name, None)
            self.block_args.pop(name, None)
        self._memo: dict[str, frozenset[int] | None] = {}

    def _define(self, name: str, scopes: list[dict[str, str]]) -> str:
        """Bind ``name`` in the innermost scope and return its key: ``name`` itself the first time it is
        defined, ``name@k`` when a sibling region defined it before; a definition that another one visible
        from here already made is a redefinition (its key is dropped after indexing)."""
        visible = _visible(name, scopes)
        if visible is not None:
            self._redefined.add(visible)
            key = visible
        else:
            k = self._seen_names.get(name, 0)
            key = name if k == 0 else f"{name}@{k}"
        self._seen_names[name] = self._seen_names.get(name, 0) + 1
        scopes[-1][name] = key
        return key

    @staticmethod
    def _resolve(name: str, scopes: list[dict[str, str]]) -> str:
        key = _visible(name, scopes)
        return name if key is None else key

    def _block(self, region: Region, block: Block, keys: tuple[str, ...]) -> None:
        """Record a labelled block's argument keys: the state a ``cf`` branch passes to it."""
        if block.label and keys:
            bk = (id(region), block.label)
            self._block_keys[bk] = keys
            for j, key in enumerate(keys):
                self.block_args[key] = (bk, j)

    def _index(self, region: Region, scopes: list[dict[str, str]]) -> None:
        for block in region.blocks:
            for op in block.ops:
                self._operands[id(op)] = tuple([self._resolve(o, scopes) for o in op.operands])
                if op.name in BRANCH_OPS or "^" in op.text:
                    edges = successors(op)
                    if edges is None:  # a successor not read (cf.switch, generic form): no claim on the region's
                        self._unread_branches.add(id(region))
                    else:
                        for label, passed in edges:
                            self._edges.setdefault((id(region), label), []).append(
                                tuple([self._resolve(n, scopes) for n in passed]))
                for i, r in enumerate(op.results):
                    self.defs[self._define(r.name, scopes)] = (op, i)
                # a warp_specialize's partitions (regions 1..) are scopes of their own; its default region is not
                for k, r in enumerate(op.regions[:1] if op.name == "ttg.warp_specialize" else op.regions):
                    inner = [*scopes, {}]
                    for b in r.blocks:
                        keys = tuple(self._define(a.name, inner) for a in b.arguments)
                        if b is not r.blocks[0]:
                            self._block(r, b, keys)
                        if op.name == "scf.for" and k == 0 and b is r.blocks[0]:
                            self._arg_keys[id(op)] = keys
                            for j, key in enumerate(keys):
                                self.loop_args[key] = (op, j)
                    self._index(r, inner)

    def operands_of(self, op: Op) -> tuple[str, ...]:
        """``op``'s operands as keys of this instance (each resolved in the scope of ``op``)."""
        return self._operands.get(id(op), op.operands)

    def key_of(self, op: Op, operand: str) -> str:
        """The key of the value ``operand`` of ``op`` refers to (its name, or ``name@k`` where sibling regions
        print the same name)."""
        for o, key in zip(op.operands, self.operands_of(op)):
            if o == operand:
                return key
        return operand

    def value_set(self, name: str) -> frozenset[int] | None:
        """Every value ``name`` can hold (signed, at its width), or None."""
        if name not in self._memo:
            try:
                self._memo[name] = frozenset(self._value_set(name))
            except (NotComputable, RecursionError):
                self._memo[name] = None
        return self._memo[name]

    def _value_set(self, name: str) -> set[int]:
        deps = set(self._deps(name))
        carried = {d for d in deps if d in self.block_args}
        if carried:
            if carried != deps:
                raise NotComputable("mixes a block's arguments with other loop state")
            blocks = {self.block_args[d][0] for d in carried}
            if len(blocks) > 1:
                raise NotComputable("depends on the arguments of several blocks")
            return {self._value(name, env) for env in self._block_states(blocks.pop(), carried)}
        results = {d for d in deps if d not in self.loop_args}
        if results:
            return self._from_results(name, results, deps - results)
        loops = {id(self.loop_args[d][0]): self.loop_args[d][0] for d in deps}
        if not loops:
            return {self._value(name, {})}
        if len(loops) > 1:
            raise NotComputable("depends on the state of several loops")
        (loop,) = loops.values()
        return {self._value(name, env) for env in self._states(loop, deps)}

    def _from_results(self, name: str, results: set[str], args: set[str]) -> set[int]:
        """Values of ``name`` computed from results of one ``scf.for``: its results are its iter_args' final
        state, the init values when the loop runs no iteration, else the state its last yield produced; both
        are states of the loop's orbit, so ``name`` takes exactly its values over the reachable states (the
        code after a pipelined loop, e.g. the peeled last iteration's buffer index)."""
        if args:
            raise NotComputable("mixes a loop's results with loop state")
        loops = {id(self.defs[d][0]): self.defs[d][0] for d in results}
        if len(loops) > 1:
            raise NotComputable("depends on the results of several loops")
        (loop,) = loops.values()
        keys = self._arg_keys.get(id(loop))
        if keys is None:
            raise NotComputable("a loop result")
        arg_of = {d: keys[self.defs[d][1] + 1] for d in results}
        states = self._states(loop, set(arg_of.values()))
        return {self._value(name, {d: env[a] for d, a in arg_of.items()}) for env in states}

    # -- exact evaluation of one value in one loop state -----------------------------------------------

    def fixed_value(self, name: str) -> int:
        """The value of ``name`` computed without any loop state (a constant, or arithmetic on constants);
        raises :class:`NotComputable` when it depends on anything else."""
        return self._value(name, {})

    def fixed_result(self, op: Op) -> int:
        """``op``'s result computed from operands that need no loop state; raises :class:`NotComputable`."""
        return self._eval(op, {})

    def _value(self, name: str, env: dict[str, int]) -> int:
        if name in env:
            return env[name]
        if name in self.captures:
            known = self.parent.value_set(self.captures[name]) if self.parent is not None else None
            if known is None or len(known) != 1:
                raise NotComputable(f"{name}, passed into the partition")
            return next(iter(known))
        if name in self.loop_args or name in self.block_args or name not in self.defs:
            raise NotComputable(name)
        op, _ = self.defs[name]
        if op.name == "scf.for":
            raise NotComputable("a loop result")
        return self._eval(op, env)

    def _eval(self, op: Op, env: dict[str, int]) -> int:
        rtype = op.results[0].type.text if op.results else ""
        if op.name == "arith.constant":
            c = integer_constant(op)
            width = int_width(rtype)
            if c is None or c.splat or width is None:
                raise NotComputable("not an integer constant")
            return wrap(c.value, width)
        w = int_width(rtype)
        if w is None:
            raise NotComputable(f"type {rtype!r}")
        name = op.name
        if name == "arith.select":
            c, a, b = self.operands_of(op)[:3]
            return self._value(a if self._value(c, env) else b, env)
        vals = [self._value(o, env) for o in self.operands_of(op)]
        if name in CASTS:
            src = op.operand_types[0].text if op.operand_types and op.operand_types[0] else ""
            return cast(name, vals[0], int_width(src) or w, w)
        if name == "arith.cmpi":
            pred = op.text.split("arith.cmpi", 1)[1].strip().split(",")[0].strip()
            ow = int_width(op.operand_types[0].text) if op.operand_types and op.operand_types[0] else None
            if ow is None or len(vals) != 2:
                raise NotComputable("cmpi operands")
            return compare(pred, vals[0], vals[1], ow)
        if len(vals) != 2:
            raise NotComputable(f"{name} not evaluated")
        return binary(name, vals[0], vals[1], w)

    # -- the reachable states of one loop -----------------------------------------------------------------

    def _states(self, loop: Op, wanted: set[str]) -> list[dict[str, int]]:
        """Every reachable assignment of the loop's block arguments ``wanted`` depends on (the orbit of the
        init values under the body's yields, every induction-variable value applied at every step)."""
        block = loop.regions[0].blocks[0]
        args = list(self._arg_keys.get(id(loop), [a.name for a in block.arguments]))
        inits = self.operands_of(loop)[3:]
        body_end = loop.regions[0].blocks[-1].ops
        yield_op = body_end[-1] if body_end else None
        if yield_op is None or yield_op.name != "scf.yield" or len(inits) != len(args) - 1 or not args:
            raise NotComputable("loop form")
        iv = args[0]
        need = {a for a in wanted if a != iv}
        todo = list(need)
        uses_iv = iv in wanted
        while todo:
            j = args.index(todo.pop())
            for dep in self._deps(self.operands_of(yield_op)[j - 1]):
                if dep == iv:
                    uses_iv = True
                elif dep in args and dep not in need:
                    need.add(dep)
                    todo.append(dep)
                elif dep not in args:
                    raise NotComputable("a yield depends on another loop")
        order = sorted(need, key=args.index)
        ivs: list[int | None] = [None]
        if uses_iv:
            lb, ub, step = (self._value(o, {}) for o in self.operands_of(loop)[:3])
            if step <= 0 or len(range(lb, ub, step)) > MAX_VALUES:
                raise NotComputable("loop bounds")
            ivs = list(range(lb, ub, step)) or [None]
        start = tuple(self._value(inits[args.index(a) - 1], {}) for a in order)
        yields = [self.operands_of(yield_op)[args.index(a) - 1] for a in order]

        def successors(state: tuple[int, ...]) -> Iterable[tuple[int, ...]]:
            for v in ivs:
                env = dict(zip(order, state))
                if v is not None:
                    env[iv] = v
                yield tuple(self._value(y, env) for y in yields)

        seen = _orbit({start}, successors)
        out = []
        for state in seen:
            for v in ivs:
                env = dict(zip(order, state))
                if v is not None:
                    env[iv] = v
                out.append(env)
        return out

    def _block_states(self, bk: tuple[int, str], wanted: set[str]) -> list[dict[str, int]]:
        """Every reachable assignment of the arguments of the labelled block ``bk`` that ``wanted`` depend on: the
        orbit of the values the branches into it pass.  A branch passing values that depend on none of those
        arguments gives a starting state; one that does (a back edge, from a block the labelled one dominates,
        so it reads the arguments of the block's latest entry) maps each state to the next.  Branch conditions are
        not evaluated: every edge is taken from every state, so the orbit holds every reachable state (a superset
        of those one run reaches: a claim on every member is sound; a member outside a bound is not a witness,
        see :func:`_deps`)."""
        region_id, _ = bk
        if region_id in self._unread_branches:
            raise NotComputable("a branch of the region is not read")
        args = list(self._block_keys[bk])
        edges = self._edges.get(bk, [])
        if not edges or any(len(e) != len(args) for e in edges):
            raise NotComputable("the branches into the block")
        need = set(wanted)
        todo = list(need)
        while todo:
            j = args.index(todo.pop())
            for e in edges:
                for dep in self._deps(e[j]):
                    if dep not in args:
                        raise NotComputable("a branch passes another loop's state")
                    if dep not in need:
                        need.add(dep)
                        todo.append(dep)
        order = sorted(need, key=args.index)
        at = [args.index(a) for a in order]
        starts, steps = [], []
        for e in edges:
            (steps if any(True for j in at for _ in self._deps(e[j])) else starts).append(e)
        if not starts:
            raise NotComputable("no branch enters the block from outside its loop")
        seen = _orbit({tuple(self._value(e[j], {}) for j in at) for e in starts},
                      lambda state: (tuple(self._value(e[j], dict(zip(order, state))) for j in at) for e in steps))
        return [dict(zip(order, state)) for state in seen]

    def _deps(self, name: str, depth: int = 0) -> Iterable[str]:
        """The loop block arguments ``name`` is computed from (through ops of this function)."""
        if depth > 64:
            raise NotComputable("expression too deep")
        if name in self.loop_args or name in self.block_args:
            yield name
            return
        if name in self.captures:
            return  # one value from outside the partition, or unknown (see _value)
        d = self.defs.get(name)
        if d is None:
            return
        if d[0].name == "scf.for":
            yield name  # a loop result: one of the loop's reachable states (see _from_results)
            return
        for o in self.operands_of(d[0]):
            yield from self._deps(o, depth + 1)


def _orbit(start: set[tuple[int, ...]],
           step: Callable[[tuple[int, ...]], Iterable[tuple[int, ...]]]) -> set[tuple[int, ...]]:
    """Every state reachable from ``start`` by repeated ``step`` (its successors), ``start`` included: the least
    fixed point, found breadth-first.  Raises :class:`NotComputable` past :data:`MAX_STATES` states.

    >>> sorted(_orbit({(0,)}, lambda s: [((s[0] + 1) % 3,)]))
    [(0,), (1,), (2,)]
    """
    seen: set[tuple[int, ...]] = set()
    frontier = set(start)
    while frontier:
        seen |= frontier
        if len(seen) > MAX_STATES:
            raise NotComputable("loop state too large to enumerate")
        frontier = {nxt for state in frontier for nxt in step(state)} - seen
    return seen
