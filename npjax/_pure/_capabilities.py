"""What each JAX backend computes: the capability table, and the host route for the rest.

XLA does not compute every operation on every backend: on a TPU, LU and FFTs of float64 and
complex128 are refused at compile time ("Only F32 and C64 types are implemented in
LuDecomposition", "Unexpected operand type for FFT: c128"). The table below says, per operation
family and compute dtype, on which platforms that happens; it was read off
``benchmarks/capability_probe.py`` runs on each backend (rerun it on a new backend or JAX
version and update the table).

Conversions, bitcasts and some primitives are the other kind of gap: the TPU's XLA aborts
the whole process on a conversion to or from complex128 ("Unsupported CVT X{64|128} expansion
from f64[3,4] to c128[3,4]"), which ``1j * x``, ``x.astype(complex)`` and XLA's own linalg
expansions all emit, has no 64-bit integer matrix product, and compiles some scans for half a
minute. ``install`` registers ``_lowerings``' rules for those primitives on the platforms
named here: the same values, in more steps or on the host.

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

from npjax._pure import _accurate, _lowerings

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
    # npjax's sorts (sort, argsort, lexsort, searchsorted, unique: by the input's dtype; and the
    # sort primitive wherever a program meets it, by its first key's dtype) sort
    # integer keys with a 64-bit index; at 2**20 elements the TPU compiled jnp.sort for 10-20 s
    # (int32, float32) and over 20 s (int64), argsort 18 s and more; and its emulated float64
    # has no exact bits to build keys from (a float64 sort came back out of order at 4e-8)
    "sort": {"tpu": frozenset({"bool", "uint8", "int8", "uint16", "int16", "uint32", "int32",
                               "uint64", "int64", "float16", "float32", "float64",
                               "complex64", "complex128"})},
    # primitives computed on the host wherever a program meets them (_lowerings.install_on_host):
    # a 64-bit integer matrix product is "not implemented" in the TPU's 64-bit emulation; a
    # cumulative sum of 2**20 elements compiled for 25-32 s there (64-bit types and float32,
    # even as a tree; int32 as a tree in 0.25 s)
    # complex128 products came back wrong (by 1e4 at 64 x 64: benchmarks/tpu_small_shapes.py);
    # float64 ones are 5e-11 from NumPy's (emulated float64) and compiled for 12.8 s at 256 x 256
    "dot_general": {"tpu": frozenset({"int64", "uint64", "float64", "complex128"})},
    **{scan: {"tpu": frozenset({"int64", "uint64", "float16", "float32", "float64",
                                "complex64", "complex128"})}
       for scan in ("cumsum", "cumprod", "cummax", "cummin")},
    # complex128 primitives XLA's TPU compiler aborts on (tan, tanh, expm1, sign, pow: the
    # process dies in its "xprecision" rewriter) or refuses (transposes and concatenations
    # fail a layout check at most shapes: 3 x 3, 5 x 5, 128 x 128, 2 x 3 x 4), seen compiling
    # for a compile-only v5e (benchmarks/tpu_complex_compile.py)
    **{prim: {"tpu": frozenset({"complex128"})}
       for prim in ("tan", "tanh", "expm1", "sign", "pow", "transpose", "concatenate")},
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
    "dot_general": "no 64-bit integer matrix product in this backend's XLA; its complex128 "
                   "ones are wrong and its float64 ones 5e-11 from NumPy's",
    **dict.fromkeys(("cumsum", "cumprod", "cummax", "cummin"),
                    "a cumulative scan of 2**20 floats or 64-bit integers compiles for 25 s "
                    "and more on this backend"),
    **dict.fromkeys(("tan", "tanh", "expm1", "sign", "pow"),
                    "this backend's compiler aborts on it in complex128"),
    **dict.fromkeys(("transpose", "concatenate"),
                    "this backend's compiler fails a layout check on it in complex128"),
}
# platforms whose XLA cannot convert to or from complex128 (or a boolean to a 64-bit type)
# directly, nor bitcast float64 to a 64-bit integer (_lowerings: in more steps), and aborts on
# a complex128 ``abs`` or division (_lowerings: from the float64 parts)
CONVERT_VIA_32: tuple[str, ...] = ("tpu",)

# platforms where cumulative sums, products, maxima and minima lower as a parallel prefix
# scan (log2(n) levels) instead of XLA's reduce-window: on a TPU the latter compiled for over
# 20 s for 2**20 int32/int64/float32 elements (the probe's cumsum cases)
SCAN_AS_TREE: tuple[str, ...] = ("tpu",)

# platforms whose XLA computes float32 logarithms, hyperbolic functions and ``rem`` far outside
# NumPy's ulp or two: npjax lowers them as ``_accurate``'s functions there (float16, bfloat16
# through float32; complex64 log, log1p, power and the inverse trigonometric and hyperbolic
# functions, which XLA expands with its own log). On a TPU v5e (JAX 0.10.2, the parity suites
# with every array on the chip; benchmarks/results/tpu/ulps_eager_chip.md) float32 log(3) was
# 1.0986747 (NumPy 1.0986123, 5.7e-5 relative), log1p(3.4028235e38) 0.0 (NumPy 88.72284),
# tanh(1.5) 0.90512085 (0.90514821); max ulps: log, log2, log10, log1p, arcsinh, arccosh,
# arctanh ~4000, sinh 1696, expm1 1582, tanh 1348, exp 104; fmod(-3.4028235e38, -4.1200732e16)
# gave -0.0 (NumPy -3.8625234e16: XLA's rem loses large quotients); complex64 arccos(1+1j)
# -1.0613295j (NumPy -1.0612751j). The rules' own error: benchmarks/accurate_ulps.py
# (benchmarks/results/tpu/accurate_float32.md). exp and exp2 too: XLA's were 110 and 100 ulps
# off over [-87, 88] (8.5e-6 relative: outside the suites' float32 rtol of 2e-6), the rules 2
# and 1, at the same speed (1.61 ms at 2**20 elements) but 1.2 s (exp) and 0.5 s (exp2) more
# to compile alone (benchmarks/tpu_complex64_probe.py, 2026-12-07). complex64 tanh, tan
# (XLA's: tanh(1e-30 + 0.5j) = 0.546j, NumPy 1.3e-30 + 0.546j; NaN from |x| = 50) and arctan
# (4e-6 off at -2.5j) too.
ACCURATE_FLOAT32: tuple[str, ...] = ("tpu",)

# platform -> float dtypes whose products npjax.jit leaves as they are, where it otherwise adds
# a -0.0 after each (``_execution._lazy.round_products``) so that XLA cannot contract a product into
# the addition after it (one rounding, as a fused multiply-add; XLA's CPU backend does). On a
# TPU float64 is emulated: each such addition is some 20 32-bit operations an element to
# compile and to run (jacobi_2d's first npjax.jit call on the chip: 31.6 s with them, 23.7 s
# without, before its loop rolled there). The chip gave the same values with and without them
# (``r - (r / 127) * 127`` of 65536 float64 values: 23266 elements differ from NumPy's under
# jax.jit, npjax.jit and npjax.jit unrounded alike; float32 2802 each: the chip's division,
# not a contraction; benchmarks/tpu_compile_probe.py's contraction step, 2026-12-06).
PRODUCTS_EXACT: dict[str, frozenset[str]] = {"tpu": frozenset({"float64", "complex128"})}

# platforms where a lazy program holding float64, complex128 or 64-bit integers runs on the
# host's CPU backend the first time its structure is flushed (``_execution/_lazy_cold.py``): their
# float64 transcendental functions compile for seconds each there (exp 4.2 s, erf 10.5 s:
# benchmarks/results/tpu/op_compile_compile_only.txt)
COLD_ON_CPU: frozenset[str] = frozenset({"tpu"})

# platform -> dtypes its arrays never hold: arrays of them are host arrays (NumPy storage)
# there, computed by NumPy like the host-only dtypes (``_pure._dtypes.is_device_dtype``), and
# device work given or making them (an eager kernel, a lazy program) runs on the host's CPU
# backend with those results kept in host memory (``_execution/_lazy_cold.py``).
# A TPU v5e keeps a float64 as two float32 values (benchmarks/tpu_float64_bits.py on the chip,
# 2026-12-06): of 100000 uniform float64 values 43.8% came back from the chip identical (the
# rest 1.8e-15 off), 1e300 came back inf, 1e-300 and 2.2e-308 as 0.0, -0.0 as 0.0 and pi as
# 3.1415926535897967; float64 sums of exact values differed from NumPy's by up to 2.7e-10
# relative, sin/cos by 10x the parity suites' tolerance (benchmarks/ulps.py on the chip).
# complex128: any program with a complex128 result of shape (10, 5), (13, 5), (5, 1) or
# (2, 3, 4) failed XLA's layout check ("xprecision_emitters.cc:78 Layout::Equal"), even
# ``z + 1``; complex128 ``log`` of 5 x 5 compiled for 22 s; reading a (10, 5) complex128
# array back from the chip halted it (RuntimeUnexpectedCoreHalt)
# (benchmarks/results/tpu/complex_compile_chip.txt, benchmarks/complex_check.py).
HOST_DTYPES: dict[str, frozenset[str]] = {"tpu": frozenset({"float64", "complex128"})}

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
    install(platform)
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
        return _lowerings.host_call(on_host, shapes, *a)

    return lax.platform_dependent(*args, default=on_device,
                                  **dict.fromkeys(platforms, host_fn))


def _plain(x: Any) -> Any:
    """Named results (JAX's and NumPy's ``SVDResult``...) as plain tuples."""
    return tuple(x) if isinstance(x, tuple) else x


def install(platform: str) -> None:
    """npjax's lowering rules for ``platform`` (``_lowerings``): the conversion, scan and
    bitcast fixes where the table's lists name it, and the host route of the primitives in
    the table (consulted when a program is lowered, so ``simulate`` reaches them)."""
    if platform in _installed:
        return
    _installed.add(platform)
    if platform in CONVERT_VIA_32:
        _lowerings.install_conversions((platform,))
        _lowerings.install_bitcasts((platform,))
        _lowerings.install_complex128((platform,))
        _lowerings.install_sorts((platform,))
    if platform in SCAN_AS_TREE:
        _lowerings.install_scans((platform,))
    if platform in ACCURATE_FLOAT32:
        _accurate.install_accurate((platform,))
    _lowerings.install_on_host(platform, lambda family, dtype: platform in host_platforms(
        family, dtype), lambda family, dtype: ROUTED.update([(family, np.dtype(dtype).name)]))


_installed: set[str] = set()
install("tpu")
