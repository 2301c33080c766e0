"""NumPy's ufuncs as npjax ufunc objects: one table, one class.

Every ``numpy.ufunc`` in NumPy's namespace gets an npjax ``ufunc`` of the same name. Type
resolution is NumPy's own (``numpy.ufunc.resolve_dtypes``, NEP 50 weak Python scalars), so
result dtypes are NumPy's exactly; the computation is a cached ``jax.jit`` kernel per
(ufunc, loop dtypes) that casts the inputs to the loop dtypes, calls ``jax.numpy`` and casts
the outputs. ``reduce``/``accumulate``/``outer``/``reduceat``/``at`` live in
``_ufunc_methods.py`` and are attached to the class there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax import _dtypes
from npjax._dispatch import write_out
from npjax._errors import NpjaxUnsupported, output_casting_error, unsupported
from npjax._fallback import call_numpy
from npjax._ndarray import ndarray
from npjax._normalize import to_jax
from npjax._policy import current

_WEAK = _dtypes.WEAK_TYPES

# NumPy name -> JAX function, where ``jax.numpy.<name>`` is not the right one.
_IMPL_OVERRIDES: dict[str, Callable] = {}

# Ufuncs that run on host NumPy (no JAX equivalent for their dtypes).
_HOST_ONLY = {"isnat"}

# Comparisons accept Python ints outside the array's range (NumPy 2 compares exactly).
_COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}


class ufunc:
    """An elementwise function with NumPy's ufunc interface, computed by JAX."""

    def __init__(self, name: str) -> None:
        np_ufunc = getattr(np, name)
        self.__name__ = np_ufunc.__name__
        self.__qualname__ = self.__name__
        self._np = np_ufunc
        self._impl = _IMPL_OVERRIDES.get(self.__name__) or getattr(jnp, self.__name__, None)
        self.nin = np_ufunc.nin
        self.nout = np_ufunc.nout
        self.nargs = np_ufunc.nargs
        self.identity = np_ufunc.identity
        self.signature = np_ufunc.signature
        self.ntypes = np_ufunc.ntypes
        self.types = np_ufunc.types
        self.__doc__ = f"npjax implementation of the NumPy ufunc ``numpy.{self.__name__}``."

    def __repr__(self) -> str:
        return f"<ufunc '{self.__name__}'>"

    def __call__(self, *args: Any, out: Any = None, where: Any = True,
                 casting: str = "same_kind", order: str = "K", dtype: Any = None,
                 subok: bool = True, signature: Any = None, **extra: Any) -> Any:
        nin = self.nin
        if len(args) != nin:
            if len(args) > nin and out is None:
                args, out = args[:nin], args[nin:]
            else:
                raise TypeError(f"{self.__name__}() takes from {nin} to {self.nargs} "
                                f"positional arguments but {len(args)} were given")
        if extra:
            raise unsupported(self.__name__, next(iter(extra)))
        if signature is not None:
            raise unsupported(self.__name__, "signature")
        if self._impl is None:
            return call_numpy(self.__name__, self._np, args,
                              {"out": out, "where": where, "casting": casting,
                               "dtype": dtype}, current(), "no JAX implementation")
        policy = current()
        outs = _as_out_tuple(out, self.nout)
        try:
            vals = [a if type(a) in _WEAK else to_jax(a, policy) for a in args]
        except NpjaxUnsupported as exc:
            return call_numpy(self.__name__, self._np, args,
                              {"out": out, "where": where, "casting": casting,
                               "dtype": dtype}, policy, str(exc))
        keys = tuple(type(v) if type(v) in _WEAK else v.dtype for v in vals)
        loop_in, loop_out = _resolve(self._np, keys, _dtypes.canonical_dtype(dtype), casting)
        for i, v in enumerate(vals):
            if type(v) is int:
                vals[i] = _weak_int(v, loop_in[i], self.__name__)
        if where is True:
            results = _kernel(self.__name__, loop_in, loop_out, False, False)(*vals)
        else:
            mask = to_jax(where, policy)
            if mask.dtype != np.bool_:
                raise TypeError("Cannot cast array data from dtype('"
                                f"{mask.dtype}') to dtype('bool') according to the rule 'safe'")
            olds = [o._read() if o is not None else None for o in outs] if outs else []
            has_old = bool(olds) and all(o is not None for o in olds)
            results = _kernel(self.__name__, loop_in, loop_out, True, has_old)(
                *vals, mask, *(olds if has_old else ()))
        if outs is None:
            if self.nout == 1:
                return ndarray._owner(results[0], results[0].ndim == 0)
            return tuple(ndarray._owner(r, r.ndim == 0) for r in results)
        written = []
        for r, o, dt in zip(results, outs, loop_out):
            if o is None:
                written.append(ndarray._owner(r, r.ndim == 0))
                continue
            if dt != o.dtype and not _dtypes.can_cast(dt, o.dtype, casting):
                raise output_casting_error(self.__name__, casting, dt, o.dtype)
            written.append(write_out(o, r, "unsafe", self.__name__))
        return written[0] if self.nout == 1 else tuple(written)


