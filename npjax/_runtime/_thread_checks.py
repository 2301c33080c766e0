"""Lazy mode's checks that belong to another thread.

Lazy mode's pending graph is the process's: one thread's read computes values other threads
recorded. A recorded error-state check remembers its thread; computed by another thread's
flush, it waits here (``hold``) and is made by its own thread at that thread's next read of
a lazy value (``run_held``): its warnings, ``FloatingPointError`` or callback call are that
thread's, as NumPy's would be.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from npjax._runtime._errstate import AT

# thread id -> its held checks: (check, error state, operands, results, user's line), in
# recording order
HELD: dict = {}
# lazy calls with a check, not run yet (kept alive: a checked value nothing reads any more is
# still computed and checked, ``_lazy._unread``)
UNREAD: list = []
_lock = threading.Lock()


def check_now(check: Callable, st: dict, leaves: list, outs: tuple,
              where: tuple | None = None) -> None:
    """Make a recorded check under the error state ``st`` it was recorded with; its warnings
    name ``where``, the user's line that recorded it (None: the line reading now)."""
    before = AT.where
    AT.where = where
    try:
        with np.errstate(divide=st["divide"], over=st["over"], under=st["under"],
                         invalid=st["invalid"], call=st.get("call")):
            check(leaves, outs)
    finally:
        AT.where = before


def hold(owner: int, check: Callable, st: dict, leaves: list, outs: Any,
         where: tuple | None = None) -> None:
    """Keep a check of thread ``owner`` (recorded at the user's line ``where``) for that
    thread."""
    with _lock:
        HELD.setdefault(owner, []).append((check, st, leaves, outs, where))


def run_held() -> None:
    """Make this thread's held checks; the first error is raised, later checks still wait."""
    me = threading.get_ident()
    with _lock:
        items = HELD.pop(me, None)
    while items:
        check, st, leaves, outs, where = items.pop(0)
        try:
            check_now(check, st, leaves, outs, where)
        except BaseException:
            if items:
                with _lock:
                    HELD.setdefault(me, [])[:0] = items
            raise
