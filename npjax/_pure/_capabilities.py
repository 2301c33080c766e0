"""What each JAX backend computes: the capability table, and the host route for the rest.

XLA does not compute every operation on every backend: on a TPU, LU and FFTs of float64 and
complex128 are refused at compile time ("Only F32 and C64 types are implemented in
LuDecomposition", "Unexpected operand type for FFT: c128"). The table below says, per operation
family and compute dtype, on which platforms that happens; it was read off
``benchmarks/capability_probe.py`` runs on each backend (rerun it on a new backend or JAX
version and update the table).

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

# family -> platform -> compute dtypes that platform's XLA does not compute (probe results)
_TPU_NO_64 = frozenset({"float64", "complex128"})
TABLE: dict[str, dict[str, frozenset[str]]] = {
    "lu": {"tpu": _TPU_NO_64},
    "fft": {"tpu": frozenset({"complex128"})},
}
# why a family goes to the host on a platform, for the report
REASONS: dict[str, str] = {
    "lu": "XLA on this backend has no float64/complex128 LU decomposition",
    "fft": "XLA on this backend has no complex128 FFT",
}
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
