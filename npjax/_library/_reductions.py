"""Reductions (sum, mean, std, median, percentile, ...): shared cores, one kernel cache.

Result dtypes are NumPy's own: NumPy is asked once per (function, input dtype, dtype-relevant
parameters) on a one-element sample and the answer is cached (``_oracle``). Every computation
is a pure-JAX core (``_impl.reductions``, ``_impl.quantiles``), compiled once per
(core, static parameters) by ``_jit``; the public functions only normalise arguments, check
what NumPy checks and call the kernel.

Float sums follow NumPy's order of operations: ``add.reduce`` uses pairwise summation along
the innermost reduced run (8 accumulators for real, 4 for complex types, 128/64-element
blocks) and a sequential fold across the outer reduced axes; products and cumulative
functions are sequential. ``float16`` inner loops accumulate in ``float32`` as NumPy's do.
This is reproduced exactly for reductions of up to a few hundred steps and for sums of up to
4096 elements in all; larger ones use XLA's reduction (same values up to the last bits).

Data-dependent errors NumPy raises (``nanargmin`` of an all-NaN slice, ``average`` weights
summing to zero, quantile weights that are NaN) need a device-to-host transfer of one flag.
NumPy's RuntimeWarnings ("Mean of empty slice", "All-NaN slice encountered", "Degrees of
freedom <= 0 for slice", "overflow encountered in reduce", "invalid value encountered in
divide"...) are issued by ``_reduction_checks``: from the shapes where they depend only on
shapes, else by a device check that is deferred like the flags of ufuncs (no wait for the
device per call where the error state only warns).
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._core import _casts, _window_reads
from npjax._runtime import _context
from npjax._pure import _dtypes
from npjax._library import _reduction_checks as _checks
from npjax._calls._dispatch import ArrayIn, AxisIn, DTypeIn, IntAxisIn, npfunc
from npjax._core._out import write_out
from npjax._pure._errors import output_casting_error
from npjax._execution._lazy import Kernel
from npjax._pure._impl.quantiles import (
    _DISCRETE, _METHODS, _k_median, _k_nanmedian, _k_quantile, _k_quantile_weighted,
)
from npjax._pure._impl import reductions as _raw
from npjax._pure._impl.reductions import (
    _BOOL, _F16, _F32, _F64, _INTP, _k_accumulate, _k_allnan, _k_anyall,
    _k_arg, _k_average, _k_count_nonzero, _k_fold, _k_fold_plain, _k_int_sum, _k_mean,
    _k_mean_of_sum, _k_minmax, _k_minmax_plain, _k_nanmean, _k_nanvar, _k_ptp, _k_var,
)
from npjax._pure._axes import normalize_axes, normalize_axis, reduction_axes
from npjax._core._ndarray import install_methods, ndarray
from npjax._core._normalize import to_jax, where_mask
from npjax._runtime._context import current

__all__ = [
    "sum", "prod", "mean", "std", "var", "min", "max", "amin", "amax", "argmin", "argmax",
    "any", "all", "cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "nansum",
    "nanprod", "nanmean", "nanstd", "nanvar", "nanmin", "nanmax", "nanargmin", "nanargmax",
    "nancumsum", "nancumprod", "median", "nanmedian", "percentile", "nanpercentile",
    "quantile", "nanquantile", "ptp", "average", "count_nonzero",
]

_NoValue = np._NoValue
_builtin_all = all
_builtin_max = max


# --- the two caches: NumPy's result dtypes and compiled kernels ------------------------------

@functools.lru_cache(maxsize=4096)
def _oracle(name: str, dtype: np.dtype, dtype_arg: Any = None, kwargs: tuple = ()) -> np.dtype:
    """The dtype NumPy's ``name`` returns for a one-element input of ``dtype``."""
    kw = dict(kwargs)
    if dtype_arg is not None:
        kw["dtype"] = dtype_arg
    q = kw.pop("q", None)
    sample = np.ones(1, dtype)
    args = (sample,) if q is None else (sample, _q_sample(q))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(getattr(np, name)(*args, **kw)).dtype


def _q_sample(q: Any) -> Any:
    kind, value = q
    return value(0.5 if value is float else 0) if kind == "weak" else np.zeros(1, value)


# The compiled-kernel cache lives in ``_impl.reductions``; lazy mode records its kernels.
def _jit(core: Any, static: tuple) -> Kernel:
    tr = _context.trace()
    if tr is not None:
        # npjax.jit: the FMA guard's zero is the program's input (-(-0.0)): a concrete one
        # was a constant, and a second program got the wrong arguments (x.var(keepdims=k))
        return Kernel(functools.partial(_raw._compiled(core, static), -tr.neg_zero))
    return Kernel(_raw._jit(core, static))


