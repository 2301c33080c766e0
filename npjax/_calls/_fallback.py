"""Host NumPy round trip for calls npjax does not run on JAX, announced by the policy.

Three things lead here, never a blanket ``except Exception``:
- a name the registry declares ``fallback`` (``fallback_function``),
- an implementation that raises ``NpjaxUnsupported`` on purpose (``@npfunc(numpy_fn=...)``),
- data of a host-only dtype (str, bytes, datetime64, object, structured: ``HostOnly``), which
  lives in host arrays; those calls are NumPy's own and run quietly, counted apart.

Arguments NumPy mutates (``out=``, ``copyto``'s destination, ...) are handed to NumPy as writable
host copies and written back into the npjax arrays afterwards, so views and aliases see the
change; a result that *is* such a copy comes back as the npjax array itself.
"""

from __future__ import annotations

import warnings
from typing import Any

import jax
import numpy as np

from npjax._runtime import _stats
from npjax._pure._dtypes import is_device_dtype
from npjax._pure._errors import FallbackWarning
from npjax._core._ndarray import ndarray
from npjax._core._out import write_out
from npjax._placement._made import place_made
from npjax._core._normalize import array_method_value
from npjax._runtime._context import current
from npjax._runtime._numpy_calls import call_numpy_function, runs_loops
from npjax._runtime._policy import Policy


# NumPy functions that write into a positional argument (position of the destination).
MUTATED_POSITIONS: dict[str, tuple[int, ...]] = {
    "copyto": (0,), "putmask": (0,), "place": (0,), "put": (0,), "put_along_axis": (0,),
    "fill_diagonal": (0,), "shuffle": (0,),
}


def announce(name: str, reason: str, policy: Policy) -> None:
    """Apply the fallback policy (raise, warn at the user's line, or allow) and count it."""
    if policy.fallback == "raise":
        raise NotImplementedError(
            f"npjax.{name} would run on host NumPy ({reason}) and the policy says "
            "fallback='raise'")
    frame = _stats.caller_frame()
    if frame is None:
        _stats.record_fallback(name, "<unknown>:0")
        return
    filename, line = frame.f_code.co_filename, frame.f_lineno
    _stats.record_fallback(name, f"{filename}:{line}")
    if policy.fallback == "warn":
        # What warnings.warn does for a frame it finds by stacklevel, for the user's frame.
        where = frame.f_globals
        warnings.warn_explicit(
            f"npjax.{name} runs on host NumPy: {reason}", FallbackWarning, filename, line,
            module=where.get("__name__"), registry=where.setdefault("__warningregistry__", {}),
            module_globals=where)


class _HostCopies:
    """Converts arguments to host data, remembering writable copies that must go back."""

    def __init__(self) -> None:
        self.back: dict[int, tuple[np.ndarray, ndarray]] = {}
        self.device = False  # whether an argument was a device array (``place_made``)

    def convert(self, x: Any, writable: bool = False) -> Any:
        if isinstance(x, ndarray):
            data = x._host()  # a host array's own data: no trip to the device and back
            if data is None:
                self.device = True
            if writable:
                host = np.array(_stats.fetch(x._read()) if data is None else data)
                self.back[id(host)] = (host, x)
                return host
            host = _stats.fetch(x._read()) if data is None else data
            return host[()] if x._scalar else host
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            return type(x)(*(self.convert(v, writable) for v in x))
        if isinstance(x, list | tuple):
            return type(x)(self.convert(v, writable) for v in x)
        if isinstance(x, dict):
            return {k: self.convert(v, writable) for k, v in x.items()}
        if isinstance(x, jax.Array):
            self.device = True
            return x
        value = array_method_value(x)  # (an ``__array__`` that returns an npjax array)
        return x if value is x else self.convert(value)

    def write_back(self) -> None:
        for host, target in self.back.values():
            write_out(target, host, "unsafe", "fallback")

    def result(self, x: Any) -> Any:
        if isinstance(x, np.ndarray) and id(x) in self.back:
            return self.back[id(x)][1]
        return from_host(x, self.result, self.device)


