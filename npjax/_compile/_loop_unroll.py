"""Loops that stay unrolled inside a trace, counted: ``_unroll`` iterates as written and,
inside a trace, stops it with ``UnrollLimit`` (``npjax.JitError``) past ``UNROLL_LIMIT``
iterations of all such loops of the trace together (issue 35, point 6): a loop that cannot
roll never traces without bound. Refused at once when a loop's trip count is known to pass
the limit (no iteration is traced), else at the iteration that passes it (a loop inside an
unrolled loop counts each of its runs: triangular loops add up).
"""

from __future__ import annotations

import contextvars
import os
import sys
from collections.abc import Callable
from typing import Any

from npjax._pure._errors import UnrollLimit

__all__ = ["AUTO_UNROLLED", "MAX_UNROLLED", "UNROLL_LIMIT"]

_HERE = os.path.dirname(__file__) + os.sep  # (npjax._compile: frames that are not the loop)

# Iterations that loops left unrolled may trace in one trace, all loops (and every run of an
# inner loop) together; past it the trace stops with ``UnrollLimit`` (``npjax.JitError``):
# XLA's compile of unrolled bodies grows faster than their length (a[i] = a[i - 1] * 0.5 +
# b[i] unrolled: 2.3 s at 50 iterations, 15 s at 200, 95 s and 2.4 GB at 400 on a CPU).
# ``npjax.autojit`` traces under the smaller AUTO_UNROLLED (a compile must pay).
MAX_UNROLLED = 2000
AUTO_UNROLLED = 100
UNROLL_LIMIT: contextvars.ContextVar[int] = contextvars.ContextVar("npjax_unroll_limit",
                                                                   default=MAX_UNROLLED)


def _unroll(body: Callable, it: Any, ins: tuple, tr: Any = None, line: int = 0) -> tuple:
    """Iterate as written; inside a trace, counted against ``UNROLL_LIMIT`` (refused at once
    when the trip count is known to pass it, else at the iteration that passes it)."""
    vals = ins
    if tr is None:
        for v in it:
            vals = body(v, *vals[1:])
        return tuple(vals)
    limit = UNROLL_LIMIT.get()
    try:
        trips = len(it)
    except TypeError:
        trips = 0
    if tr.unrolled + trips > limit:
        _too_long(tr, line, limit)
    for v in it:
        tr.unrolled += 1
        if tr.unrolled > limit:
            _too_long(tr, line, limit)
        vals = body(v, *vals[1:])
    return tuple(vals)


def count(tr: Any, runs: int, line: int) -> None:
    """A rolled loop's body traces (3-4) count too: an unrolled loop around a rolled one
    traces it anew at each iteration (a triangular loop: 200 rolled inner loops, 15 s)."""
    tr.unrolled += runs
    limit = UNROLL_LIMIT.get()
    if tr.unrolled > limit:
        _too_long(tr, line, limit)


def _too_long(tr: Any, line: int, limit: int) -> None:
    """Raise ``UnrollLimit`` naming the loop's ``file:line`` (the transformed function that
    called ``run_loop`` is the user's code, with the user's file name)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_HERE):
        frame = frame.f_back
    code = frame.f_code if frame is not None else None
    where = f"{code.co_filename}:{line}" if code is not None else f"line {line}"
    name = code.co_qualname.replace("_npjax_factory.<locals>.", "") if code else "?"
    why = next((o.reason for o in reversed(tr.loops) if o.line == line and not o.rolled), "")
    raise UnrollLimit(
        f"npjax.jit({name}): {where}: this loop stays unrolled and the trace would run more "
        f"than {limit} iterations (of all loops together, 3-4 for each rolled one); it is "
        "not compiled"
        + (f" (why it does not roll: {why})" if why else ""))

