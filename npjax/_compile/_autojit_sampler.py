"""``jit="auto"`` under a plain ``import npjax``: the user's hot functions found by sampling.

``python -m npjax run`` wraps each module-level ``def`` of the user's files in
``npjax.autojit`` as the file is compiled (``_tools/_autojit_hook.py``). A plain import has
no hook on the definitions of the script that imports npjax, but it can see where the
script's time goes. Once a thread sets ``jit="auto"`` (``set_policy``, ``with
npjax.policy(jit="auto")``, ``NPJAX_JIT=auto``), a daemon thread looks at that thread's
Python stack every ``INTERVAL_S`` (``sys._current_frames``: no signal, no per-call cost in
the sampled thread). Each module-level function of the user's own files
(``_user_code.user_code``: not npjax, the standard library or an installed package) seen on
the stack in ``HOT_SAMPLES`` looks is rebound in its module's globals to ``_autojit.auto``
of it, exactly what the runner's hook gives it; from the next call made through that name
autojit's cost model decides whether to compile it (the call running now, and references
taken before, stay the function itself; a wrapper compares and hashes equal to it, so a dict
keyed by the function still finds it). Functions with decorators (the global is not the
function), nested functions, methods, generators and coroutines are left alone, as the
runner's hook leaves them. The wrapper follows the policy of each call: under
``jit="explicit"`` it runs the function as written.
"""

from __future__ import annotations

import sys
import threading
import time
import types

from npjax._compile import _autojit, _autojit_check, _user_code
from npjax._runtime import _context

INTERVAL_S = 0.01  # between looks at a sampled thread's stack
HOT_SAMPLES = 10  # looks that see a function before it is rebound (~0.1 s of its time)
_DEPTH = 64  # frames looked at per stack, innermost first

_threads: set[int] = set()  # the threads that asked for jit="auto"
_seen: dict[types.CodeType, int] = {}  # code -> looks that saw it
_done: set[types.CodeType] = set()  # rebound, or not a function to rebind
_lock = threading.Lock()
_thread: threading.Thread | None = None
rebound: list[str] = []  # "file:line name" of each function rebound (for a look)


def watch_this_thread() -> None:
    """Sample the calling thread's stack from now on (its policy asked for ``jit="auto"``)."""
    global _thread
    tid = threading.get_ident()
    if tid in _threads:
        return
    with _lock:
        _threads.add(tid)
        if _thread is None:
            _thread = threading.Thread(target=_run, name="npjax-autojit-sampler", daemon=True)
            _thread.start()


def _run() -> None:
    while True:
        time.sleep(INTERVAL_S)
        frames = sys._current_frames()
        for tid in list(_threads):
            if tid in frames:
                _look(frames[tid])
            else:  # the thread has ended
                _threads.discard(tid)
        frames = None  # (no frame, nor the locals it holds, kept alive between looks)


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
                    _rebind(frame.f_globals, code)
        frame = frame.f_back


def _candidate(code: types.CodeType) -> bool:
    return (code.co_qualname == code.co_name != "<module>"
            and not code.co_flags & _autojit_check._GENERATOR
            and _user_code.user_code(code))


def _rebind(namespace: dict, code: types.CodeType) -> None:
    fn = namespace.get(code.co_name)
    if type(fn) is types.FunctionType and fn.__code__ is code:
        namespace[code.co_name] = _autojit.auto(fn)
        rebound.append(f"{code.co_filename}:{code.co_firstlineno} {code.co_name}")


_context.on_jit_auto.append(watch_this_thread)
if _context.get_policy().jit == "auto":  # NPJAX_JIT=auto: the importing thread
    watch_this_thread()
