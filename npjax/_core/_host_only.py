"""Arrays of the dtypes only the host holds: object, str/bytes, long double, datetime64/
timedelta64, byte-swapped, structured/void. Their storage is a NumPy array (a host array,
``_ndarray.py``) whatever the policy; NumPy computes every operation on them. A call given
one runs on the host even where the policy puts work on the device (``_route.forced_host``):
its device operands come to the host once, counted (``stats()["host_only"]``), and device
arrays it writes (``out=``, ``copyto``'s destination) get the result written back.
"""

from __future__ import annotations

import inspect
from typing import Any

import jax
import numpy as np

from npjax._core._ndarray import ndarray
from npjax._core._normalize import array_method_value
from npjax._core._out import DEVICE_WRITES, out_buffer, write_out
from npjax._pure._dtypes import DEVICE_DTYPE, MAX_DEVICE_NDIM, device_dtype_of
from npjax._runtime import _stats


def host_only(x: Any) -> bool:
    """Whether ``x`` is an array the device cannot hold (a host-only dtype, more than
    ``MAX_DEVICE_NDIM`` dimensions): an npjax host array or NumPy's own."""
    if isinstance(x, ndarray):
        x = x._host()
        if x is None:  # a device array never is one
            return False
    elif type(x) is not np.ndarray:
        return False
    device_dtype = DEVICE_DTYPE.get(x.dtype)
    if device_dtype is None:  # (float64 on a TPU: not remembered, a trace's answer differs)
        device_dtype = device_dtype_of(x.dtype)
    return not device_dtype or x.ndim > MAX_DEVICE_NDIM


def has_host_only(args: tuple, kwargs: dict) -> bool:
    """Whether an operand (one level into lists and tuples, ``out=`` included) is an array of
    a host-only dtype: the call then runs on the host whatever the policy."""
    for a in (*args, *kwargs.values()):
        if type(a) is list or type(a) is tuple:
            if any(host_only(x) for x in a):
                return True
        elif host_only(a):
            return True
    return False


class _Fetched:
    """Operands for a host call: device arrays fetched once (counted); device arrays NumPy
    writes into, fetched as writable copies written back after the call."""

    def __init__(self) -> None:
        self.device = False
        self.back: list = []

    def operand(self, x: Any) -> Any:
        if isinstance(x, ndarray):
            data = x._host()
            if data is None:
                self.device = True
                data = np.array(x._fetch())
            return data[()] if x._scalar else data
        if type(x) is list or type(x) is tuple:
            return type(x)(self.operand(item) for item in x)
        if isinstance(x, jax.Array):
            self.device = True
            return np.asarray(x)
        value = array_method_value(x)  # (an ``__array__`` that returns an npjax array)
        return x if value is x else self.operand(value)

    def destination(self, x: Any) -> Any:
        """An array NumPy writes into (``out=``, ``copyto``'s destination): the out writer's
        host branch (``out_buffer``) for host arrays; a device array's writable copy, which
        the writer stores back after the call (``run_fetched``)."""
        buffer = out_buffer(x)
        if buffer is not DEVICE_WRITES:
            return buffer
        if type(x) is list or type(x) is tuple:
            return type(x)(self.destination(item) for item in x)
        if isinstance(x, ndarray) and x._host() is None:
            self.device = True
            data = np.array(x._fetch())
            self.back.append((x, data))
            return data[()] if x._scalar else data
        return self.operand(x)


# NumPy functions that write into a positional argument (its position), as into ``out=``.
_MUTATED = {"copyto": 0, "putmask": 0, "place": 0, "put": 0, "put_along_axis": 0,
            "fill_diagonal": 0}


_OUT_AT: dict = {}  # NumPy function -> the position of its ``out`` parameter, or -1


def _out_position(fn: Any) -> int:
    """Where ``fn`` (NumPy's) takes ``out`` positionally (``np.round(a, 1, out)``), or -1;
    read from its signature once per function."""
    at = _OUT_AT.get(fn)
    if at is None:
        try:
            names = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):  # (ufuncs and builtins: no signature to read)
            names = []
        at = next((i for i, p in enumerate(names) if p.name == "out"
                   and p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD), -1)
        try:
            _OUT_AT[fn] = at
        except TypeError:  # (unhashable)
            pass
    return at


def run_fetched(name: str, fn: Any, args: tuple, kwargs: dict, run: Any) -> tuple:
    """``run(fn, args, kwargs)`` on host operands (device ones fetched, written ones written
    back), counted as a host-only call of ``name``: (its result, whether a device array was
    among the operands). A result that is a written copy is the device array itself."""
    _stats.host_only[name] += 1
    fetched = _Fetched()
    mutated = 0 if name.endswith(".at") else _MUTATED.get(name, -1)  # (ufunc.at: in place)
    out_at = _out_position(fn) if len(args) > 1 else -1
    ops = tuple(fetched.destination(a) if i == mutated or i == out_at else fetched.operand(a)
                for i, a in enumerate(args))
    kw = {k: fetched.destination(v) if k == "out" else fetched.operand(v)
          for k, v in kwargs.items()}
    result = run(fn, ops, kw)
    for target, data in fetched.back:
        write_out(target, data, "unsafe", name)
        if result is data:
            result = target
        elif type(result) is tuple:
            result = tuple(target if r is data else r for r in result)
    return result, fetched.device
