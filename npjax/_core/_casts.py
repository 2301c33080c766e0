"""Casts of device values with NumPy's values, warnings and errors.

NumPy casts a float to an integer with the C conversion of the machine it runs on: NaN,
infinities and values outside the range that conversion handles give platform values (on
x86-64: ``INT64_MIN`` for int64, 0 for int8 through a 32-bit conversion...) and
``RuntimeWarning: invalid value encountered in cast``; finite values that fit the 32-bit
conversion but not a narrow target wrap (300.0 to int8 is 44, no warning). XLA saturates
instead (NaN is 0, 300.0 is 127). Both truncate toward zero, so they agree wherever the
truncated value fits the target. A cast to a narrower float that overflows gives infinity
in both, but NumPy also reports "overflow encountered in cast"; and XLA on CPU casts
float64 to float16 through float32 (rounded twice).

``cast`` (and ``precast``, for kernels that cast their operands themselves) is the one
place device values are cast where these differ. It checks whether any element lies
outside the region where JAX's result is NumPy's (for float targets: whether an overflow
must be reported): on an accelerator in the kernel that casts, one boolean read back; on
the CPU backend by NumPy's ``min`` and ``max`` of the buffer, read in place. Only when the
check fails is the cast computed by NumPy on a host copy: its values by construction, its
warning (or ``FloatingPointError``, or ``seterrcall`` call) at the user's line under the
user's ``np.errstate``, the result placed where JAX's would have been. NumPy's own SIMD and
scalar loops disagree on some invalid values (float32 NaN to uint32 gives 2**31 or 0 by
position and stride): npjax gives what NumPy gives for a C-contiguous array of that shape.
Not reported: underflow in narrowing float casts (NumPy's default ignores it).

Under ``npjax.jit`` the check is a device-side flag of the trace: when it is set, the call
runs again eagerly (``_jit``), which gives NumPy's values and warnings. Under plain
``jax.jit`` there is no place to report and JAX's cast is used. In lazy mode a checked
cast needs its operand's value (it computes the pending graph first).
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime import _stats
from npjax._runtime._context import trace
from npjax._pure._errors import ComplexWarning
from npjax._runtime._errstate import report, state
from npjax._runtime._host_reads import on_host
from npjax._runtime._numpy_calls import call_numpy_ufunc
from npjax._execution._lazy import Kernel, Lazy

_Tracer = jax.core.Tracer


@functools.lru_cache(maxsize=256)
def astype_kernel(dtype: np.dtype) -> Kernel:
    """JAX's cast to ``dtype`` as a (lazy-recordable) kernel."""
    return Kernel(jax.jit(lambda x: x.astype(dtype)))


def _floor(n: int, ft: np.dtype) -> Any:
    """The largest value of float dtype ``ft`` that is <= ``n`` (may be -inf)."""
    down, up = ft.type(-np.inf), ft.type(np.inf)
    with np.errstate(all="ignore"):
        v = np.array(float(n), ft)[()]
        while float(v) > n:  # Python compares floats and ints exactly
            v = np.nextafter(v, down)
        while v != up and float(np.nextafter(v, up)) <= n:
            v = np.nextafter(v, up)
    return v


def _ceil(n: int, ft: np.dtype) -> Any:
    """The smallest value of float dtype ``ft`` that is >= ``n`` (may be inf)."""
    return -_floor(-n, ft)