def _jit_plain(core: Any, static: tuple) -> Kernel:
    return Kernel(_raw._jit_plain(core, static))


def _raises_on(bad: Any) -> bool:
    """Whether NumPy raises on this data-dependent condition: one transfer, or inside
    ``npjax.jit`` a device-side check (False here; the call reruns eagerly and raises)."""
    tr = _context.trace()
    if tr is not None and isinstance(bad, jax.core.Tracer):
        tr.check(jnp.any(bad))
        return False
    return bool(bad)


# --- argument handling -----------------------------------------------------------------------

def _axes(axis: Any, ndim: int, bools: bool = False) -> tuple[int, ...]:
    """(``bools``: taken as 0 and 1, as NumPy's Python functions median/quantile/average do)"""
    return tuple(range(ndim)) if axis is None else reduction_axes(axis, ndim, bools)


def _mask(where: Any, shape: tuple) -> Any:
    if where is True or where is _NoValue:
        return None
    if isinstance(where, bool | np.bool_) and where:
        return None
    mask = to_jax(where_mask(where), current())
    if mask.dtype != _BOOL:
        raise TypeError(f"Cannot cast array data from dtype('{mask.dtype}') to dtype('bool') "
                        "according to the rule 'safe'")
    if np.broadcast_shapes(mask.shape, shape) != tuple(shape):
        raise ValueError(f"operands could not be broadcast together with shapes "
                         f"{tuple(shape)} {tuple(mask.shape)}")
    return mask


