"""Shadow mode: gate every kernel Triton compiles in this process, without changing the program.

Three ways in:

* ``python -m llverify.triton_gate script.py [args...]`` runs the script as ``__main__``
  with the gate installed and prints one report at exit;
* ``import llverify.triton_gate as g; g.install()`` in a program (``g.report()`` at any time);
* ``pytest --llverify-gate`` (this module is a pytest plugin, registered through the
  ``pytest11`` entry point): a whole test-suite runs under the gate.

How: Triton 3.9 calls ``triton.knobs.runtime.add_stages_inspection_hook`` twice per
compile: with no argument while computing the cache key (we add a key of our own, so a
kernel cached by an ungated run is compiled, and seen, again) and with the backend's
pipeline stages (we wrap the ``ttgir`` stage: the module Triton produced is printed,
kept, and returned unchanged).  The kept modules are checked by the same obligations as
``llverify ttgir`` (:func:`llverify.ttgir.gate.check_module`) when the report is made.

Environment: ``LLVERIFY_GATE_FORMAT`` (text, json, sarif, markdown; default text),
``LLVERIFY_GATE_OUTPUT`` (a file; default standard error).  Exit status with
``python -m``: the script's own, or 1 when the script succeeded but the gate refuted
something.
"""

from __future__ import annotations

import atexit
import os
import runpy
import sys
import threading
from dataclasses import dataclass
from typing import Any

__all__ = ["install", "uninstall", "collected", "report", "main"]

_LOCK = threading.Lock()
_KERNELS: list["Compiled"] = []
_STATE: dict[str, Any] = {"installed": False, "previous": None, "previous_listener": None, "atexit": False}


@dataclass(frozen=True)
class Compiled:
    """One kernel's TTGIR as Triton produced it in this process."""

    name: str
    target: str
    ttgir: str


def _target_of(backend: Any) -> str:
    t = getattr(backend, "target", None)
    if t is None:
        return "?"
    return f"{t.backend}:{t.arch}"


def _hook(*args: Any) -> Any:
    if not args:
        prev = _STATE["previous"]
        key, digest = ("", "")
        if prev is not None:
            key, digest = prev()
        return key + "-llverify-gate", digest + "-llverify-gate"
    backend, stages, options, language, capability = args
    prev = _STATE["previous"]
    if prev is not None:
        prev(backend, stages, options, language, capability)
    inner = stages.get("ttgir")
    if inner is None:
        return None

    def ttgir_stage(src: Any, metadata: dict[str, Any]) -> Any:
        module = inner(src, metadata)
        with _LOCK:
            _KERNELS.append(Compiled(str(metadata.get("name", "?")), _target_of(backend), str(module)))
        return module

    stages["ttgir"] = ttgir_stage
    return None


def _listener(*, src: Any, metadata: dict[str, Any], metadata_group: dict[str, str], times: Any,
              cache_hit: bool) -> None:
    prev = _STATE["previous_listener"]
    if prev is not None:
        prev(src=src, metadata=metadata, metadata_group=metadata_group, times=times, cache_hit=cache_hit)
    if not cache_hit:
        return  # a fresh compile: the ttgir stage hook has seen it
    for name, path in (metadata_group or {}).items():
        if name.endswith(".ttgir"):
            try:
                with open(path, encoding="utf-8") as fh:
                    text = fh.read()
            except OSError:
                continue
            target = metadata.get("target")
            tname = f"{target.backend}:{target.arch}" if hasattr(target, "backend") else str(target)
            with _LOCK:
                _KERNELS.append(Compiled(str(metadata.get("name", "?")), tname, text))


