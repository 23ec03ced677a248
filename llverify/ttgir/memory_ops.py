"""Which value of an op moves between registers and memory: one reading for every rule and validator.

``ttg.local_load %buf -> tensor`` loads, ``ttg.local_store %v, %buf`` and ``ttg.local_alloc %v`` store
into shared memory; ``ttng.tmem_load`` / ``tmem_store`` / ``tmem_alloc %v`` do the same with tensor memory.

>>> from llverify.ttgir.reader import parse_module
>>> m = parse_module('''
... #b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
... #s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
... module attributes {"ttg.num-warps" = 4 : i32} {
...   tt.func @f(%v: tensor<128xf32, #b>) {
...     %a = ttg.local_alloc %v : (tensor<128xf32, #b>) -> !ttg.memdesc<128xf32, #s, #ttg.shared_memory>
...     tt.return
...   }
... }''')
>>> op = next(op for _, op, _ in m.walk() if op.name == "ttg.local_alloc")
>>> reg, mem, direction = register_and_memory(op)
>>> reg.kind, mem.kind, direction
('tensor', 'memdesc', 'store')
"""

from __future__ import annotations

from typing import Collection

from llverify.ttgir.model import Op, TypeRef

__all__ = ["register_and_memory", "tensor_and_buffer", "SHARED_ACCESS_OPS", "TMEM_ACCESS_OPS"]

SHARED_ACCESS_OPS = ("ttg.local_load", "ttg.local_store", "ttg.local_alloc")
TMEM_ACCESS_OPS = ("ttng.tmem_load", "ttng.tmem_store", "ttng.tmem_alloc")


def register_and_memory(op: Op) -> tuple[TypeRef | None, TypeRef | None, str] | None:
    """(register tensor type, memdesc type, ``"load"`` or ``"store"``) of an op that moves a tensor to or
    from shared or tensor memory; None for other ops and for allocations without a value."""
    name = op.name.replace("ttng.tmem_", "ttg.local_")
    result = op.results[0].type if op.results else None
    first = op.operand_types[0] if op.operand_types else None
    if name == "ttg.local_load":
        return result, first, "load"
    if name == "ttg.local_store":
        reg, mem = (op.operand_types + (None, None))[:2]
        return reg, mem, "store"
    if name == "ttg.local_alloc" and op.operand_types:
        return first, result, "store"
    return None


def tensor_and_buffer(op: Op, ops: Collection[str]) -> tuple[TypeRef, TypeRef, str] | None:
    """:func:`register_and_memory` of an op named in ``ops`` when both sides are there and typed as an access
    needs them (a register tensor and a memdesc); None otherwise."""
    moved = register_and_memory(op) if op.name in ops else None
    if moved is None:
        return None
    reg, mem, direction = moved
    if reg is None or mem is None or reg.kind != "tensor" or not reg.has_layout or mem.kind != "memdesc":
        return None
    return reg, mem, direction