def _initial(initial: Any, dtype: np.dtype) -> Any:
    if initial is _NoValue or initial is None:
        return None
    if type(initial) is int:
        _dtypes.check_python_int(initial, dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(initial).astype(dtype)


def _finish(result: Any, out: Any, name: str, casting: str = "unsafe") -> Any:
    """Return the raw result, or write it into ``out`` (exact shape; NumPy's casting rule:
    "unsafe" for reductions, "same_kind" where NumPy ends with a ufunc writing into ``out``)."""
    if out is None:
        return result
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if not isinstance(out, ndarray):
        raise TypeError(f"npjax.{name}: 'out' must be an npjax array")
    if out.shape != tuple(result.shape):
        raise ValueError(f"output parameter for reduction operation {name} has the wrong "
                         f"shape: found {out.shape} but expected {tuple(result.shape)}")
    if casting != "unsafe" and not _dtypes.can_cast(result.dtype, out.dtype, casting):
        raise output_casting_error(name, casting, result.dtype, out.dtype)
    return write_out(out, result, "unsafe", name, _CAST_IN.get(name, "cast"))


# NumPy's reductions that cast into ``out`` inside their reduce loop (their floating-point
# warnings say "encountered in reduce"); the others cast after it ("in cast").
_CAST_IN = dict.fromkeys(("sum", "prod", "mean", "var"), "reduce")


def _inexact(dtype: np.dtype) -> bool:
    return dtype.kind in "fc"


def _ddof(ddof: Any, correction: Any) -> Any:
    if correction is not _NoValue:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        return correction
    return ddof


# --- public functions --------------------------------------------------------------------

def fold(a: Any, axes: tuple, keepdims: bool, op: str, res_dt: np.dtype, initial: Any,
         where: Any, nan_fill: Any = None) -> Any:
    """The one sum/product core (``sum``, ``prod``, ``nansum``, ``add.reduce``...): NumPy's
    order of operations, result of ``res_dt``."""
    static = (axes, keepdims, op, res_dt, nan_fill)
    if where is True and initial is _NoValue and (op == "add" or res_dt.kind != "c"):
        mask = init = None
        r = _jit_plain(_k_fold_plain, static)(a)
    else:
        mask, init = _mask(where, a.shape), _initial(initial, res_dt)
        r = _jit(_k_fold, static)(a, mask, init)
    _checks.fold(axes, op, nan_fill, a, mask, init, r)
    return r


def _fold_public(name: str, op: str, a: Any, axis: Any, dtype: Any, out: Any, keepdims: Any,
                 initial: Any, where: Any, nan_fill: Any = None) -> Any:
    res_dt = _oracle(name, a.dtype, dtype)
    if dtype is not None:  # NumPy's values (and warnings) for floats cast to integers
        a = precast(a, res_dt, where)
    r = fold(a, _axes(axis, a.ndim), keepdims is True, op, res_dt, initial, where, nan_fill)
    return _finish(r, out, name)


def precast(a: Any, dt: np.dtype, where: Any = True) -> Any:
    """``a`` cast to the loop dtype ``dt`` by ``_casts`` where JAX's cast is not NumPy's
    (elements ``where`` leaves out are cast as 0: they are not NumPy's to cast)."""
    if not _casts.needs_check(a.dtype, dt):
        return a
    if where is not True:
        a = jnp.where(_mask(where, a.shape), a, jnp.zeros((), a.dtype))
    return _casts.precast(a, dt)


@npfunc(scalar=True)
def sum(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
        keepdims: Any = False, initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.sum`` (NumPy's pairwise order for small float sums)."""
    return _fold_public("sum", "add", a, axis, dtype, out, keepdims, initial, where)


@npfunc(scalar=True)
def prod(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
         keepdims: Any = False, initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.prod``."""
    return _fold_public("prod", "mul", a, axis, dtype, out, keepdims, initial, where)


@npfunc(scalar=True)
def nansum(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
           keepdims: Any = False, initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.nansum``."""
    return _fold_public("nansum", "add", a, axis, dtype, out, keepdims, initial, where, 0)


@npfunc(scalar=True)
def nanprod(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
            keepdims: Any = False, initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.nanprod``."""
    return _fold_public("nanprod", "mul", a, axis, dtype, out, keepdims, initial, where, 1)


def _mean_dtypes(a_dt: np.dtype, dtype: Any) -> tuple[np.dtype, np.dtype]:
    res_dt = _oracle("mean", a_dt, dtype)
    if dtype is not None:
        return dtype, res_dt
    return (_F64 if a_dt.kind in "biu" else _F32 if a_dt == _F16 else a_dt), res_dt


@npfunc(scalar=True)
def mean(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
         keepdims: Any = False, *, where: Any = True) -> Any:
    """npjax implementation of ``numpy.mean`` (sum in NumPy's order, then divide)."""
    axes = _axes(axis, a.ndim)
    sum_dt, res_dt = _mean_dtypes(a.dtype, dtype)
    div_dt = sum_dt  # NumPy sums into ``out`` and divides there (``_methods._mean``)
    if isinstance(out, ndarray) and out.dtype.kind in "fc":
        div_dt = res_dt = out.dtype
    mask = _mask(where, a.shape)
    n = _raw.counted_in_int32(a, axes) if mask is None and dtype is None and out is None else 0
    if n:  # (its sum counted on the accelerator, divided on the host: no flag, no warning)
        s = _jit_plain(_k_int_sum, (axes, keepdims is True))(a)
        return _finish(_jit_plain(_k_mean_of_sum, (n, div_dt, res_dt))(s), out, "mean")
    kernel = _jit_plain(_k_mean, (axes, keepdims is True, sum_dt, res_dt, div_dt))
    r = kernel(a) if mask is None else kernel(a, mask)
    _checks.mean(axes, np.dtype(sum_dt), a, mask, r, _scalar(out, keepdims, axes, a.ndim))
    return _finish(r, out, "mean")


def _scalar(out: Any, keepdims: Any, axes: tuple, ndim: int) -> bool:
    """Whether NumPy's reduction gives a NumPy scalar (its divisions are then scalar math)."""
    return out is None and keepdims is not True and len(axes) == ndim


def _var_public(name: str, a: Any, axis: Any, dtype: Any, out: Any, ddof: Any,
                keepdims: Any, where: Any, mean: Any, correction: Any, root: bool,
                nan: bool) -> Any:
    axes = _axes(axis, a.ndim)
    ddof = _ddof(ddof, correction)
    res_dt = _oracle(name, a.dtype, dtype)
    mask = _mask(where, a.shape)
    m = None if mean is _NoValue or mean is None else to_jax(mean, current())
    if nan and _inexact(a.dtype):
        if dtype is not None and not _inexact(dtype):
            raise TypeError("If a is inexact, then dtype must be inexact")
        if out is not None and not _inexact(out.dtype):
            raise TypeError("If a is inexact, then out must be inexact")
        core = _k_nanvar
    else:
        core = _k_var
    if dtype is None and a.dtype.kind in "biu":
        dtype = _F64
    r = _jit(core, (axes, keepdims is True, dtype, ddof, res_dt, root))(a, mask, m)
    comp_dt = np.dtype(dtype if dtype is not None else a.dtype)
    if core is _k_nanvar:
        _checks.nanvar(axes, ddof, comp_dt, a, mask, m, r)
    else:
        _checks.var(axes, ddof, comp_dt, a, mask, m, r, _scalar(out, keepdims, axes, a.ndim))
    return _finish(r, out, "sqrt" if root else name, "same_kind" if root else "unsafe")


@npfunc(scalar=True)
def var(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None, ddof: Any = 0,
        keepdims: Any = False, *, where: Any = True, mean: Any = _NoValue,
        correction: Any = _NoValue) -> Any:
    """npjax implementation of ``numpy.var``."""
    return _var_public("var", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                       False, False)


@npfunc(scalar=True)
def std(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None, ddof: Any = 0,
        keepdims: Any = False, *, where: Any = True, mean: Any = _NoValue,
        correction: Any = _NoValue) -> Any:
    """npjax implementation of ``numpy.std``."""
    return _var_public("std", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                       True, False)


@npfunc(scalar=True)
def nanvar(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
           ddof: Any = 0, keepdims: Any = False, *, where: Any = True, mean: Any = _NoValue,
           correction: Any = _NoValue) -> Any:
    """npjax implementation of ``numpy.nanvar``."""
    return _var_public("nanvar", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                       False, True)


@npfunc(scalar=True)
def nanstd(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
           ddof: Any = 0, keepdims: Any = False, *, where: Any = True, mean: Any = _NoValue,
           correction: Any = _NoValue) -> Any:
    """npjax implementation of ``numpy.nanstd``."""
    return _var_public("nanstd", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                       True, True)


@npfunc(scalar=True)
def nanmean(a: ArrayIn, axis: Any = None, dtype: DTypeIn = None, out: Any = None,
            keepdims: Any = False, *, where: Any = True) -> Any:
    """npjax implementation of ``numpy.nanmean``."""
    if not _inexact(a.dtype):
        return mean.__wrapped__(a, axis, dtype, out, keepdims, where=where)
    if dtype is not None and not _inexact(dtype):
        raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and not _inexact(out.dtype):
        raise TypeError("If a is inexact, then out must be inexact")
    axes = _axes(axis, a.ndim)
    res_dt = _oracle("nanmean", a.dtype, dtype)
    sum_dt = dtype if dtype is not None else a.dtype
    mask = _mask(where, a.shape)
    r = _jit_plain(_k_nanmean, (axes, keepdims is True, sum_dt, res_dt))(a, mask)
    _checks.nanmean(axes, np.dtype(sum_dt), a, mask, r)
    return _finish(r, out, "nanmean")


def _minmax_public(name: str, a: Any, axis: Any, out: Any, keepdims: Any, initial: Any,
                   where: Any, is_max: bool, ignore_nan: bool) -> Any:
    axes = _axes(axis, a.ndim)
    init = _initial(initial, a.dtype)
    ufunc = ("fmax" if is_max else "fmin") if ignore_nan else ("maximum" if is_max else
                                                               "minimum")
    mask = _mask(where, a.shape)
    if init is None:
        if mask is not None:
            raise ValueError(f"reduction operation '{ufunc}' does not have an identity, so "
                             "to use a where mask one has to specify 'initial'")
        if math.prod(a.shape[i] for i in axes) == 0:
            raise ValueError(f"zero-size array to reduction operation {ufunc} which has no "
                             "identity")
    static = (axes, keepdims is True, is_max, ignore_nan)
    if mask is None and init is None:
        r = _jit_plain(_k_minmax_plain, static)(a)
    else:
        r = _jit_plain(_k_minmax, static)(a, mask, init)
    if ignore_nan:
        _checks.nan_result(r)
    return _finish(r, out, name)


@npfunc(scalar=True)
def max(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False,
        initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.max`` (NaN propagates; complex is lexicographic)."""
    return _minmax_public("max", a, axis, out, keepdims, initial, where, True, False)


@npfunc(scalar=True)
def min(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False,
        initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.min`` (NaN propagates; complex is lexicographic)."""
    return _minmax_public("min", a, axis, out, keepdims, initial, where, False, False)


@npfunc(scalar=True)
def amax(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False,
         initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.amax`` (alias of ``max``)."""
    return _minmax_public("amax", a, axis, out, keepdims, initial, where, True, False)


@npfunc(scalar=True)
def amin(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False,
         initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.amin`` (alias of ``min``)."""
    return _minmax_public("amin", a, axis, out, keepdims, initial, where, False, False)


@npfunc(scalar=True)
def nanmax(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False,
           initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.nanmax``."""
    return _minmax_public("nanmax", a, axis, out, keepdims, initial, where, True, True)


@npfunc(scalar=True)
def nanmin(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False,
           initial: Any = _NoValue, where: Any = True) -> Any:
    """npjax implementation of ``numpy.nanmin``."""
    return _minmax_public("nanmin", a, axis, out, keepdims, initial, where, False, True)


def _arg_public(name: str, a: Any, axis: Any, out: Any, keepdims: Any, is_max: bool,
                ignore_nan: bool) -> Any:
    if ignore_nan and a.dtype.kind in "fc" and a.size and isinstance(axis, tuple | list):
        normalize_axes(axis, a.ndim)  # NumPy's all-NaN check sees the tuple first
    ax = None if axis is None else normalize_axis(axis, a.ndim)
    n = a.size if ax is None else a.shape[ax]
    if n == 0:
        raise ValueError(f"attempt to get {'argmax' if is_max else 'argmin'} of an empty "
                         "sequence")
    if ignore_nan and a.dtype.kind in "fc":
        if _raises_on(_jit_plain(_k_allnan, (ax,))(a)):
            raise ValueError("All-NaN slice encountered")
    if out is not None and getattr(out, "dtype", _INTP).kind not in "iu":
        raise TypeError(f"Cannot cast array data from dtype('{out.dtype}') to "
                        "dtype('int64') according to the rule 'safe'")
    r = _jit_plain(_k_arg, (is_max, ax, keepdims is True, ignore_nan))(a)
    return _finish(r, out, name)


@npfunc(scalar=True)
def argmax(a: ArrayIn, axis: AxisIn = None, out: Any = None, *, keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.argmax`` (first NaN wins, as in NumPy)."""
    return _arg_public("argmax", a, axis, out, keepdims, True, False)


@npfunc(scalar=True)
def argmin(a: ArrayIn, axis: AxisIn = None, out: Any = None, *, keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.argmin`` (first NaN wins, as in NumPy)."""
    return _arg_public("argmin", a, axis, out, keepdims, False, False)


@npfunc(scalar=True)
def nanargmax(a: ArrayIn, axis: IntAxisIn = None, out: Any = None, *, keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.nanargmax`` (the all-NaN check reads one flag back)."""
    return _arg_public("nanargmax", a, axis, out, keepdims, True, True)


@npfunc(scalar=True)
def nanargmin(a: ArrayIn, axis: IntAxisIn = None, out: Any = None, *, keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.nanargmin`` (the all-NaN check reads one flag back)."""
    return _arg_public("nanargmin", a, axis, out, keepdims, False, True)


def _anyall(name: str, a: Any, axis: Any, out: Any, keepdims: Any, where: Any,
            is_any: bool) -> Any:
    axes = _axes(axis, a.ndim)
    r = _jit_plain(_k_anyall, (axes, keepdims is True, is_any))(a, _mask(where, a.shape))
    return _finish(r, out, name)


@npfunc(scalar=True)
def any(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False, *,
        where: Any = True) -> Any:
    """npjax implementation of ``numpy.any``."""
    return _anyall("any", a, axis, out, keepdims, where, True)


@npfunc(scalar=True)
def all(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False, *,
        where: Any = True) -> Any:
    """npjax implementation of ``numpy.all``."""
    return _anyall("all", a, axis, out, keepdims, where, False)


def _cum_public(name: str, op: str, a: Any, axis: Any, dtype: Any, out: Any,
                nan_fill: Any = None, include_initial: bool = False,
                array_api: bool = False) -> Any:
    if array_api:
        if a.ndim == 0:
            a = a.reshape(1)
        if axis is None:
            if a.ndim >= 2:
                raise ValueError("For arrays which have more than one dimension ``axis`` "
                                 "argument is required.")
            axis = 0
    ax = None if axis is None else normalize_axis(axis, _builtin_max(a.ndim, 1))
    if ax is not None and a.ndim == 0:
        a = a.reshape(1)
    res_dt = _oracle(name, a.dtype, dtype)
    if dtype is not None:
        a = precast(a, res_dt)
    jit = _jit if op == "mul" and res_dt.kind == "c" else _jit_plain
    r = jit(_k_accumulate, (ax, op, res_dt, nan_fill, bool(include_initial)))(a)
    _checks.accumulate(ax, nan_fill, include_initial, a, r)
    return _finish(r, out, name)


@npfunc
def cumsum(a: ArrayIn, axis: AxisIn = None, dtype: DTypeIn = None, out: Any = None) -> Any:
    """npjax implementation of ``numpy.cumsum`` (sequential, as NumPy's accumulate)."""
    return _cum_public("cumsum", "add", a, axis, dtype, out)


@npfunc
def cumprod(a: ArrayIn, axis: AxisIn = None, dtype: DTypeIn = None, out: Any = None) -> Any:
    """npjax implementation of ``numpy.cumprod``."""
    return _cum_public("cumprod", "mul", a, axis, dtype, out)


@npfunc
def nancumsum(a: ArrayIn, axis: AxisIn = None, dtype: DTypeIn = None, out: Any = None) -> Any:
    """npjax implementation of ``numpy.nancumsum``."""
    return _cum_public("nancumsum", "add", a, axis, dtype, out, nan_fill=0)


@npfunc
def nancumprod(a: ArrayIn, axis: AxisIn = None, dtype: DTypeIn = None, out: Any = None) -> Any:
    """npjax implementation of ``numpy.nancumprod``."""
    return _cum_public("nancumprod", "mul", a, axis, dtype, out, nan_fill=1)


@npfunc
def cumulative_sum(x: ArrayIn, /, *, axis: IntAxisIn = None, dtype: DTypeIn = None, out: Any = None,
                   include_initial: bool = False) -> Any:
    """npjax implementation of ``numpy.cumulative_sum``."""
    return _cum_public("cumulative_sum", "add", x, axis, dtype, out,
                       include_initial=include_initial, array_api=True)


@npfunc
def cumulative_prod(x: ArrayIn, /, *, axis: IntAxisIn = None, dtype: DTypeIn = None,
                    out: Any = None, include_initial: bool = False) -> Any:
    """npjax implementation of ``numpy.cumulative_prod``."""
    return _cum_public("cumulative_prod", "mul", x, axis, dtype, out,
                       include_initial=include_initial, array_api=True)


@npfunc(scalar=True)
def ptp(a: ArrayIn, axis: Any = None, out: Any = None, keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.ptp`` (``max - min`` in the input dtype)."""
    axes = _axes(axis, a.ndim)
    if math.prod(a.shape[i] for i in axes) == 0:
        raise ValueError("zero-size array to reduction operation maximum which has no "
                         "identity")
    _oracle("ptp", a.dtype)  # bool raises TypeError as in NumPy
    r = _jit_plain(_k_ptp, (axes, keepdims is True))(a)
    _checks.ptp(axes, a, r)
    return _finish(r, out, "subtract", "same_kind")


@npfunc(scalar=True)
def count_nonzero(a: ArrayIn, axis: Any = None, *, keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.count_nonzero``."""
    return _jit_plain(_k_count_nonzero, (_axes(axis, a.ndim), keepdims is True))(a)


def _check_ureduce_empty(a: Any, axes: tuple, axis: Any) -> None:
    """NumPy's ``_ureduce`` merges several reduced axes with ``reshape(kept + (-1,))``,
    which fails for an empty array whose kept dimensions hold a zero."""
    if axis is None or len(axes) == 1 or a.size:
        return
    kept = tuple(n for i, n in enumerate(a.shape) if i not in axes)
    if math.prod(kept) == 0:
        raise ValueError(f"cannot reshape array of size 0 into shape {kept + (-1,)}")


def _median_public(name: str, a: Any, axis: Any, out: Any, keepdims: Any, nan: bool) -> Any:
    axes = _axes(axis, a.ndim, bools=True)
    if nan and a.size == 0:
        return nanmean.__wrapped__(a, axis, None, out, keepdims)
    _check_ureduce_empty(a, axes, axis)
    res_dt = _oracle(name, a.dtype)
    if nan and a.dtype.kind in "fc":
        # NumPy's small-axis nanmedian goes through numpy.ma (pairs summed in the dtype)
        ma_pairs = axis is not None and a.ndim > 1 and math.prod(a.shape[i] for i in axes) < 600
        core = _k_nanmedian
    else:
        ma_pairs = False
        core = _k_median
    r = _jit_plain(core, (axes, keepdims is True, res_dt, ma_pairs))(a)
    if nan:
        _checks.all_nan_slices(axes, a, r)
    elif math.prod(a.shape[i] for i in axes) == 0:
        _checks.empty_mean(r.size, _scalar(out, keepdims, axes, a.ndim), res_dt)
    return _ureduce_result(r, out, name, keepdims)


def _ureduce_result(r: Any, out: Any, name: str, keepdims: Any, casting: str = "unsafe",
                    array: bool = False) -> Any:
    """NumPy's ``_ureduce`` re-indexes a keepdims result, so it is always an array."""
    if out is None and (keepdims is True or array):
        return ndarray._owner(r)
    return _finish(r, out, "add" if casting != "unsafe" else name, casting)


@npfunc(scalar=True)
def median(a: ArrayIn, axis: Any = None, out: Any = None, overwrite_input: bool = False,
           keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.median`` (``overwrite_input`` has no effect)."""
    return _median_public("median", a, axis, out, keepdims, False)


@npfunc(scalar=True)
def nanmedian(a: ArrayIn, axis: Any = None, out: Any = None, overwrite_input: bool = False,
              keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.nanmedian`` (``overwrite_input`` has no effect)."""
    return _median_public("nanmedian", a, axis, out, keepdims, True)


def _q_host(q: Any) -> np.ndarray:
    if isinstance(q, ndarray):
        return np.asarray(q)
    return np.asanyarray(q)


def _valid_q(q: np.ndarray) -> bool:
    with np.errstate(invalid="ignore"):
        if q.ndim == 1 and q.size < 10:
            return _builtin_all(0.0 <= v <= 1.0 for v in q)
        return bool(q.min() >= 0 and q.max() <= 1) if q.size else True


def _quantile_public(name: str, a: Any, q: Any, axis: Any, out: Any, method: Any,
                     keepdims: Any, weights: Any, percent: bool, nan: bool) -> Any:
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    weak = type(q) in (int, float)
    qh = _q_host(q)
    if percent:
        with np.errstate(all="ignore"):
            qh = np.true_divide(qh, 100)
    if not _valid_q(qh):
        raise ValueError("Percentiles must be in the range [0, 100]" if percent else
                         "Quantiles must be in the range [0, 1]")
    if method not in _METHODS:
        if not isinstance(method, str):
            raise NotImplementedError(f"npjax.{name}: parameter 'method' value {method!r} "
                                      "is not supported")
        raise ValueError(f"{method!r} is not a valid method. Use one of: {_METHODS}")
    if qh.ndim > 2:  # NumPy's own limit (its message says "scalar or 1d")
        raise ValueError("q must be a scalar or 1d")
    axes = _axes(axis, a.ndim, bools=True)
    if nan and a.size == 0:
        return nanmean.__wrapped__(a, axis, None, out, keepdims)
    _check_ureduce_empty(a, axes, axis)
    if math.prod(a.shape[i] for i in axes) == 0 and qh.size:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    q_key = ("weak", type(q)) if weak else ("arr", qh.dtype)
    kw = (("q", q_key), ("method", method)) + ((("weights", None),) if weights is None else ())
    policy = current()
    if weights is not None:
        if method != "inverted_cdf":
            raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
        w = to_jax(weights, policy)
        if tuple(w.shape) != a.shape:
            if axis is None:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            given = normalize_axes(axis, a.ndim)
            if tuple(w.shape) != tuple(a.shape[i] for i in given):
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            w = jnp.transpose(w, np.argsort(given)).reshape(
                tuple(n if i in given else 1 for i, n in enumerate(a.shape)))
        if bool(jnp.any(w < 0)):
            raise ValueError("Weights must be non-negative.")
        res_dt = a.dtype
    else:
        res_dt = _oracle(name, a.dtype, None, kw)
    qj = to_jax(qh, policy)
    if weights is not None:
        r, bad = _jit(_k_quantile_weighted, (res_dt, nan, qh.ndim, keepdims is True, axes))(
            a, w, qj)
        if nan:
            _checks.all_nan_slices(axes, a, r)
        if bool(bad):
            raise ValueError("Weights included NaN, inf or were all zero.")
        # NumPy's weighted result is an array, except the NaN element it returns as is
        scalar_nan = r.ndim == 0 and a.dtype.kind == "f" and not keepdims and bool(
            jnp.all(jnp.isnan(a)) if nan else jnp.any(jnp.isnan(a)))
        return _ureduce_result(r, out, name, keepdims, array=not scalar_nan)
    static = (method, weak, res_dt, nan, qh.dtype, qh.ndim, keepdims is True, axes)
    r = _jit(_k_quantile, static)(a, qj)
    if nan:
        _checks.all_nan_slices(axes, a, r)
    if r.ndim == 0 and a.dtype.kind == "f" and res_dt != a.dtype:
        # NumPy returns the NaN element itself (the input's dtype) for a scalar result of a
        # slice holding NaN (all-NaN for the nan-variants): read one flag back to match.
        flag = jnp.all(jnp.isnan(a)) if nan else jnp.any(jnp.isnan(a))
        if bool(flag):
            r = r.astype(a.dtype)
    continuous = method not in _DISCRETE and not (method == "linear" and qh.dtype.kind in "iub")
    return _ureduce_result(r, out, name, keepdims,
                           "same_kind" if continuous and not nan else "unsafe")


@npfunc(scalar=True)
def percentile(a: ArrayIn, q: Any, axis: Any = None, out: Any = None,
               overwrite_input: bool = False, method: str = "linear", keepdims: Any = False,
               *, weights: Any = None) -> Any:
    """npjax implementation of ``numpy.percentile`` (all 13 NumPy methods).

    ``q`` is read on the host (its range is checked as NumPy does).
    """
    return _quantile_public("percentile", a, q, axis, out, method, keepdims, weights, True,
                            False)


@npfunc(scalar=True)
def quantile(a: ArrayIn, q: Any, axis: Any = None, out: Any = None,
             overwrite_input: bool = False, method: str = "linear", keepdims: Any = False,
             *, weights: Any = None) -> Any:
    """npjax implementation of ``numpy.quantile`` (all 13 NumPy methods)."""
    return _quantile_public("quantile", a, q, axis, out, method, keepdims, weights, False,
                            False)


@npfunc(scalar=True)
def nanpercentile(a: ArrayIn, q: Any, axis: Any = None, out: Any = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: Any = False, *, weights: Any = None) -> Any:
    """npjax implementation of ``numpy.nanpercentile``."""
    return _quantile_public("nanpercentile", a, q, axis, out, method, keepdims, weights,
                            True, True)


@npfunc(scalar=True)
def nanquantile(a: ArrayIn, q: Any, axis: Any = None, out: Any = None,
                overwrite_input: bool = False, method: str = "linear",
                keepdims: Any = False, *, weights: Any = None) -> Any:
    """npjax implementation of ``numpy.nanquantile``."""
    return _quantile_public("nanquantile", a, q, axis, out, method, keepdims, weights,
                            False, True)


@npfunc(scalar=True)
def average(a: ArrayIn, axis: Any = None, weights: Any = None, returned: bool = False, *,
            keepdims: Any = False) -> Any:
    """npjax implementation of ``numpy.average`` (zero weight sums raise after one read-back)."""
    if weights is None:  # (NumPy's average reads booleans in ``axis`` as 0 and 1)
        avg = mean.__wrapped__(a, None if axis is None else normalize_axes(axis, a.ndim), None,
                               None, keepdims)
        if avg.size == 0:
            raise ZeroDivisionError("division by zero")
        scl = jnp.full(avg.shape, a.size / avg.size, avg.dtype)
        return (avg, scl) if returned else avg
    given = None if axis is None else normalize_axes(axis, a.ndim)
    w = to_jax(weights, current())
    if tuple(w.shape) != a.shape:
        if given is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if tuple(w.shape) != tuple(a.shape[i] for i in given):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        w = jnp.transpose(w, np.argsort(given)).reshape(
            tuple(n if i in given else 1 for i, n in enumerate(a.shape)))
    if a.dtype.kind in "biu":
        rd = _dtypes.result_type(a.dtype, w.dtype, _F64)
    else:
        rd = _dtypes.result_type(a.dtype, w.dtype)
    axes = _axes(axis, a.ndim, bools=True)
    avg, scl, zero = _jit(_k_average, (axes, keepdims is True, rd))(a, w)
    if _raises_on(zero):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    if returned:
        if scl.shape != avg.shape:
            scl = jnp.broadcast_to(scl, avg.shape)
        return avg, scl
    return avg


# ndarray methods: exactly the reductions NumPy's ndarray has as methods
_METHOD_NAMES = ("sum", "prod", "mean", "std", "var", "min", "max", "argmin", "argmax", "any",
                 "all", "cumsum", "cumprod")


def _sum_method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
    """npjax implementation of ``numpy.ndarray.sum`` (a window: its bucket's; keywords_of)."""
    got = None if args or kwargs or self._base is None else _window_reads.one(self)
    return sum(self, *args, **kwargs) if got is None else \
        _window_reads.summed(sum(ndarray._owner(got[0])), *got)


_sum_method.keywords_of = sum
install_methods({name: globals()[name] for name in _METHOD_NAMES
                 if hasattr(np.ndarray, name)} | {"sum": _sum_method})
