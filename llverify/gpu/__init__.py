"""llverify.gpu: generate CUDA kernels from verified layout plans, run them, check them, measure them.

CPU-only pieces (no CuPy needed): :mod:`~llverify.gpu.cases` (the suite and
``make_case``), :mod:`~llverify.gpu.kernels` (CUDA C generation),
:mod:`~llverify.gpu.shuffle` (warp-shuffle plans), :mod:`~llverify.gpu.tile`
(layouts as XOR maps on element ids and offsets),
:mod:`~llverify.gpu.reference` and :mod:`~llverify.gpu.emulate` (what every
register must hold, and a numpy replay of the kernels),
:mod:`~llverify.gpu.banks` and :mod:`~llverify.gpu.predict` (wavefront
predictions), :mod:`~llverify.gpu.ncu` (Nsight Compute command and parser),
:mod:`~llverify.gpu.report`.  GPU pieces import CuPy lazily:
:mod:`~llverify.gpu.runner` and :mod:`~llverify.gpu.bench`.  The command
line is ``llverify gpu`` (:mod:`~llverify.gpu.cli`); docs/gpu.md has the details.
"""
