"""The target a lit test names on its ``// RUN:`` lines, and the spelling of a ``ttg.target``.

Triton's lit tests often print their modules without ``ttg.target``: the target is an option of the pass
the test runs, on the file's ``// RUN:`` lines (lit's comment directive; a command ending in ``\\`` goes on
on the next ``RUN:`` line).  :func:`run_line_targets` reads the file's *leading* comment lines (up to the
first line that is neither blank nor a ``//`` comment) and returns every distinct target those commands name,
in the ``ttg.target`` spelling:

* ``compute-capability=N`` (``--convert-triton-gpu-to-llvm``, ``--allocate-shared-memory-nv``) -> ``cuda:N``;
* ``arch=gfxX`` and ``gfx-arch=gfxX`` (``--convert-triton-amdgpu-to-llvm``, ``--tritonamdgpu-*``), quoted or
  not -> ``hip:gfxX``;
* ``target=cuda:N`` / ``target=hip:gfxX`` (``-convert-triton-to-tritongpu``, in a ``-pass-pipeline``'s
  braces too) -> as written; ``target=nvidia`` / ``target=amd`` name a vendor, not a target: ignored;
* ``-mcpu=sm_N`` (``sm_Na``, ``sm_Nf``) -> ``cuda:N``; ``-mcpu=gfxX`` -> ``hip:gfxX`` (the ``llc`` stage of a
  pipeline); ``target-arch=gfxX`` (``--optimize-amd-lds-usage``) -> ``hip:gfxX``;
* ``--convert-triton-gpu-to-llvm`` without a ``compute-capability`` option -> ``cuda:80``: that pass lowers for
  its option's default, 80 (Triton's ``TritonNVIDIAGPUToLLVM/Passes.td``).  ``--allocate-shared-memory-nv``
  and AMD's passes given no option name nothing (AMD's lowering has no default arch).

:func:`run_line_target` is the one target they name, or None (none named, or several different ones: a
file whose RUN lines lower the same module for gfx942 and gfx950 has no single target).
:func:`parse_target` checks a target given by hand (``llverify ttgir --target``).

Reading is linear in the text: lines are cut with ``str.find`` and commands split on separator characters,
no regular expression backtracks; a command of 10 MB is read in well under a second.

>>> text = '''// RUN: triton-opt %s -split-input-file \\\\
... // RUN:   --convert-triton-gpu-to-llvm='compute-capability=90 ptx-version=83' | FileCheck %s
... // RUN: llc -mcpu=sm_90a | FileCheck %s
... #blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
... // RUN: not a leading line: compute-capability=80'''
>>> run_commands(text)[0]
"triton-opt %s -split-input-file --convert-triton-gpu-to-llvm='compute-capability=90 ptx-version=83' | FileCheck %s"
>>> run_line_targets(text), run_line_target(text)
(('cuda:90',), 'cuda:90')
>>> run_line_targets('// RUN: opt --convert-triton-amdgpu-to-llvm="gfx-arch=gfx942 ftz=True"\\n'
...                  '// RUN: opt --convert-triton-amdgpu-to-llvm=arch=gfx950\\n')
('hip:gfx942', 'hip:gfx950')
>>> run_line_target('// RUN: opt --convert-triton-amdgpu-to-llvm=arch=gfx942\\n// RUN: opt arch=gfx950\\n') is None
True
>>> run_line_targets("// RUN: triton-opt %s --allocate-shared-memory-nv --convert-triton-gpu-to-llvm | FileCheck %s")
('cuda:80',)
>>> parse_target("cuda:90"), parse_target("hip:gfx942"), parse_target("sm_90")
('cuda:90', 'hip:gfx942', None)
"""

from __future__ import annotations

import re

from llverify.hw.target_isa import parse_target as spelled_target

__all__ = ["run_commands", "run_line_targets", "run_line_target", "parse_target", "TARGET_SPELLING"]

#: what :func:`parse_target` accepts, in words (the ``--target`` option's help and error)
TARGET_SPELLING = "cuda:<compute capability> (cuda:80, cuda:90, cuda:100) or hip:<gfx arch> (hip:gfx942, hip:gfx950)"

#: characters that end a token of a RUN command: white space, quotes, the punctuation of a pass pipeline
#: (``builtin.module(pass{opt=1 target=cuda:90},...)``) and the ``=`` of ``--pass=key=value``
_SEP = r"\s'\"{}(),;|="
#: an option that may name a target: its key at the start of the command or after a separator, with up to two
#: dashes, and its value (after a quote, as in ``gfx-arch="gfx1250"``) up to the next separator.  One pass over
#: the command: no nested repetition, nothing to backtrack over.
_OPTION = re.compile(rf"(?:^|(?<=[{_SEP}]))-{{0,2}}(compute-capability|gfx-arch|target-arch|arch|target|mcpu)=[\"']?"
                     rf"([^{_SEP}]*)")
