"""NumPy's argument rules shared by every ``npjax.linalg`` function: the compute and result
dtypes (``_common_type``), the shape checks, the data-dependent checks NumPy raises on
(``_flag``: one device-to-host transfer, a device-side check under ``npjax.jit``), and data
of host-only dtypes sent to NumPy's own function (``host_data_to_numpy``)."""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from numpy.linalg import LinAlgError

from npjax._runtime import _context
from npjax._runtime._context import current
from npjax._calls._dispatch import wrap
from npjax._pure._impl.linalg import common_type as _common_type  # noqa: F401 (the modules')
from npjax._pure._errors import HostOnly
from npjax._calls._fallback import call_numpy
from npjax._core._normalize import to_jax
from npjax._core._executor import numpy_reads_in_place
from npjax._core._numpy_in_place import from_numpy, host_views
from npjax._runtime._numpy_calls import call_numpy_ufunc

_NoValue = np._NoValue
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_C64, _C128 = np.dtype(np.complex64), np.dtype(np.complex128)
_REAL = {_F32: _F32, _F64: _F64, _C64: _F32, _C128: _F64}
_COMPLEX = {_F32: _C64, _F64: _C128, _C64: _C64, _C128: _C128}


def _arr(x: Any) -> jax.Array:
    return to_jax(x, current())


def _check_stacked_2d(a: jax.Array) -> None:
    if a.ndim < 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                          "two-dimensional")


def _check_square(a: jax.Array) -> None:
    _check_stacked_2d(a)
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")


def _check_2d(*arrays: jax.Array) -> None:
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be "
                              "two-dimensional")


def _flag(x: jax.Array) -> bool:
    """A data-dependent condition NumPy raises on: one device-to-host transfer, or inside
    ``npjax.jit`` a device-side check (the call then reruns eagerly and raises here)."""
    if isinstance(x, jax.core.Tracer):
        tr = _context.trace()
        if tr is not None:
            tr.check(jnp.any(x))
            return False
    return bool(x)


def _out(x: Any) -> Any:
    return wrap(x, True)


def host_data_to_numpy(fn: Any) -> Any:
    """Data of a host-only dtype (str, object, ...) goes to NumPy's own function, quietly
    (as everywhere in npjax); NumPy raises its own error for most of them. Every public
    function of ``npjax.linalg`` is one of these."""
    numpy_fn = getattr(np.linalg, fn.__name__)
    in_place = fn.__name__ in _IN_PLACE

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if in_place and current().lazy:
            got = _numpy_in_place(numpy_fn, args, kwargs)
            if got is not None:
                return got
        try:
            return fn(*args, **kwargs)
        except HostOnly as exc:
            return call_numpy(f"linalg.{fn.__name__}", numpy_fn, args, kwargs, current(),
                              str(exc), quiet=True)

    call.__module__ = "npjax.linalg"
    return call


# Functions of one array result whose LinAlgError needs the values anyway: in lazy mode on the
# CPU backend NumPy's LAPACK computes them from the data in place (whiten_checks' ``solve(L,
# z.T)``, 64 x 64 by 64 x 20000: XLA's LU and triangular solves took 1.6x NumPy's time).
_IN_PLACE = {"solve", "cholesky", "inv"}


def _numpy_in_place(numpy_fn: Any, args: tuple, kwargs: dict) -> Any:
    """NumPy's ``numpy_fn`` on operands in host memory (``_numpy_in_place``), or None."""
    if not numpy_reads_in_place():
        return None
    views = host_views((*args, *kwargs.values()))
    if views is None or any(type(v) is not np.ndarray for v in views[:len(args)]):
        return None
    got = call_numpy_ufunc(numpy_fn, tuple(views[:len(args)]),
                           dict(zip(kwargs, views[len(args):])))
    return from_numpy(got)
