"""Products of arrays: dot, vdot, inner, outer, tensordot, kron, einsum, einsum_path, cross.

Operands are taken as NumPy's ``asarray`` takes them (a Python float is a float64 array: these
functions do not treat Python scalars as weak, as NumPy does not). Float products run at
``Precision.HIGHEST`` (no TF32 on GPUs); integer products are exact with NumPy's wraparound;
boolean products are logical (or of ands); float16 products accumulate in float32 and round
once, as NumPy's float16 loops do. Each is an ``@npfunc`` function with untagged operands: the
bodies read them as NumPy does (``dot`` and ``inner`` pending in lazy mode, a moving window at
its bucket) and write ``out=`` by each function's own NumPy rules (``dot``'s exact-type
check). ``matmul``, ``vecdot``, ``matvec`` and ``vecmat`` are ufuncs (``npjax._calls._ufuncs``).

Differences from NumPy:
- ``einsum`` always returns a new array (NumPy returns a writeable view for pure
  diagonal/transpose subscripts such as ``'ii->i'``); ``order=`` other than 'K', 'C', 'A'
  raises NotImplementedError. ``optimize=`` picks JAX's contraction order (results differ only
  by rounding).
- Float sums follow XLA's order, not BLAS's (values agree to rounding).
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

from npjax._runtime._errstate import _stacklevel
from npjax._calls._dispatch import npfunc, wrap
from npjax._core._out import write_out
from npjax._pure._errors import unsupported
from npjax._pure import _dtypes
from npjax._library._einsum_views import einsum_view
from npjax._pure._impl.reductions import _compiled, _jit, _r
from npjax._pure._axes import normalize_axis
from npjax._core._ndarray import ndarray
from npjax._execution._lazy import Kernel
from npjax._core._normalize import to_jax, to_jax_lazy
from npjax._runtime._context import current, trace
from npjax._core import _window_reads

__all__ = ["dot", "vdot", "inner", "outer", "tensordot", "kron", "einsum", "einsum_path",
           "cross"]

_HI = lax.Precision.HIGHEST
_BOOL, _F16, _F32 = np.dtype(np.bool_), np.dtype(np.float16), np.dtype(np.float32)
_I32 = np.dtype(np.int32)


def _arr(x: Any) -> jax.Array:
    return to_jax(x, current())


@functools.lru_cache(maxsize=1024)
def _promote(*dtypes: np.dtype) -> np.dtype:
    dt = np.result_type(*dtypes)
    return np.dtype(dt.str) if dt.kind in "iu" else dt


# --- kernels ---------------------------------------------------------------------------------

def _compute_dtype(dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    """(operand dtype, accumulation dtype) of a product whose result is ``dtype``."""
    if dtype == _BOOL:
        return _I32, _I32
    if dtype == _F16:
        return _F32, _F32
    return dtype, dtype


def _finish(r: jax.Array, dtype: np.dtype) -> jax.Array:
    return r != 0 if dtype == _BOOL else r.astype(dtype)


@functools.lru_cache(maxsize=1024)
def _dot_kernel(dims: tuple, dtype: np.dtype) -> Kernel:
    """The compiled contraction of ``dims`` with result ``dtype`` (lazy mode records it)."""
    def contract(x: jax.Array, y: jax.Array) -> jax.Array:
        op, acc = _compute_dtype(dtype)
        r = lax.dot_general(x.astype(op), y.astype(op), dims, precision=_HI,
                            preferred_element_type=acc)
        return _finish(r, dtype)

    return Kernel(jax.jit(contract))


def _dot_general(x: Any, y: Any, *, dims: tuple, dtype: np.dtype) -> Any:
    return _dot_kernel(dims, dtype)(x, y)


def _lazy_arr(x: Any) -> Any:
    """An operand for code whose only computations are ``Kernel`` calls: in lazy mode an
    npjax array's pending value (the kernels record instead of running)."""
    return to_jax_lazy(x, current())


@functools.partial(jax.jit, static_argnames=("dtype",))
def _matmul(x: jax.Array, y: jax.Array, *, dtype: np.dtype) -> jax.Array:
    op, acc = _compute_dtype(dtype)
    r = jnp.matmul(x.astype(op), y.astype(op), precision=_HI, preferred_element_type=acc)
    return _finish(r, dtype)


