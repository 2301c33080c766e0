"""Mask reads of traced values under ``npjax.jit``: masked values.

``x[m]`` has as many elements as ``m`` selects, so when ``m`` is traced its shape is not known
while tracing. Code such as ``x[m] = x[m] * 2 + 1``, ``x[m] += 1``,
``inv_r3[inv_r3 > 0] = inv_r3[inv_r3 > 0] ** -1.5``, ``np.sum(x[x > 0])`` or ``x[m].max()``
never needs that shape: each element is computed on its own, then written back under a mask
or reduced. Under a trace such a read returns a ``MaskedValue``: the array at its full shape
(``mask.shape + rest``) and the mask. Elementwise work (operators, ufuncs, ``astype``,
``where``/``clip``...) runs on the full array with NumPy's semantics (npjax's own ufuncs: same
dtypes, casts and error-state checks) and keeps the mask; ``y[m] = value`` is a ``where``;
reductions are masked reductions (npjax's ``where=`` reductions; ``min``/``max``/``argmax``
on the full array, see below). No program depends on the count: one compile for any count.

Why this is exact (the smallest design found that is):
- Elements are paired by position, so two masked values combine only when their masks are
  equal: the same traced mask object, or else a device-side check (``trace.check``) that
  the masks are equal elementwise. When they are not, the call reruns eagerly (NumPy
  semantics, NumPy's errors at the user's line), like a failed index-bounds check. Masks of
  other shapes, or a masked value with an operand whose broadcasting would involve the
  count, raise ``CountNeeded`` (``npjax.JitError`` naming the line).
- The unselected elements of the full array are filled, at the read, with the first
  selected element (per trailing position). Every unselected result of an elementwise
  operation is then a copy of a selected result, so device-side checks on the whole array
  (floating-point error state, casts) see exactly what NumPy would see on the selection,
  and ``max``/``min`` of the full array are those of the selection (NaN included), with no
  identity needed. (With an empty selection the filler is arbitrary: a check it trips
  reruns the call eagerly, which is exact too.)
- Empty selections: ``max``/``min``/``argmax``/``argmin`` raise ``ValueError`` in NumPy,
  ``mean``/``var``/``std`` warn and give NaN: each is a device-side check on the count,
  so the eager rerun raises or warns as NumPy does.
- Float sums and means of a 1-d ``x[m]`` are NumPy's: its pairwise order over the
  selected elements, moved to the front. Other float sums and means are masked sums over
  the full array: the same values up to rounding (NumPy's order depends on the count).

Anything that needs the count (``shape``, ``len``, printing, ``float()``, concatenation,
returning the value from the jitted function, any function not handled here) raises
``CountNeeded``, which ``npjax.jit`` reports as ``JitError`` (or runs eagerly with
``fallback="eager"``).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._runtime import _context
from npjax._compile import _windows
from npjax._library import _reduction_checks
from npjax._calls._registry import public_module
from npjax._pure import _boolsums
from npjax._pure._errors import JitError
from npjax._calls._dispatch import DEFERRED
from npjax._placement._route import DEFERRED_UFUNC
from npjax._core._normalize import STAND_INS
from npjax._core._index_plan import _FULL
from npjax._core._index_values import _complex_warning, cast_device
from npjax._core._index_write import write_through
from npjax._core._ndarray import ndarray, normalize_axes
from npjax._calls._ufuncs import UFUNCS

_Tracer = jax.core.Tracer
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


class CountNeeded(JitError):
    """A masked read (``x[m]`` with a traced mask) was used where its count is needed."""


def _refuse(what: str) -> CountNeeded:
    return CountNeeded(f"{what} needs the number of elements a traced mask selects "
                       "(x[mask] under npjax.jit is usable elementwise, written back under "
                       "the same mask, or reduced)")


def _mask_of(items: list, kinds: list, shape: tuple) -> Any:
    """The mask (a jax value) when the index is one boolean array over the leading axes with
    full slices after it, else None."""
    if not items or kinds[0] != "array":
        return None
    mask = items[0]
    if not isinstance(mask, ndarray | np.ndarray | jax.Array) or mask.dtype != np.bool_ \
            or mask.ndim == 0:
        return None
    if any(k != "slice" or it != _FULL for k, it in zip(kinds[1:], items[1:])):
        return None
    if tuple(mask.shape) != tuple(shape[:mask.ndim]):
        return None  # the general path raises NumPy's IndexError
    if isinstance(mask, ndarray):
        return mask._read()
    return jnp.asarray(mask)


def _fill_first(x: jax.Array, m: jax.Array) -> jax.Array:
    """``x`` with the unselected elements replaced by the first selected one (per trailing
    position; the first element when none is selected)."""
    n = m.ndim
    rest = x.shape[n:]
    if x.size == 0:
        return x
    first = jnp.argmax(m.ravel())
    row = x.reshape((m.size,) + rest)[first]
    return jnp.where(m.reshape(m.shape + (1,) * len(rest)), x, row)


class MaskedValue:
    """``x[mask]`` under ``npjax.jit`` with a traced mask (see the module docstring)."""

    __slots__ = ("full", "mask")
    __array_priority__ = 200.0
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, full: ndarray, mask: jax.Array) -> None:
        self.full = full  # an npjax array of shape mask.shape + rest
        self.mask = mask  # a jax bool array

    # --- what is known without the count ------------------------------------------------

    @property
    def dtype(self) -> np.dtype:
        return self.full.dtype

    @property
    def ndim(self) -> int:
        return 1 + self.full.ndim - self.mask.ndim

    @property
    def _rest(self) -> tuple:
        return tuple(self.full.shape[self.mask.ndim:])

    def __repr__(self) -> str:
        return (f"<npjax masked read under npjax.jit: dtype {self.dtype}, shape "
                f"(count,) + {self._rest}>")

    # --- what needs the count -------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        if name.startswith(("__array", "__jax", "__dlpack")):
            raise _refuse("converting x[mask] to an array")
        raise _refuse(f"x[mask].{name}")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise _refuse("converting x[mask] to an array")

    def __str__(self) -> str:
        raise _refuse("printing x[mask]")

    def __format__(self, spec: str) -> str:
        raise _refuse("formatting x[mask]")

    def __len__(self) -> int:
        raise _refuse("len(x[mask])")

    def __iter__(self) -> Any:
        raise _refuse("iterating over x[mask]")

    def __bool__(self) -> bool:
        raise _refuse("bool(x[mask])")

    def __float__(self) -> float:
        raise _refuse("float(x[mask])")

    def __int__(self) -> int:
        raise _refuse("int(x[mask])")

    def __index__(self) -> int:
        raise _refuse("x[mask] as an index")

    def __getitem__(self, index: Any) -> Any:
        """``x[m][b]`` with ``b`` a boolean masked value of the same mask (``x[m] > 0``):
        the elements of ``x`` under both masks, in NumPy's order (C order of ``x``)."""
        if type(index) is tuple and len(index) == 1:
            index = index[0]
        if type(index) is MaskedValue and index.dtype == np.bool_:
            inner = index.full._read()
            n, k = self.mask.ndim, index.full.ndim
            if k <= self.full.ndim and tuple(inner.shape) == tuple(self.full.shape[:k]):
                m = _same_mask(self.mask, index.mask)
                both = m.reshape(m.shape + (1,) * (k - n)) & inner
                return MaskedValue(ndarray._owner(_fill_first(self.full._read(), both)), both)
        items = index if type(index) is tuple else (index,)
        if items and (items[0] is Ellipsis or (type(items[0]) is slice and items[0] == _FULL)):
            # x[m][:, k] and x[m][..., k]: basic indexing of the trailing axes only
            rest_items = items if items[0] is Ellipsis else items[1:]
            basic = all(it is None or it is Ellipsis or type(it) is slice or (
                isinstance(it, int | np.integer) and not isinstance(it, bool))
                for it in rest_items)
            used = sum(it is not None and it is not Ellipsis for it in rest_items)
            if basic and used <= len(self._rest) and list(items).count(Ellipsis) <= 1:
                full = self.full[(_FULL,) * self.mask.ndim + tuple(rest_items)]
                return _wrap(full, self.mask)
        raise _refuse("indexing x[mask]")

    def __setitem__(self, index: Any, value: Any) -> None:
        raise _refuse("writing into x[mask]")

    @property
    def shape(self) -> tuple:
        raise _refuse("x[mask].shape")

    @property
    def size(self) -> int:
        raise _refuse("x[mask].size")

    # --- elementwise --------------------------------------------------------------------

    def astype(self, dtype: Any, order: str = "K", casting: str = "unsafe",
               subok: bool = True, copy: bool = True) -> MaskedValue:
        return MaskedValue(self.full.astype(dtype, order, casting, subok, copy), self.mask)

    def copy(self, order: str = "C") -> MaskedValue:
        return self

    @property
    def real(self) -> MaskedValue:
        return MaskedValue(self.full.real, self.mask)

    @property
    def imag(self) -> MaskedValue:
        return MaskedValue(self.full.imag, self.mask)

    def conj(self) -> MaskedValue:
        return MaskedValue(self.full.conj(), self.mask)

    conjugate = conj

    def round(self, decimals: int = 0) -> MaskedValue:
        return MaskedValue(self.full.round(decimals), self.mask)

    def clip(self, min: Any = None, max: Any = None, **kwargs: Any) -> MaskedValue:
        return elementwise(lambda a, lo, hi: a.clip(lo, hi, **kwargs), (self, min, max))

    # --- reductions ---------------------------------------------------------------------

    def sum(self, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: bool = False, initial: Any = np._NoValue, where: Any = True) -> Any:
        return _reduce(self, "sum", axis, keepdims, out, where, dtype=dtype, initial=initial)

    def prod(self, axis: Any = None, dtype: Any = None, out: Any = None,
             keepdims: bool = False, initial: Any = np._NoValue, where: Any = True) -> Any:
        return _reduce(self, "prod", axis, keepdims, out, where, dtype=dtype, initial=initial)

    def mean(self, axis: Any = None, dtype: Any = None, out: Any = None,
             keepdims: bool = False, *, where: Any = True) -> Any:
        return _reduce(self, "mean", axis, keepdims, out, where, dtype=dtype)

    def var(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
            keepdims: bool = False, *, where: Any = True, mean: Any = np._NoValue,
            correction: Any = np._NoValue) -> Any:
        return _var(self, "var", axis, dtype, out, ddof, keepdims, where, mean, correction)

    def std(self, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
            keepdims: bool = False, *, where: Any = True, mean: Any = np._NoValue,
            correction: Any = np._NoValue) -> Any:
        return _var(self, "std", axis, dtype, out, ddof, keepdims, where, mean, correction)

    def any(self, axis: Any = None, out: Any = None, keepdims: bool = False, *,
            where: Any = True) -> Any:
        return _reduce(self, "any", axis, keepdims, out, where)

    def all(self, axis: Any = None, out: Any = None, keepdims: bool = False, *,
            where: Any = True) -> Any:
        return _reduce(self, "all", axis, keepdims, out, where)

    def max(self, axis: Any = None, out: Any = None, keepdims: bool = False,
            initial: Any = np._NoValue, where: Any = True) -> Any:
        return _minmax(self, "max", axis, out, keepdims, initial, where)

    def min(self, axis: Any = None, out: Any = None, keepdims: bool = False,
            initial: Any = np._NoValue, where: Any = True) -> Any:
        return _minmax(self, "min", axis, out, keepdims, initial, where)

    def argmax(self, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
        return _arg(self, "argmax", axis, out, keepdims)

    def argmin(self, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
        return _arg(self, "argmin", axis, out, keepdims)

    def count_nonzero(self, axis: Any = None, *, keepdims: bool = False) -> Any:
        zero = jnp.zeros((), self.dtype)
        plain = ndarray._owner(jnp.where(self._broad_mask(), self.full._read(), zero))
        return self._finish(public_module().count_nonzero, plain, axis, keepdims, {})

    # --- helpers ------------------------------------------------------------------------

    def _broad_mask(self) -> jax.Array:
        return self.mask.reshape(self.mask.shape + (1,) * len(self._rest))

    def _axes(self, axis: Any) -> tuple[tuple, bool]:
        """The full array's axes for ``axis`` of the masked value, and whether they include
        the mask's axes (the count's axis)."""
        nd, n = self.ndim, self.mask.ndim
        axes = tuple(range(nd)) if axis is None else normalize_axes(axis, nd)
        counted = 0 in axes
        full = (tuple(range(n)) if counted else ()) + tuple(a - 1 + n for a in axes if a)
        return full, counted

    def _finish(self, fn: Any, plain: ndarray, axis: Any, keepdims: bool, kwargs: dict) -> Any:
        """``fn`` (an npjax reduction) over ``plain`` (the full array, prepared) along the
        axes of ``axis``: an npjax result, or a masked value when the count's axis stays."""
        full_axes, counted = self._axes(axis)
        with _reduction_checks.unchecked():  # lanes outside the mask are not NumPy's
            r = fn(plain, axis=full_axes, keepdims=keepdims, **kwargs)
        if not counted:
            return MaskedValue(r, self.mask)
        if keepdims and self.mask.ndim > 1:
            r = r.reshape((1,) + r.shape[self.mask.ndim:])
        return r

    def count(self) -> jax.Array:
        return _boolsums.count(self.mask)


def _no_out(out: Any, where: Any) -> None:
    if out is not None:
        raise _refuse("out= for a reduction of x[mask]")
    if not (where is True or (isinstance(where, bool | np.bool_) and where)):
        raise _refuse("where= for a reduction of x[mask]")


def _check(bad: Any) -> None:
    _context.trace().check(bad)


def _reduce(mv: MaskedValue, name: str, axis: Any, keepdims: bool, out: Any, where: Any,
            **kwargs: Any) -> Any:
    """sum, prod, mean, any, all: npjax's reduction with ``where=`` the mask."""
    _no_out(out, where)
    if kwargs.get("initial", 1) is np._NoValue:
        del kwargs["initial"]
    fn = getattr(public_module(), name)
    _, counted = mv._axes(axis)
    if name == "mean":
        reduced = _reduced_rest(mv, axis)
        if counted:
            _check(mv.count() * reduced == 0)  # NumPy: "Mean of empty slice", nan
        elif reduced == 0:
            _check(True)
    mask = jnp.broadcast_to(mv._broad_mask(), mv.full.shape)
    r = mv._finish(fn, mv.full, axis, keepdims, dict(kwargs, where=ndarray._owner(mask)))
    if name not in ("sum", "mean") or not counted or mv._rest or kwargs.get("dtype") is not None \
            or "initial" in kwargs or r.dtype.kind not in "fc" or \
            mv.mask.size > _windows.PAIRWISE_MAX:
        return r
    # a 1-d x[m]: NumPy's pairwise order over the selected elements, moved to the front
    kind = mv.dtype.kind
    comp = _F64 if kind in "biu" else _F32 if mv.dtype == np.float16 else mv.dtype
    m = mv.mask.ravel()
    x = mv.full._read().ravel().astype(comp)
    slot = jnp.where(m, _boolsums.running_count(m) - 1, m.size)
    packed = jnp.zeros(m.size, comp).at[slot].set(x, mode="drop")
    count = mv.count()
    total = jnp.zeros((), comp) + _windows.pairwise(packed, count, comp.kind == "c")
    if name == "mean":  # NumPy divides by an intp count in float64 or complex128, then casts
        c = count.astype(_F64)
        if comp.kind == "c":  # NumPy's complex division by c + 0j (Smith's, ratio 0)
            re, im, scl = jnp.real(total).astype(_F64), jnp.imag(total).astype(_F64), 1.0 / c
            total = lax.complex((re + im * 0.0) * scl, (im - re * 0.0) * scl)
        else:
            total = total.astype(_F64) / c
    return ndarray._owner(total.astype(r.dtype).reshape(r.shape), scalar=r._scalar)


def _reduced_rest(mv: MaskedValue, axis: Any) -> int:
    """The number of elements of the trailing (unmasked) axes one result element reduces."""
    full_axes, _ = mv._axes(axis)
    n = mv.mask.ndim
    return math.prod(mv.full.shape[a] for a in full_axes if a >= n)


def _var(mv: MaskedValue, name: str, axis: Any, dtype: Any, out: Any, ddof: Any,
         keepdims: bool, where: Any, mean: Any, correction: Any) -> Any:
    npjax = public_module()  # the public namespace, registered at import

    _no_out(out, where)
    if mean is not np._NoValue:
        raise _refuse(f"{name}(mean=) of x[mask]")
    if correction is not np._NoValue:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    _, counted = mv._axes(axis)
    reduced = _reduced_rest(mv, axis)
    n = mv.count() * reduced if counted else reduced
    _check(n - ddof <= 0)  # NumPy: "Degrees of freedom <= 0", nan or inf
    mask = jnp.broadcast_to(mv._broad_mask(), mv.full.shape)
    return mv._finish(getattr(npjax, name), mv.full, axis, keepdims,
                      {"dtype": dtype, "ddof": ddof, "where": ndarray._owner(mask)})


def _filled(mv: MaskedValue) -> ndarray:
    return ndarray._owner(_fill_first(mv.full._read(), mv.mask))


def _minmax(mv: MaskedValue, name: str, axis: Any, out: Any, keepdims: bool, initial: Any,
            where: Any) -> Any:
    """max/min: the full array filled with selected elements has the selection's extremes."""
    npjax = public_module()  # the public namespace, registered at import

    _no_out(out, where)
    _, counted = mv._axes(axis)
    if initial is not np._NoValue:  # the identity given: a where= reduction
        mask = ndarray._owner(jnp.broadcast_to(mv._broad_mask(), mv.full.shape))
        return mv._finish(getattr(npjax, name), mv.full, axis, keepdims,
                          {"initial": initial, "where": mask})
    if counted:
        _check(mv.count() == 0)  # NumPy: ValueError, zero-size array to reduction
    return mv._finish(getattr(npjax, name), _filled(mv), axis, keepdims, {})


def _arg(mv: MaskedValue, name: str, axis: Any, out: Any, keepdims: bool) -> Any:
    """argmax/argmin: the first extreme of the filled full array is either selected or a
    copy of the first selected row's element (which comes first in the selection), so its
    position in the selection is the number of selected rows before it."""
    npjax = public_module()  # the public namespace, registered at import

    if out is not None:
        raise _refuse(f"{name}(out=) of x[mask]")
    n = mv.mask.ndim
    rest = mv._rest
    if axis is not None:
        ax = normalize_axes(axis, mv.ndim)[0]
        if ax:
            r = getattr(npjax, name)(mv.full, axis=ax - 1 + n, keepdims=keepdims)
            return MaskedValue(r, mv.mask)
    _check(mv.count() == 0)  # NumPy: ValueError, attempt to get argmax of an empty sequence
    filled = _filled(mv)._read()
    flat_mask = mv.mask.ravel()
    before = _boolsums.running_count(flat_mask) - flat_mask  # selected rows before each
    rows = filled.reshape((mv.mask.size,) + rest)
    big = getattr(npjax, name)  # NumPy's order: the first NaN wins, complex lexicographic
    if axis is None:
        size = math.prod(rest)
        if size == 0:  # NumPy: ValueError whatever the count
            _check(True)
            return ndarray._owner(jnp.zeros((1,) * mv.ndim if keepdims else (), np.intp),
                                  not keepdims)
        at = big(ndarray._owner(rows.reshape(-1)))._read()
        row, col = at // size, at % size
        r = (before[row] * size + col).astype(np.intp)
        if keepdims:
            r = r.reshape((1,) * mv.ndim)
    else:
        row = big(ndarray._owner(rows), axis=0)._read()
        r = before[row].astype(np.intp)
        if keepdims:
            r = r.reshape((1,) + rest)
    return ndarray._owner(r, r.ndim == 0)


# --- elementwise operations ----------------------------------------------------------------


def _same_mask(a: jax.Array | None, b: jax.Array) -> jax.Array:
    """The common mask of two operands: the same object, or equal elementwise (a device-side
    check: the call reruns eagerly when they differ)."""
    if a is None or a is b:
        return b
    if a.shape != b.shape:
        raise _refuse("combining reads of masks of different shapes")
    _check(_boolsums.any_(a != b))
    return a


def _operand(x: Any, rest_ndim: int) -> Any:
    """A non-masked operand, as it broadcasts against the full arrays (None: it would
    broadcast against the count)."""
    shape = getattr(x, "shape", None)
    if shape is None:
        if isinstance(x, list | tuple):
            shape = np.shape(x)
            x = np.asarray(x)
        else:
            return x  # a Python or NumPy scalar
    shape = tuple(shape)
    if len(shape) <= rest_ndim:
        return x
    if len(shape) == rest_ndim + 1 and shape[0] == 1:
        return x.reshape(shape[1:])
    raise _refuse("broadcasting x[mask] against an array that reaches its first axis")


def elementwise(fn: Any, args: tuple, kwargs: dict | None = None) -> Any:
    """``fn(*args, **kwargs)`` (an elementwise npjax callable) with masked operands replaced
    by their full arrays; results are masked values."""
    kwargs = kwargs or {}
    mask, rest_ndim = None, None
    for a in (*args, *kwargs.values()):
        if type(a) is MaskedValue:
            mask = _same_mask(mask, a.mask)
            r = len(a._rest)
            if rest_ndim is not None and r != rest_ndim:
                raise _refuse("combining reads with different numbers of trailing axes")
            rest_ndim = r

    def plain(a: Any) -> Any:
        if type(a) is MaskedValue:
            return a.full
        return _operand(a, rest_ndim)

    result = fn(*[plain(a) for a in args], **{k: plain(v) for k, v in kwargs.items()})
    return _wrap(result, mask)


def _wrap(result: Any, mask: jax.Array) -> Any:
    if isinstance(result, tuple):
        return tuple(_wrap(r, mask) for r in result)
    if not isinstance(result, ndarray):
        result = ndarray._owner(jnp.asarray(result))
    if tuple(result.shape[:mask.ndim]) != tuple(mask.shape):
        raise _refuse("this operation on x[mask]")
    if result._base is not None or result._scalar:
        result = ndarray._owner(result._read())
    return MaskedValue(result, mask)


def ufunc_call(uf: Any, args: tuple, kwargs: dict) -> Any:
    """A ufunc called with masked operands (``npjax._calls._ufuncs`` sends them here)."""
    if kwargs.get("out") is not None or len(args) > uf.nin:
        raise _refuse(f"{uf.__name__}(..., out=) on x[mask]")
    where = kwargs.get("where", True)
    if not (where is True or type(where) is MaskedValue):
        raise _refuse(f"{uf.__name__}(..., where=) on x[mask]")
    return elementwise(uf, args, kwargs)


def has_masked(args: tuple, kwargs: dict) -> bool:
    return any(type(a) is MaskedValue for a in args) or any(
        type(v) is MaskedValue for v in kwargs.values())


def _inplace(uf: Any, mv: MaskedValue, other: Any) -> MaskedValue:
    """``mv op= other``: NumPy's in-place ufunc on the read copy (same-kind cast into its
    dtype)."""
    def run(a: ndarray, b: Any) -> ndarray:
        res = ndarray._owner(a._read())
        uf(res, b, out=res)
        return res

    return elementwise(run, (mv, other))


_BINARY = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
           "floordiv": "floor_divide", "mod": "remainder", "and": "bitwise_and",
           "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift",
           "rshift": "right_shift"}
_COMPARISON = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
               "gt": "greater", "ge": "greater_equal"}
