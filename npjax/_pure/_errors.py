"""Exceptions and warnings npjax raises, with NumPy's classes wherever NumPy has one."""

from __future__ import annotations

import numpy as np
from numpy.exceptions import AxisError, ComplexWarning  # noqa: F401  (re-exported)

try:  # NumPy's own class for a failed output cast (a TypeError subclass); private in NumPy
    from numpy._core._exceptions import _UFuncOutputCastingError
except ImportError:  # pragma: no cover - older layouts
    _UFuncOutputCastingError = None


class FallbackWarning(UserWarning):
    """A call ran on host NumPy instead of JAX (see the ``fallback`` policy)."""


class NpjaxUnsupported(Exception):
    """Raised by an implementation that cannot handle its input; only this triggers fallback."""


class HostOnly(NpjaxUnsupported):
    """Data of a dtype with no device form (str, bytes, datetime64, object, structured): it
    lives in host arrays and NumPy's own function handles it, quietly."""


def output_casting_error(ufunc_name: str, casting: str, from_: np.dtype, to: np.dtype) -> TypeError:
    """The exception NumPy raises when a ufunc result cannot be cast into ``out``."""
    np_ufunc = getattr(np, ufunc_name, None)
    if not isinstance(np_ufunc, np.ufunc):  # ``clip``: a function over the ufunc ``umath.clip``
        np_ufunc = getattr(np._core.umath, ufunc_name, None)
    if _UFuncOutputCastingError is not None and isinstance(np_ufunc, np.ufunc):
        return _UFuncOutputCastingError(np_ufunc, casting, from_, to, 0)
    return TypeError(
        f"Cannot cast ufunc {ufunc_name!r} output from {from_!r} to {to!r} "
        f"with casting rule {casting!r}"
    )


def unsupported(func: str, param: str, detail: str = "") -> NotImplementedError:
    extra = f": {detail}" if detail else ""
    return NotImplementedError(f"npjax.{func}: parameter {param!r} is not supported{extra}")


class JitError(RuntimeError):
    """A function compiled by ``npjax.jit`` needs a value that only exists at run time."""


class UnrollLimit(JitError):
    """Under ``npjax.jit``: loops that stay unrolled would trace more iterations than the
    limit (``npjax._compile._loops.MAX_UNROLLED``); the function is not compiled."""


class ShapeNeeded(JitError):
    """Under ``npjax.jit``: a shape that depends on traced values (a slice whose length
    depends on bounds read from an array)."""
