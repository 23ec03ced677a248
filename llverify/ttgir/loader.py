"""Finding and reading TTGIR modules: files, directories, Triton cache directories, MLIR_ENABLE_DUMP output.

* a file ``*.ttgir`` / ``*.mlir`` (or any file named explicitly) is one module;
* a directory is searched recursively for ``*.ttgir`` and ``*.mlir`` (names
  compared case-insensitively, sorted, symlinked directories followed once);
  a Triton cache directory (``~/.triton/cache``, ``$TRITON_CACHE_DIR``: one
  hash directory per kernel holding ``<kernel>.ttgir`` beside ``.llir``,
  ``.ptx`` and ``.json``) is just such a directory;
* a file whose text holds ``// -----// IR Dump Before <Pass> (<arg>) ...``
  headers (what ``MLIR_ENABLE_DUMP=1`` writes to stderr) is split into one
  module per snapshot, ``Module.stage`` = ``"<Pass>"``, in dump order;
  snapshots that are not modules (a function-level dump) are skipped.

Only regular files are read (FIFOs, devices and sockets are refused without
being opened), each at most :data:`~llverify.ttgir.reader.MAX_MODULE_BYTES` (a dump at most
:data:`MAX_FILE_BYTES`, each snapshot at most the module limit);
every problem is a :class:`~llverify.ttgir.model.TtgirError` *in the result
list*, so one bad file never hides the others.
"""

from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING, Iterator, Sequence

from llverify.errors import TtgirError

if TYPE_CHECKING:  # the warm cached path reads files and hashes them without the module model (nor pathlib)
    from pathlib import Path

    from llverify.ttgir.model import Module

__all__ = ["load_paths", "load_text", "is_dump", "split_dump", "discover", "read_text", "read_bytes", "decode_text"]

#: :data:`llverify.ttgir.reader.MAX_MODULE_BYTES` (equal by a test): kept here so that reading and hashing a
#: file (a warm cached run) does not load the reader
MAX_MODULE_BYTES = 64 << 20
#: a file is read up to this size; a file over :data:`MAX_MODULE_BYTES` must be an ``MLIR_ENABLE_DUMP`` dump (many
#: snapshots, each a module of at most :data:`MAX_MODULE_BYTES`: a real gfx1250 pipelined-matmul dump is 74 MB)
MAX_FILE_BYTES = 512 << 20

_DUMP_HEADER = re.compile(r"^// -----// (.*?)(?://----- //)?\s*$", re.M)
_STAGE = re.compile(r"IR Dump (Before|After):? ([\w.\-]+)")
_SUFFIXES = (".ttgir", ".mlir")


def is_dump(text: str) -> bool:
    """Does ``text`` hold MLIR pass-dump headers?"""
    return re.search(r"^// -----// .*IR Dump", text, re.M) is not None


def split_dump(text: str) -> Iterator[tuple[str, int, str]]:
    """``(stage, first line number, snapshot text)`` per snapshot of a dump.

    The snapshot text keeps its line numbers' origin: the caller adds
    ``first line - 1`` to report positions in the dump file.
    """
    heads = list(_DUMP_HEADER.finditer(text))
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = _without_stray_lines(text[m.end():end])
        line = text.count("\n", 0, m.end()) + 1
        stage = _stage_name(m.group(1))
        yield stage, line, body


#: what may stand at the top level of a snapshot outside its module: alias and location definitions, comments
_TOP_LEVEL_TEXT = ("#", "!", "//")


def _without_stray_lines(body: str) -> str:
    r"""A snapshot's text with the lines outside its module that no MLIR text can hold blanked (kept as empty
    lines, so every position stays the dump's): a dump captured from stderr interleaves other writes to it
    (``UserWarning: ...`` and the source line Python prints with it) between snapshots.  Outside the module
    (before its ``module`` line, after the closing brace at column 0) only alias and location definitions and
    comments are MLIR; anything inside the module is left to the reader (a stray line there is its error).  A
    snapshot without a ``module`` line at column 0 is returned as it is.

    >>> _without_stray_lines("\nmodule {\n}\nwarn_once(X)\n#loc = loc(unknown)\n").split("\n")
    ['', 'module {', '}', '', '#loc = loc(unknown)', '']
    """
    lines = body.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.startswith(_MODULE_LINE)), None)
    if start is None:
        return body
    end = max((i for i, ln in enumerate(lines) if ln.startswith("}")), default=None)
    if end is None or end < start:
        return body
    changed = _cut_crash_tail(lines, start)
    if changed:
        end = max(i for i, ln in enumerate(lines) if ln.startswith("}"))
    for i in [*range(start), *range(end + 1, len(lines))]:
        stripped = lines[i].strip()
        if stripped and not stripped.startswith(_TOP_LEVEL_TEXT):
            lines[i] = ""
            changed = True
    return "\n".join(lines) if changed else body


