"""ufunc methods NumPy runs on the host: a ``dtype=`` with no device form, and divisions
whose NumPy loops would report an error.

A ``dtype=`` such as long double (``'g'``) or object makes the method NumPy's own call on
host data (a host array back), never JAX's TypeError.

``floor_divide``/``remainder``/``fmod`` ``reduce``, ``accumulate`` and ``reduceat`` report
(integers) "divide by zero encountered in <method>" for a zero divisor and
``floor_divide`` "overflow encountered in <method>" for ``MIN // -1`` at any step; the device
kernels give NumPy's values but not the flags of each step. When the error state asks for a
report and a cheap device test finds a zero, a ``MIN`` or a non-finite, NumPy runs the
method on a host copy (one transfer, counted): its values, warnings and errors. ``at`` of
these ufuncs always runs on the host: NumPy's ``at`` loop gives values of its own for a zero
divisor (uint64 ``0 // 0`` is ``2**63`` there); a float ``at`` of any ufunc reruns there
when its device result shows a new non-finite element and the error state reports it.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._calls._fallback import call_numpy
from npjax._core._ndarray import ndarray
from npjax._pure import _dtypes
from npjax._core._normalize import to_jax
from npjax._runtime import _stats
from npjax._runtime._context import current
from npjax._runtime._errstate import state
from npjax._runtime._numpy_calls import call_numpy_ufunc

_NAMES = frozenset({"floor_divide", "remainder", "fmod", "divmod"})


def _integer(dt: Any) -> bool:
    return np.dtype(dt).kind in "iu"


@jax.jit
def _suspect(x: jax.Array) -> jax.Array:
    """Whether ``x`` holds a zero, (signed) its dtype's minimum or (float) a non-finite."""
    bad = x == 0
    if x.dtype.kind == "i":
        bad = bad | (x == jnp.iinfo(x.dtype).min)
    elif x.dtype.kind == "f":
        bad = bad | ~jnp.isfinite(x)
    return jnp.any(bad)


def reduce_on_host(name: str, loop_dt: np.dtype, x: Any) -> bool:
    """Whether ``name``'s reduce/accumulate/reduceat of ``x`` on ``loop_dt`` is NumPy's to run
    (float loops too: ``1 // 0`` is inf, then ``inf // 2`` NaN, each step reported)."""
    if name not in _NAMES or np.dtype(loop_dt).kind not in "iuf" or \
            np.dtype(x.dtype).kind not in "iufb":
        return False
    st = state()
    if st["divide"] == "ignore" and st["over"] == "ignore" and st["invalid"] == "ignore":
        return False
    if not isinstance(x, jax.Array) or isinstance(x, jax.core.Tracer) or x.size == 0:
        return False
    return bool(_suspect(x))


def at_on_host(name: str, a: ndarray, b: Any) -> bool:
    """Whether ``name.at`` on ``a`` (and ``b``) is NumPy's to run: integer division ufuncs."""
    if name not in _NAMES or not _integer(a.dtype) or isinstance(a._read(), jax.core.Tracer):
        return False
    dt = getattr(b, "dtype", None)
    return dt is None or _integer(dt) or np.dtype(dt).kind == "b"


@jax.jit
def _new_non_finite(old: jax.Array, new: jax.Array) -> jax.Array:
    return jnp.any(~jnp.isfinite(new) & jnp.isfinite(old))


def at_flags_possible(loop_out: np.dtype, old: jax.Array, new: jax.Array) -> bool:
    """Whether a float ``ufunc.at`` that gave ``new`` from ``old`` on the device may have
    raised a floating-point flag NumPy reports (a new non-finite element; any result when
    underflow is reported): then NumPy reruns it."""
    if np.dtype(loop_out).kind not in "fc" or isinstance(new, jax.core.Tracer):
        return False  # (traced: npjax.jit's program, no flags read here)
    st = state()
    if st["under"] != "ignore":
        return True
    if st["divide"] == "ignore" and st["over"] == "ignore" and st["invalid"] == "ignore":
        return False
    return bool(_new_non_finite(old, new))


def _host(x: Any) -> Any:
    if isinstance(x, ndarray):
        host = x._host()
        return host if host is not None else _stats.fetch(x._read())
    if isinstance(x, jax.Array):
        return _stats.fetch(x)
    if isinstance(x, tuple):
        return tuple(_host(v) for v in x)
    return x


def run_method(name: str, method: str, x: jax.Array, *args: Any, **kwargs: Any) -> jax.Array:
    """NumPy's ``getattr(np.<name>, method)`` on a host copy of ``x``: a device value."""
    fn = getattr(getattr(np, name), method)
    kwargs = {k: _host(v) for k, v in kwargs.items()}
    res = call_numpy_ufunc(fn, (_stats.fetch(x), *(_host(v) for v in args)), kwargs)
    return to_jax(np.asarray(res), current())


def run_at(name: str, a: ndarray, indices: Any, b: Any) -> None:
    """NumPy's ``np.<name>.at`` on a host copy of ``a``, written back when NumPy succeeds."""
    target = a._host()
    if target is None:
        target = np.array(_stats.fetch(a._read()))
    ops = () if b is None else (_host(b),)
    call_numpy_ufunc(getattr(np, name).at, (target, _host(indices), *ops), {})
    if a._host() is None:
        a._write(to_jax(target, current()))


def host_dtype(dtype: Any) -> bool:
    """Whether a method's ``dtype=`` has no device form (long double, object...)."""
    return dtype is not None and not _dtypes.is_device_dtype(np.dtype(dtype))


def numpy_method(name: str, method: str, args: tuple, kwargs: dict) -> Any:
    """NumPy's ``np.<name>.<method>(*args, **kwargs)`` on host copies (quiet: host-only data)."""
    return call_numpy(f"{name}.{method}", getattr(getattr(np, name), method), args, kwargs,
                      current(), "a dtype with no device form", quiet=True)


def numpy_at(name: str, a: np.ndarray, indices: Any, b: Any) -> None:
    """NumPy's ``np.<name>.at`` on NumPy's own array ``a`` (host copies of npjax operands)."""
    ops = () if b is None else (_host(b),)
    call_numpy_ufunc(getattr(np, name).at, (a, _host(indices), *ops), {})
