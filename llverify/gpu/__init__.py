"""llverify.gpu: generate CUDA kernels from verified layout plans, run them, check them, measure them.

The top layer: layouts come from :mod:`llverify.hw`, plans (swizzles, vector
widths, shuffle rounds, bank-conflict predictions) from :mod:`llverify.codegen`;
this package turns them into CUDA C and checks the hardware agrees.
CPU-only pieces (no CuPy needed): :mod:`~llverify.gpu.cases` (the suite and
``make_case``), :mod:`~llverify.gpu.kernels` (CUDA C generation),
:mod:`~llverify.gpu.shuffle` (codegen's shuffle plans as lane-affine code),
:mod:`~llverify.gpu.tile` (bases as element ids and shared offsets),
:mod:`~llverify.gpu.reference` and :mod:`~llverify.gpu.emulate` (what every
register must hold, and a numpy replay of the kernels),
:mod:`~llverify.gpu.predict` (the kernel's instruction mix with codegen's
wavefront prediction), :mod:`~llverify.gpu.ncu` (Nsight Compute command and
parser), :mod:`~llverify.gpu.report`.  GPU pieces import CuPy lazily:
:mod:`~llverify.gpu.runner` and :mod:`~llverify.gpu.bench`.  The command
line is ``llverify gpu`` (:mod:`~llverify.gpu.cli`); docs/gpu.md has the details.
"""
