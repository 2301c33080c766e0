"""What each JAX backend computes: the capability table, and the host route for the rest.

XLA does not compute every operation on every backend: on a TPU, LU and FFTs of float64 and
complex128 are refused at compile time ("Only F32 and C64 types are implemented in
LuDecomposition", "Unexpected operand type for FFT: c128"). The table below says, per operation
family and compute dtype, on which platforms that happens; it was read off
``benchmarks/capability_probe.py`` runs on each backend (rerun it on a new backend or JAX
version and update the table).

Conversions are the other kind of gap: the TPU's XLA aborts the whole process on a
conversion to complex128 from any other type and on a boolean converted to a 64-bit type
("Unsupported CVT X{64|128} expansion from f64[3,4] to c128[3,4]", "... from pred[128,1]"),
which ``1j * x``, ``x.astype(complex)``, ``jnp.eye`` of complex128 and XLA's own linalg
expansions all emit. ``install_conversions`` lowers these on the platforms in
``CONVERT_VIA_32`` as conversions to float64 parts joined by ``complex(re, im)``, and a
boolean through 32 bits: the same values, one or two more elementwise steps.

``route`` stages the choice into the kernel with ``lax.platform_dependent``: the device
implementation where the backend computes the family, NumPy (LAPACK, pocketfft) on the host
through ``jax.pure_callback`` where it does not. So the same kernel runs eagerly, is recorded
by lazy mode and is traced by ``npjax.jit``, and the choice is made when XLA lowers the program
for its platform, never from a guess about the current default device. Each host run is
counted in ``ROUTED`` (``npjax.stats()["host_routes"]``, the runner's report).
"""

from __future__ import annotations

import collections
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import jax
import numpy as np
from jax import lax

# family -> platform -> compute dtypes that go to the host there. Read off
# benchmarks/capability_probe.py on a TPU v5e (JAX 0.10.2): XLA refuses float64/complex128 LU
# and FFTs and has no eig at all; complex128 Cholesky, QR, SVD and eigh abort the process;
# float64 SVD and eigh compile for 5-30 s and more (a 384 x 384 eigvalsh: over 30 s) and run
# 4-40x slower than LAPACK on the host; float32 lstsq/pinv through jax.numpy aborted too, so
# SVD goes to the host in every dtype there. float64 Cholesky and QR work but agree with
# LAPACK to 2e-11 and 5e-10 only (emulated float64) and run 3-9x slower (128 x 128).
_ALL = frozenset({"float32", "float64", "complex64", "complex128"})
TABLE: dict[str, dict[str, frozenset[str]]] = {
    "lu": {"tpu": frozenset({"float64", "complex128"})},
    "cholesky": {"tpu": frozenset({"float64", "complex128"})},
    "qr": {"tpu": frozenset({"float64", "complex128"})},
    "svd": {"tpu": _ALL},
    "eigh": {"tpu": _ALL},
    "eig": {"tpu": _ALL},
    "fft": {"tpu": frozenset({"complex128"})},
    # npjax's sorts sort integer keys with a 64-bit index; at 2**20 elements the TPU compiled
    # jnp.sort for 10-20 s (int32, float32) and over 20 s (int64), argsort 18 s and more
    "sort": {"tpu": frozenset({"bool", "uint8", "int8", "uint16", "int16", "uint32", "int32",
                               "uint64", "int64"})},
}
# why a family goes to the host, for the report
REASONS: dict[str, str] = {
    "lu": "no float64/complex128 LU decomposition in this backend's XLA",
    "cholesky": "Cholesky: complex128 aborts, float64 is 2e-11 from LAPACK and slower on "
                "this backend",
    "qr": "QR: complex128 aborts, float64 is 5e-10 from LAPACK and slower on this backend",
    "svd": "SVD: complex128 aborts, float64 compiles for 25 s and runs 40x slower than "
           "LAPACK on this backend",
    "eigh": "eigh: complex128 aborts, float64 and large float32 compile for over 10 s on "
            "this backend",
    "eig": "no eig in this backend's XLA",
    "fft": "no complex128 FFT in this backend's XLA",
    "sort": "a sort of 2**20 elements compiles for 10-20 s and more on this backend",
}
# platforms whose XLA cannot convert to complex128, or a boolean to a 64-bit type, directly
CONVERT_VIA_32: tuple[str, ...] = ("tpu",)

# platforms where cumulative sums, products, maxima and minima lower as a parallel prefix
# scan (log2(n) levels) instead of XLA's reduce-window: on a TPU the latter compiled for over
# 20 s for 2**20 int32/int64/float32 elements (the probe's cumsum cases)
SCAN_AS_TREE: tuple[str, ...] = ("tpu",)

# (family, dtype) -> number of host runs
ROUTED: collections.Counter = collections.Counter()

_simulated: dict[str, dict[str, frozenset[str]]] = {}


def host_platforms(family: str, dtype: Any) -> tuple[str, ...]:
    """The platforms whose XLA does not compute ``family`` in ``dtype``."""
    name = np.dtype(dtype).name
    found = {**TABLE.get(family, {}), **_simulated.get(family, {})}
    return tuple(sorted(p for p, dts in found.items() if name in dts))


def reason(family: str) -> str:
    return REASONS.get(family, f"XLA on this backend does not compute {family}")


