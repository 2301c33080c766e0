"""A lazy program's first run on the host's CPU backend, where the accelerator compiles slowly.

On a TPU float64, complex128 and 64-bit integers are emulated, and XLA's TPU compiler takes
seconds for each of their transcendental functions (``benchmarks/tpu_op_compile.py``: a float64
``exp`` of (20000, 50) 4.2 s, ``erf`` 10.5 s; float32 ones 0.04-2 s), so the first run of a
program of such values costs seconds more than NumPy takes for it, while a program run once
(a script's one pass over its data) never earns that compile back. The first time a program
structure is flushed (``_lazy._run``) and its inputs hold such a dtype on a platform of
``_capabilities.COLD_ON_CPU``, it runs on the CPU backend of the same process (native float64,
compiled in a fraction of a second, the CPU semantics npjax's parity suites test) and its
results go back to the inputs' device; a later flush of the same structure compiles it for
the accelerator as before. Counted in ``stats()["lazy"]["cold_on_cpu"]`` and the transfers.

A program holding complex128 anywhere (``holds_complex128``) runs there every time on a
platform of ``_capabilities.COMPLEX_ON_CPU``: the TPU's compiler fails on complex128 at many
shapes and takes seconds for what it compiles.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.extend.core as jax_core
import numpy as np

from npjax._pure import _capabilities
from npjax._runtime import _stats

__all__ = ["run"]

_EMULATED = frozenset(map(np.dtype, ("float64", "complex128", "int64", "uint64")))
_C128 = np.dtype(np.complex128)


@functools.lru_cache(maxsize=1)
def cold_device() -> Any:
    """The CPU device cold programs run on (None: this process has no CPU backend)."""
    try:
        return jax.devices("cpu")[0]
    except RuntimeError:
        return None


def _device(inputs: Any) -> Any:
    """The one device of the program's array inputs (None: none, several, or sharded)."""
    home = None
    for x in inputs:
        if isinstance(x, jax.Array):
            devices = x.devices()
            if len(devices) != 1 or (home is not None and next(iter(devices)) != home):
                return None
            home = next(iter(devices))
    return home


def holds_complex128(fn: Any, args: list) -> bool:
    """Whether ``fn(*args)`` holds a complex128 value anywhere, where its inputs' platform
    runs such programs on the CPU (one trace, once per program: ``_lazy._compile``)."""
    home = _device(args)
    if home is None or home.platform not in _capabilities.COMPLEX_ON_CPU:
        return False
    jaxpr = jax.make_jaxpr(fn)(*args).jaxpr
    return any(v.aval.dtype == _C128 for v in _variables(jaxpr) if hasattr(v.aval, "dtype"))


def _variables(jaxpr: Any) -> Any:
    yield from jaxpr.invars
    for eqn in jaxpr.eqns:
        yield from eqn.outvars
        for sub in jax_core.jaxprs_in_params(eqn.params):
            yield from _variables(sub)


def _home(inputs: Any) -> Any:
    """The one device of the program's array inputs, where its platform runs cold programs on
    the CPU and one of them (or a host operand sent with them) holds an emulated dtype; else
    None."""
    home = _device(inputs)
    if home is None or home.platform not in _capabilities.COLD_ON_CPU:
        return None
    emulated = any(isinstance(x, jax.Array | np.ndarray) and x.dtype in _EMULATED
                   for x in inputs)
    return home if emulated else None


def run(compiled: Any, neg_zero: Any, inputs: list, always: bool = False) -> tuple | None:
    """``compiled(neg_zero, *inputs)`` run on the CPU backend, its values put back on the
    inputs' device: the first run of a program whose accelerator compile is slow, or every
    run of one that ``holds_complex128`` (``always``; see above); None where that does not
    apply."""
    home = _device(inputs) if always else _home(inputs)
    args = (neg_zero, *inputs)
    cpu = cold_device() if home is not None else None
    if cpu is None or cpu == home:
        return None
    sent = [x for x in args if isinstance(x, jax.Array)]
    try:
        values, suspect = compiled(*(jax.device_put(x, cpu) if isinstance(x, jax.Array)
                                     else x for x in args))
        values = jax.device_put(values, home)
    except Exception:  # (whatever fails here runs where it always ran, and fails there)
        return None
    _stats.lazy["complex_on_cpu" if always else "cold_on_cpu"] += 1
    _stats.record_transfer("device_to_host", sum(x.nbytes for x in sent), len(sent))
    _stats.record_transfer("host_to_device", sum(v.nbytes for v in values), len(values))
    return values, suspect