def _matmul_raw(x: jax.Array, y: jax.Array) -> jax.Array:
    """matmul of two jax arrays with NumPy's result dtype (used by npjax.linalg)."""
    return _matmul(x, y, dtype=_promote(x.dtype, y.dtype))


@functools.lru_cache(maxsize=64)
def _multiply_kernel(dtype: np.dtype) -> Kernel:
    def multiply(x: jax.Array, y: jax.Array) -> jax.Array:
        if dtype == _BOOL:
            return jnp.logical_and(x, y)
        op, _ = _compute_dtype(dtype)
        return (x.astype(op) * y.astype(op)).astype(dtype)

    return Kernel(jax.jit(multiply), products=True)


def _scalar_product(a: Any, b: Any) -> Any:
    return _multiply_kernel(_promote(a.dtype, b.dtype))(a, b)


def _check_numeric(*dtypes: np.dtype) -> None:
    for dt in dtypes:
        if dt.kind not in "biufc":
            raise TypeError(f"dot: unsupported dtype {dt}")


# --- dot, vdot, inner ------------------------------------------------------------------------

def _write_dot_out(out: Any, value: jax.Array) -> None:
    ok = (isinstance(out, ndarray) and out.dtype == value.dtype and out.shape == value.shape
          and out.flags["C_CONTIGUOUS"] and out.flags["WRITEABLE"])
    if not ok:
        raise ValueError("output array is not acceptable (must have the right datatype, "
                         "number of dimensions, and be a C-Array)")
    write_out(out, value, "no", "dot")


@npfunc
def dot(a: Any, b: Any, out: Any = None) -> Any:
    """npjax implementation of numpy.dot."""
    ops = None if out is not None else _window_reads.pair(a, b)  # windows: at a bucket
    a, b = (ops if ops is not None else (_lazy_arr(a), _lazy_arr(b)))
    _check_numeric(a.dtype, b.dtype)
    if a.ndim == 0 or b.ndim == 0:
        result = _scalar_product(a, b)
    else:
        k = 0 if b.ndim == 1 else b.ndim - 2
        if a.shape[-1] != b.shape[k]:
            raise ValueError(f"shapes {a.shape} and {b.shape} not aligned: {a.shape[-1]} "
                             f"(dim {a.ndim - 1}) != {b.shape[k]} (dim {k})")
        result = _dot_general(a, b, dims=(((a.ndim - 1,), (k,)), ((), ())),
                              dtype=_promote(a.dtype, b.dtype))
    if out is not None:
        _write_dot_out(out, result)
        return out if result.ndim else wrap(result, True)
    return wrap(result, True)


@npfunc
def vdot(a: Any, b: Any, /) -> Any:
    """npjax implementation of numpy.vdot (flattens; conjugates the first operand)."""
    a, b = _arr(a).ravel(), _arr(b).ravel()
    _check_numeric(a.dtype, b.dtype)
    if a.size != b.size:
        raise ValueError(f"cannot reshape array of size {b.size} into shape ({a.size},)")
    if a.dtype.kind == "c":
        a = jnp.conj(a)
    return wrap(_dot_general(a, b, dims=(((0,), (0,)), ((), ())),
                             dtype=_promote(a.dtype, b.dtype)), True)


@npfunc
def inner(a: Any, b: Any, /) -> Any:
    """npjax implementation of numpy.inner."""
    a, b = _lazy_arr(a), _lazy_arr(b)
    _check_numeric(a.dtype, b.dtype)
    if a.ndim == 0 or b.ndim == 0:
        return wrap(_scalar_product(a, b), True)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"shapes {a.shape} and {b.shape} not aligned: {a.shape[-1]} "
                         f"(dim {a.ndim - 1}) != {b.shape[-1]} (dim {b.ndim - 1})")
    return wrap(_dot_general(a, b, dims=(((a.ndim - 1,), (b.ndim - 1,)), ((), ())),
                             dtype=_promote(a.dtype, b.dtype)), True)


@npfunc
def outer(a: Any, b: Any, out: Any = None) -> ndarray:
    """npjax implementation of numpy.outer (``multiply`` of the flattened operands)."""
    from npjax._calls._ufuncs import UFUNCS

    a = ndarray._owner(_arr(a).ravel()[:, None])
    b = ndarray._owner(_arr(b).ravel()[None, :])
    return UFUNCS["multiply"](a, b, out=out)