_MODULE_LINE = ("module", '"builtin.module"')


def _cut_crash_tail(lines: list[str], start: int) -> bool:
    r"""Blank, in place, what a failing pass appends to the last snapshot of a dump: after the snapshot's module
    closes, Triton prints the error (``LLVM ERROR: ...``), then the crash reproducer (a second copy of the module,
    its aliases and ``{-# external_resources ... #-}``), then diagnostics and a Python traceback.  When a second
    module follows the first, everything from the first line after the first module that no MLIR text can hold is
    blanked (the snapshot is the first module and its location definitions).  True when something was blanked.

    >>> ls = ["module {", "}", "#loc = loc(unknown)", "LLVM ERROR: boom", "#a = #b", "module {", "}", "Traceback"]
    >>> _cut_crash_tail(ls, 0), ls
    (True, ['module {', '}', '#loc = loc(unknown)', '', '', '', '', ''])
    """
    first_end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("}")), None)
    if first_end is None or not any(ln.startswith(_MODULE_LINE) for ln in lines[first_end + 1:]):
        return False
    cut = next((i for i in range(first_end + 1, len(lines))
                if lines[i].strip() and not lines[i].strip().startswith(_TOP_LEVEL_TEXT)), None)
    if cut is None:
        return False
    lines[cut:] = [""] * (len(lines) - cut)
    return True


def _stage_name(header: str) -> str:
    """``IR Dump Before TritonGPUCoalesce: ...`` -> ``TritonGPUCoalesce``; ``After X`` -> ``X (after)``;
    ``SoftwarePipeliner internal IR Dump After: LowerLoops`` -> ``SoftwarePipeliner internal: LowerLoops``."""
    m = _STAGE.search(header)
    if not m:
        return header.strip()
    name = m.group(2).rstrip(":")
    prefix = header[:m.start()].strip()
    if prefix:
        return f"{prefix}: {name}"
    return name if m.group(1) == "Before" else f"{name} (after)"


def read_text(path: str) -> str:
    """The text of a regular file of at most :data:`MAX_MODULE_BYTES`, UTF-8 checked (raises TtgirError)."""
    data = read_bytes(path)
    if len(data) > MAX_MODULE_BYTES:
        raise TtgirError(f"{path}:1:1: file of {len(data)} bytes exceeds the {MAX_MODULE_BYTES >> 20} MiB limit")
    return decode_text(data, path)


def read_bytes(path: str) -> bytes:
    """The bytes of a regular file, at most :data:`MAX_FILE_BYTES` (raises TtgirError); a file over
    :data:`MAX_MODULE_BYTES` is refused by :func:`load_files` unless it is a dump."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise TtgirError(f"{path}:1:1: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise TtgirError(f"{path}:1:1: not a regular file (a FIFO, device, socket or directory is not read)")
    if st.st_size > MAX_FILE_BYTES:
        raise TtgirError(f"{path}:1:1: file of {st.st_size} bytes exceeds the {MAX_FILE_BYTES >> 20} MiB limit")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise TtgirError(f"{path}:1:1: cannot read: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TtgirError(f"{path}:1:1: not a regular file")
        chunks = []
        total = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > MAX_FILE_BYTES:
                raise TtgirError(f"{path}:1:1: file exceeds the {MAX_FILE_BYTES >> 20} MiB limit")
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def decode_text(data: bytes, path: str) -> str:
    """``data`` as UTF-8 text (raises TtgirError at the first invalid byte), without a leading byte-order mark
    (editors on Windows write one; it is no MLIR text and would hide the first line).

    >>> decode_text(b"\\xef\\xbb\\xbfmodule {}", "m.ttgir")
    'module {}'
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise TtgirError(f"{path}:{line}:{col}: not UTF-8 text ({exc.reason})") from None


def _shift(err: TtgirError, path: str, offset: int) -> TtgirError:
    msg = str(err)
    m = re.match(rf"^{re.escape(path)}:(\d+):(\d+): (.*)$", msg, re.S)
    if m and offset:
        return TtgirError(f"{path}:{int(m.group(1)) + offset}:{m.group(2)}: {m.group(3)}")
    return err


_SPLIT = re.compile(r"^// -----[ \t]*$", re.M)
#: LLVM ``split-file``'s part marker, ``//--- name``: the text up to the next marker is a file of its own (lit
#: tests ``RUN: split-file %s %t`` and then run ``triton-opt %t/name``)
_PART = re.compile(r"^//--- [^\n]*$", re.M)