#: Triton's NVIDIA lowering pass, which lowers for ``compute-capability=80`` when not given one (its option's
#: default in ``third_party/nvidia/include/TritonNVIDIAGPUToLLVM/Passes.td``); AMD's lowering has no default arch
_NV_LOWERING = re.compile(rf"(?:^|(?<=[{_SEP}]))-{{0,2}}convert-triton-gpu-to-llvm(?![\w-])")
NV_LOWERING_DEFAULT = "cuda:80"
#: the longest option string of one pass that is read (real ones are tens of characters): bounds the work per
#: occurrence of the pass, so that a hostile command of many occurrences is still read in linear time
_MAX_PASS_OPTIONS = 1000


def parse_target(text: str) -> str | None:
    """``text`` if it spells a ``ttg.target`` as Triton prints it (:func:`llverify.hw.target_isa.parse_target`
    says which), else None.

    Postcondition: the result is None or equal to ``text``."""
    return text if spelled_target(text) is not None else None


def _capability(s: str) -> bool:
    return spelled_target(f"cuda:{s}") is not None


def _gfx(s: str) -> bool:
    return spelled_target(f"hip:{s}") is not None


#: the first line that is neither blank nor a ``//`` comment: the end of the leading comment block
_CODE_LINE = re.compile(r"^[ \t\r\f\v]*(?:[^/\s]|/(?!/))", re.M)
#: a RUN line of that block, and its command
_RUN = re.compile(r"^[ \t\r\f\v]*//[ \t]*RUN:([^\n]*)", re.M)


def _run_lines(text: str) -> list[str]:
    """The commands of the RUN lines among the leading lines of ``text`` (up to the first line that is neither
    blank nor a ``//`` comment; a last line without a newline counts), stripped."""
    code = _CODE_LINE.search(text)
    end = len(text) if code is None else code.start()
    return [m.group(1).strip() for m in _RUN.finditer(text, 0, end)]


def run_commands(text: str) -> list[str]:
    """The commands of the leading ``// RUN:`` lines of ``text``, continuations joined (lit's rule: a command
    whose line ends in ``\\`` continues on the next ``RUN:`` line, the backslash dropped).

    Requires: nothing (any text).  Postcondition: one string per command, in file order."""
    out: list[str] = []
    pending: list[str] = []  # the pieces of a command continued with a backslash (joined once: linear)
    for cmd in _run_lines(text):  # other comments between a continued line and the next RUN line are skipped
        more = cmd.endswith("\\")
        pending.append(cmd[:-1].rstrip() if more else cmd)
        if not more:
            out.append(" ".join(p for p in pending if p))
            pending = []
    if pending:
        out.append(" ".join(p for p in pending if p))  # a backslash on the last RUN line: the command so far
    return out


def _target_of(key: str, value: str) -> str | None:
    """The ``ttg.target`` an option ``key=value`` of a RUN command names, or None."""
    if key == "compute-capability":
        return f"cuda:{value}" if _capability(value) else None
    if key in ("arch", "gfx-arch", "target-arch"):
        return f"hip:{value}" if _gfx(value) else None
    if key == "target":
        return parse_target(value)
    if key == "mcpu":
        if value.startswith("sm_"):
            cap = value[3:-1] if value[-1] in "af" else value[3:]  # sm_90a, sm_100f: the arch-specific forms
            return f"cuda:{cap}" if _capability(cap) else None
        return f"hip:{value}" if _gfx(value) else None
    return None


def run_line_targets(text: str) -> tuple[str, ...]:
    """Every distinct target the leading ``// RUN:`` commands of ``text`` name (see the module docstring), in
    order of first mention.

    An option is a key of :data:`_OPTION` after a separator, so ``--convert-triton-gpu-to-llvm=compute-capability=90``
    names ``cuda:90`` and ``--some-arch=gfx942`` or ``march=...`` name nothing."""
    seen: dict[str, None] = {}
    for cmd in run_commands(text):
        found = []
        for m in _OPTION.finditer(cmd):
            t = _target_of(m.group(1), m.group(2))
            if t is not None:
                found.append((m.start(), t))
        for m in _NV_LOWERING.finditer(cmd):
            if "compute-capability=" not in _pass_options(cmd, m.end()):
                found.append((m.start(), NV_LOWERING_DEFAULT))
        for _, t in sorted(found):
            seen.setdefault(t)
    return tuple(seen)


def _pass_options(cmd: str, at: int) -> str:
    """The option string of the pass whose name ends at ``cmd[at]``: ``=value``, ``='a b'`` / ``="a b"``, or a
    pipeline's ``{a b}``; "" when it has none.  At most :data:`_MAX_PASS_OPTIONS` characters are read."""
    head = cmd[at:at + 2]
    if head[:1] == "{":
        start, close = at + 1, "}"
    elif head[:1] == "=" and head[1:] in ("'", '"'):
        start, close = at + 2, head[1]
    elif head[:1] == "=":
        start, close = at + 1, " "
    else:
        return ""
    end = cmd.find(close, start, start + _MAX_PASS_OPTIONS)
    return cmd[start:end if end >= 0 else start + _MAX_PASS_OPTIONS]


def run_line_target(text: str) -> str | None:
    """The target of :func:`run_line_targets` when there is exactly one, else None."""
    found = run_line_targets(text)
    return found[0] if len(found) == 1 else None
