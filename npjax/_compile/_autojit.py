"""``npjax.autojit``: run a function as written while it is cold, compiled once it is hot.

A tiered JIT (PyPy, V8) over ``npjax.jit`` (issue 35, point 1). Each call of ``autojit(f)``:

1. Outside any trace, the arguments give a *signature*: ``npjax.jit``'s cache key of them
   (kinds, shapes, dtypes, flags, how they alias; the values of Python scalars and other
   static arguments) and the policy. An argument ``npjax.jit`` would not take as it is (an
   object of the user's class, whose methods may change it; a view NumPy made) makes the call
   run as written.
2. A cold signature runs ``f`` as written, timed. It becomes hot when a compile is expected to
   pay: at least ``MIN_CALLS`` calls, a mean call of at least ``MIN_CALL_S``, and the time its
   calls took so far at least the expected compile time (``expected_compile_s``: the median
   of the compiles measured in this process, ``DEFAULT_COMPILE_S`` before any; when an
   earlier run compiled this function and signature, so that the persistent compilation
   cache holds its program, what loading it cost: the trace and lowering a cache hit still
   pays, ``_index``). Time spent before paying is then at most twice the best
   choice known in hindsight (the ski-rental bound). A *look* (signature, timing) costs
   8-170 us, so until a signature is compiled most calls run without one (``_skips``): the
   first call, and calls between looks while looks would take over ``LOOK_SHARE`` of their
   time, counted as long as the looked-at one; a look still falls on the call at which a
   compile becomes due.
3. The first hot call checks ``f`` (``_autojit_check.check``: nothing but arrays and its own
   locals change when it runs; once per function) and calls ``npjax.jit(f)``. Its later calls
   are compiled calls, after the guards (the globals the check read still hold the same
   objects; if not, every signature of ``f`` is cold again). Compiled calls that are not
   faster than the cold mean (the median of ``HOT_CHECK`` of them but the first, timed up
   to their results on the host or computed on the device) send the signature back to
   running as written, for good. In lazy mode a cold call's time is its recording's (its
   work is computed later), so there, unless the compiled calls beat the recording alone,
   the judge is ``WRITTEN_CHECK`` calls run as written up to their values, after the
   ``HOT_CHECK`` compiled ones.
4. What cannot be compiled runs as written and is remembered per code object (the check) or
   per code object and signature (``npjax.JitError``: also loops that stay unrolled past
   ``_loop_unroll.AUTO_UNROLLED`` traced iterations, as a compile of them would not pay; a
   call ``npjax.jit`` ran eagerly, an exception raised by the function's own ``raise``
   while traced), so it is never tried
   twice. An exception a signal handler raises while tracing propagates at once, as without
   npjax; other exceptions of the trace of the user's code make the call run as written,
   which raises them with NumPy's writes before them.

Results, argument mutations, warnings and exceptions are those of running ``f`` as written:
cold calls are ``f`` itself; compiled calls are ``npjax.jit``'s (exact where it is: its
device checks rerun a call eagerly to raise NumPy's errors and warnings at their line).
``npjax.stats()["autojit"]`` and the runner's report list what was compiled, the compile
time, the time saved (estimated from the cold calls) and what was not, why, with file:line.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import statistics
import time
import types
import weakref
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from npjax._compile import _autojit_check, _loop_unroll, _user_code
from npjax._compile._jit import Jitted
from npjax._compile._jit_inputs import STATIC_SCALARS, HostView, Inputs, Unhashable
from npjax._core._ndarray import host_owner, ndarray
from npjax._execution import _lazy, _lazy_cold
from npjax._execution._lazy import Lazy
from npjax._pure._errors import JitError
from npjax._runtime import _compile_cache, _context, _stats

__all__ = ["autojit"]

MIN_CALLS = 2  # the first call of a signature always runs as written
MIN_CALL_S = 2e-4  # calls shorter than this gain less than a compiled call's own overhead
# The expected compile before any is measured: a function's first compile is a first run's
# decision, so too low a guess compiles what does not pay (0.2 s was: a script calling the
# suite's nbody five times at 75 ms a call compiled it at its fifth for 0.8 s, 3.3x its time
# without autojit). npjax.jit's first calls of the suite's small kernels took 0.08-4.3 s, the
# median 0.5 s (benchmarks/results/bench_small.md, the CPU VM), the compile of a 2-CPU VM.
DEFAULT_COMPILE_S = 0.5
HOT_CHECK = 5  # compiled calls timed before they are judged against the cold ones: the
# median of all but the first (it pays the program's first run; the next ones are still
# warming, and one call may stall on a busy machine: a mean of three sent signatures whose
# compiled calls were 2-4x faster back to running as written, for good)
WRITTEN_CHECK = 3  # lazy mode: calls run as written up to their values, after HOT_CHECK
# compiled ones, where the cold calls deferred their work (the first may compile lazy's
# program: the median of the others is the as-written time the compiled calls are judged by)
MAX_SIGNATURES = 64  # per function; further ones run as written
LOOK_S = 2e-4  # what a look at a call may cost (signature, timing): 8 us in a loop, 100-170 us
# after other NumPy and XLA work on a 2-CPU VM (benchmarks/suite.py, small preset)
LOOK_SHARE = 0.005  # ... at most this share of the time of the calls run as written
SAMPLE = 64  # a function with no compiled signature is looked at once in at most this many
_COMPILES: list[float] = []  # compile times measured in this process
_clock = time.perf_counter

_COLD, _HOT, _AS_WRITTEN = 0, 1, 2
_EAGER = Jitted._eager.__code__  # npjax.jit's run of a call as written


def expected_compile_s() -> float:
    """The compile time expected of the next compile: the median of those measured."""
    if not _COMPILES:
        return DEFAULT_COMPILE_S
    if _median[0] != len(_COMPILES):
        _median[:] = [len(_COMPILES), statistics.median(_COMPILES[-32:])]
    return _median[1]


_median: list = [0, DEFAULT_COMPILE_S]  # (len(_COMPILES) it was taken at, the median)


# --- the index of what earlier runs compiled (persistent cache hits are free) ------------


class _Index:
    """Keys (function code, signature) whose program an earlier run put in the persistent
    compilation cache, each with what loading it costs (a JSON file beside the cache
    directory). A cache hit is not free: ``npjax.jit`` still traces the function and JAX
    lowers it before the cache is read (0.1-0.8 s for the suite's small kernels, against
    0.5-1.2 s for a compile); only XLA's compile is saved."""

    def __init__(self) -> None:
        self.keys: dict[str, float] | None = None

    def path(self) -> str | None:
        cache = _compile_cache.state.get("dir")
        return None if not cache else os.path.join(cache, "autojit-index.json")

    def load(self) -> dict[str, float]:
        if self.keys is None:
            self.keys = {}
            path = self.path()
            if path is not None:
                try:
                    with open(path, encoding="utf-8") as f:
                        data = json.load(f)
                    # (an index of an earlier npjax: a list of keys, their cost unknown)
                    self.keys = ({str(k): float(v) for k, v in data.items()}
                                 if isinstance(data, dict) else dict.fromkeys(data, 0.0))
                except (OSError, ValueError, TypeError, AttributeError):
                    pass
        return self.keys

    def __contains__(self, key: str) -> bool:
        return key in self.load()

    def cost(self, key: str) -> float:
        """What a compile of ``key`` served by the cache is expected to take (seconds)."""
        return self.load().get(key, 0.0)

    def add(self, key: str, cost: float) -> None:
        keys = self.load()
        path = self.path()
        if path is None or (key in keys and abs(keys[key] - cost) <= 0.1 * cost):
            return
        keys[key] = cost
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}"
            kept = dict(list(keys.items())[-4096:])
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(kept, f)
            os.replace(tmp, path)
        except OSError:
            pass


