"""The user's own code while ``npjax.jit`` traces: what it is, a watch that stops a rolled loop
body's probe before it runs any of it implicitly, and whose an exception raised while tracing
is (issue 35, points 3 and 4).

*Implicit calls.* A rolled loop body (``_loops``) is traced about three times whatever its
trip count, so whatever Python code of the user's it runs, it runs that often, not once per
iteration. Its explicit calls go through the call guard (``_loops.call``,
``_loop_source.callee``), but Python also runs the user's code implicitly: a ``@property``
read, ``float(obj)`` calling the user's ``__float__``, ``sorted(..., key=f)``, an operator of
the user's class, ``np.asarray(obj)`` calling its ``__array__``. While a body is probed
(``enter``/``leave``, from ``_loop_probe._enter_body``) a profile function
(``sys.setprofile``, this thread only) sees every Python function that starts; a function of
the user's own (``user_code``: its file is not npjax, JAX, NumPy, the standard library or an
installed package) that npjax did not rewrite (``REWRITTEN``: loop bodies and the functions
``_loop_source`` rewrote, which the guard checks) is stopped before its first line runs
(``NoRoll``), so the loop runs unrolled, as written, and that code runs exactly as often as
written. The traces that roll a probed body run it as its last probe did, unwatched
(``enter(False)``). Python unsets a profile function that raises; ``leave`` sets it again for
an enclosing probe, and ``check`` (called by the call guard and when a body's trace ends)
abandons the roll where C code swallowed the stop. Signal handlers, finalizers (``__del__``,
``weakref.finalize``) and ``gc`` callbacks run as they come (a plain ``weakref.ref`` callback
of the user's is stopped too). Where another profiler is set (``cProfile``), no body can be
watched: loops stay unrolled.

*Exceptions.* ``users(exc)`` (``npjax.jit``) and ``users_in_body(exc)`` (a loop body's
trace) tell the user's exceptions, which propagate at once, from those npjax's trace of
NumPy's semantics raises, which fall back to the eager run or an unrolled loop.
"""

from __future__ import annotations

import contextvars
import contextlib
import dis
import functools
import gc
import glob
import os
import signal
import sys
import sysconfig
import types
import weakref
from typing import Any

import jax
import jaxlib
import numpy as np

from npjax._compile._loop_index import NoRoll
from npjax._runtime._errstate import PACKAGE_DIR

__all__ = ["REWRITTEN", "check", "depth", "enter", "leave", "restore", "rewritten", "unwrapped",
           "user_code", "users", "users_in_body"]

# npjax and the libraries it computes NumPy's semantics with, wherever they are installed
LIBRARY_DIRS = (PACKAGE_DIR,) + tuple(os.path.dirname(m.__file__) + os.sep
                                      for m in (jax, jaxlib, np))
