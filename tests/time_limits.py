"""A wall-clock limit for one test body (or one hypothesis example), so that a pathological input fails the test
instead of hanging the run: ``with within(10, "x + y"): ...`` raises ``TimeoutError`` after 10 s.

Uses ``SIGALRM`` (the main thread of a POSIX process, where pytest runs tests); elsewhere the body runs unbounded.
The signal interrupts Python code (SymPy); a call inside a C extension (Z3) is interrupted only when it returns to
Python, so Z3 calls keep their own solver timeouts.
The previous handler and any pending alarm are restored on exit."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def within(seconds: int, what: str) -> Iterator[None]:
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(*_: Any) -> None:
        raise TimeoutError(f"{what} took over {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