_UNARY = {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}


def _install() -> None:
    def forward(uf: Any) -> Any:
        return lambda self, other: ufunc_call(uf, (self, other), {})

    def reflected(uf: Any) -> Any:
        return lambda self, other: ufunc_call(uf, (other, self), {})

    def inplace(uf: Any) -> Any:
        return lambda self, other: _inplace(uf, self, other)

    def unary(uf: Any) -> Any:
        return lambda self: ufunc_call(uf, (self,), {})

    for short, name in _BINARY.items():
        uf = UFUNCS[name]
        setattr(MaskedValue, f"__{short}__", forward(uf))
        setattr(MaskedValue, f"__r{short}__", reflected(uf))
        setattr(MaskedValue, f"__i{short}__", inplace(uf))
    for short, name in _COMPARISON.items():
        setattr(MaskedValue, f"__{short}__", forward(UFUNCS[name]))
    for short, name in _UNARY.items():
        setattr(MaskedValue, f"__{short}__", unary(UFUNCS[name]))


def _pow(self: MaskedValue, other: Any) -> Any:
    from npjax._calls._operators import _power_ufunc  # NumPy's fast scalar powers (square...)

    uf, operands = _power_ufunc(self.full, other)
    return ufunc_call(uf, tuple(self if o is self.full else o for o in operands), {})


