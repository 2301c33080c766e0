"""npjax.fft: numpy.fft on JAX.

The argument handling mirrors NumPy's ``numpy/fft/_pocketfft.py`` step by step (same checks in
the same order, so the same exception classes); each 1-D transform is one jitted XLA FFT. The
normalisation factor is computed as NumPy does (``1/sqrt(n)`` or ``1/n`` in the input's real
dtype) and applied to the real and imaginary parts separately, as pocketfft does.

Differences from NumPy: XLA's FFT and pocketfft round differently (results agree to FFT
round-off, about ``eps * log2(n)`` relative to the largest term); where the input holds inf or
NaN, which output elements become inf and which NaN may differ. ``fftfreq``/``rfftfreq`` take
``device=None`` only.
"""

from __future__ import annotations

import functools
import operator
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from numpy.lib.array_utils import normalize_axis_index

from npjax._calls._dispatch import wrap
from npjax._core._out import write_out
from npjax._pure._capabilities import route
from npjax._pure._errors import unsupported
from npjax._runtime._errstate import _stacklevel
from npjax._core._ndarray import ndarray
from npjax._execution._lazy import Kernel
from npjax._core._normalize import to_jax, to_jax_lazy
from npjax._runtime._context import current
from npjax._library._rearranging import roll as _roll  # the public roll (NumPy's axis checks)

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "rfftn", "irfftn", "rfft2",
           "irfft2", "fft2", "ifft2", "fftn", "ifftn", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]

# Why every function here stays hand-written (its declaration, made when npjax routes this
# namespace: ``_route.route_namespace``).
_BY_HAND = "NumPy's fft checks (n, axes, norm) in its own body; not yet moved onto npfunc tags"

_SWAP = {"backward": "forward", None: "forward", "ortho": "ortho", "forward": "backward"}


def _swap_direction(norm: Any) -> Any:
    try:
        return _SWAP[norm]
    except (KeyError, TypeError):
        raise ValueError(f'Invalid norm value {norm}; should be "backward", '
                         '"ortho" or "forward".') from None


def _real_dtype(dtype: np.dtype) -> np.dtype:
    """NumPy's ``result_type(a.real.dtype, 1.0)``."""
    if dtype.kind == "c":
        dtype = np.finfo(dtype).dtype
    return np.result_type(dtype, 1.0)


@functools.lru_cache(maxsize=1024)
def _fft_kernel(kind: str, n: int, axis: int, fct: float | None, cdtype: np.dtype,
                odtype: np.dtype, conj: str) -> Kernel:
    """The compiled transform of these parameters (lazy mode records it)."""
    return Kernel(jax.jit(functools.partial(_transform, kind=kind, n=n, axis=axis, fct=fct,
                                            cdtype=cdtype, odtype=odtype, conj=conj)))


