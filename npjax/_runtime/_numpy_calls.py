"""NumPy computations run for npjax on the host, their warnings issued where NumPy issues them.

A host computation runs NumPy's loops under a copy of NumPy's error state in which "warn" is
"log" to a writer that keeps the message (it carries the loop's name: "... encountered in
reduce"); npjax issues it after the call at the user's line, where NumPy's C loops would name
the npjax frame that called them. Private NumPy API (its error-state context variable):
without it NumPy warns itself. The messages of deferred checks (``_deferred_checks``) are
issued the same way (``_pending``, ``_issue_pending``).
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from npjax._runtime._errstate import PACKAGE_DIR

try:  # NumPy's error-state context variable (private API)
    from numpy._core._ufunc_config import _extobj_contextvar, _get_extobj_dict
    from numpy._core._ufunc_config import _make_extobj as _numpy_make_extobj
except ImportError:  # pragma: no cover - other NumPy layouts
    _extobj_contextvar = None


class _Pending(threading.local):
    """This thread's logged messages, not yet issued."""

    def __init__(self) -> None:
        self.messages: list[tuple] = []  # (text, (filename, lineno, globals) or None)


_pending = _Pending()
_ever_logged = [False]  # set once any thread has logged: then each call looks at its own list


class _LogToPending:
    """NumPy's "log" target: keeps ``Warning: <kind> encountered in <name>`` messages."""

    def write(self, message: str) -> None:
        text = message[9:-1] if message.startswith("Warning: ") else message.rstrip()
        frame = sys._getframe(1)  # where NumPy warns: the innermost frame outside npjax
        while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
            frame = frame.f_back
        where = None if frame is None else (frame.f_code.co_filename, frame.f_lineno,
                                            frame.f_globals)
        _pending.messages.append((text, where))
        _ever_logged[0] = True


_LOG_TO_PENDING = _LogToPending()


@functools.lru_cache(maxsize=64)
def _logging_copy(extobj: Any) -> Any:
    """NumPy's error state ``extobj`` with "warn" turned into "log" to ``_LogToPending``;
    None when nothing warns or the user's own "call"/"log" target is in use."""
    state = _get_extobj_dict()
    modes = {key: state[key] for key in ("divide", "over", "under", "invalid")}
    if "warn" not in modes.values() or any(m in ("call", "log") for m in modes.values()):
        return None
    return _numpy_make_extobj(
        call=_LOG_TO_PENDING, **{key: "log" if m == "warn" else m for key, m in modes.items()})


# Set by ``_deferred_checks``: puts the warnings of deferred checks of earlier operations
# before this thread's pending messages.
EARLIER: list = [None]


def _issue_pending() -> None:
    """Issue the messages NumPy's loops logged in this thread as RuntimeWarnings, each where
    NumPy would have issued it (``warn_explicit``, with that module's registry), after the
    warnings of earlier deferred checks."""
    if not _pending.messages:
        return
    if EARLIER[0] is not None:
        EARLIER[0]()
    messages = _pending.messages[:]
    _pending.messages.clear()
    for text, where in messages:
        if where is None:
            warnings.warn(text, RuntimeWarning, stacklevel=2)
            continue
        filename, lineno, module_globals = where
        warnings.warn_explicit(text, RuntimeWarning, filename, lineno,
                               module_globals.get("__name__", "<string>"),
                               module_globals.setdefault("__warningregistry__", {}))


def call_numpy_ufunc(fn: Callable, args: tuple, kwargs: dict) -> Any:
    """``fn(*args, **kwargs)``, a NumPy computation that warns only from its C loops (a ufunc
    or an operator), its floating-point warnings issued where NumPy issues them (not at
    npjax's frame that called NumPy)."""
    if _extobj_contextvar is None:  # pragma: no cover
        return fn(*args, **kwargs)
    swapped = _logging_copy(_extobj_contextvar.get())
    if swapped is None:
        return fn(*args, **kwargs)
    token = _extobj_contextvar.set(swapped)
    try:
        return fn(*args, **kwargs)
    finally:
        _extobj_contextvar.reset(token)
        if _ever_logged[0]:
            _issue_pending()