# not the user's: the standard library, site-packages, and the libraries above and JAX's own
# (which need not be under site-packages: a folder on PYTHONPATH, ``pip install --target``)
PACKAGES = tuple({os.path.join(os.path.abspath(p), "") for p in (
    *(sysconfig.get_paths().get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")),
    *LIBRARY_DIRS, *(os.path.dirname(sys.modules[name].__file__)
                     for name in ("ml_dtypes", "opt_einsum") if name in sys.modules)) if p})
_LIBRARY_MODULES = frozenset(("builtins", "numpy", "jax", "jaxlib", "npjax"))
# file name -> whether it is the user's (by name: equal code objects of two files are ``==``)
_USER: dict[str, bool] = {}


def unwrapped(obj: Any) -> Any:
    """The function an ``npjax.autojit`` wrapper wraps (the runner's and ``jit="auto"``'s
    too: a name rebound to it still means that function), else ``obj``."""
    t = type(obj)
    if t.__name__ == "AutoJit" and t.__module__ == "npjax._compile._autojit":
        return obj.__dict__["_autojit_fn"]
    return obj


def user_code(code: types.CodeType) -> bool:
    """Whether a function's code is the user's own: its file is not in npjax, the standard
    library or an installed package (under site-packages, or a distribution whose metadata
    sits in the folder of ``sys.path`` that holds the file), and is a file."""
    name = code.co_filename
    got = _USER.get(name)
    if got is None:
        got = not name.startswith("<") and not os.path.abspath(name).startswith(PACKAGES) \
            and not _distributed(os.path.abspath(name))
        if len(_USER) > 4096:
            _USER.clear()
        _USER[name] = got
    return got


def _distributed(path: str) -> bool:
    """Whether ``path`` belongs to a distribution installed into a folder of ``sys.path``
    other than site-packages (``PYTHONPATH``, ``pip install --target``)."""
    folder = max((entry for entry in map(_folder, sys.path) if path.startswith(entry)),
                 key=len, default=None)
    if folder is None:
        return False
    top = path[len(folder):].split(os.sep)[0]
    return top.removesuffix(".py") in _top_level_names(folder)


def _folder(entry: str) -> str:
    return os.path.join(os.path.abspath(entry or os.curdir), "")


@functools.lru_cache(maxsize=64)
def _top_level_names(folder: str) -> frozenset[str]:
    """The top-level modules of the wheels installed into ``folder`` (their ``*.dist-info``
    RECORDs; not a source checkout's ``egg-info``, whose files are the user's own)."""
    names = set()
    for record in glob.glob(os.path.join(glob.escape(folder), "*.dist-info", "RECORD")):
        with contextlib.suppress(OSError), open(record, encoding="utf-8") as f:
            names.update(line.split("/")[0].split(",")[0].removesuffix(".py")
                         for line in f if not line.startswith(("..", "/")))
    return frozenset(names)


REWRITTEN: weakref.WeakSet = weakref.WeakSet()  # code npjax rewrote (``_loop_source``)


def rewritten(code: types.CodeType | None) -> None:
    """Note ``code`` and the code objects nested in it as rewritten by npjax."""
    if code is None:
        return
    REWRITTEN.add(code)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            rewritten(c)


# --- the watch -----------------------------------------------------------------------------


class _Watch:
    """One thread's watch: per loop body's trace it is in, whether that trace is watched
    (the profile function is set while the innermost one is), and why it stopped some code
    (``check``)."""

    __slots__ = ("stack", "stopped")

    def __init__(self) -> None:
        self.stack: list[bool] = []
        self.stopped: str | None = None

    def set(self) -> None:
        want = _hook if self.stack and self.stack[-1] else None
        current = sys.getprofile()
        if current is not want and (current is None or current is _hook):  # (not another's)
            sys.setprofile(want)
        if not self.stack:
            self.stopped = None


_WATCH: contextvars.ContextVar[_Watch | None] = contextvars.ContextVar(
    "npjax_user_code_watch", default=None)


def _hook(frame: Any, event: str, arg: Any) -> None:
    if event != "call":
        return
    code = frame.f_code
    got = _USER.get(code.co_filename)
    if got is None:
        got = user_code(code)
    if got and code not in REWRITTEN:
        _stop(frame, code)


def _stop(frame: Any, code: types.CodeType) -> None:
    if _runs_anyway(frame):
        return
    watch = _WATCH.get()
    why = (f"the body runs {code.co_qualname if hasattr(code, 'co_qualname') else code.co_name}"
           f" ({code.co_filename}:{code.co_firstlineno}), code of your own that it does not "
           "call by name (a property, an operator or conversion of your class, a key= "
           "function): a rolled loop would run it fewer times than written")
    if watch is not None:
        watch.stopped = why
    raise NoRoll(why)


def _codes(fns: Any) -> set:
    return {c for f in fns if (c := getattr(getattr(f, "__func__", f), "__code__", None))}


def _handler_codes() -> set:
    """The code of each Python signal handler set now."""
    return _codes(signal.getsignal(s) for s in signal.valid_signals())


_WEAKREF_FILE = weakref.__file__


def _runs_anyway(frame: Any) -> bool:
    """Whether ``frame`` runs inside code that comes when it comes, as without npjax, not
    as a part of the body: a signal handler, a finalizer (``__del__``, ``weakref.finalize``)
    or a ``gc`` callback. (A plain ``weakref.ref`` callback cannot be told apart.)"""
    codes = _handler_codes() | _codes(gc.callbacks)
    while frame is not None:
        code = frame.f_code
        if code in codes or code.co_name == "__del__" and user_code(code) or (
                code.co_name == "__call__" and code.co_filename == _WEAKREF_FILE):
            return True
        frame = frame.f_back
    return False


def enter(watched: bool = True) -> None:
    """A loop body's trace starts: watch this thread's calls in it (``watched``; where
    another profiler is set, ``NoRoll``), or not (a trace that rolls a body probed with the
    watch)."""
    current = sys.getprofile()
    if watched and current is not None and current is not _hook:
        raise NoRoll("a profiler is set (sys.setprofile): npjax cannot watch the body for "
                     "implicit calls of your code")
    watch = _WATCH.get()
    if watch is None:
        watch = _Watch()
        _WATCH.set(watch)
    watch.stack.append(watched)
    if watched or current is _hook:
        watch.set()


def leave() -> None:
    """A loop body's trace ends (also by an exception): as the enclosing one watches."""
    watch = _WATCH.get()
    if watch is not None and watch.stack:
        watch.stack.pop()
        watch.set()


def depth() -> int:
    """How many loop bodies' traces this thread is in."""
    watch = _WATCH.get()
    return 0 if watch is None else len(watch.stack)


def restore(at: int) -> None:
    """Back to ``at`` bodies' traces (``npjax.jit`` ends a call as it started it, whatever
    its trace raised)."""
    watch = _WATCH.get()
    if watch is not None and len(watch.stack) != at:
        del watch.stack[at:]
        watch.set()


def check() -> None:
    """Abandon the roll where the watch stopped some code (C code may have swallowed it)."""
    watch = _WATCH.get()
    if watch is not None and watch.stopped is not None:
        watch.set()  # (Python unset it when it raised)
        raise NoRoll(watch.stopped)


# --- whose an exception is -----------------------------------------------------------------


def _frames(exc: BaseException) -> list:
    """(code, last instruction) of each frame of the traceback, outermost first."""
    out = []
    tb = exc.__traceback__
    while tb is not None:
        out.append((tb.tb_frame.f_code, tb.tb_lasti))
        tb = tb.tb_next
    return out


def _library(code: types.CodeType) -> bool:
    return code.co_filename.startswith(LIBRARY_DIRS)


def _from_handler(frames: list) -> bool:
    if not frames:
        return False
    codes = _handler_codes()
    return any(code in codes for code, _ in frames)


_RAISE = dis.opmap["RAISE_VARARGS"]


def users(exc: BaseException) -> bool:
    """Whether an exception raised while ``npjax.jit`` traced is the user's: raised by a
    signal handler, of a class that is not Python's, NumPy's, JAX's or npjax's, or by a
    ``raise``/``assert`` statement of the user's code. Not the user's: NumPy's and JAX's
    exceptions raised by npjax's trace of NumPy's semantics (``OverflowError`` at an unrolled
    iteration, an index out of bounds) and Python's own exceptions of an operation
    (``1.0 / t`` at ``t == 0``): the eager run raises them again at their line, after the
    writes NumPy makes before it (where it does not, npjax could not trace the code)."""
    frames = _frames(exc)
    if _from_handler(frames):
        return True
    if type(exc).__module__.split(".")[0] not in _LIBRARY_MODULES:
        return True
    if not frames:
        return False
    code, lasti = frames[-1]
    return user_code(code) and 0 <= lasti < len(code.co_code) and \
        code.co_code[lasti] == _RAISE


def users_in_body(exc: BaseException) -> bool:
    """Whether an exception raised while a loop body was traced with a symbolic index is the
    user's: raised by a signal handler, or first by code of the user's that npjax did not
    rewrite. An exception of the rewritten body itself, or of npjax's trace, leaves the loop
    unrolled (where it is real, the unrolled loop raises it at its iteration)."""
    frames = _frames(exc)
    if _from_handler(frames):
        return True
    for code, _ in reversed(frames):
        if _library(code):
            return False
        if user_code(code):
            return code not in REWRITTEN
    return False