def _transform(x: jax.Array, *, kind: str, n: int, axis: int, fct: float | None,
               cdtype: np.dtype, odtype: np.dtype, conj: str) -> jax.Array:
    """One 1-D transform along ``axis``: crop/pad to the input length, FFT, scale, cast;
    ``conj`` ("in", "out" or "") conjugates the input (hfft) or the result (ihfft)."""
    x = jnp.moveaxis(x, axis, -1)
    n_in = n // 2 + 1 if kind == "c2r" else n
    m = x.shape[-1]
    if m > n_in:
        x = x[..., :n_in]
    if kind == "r2c":
        x = x.astype(np.finfo(cdtype).dtype)
    else:
        x = x.astype(cdtype)
        if conj == "in":
            x = jnp.conj(x)
    if m < n_in:
        x = jnp.concatenate([x, jnp.zeros(x.shape[:-1] + (n_in - m,), x.dtype)], axis=-1)
    if kind == "c2c_f":
        y = route("fft", cdtype, jnp.fft.fft, np.fft.fft, x)
    elif kind == "c2c_b":  # unnormalised: pocketfft applies fct itself
        y = route("fft", cdtype, functools.partial(jnp.fft.ifft, norm="forward"),
                  functools.partial(np.fft.ifft, norm="forward"), x)
    elif kind == "r2c":
        y = route("fft", cdtype, jnp.fft.rfft, np.fft.rfft, x)
    else:
        # pocketfft's c2r reads only the real parts of the 0th (and, for even n, the n/2-th)
        # terms; zero their imaginary parts so every backend does the same (a select on
        # the index: one fused loop, where two scatters compiled to six kernels)
        k = lax.broadcasted_iota(np.int32, x.shape, x.ndim - 1)
        ends = (k == 0) | (k == n // 2) if n % 2 == 0 else k == 0
        x = jnp.where(ends, x.real.astype(x.dtype), x)
        y = route("fft", cdtype, functools.partial(jnp.fft.irfft, n=n, norm="forward"),
                  functools.partial(np.fft.irfft, n=n, norm="forward"), x)
    if fct is not None:
        f = np.asarray(fct, np.finfo(cdtype).dtype)
        y = lax.complex(y.real * f, y.imag * f) if y.dtype.kind == "c" else y * f
    if conj == "out":
        y = jnp.conj(y)
    return jnp.moveaxis(y.astype(odtype), -1, axis)


def _raw_fft(a: jax.Array, n: Any, axis: Any, is_real: bool, is_forward: bool, norm: Any,
             out: Any = None, conj: str = "", name: str = "fft") -> Any:
    """NumPy's ``_raw_fft``: checks in NumPy's order, then one jitted kernel."""
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    if not is_forward:
        norm = _swap_direction(norm)
    dtype = np.dtype(a.dtype)
    real_dtype = _real_dtype(dtype)
    if norm is None or norm == "backward":
        fct = None
    elif norm == "ortho":
        fct = float(np.reciprocal(np.sqrt(n, dtype=real_dtype)))
    elif norm == "forward":
        fct = float(np.reciprocal(n, dtype=real_dtype))
    else:
        raise ValueError(f'Invalid norm value {norm}; should be "backward",'
                         '"ortho" or "forward".')
    if isinstance(n, bool | np.bool_):
        raise TypeError("an integer is required")
    n = operator.index(n)
    cdtype = np.result_type(dtype, 1j)
    if is_real and is_forward:
        kind, n_out = "r2c", n // 2 + 1
    elif is_real:
        kind, n_out = "c2r", n
    else:
        kind, n_out = ("c2c_f" if is_forward else "c2c_b"), n
    axis = normalize_axis_index(axis, a.ndim)
    if kind == "r2c" and dtype.kind == "c":
        raise TypeError(f"ufunc 'rfft_n_{'even' if n % 2 == 0 else 'odd'}' not supported "
                        "for the input types, and the inputs could not be safely coerced "
                        "to any supported types according to the casting rule ''safe''")
    odtype = real_dtype if kind == "c2r" else np.result_type(dtype, 1j)
    if out is not None:
        shape = getattr(out, "shape", None)
        if shape is not None and (len(shape) != a.ndim or shape[axis] != n_out):
            raise ValueError("output array has wrong shape.")
    if fct == 1.0:
        fct = None
    result = _fft_kernel(kind, n, axis, fct, cdtype, odtype, conj)(a)
    if out is not None:
        return write_out(out, result, "same_kind", name)
    return result


def _as_jax(a: Any) -> Any:
    """The operand; in lazy mode an npjax array's pending value (the transforms record)."""
    return to_jax_lazy(a, current())


def _finish(result: Any) -> Any:
    return result if isinstance(result, ndarray) else wrap(result)


def _n_default(a: jax.Array, n: Any, axis: Any, real_inverse: bool) -> Any:
    if n is None:
        m = a.shape[axis]
        return (m - 1) * 2 if real_inverse else m
    return n


def fft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None,
        out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.fft (one-dimensional DFT)."""
    a = _as_jax(a)
    n = _n_default(a, n, axis, False)
    return _finish(_raw_fft(a, n, axis, False, True, norm, out, name="fft"))


def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None,
         out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.ifft (one-dimensional inverse DFT)."""
    a = _as_jax(a)
    n = _n_default(a, n, axis, False)
    return _finish(_raw_fft(a, n, axis, False, False, norm, out, name="ifft"))


def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None,
         out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.rfft (DFT of real input)."""
    a = _as_jax(a)
    n = _n_default(a, n, axis, False)
    return _finish(_raw_fft(a, n, axis, True, True, norm, out, name="rfft"))


def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None,
          out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.irfft (inverse of rfft)."""
    a = _as_jax(a)
    n = _n_default(a, n, axis, True)
    return _finish(_raw_fft(a, n, axis, True, False, norm, out, name="irfft"))


def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None,
         out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.hfft (DFT of a Hermitian-symmetric signal).

    As in NumPy 2.4, ``out`` is accepted and ignored (a new array is returned).
    """
    a = _as_jax(a)
    n = _n_default(a, n, axis, True)
    new_norm = _swap_direction(norm)
    return _finish(_raw_fft(a, n, axis, True, False, new_norm, None, conj="in", name="hfft"))


def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None,
          out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.ihfft (inverse of hfft)."""
    a = _as_jax(a)
    n = _n_default(a, n, axis, False)
    new_norm = _swap_direction(norm)
    return _finish(_raw_fft(a, n, axis, True, True, new_norm, out, conj="out", name="ihfft"))


# --- n-dimensional transforms -----------------------------------------------------------------


def _cook_nd_args(a: jax.Array, s: Any = None, axes: Any = None, invreal: bool = False
                  ) -> tuple[list, Any]:
    """NumPy's ``_cook_nd_args`` (pure shape arithmetic)."""
    if s is None:
        shapeless = True
        s = list(a.shape) if axes is None else np.take(a.shape, axes)
    else:
        shapeless = False
    s = list(s)
    if axes is None:
        if not shapeless:
            warnings.warn(
                "`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy 2.0). "
                "In a future version of NumPy, this will raise an error and `s[i]` will "
                "correspond to the size along the transformed axis specified by `axes[i]`. To "
                "retain current behaviour, pass a sequence [0, ..., k-1] to `axes` for an "
                "array of dimension k.", DeprecationWarning, stacklevel=_stacklevel())
        axes = list(range(-len(s), 0))
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if invreal and shapeless:
        s[-1] = (a.shape[axes[-1]] - 1) * 2
    if None in s:
        warnings.warn(
            "Passing an array containing `None` values to `s` is deprecated in NumPy 2.0 and "
            "will raise an error in a future version of NumPy. To use the default behaviour "
            "of the corresponding 1-D transform, pass the value matching the default for its "
            "`n` parameter. To use the default behaviour for every axis, the `s` argument can "
            "be omitted.", DeprecationWarning, stacklevel=_stacklevel())
    s = [a.shape[_a] if _s == -1 else _s for _s, _a in zip(s, axes)]
    return s, axes


def _step(a: Any, n: Any, axis: Any, is_real: bool, is_forward: bool, norm: Any, out: Any,
          real_inverse: bool, name: str) -> Any:
    """One 1-D pass of an n-D transform; ``a`` is a jax.Array or the ``out`` array."""
    if isinstance(a, ndarray):
        a = a._read_lazy()
    n = _n_default(a, n, axis, real_inverse)
    return _raw_fft(a, n, axis, is_real, is_forward, norm, out, name=name)


def _raw_fftnd(a: Any, s: Any, axes: Any, is_forward: bool, norm: Any, out: Any, name: str
               ) -> ndarray:
    original = a
    a = _as_jax(a)
    s, axes = _cook_nd_args(a, s, axes)
    result: Any = a
    for ii in reversed(range(len(axes))):
        result = _step(result, s[ii], axes[ii], False, is_forward, norm, out, False, name)
    if result is a:  # no axes: NumPy returns asarray(a) unchanged
        return original if isinstance(original, ndarray) else wrap(a)
    return _finish(result)


def fftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None,
         out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.fftn (N-dimensional DFT)."""
    return _raw_fftnd(a, s, axes, True, norm, out, "fftn")


def ifftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None,
          out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.ifftn (N-dimensional inverse DFT)."""
    return _raw_fftnd(a, s, axes, False, norm, out, "ifftn")


def fft2(a: Any, s: Any = None, axes: Any = (-2, -1), norm: str | None = None,
         out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.fft2 (2-D DFT)."""
    return _raw_fftnd(a, s, axes, True, norm, out, "fft2")


def ifft2(a: Any, s: Any = None, axes: Any = (-2, -1), norm: str | None = None,
          out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.ifft2 (2-D inverse DFT).

    As in NumPy 2.4, ``out`` is accepted and ignored (a new array is returned).
    """
    return _raw_fftnd(a, s, axes, False, norm, None, "ifft2")


def rfftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None,
          out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.rfftn (N-dimensional DFT of real input)."""
    a = _as_jax(a)
    s, axes = _cook_nd_args(a, s, axes)
    result = _step(a, s[-1], axes[-1], True, True, norm, out, False, "rfftn")
    for ii in range(len(axes) - 2, -1, -1):
        result = _step(result, s[ii], axes[ii], False, True, norm, out, False, "rfftn")
    return _finish(result)


def rfft2(a: Any, s: Any = None, axes: Any = (-2, -1), norm: str | None = None,
          out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.rfft2 (2-D DFT of real input)."""
    return rfftn(a, s, axes, norm, out=out)


def irfftn(a: Any, s: Any = None, axes: Any = None, norm: str | None = None,
           out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.irfftn (inverse of rfftn)."""
    a = _as_jax(a)
    s, axes = _cook_nd_args(a, s, axes, invreal=True)
    result: Any = a
    for ii in range(len(axes) - 1):
        result = _step(result, s[ii], axes[ii], False, False, norm, None, False, "irfftn")
    result = _step(result, s[-1], axes[-1], True, False, norm, out, True, "irfftn")
    return _finish(result)


def irfft2(a: Any, s: Any = None, axes: Any = (-2, -1), norm: str | None = None,
           out: ndarray | None = None) -> ndarray:
    """npjax implementation of numpy.fft.irfft2 (inverse of rfft2).

    As in NumPy 2.4, ``out`` is accepted and ignored (a new array is returned).
    """
    return irfftn(a, s, axes, norm, out=None)


# --- helpers: frequencies and shifts ----------------------------------------------------------


@functools.partial(jax.jit, static_argnames=("n", "split", "dtype"))
def _freq_kernel(val: jax.Array, *, n: int, split: int, dtype: np.dtype) -> jax.Array:
    i = jnp.arange(n, dtype=np.int64)
    i = jnp.where(i < split, i, i - n)
    return i.astype(dtype) * val


def _freq(n: Any, d: Any, device: Any, name: str, real: bool) -> ndarray:
    if device is not None:
        raise unsupported(name, "device")
    if not isinstance(n, int | np.integer):
        raise ValueError("n should be an integer")
    if isinstance(d, ndarray | np.ndarray | jax.Array) and np.ndim(d) != 0:
        raise unsupported(name, "d", "only a scalar spacing is supported")
    if isinstance(d, ndarray | jax.Array):
        d = np.asarray(d)[()]  # a 0-d spacing: one host scalar, as NumPy's val
    val = 1.0 / (n * d)
    n = int(n)
    if n < 0 and not real:
        raise ValueError("negative dimensions are not allowed")
    dtype = np.result_type(np.int64, val)
    length = max(n // 2 + 1, 0) if real else n  # rfftfreq: arange(0, N), empty for N <= 0
    split = length if real else (n - 1) // 2 + 1
    host_val = np.asarray(val).astype(dtype)
    policy = current()
    return wrap(_freq_kernel(to_jax(host_val, policy), n=length, split=split, dtype=dtype))


def fftfreq(n: int, d: Any = 1.0, device: Any = None) -> ndarray:
    """npjax implementation of numpy.fft.fftfreq.

    Differences from NumPy: ``device`` must be None; ``d`` must be a scalar.
    """
    return _freq(n, d, device, "fftfreq", False)


def rfftfreq(n: int, d: Any = 1.0, device: Any = None) -> ndarray:
    """npjax implementation of numpy.fft.rfftfreq.

    Differences from NumPy: ``device`` must be None; ``d`` must be a scalar.
    """
    return _freq(n, d, device, "rfftfreq", True)


def _shift(x: Any, axes: Any, sign: int) -> ndarray:
    x = x if isinstance(x, ndarray) else wrap(_as_jax(x))
    shape = x.shape
    if axes is None:
        axes = tuple(range(x.ndim))
        shift: Any = [sign * (dim // 2) for dim in shape]
    elif isinstance(axes, int | np.integer):
        shift = sign * (shape[axes] // 2)
    else:
        shift = [sign * (shape[ax] // 2) for ax in axes]
    return _roll(x, shift, axes)


def fftshift(x: Any, axes: Any = None) -> ndarray:
    """npjax implementation of numpy.fft.fftshift."""
    return _shift(x, axes, 1)


def ifftshift(x: Any, axes: Any = None) -> ndarray:
    """npjax implementation of numpy.fft.ifftshift."""
    return _shift(x, axes, -1)


for _f in (fft, ifft, rfft, irfft, hfft, ihfft, rfftn, irfftn, rfft2, irfft2, fft2, ifft2, fftn,
           ifftn, fftfreq, rfftfreq, fftshift, ifftshift):
    _f.__module__ = "npjax.fft"
del _f