def to_host(x: Any) -> Any:
    """npjax arrays (also inside lists, tuples and dicts) as NumPy arrays."""
    return _HostCopies().convert(x)


def from_host(x: Any, inner: Any = None, device: bool = False) -> Any:
    """NumPy results back as npjax arrays, placed as new arrays are (``place_made``): host
    arrays where the policy keeps them on the host, device arrays otherwise or when
    ``device`` (an argument was a device array). A result that views other memory (such as
    the host copy of an argument) becomes a new array, as before placement; host-only
    dtypes are host arrays."""
    inner = inner or from_host
    if isinstance(x, np.ndarray | np.generic):
        if isinstance(x, np.ndarray) and x.base is not None and is_device_dtype(x.dtype):
            x = np.array(x, subok=False)
        return place_made(x, device)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(inner(v) for v in x))
    if isinstance(x, list | tuple):
        return type(x)(inner(v) for v in x)
    return x


def run_on_host(name: str, numpy_fn: Any, args: tuple, kwargs: dict) -> Any:
    """Call ``numpy_fn`` on host copies, its warnings at the user's line as the host route
    issues them; write mutated arguments back; results placed (``from_host``)."""
    copies = _HostCopies()
    mutated = MUTATED_POSITIONS.get(name, ())
    host_args = tuple(copies.convert(a, i in mutated) for i, a in enumerate(args))
    host_kwargs = {k: copies.convert(v, k == "out") for k, v in kwargs.items()}
    result = call_numpy_function(numpy_fn, host_args, host_kwargs, runs_loops(numpy_fn))
    copies.write_back()
    return copies.result(result)


def call_numpy(name: str, numpy_fn: Any, args: tuple, kwargs: dict, policy: Policy,
               reason: str, quiet: bool = False) -> Any:
    """Announce (unless ``quiet``: host-only data) and run ``numpy_fn`` on the host."""
    if quiet:
        _stats.host_only[name] += 1
    else:
        announce(name, reason, policy)
    if kwargs.get("out", 0) is None:
        kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    return run_on_host(name, numpy_fn, args, kwargs)


def fallback_function(name: str, numpy_fn: Any, reason: str = "no JAX implementation") -> Any:
    """A public npjax function that runs NumPy's ``numpy_fn`` on the host (registry use)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return call_numpy(name, numpy_fn, args, kwargs, current(), reason)

    call.__name__ = call.__qualname__ = name.rpartition(".")[2]
    call.__module__ = "npjax"
    call.__doc__ = (f"Runs ``numpy.{name}`` on host NumPy ({reason}); announced by the "
                    f"``fallback`` policy.\n\n{getattr(numpy_fn, '__doc__', '') or ''}")
    call.__wrapped__ = numpy_fn
    call._npjax_fallback = True
    call._npjax_reason = reason
    return call


def _on_device(result: Any) -> bool:
    """Whether ``result`` is, or holds (a tuple or list of them), a device array."""
    if isinstance(result, ndarray):
        return result._host() is None
    if isinstance(result, list | tuple):
        return any(_on_device(r) for r in result)
    return False


def host_function(name: str, numpy_fn: Any) -> Any:
    """A public npjax function whose job is host-side (I/O, text, dtype questions): NumPy's
    own function on host copies of npjax arrays, results placed back; not a fallback."""

    def call(*args: Any, **kwargs: Any) -> Any:
        result = run_on_host(name, numpy_fn, args, kwargs)
        # Counted where its result lives (``loadtxt`` places what it reads on the device).
        (_stats.calls if _on_device(result) else _stats.host_calls)[name] += 1
        return result

    call.__name__ = call.__qualname__ = name.rpartition(".")[2]
    call.__module__ = "npjax"
    call.__doc__ = f"npjax's ``numpy.{name}``: runs on the host by nature (no device work)."
    call.__wrapped__ = numpy_fn
    call._npjax_host = True
    return call
