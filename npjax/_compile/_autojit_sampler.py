"""``jit="auto"`` under a plain ``import npjax``: the user's hot functions found by sampling.

``python -m npjax run`` wraps each module-level ``def`` of the user's files in
``npjax.autojit`` as the file is compiled (``_tools/_autojit_hook.py``). A plain import has
no hook on the definitions of the script that imports npjax, but it can see where the
script's time goes. Once the main thread's policy says ``jit="auto"`` (``set_policy``,
``with npjax.policy(jit="auto")``, ``NPJAX_JIT=auto``), a daemon thread asks every
``INTERVAL_S`` for a look at the main thread's stack, and the main thread takes that look
itself: ``_thread.interrupt_main(SIGNAL)`` trips Python's flag for ``SIGNAL`` without
sending any signal (no system call is interrupted, in any thread), and the main thread runs
``_look`` as that signal's Python handler, between two bytecodes, on its own frames. (A
thread that reads another thread's frames, ``sys._current_frames``, crashed Python 3.11 when
that thread was inside an XLA compile.) ``SIGNAL`` is ``SIGURG``, whose default action is to
be ignored; its handler is set only where nothing else handles it, and sampling stops if
something else takes it over.

Each module-level function of the user's own files (``_user_code.user_code``: not npjax, the
standard library or an installed package) seen on the stack in ``HOT_SAMPLES`` looks is
rebound in its module's globals (and in the calling module's, where that imported it by the
same name) to ``_autojit.auto`` of it, exactly what the runner's hook gives it; from the next
call made through that name autojit's cost model decides whether to compile it (the call
running now, and references taken before, stay the function itself; a wrapper compares and
hashes equal to it, and a compiled caller's guard on the name still holds). Decorated
functions (the global is not the function), nested functions, methods, generators and
coroutines are left alone, as the runner's hook leaves them; so are module-level loops (the
runner compiles those). Only the main thread is sampled (Python runs signal handlers there).
The wrapper follows the policy of each call: under ``jit="explicit"`` it runs the function
as written, and sampling stops at the first look that finds the main thread's policy not
"auto" (it starts again when the policy says "auto" again).
"""

from __future__ import annotations

import _thread
import os
import signal
import threading
import types

from npjax._compile import _autojit, _autojit_check, _user_code
from npjax._runtime import _context

SIGNAL = getattr(signal, "SIGURG", None)  # (None on Windows: no sampling there)
INTERVAL_S = 0.01  # between looks at the main thread's stack
HOT_SAMPLES = 10  # looks that see a function before it is rebound (0.1-1 s of its time)
_DEPTH = 64  # frames looked at per stack, innermost first

_seen: dict[types.CodeType, int] = {}  # code -> looks that saw it
_done: set[types.CodeType] = set()  # rebound, or not a function to rebind
_lock = threading.Lock()
_thread_running: threading.Thread | None = None
_stop = threading.Event()
rebound: list[str] = []  # "file:line name" of each function rebound (stats, tests)


def watch() -> None:
    """Sample the main thread from now on (its policy came to say ``jit="auto"``); only the
    main thread can set the handler, and only where ``SIGNAL`` has no handler of another."""
    global _thread_running
    if _thread_running is not None and not _stop.is_set():
        return  # (sampling already)
    if SIGNAL is None or threading.current_thread() is not threading.main_thread():
        return
    with _lock:
        if _thread_running is not None and _thread_running.is_alive() and not _stop.is_set():
            return
        handler = signal.getsignal(SIGNAL)
        if handler is not _sample:
            if handler is not signal.SIG_DFL:
                return  # the program's own (or one set outside Python): leave it
            signal.signal(SIGNAL, _sample)
            signal.siginterrupt(SIGNAL, False)  # a real SIGURG restarts system calls
        if _thread_running is not None:
            _thread_running.join()  # (it saw ``_stop`` and is ending)
        _stop.clear()
        _thread_running = threading.Thread(target=_run, name="npjax-autojit-sampler",
                                           daemon=True)
        _thread_running.start()


def _run() -> None:
    while not _stop.wait(INTERVAL_S):
        handler = signal.getsignal(SIGNAL)  # (``_signals`` wraps it while jit traces)
        if getattr(handler, "__wrapped__", handler) is not _sample:
            _stop.set()  # something else took the signal over
            return
        _thread.interrupt_main(SIGNAL)


def _sample(signum: int, frame: types.FrameType | None) -> None:
    """The handler: a look at the main thread's own stack, between two of its bytecodes."""
    ctx = _context.get()
    if ctx.policy.jit != "auto":
        _stop.set()
    elif ctx.trace is None:  # (not while ``npjax.jit`` traces: its guards read globals)
        _look(frame)


def _look(frame: types.FrameType | None) -> None:
    """Count each of the user's module-level functions on one stack; rebind the hot ones."""
    counted = set()
    for _ in range(_DEPTH):
        if frame is None:
            return
        code = frame.f_code
        if code not in _done and code not in counted:
            counted.add(code)
            if not _candidate(code):
                _done.add(code)
            else:
                n = _seen.get(code, 0) + 1
                _seen[code] = n
                if n >= HOT_SAMPLES:
                    _done.add(code)
                    _rebind(frame, code)
        frame = frame.f_back


def _candidate(code: types.CodeType) -> bool:
    return (code.co_qualname == code.co_name != "<module>"
            and not code.co_flags & _autojit_check._GENERATOR
            and _user_code.user_code(code))


def _rebind(frame: types.FrameType, code: types.CodeType) -> None:
    """Rebind the function of ``code`` where it is defined, and where its caller's module
    holds it by the same name (``from module import fn``)."""
    home = frame.f_globals
    fn = home.get(code.co_name)
    if type(fn) is not types.FunctionType or fn.__code__ is not code:
        return
    wrapped = _autojit.auto(fn)
    home[code.co_name] = wrapped
    caller = frame.f_back
    if caller is not None and caller.f_globals is not home \
            and caller.f_globals.get(code.co_name) is fn:
        caller.f_globals[code.co_name] = wrapped
    rebound.append(f"{code.co_filename}:{code.co_firstlineno} {code.co_name}")


def _after_fork() -> None:
    """A forked child has no sampler thread: it starts its own when its policy asks."""
    global _thread_running, _lock
    _thread_running, _lock = None, threading.Lock()
    _stop.set()


os.register_at_fork(after_in_child=_after_fork)
_context.on_jit_auto.append(watch)
if _context.get_policy().jit == "auto":  # NPJAX_JIT=auto: from the import on
    watch()
