"""CUDA C generation for layout conversions (shared memory or warp shuffles) and global I/O.

Every generated kernel has the signature

    extern "C" __global__ void NAME(const unsigned char* in, unsigned char* out, int reps, unsigned salt)

and does, for the tile of block ``blockIdx.x`` (``in`` holds ``gridDim.x``
row-major tiles, one element id after another):

1. *global load* (plan (c)): register r of thread (warp w, lane l) receives
   ``in[tile][id(A(r, l, w))]``, ``gvec`` elements per instruction, where
   ``gvec`` is ``llverify.codegen.global_vector_width(A)`` (registers may be
   permuted into vectors, section 5.3);
2. ``reps`` times: the conversion A -> B, either (a) through shared memory
   with layout S (store A's registers at ``S^-1`` offsets, ``svec =
   shared_vector_width(A, S)`` elements per ``st.shared``, barrier, load B's
   registers, ``lvec = shared_vector_width(B, S)`` per ``ld.shared``,
   barrier) or (b) through warp shuffles (a
   :class:`~llverify.gpu.shuffle.ShuffleProgram` read off codegen's
   ``shuffle_plan`` or ``transposition_decomposition``); B's registers accumulate the
   results by XOR, so for odd ``reps`` they end equal to one conversion.  The
   sources are XORed with ``salt * it`` (``salt`` is 0 at run time; the
   compiler cannot know it, so repetitions are not folded away);
3. *global store*: thread t of the block writes its ``NB`` registers to
   ``out[(block * threads + t) * NB + j]``.

Element bits are moved, never interpreted: f32 / f16 / f8 are 4 / 2 / 1-byte
words held one per 32-bit register.  All index arithmetic is XOR of constants
selected by lane and warp bits, as the linear layouts prescribe.

Example: ``shared_conversion_kernel(name, blocked, mma, row_major, 2)`` at
64x64 f16 stores 8-element (16-byte) vectors and loads B's register pairs
as 4-byte words.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

from llverify.codegen.vectorize import global_vector_width, shared_vector_width
from llverify.errors import LayoutError
from llverify.gpu.shuffle import ShuffleProgram
from llverify.gpu.tile import DistMap, VectorGroups, offset_columns
from llverify.layout import LinearLayout

__all__ = ["KernelSource", "shared_conversion_kernel", "shared_vectors", "shuffle_conversion_kernel",
           "global_copy_kernel"]


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


def _maps(src: LinearLayout, dst: LinearLayout) -> tuple[DistMap, DistMap]:
    a, b = DistMap.of(src), DistMap.of(dst)
    if a.shape != b.shape:
        raise LayoutError(f"shapes differ: A {a.shape}, B {b.shape}")
    if a.n_warps != b.n_warps:
        raise LayoutError("A and B must use the same number of warps")
    for name, m in (("A", a), ("B", b)):
        if len(set(m.reg)) != len(m.reg) or 0 in m.reg:
            raise LayoutError(f"layout {name} broadcasts registers; the generator addresses every register")
    return a, b


def _prologue(name: str, src: LinearLayout, a: DistMap, b: DistMap, eb: int, smem: bool) -> tuple[list[str], int]:
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
    gp = VectorGroups(global_vector_width(src, 8 * eb))
    gvec = gp.vec
    body.append(f"    // global load: {gvec} element(s) per instruction (llverify.codegen.global_vector_width; "
                f"register bits {list(gp.chosen)} are id bits 0..)")
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


def shared_vectors(src: LinearLayout, dst: LinearLayout, shared: LinearLayout,
                   eb: int) -> tuple[VectorGroups, VectorGroups]:
    """Store and load vectors: ``llverify.codegen.shared_vector_width`` of A and of B on S."""
    return (VectorGroups(shared_vector_width(src, shared, 8 * eb)),
            VectorGroups(shared_vector_width(dst, shared, 8 * eb)))


def shared_conversion_kernel(name: str, src: LinearLayout, dst: LinearLayout, shared: LinearLayout, eb: int,
                             comment: Sequence[str] = ()) -> KernelSource:
    """Conversion A -> B through shared memory laid out by S (see the module docstring)."""
    a, b = _maps(src, dst)
    a_reg, a_lane, a_warp = offset_columns(src, shared)
    b_reg, b_lane, b_warp = offset_columns(dst, shared)
    sp, lp = shared_vectors(src, dst, shared, eb)
    svec, lvec = sp.vec, lp.vec
    s_cols = [list(c) for c in shared.bases["offset"]]
    lines = list(comment) + _describe_layout("A (source)", a) + _describe_layout("B (destination)", b) + [
        f"S (shared, offset bases -> coordinates): {s_cols}",
        f"shared store: {svec} element(s) of {eb} byte(s) per st.shared (register bits {list(sp.chosen)}); "
        f"shared load: {lvec} per ld.shared (register bits {list(lp.chosen)}) (llverify.codegen.shared_vector_width)",
    ]
    code = _header(name, lines)
    body, gvec = _prologue(name, src, a, b, eb, smem=True)
    code += body
    code += [
        "    // shared offsets of register 0 (llverify.codegen.access_to_offsets: S^-1 A and S^-1 B on lanes, warps)",
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


def _cond(m: int) -> str:
    """C condition ``parity(lane & m)``."""
    if m & (m - 1) == 0:
        return f"((lane >> {m.bit_length() - 1}) & 1u)"
    return f"(__popc(lane & {_hex(m)}) & 1u)"


def _perm_selector(d: int, eb: int) -> int:
    """``__byte_perm`` selector moving the element at position p to position ``p ^ d`` (elements of eb bytes)."""
    sel = 0
    for bp in range(4):
        e = bp // eb
        sel |= (((e ^ d) * eb + bp % eb) & 7) << (4 * bp)
    return sel


def _word_swaps(arr: str, n: int, cond: str, d: int) -> list[str]:
    """``if cond: arr[j] <-> arr[j ^ d]`` for every pair, as word selects."""
    out = []
    for j in range(n):
        if j < j ^ d < n:
            out.append(f"        {{ const unsigned lo = {arr}[{j}], hi = {arr}[{j ^ d}]; "
                       f"{arr}[{j}] = {cond} ? hi : lo; {arr}[{j ^ d}] = {cond} ? lo : hi; }}")
    return out


def _plan_prelude(prog: ShuffleProgram) -> list[str]:
    """Loop-invariant lane values: the stage conditions and ``S(lane)``."""
    code = []
    for tag, stages in (("cs", prog.send_stages), ("cr", prog.recv_stages), ("cq", prog.perm_stages)):
        for i, st in enumerate(stages):
            code.append(f"    const bool {tag}{i} = {_cond(st.cond)};")
    if not prog.xor_shuffles:
        code.append(f"    const unsigned sl = {_sum('lane', prog.lane_map)};   // S(lane): src_lane = sl ^ c_k")
    return code


def _plan_body(prog: ShuffleProgram, eb: int) -> list[str]:
    vec, nw = prog.elems_per_word, prog.n_words
    code = [f"        // {len(prog.rounds)} round(s) of {prog.source}: {prog.num_shuffles} shfl.sync, "
            f"{vec} element(s) per 32-bit word, {prog.num_word_selects} word selects",
            f"        unsigned wa[{nw}], wb[{nw}];",
            "        // pack A's registers into words (plan.a_words)"]
    for w, regs in enumerate(prog.a_words):
        _, e = _pack([f"a[{r}] ^ s" for r in regs], eb)
        code.append(f"        wa[{w}] = (unsigned)({e});")
    for i, st in enumerate(prog.send_stages):
        code.append(f"        // send stage {i}: lane-linear part of the sent word (P_s), word ^= {st.xor}")
        code += _word_swaps("wa", nw, f"cs{i}", st.xor)
    for k, rd in enumerate(prog.rounds):
        if prog.local(rd):
            fetch = f"wa[{rd.send}]"
        elif prog.xor_shuffles:
            fetch = f"__shfl_xor_sync(0xffffffffu, wa[{rd.send}], {rd.src_xor})"
        else:
            fetch = f"__shfl_sync(0xffffffffu, wa[{rd.send}], sl ^ {_hex(rd.src_xor)})"
        if rd.perm:
            fetch = f"__byte_perm({fetch}, 0u, {_hex(_perm_selector(rd.perm, eb))})"
        code.append(f"        wb[{rd.recv}] = {fetch};   // round {k}")
    for i, st in enumerate(prog.recv_stages):
        code.append(f"        // receive stage {i}: lane-linear part of the received word (P_r), word ^= {st.xor}")
        code += _word_swaps("wb", nw, f"cr{i}", st.xor)
    for i, st in enumerate(prog.perm_stages):
        code.append(f"        // position stage {i} (Q): element p -> p ^ {st.xor}")
        sel = _hex(_perm_selector(st.xor, eb))
        code += [f"        wb[{w}] = cq{i} ? __byte_perm(wb[{w}], 0u, {sel}) : wb[{w}];" for w in range(nw)]
    code.append("        // unpack B's words once (plan.b_words)")
    for w, regs in enumerate(prog.b_words):
        vals = _unpack(f"wb[{w}]", vec, eb)
        code.append("        " + " ".join(f"b[{r}] ^= {v};" for r, v in zip(regs, vals)))
    return code


def _lane_swap_src(l1: int, l2: int) -> str:
    return f"lane ^ ((((lane >> {l1}) ^ (lane >> {l2})) & 1u) * {_hex((1 << l1) | (1 << l2))})"


def _transposition_body(prog: ShuffleProgram) -> list[str]:
    """Data exchanges in order (see :mod:`llverify.gpu.shuffle`); ``phys`` renames registers at compile time."""
    n = prog.n_regs
    phys = list(range(n))
    code = [f"        // {len(prog.steps)} transposition(s) of {prog.source} ({prog.num_shuffles} shfl.sync)",
            f"        unsigned x[{n}];"]
    code += [f"        x[{i}] = a[{i}] ^ s;" for i in range(n)]
    for t in prog.steps:
        code.append(f"        // {t.kind} {t.a} <-> {t.b}")
        if t.kind == "register_swap":
            r1, r2 = t.a[1], t.b[1]
            phys = [phys[_swap_bits(i, r1, r2)] for i in range(n)]
        elif t.kind == "lane_swap":
            src = _lane_swap_src(t.a[1], t.b[1])
            code += [f"        x[{j}] = __shfl_sync(0xffffffffu, x[{j}], {src});" for j in range(n)]
        else:
            r, ln = (t.a[1], t.b[1]) if t.a[0] == "register" else (t.b[1], t.a[1])
            code.append(f"        {{ const bool c = (lane >> {ln}) & 1u;")
            for i in range(n):
                if i >> r & 1:
                    continue
                lo, hi = phys[i], phys[i | 1 << r]
                code.append(f"          {{ const unsigned t = __shfl_xor_sync(0xffffffffu, c ? x[{lo}] : x[{hi}], {1 << ln});"
                            f" if (c) x[{lo}] = t; else x[{hi}] = t; }}")
            code.append("        }")
    code += [f"        b[{i}] ^= x[{phys[i]}];" for i in range(n)]
    return code


def _swap_bits(i: int, p: int, q: int) -> int:
    """``i`` with bits p and q exchanged."""
    if (i >> p & 1) != (i >> q & 1):
        i ^= (1 << p) | (1 << q)
    return i


def shuffle_conversion_kernel(name: str, src: LinearLayout, dst: LinearLayout, prog: ShuffleProgram, eb: int,
                              comment: Sequence[str] = ()) -> KernelSource:
    """Conversion A -> B with ``shfl.sync`` as ``prog`` says (see :mod:`llverify.gpu.shuffle`)."""
    a, b = _maps(src, dst)
    lines = list(comment) + _describe_layout("A (source)", a) + _describe_layout("B (destination)", b) + [
        f"warp shuffles from {prog.source}: {prog.num_shuffles} shfl.sync per conversion",
    ]
    code = _header(name, lines)
    body, gvec = _prologue(name, src, a, b, eb, smem=False)
    code += body
    if prog.method == "plan":
        code += _plan_prelude(prog)
    code += ["    for (int it = 0; it < reps; ++it) {", "        const unsigned s = salt * (unsigned)it;"]
    code += _plan_body(prog, eb) if prog.method == "plan" else _transposition_body(prog)
    code.append("    }")
    tail, ovec = _epilogue(b, eb)
    code += tail
    return KernelSource(name, "\n".join(code) + "\n", a.n_threads, 0, eb, a.n_reg, b.n_reg, a.n_elems,
                        gvec, ovec, 0, 0, prog.num_shuffles)


def global_copy_kernel(name: str, src: LinearLayout, eb: int, comment: Sequence[str] = ()) -> KernelSource:
    """Plan (c) alone: vectorised global load in layout A, registers written out (identity conversion)."""
    a, _ = _maps(src, src)
    lines = list(comment) + _describe_layout("A", a) + ["no conversion: registers go straight to the output"]
    code = _header(name, lines)
    body, gvec = _prologue(name, src, a, a, eb, smem=False)
    code += body
    code += ["    for (int it = 0; it < reps; ++it) {",
             "        const unsigned s = salt * (unsigned)it;",
             f"        #pragma unroll\n        for (int k = 0; k < {a.n_reg}; ++k) b[k] ^= a[k] ^ s;",
             "    }"]
    tail, ovec = _epilogue(a, eb)
    code += tail
    return KernelSource(name, "\n".join(code) + "\n", a.n_threads, 0, eb, a.n_reg, a.n_reg, a.n_elems,
                        gvec, ovec, 0, 0, 0)