_index = _Index()


def _code_key(code: types.CodeType) -> tuple:
    return (code.co_code, tuple(_code_key(c) if isinstance(c, types.CodeType) else c
                                for c in code.co_consts))


def _index_key(code: types.CodeType, sig: Any) -> str:
    """A key of the function's code and the signature that is the same in another run (no
    object addresses)."""
    text = repr((code.co_filename, code.co_qualname, _code_key(code), sig, jax.__version__))
    return hashlib.sha256(_ADDRESS.sub("", text).encode()).hexdigest()[:32]


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


# --- signatures ---------------------------------------------------------------------------


class _Unsupported(Exception):
    pass


_ALLOWED = (*STATIC_SCALARS, ndarray, types.ModuleType, type)


def _screen(x: Any, depth: int = 0) -> None:
    """Raise ``_Unsupported`` for an argument a compiled call must not take: anything but
    arrays, Python and NumPy scalars, strings, dtypes, types, modules and tuples, lists and
    dicts of them (an object's methods could change it, as a compiled call would not)."""
    t = type(x)
    if t in STATIC_SCALARS or t is ndarray:
        return
    if isinstance(x, np.ndarray | np.generic | np.dtype | jax.Array | types.ModuleType | type):
        return
    if t is tuple or t is list or (isinstance(x, tuple) and hasattr(x, "_fields")):
        if depth < 4:
            for v in x:
                _screen(v, depth + 1)
            return
    if t is dict and depth < 4:
        for v in x.values():
            _screen(v, depth + 1)
        return
    if type(x).__module__.partition(".")[0] == "npjax" and callable(x):
        return  # an npjax function or ufunc
    raise _Unsupported(f"an argument is a {t.__name__} (a compiled call takes arrays, "
                       "numbers, strings and tuples, lists or dicts of them)")