def _as_out_tuple(out: Any, nout: int) -> tuple | None:
    if out is None:
        return None
    if not isinstance(out, tuple):
        out = (out,)
    if len(out) != nout:
        raise ValueError(f"The 'out' tuple must have exactly {nout} entries: one per ufunc "
                         "output")
    if all(o is None for o in out):
        return None
    for o in out:
        if o is not None and not isinstance(o, ndarray):
            raise TypeError("return arrays must be of ArrayType")
    return out


@functools.lru_cache(maxsize=8192)
def _resolve(np_ufunc: np.ufunc, keys: tuple, dtype: np.dtype | None,
             casting: str) -> tuple[tuple, tuple]:
    """NumPy's loop dtypes for these operand dtypes: (input dtypes, output dtypes)."""
    nin, nout = np_ufunc.nin, np_ufunc.nout
    sig = None if dtype is None else (None,) * nin + (dtype,) * nout
    kwargs = {} if sig is None else {"signature": sig}
    resolved = np_ufunc.resolve_dtypes(keys + (None,) * nout, casting=casting, **kwargs)
    return tuple(resolved[:nin]), tuple(resolved[nin:])


def _weak_int(value: int, dtype: np.dtype, name: str) -> Any:
    """A Python int operand as a NumPy scalar of its loop dtype (OverflowError as NumPy)."""
    if dtype.kind in "iu":
        _dtypes.check_python_int(value, dtype, name)
        return dtype.type(value)
    if dtype.kind == "b":
        return np.bool_(value)
    return value


@functools.lru_cache(maxsize=8192)
def _kernel(name: str, loop_in: tuple, loop_out: tuple, with_where: bool,
            has_old: bool) -> Callable:
    impl = UFUNCS[name]._impl
    nin = len(loop_in)

    def kernel(*xs):
        ins = [jnp.asarray(x, dtype=dt) for x, dt in zip(xs[:nin], loop_in)]
        res = impl(*ins)
        res = res if isinstance(res, tuple) else (res,)
        res = tuple(jnp.asarray(r).astype(dt) for r, dt in zip(res, loop_out))
        if with_where:
            mask = xs[nin]
            olds = xs[nin + 1:] if has_old else [jnp.zeros_like(r) for r in res]
            res = tuple(jnp.where(mask, r, o) for r, o in zip(res, olds))
        return res

    return jax.jit(kernel)


NAMES = tuple(sorted(n for n in dir(np) if isinstance(getattr(np, n), np.ufunc)))
UFUNCS: dict[str, ufunc] = {}
for _name in NAMES:
    _canonical = getattr(np, _name).__name__
    if _canonical not in UFUNCS:
        UFUNCS[_canonical] = ufunc(_canonical)
    UFUNCS[_name] = UFUNCS[_canonical]