def _rpow(self: MaskedValue, other: Any) -> Any:
    return ufunc_call(UFUNCS["power"], (other, self), {})


def _ipow(self: MaskedValue, other: Any) -> Any:
    from npjax._calls._operators import _power_ufunc

    uf, operands = _power_ufunc(self.full, other)
    if len(operands) == 1:
        def run(a: ndarray) -> ndarray:
            res = ndarray._owner(a._read())
            uf(res, out=res)
            return res

        return elementwise(run, (self,))
    return _inplace(uf, self, other)


_install()
MaskedValue.__pow__ = _pow  # type: ignore[attr-defined]
MaskedValue.__rpow__ = _rpow  # type: ignore[attr-defined]
MaskedValue.__ipow__ = _ipow  # type: ignore[attr-defined]


# --- reads and writes (called through the trace: ``_jit._Trace``) ----------------------------


def read(a: ndarray, items: list, kinds: list, shape: tuple) -> MaskedValue | None:
    """``a[mask]`` under a trace: a masked value when the mask is traced (None otherwise:
    the count is known and the exact read runs)."""
    if isinstance(items[0], np.ndarray) or (isinstance(items[0], ndarray) and
                                            items[0]._host() is not None):
        return None  # host data: the count is known, the exact read runs
    m = _mask_of(items, kinds, shape)
    if m is None or not isinstance(m, _Tracer):
        return None
    x = a._read()
    return MaskedValue(ndarray._owner(_fill_first(x, m)), m)