@contextlib.contextmanager
def simulate(family: str, platform: str, dtypes: tuple[str, ...]) -> Iterator[None]:
    """Tests: pretend ``platform`` cannot compute ``family`` in ``dtypes`` (compiled
    programs are dropped on entry and exit, so the staged choice is made again)."""
    before = _simulated.get(family)
    _simulated[family] = {**(before or {}), platform: frozenset(dtypes)}
    jax.clear_caches()
    try:
        yield
    finally:
        if before is None:
            del _simulated[family]
        else:
            _simulated[family] = before
        jax.clear_caches()


def route(family: str, dtype: Any, device_fn: Callable, numpy_fn: Callable,
          *args: Any) -> Any:
    """``device_fn(*args)`` where the backend computes ``family`` in ``dtype``, else
    ``numpy_fn`` on host copies of ``args`` (it returns NumPy values of the device
    function's result shapes and dtypes)."""
    platforms = host_platforms(family, dtype)
    if not platforms:
        return device_fn(*args)

    def on_device(*a: Any) -> Any:
        return _plain(device_fn(*a))

    shapes = jax.eval_shape(on_device, *args)
    key = (family, np.dtype(dtype).name)

    def on_host(*host_args: Any) -> Any:
        ROUTED[key] += 1
        got = _plain(numpy_fn(*(np.asarray(a) for a in host_args)))
        return jax.tree.map(lambda g, s: np.asarray(g, dtype=s.dtype).reshape(s.shape),
                            got, shapes)

    def host_fn(*a: Any) -> Any:
        return jax.pure_callback(on_host, shapes, *a, vmap_method="sequential")

    return lax.platform_dependent(*args, default=on_device,
                                  **dict.fromkeys(platforms, host_fn))


def _plain(x: Any) -> Any:
    """Named results (JAX's and NumPy's ``SVDResult``...) as plain tuples."""
    return tuple(x) if isinstance(x, tuple) else x


_VIA_32 = {"i": np.dtype(np.int32), "u": np.dtype(np.uint32), "f": np.dtype(np.float32)}
_F64, _C128 = np.dtype(np.float64), np.dtype(np.complex128)


def _convert_via_32(base: Callable) -> Callable:
    """``convert_element_type``'s lowering without the conversions the TPU's XLA aborts on:
    a boolean to a 64-bit type goes through the 32-bit type of its kind, and anything but
    complex128 to complex128 is built from float64 parts (``complex(re, im)``)."""
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir.dialects import hlo

    def to(ctx: Any, x: Any, aval: Any, dtype: np.dtype) -> tuple[Any, Any]:
        out = aval.update(dtype=dtype)
        return mlir.convert_hlo(ctx, x, aval, out), out

    def real_f64(ctx: Any, x: Any, aval: Any) -> Any:
        if aval.dtype == np.bool_:
            x, aval = to(ctx, x, aval, np.dtype(np.float32))
        return to(ctx, x, aval, _F64)[0]

    def rule(ctx: Any, operand: Any, **params: Any) -> Any:
        (aval_in,) = ctx.avals_in
        (aval_out,) = ctx.avals_out
        new = np.dtype(params["new_dtype"])
        if new == _C128 and aval_in.dtype != _C128:
            if aval_in.dtype.kind == "c":
                part = aval_in.update(dtype=np.dtype(np.float32))
                re = to(ctx, hlo.real(operand), part, _F64)[0]
                im = to(ctx, hlo.imag(operand), part, _F64)[0]
            else:
                re = real_f64(ctx, operand, aval_in)
                im = mlir.full_like_aval(ctx, 0, aval_in.update(dtype=_F64))
            return [mlir.lower_with_sharding_in_types(ctx, hlo.complex(re, im), aval_out)]
        if aval_in.dtype == np.bool_ and new.itemsize == 8 and new.kind in _VIA_32:
            operand, aval_in = to(ctx, operand, aval_in, _VIA_32[new.kind])
            ctx = ctx.replace(avals_in=[aval_in])
        return base(ctx, operand, **params)

    return rule


def install_conversions(platforms: tuple[str, ...] = CONVERT_VIA_32) -> bool:
    """Lower conversions to complex128 and boolean -> 64-bit ones as ``_convert_via_32``
    says on ``platforms`` (JAX's lowering registry, for the whole process); False where
    this JAX has no such hook."""
    try:
        from jax._src.interpreters import mlir
        from jax._src.lax import lax as lax_internal
        base = lax_internal._convert_element_type_lower
    except (ImportError, AttributeError):
        return False
    rule = _convert_via_32(base)
    for platform in platforms:
        mlir.register_lowering(lax.convert_element_type_p, rule, platform=platform)
    return True


def install_scans(platforms: tuple[str, ...] = SCAN_AS_TREE) -> bool:
    """Lower ``cumsum``/``cumprod``/``cummax``/``cummin`` as ``lax.associative_scan`` on
    ``platforms``; False where this JAX has no such hook."""
    try:
        from jax._src.interpreters import mlir
        from jax._src.lax.control_flow import loops
    except ImportError:
        return False
    combine = {loops.cumsum_p: lax.add, loops.cumprod_p: lax.mul, loops.cummax_p: lax.max,
               loops.cummin_p: lax.min}
    for prim, fn in combine.items():
        def tree(x: Any, *, axis: int, reverse: bool, fn: Callable = fn) -> Any:
            return lax.associative_scan(fn, x, reverse=reverse, axis=axis)

        for platform in platforms:
            mlir.register_lowering(prim, mlir.lower_fun(tree, multiple_results=False),
                                   platform=platform, inline=False)
    return True


install_conversions()
install_scans()