@npfunc
def tensordot(a: Any, b: Any, axes: Any = 2) -> ndarray:
    """npjax implementation of numpy.tensordot."""
    try:
        iter(axes)
    except Exception:
        axes_a = list(range(-axes, 0))
        axes_b = list(range(axes))
    else:
        axes_a, axes_b = axes
    try:
        na = len(axes_a)
        axes_a = list(axes_a)
    except TypeError:
        axes_a, na = [axes_a], 1
    try:
        nb = len(axes_b)
        axes_b = list(axes_b)
    except TypeError:
        axes_b, nb = [axes_b], 1
    if len(set(axes_a)) != len(axes_a) or len(set(axes_b)) != len(axes_b):
        raise ValueError("duplicate axes are not allowed in tensordot")
    a, b = _arr(a), _arr(b)
    _check_numeric(a.dtype, b.dtype)
    as_, bs = a.shape, b.shape
    nda, ndb = a.ndim, b.ndim
    equal = na == nb
    if equal:
        for k in range(na):
            if as_[axes_a[k]] != bs[axes_b[k]]:
                equal = False
                break
            if axes_a[k] < 0:
                axes_a[k] += nda
            if axes_b[k] < 0:
                axes_b[k] += ndb
    if not equal:
        raise ValueError("shape-mismatch for sum")
    notin_a = [k for k in range(nda) if k not in axes_a]
    notin_b = [k for k in range(ndb) if k not in axes_b]
    n2 = int(np.prod([as_[ax] for ax in axes_a]))
    at = jnp.transpose(a, notin_a + axes_a).reshape(
        int(np.prod([as_[ax] for ax in notin_a])), n2)
    bt = jnp.transpose(b, axes_b + notin_b).reshape(
        n2, int(np.prod([bs[ax] for ax in notin_b])))
    res = _dot_general(at, bt, dims=(((1,), (0,)), ((), ())), dtype=_promote(a.dtype, b.dtype))
    return wrap(res.reshape([as_[ax] for ax in notin_a] + [bs[ax] for ax in notin_b]))


@npfunc
def kron(a: Any, b: Any) -> Any:
    """npjax implementation of numpy.kron (``multiply`` of interleaved axes, as NumPy)."""
    from npjax._calls._ufuncs import UFUNCS

    b = _arr(b)
    a = _arr(a)
    ndb, nda = b.ndim, a.ndim
    if nda < ndb:
        a = a.reshape((1,) * (ndb - nda) + a.shape)
        nda = ndb
    nd = max(ndb, nda)
    if nda == 0 or ndb == 0:
        return UFUNCS["multiply"](ndarray._owner(a), ndarray._owner(b))
    as_ = a.shape
    bs = (1,) * max(0, nda - ndb) + b.shape
    a_arr = a.reshape(tuple(x for s in as_ for x in (s, 1)))
    b_arr = b.reshape(tuple(x for s in bs for x in (1, s)))
    assert len(a_arr.shape) == 2 * nd
    result = UFUNCS["multiply"](ndarray._owner(a_arr), ndarray._owner(b_arr))
    return result.reshape(tuple(x * y for x, y in zip(as_, bs)))


# --- cross -----------------------------------------------------------------------------------

def _cross_core(na: int, nb: int, dtype: np.dtype, a: jax.Array, b: jax.Array) -> jax.Array:
    def mul(x, y):
        if dtype == _F16:
            return _r((x.astype(_F32) * y.astype(_F32)).astype(_F16))
        return _r(x * y)

    a = a.astype(dtype)
    b = b.astype(dtype)
    a0, a1 = a[..., 0], a[..., 1]
    b0, b1 = b[..., 0], b[..., 1]
    if na == 2 and nb == 2:
        return mul(a0, b1) - mul(a1, b0)
    if na == 2:
        b2 = b[..., 2]
        c0, c1 = mul(a1, b2), -mul(a0, b2)
    elif nb == 2:
        a2 = a[..., 2]
        c0, c1 = -mul(a2, b1), mul(a2, b0)
    else:
        a2, b2 = a[..., 2], b[..., 2]
        c0 = mul(a1, b2) - mul(a2, b1)
        c1 = mul(a2, b0) - mul(a0, b2)
    c2 = mul(a0, b1) - mul(a1, b0)
    shape = jnp.broadcast_shapes(c0.shape, c1.shape, c2.shape)
    return jnp.stack([jnp.broadcast_to(c, shape) for c in (c0, c1, c2)], axis=-1)