# (NumPy's error state, a Context holding only its logging copy, or None): ``run_loops``'s
# cache, per context like NumPy's error state itself. (Without NumPy's private API the state
# reads None, matching the default: no context, NumPy warns itself.)
_numpy_errstate = _extobj_contextvar.get if _extobj_contextvar is not None else lambda: None
_loops_context: contextvars.ContextVar[tuple] = contextvars.ContextVar(
    "npjax_loops_context", default=(None, None))


_UNARY = object()  # run_loops's second operand when there is none


def run_loops(fn: Callable, x: Any, y: Any = _UNARY) -> Any:
    """``fn(x)`` or ``fn(x, y)`` as ``call_numpy_ufunc`` runs it, for operands that are
    NumPy arrays of numbers and numbers only, so that no Python code runs inside: the call
    runs in a context that holds just the logging error state (``Context.run`` costs a
    fraction of setting and resetting NumPy's context variable: this is the hot path of
    small-array code, written for speed; ``_placement`` writes it out in its hottest paths)."""
    extobj = _numpy_errstate()
    # the shared Context first: NumPy's default error state
    context = SHARED[1] if extobj is SHARED[0] else loops_context_for(extobj)
    try:
        if context is None:
            return fn(x) if y is _UNARY else fn(x, y)
        return context.run(fn, x) if y is _UNARY else context.run(fn, x, y)
    except RuntimeError as e:
        return entered(e, fn, (x,) if y is _UNARY else (x, y))
    finally:
        if _ever_logged[0]:
            _issue_pending()


def entered(error: RuntimeError, fn: Callable, args: tuple) -> Any:
    """``run_loops``'s answer to a RuntimeError: ``fn(*args)`` run as ``call_numpy_ufunc``
    runs it when the context was entered already (another thread runs in it: sharing stops,
    ``SHARED``), else the error raised again."""
    if "cannot enter context" not in str(error):
        raise error
    SHARED[0] = _NEVER
    return call_numpy_ufunc(fn, args, {})


def loops_context_for(extobj: Any) -> Any:
    """The Context ``run_loops`` runs NumPy's loops in under error state ``extobj`` (None:
    as they are). The hot paths test the shared default themselves before calling it."""
    if extobj is SHARED[0]:
        return SHARED[1]
    cached = _loops_context.get()
    if cached[0] is not extobj:
        cached = cache_loops_context(extobj)
    return cached[1]


def cache_loops_context(extobj: Any) -> tuple:
    """``run_loops``'s (NumPy's error state, a Context holding only its logging copy, or
    None), remembered in this context."""
    swapped = _logging_copy(extobj)
    context = None
    if swapped is not None:
        context = contextvars.Context()
        context.run(_extobj_contextvar.set, swapped)
    cached = (extobj, context)
    _loops_context.set(cached)
    return cached


# [NumPy's default error state, a Context holding only its logging copy]: ``run_loops``'s
# first guess, shared by every thread and task (one identity test instead of a context
# variable's read and its cache). A Context is entered by one thread at a time: the first
# time two threads meet in it (NumPy lets go of the GIL in long loops), sharing stops for
# good and each context keeps its own (``cache_loops_context``).
_NEVER = object()
SHARED: list = [_NEVER, None]
if _extobj_contextvar is not None:
    SHARED[:] = contextvars.Context().run(
        lambda: cache_loops_context(_extobj_contextvar.get()))
else:  # pragma: no cover - other NumPy layouts: NumPy warns itself
    SHARED[:] = [None, None]

# ``run_loops``'s parts, for the host route's hot paths that write it out (``_placement``).
numpy_errstate, ever_logged, issue_pending = _numpy_errstate, _ever_logged, _issue_pending


_python_warn = warnings.warn