def _signature(args: tuple, kwargs: dict) -> tuple[Any, bool]:
    """(the signature, whether every array argument is a host array)."""
    for x in args:
        _screen(x)
    for x in kwargs.values():
        _screen(x)
    inputs = Inputs()
    specs = inputs.walk_args(args, frozenset())
    kw = tuple((k, inputs.walk(v)) for k, v in kwargs.items()) if kwargs else ()
    host = all(type(r) is np.ndarray or (type(r) is ndarray and r._host() is not None)
               for r in inputs.roots)
    return (specs, kw, _context.current()), host


def _hostify(result: Any, ctx: Any) -> Any:
    """A compiled call's new arrays as the call as written gives them when its array
    arguments are host arrays: host arrays (NumPy's memory) and NumPy scalars, where the
    policy computes such results on the host, and at every size and policy for a dtype the
    accelerator cannot hold (float64 on a TPU: NumPy computes those as written)."""
    t = type(result)
    if t is ndarray:
        if result._base is not None or result._host() is not None:
            return result
        value = result._value
        if not isinstance(value, jax.Array) or (
                (ctx.host < 0 or (value.size > ctx.host and not ctx.policy.keeps_large()))
                and not _lazy_cold.is_held(value.dtype)):
            return result
        data = np.array(_stats.fetch(value))
        if result._scalar:
            return data[()]
        owner = host_owner(data)
        owner._readonly = result._readonly
        return owner
    if t is tuple or t is list:
        return t(_hostify(v, ctx) for v in result)
    return result


def _ready(result: Any) -> Any:
    """``result`` once the device has computed its arrays (a compiled call returns at once:
    its time is the dispatch's alone; lazy mode's calls record their work)."""
    t = type(result)
    if t is ndarray:
        value = result._value
        if type(value) is Lazy:
            value = value.get()
        if result._base is None and isinstance(value, jax.Array):
            value.block_until_ready()
    elif t is tuple or t is list:
        for v in result:
            _ready(v)
    return result


def _deferred(values: Any) -> bool:
    """Whether any of ``values`` (a result, the arguments) is a lazy value not computed yet:
    a call as written that leaves one deferred part of its work past its timing."""
    t = type(values)
    if t is ndarray:
        return type(values._value) is Lazy and values._value.value is None
    if t is tuple or t is list:
        return any(_deferred(v) for v in values)
    return False


def _finish(result: Any, host: bool, ctx: Any) -> Any:
    return _ready(_hostify(result, ctx) if host else result)


class _Guarded(Jitted):
    """``npjax.jit`` of the function. While a compile traces it, the NumPy arrays the check
    guards (constants of the program) are read-only: a write into one raises in the trace (a
    trace runs the Python once, a rolled loop's body once for all its iterations), and the
    call then runs as written, after they are writable again (``thaw``)."""

    frozen: list[np.ndarray] = []  # while a compile runs

    def _eager(self, args: tuple, kwargs: dict) -> Any:
        self.thaw()
        return Jitted._eager(self, args, kwargs)

    def thaw(self) -> None:
        """Before the function runs as written: its guarded arrays writable, as they were."""
        frozen, self.frozen = self.frozen, []
        for a in frozen:
            a.flags.writeable = True


