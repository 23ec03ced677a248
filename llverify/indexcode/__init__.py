"""Index code: expressions that compute a layout, as a kernel writes them (Python, Triton, C, CUDA).

Parsed (``parse``, ``parse_c``, over the shared syntax tree of ``tree``), never executed; typed with C's
rules (``c_types``); evaluated concretely on arrays of inputs (``evaluate``) and encoded as Z3 bit-vector
terms (``bitvector``).  :mod:`llverify.prove.code` proves index code against a layout with them, and
:mod:`llverify.index` emits and simplifies it (seed 004, LEGO's SymPy + Z3 index expressions).
"""
