"""What a corpus kernel declares: the function, its signature and the configurations to compile."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ALL_TARGETS = ("cuda:80", "cuda:90", "cuda:100", "hip:gfx942", "hip:gfx950")


@dataclass(frozen=True)
class Case:
    """One kernel: ``fn`` (a @triton.jit or @gluon.jit function), its runtime ``signature``
    (``{"x": "*fp16", "n": "i32"}``), and named configurations of constexpr values."""

    name: str
    fn: Any
    signature: dict[str, str]
    configs: dict[str, dict[str, Any]]
    targets: tuple[str, ...] = ALL_TARGETS
    warps: tuple[int, ...] = (4, 8)
    gluon: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    #: arguments Triton's launcher would specialise as 16-byte divisible (``tt.divisibility = 16``), as it does
    #: for aligned pointers at run time; axis analysis then sees aligned, contiguous loads
    divisible_by_16: tuple[str, ...] = ()
