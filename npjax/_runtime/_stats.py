"""Per-process counters behind ``npjax.stats()``: calls, fallbacks, transfers, compiles.

Counting is a dictionary increment on the call path; everything else (sorting, formatting)
happens when ``stats()`` is asked for. Only the rarer events pay for more: a host<->device
transfer, a fallback and a scalar item write also record the user's call site (a walk up the
Python frames to the first one outside npjax, or to the first frame of the user's own code
when the runner has said which files those are). Compiles are counted through JAX's
``jax.monitoring`` duration events, so they cost nothing until JAX compiles.
"""

from __future__ import annotations

import collections
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from npjax._pure import _capabilities
from npjax._runtime._deferred_checks import _deferred, flush_deferred
from npjax._runtime._errstate import PACKAGE_DIR
from npjax._runtime._host_reads import SYNCS


class Tally(collections.Counter):
    """A ``Counter`` whose ``tally[key] += 1`` is dict's own C code: ``Counter`` defines
    ``__delitem__`` in Python, which routes every item store through Python (about twice the
    cost of the increment on the call path). Deleting a missing key raises, as in a dict."""

    __delitem__ = dict.__delitem__


calls: collections.Counter = Tally()  # public name -> calls on the device
fallbacks: collections.Counter = collections.Counter()  # public name -> host NumPy runs
fallback_sites: collections.Counter = collections.Counter()  # (name, "file:line") -> runs
host_only: collections.Counter = Tally()  # name -> calls NumPy ran on the host whatever the
# policy: host-only dtypes (object, str, datetime...), ufuncs npjax does not have
host_calls: collections.Counter = Tally()  # name -> calls NumPy ran (host arrays)
# name -> a one-item list: the host calls of the hottest paths (operators, ufuncs), counted
# as ``cell[0] += 1`` (about half the cost of ``host_calls[name] += 1``, a Counter) and added
# to ``host_calls`` when the counts are read (``host_counts``).
_host_cells: dict[str, list[int]] = {}


# Functions that add host calls counted elsewhere to the cells (the C host route,
# ``_placement/_fast.py``), called before the cells are read or reset.
flushers: list = []


def host_cell(name: str) -> list[int]:
    """The counting cell of ``name``'s host calls (one per name, made on first request)."""
    return _host_cells.setdefault(name, [0])


def host_counts() -> collections.Counter:
    """``host_calls`` with the counting cells' counts moved into it."""
    for flush in flushers:
        flush()
    for name, cell in _host_cells.items():
        n = cell[0]
        if n:
            cell[0] -= n  # (an increment made meanwhile stays in the cell)
            host_calls[name] += n
    return host_calls
transfers: dict[str, list[int]] = {"host_to_device": [0, 0], "device_to_host": [0, 0],
                                   "device_to_device": [0, 0]}
# (direction, file, line) -> [count, bytes]
transfer_sites: dict[tuple[str, str, int], list[int]] = {}
scalar_writes: collections.Counter = collections.Counter()  # (file, line) -> a[i] = v writes
jit_eager: collections.Counter = collections.Counter()  # (function, "file:line") -> eager runs
jit_eager_why: dict[tuple[str, str], str] = {}  # (function, "file:line") -> "TypeError: ..."
# npjax.autojit: (function, "file:line") -> what was compiled ("signatures", "compile_s",
# "cold_calls", "cold_s", "hot_calls", "saved_s"); refusals: (function, "file:line", reason)
# -> calls run as written since
autojit_compiled: dict[tuple[str, str], dict[str, float]] = {}
autojit_refused: collections.Counter = collections.Counter()
# set by ``npjax._compile._autojit``: the functions it left cold so far, and why
autojit_cold: Callable[[], list[dict[str, Any]]] | None = None
device_wait = [0.0, 0]  # seconds in device->host fetches (waiting + copying), count
# JAX compile events: backend compiles (XLA), traces (Python -> jaxpr), lowerings (-> MLIR)
compiles: dict[str, float] = {"count": 0, "backend_s": 0.0, "traces": 0, "trace_s": 0.0,
                              "lowerings": 0, "lower_s": 0.0}