def _real_dtype(dt: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if dt == np.complex64 else (
        np.dtype(np.float64) if dt.kind == "c" else dt)


@functools.lru_cache(maxsize=256)
def _rule(src: np.dtype, dst: np.dtype) -> str | None:
    """How a cast ``src`` -> ``dst`` of device values is checked: "int" (floats to integers:
    JAX's values differ outside the target's range), "over" (a narrower float: NumPy reports
    overflows), or None (JAX's cast is NumPy's)."""
    if src == dst or dst.kind == "b" or src.kind == "b":
        return None  # (complex to bool: nonzero, as JAX's cast)
    if src.kind in "fc" and dst.kind in "iu":
        return "int"
    if dst.kind in "fc":
        top = np.finfo(_real_dtype(dst)).max
        if src.kind in "fc":
            return "over" if np.finfo(_real_dtype(src)).max > top else None
        if src.kind in "iu":  # (Python compares the int and the float exactly)
            return "over" if int(np.iinfo(src).max) > float(top) else None
    return None


def _f64_to_f16(x: jax.Array) -> jax.Array:
    """float64 -> float16 rounded once: to float32 rounding to odd (truncate, then set the
    last bit when inexact), then to float16 (24 bits >= 11 + 2: the result is the float16
    nearest to ``x``, as NumPy's direct conversion gives)."""
    r = x.astype(np.float32)
    wide = r.astype(np.float64)
    fin = jnp.isfinite(r)
    toward_zero = jnp.where(fin & (jnp.abs(wide) > jnp.abs(x)),
                            jnp.nextafter(r, jnp.zeros_like(r)), r)
    inexact = fin & (toward_zero.astype(np.float64) != x)
    bits = jax.lax.bitcast_convert_type(toward_zero, np.uint32)
    odd = jax.lax.bitcast_convert_type(bits | np.uint32(1), np.float32)
    return jnp.where(inexact, odd, toward_zero).astype(np.float16)


def jax_cast(x: jax.Array, dst: np.dtype) -> jax.Array:
    """JAX's cast, unchecked (for use inside kernels), complex to real by the real part,
    float64 -> float16 rounded once."""
    if x.dtype.kind == "c" and dst.kind not in "cb":
        x = jnp.real(x)
    if x.dtype == np.float64 and dst == np.float16:
        return _f64_to_f16(x)
    return x.astype(dst)


def _bad(x: jax.Array, result: jax.Array, rule: str, dst: np.dtype) -> jax.Array:
    """Where JAX's cast is not NumPy's ("int") or NumPy reports an overflow ("over")."""
    if rule == "int":
        real = jnp.real(x) if x.dtype.kind == "c" else x
        ft = np.dtype(real.dtype)
        info = np.iinfo(dst)
        low, high = _floor(int(info.min) - 1, ft), _ceil(int(info.max) + 1, ft)
        return ~((real > low) & (real < high))  # NaN compares False: bad
    if x.dtype.kind == "c" and result.dtype.kind != "c":
        x = jnp.real(x)
    return jnp.isfinite(x) & ~jnp.isfinite(result)


@functools.lru_cache(maxsize=256)
def _checked_kernel(src: np.dtype, dst: np.dtype, rule: str) -> Any:
    def run(x):
        result = jax_cast(x, dst)
        return result, jnp.any(_bad(x, result, rule, dst))

    return jax.jit(run)


@functools.lru_cache(maxsize=64)
def _fixed_kernel(dst: np.dtype) -> Kernel:
    return Kernel(jax.jit(lambda x: jax_cast(x, dst)))


def needs_check(src: Any, dst: Any) -> bool:
    """Whether a cast ``src`` -> ``dst`` of device values goes through ``cast``'s check."""
    return _rule(np.dtype(src), np.dtype(dst)) is not None


def precast(value: Any, dtype: Any) -> Any:
    """For a kernel that casts ``value`` to ``dtype`` itself: ``value`` when that cast is
    NumPy's (the common case costs the check only), else ``value`` cast by ``cast``."""
    if not hasattr(value, "dtype"):
        return value
    dst, src = np.dtype(dtype), np.dtype(value.dtype)
    rule = _rule(src, dst)
    if rule is None:
        return value
    return _cast(value, src, dst, rule, keep=not _rounds_twice(src, dst))


def cast(value: Any, dtype: Any, loop: str = "cast") -> Any:
    """``value`` (a ``jax.Array``, tracer or pending lazy value; host data is cast by NumPy)
    cast to ``dtype`` as NumPy casts (complex to real: the real part; the caller gives the
    ComplexWarning). ``loop``: the name NumPy's floating-point warnings give the cast (a
    ufunc writing into ``out`` of another dtype casts in its own loop: "invalid value
    encountered in add")."""
    dst = np.dtype(dtype)
    src = np.dtype(value.dtype)
    if src == dst:
        return value
    if isinstance(value, np.ndarray | np.generic):  # host data: NumPy's own cast
        return _numpy_cast(value, dst, loop)
    rule = _rule(src, dst)
    if rule is None:
        if src.kind == "c" and dst.kind not in "cb":
            return _fixed_kernel(dst)(value)
        return astype_kernel(dst)(value)
    return _cast(value, src, dst, rule, keep=False, loop=loop)


def _rounds_twice(src: np.dtype, dst: np.dtype) -> bool:
    """Whether JAX's own cast ``src`` -> ``dst`` rounds twice (float64 -> float16 on CPU)."""
    return dst == np.float16 and _real_dtype(src) == np.float64


def _cast(value: Any, src: np.dtype, dst: np.dtype, rule: str, keep: bool,
          loop: str = "cast") -> Any:
    """A checked cast (``_rule`` gave ``rule``). ``keep``: return ``value`` itself where JAX's
    cast would be NumPy's (the caller's kernel casts it)."""
    if isinstance(value, np.ndarray | np.generic):
        return _numpy_cast(value, dst, loop)
    if isinstance(value, _Tracer):
        result = jax_cast(value, dst)
        tr = trace()
        if tr is not None and (rule == "int" or state()["over"] != "ignore"):
            tr.check(jnp.any(_bad(value, result, rule, dst)))
            if rule == "int" and value.dtype.kind == "f":  # (True at any inf or nan)
                tr.watch.cover(value)
        return value if keep else result
    if rule == "over" and state()["over"] == "ignore":  # same values, nothing to report
        return value if keep else _fixed_kernel(dst)(value)
    if type(value) is Lazy:
        value = value.get()
    if on_host(value):  # CPU backend: the buffer is read in place by NumPy (no kernel)
        if _in_range(np.asarray(value), rule, dst):
            return value if keep else _fixed_kernel(dst)(value)
        if rule == "int":
            return _numpy_cast(value, dst, loop)
    result, bad = _checked_kernel(src, dst, rule)(value)
    if not np.asarray(bad):
        return value if keep else result
    return _numpy_cast(value, dst, loop)


@functools.lru_cache(maxsize=256)
def _limits(src: np.dtype, dst: np.dtype, rule: str) -> tuple:
    """(low, high): values of ``src`` strictly between them cast alike in JAX and NumPy
    ("int"), or cannot overflow ``dst`` ("over"); Python ints for an integer ``src`` (an
    integer cast to float16 overflows from 65520 on: the halfway point above its largest
    finite value rounds to even, infinity)."""
    if rule == "over" and src.kind in "iu":
        big = np.finfo(_real_dtype(dst)).max
        edge = int(big) + int(big - np.nextafter(big, big.dtype.type(0))) // 2
        return -edge, edge
    if rule == "int":
        info = np.iinfo(dst)
        return _floor(int(info.min) - 1, src), _ceil(int(info.max) + 1, src)
    top = float(np.finfo(_real_dtype(dst)).max)
    with np.errstate(over="ignore"):
        return (np.nextafter(np.array(-top, src), np.array(-np.inf, src))[()],
                np.nextafter(np.array(top, src), np.array(np.inf, src))[()])


def _in_range(h: np.ndarray, rule: str, dst: np.dtype) -> bool:
    """Whether every element of host data ``h`` lies within ``_limits`` (NaN does not)."""
    if h.size == 0:
        return True
    if h.dtype.kind == "c":
        if rule == "over":  # both parts count: the kernel decides
            return False
        h = h.real
    low, high = _limits(h.dtype, dst, rule)
    lo, hi = _min(h, axis=None), _max(h, axis=None)
    if h.dtype.kind in "iu":  # (the limits are Python ints, perhaps outside the dtype)
        lo, hi = int(lo), int(hi)
    return bool(low < lo) and bool(hi < high)


def _astype(host: Any, dst: np.dtype, loop: str) -> Any:
    """``host.astype(dst)``, its floating-point errors reported as NumPy reports them for a
    cast inside ``loop``."""
    if loop == "cast":
        return call_numpy_ufunc(host.astype, (dst,), {})
    flags = [0]

    def collect(_kind: str, flag: int) -> None:
        flags[0] |= flag

    with np.errstate(all="call", call=collect):
        new = host.astype(dst)
    if flags[0]:
        report(flags[0], loop)
    return new


_min, _max = np.minimum.reduce, np.maximum.reduce  # (no Python wrapper: small arrays)


def _numpy_cast(value: Any, dst: np.dtype, loop: str = "cast") -> Any:
    """NumPy's cast of ``value``: of a host copy, placed where ``value`` is, for device
    values; host data is cast as it is. Its floating-point errors are reported as raised in
    ``loop``."""
    host = value if isinstance(value, np.ndarray | np.generic) else _stats.fetch(value)
    if host.dtype.kind == "c" and dst.kind != "c":  # NumPy's own complex loop (its values
        with warnings.catch_warnings():  # differ from the real part's); the caller warned
            warnings.simplefilter("ignore", ComplexWarning)
            new = _astype(host, dst, loop)
    else:
        new = _astype(host, dst, loop)
    if host is value:
        return new
    _stats.record_transfer("host_to_device", new.nbytes)
    return jax.device_put(new, value.sharding)