@npfunc
def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: Any = None) -> ndarray:
    """npjax implementation of numpy.cross (2-vectors: NumPy 2's DeprecationWarning)."""
    if axis is not None:
        axisa, axisb, axisc = (axis,) * 3
    a, b = _arr(a), _arr(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    axisa = normalize_axis(axisa, a.ndim)
    axisb = normalize_axis(axisb, b.ndim)
    a = jnp.moveaxis(a, axisa, -1)
    b = jnp.moveaxis(b, axisb, -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if na == 2 or nb == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=_stacklevel())
    shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    if na == 3 or nb == 3:
        shape += (3,)
        axisc = normalize_axis(axisc, len(shape))
    dtype = _promote(a.dtype, b.dtype)
    if dtype == _BOOL:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    if dtype.kind not in "iufc":
        raise TypeError(f"cross: unsupported dtype {dtype}")
    tr, static = trace(), (na, nb, dtype)
    # (under npjax.jit the products round with the trace's -0.0, not a constant of its own)
    cp = (_jit(_cross_core, static) if tr is None else functools.partial(
        _compiled(_cross_core, static), tr.neg_zero))(a, b)
    if cp.shape != shape:
        cp = jnp.broadcast_to(cp, shape)
    if na == 2 and nb == 2:
        return wrap(cp)
    return wrap(jnp.moveaxis(cp, -1, axisc))


# --- einsum ----------------------------------------------------------------------------------

def _label(i: Any) -> str:
    if i is Ellipsis:
        return "..."
    i = operator.index(i)
    if not 0 <= i < 52:
        raise ValueError("subscript is not within the valid range [0, 52)")
    return chr(ord("A") + i) if i < 26 else chr(ord("a") + i - 26)


def _parse(operands: tuple) -> tuple[str, list]:
    if not operands:
        raise ValueError("No input operands")
    if isinstance(operands[0], str):
        return operands[0].replace(" ", ""), list(operands[1:])
    ops = list(operands[0::2])
    subs = list(operands[1::2])
    out_sub = None
    if len(operands) % 2:
        out_sub = ops.pop()
    text = ",".join("".join(_label(i) for i in s) for s in subs)
    if out_sub is not None:
        text += "->" + "".join(_label(i) for i in out_sub)
    return text, ops


def _placeholder(shape: tuple, dtype: np.dtype) -> np.ndarray:
    """An array of ``shape`` holding no data (every stride 0): for shape-only NumPy calls."""
    return np.lib.stride_tricks.as_strided(np.zeros(1, dtype), shape, (0,) * len(shape))


@functools.lru_cache(maxsize=1024)
def _einsum_meta(subscripts: str, shapes: tuple, dtypes: tuple, dtype: Any,
                 casting: str, optimize: Any) -> tuple[np.dtype, bool]:
    """Ask NumPy, on data-free placeholders: validation (shapes, explicit path, casting), the
    result dtype and whether the result is a scalar (NumPy's optimized path ends in a matrix
    product that returns a 0-d array). Placeholders keep every size 0, 1 and 2 and shrink
    larger ones to 2, so the host work is tiny; structure (broadcasting, empties) is kept."""
    opt = list(optimize) if isinstance(optimize, tuple) else optimize
    np.einsum_path(subscripts, *[_placeholder(s, d) for s, d in zip(shapes, dtypes)],
                   optimize=opt if isinstance(opt, list) else "greedy")
    small = [_placeholder(tuple(min(n, 2) for n in s), d) for s, d in zip(shapes, dtypes)]
    res = np.einsum(subscripts, *small, dtype=dtype, casting=casting, optimize=opt)
    return np.asarray(res).dtype, isinstance(res, np.generic)


@functools.partial(jax.jit, static_argnames=("subscripts", "dtype", "optimize"))
def _einsum_kernel(*ops: jax.Array, subscripts: str, dtype: np.dtype, optimize: Any) -> Any:
    op, acc = _compute_dtype(dtype)
    r = jnp.einsum(subscripts, *[x.astype(op) for x in ops], optimize=optimize,
                   precision=_HI, preferred_element_type=acc)
    return _finish(r, dtype)


def _optimize(optimize: Any) -> Any:
    if optimize is True:
        return "optimal"
    if optimize is False:
        return False
    if isinstance(optimize, list | tuple):
        path = [tuple(p) for p in optimize if p != "einsum_path"]
        return tuple(path)
    if isinstance(optimize, str) and optimize in ("greedy", "optimal"):
        return optimize
    return "greedy"


@npfunc
def einsum(*operands: Any, out: Any = None, optimize: Any = False, dtype: Any = None,
           order: str = "K", casting: str = "safe") -> Any:
    """npjax implementation of numpy.einsum (any ``optimize=`` value NumPy accepts)."""
    order = "K" if order is None else order
    if not isinstance(order, str):
        raise TypeError(f"order must be str, not {type(order).__name__}")
    if order.upper() not in ("C", "F", "A", "K"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    subscripts, ops = _parse(operands)
    arrays = [_arr(x) for x in ops]
    dt = None if dtype is None else np.dtype(dtype)
    key = optimize
    if isinstance(optimize, list | tuple):
        key = tuple(p if isinstance(p, str) else tuple(p) for p in optimize)
    res_dtype, scalar = _einsum_meta(subscripts, tuple(a.shape for a in arrays),
                                     tuple(np.dtype(a.dtype) for a in arrays), dt, casting,
                                     key)
    if out is None and len(arrays) == 1 and (view := einsum_view(subscripts, ops[0], {
            "dtype": dt, "casting": casting, "order": order, "optimize": optimize})) is not None:
        return view  # (whatever dtype= asks, as NumPy's view: float64 on a TPU too)
    if dt is not None:  # NumPy's where the device cannot hold it (long double...)
        _dtypes.device_only(dt)
    if res_dtype.kind in "iu":
        res_dtype = np.dtype(res_dtype.str)
    result = _einsum_kernel(*arrays, subscripts=subscripts, dtype=res_dtype,
                            optimize=_optimize(optimize))
    if out is None:
        made = wrap(result, scalar)
        if result.ndim > 1 and (order.upper() == "F" or order.upper() == "A" and all(
                _f_contiguous(x) for x in ops)):  # NumPy's layout (device values are C)
            made._layout = np.empty(result.shape, result.dtype, order="F")
        return made
    if not isinstance(out, ndarray):
        raise TypeError("out must be an npjax array")
    if out.ndim != result.ndim:
        raise ValueError(f"out parameter does not have the correct number of dimensions, has "
                         f"{out.ndim} but should have {result.ndim}")
    if out.shape != result.shape:
        raise ValueError(f"out parameter has shape {out.shape}, expected {result.shape}")
    if not np.can_cast(res_dtype, out.dtype, casting):
        raise TypeError(f"Iterator requested dtype could not be cast from {res_dtype!r} to "
                        f"{out.dtype!r}, the operand {len(arrays)} dtype, according to the "
                        f"rule '{casting}'")
    return write_out(out, result, "unsafe", "einsum")


def _f_contiguous(x: Any) -> bool:
    """Whether an einsum operand is F-contiguous in NumPy (``order='A'``: all of them)."""
    if isinstance(x, ndarray | np.ndarray):
        return x.flags.f_contiguous
    return np.ndim(x) <= 1 or np.asarray(x).flags.f_contiguous


@npfunc
def einsum_path(*operands: Any, optimize: Any = "greedy", einsum_call: bool = False) -> Any:
    """npjax implementation of numpy.einsum_path: NumPy's own answer, from shapes only."""
    if einsum_call:
        raise unsupported("einsum_path", "einsum_call")
    args = []
    for i, x in enumerate(operands):
        if isinstance(x, str) or (i % 2 == 1 and not isinstance(operands[0], str)) or (
                i == len(operands) - 1 and not isinstance(operands[0], str)
                and len(operands) % 2):
            args.append(x)
        else:
            a = _arr(x)
            args.append(_placeholder(a.shape, np.dtype(a.dtype)))
    return np.einsum_path(*args, optimize=optimize)