compiled: collections.Counter = collections.Counter()  # function name -> backend compiles
cache_events: collections.Counter = collections.Counter()  # persistent compilation cache
# lazy mode: calls recorded, flushes, calls executed and values kept by flushes, programs
lazy: collections.Counter = collections.Counter()
_clock = [time.perf_counter()]

# Set by the runner: is this file name the user's own code? (None: any file outside npjax)
user_code: Callable[[str], bool] | None = None

_BACKEND = "/jax/core/compile/backend_compile_duration"
_TRACE = "/jax/core/compile/jaxpr_trace_duration"
_LOWER = "/jax/core/compile/jaxpr_to_mlir_module_duration"
_CACHE = "/jax/compilation_cache/"


def caller_frame() -> Any:
    """The user's frame that led here (npjax's own frames are skipped; when the runner has
    said which files are the user's, the first of those); None when there is none."""
    frame = sys._getframe(1)
    first = None
    is_user = user_code
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(PACKAGE_DIR):
            if first is None:
                first = frame
                if is_user is None:
                    break
            if is_user is not None and is_user(name):
                return frame
        frame = frame.f_back
    return first


def _caller() -> tuple[str, int]:
    """(file, line) of ``caller_frame()``."""
    frame = caller_frame()
    return ("<unknown>", 0) if frame is None else (frame.f_code.co_filename, frame.f_lineno)


def user_site() -> str:
    """``"file:line"`` of the user's code that called into npjax (for fallback sites)."""
    name, line = _caller()
    return f"{name}:{line}"


def record_fallback(name: str, site: str | None = None) -> None:
    """Count one host NumPy run of ``npjax.<name>``; ``site`` defaults to the user's line."""
    if site is None:
        site = user_site()
    fallbacks[name] += 1
    fallback_sites[(name, site)] += 1


def record_jit_eager(function: str, site: str, why: str = "") -> None:
    """Count one eager run of an ``npjax.jit`` function (``fallback="eager"``), the line of
    it that could not be traced and the exception its trace raised there."""
    jit_eager[(function, site)] += 1
    if why:
        jit_eager_why[(function, site)] = why


def record_transfer(kind: str, nbytes: int, count: int = 1) -> None:
    """Count ``count`` transfers (``kind``: "host_to_device", "device_to_host" or
    "device_to_device") of ``nbytes`` in all, and their site."""
    entry = transfers[kind]
    entry[0] += count
    entry[1] += nbytes
    key = (kind, *_caller())
    site = transfer_sites.get(key)
    if site is None:
        transfer_sites[key] = [count, nbytes]
    else:
        site[0] += count
        site[1] += nbytes


def fetch(value: Any) -> np.ndarray:
    """``np.asarray(value)`` for a ``jax.Array``, counted as a device->host transfer; the time
    it takes (waiting for the device to finish computing the value, then the copy) is counted
    as time waiting on device results."""
    if isinstance(value, jax.core.Tracer):  # under tracing: let NumPy/JAX raise their error
        return np.asarray(value)
    if _deferred.items:  # the warnings of earlier operations come first, as in NumPy
        flush_deferred()
    start = time.perf_counter()
    if not value.size:  # no values to wait for or copy: no transfer
        host = np.empty(value.shape, value.dtype)
    elif not getattr(value, "is_fully_addressable", True) and not value.is_fully_replicated:
        # a global array over several processes (npjax.distributed): gather every part
        host = _gather(value)
    else:
        host = np.asarray(value)
    device_wait[0] += time.perf_counter() - start
    device_wait[1] += 1
    record_transfer("device_to_host", host.nbytes)
    return host


def _gather(value: Any) -> np.ndarray:
    from jax.experimental import multihost_utils

    return np.asarray(multihost_utils.process_allgather(value, tiled=True))


