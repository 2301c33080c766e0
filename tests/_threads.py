"""Run test code in threads; their exceptions fail the test in the main thread."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def run_threads(calls: list[tuple[Callable, tuple]], timeout: float = 120) -> None:
    """Start a thread for each ``(function, args)``, wait for all of them, and fail with the
    exceptions any raised (pytest sees only the main thread's)."""
    errors: list[BaseException] = []

    def guarded(fn: Callable, args: Any) -> None:
        try:
            fn(*args)
        except BaseException as exc:  # reported below, in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=call) for call in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    assert not errors, errors