def _chunks(text: str) -> Iterator[tuple[int, str, bool]]:
    """``(first line, text, split)`` per chunk MLIR reads as one source: the ``//--- name`` parts of a
    ``split-file`` text, each cut at its ``// -----`` lines (``--split-input-file``); ``split``: the text was cut
    (a chunk of alias definitions only is then MLIR's empty module)."""
    line = 1
    parts = _PART.split(text)
    for part in parts:
        pieces = _SPLIT.split(part)
        for piece in pieces:
            yield line, piece, len(pieces) > 1 or len(parts) > 1
            line += piece.count("\n")


def load_text(text: str, path: str) -> list[Module | TtgirError]:
    """Every module in ``text``: one, one per dump snapshot, one per ``// -----`` chunk (MLIR's
    ``--split-input-file`` convention of Triton's lit tests) of each ``//--- name`` part (LLVM's ``split-file``),
    and every top-level module of a chunk, each with the file's own line numbers."""
    from llverify.ttgir.reader import parse_module, parse_modules

    if not is_dump(text):
        out: list[Module | TtgirError] = []
        for line, part, split in _chunks(text):
            if part.strip() and not all(l.strip().startswith("//") or not l.strip() for l in part.splitlines()):
                try:  # a chunk of a split file may hold aliases only: MLIR's empty module
                    out.extend(parse_modules("\n" * (line - 1) + part, path, aliases_only=split))
                except TtgirError as exc:
                    out.append(exc)
        return out or [TtgirError(f"{path}:1:1: no module in the file")]
    out: list[Module | TtgirError] = []
    for stage, line, body in split_dump(text):
        if not re.search(r"^\s*module\b", body, re.M):
            continue  # a function- or op-level snapshot
        # pad with newlines so reported lines are the dump file's own
        try:
            out.append(parse_module("\n" * (line - 1) + body, path, stage=stage))
        except TtgirError as exc:
            out.append(exc)
    return out


def discover(paths: Sequence[str]) -> list[str | TtgirError]:
    """The module files named by ``paths`` (see the module docstring), in a stable order."""
    found: list[str | TtgirError] = []
    for p in paths:
        if p == "":
            found.append(TtgirError("<command line>:1:1: empty path"))
            continue
        try:
            is_dir = os.path.isdir(p)
        except (OSError, ValueError) as exc:
            found.append(TtgirError(f"{p}:1:1: cannot read: {exc}"))
            continue
        if not is_dir:
            found.append(p)
            continue
        seen: set[tuple[int, int]] = set()
        for root, dirs, files in os.walk(p, followlinks=True, onerror=lambda e: found.append(
                TtgirError(f"{e.filename}:1:1: cannot read: {e.strerror}"))):
            try:
                st = os.stat(root)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in seen:
                dirs[:] = []
                continue
            seen.add((st.st_dev, st.st_ino))
            dirs.sort()
            for name in sorted(files):
                if name.lower().endswith(_SUFFIXES):
                    found.append(os.path.join(root, name))
    return found


def load_paths(paths: Sequence[str]) -> list[Module | TtgirError]:
    """Every module under ``paths``; unreadable or malformed inputs come back as TtgirError entries."""
    return [m for _, mods in load_files(paths) for m in mods]


def load_files(paths: Sequence[str]) -> list[tuple[bytes | None, list[Module | TtgirError]]]:
    """Per file under ``paths``: the bytes read (None when unreadable) and its modules or errors."""
    out: list[tuple[bytes | None, list[Module | TtgirError]]] = []
    for item in discover(paths):
        if isinstance(item, TtgirError):
            out.append((None, [item]))
            continue
        try:
            data = read_bytes(item)
            text = decode_text(data, item)
            if len(data) > MAX_MODULE_BYTES and not is_dump(text):
                raise TtgirError(f"{item}:1:1: file of {len(data)} bytes exceeds the {MAX_MODULE_BYTES >> 20} MiB "
                                 "limit of a module (only an MLIR_ENABLE_DUMP dump, split into snapshots, may be "
                                 f"larger, up to {MAX_FILE_BYTES >> 20} MiB)")
        except TtgirError as exc:
            out.append((None, [exc]))
            continue
        out.append((data, load_text(text, item)))
    return out


def default_cache_dir() -> Path:
    """Triton's cache directory: ``$TRITON_CACHE_DIR`` or ``~/.triton/cache``."""
    from pathlib import Path  # noqa: PLC0415 - not loaded by a run that never asks for it (a warm gate run)

    return Path(os.environ.get("TRITON_CACHE_DIR") or Path.home() / ".triton" / "cache")
