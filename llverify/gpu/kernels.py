"""CUDA C generation for layout conversions (shared memory or warp shuffles) and global I/O.

Every generated kernel has the signature

    extern "C" __global__ void NAME(const unsigned char* in, unsigned char* out, int reps, unsigned salt)

and does, for the tile of block ``blockIdx.x`` (``in`` holds ``gridDim.x``
row-major tiles, one element id after another):

1. *global load* (plan (c)): register r of thread (warp w, lane l) receives
   ``in[tile][id(A(r, l, w))]``, ``gvec`` elements per instruction, where
   ``gvec`` is :func:`~llverify.gpu.tile.vector_plan` of A's id columns
   (registers may be permuted into vectors);
2. ``reps`` times: the conversion A -> B, either (a) through shared memory
   with layout S (store A's registers at ``S^-1`` offsets, ``svec`` elements
   per ``st.shared``, barrier, load B's registers, ``lvec`` per ``ld.shared``,
   barrier) or (b) through warp shuffles (rounds of
   :class:`~llverify.gpu.shuffle.ShufflePlan`); B's registers accumulate the
   results by XOR, so for odd ``reps`` they end equal to one conversion.  The
   sources are XORed with ``salt * it`` (``salt`` is 0 at run time; the
   compiler cannot know it, so repetitions are not folded away);
3. *global store*: thread t of the block writes its ``NB`` registers to
   ``out[(block * threads + t) * NB + j]``.

Element bits are moved, never interpreted: f32 / f16 / f8 are 4 / 2 / 1-byte
words held one per 32-bit register.  All index arithmetic is XOR of constants
selected by lane and warp bits, as the linear layouts prescribe.

Example: ``shared_conversion_kernel(case)`` for blocked -> mma at 64x64 f16
gives a kernel with ``st.shared.v2`` stores when A's register pairs are
contiguous in S and ``ld.shared.b32`` loads for B's register pairs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

from llverify.gpu.banks import access_offsets
from llverify.gpu.shuffle import ShufflePlan
from llverify.gpu.tile import DistMap, SharedMap, vector_plan

__all__ = ["KernelSource", "shared_conversion_kernel", "shuffle_conversion_kernel", "global_copy_kernel"]


@dataclass(frozen=True)
class KernelSource:
    """A generated kernel and the facts the runner needs to launch and check it."""

    name: str
    code: str
    threads: int
    smem_bytes: int
    elem_bytes: int
    n_src_regs: int
    n_dst_regs: int
    tile_elems: int
    gvec: int            # global load width (elements)
    ovec: int            # global store width (elements)
    svec: int            # shared store width (elements; 0 without shared memory)
    lvec: int            # shared load width (elements; 0 without shared memory)
    shuffle_rounds: int  # 0 for shared-memory kernels


_VTYPE = {1: "unsigned char", 2: "unsigned short", 4: "unsigned", 8: "uint2", 16: "uint4"}
_FIELDS = ("x", "y", "z", "w")


def _hex(v: int) -> str:
    return f"0x{v:x}u"


def _select_sum(var: str, bits: Sequence[int], consts: Sequence[int]) -> str:
    """``XOR over k of (bit k of var ? consts[k] : 0)`` as C, dropping zero constants."""
    terms = [f"((({var} >> {k}) & 1u) * {_hex(c)})" for k, c in enumerate(consts) if c and k in bits]
    return " ^ ".join(terms) if terms else "0u"


def _sum(var: str, consts: Sequence[int]) -> str:
    return _select_sum(var, range(len(consts)), consts)


def _span(cols: Sequence[int], i: int) -> int:
    v = 0
    k = 0
    while i:
        if i & 1:
            v ^= cols[k]
        i >>= 1
        k += 1
    return v


def _addr(var: str, const: int, var_bits: int, eb: int) -> str:
    """Byte offset of element ``var ^ const`` as C.

    The bits of ``const`` outside ``var_bits`` (the OR of every value ``var``
    can take) cannot meet ``var``'s, so for them XOR is addition and the
    compiler folds them into the instruction's immediate offset; only the
    overlapping bits need a run-time XOR.  Example: var bits 0x0f8, const
    0x404 -> ``(var ^ 0x4u) * 2u + 2048u``.
    """
    ov, dj = const & var_bits, const & ~var_bits
    head = f"({var} ^ {_hex(ov)}) * {eb}u" if ov else f"{var} * {eb}u"
    return head + (f" + {dj * eb}u" if dj else "")


def _or(cols: Sequence[int]) -> int:
    v = 0
    for c in cols:
        v |= c
    return v


def _pack(vals: Sequence[str], eb: int) -> tuple[str, str]:
    """(C type, expression) packing ``vals`` (one element each, low bits) into one access."""
    nbytes = len(vals) * eb
    mask = {1: "0xffu", 2: "0xffffu", 4: "0xffffffffu"}[eb]
    if nbytes <= 4:
        parts = [f"(({v}) & {mask})" if eb < 4 else f"({v})" for v in vals]
        expr = " | ".join(p if i == 0 else f"({p} << {8 * eb * i})" for i, p in enumerate(parts))
        return _VTYPE[nbytes], f"({_VTYPE[nbytes]})({expr})"
    per_word = 4 // eb
    words = []
    for w in range(nbytes // 4):
        _, e = _pack(vals[w * per_word:(w + 1) * per_word], eb)
        words.append(e)
    return _VTYPE[nbytes], f"make_{_VTYPE[nbytes]}({', '.join(words)})"


def _unpack(var: str, n: int, eb: int) -> list[str]:
    """Expressions for the n elements of access variable ``var`` (as unsigned)."""
    nbytes = n * eb
    mask = {1: "0xffu", 2: "0xffffu", 4: "0xffffffffu"}[eb]
    per_word = max(1, 4 // eb)
    out = []
    for i in range(n):
        word = f"{var}.{_FIELDS[(i * eb) // 4]}" if nbytes > 4 else f"(unsigned){var}"
        sh = 8 * eb * (i % per_word)
        e = word if eb == 4 else (f"(({word} >> {sh}) & {mask})" if sh else f"({word} & {mask})")
        out.append(e)
    return out


def _header(name: str, lines: Sequence[str]) -> list[str]:
    out = [f"// {name}: generated by llverify.gpu (do not edit)"]
    out += [f"// {x}" for x in lines]
    return out


def _describe_layout(tag: str, m: DistMap) -> list[str]:
    return [f"{tag}: shape {list(m.shape)}, element ids of bases: register {list(m.reg)}, "
            f"lane {list(m.lane)}, warp {list(m.warp)}"]


def _prologue(name: str, a: DistMap, b: DistMap, eb: int, smem: bool) -> tuple[list[str], int]:
    nt = a.n_threads
    min_blocks = os.environ.get("LLVERIFY_GPU_MIN_BLOCKS", "").strip()   # experiments: force register limits
    bounds = f"{nt}, {int(min_blocks)}" if min_blocks else f"{nt}"
    body = [
        f'extern "C" __global__ void __launch_bounds__({bounds})',
        f"{name}(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, int reps, unsigned salt)",
        "{",
    ]
    if smem:
        body.append("    extern __shared__ __align__(16) unsigned char smem[];")
    body += [
        "    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;",
        f"    const unsigned char* tin = in + (size_t)blockIdx.x * {a.n_elems * eb}u;",
        "    // element id of A's register 0 in this thread: XOR of the lane and warp bases",
        f"    const unsigned a_id = {_sum('lane', a.lane)} ^ {_sum('warp', a.warp)};",
        f"    unsigned a[{a.n_reg}];",
        f"    unsigned b[{b.n_reg}];",
    ]
    # (c) vectorised global load of A's registers
    gp = vector_plan(list(a.reg), list(a.lane) + list(a.warp), eb)
    gvec = gp.vec
    body.append(f"    // global load: {gvec} element(s) per instruction (register bits {list(gp.chosen)} are id bits 0..)")
    for g in range(gp.n_groups()):
        rid = gp.group_address(a.reg, g)
        t, _ = _pack(["0"] * gvec, eb)
        vals = _unpack("t", gvec, eb)
        addr = _addr("a_id", rid, _or(list(a.lane) + list(a.warp)), eb)
        body.append(f"    {{ const {t} t = *reinterpret_cast<const {t}*>(tin + {addr});"
                    + "".join(f" a[{gp.register(g, i)}] = {v};" for i, v in enumerate(vals)) + " }")
    body.append(f"    #pragma unroll\n    for (int k = 0; k < {b.n_reg}; ++k) b[k] = 0u;")
    return body, gvec


def _epilogue(b: DistMap, eb: int) -> tuple[list[str], int]:
    ovec = 1
    while ovec * 2 <= b.n_reg and ovec * 2 * eb <= 16:
        ovec *= 2
    body = [
        f"    // global store: thread-major, {ovec} element(s) per instruction",
        f"    unsigned char* tout = out + ((size_t)blockIdx.x * {b.n_threads}u + threadIdx.x) * {b.n_reg * eb}u;",
    ]
    for g in range(b.n_reg // ovec):
        t, e = _pack([f"b[{g * ovec + i}]" for i in range(ovec)], eb)
        body.append(f"    *reinterpret_cast<{t}*>(tout + {g * ovec * eb}u) = {e};")
    body.append("}")
    return body, ovec


def shared_conversion_kernel(name: str, a: DistMap, b: DistMap, s: SharedMap, eb: int,
                             comment: Sequence[str] = ()) -> KernelSource:
    """Conversion A -> B through shared memory laid out by S (see the module docstring)."""
    if not (a.shape == b.shape == s.shape):
        raise ValueError(f"shapes differ: A {a.shape}, B {b.shape}, S {s.shape}")
    if a.n_warps != b.n_warps:
        raise ValueError("A and B must use the same number of warps")
    a_reg, a_lane, a_warp = access_offsets(a, s)
    b_reg, b_lane, b_warp = access_offsets(b, s)
    sp = vector_plan(a_reg, a_lane + a_warp, eb)
    lp = vector_plan(b_reg, b_lane + b_warp, eb)
    svec, lvec = sp.vec, lp.vec
    lines = list(comment) + _describe_layout("A (source)", a) + _describe_layout("B (destination)", b) + [
        f"S (shared, id -> offset columns): {list(s.offset_of_id_bit)}",
        f"shared store: {svec} element(s) of {eb} byte(s) per st.shared (register bits {list(sp.chosen)}); "
        f"shared load: {lvec} per ld.shared (register bits {list(lp.chosen)})",
    ]
    code = _header(name, lines)
    body, gvec = _prologue(name, a, b, eb, smem=True)
    code += body
    code += [
        "    // shared offsets of register 0 (S^-1 o A and S^-1 o B on the lane and warp bases)",
        f"    const unsigned a_off = {_sum('lane', a_lane)} ^ {_sum('warp', a_warp)};",
        f"    const unsigned b_off = {_sum('lane', b_lane)} ^ {_sum('warp', b_warp)};",
        "    for (int it = 0; it < reps; ++it) {",
        "        const unsigned s = salt * (unsigned)it;",
    ]
    for g in range(sp.n_groups()):
        off = sp.group_address(a_reg, g)
        t, e = _pack([f"a[{sp.register(g, i)}] ^ s" for i in range(svec)], eb)
        code.append(f"        *reinterpret_cast<{t}*>(smem + {_addr('a_off', off, _or(a_lane + a_warp), eb)}) = {e};")
    code.append("        __syncthreads();")
    for g in range(lp.n_groups()):
        off = lp.group_address(b_reg, g)
        t, _ = _pack(["0"] * lvec, eb)
        vals = _unpack("t", lvec, eb)
        code.append(f"        {{ const {t} t = *reinterpret_cast<const {t}*>(smem + {_addr('b_off', off, _or(b_lane + b_warp), eb)});"
                    + "".join(f" b[{lp.register(g, i)}] ^= {v};" for i, v in enumerate(vals)) + " }")
    code += ["        __syncthreads();", "    }"]
    tail, ovec = _epilogue(b, eb)
    code += tail
    return KernelSource(name, "\n".join(code) + "\n", a.n_threads, a.n_elems * eb, eb, a.n_reg, b.n_reg,
                        a.n_elems, gvec, ovec, svec, lvec, 0)


def _send_select(prefix: int, bits: Sequence[tuple[str, int, int]], k: int, words: str) -> str:
    if k == len(bits):
        return f"{words}[{prefix}]"
    var, bit, c = bits[k]
    if c == 0:
        return _send_select(prefix, bits, k + 1, words)
    return (f"((({var} >> {bit}) & 1u) ? {_send_select(prefix ^ c, bits, k + 1, words)}"
            f" : {_send_select(prefix, bits, k + 1, words)})")


def _swap_stages(arr: str, n: int, bits: Sequence[tuple[str, int]]) -> list[str]:
    """Conditional swaps: stage p exchanges arr[z] and arr[z ^ 2^p] when bit ``bits[p]`` of its variable is set."""
    out = []
    for p, (var, bit) in enumerate(bits):
        out.append(f"            {{ const bool c = ({var} >> {bit}) & 1u;")
        for z in range(n):
            if not z >> p & 1:
                y = z ^ (1 << p)
                out.append(f"              {{ const unsigned t0 = c ? {arr}[{y}] : {arr}[{z}], t1 = c ? {arr}[{z}] : {arr}[{y}];"
                           f" {arr}[{z}] = t0; {arr}[{y}] = t1; }}")
        out.append("            }")
    return out


def _transpose_body(plan: ShufflePlan, vec: int, eb: int) -> list[str]:
    """Select (swap stages by sender lane bits), 2^m shuffles, select (swaps by receiver lane bits)."""
    tg = plan.transpose
    assert tg is not None
    m = len(tg.pairs)
    n = 1 << m
    code = [f"        // transposition: {len(tg.groups)} group(s) of {n} rounds; pairs (B reg bit, B lane bit, "
            f"A lane bit, A reg bit) = {list(tg.pairs)}"]
    for g, (send_base, dst_base) in enumerate(tg.groups):
        code.append("        {")
        code.append(f"            unsigned u[{n}];")
        for z in range(n):
            idx = send_base
            for p, (_, _, _, r) in enumerate(tg.pairs):
                if z >> p & 1:
                    idx ^= 1 << r
            code.append(f"            u[{z}] = w[{idx}];")
        code += _swap_stages("u", n, [("lane", a) for (_, _, a, _) in tg.pairs])
        for z in range(n):
            rd = plan.rounds[g * n + z]
            src = f"{_hex(rd.src_lane0)} ^ {_sum('lane', rd.src_lane_bits)}"
            code.append(f"            u[{z}] = __shfl_sync(0xffffffffu, u[{z}], {src});")
        code += _swap_stages("u", n, [("lane", k) for (_, k, _, _) in tg.pairs])
        for y in range(n):
            d = dst_base
            for p, (j, _, _, _) in enumerate(tg.pairs):
                if y >> p & 1:
                    d ^= 1 << j
            vals = _unpack(f"u[{y}]", vec, eb)
            code.append("            " + " ".join(f"b[{d * vec + i}] ^= {v};" for i, v in enumerate(vals)))
        code.append("        }")
    return code


def shuffle_conversion_kernel(name: str, a: DistMap, b: DistMap, plan: ShufflePlan, eb: int,
                              comment: Sequence[str] = ()) -> KernelSource:
    """Conversion A -> B through ``shfl.sync`` rounds of ``plan`` (see :mod:`llverify.gpu.shuffle`)."""
    vec = plan.vec
    lines = list(comment) + _describe_layout("A (source)", a) + _describe_layout("B (destination)", b) + [
        f"warp shuffles: {len(plan.rounds)} round(s), {vec} element(s) per 32-bit shfl.sync",
    ]
    code = _header(name, lines)
    body, gvec = _prologue(name, a, b, eb, smem=False)
    code += body
    nw = a.n_reg // vec
    code += [
        "    for (int it = 0; it < reps; ++it) {",
        "        const unsigned s = salt * (unsigned)it;",
        f"        unsigned w[{nw}];",
    ]
    for g in range(nw):
        _, e = _pack([f"a[{g * vec + i}] ^ s" for i in range(vec)], eb)
        code.append(f"        w[{g}] = (unsigned)({e});")
    if plan.transpose is not None and plan.transpose.pairs:
        code += _transpose_body(plan, vec, eb)
        plan_rounds: Sequence = ()
    else:
        plan_rounds = plan.rounds
    for rd in plan_rounds:
        sel_bits = [("lane", k, c) for k, c in enumerate(rd.send_reg_bits)] + \
                   [("warp", k, c) for k, c in enumerate(rd.send_reg_warp_bits)]
        send = _send_select(rd.send_reg0, sel_bits, 0, "w")
        if rd.local:
            fetch = f"const unsigned got = {send};"
        else:
            src = f"{_hex(rd.src_lane0)} ^ {_sum('lane', rd.src_lane_bits)} ^ {_sum('warp', rd.src_lane_warp_bits)}"
            fetch = f"const unsigned got = __shfl_sync(0xffffffffu, {send}, {src});"
        vals = _unpack("got", vec, eb)
        if not any(rd.dst_vec_bits):
            code.append(f"        {{ {fetch}"
                        + "".join(f" b[{rd.dst_vec * vec + i}] ^= {v};" for i, v in enumerate(vals)) + " }")
            continue
        # receiver-side select: the destination vector depends on this lane's bits
        cands = [rd.dst_vec ^ _span([c for c in rd.dst_vec_bits if c], m)
                 for m in range(1 << sum(1 for c in rd.dst_vec_bits if c))]
        code.append(f"        {{ {fetch} const unsigned di = {_hex(rd.dst_vec)} ^ {_sum('lane', rd.dst_vec_bits)};")
        for d in cands:
            code.append("            " + " ".join(f"b[{d * vec + i}] ^= (di == {_hex(d)}) ? {v} : 0u;"
                                                  for i, v in enumerate(vals)))
        code.append("        }")
    code.append("    }")
    tail, ovec = _epilogue(b, eb)
    code += tail
    return KernelSource(name, "\n".join(code) + "\n", a.n_threads, 0, eb, a.n_reg, b.n_reg, a.n_elems,
                        gvec, ovec, 0, 0, len(plan.rounds))


def global_copy_kernel(name: str, a: DistMap, eb: int, comment: Sequence[str] = ()) -> KernelSource:
    """Plan (c) alone: vectorised global load in layout A, registers written out (identity conversion)."""
    lines = list(comment) + _describe_layout("A", a) + ["no conversion: registers go straight to the output"]
    code = _header(name, lines)
    body, gvec = _prologue(name, a, a, eb, smem=False)
    code += body
    code += ["    for (int it = 0; it < reps; ++it) {",
             "        const unsigned s = salt * (unsigned)it;",
             f"        #pragma unroll\n        for (int k = 0; k < {a.n_reg}; ++k) b[k] ^= a[k] ^ s;",
             "    }"]
    tail, ovec = _epilogue(a, eb)
    code += tail
    return KernelSource(name, "\n".join(code) + "\n", a.n_threads, 0, eb, a.n_reg, a.n_reg, a.n_elems,
                        gvec, ovec, 0, 0, 0)