# --- the wrapper --------------------------------------------------------------------------


class _Sig:
    __slots__ = ("calls", "cold_s", "deferred", "first", "hot_n", "hot_s", "hot_ts", "known",
                 "state", "why", "written", "written_ts")

    def __init__(self) -> None:
        self.state = _COLD
        # what loading it costs where an earlier run compiled it (``_index``), -1.0 where no
        # run did; None: not looked up yet
        self.known: float | None = None
        self.why: tuple[str, str] | None = None  # (why, site) it runs as written
        self.calls = 0
        self.cold_s = 0.0
        self.first: tuple[int, float] | None = None  # (calls, seconds) of the first look
        self.hot_n = 0
        self.hot_s = 0.0
        self.hot_ts: list[float] = []  # the first ``HOT_CHECK`` compiled calls' times
        # lazy mode: a timed cold call left work deferred (its time is the recording's), so
        # the compiled calls are judged against ``WRITTEN_CHECK`` calls run up to their
        # values (``written_ts``; ``written``: their time, once measured)
        self.deferred = False
        self.written: float | None = None
        self.written_ts: list[float] = []

    def hot_median(self) -> float:
        """The compiled calls' time: the median of the timed ones but the first (it pays the
        program's first run)."""
        return statistics.median(self.hot_ts[1:] or self.hot_ts)

    def cold_mean(self) -> float:
        """A call's time as written: the mean of the calls after the first look where there
        are some (the first pays its first runs: a Cholesky's 1.05 ms mean against 0.9 ms
        after it kept a compiled version at half NumPy's speed), else of all; in lazy mode,
        once measured, the calls run up to their values."""
        if self.written is not None:
            return self.written
        first = self.first
        if first is not None and self.calls > first[0]:
            return (self.cold_s - first[1]) / (self.calls - first[0])
        return self.cold_s / max(self.calls, 1)


_LIVE: weakref.WeakSet = weakref.WeakSet()  # every AutoJit (for the report's cold list)


def _cold() -> list[dict[str, Any]]:
    """Per function, its signatures called more than once that stayed cold, and why
    (``stats()``)."""
    out = []
    for aj in list(_LIVE):
        cold = [st for st in list(aj._sigs.values())
                if st.state == _COLD and st.calls >= MIN_CALLS]
        if not cold:
            continue
        calls = sum(st.calls for st in cold)
        seconds = sum(st.cold_s for st in cold)
        longest = max(st.cold_s for st in cold)
        mean = seconds / calls
        why = (f"calls too short to gain ({mean * 1e6:.0f} us each)" if mean < MIN_CALL_S
               else f"its calls took {longest:.3f} s, less than a compile "
                    f"({expected_compile_s():.3f} s expected)")
        out.append({"function": aj._name, "site": aj._site, "signatures": len(cold),
                    "calls": calls, "seconds": seconds, "reason": why})
    out.sort(key=lambda e: -e["seconds"])
    return out


_stats.autojit_cold = _cold