@functools.lru_cache(maxsize=64)
def _store_kernel(n_rest: int) -> Any:
    def store(x, mask, v):
        keep = mask.reshape(mask.shape + (1,) * n_rest)
        return jnp.where(keep, jnp.broadcast_to(v, x.shape).astype(x.dtype), x)

    return jax.jit(store)


def store(a: ndarray, items: list, kinds: list, shape: tuple, value: Any) -> bool:
    """``a[index] = value`` under a trace when ``value`` is a masked value: a ``where``
    under the index's mask, which must equal the value's (checked on the device). Returns
    False when ``value`` is not a masked value."""
    if type(value) is not MaskedValue:
        return False
    m = _mask_of(items, kinds, shape)
    if m is None:
        raise _refuse("storing x[mask] with another kind of index")
    m = _same_mask(value.mask, m)
    rest, vrest = tuple(shape[m.ndim:]), value._rest
    if len(vrest) > len(rest) or np.broadcast_shapes(vrest, rest) != rest:
        _check(True)  # NumPy's shape error (its message names the count): eager rerun
        return True
    _complex_warning(value.dtype, a.dtype)
    v = cast_device(value.full._read(), a.dtype)
    write_through(a, (), _store_kernel(len(rest))(a._read(), m, v))
    return True


# --- npjax functions given masked values (``_dispatch`` sends them here) --------------------------

_REDUCTIONS = {"sum": "sum", "prod": "prod", "mean": "mean", "var": "var", "std": "std",
               "any": "any", "all": "all", "max": "max", "min": "min", "amax": "max",
               "amin": "min", "argmax": "argmax", "argmin": "argmin",
               "count_nonzero": "count_nonzero"}
_ELEMENTWISE = frozenset({"where", "clip", "round", "around", "real", "imag", "conj",
                          "conjugate", "nan_to_num", "isclose", "real_if_close"})


def function_call(name: str, fn: Any, args: tuple, kwargs: dict) -> Any:
    """npjax function ``name`` (``fn``: its npjax implementation) given a masked value."""
    method = _REDUCTIONS.get(name)
    if method is not None and args and type(args[0]) is MaskedValue and not any(
            type(a) is MaskedValue for a in (*args[1:], *kwargs.values())):
        return getattr(args[0], method)(*args[1:], **kwargs)
    if name in _ELEMENTWISE:
        return elementwise(fn, args, kwargs)
    raise _refuse(f"npjax.{name}(x[mask])")


DEFERRED[MaskedValue] = function_call
STAND_INS.add(MaskedValue)
DEFERRED_UFUNC[MaskedValue] = ufunc_call
