"""Index code: expressions that compute a layout, as a kernel writes them (Python, Triton, C, CUDA).

Parsed (``parse``, ``parse_c``, over the shared syntax tree of ``tree``), never executed; typed with C's
rules (``c_types``); given its meaning by one interpreter (``interpret``) over an algebra: integers on
arrays of inputs (``evaluate``), Z3 bit-vector terms (``bitvector``), intervals (``intervals``, the
bit-widths Python code needs) and SymPy (:mod:`llverify.index.sympy_algebra`).  :mod:`llverify.prove.code` proves index code against a layout with them, and
:mod:`llverify.index` emits and simplifies it (seed 004, LEGO's SymPy + Z3 index expressions).
"""