class AutoJit:
    """A function compiled through ``npjax.jit`` once it is hot (see the module docstring)."""

    def __init__(self, fn: Callable, runner: bool = False) -> None:
        if not isinstance(fn, types.FunctionType):
            raise TypeError(f"npjax.autojit: expected a Python function, got {fn!r}")
        self._autojit_fn = fn
        self._code = fn.__code__
        self._runner = runner  # applied by ``python -m npjax run``: only under jit="auto"
        self._sigs: dict[Any, _Sig] = {}
        self._jitted: _Guarded | None = None
        self._guards: _autojit_check.Guards | None = None
        # (name, site, why) when the check refused f: every call runs as written
        self._refused: tuple[str, str, str] | None = None
        self._skip = 0  # calls still to run as written without a look (``_timed``)
        self._weight = 1  # the calls the next look stands for (itself and those skipped)
        self._looks = 0  # looks that set ``_skip`` (they vary it)
        self._first = True  # the first call runs as written, not looked at nor timed
        self._hot_sigs = 0  # signatures compiled (then every call is looked at)
        self._site = f"{self._code.co_filename}:{self._code.co_firstlineno}"
        self._name = getattr(fn, "__qualname__", fn.__name__)
        functools.update_wrapper(self, fn)
        _LIVE.add(self)

    def __repr__(self) -> str:
        return f"<npjax.autojit of {self._name!r}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    def __getattr__(self, name: str) -> Any:
        """The function's own attributes (``__code__``, ``__defaults__``, ``__globals__``...)."""
        fn = self.__dict__.get("_autojit_fn")
        if fn is None:
            raise AttributeError(name)
        return getattr(fn, name)

    def __reduce__(self) -> str:
        """Pickled by name, as the function it wraps is (``multiprocessing`` workers)."""
        return self.__qualname__

    def __eq__(self, other: object) -> bool:
        """Equal to the function it wraps (a dict keyed by the function finds its wrapper:
        ``jit="auto"`` may rebind a name to it after references to the function were taken)."""
        if isinstance(other, AutoJit):
            return other._autojit_fn is self._autojit_fn
        return other is self._autojit_fn

    def __hash__(self) -> int:
        return hash(self._autojit_fn)

    def signatures(self) -> list[dict[str, Any]]:
        """What this wrapper knows of each signature it has looked at, read-only: ``state``
        ("cold": runs as written, may compile; "compiled"; "as written": for good),
        ``calls`` and ``cold_s`` (the calls run as written and their time, skipped calls
        counted as long as the looked-at one), ``compiled_calls`` and ``compiled_s`` (the
        compiled calls so far and their time: the first ``HOT_CHECK`` up to their results),
        ``checked`` (a compiled signature whose first ``HOT_CHECK`` calls were judged faster,
        in lazy mode against ``WRITTEN_CHECK`` calls run as written up to their values)
        and ``why`` (a signature running as written for good: why, and the file:line)."""
        names = {_COLD: "cold", _HOT: "compiled", _AS_WRITTEN: "as written"}
        out = []
        for st in list(self._sigs.values()):
            state, why = names[st.state], st.why
            if self._refused is not None and st.state == _COLD:
                state, why = "as written", (self._refused[2], self._refused[1])
            out.append({"state": state, "calls": st.calls, "cold_s": st.cold_s,
                        "compiled_calls": st.hot_n, "compiled_s": st.hot_s,
                        "checked": st.state == _HOT and st.hot_n >= HOT_CHECK and (
                            not st.deferred or st.written is not None),
                        "why": None if why is None else f"{why[0]} ({why[1]})"})
        return out

    def _refuse(self, why: str, site: str, weight: int = 1) -> None:
        _stats.autojit_refused[(self._name, site, why)] += weight

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fn = self._autojit_fn
        if self._skip:  # between looks (``_timed``): as written, not looked at
            self._skip -= 1
            return fn(*args, **kwargs)
        weight, self._weight = self._weight, 1
        ctx = _context.get()
        if ctx.trace is not None or (self._runner and ctx.policy.jit != "auto"):
            return fn(*args, **kwargs)  # inside a trace: traced as part of the caller
        if self._refused is not None:
            _stats.autojit_refused[self._refused] += weight
            return fn(*args, **kwargs)
        if self._first and LOOK_S > 0:  # (it warms up: neither looked at nor timed)
            self._first = False
            return fn(*args, **kwargs)
        try:
            sig, host = _signature(args, kwargs)
            st = self._sigs.get(sig)
        except (_Unsupported, Unhashable, HostView, NotImplementedError, TypeError) as exc:
            why = str(exc) if isinstance(exc, _Unsupported) else (
                "an argument is a view NumPy made" if isinstance(exc, HostView)
                else f"an argument cannot be a compiled call's: {exc}")
            self._refuse(why, self._site, weight)
            return self._timed(fn, args, kwargs, None, weight)
        if st is None:
            if len(self._sigs) >= MAX_SIGNATURES:
                self._refuse(f"more than {MAX_SIGNATURES} signatures (shapes, dtypes or the "
                             "values of scalar arguments change from call to call)",
                             self._site, weight)
                return self._timed(fn, args, kwargs, None, weight)
            st = self._sigs[sig] = _Sig()
        if st.state == _HOT:
            if self._guards is not None and not self._guards.hold():
                self._cool()
                st = self._sigs[sig] = _Sig()
            else:
                return self._hot(st, args, kwargs, host, ctx)
        elif st.state == _AS_WRITTEN:
            self._refuse(*st.why, weight)
            return self._timed(fn, args, kwargs, None, weight)
        if st.calls >= MIN_CALLS - 1 and st.cold_s / st.calls >= MIN_CALL_S and (
                st.cold_s >= self._due(sig, st)):
            result = self._compile(sig, st, args, kwargs, host, ctx)
            return _hostify(result, ctx) if host else result
        return self._timed(fn, args, kwargs, st, weight, sig)

    def _timed(self, fn: Callable, args: tuple, kwargs: dict, st: _Sig | None,
               weight: int, sig: Any = None) -> Any:
        """Run ``fn`` as written, timed. Until a signature is compiled, the next calls run
        without a look (``_skip``: no signature, no timing) while a look would cost more
        than ``LOOK_SHARE`` of their time and no compile can become due meanwhile; they are
        counted now, as long as this one (``weight``: refusals, at the next look)."""
        t0 = _clock()
        result = None
        try:
            result = fn(*args, **kwargs)
            return result
        finally:
            elapsed = _clock() - t0
            if st is not None:
                st.cold_s += elapsed
                st.calls += 1
                if not st.deferred and _lazy.is_on():
                    st.deferred = _deferred(result) or _deferred(args)
            if not self._hot_sigs:
                n = self._skip = self._skips(sig, st, elapsed)
                self._weight = n + 1
                if st is not None and n:
                    st.cold_s += elapsed * n
                    st.calls += n
            if st is not None and st.first is None:
                st.first = (st.calls, st.cold_s)

    def _skips(self, sig: Any, st: _Sig | None, elapsed: float) -> int:
        """How many calls to run without a look after one that took ``elapsed``: fewer by
        a varying part, so that looks fall on every kind of call (calls of two signatures
        in turn); none while a compile may become due and the function has several."""
        if LOOK_S <= 0:
            return 0
        n = min(SAMPLE, int(LOOK_S / (LOOK_SHARE * max(elapsed, 1e-9)))) - 1
        if n <= 0:
            return 0
        self._looks += 1
        n -= (self._looks * 2654435761 >> 8) % (n // 2 + 1)
        if st is None or st.state != _COLD or st.calls * MIN_CALL_S > st.cold_s:
            return n  # (a signature of short calls never compiles)
        if len(self._sigs) > 1:
            return 0
        return max(min(n, math.ceil((self._due(sig, st) - st.cold_s) / elapsed - 1e-6)), 0)

    def _due(self, sig: Any, st: _Sig) -> float:
        """The time a signature's calls as written must take before its compile pays: what
        loading its program from the persistent cache costs where an earlier run compiled
        it (``_index``), a compile otherwise (``expected_compile_s``)."""
        if st.known is None:
            st.known = -1.0
            if _index.load():  # (the key is computed only where an earlier run left one)
                key = _index_key(self._code, sig)
                if key in _index:
                    st.known = _index.cost(key)
        expected = expected_compile_s()
        return expected if st.known < 0 else min(st.known, expected)

    def _cool(self) -> None:
        """A global the check read holds another object: every signature is cold again."""
        self._sigs.clear()
        self._guards = None
        self._hot_sigs = 0
        if self._jitted is not None:
            self._jitted.clear_cache()

    def _as_written(self, st: _Sig, why: str, site: str, args: tuple, kwargs: dict,
                    run: bool = True) -> Any:
        if st.state == _HOT:
            self._hot_sigs -= 1
        st.state, st.why = _AS_WRITTEN, (why, site)
        self._refuse(why, site)
        if not run:
            return None
        if self._jitted is not None:
            self._jitted.thaw()  # (its guarded arrays, read-only while it traced)
        return self._autojit_fn(*args, **kwargs)

    def _compile(self, sig: Any, st: _Sig, args: tuple, kwargs: dict, host: bool,
                 ctx: Any) -> Any:
        fn = self._autojit_fn
        if self._guards is not None and not self._guards.hold():  # (its values of the
            self._cool()  # globals, as of the earlier compile, would be written back)
            self._sigs[sig] = st
        if self._guards is None:
            try:
                self._guards = _autojit_check.check(fn)
            except _autojit_check.Refused as exc:
                self._refused = (self._name, exc.site, exc.why)
                self._refuse(exc.why, exc.site)
                return fn(*args, **kwargs)
        if self._jitted is None:
            self._jitted = _Guarded(fn, (), (), "raise")
        jitted = self._jitted
        guards = self._guards
        jitted.frozen = guards.freeze() if guards.arrays else []
        refused = _stats.autojit_refused.copy() if guards.arrays else None
        try:
            return self._compiled(jitted, sig, st, args, kwargs, host, ctx)
        finally:
            jitted.thaw()
            wrote = guards.changed() if guards.arrays else []
            if wrote:
                # It writes into a NumPy array it reads from a global or closure variable:
                # the trace could not (read-only), the call ran as written; so do later ones
                why = (f"writes into the array {', '.join(wrote)} it reads from a global or "
                       "closure variable")
                self._refused = (self._name, self._site, why)
                if st.state == _HOT:  # (not compiled after all)
                    self._hot_sigs -= 1
                    rec = self._record()
                    rec["signatures"] -= 1
                    if rec["signatures"] <= 0:
                        del _stats.autojit_compiled[(self._name, self._site)]
                st.state, st.why = _AS_WRITTEN, (why, self._site)
                _stats.autojit_refused.clear()  # (not the read-only error of the trace)
                _stats.autojit_refused.update(refused)
                self._refuse(why, self._site)

    def _compiled(self, jitted: _Guarded, sig: Any, st: _Sig, args: tuple, kwargs: dict,
                  host: bool, ctx: Any) -> Any:
        """The compile (``_compile``) itself: the call through ``npjax.jit``."""
        compiles, backend_s = _stats.compiles["count"], _stats.compiles["backend_s"]
        hits = _stats.cache_events["cache_hits"]
        t0 = _clock()
        limit = _loop_unroll.UNROLL_LIMIT.set(_loop_unroll.AUTO_UNROLLED)
        try:
            result = _finish(jitted(*args, **kwargs), host, ctx)
        except JitError as exc:  # npjax cannot trace it: the arguments are unchanged
            return self._as_written(st, _jit_reason(exc), _jit_site(exc, self._site), args,
                                    kwargs)
        except Exception as exc:
            codes = [code for code, _ in _user_code._frames(exc)]
            if _EAGER in codes:  # npjax.jit's eager run raised it, as written
                last = jitted._last
                if last is not None and last[1].compiled is None:  # after a failed trace
                    self._as_written(st, f"npjax.jit could not trace it ({type(exc).__name__})",
                                     _jit_site(exc, self._site), args, kwargs, run=False)
                raise
            if _user_code._from_handler(_user_code._frames(exc)):
                raise  # a signal handler's: at once, as without npjax
            # the user's own raise while traced (its arguments unchanged): as written, it
            # raises again after NumPy's writes before it
            return self._as_written(st, f"raises {type(exc).__name__} while traced",
                                    _jit_site(exc, self._site), args, kwargs)
        finally:
            _loop_unroll.UNROLL_LIMIT.reset(limit)
        elapsed = _clock() - t0
        last = jitted._last
        if last is not None and last[1].eager is not None:  # npjax.jit ran it eagerly
            self._as_written(st, _untraced(last[1]), last[1].eager, args, kwargs,
                             run=False)
            return result
        cold_mean = st.cold_mean()
        compile_s = max(elapsed - cold_mean, 0.0)
        hit = _stats.cache_events["cache_hits"] > hits
        if _stats.compiles["count"] > compiles and not hit:
            _COMPILES.append(compile_s)  # (XLA compiled it: a cache hit is not a compile)
        if _index.path() is not None:  # what a later run pays to load it: all but XLA's part
            load_s = compile_s if hit else max(
                compile_s - (_stats.compiles["backend_s"] - backend_s), 0.0)
            _index.add(_index_key(self._code, sig), load_s)
        st.state = _HOT
        self._hot_sigs += 1
        rec = self._record()
        rec["signatures"] += 1
        rec["compile_s"] += compile_s
        rec["cold_calls"] += st.calls
        rec["cold_s"] += st.cold_s
        return result

    def _record(self) -> dict[str, float]:
        rec = _stats.autojit_compiled.get((self._name, self._site))
        if rec is None:
            rec = _stats.autojit_compiled[(self._name, self._site)] = {
                "signatures": 0, "compile_s": 0.0, "cold_calls": 0, "cold_s": 0.0,
                "hot_calls": 0, "saved_s": 0.0}
        return rec

    def _hot(self, st: _Sig, args: tuple, kwargs: dict, host: bool, ctx: Any) -> Any:
        """A compiled call; the first ``HOT_CHECK`` are timed to their results' end."""
        if st.deferred and st.hot_n >= HOT_CHECK and st.written is None:
            return self._written(st, args, kwargs)
        jitted = self._jitted
        t0 = _clock()
        result = jitted(*args, **kwargs)
        if host:
            result = _hostify(result, ctx)
        if st.hot_n < HOT_CHECK:
            _ready(result)
        elapsed = _clock() - t0
        last = jitted._last
        if last is not None and last[1].eager is not None:
            self._as_written(st, _untraced(last[1]), last[1].eager, args, kwargs,
                             run=False)
            return result
        st.hot_n += 1
        st.hot_s += elapsed
        rec = self._record()
        rec["hot_calls"] += 1
        rec["saved_s"] += st.cold_mean() - elapsed
        if st.hot_n <= HOT_CHECK:
            st.hot_ts.append(elapsed)
            if st.hot_n == HOT_CHECK:
                if st.deferred and st.hot_median() < st.cold_mean():
                    st.written = st.cold_mean()  # (the recording alone took longer: no need
                    # to run it up to its values; a lower bound of the time as written)
                if not st.deferred or st.written is not None:
                    self._judge(st, args, kwargs)
        return result

    def _written(self, st: _Sig, args: tuple, kwargs: dict) -> Any:
        """A call as written, timed up to its values (lazy mode: the work it records); the
        last of ``WRITTEN_CHECK`` judges the compiled calls."""
        t0 = _clock()
        result = self._autojit_fn(*args, **kwargs)
        _ready(result)
        _ready(args)
        st.written_ts.append(_clock() - t0)
        if len(st.written_ts) == WRITTEN_CHECK:
            st.written = statistics.median(st.written_ts[1:])
            self._judge(st, args, kwargs)
        return result

    def _judge(self, st: _Sig, args: tuple, kwargs: dict) -> None:
        """Back to running as written, for good, where the compiled calls were not faster."""
        hot, cold = st.hot_median(), st.cold_mean()
        if hot >= cold:
            self._as_written(st, f"compiled calls were not faster (median {hot * 1e3:.3g} ms "
                             f"against {cold * 1e3:.3g} ms as written)", self._site, args,
                             kwargs, run=False)


def _jit_site(exc: BaseException, default: str) -> str:
    """The user's ``file:line`` an exception names (JitError's message) or was raised at."""
    text = str(exc)
    if isinstance(exc, JitError) and "): " in text:
        rest = text.split("): ", 1)[1]
        site = rest.split(": ", 1)[0]
        if ":" in site:
            return site
    tb = exc.__traceback__
    site = default
    while tb is not None:
        code = tb.tb_frame.f_code
        if _user_code.user_code(code):
            site = f"{code.co_filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return site


def _untraced(entry: Any) -> str:
    """Why autojit runs a function as written after ``npjax.jit`` ran it eagerly."""
    why = f" ({entry.eager_why})" if entry.eager_why else ""
    return f"npjax.jit could not trace it{why}"


def _jit_reason(exc: JitError) -> str:
    text = str(exc)
    if "writes to an array that is not one of its arguments" in text:
        return "writes to an array it does not take as an argument"
    found = text.rsplit(" [", 1)  # (" [": not an array's shape, ``bool[]``)
    detail = found[1][:-1] if len(found) == 2 and found[1].endswith("]") else text
    return f"cannot trace: {detail[:160]}"


def autojit(fn: Callable | None = None) -> Any:
    """Run ``fn`` as written while it is cold and compiled with ``npjax.jit`` once it is hot
    and a compile is expected to pay (usable as ``@npjax.autojit``). What cannot be compiled
    runs as written; results, argument mutations, warnings and exceptions are those of
    running ``fn`` as written. See ``npjax/_compile/_autojit.py``."""
    if fn is None:
        return autojit
    if isinstance(fn, AutoJit):
        return fn
    return AutoJit(fn)


def auto(fn: Callable) -> Any:
    """What ``python -m npjax run`` applies to the functions of the user's files: autojit
    while the policy's ``jit`` is "auto"."""
    if not isinstance(fn, types.FunctionType) or fn.__code__.co_flags & (
            _autojit_check._GENERATOR):
        return fn
    return AutoJit(fn, runner=True)
