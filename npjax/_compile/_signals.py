"""Signal handlers while ``npjax.jit`` traces: an exception a handler raises is the user's,
even where library code swallowed it (issue 35, point 4).

Python runs a signal handler between two bytecodes of whatever code runs then, and while
``npjax.jit`` traces that is mostly JAX's. JAX has ``except:`` blocks on its tracing path (a
shape's ``operator.index``, a tree's length read by C++ code that clears errors), so a time
limit's ``Timeout`` or a ``KeyboardInterrupt`` landing there was lost and the trace went on.
Without npjax the same handler lands in NumPy's C code or in the user's lines, and the
exception propagates. ``guard()`` wraps each Python signal handler for the length of a trace
(main thread, outermost trace only); a handler's exception raised where no ``try`` or
``with`` of the user's code could catch it is noted (``noted``), and ``npjax.jit`` raises
it after a trace that went on (a trace that raised it itself propagates it as before).
Where the user's own code might catch it, nothing changes: it is theirs.
"""

from __future__ import annotations

import dis
import functools
import signal
import threading
from typing import Any

from npjax._compile._user_code import user_code

__all__ = ["Guard", "guard"]

_parse_table = getattr(dis, "_parse_exception_table", None)  # (Python 3.11+)
_ACTIVE: list = []  # the outermost trace's guard, while one is on


@functools.lru_cache(maxsize=256)
def _protected(code: Any) -> tuple:
    """The instruction ranges of ``code`` inside a ``try`` or ``with`` block."""
    return tuple((e.start, e.end) for e in _parse_table(code))


def _user_may_catch(frame: Any, boundary: Any) -> bool:
    """Whether a frame of the user's between ``frame`` and the traced call's ``boundary``
    runs inside a ``try`` or ``with`` block, which could handle the exception itself."""
    if _parse_table is None:
        return True  # (no exception table to read: the user's code may catch anything)
    while frame is not None and frame is not boundary:
        code = frame.f_code
        if user_code(code) and any(start <= frame.f_lasti < end
                                   for start, end in _protected(code)):
            return True
        frame = frame.f_back
    return False


class Guard:
    """Installed handlers and the first handler exception library code may have lost."""

    def __init__(self, boundary: Any) -> None:
        self.boundary = boundary
        self.noted: BaseException | None = None
        self.handlers: dict = {}

    def _wrap(self, handler: Any) -> Any:
        def guarded(signum: int, frame: Any) -> Any:
            try:
                return handler(signum, frame)
            except BaseException as exc:
                if self.noted is None and not _user_may_catch(frame, self.boundary):
                    self.noted = exc
                raise
        guarded.__wrapped__ = handler
        return guarded

    def install(self) -> None:
        for sig in signal.valid_signals():
            handler = signal.getsignal(sig)
            if callable(handler):
                wrapped = self._wrap(handler)
                signal.signal(sig, wrapped)
                self.handlers[sig] = (handler, wrapped)

    def remove(self) -> None:
        self.boundary = None  # (the traced call's frame holds this guard: no cycle kept)
        for sig, (handler, wrapped) in self.handlers.items():
            if signal.getsignal(sig) is wrapped:  # (a handler the code set since stays)
                signal.signal(sig, handler)
        if _ACTIVE and _ACTIVE[-1] is self:
            _ACTIVE.pop()


def guard(boundary: Any) -> Guard | None:
    """A guard over this trace's signal handlers (None: not the main thread, or inside an
    outer trace's guard). ``boundary`` is the frame of the traced call."""
    if _ACTIVE or threading.current_thread() is not threading.main_thread():
        return None
    g = Guard(boundary)
    _ACTIVE.append(g)
    try:
        g.install()
    except BaseException:
        g.remove()
        raise
    return g