def install(report_at_exit: bool = True) -> None:
    """Start gating every kernel this process compiles (idempotent).

    Fresh compiles are seen through the pipeline-stages hook; kernels Triton serves from its
    cache through the compilation listener, which names the cached ``.ttgir`` file."""
    from triton import knobs

    if _STATE["installed"]:
        return
    _STATE["previous"] = knobs.runtime.add_stages_inspection_hook
    _STATE["previous_listener"] = knobs.compilation.listener
    knobs.runtime.add_stages_inspection_hook = _hook
    knobs.compilation.listener = _listener
    _STATE["installed"] = True
    if report_at_exit and not _STATE["atexit"]:
        atexit.register(_report_at_exit)
        _STATE["atexit"] = True


def uninstall() -> None:
    """Stop gating (restores any hook that was installed before)."""
    from triton import knobs

    if _STATE["installed"]:
        knobs.runtime.add_stages_inspection_hook = _STATE["previous"]
        knobs.compilation.listener = _STATE["previous_listener"]
        _STATE["installed"] = False


def collected() -> list[Compiled]:
    with _LOCK:
        return list(_KERNELS)


def findings() -> tuple[list[Any], list[str]]:
    """The gate's findings over every kernel compiled so far, and modules that could not be read."""
    from llverify.errors import TtgirError
    from llverify.ttgir.gate import gate_text

    out: list[Any] = []
    errors: list[str] = []
    for i, k in enumerate(collected()):
        path = f"<{k.name}@{k.target}#{i}>.ttgir"
        try:
            out.extend(gate_text(k.ttgir, path))
        except TtgirError as exc:
            errors.append(str(exc))
    return out, errors


def report(fmt: str | None = None) -> tuple[str, int]:
    """The report text and the number of refuted or error findings."""
    from llverify.ttgir import report as formats
    from llverify.ttgir.gate import op_counts

    found, errors = findings()
    kernels = collected()
    summary = {"modules": len(kernels), "files": len(kernels), "obligations": len(found),
               "per_op": op_counts(found), "kernels": sorted({k.name for k in kernels})}
    text = formats.render(fmt or os.environ.get("LLVERIFY_GATE_FORMAT", "text"), found, errors, "", summary)
    bad = sum(f.verdict.status in ("refuted", "error") for f in found) + len(errors)
    return text, bad


def _write(text: str) -> None:
    dest = os.environ.get("LLVERIFY_GATE_OUTPUT")
    if dest:
        with open(dest, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stderr.write(text)


def _headed(text: str) -> str:
    fmt = os.environ.get("LLVERIFY_GATE_FORMAT", "text")
    return ("llverify gate (shadow mode):\n" + text) if fmt in ("text", "markdown") else text


def _report_at_exit() -> None:
    if not collected():
        return
    text, _ = report()
    _write(_headed(text))


def main(argv: list[str] | None = None) -> int:
    """``python -m llverify.triton_gate script.py [args...]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        sys.stderr.write("usage: python -m llverify.triton_gate script.py [args...]\n")
        return 2
    script = args[0]
    if not os.path.isfile(script):
        sys.stderr.write(f"{script}:1:1: error: no such script\n")
        return 2
    install(report_at_exit=False)
    sys.argv = args
    status = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    text, bad = report()
    _write(_headed(text))
    return status or (1 if bad else 0)


# -- pytest plugin ------------------------------------------------------------------------------------

def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("llverify")
    group.addoption("--llverify-gate", action="store_true", default=False,
                    help="gate every Triton kernel the tests compile with llverify's TTGIR obligations")


def pytest_configure(config: Any) -> None:
    if config.getoption("--llverify-gate", default=False):
        install(report_at_exit=False)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    if not config.getoption("--llverify-gate", default=False):
        return
    text, bad = report()
    terminalreporter.write_sep("=", "llverify gate")
    terminalreporter.write(text)
    if bad:
        terminalreporter.write_line(f"llverify gate: {bad} refuted or unreadable", red=True)


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    if session.config.getoption("--llverify-gate", default=False) and exitstatus == 0:
        _, bad = report()
        if bad:
            session.exitstatus = 1


if __name__ == "__main__":
    sys.exit(main())