def record_scalar_write(index: Any) -> None:
    """Count ``a[i] = v`` with an integer index (or a tuple of them) at the user's line."""
    if type(index) is tuple:
        if not all(type(i) is int or isinstance(i, np.integer) for i in index):
            return
    elif not (type(index) is int or isinstance(index, np.integer)):
        return
    scalar_writes[_caller()] += 1


_JAX_DIRS = tuple(os.path.dirname(m.__file__) for m in (jax, jax._src))


def _compile_site() -> str:
    """``"file:line"`` of the first frame that is neither npjax's nor JAX's (a compile is
    reported from inside JAX)."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith((PACKAGE_DIR, *_JAX_DIRS, "<frozen")):
            return f"{name}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>:0"


# the slowest XLA compiles: (seconds, compiled function, user's "file:line"), longest first
slowest_compiles: list[tuple[float, str, str]] = []
_SLOWEST = 10


def _on_duration(event: str, duration: float, **kwargs: Any) -> None:
    if event == _BACKEND:
        compiles["count"] += 1
        compiles["backend_s"] += duration
        name = str(kwargs.get("fun_name", "?"))
        compiled[name] += 1
        if len(slowest_compiles) < _SLOWEST or duration > slowest_compiles[-1][0]:
            slowest_compiles.append((duration, name, _compile_site()))
            slowest_compiles.sort(key=lambda e: -e[0])
            del slowest_compiles[_SLOWEST:]
    elif event == _TRACE:
        compiles["traces"] += 1
        compiles["trace_s"] += duration
    elif event == _LOWER:
        compiles["lowerings"] += 1
        compiles["lower_s"] += duration


def _on_event(event: str, **kwargs: Any) -> None:
    if event.startswith(_CACHE):
        cache_events[event[len(_CACHE):]] += 1


jax.monitoring.register_event_duration_secs_listener(_on_duration)
jax.monitoring.register_event_listener(_on_event)


def _site(name: str, line: int) -> str:
    return f"{name}:{line}"


def stats() -> dict[str, Any]:
    """A snapshot of npjax's counters since start-up (or the last ``reset_stats``).

    Keys: ``wall_s``; ``calls`` (public name -> count); ``fallbacks`` and ``fallback_sites``;
    ``transfers`` (per direction: count, bytes) and ``transfer_sites``; ``scalar_writes``
    (``a[i] = v`` per user line); ``jit_eager`` (calls of ``npjax.jit`` functions run eagerly
    under ``fallback="eager"``, with the line that could not trace and ``why``: the
    exception its trace raised); ``device_wait`` (count,
    seconds); ``syncs`` (host waits for the device: value ``fetches``, floating-point
    ``checks`` made at the call, checks deferred to the next read and the ``deferred_reads``
    that read them, ``index_bounds`` read to raise NumPy's IndexError at the indexing line);
    ``compiles`` (count,
    seconds, by_function, trace/lowering parts, the persistent cache's ``cache_hits`` and
    ``cache_misses``, ``cache_dir`` and JAX's raw ``cache`` events); ``lazy`` (calls recorded,
    flushes, calls executed by flushes, values they kept, programs compiled);
    ``placement``: calls run by NumPy on host arrays (``host``, per name in ``host_calls``)
    and on the device (``device``: every other counted call: functions, operators, indexing
    with device arrays as ``ndarray.__getitem__``/``__setitem__``, grids, loads, random
    draws as ``random.<method>``).
    """
    compile_s = compiles["backend_s"] + compiles["trace_s"] + compiles["lower_s"]
    host_counts()
    sites = sorted(transfer_sites.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0]))
    return {
        "wall_s": time.perf_counter() - _clock[0],
        "calls": dict((calls + host_calls).most_common()),
        "fallbacks": dict(fallbacks.most_common()),
        "fallback_sites": [{"function": name, "site": site, "count": n}
                           for (name, site), n in fallback_sites.most_common()],
        "host_only": dict(host_only.most_common()),
        "host_routes": _host_routes(),
        "placement": {"host": sum(host_calls.values()), "device": sum(calls.values()),
                      "host_calls": dict(host_calls.most_common())},
        "transfers": {kind: {"count": c, "bytes": b} for kind, (c, b) in transfers.items()},
        "transfer_sites": [{"direction": kind, "site": _site(name, line), "count": c,
                            "bytes": b} for (kind, name, line), (c, b) in sites],
        "scalar_writes": [{"site": _site(name, line), "count": n}
                          for (name, line), n in scalar_writes.most_common()],
        "jit_eager": [{"function": fn, "site": site, "count": n,
                       "why": jit_eager_why.get((fn, site), "")}
                      for (fn, site), n in jit_eager.most_common()],
        "autojit": {
            "compiled": [{"function": fn, "site": site, **rec}
                         for (fn, site), rec in sorted(autojit_compiled.items(),
                                                       key=lambda kv: -kv[1]["saved_s"])],
            "refused": [{"function": fn, "site": site, "reason": why, "count": n}
                        for (fn, site, why), n in autojit_refused.most_common()],
            "cold": autojit_cold() if autojit_cold is not None else []},
        "device_wait": {"count": device_wait[1], "seconds": device_wait[0]},
        "syncs": {"fetches": device_wait[1], "checks": SYNCS["checks"],
                  "deferred_checks": SYNCS["deferred"],
                  "deferred_reads": SYNCS["deferred_reads"],
                  "index_bounds": SYNCS["bounds"]},
        "compiles": {
            "count": int(compiles["count"]),
            "seconds": compile_s,
            "backend_s": compiles["backend_s"],
            "traces": int(compiles["traces"]),
            "trace_s": compiles["trace_s"],
            "lowerings": int(compiles["lowerings"]),
            "lower_s": compiles["lower_s"],
            "by_function": dict(compiled.most_common()),
            "slowest": [{"seconds": sec, "function": name, "site": site}
                        for sec, name, site in slowest_compiles],
            "cache": dict(cache_events),
            **_cache_summary(),
        },
        "lazy": {key: lazy[key] for key in ("recorded", "flushes", "executed", "outputs",
                                            "programs", "rolled", "cold_on_cpu",
                                            "host_dtype_on_cpu")},
    }


def _host_routes() -> list[dict[str, Any]]:
    """Device work the backend's XLA cannot do, run by NumPy on the host (capability table)."""
    return [{"family": family, "dtype": dtype, "count": n,
             "reason": _capabilities.reason(family)}
            for (family, dtype), n in _capabilities.ROUTED.most_common()]


def _cache_summary() -> dict[str, Any]:
    """Persistent-cache hits and misses (compiles that looked in the cache and did not find
    their program) and the directory npjax configured (None: none, see ``_compile_cache``)."""
    from npjax._runtime import _compile_cache

    hits = cache_events["cache_hits"]
    return {"cache_hits": hits, "cache_misses": cache_events["compile_requests_use_cache"] - hits,
            "cache_dir": _compile_cache.state["dir"]}


def reset_stats() -> None:
    """Zero every counter and restart the wall clock."""
    calls.clear()
    fallbacks.clear()
    fallback_sites.clear()
    jit_eager.clear()
    jit_eager_why.clear()
    autojit_compiled.clear()
    autojit_refused.clear()
    host_only.clear()
    _capabilities.ROUTED.clear()
    host_calls.clear()
    for flush in flushers:
        flush()
    for cell in _host_cells.values():
        cell[0] = 0
    for entry in transfers.values():
        entry[0] = entry[1] = 0
    transfer_sites.clear()
    scalar_writes.clear()
    device_wait[0], device_wait[1] = 0.0, 0
    SYNCS.clear()
    for key in compiles:
        compiles[key] = 0
    compiled.clear()
    slowest_compiles.clear()
    cache_events.clear()
    lazy.clear()
    _clock[0] = time.perf_counter()