def _warn_past_npjax(message: Any, category: Any = None, stacklevel: int = 1,
                     source: Any = None, **kwargs: Any) -> None:
    """``warnings.warn`` while NumPy's Python code runs for npjax: a warning NumPy would
    attribute to its caller (npjax) is attributed to the user's line instead."""
    level = stacklevel
    try:
        frame = sys._getframe(level)
    except ValueError:
        frame = None
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    _python_warn(message, category, level + 1, source, **kwargs)


def call_numpy_function(fn: Callable, args: tuple, kwargs: dict, loops: bool = True) -> Any:
    """``fn(*args, **kwargs)``, any NumPy function or method, its warnings issued where NumPy
    issues them. ``loops``: ``fn`` is C code that may run NumPy's loops itself (a method, a
    C function), whose floating-point warnings would name npjax's frame: it runs under the
    logging error state (``call_numpy_method``). A NumPy function written in Python
    (``loops=False``) runs under the user's own error state, which its code may read
    (``isclose`` does), and its loops' warnings name its own frames as in NumPy
    (``call_numpy_python``). Either way ``warnings.warn`` is swapped for the call, so that a
    warning NumPy's Python code attributes to its caller (npjax) names the user's line
    (process-wide for the call, like ``catch_warnings``; C code's other warnings, rare, keep
    naming npjax)."""
    if loops:
        return call_numpy_method(fn, args, kwargs)
    return call_numpy_python(fn, args, kwargs)


def call_numpy_python(fn: Callable, args: tuple, kwargs: dict) -> Any:
    """``call_numpy_function(fn, args, kwargs, False)``: a NumPy function written in Python,
    under the user's own error state, ``warnings.warn`` swapped for the call."""
    if warnings.warn is not _python_warn:  # re-entered, or someone else's warn: leave it
        return fn(*args, **kwargs)
    warnings.warn = _warn_past_npjax
    try:
        return fn(*args, **kwargs)
    finally:
        warnings.warn = _python_warn


def call_numpy_method(fn: Callable, args: tuple, kwargs: dict) -> Any:
    """``call_numpy_function(fn, args, kwargs)`` (C code that may run NumPy's loops) with the
    error state set as ``run_loops`` sets it: in a Context holding its logging copy, the
    default state's shared one first (cheaper than setting NumPy's context variable)."""
    context = loops_context_for(_numpy_errstate())
    swap = warnings.warn is _python_warn  # (re-entered, or someone else's warn: leave it)
    if swap:
        warnings.warn = _warn_past_npjax
    try:
        if context is None:
            return fn(*args, **kwargs)
        return context.run(fn, *args, **kwargs)
    except RuntimeError as e:
        if "cannot enter context" not in str(e):
            raise
        SHARED[0] = _NEVER  # (see ``entered``; NumPy's Python code may run in here)
        return call_numpy_ufunc(fn, args, kwargs)
    finally:
        if swap:
            warnings.warn = _python_warn
        if _ever_logged[0]:
            _issue_pending()


def runs_loops(fn: Callable) -> bool:
    """Whether the NumPy function ``fn`` is C code (``call_numpy_function``'s ``loops``), not
    Python code behind NumPy's dispatcher."""
    return not inspect.isfunction(getattr(fn, "_implementation", fn))


def run_quietly(fn: Callable, *args: Any) -> Any:
    """``fn(*args)`` under NumPy's error state "ignore" for everything (a fixed context: a
    fraction of the cost of entering ``np.errstate``)."""
    try:
        return _QUIET.run(fn, *args)
    except (RuntimeError, AttributeError) as e:  # entered already (another thread), or no
        if isinstance(e, RuntimeError) and "cannot enter context" not in str(e):  # context
            raise
        with np.errstate(all="ignore"):
            return fn(*args)


if _extobj_contextvar is not None:  # NumPy's error state "ignore" everywhere, nothing else
    _QUIET: Any = contextvars.Context()
    _QUIET.run(_extobj_contextvar.set, _numpy_make_extobj(all="ignore"))
else:  # pragma: no cover - other NumPy layouts
    _QUIET = None
