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

Values of the dtypes the default backend's arrays never hold (``_capabilities.HOST_DTYPES``:
float64 and complex128 on a TPU, which keeps a float64 as two float32 values and fails on
complex128) never live on the accelerator: a lazy program holding one anywhere
(``holds_host_dtype``) runs on the CPU backend every time, and so does an eager kernel given
or making one (``eager_on_cpu``, ``run_now``); those results stay in the CPU backend's memory
(host memory), the others go back to the accelerator. Counted in
``stats()["lazy"]["host_dtype_on_cpu"]``.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.extend.core as jax_core
import numpy as np

from npjax._pure import _capabilities
from npjax._pure._dtypes import TRACING, backend_host_dtypes
from npjax._runtime import _stats

__all__ = ["run"]

_EMULATED = frozenset(map(np.dtype, ("float64", "complex128", "int64", "uint64")))


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


def held_on_cpu() -> frozenset:
    """The dtypes whose device work runs on the CPU backend (the default backend's
    ``_capabilities.HOST_DTYPES``; empty on most platforms, and while ``npjax.jit`` traces:
    ``_dtypes.TRACING``)."""
    held = _held()
    return held if not held or not TRACING.get() else frozenset()  # (no lookup on most)


@functools.cache
def _held() -> frozenset:
    return frozenset(map(np.dtype, backend_host_dtypes()))


def is_held(*dtypes: Any) -> bool:
    """Whether one of ``dtypes`` (None skipped) is one of ``held_on_cpu``: a dtype the
    accelerator cannot hold (float64 on a TPU), whose values NumPy handles on the host."""
    held = held_on_cpu()
    return bool(held) and any(d is not None and np.dtype(d) in held for d in dtypes)


def holds_host_dtype(fn: Any, args: list) -> bool:
    """Whether ``fn(*args)`` holds a value of ``held_on_cpu`` anywhere (one trace, once per
    program: ``_lazy._compile``)."""
    held = held_on_cpu()
    if not held or cold_device() is None:
        return False
    return holds(jax.make_jaxpr(fn)(*args).jaxpr, held)


def traces_host_dtype(jitted: Any, args: tuple) -> bool:
    """Whether the ``jax.jit`` function ``jitted`` holds a value of ``held_on_cpu`` anywhere
    when traced with ``args`` (its trace, which a later call of the same types reuses)."""
    held = held_on_cpu()
    if not held or cold_device() is None:
        return False
    return holds(jitted.trace(*args).jaxpr.jaxpr, held)


def holds(jaxpr: Any, held: frozenset) -> bool:
    """Whether a value of ``jaxpr`` (its constants included) has a dtype of ``held``."""
    return any(_held_value(v, held) for v in _variables(jaxpr))


def eqn_holds(eqn: Any, held: frozenset) -> bool:
    """Whether the equation ``eqn`` reads, makes or holds inside a value of ``held``."""
    return any(_held_value(v, held) for v in (*eqn.invars, *eqn.outvars)) or any(
        holds(sub, held) for sub in jax_core.jaxprs_in_params(eqn.params))


def _held_value(v: Any, held: frozenset) -> bool:
    """A value of a dtype of ``held`` (a weakly typed scalar, a Python number on its way to
    another dtype, does not count)."""
    aval = v.aval
    return getattr(aval, "dtype", None) in held and not (aval.weak_type and not aval.shape)


def _variables(jaxpr: Any) -> Any:
    yield from jaxpr.constvars
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
    run of one that ``holds_host_dtype`` (``always``; see above); None where that does not
    apply."""
    if always:
        values, suspect = _on_cpu(compiled, (neg_zero, *inputs))
        _stats.lazy["host_dtype_on_cpu"] += 1
        return values, suspect
    home = _home(inputs)
    cpu = cold_device() if home is not None else None
    if cpu is None or cpu == home:
        return None
    try:
        values, suspect = _on_cpu(compiled, (neg_zero, *inputs), home)
    except Exception:  # (whatever fails here runs where it always ran, and fails there)
        return None
    _stats.lazy["cold_on_cpu"] += 1
    return values, suspect


def _on_cpu(fn: Any, args: tuple, home: Any = None) -> Any:
    """``fn(*args)`` on the CPU backend: its array arguments sent there, its results back to
    ``home`` (the accelerator's default device when None) except those of ``held_on_cpu``
    (they stay in host memory, committed there: an uncommitted result of host operands, a
    random key made by NumPy, would follow the next ``jax.jit`` call to the default device,
    the accelerator). Transfers counted."""
    cpu = cold_device()
    if home is None:
        home = jax.devices()[0]
    sent = [x for x in jax.tree.leaves(args)
            if isinstance(x, jax.Array) and next(iter(x.devices())) != cpu]
    args = jax.tree.map(lambda x: jax.device_put(x, cpu) if isinstance(x, jax.Array | np.ndarray)
                        else x, args)
    if any(isinstance(x, jax.Array) for x in jax.tree.leaves(args)):
        # operands committed to the CPU place the call: no default-device context, whose
        # change would trace a ``jax.jit`` function again (``npjax.jit``'s trace, which
        # ``traces_host_dtype`` ran, would run the user's Python a second time)
        out = fn(*args)
    else:
        with jax.default_device(cpu):
            out = fn(*args)
    keep = held_on_cpu()
    moved: list = []

    def back(v: Any) -> Any:
        if not isinstance(v, jax.Array) or home == cpu:
            return v
        if v.dtype in keep:
            return v if v.committed else jax.device_put(v, cpu)
        moved.append(v.nbytes)
        return jax.device_put(v, home)

    out = jax.tree.map(back, out)
    _stats.record_transfer("device_to_host", sum(x.nbytes for x in sent), len(sent))
    _stats.record_transfer("host_to_device", sum(moved), len(moved))
    return out


# Whether eager kernels (``_lazy.Kernel.now``) are given or make a value of ``held_on_cpu``,
# by kernel and argument types (bounded: cleared when full).
_MAKES_HELD: dict = {}


def _kind(x: Any) -> Any:
    if isinstance(x, jax.Array | np.ndarray | np.generic):
        return (x.shape, x.dtype, getattr(x, "weak_type", False))
    if type(x) in (int, float, complex, bool):
        return type(x)
    try:
        hash(x)
    except TypeError:
        return type(x)
    return x


def eager_on_cpu(fn: Any, args: tuple) -> bool:
    """Whether the eager kernel ``fn(*args)`` holds a value of ``held_on_cpu`` anywhere: an
    operand, a result or a step between (asked once per kernel and argument types, by one
    trace). Never under a trace."""
    leaves = jax.tree.leaves(args)
    if any(isinstance(x, jax.core.Tracer) for x in leaves) or cold_device() is None:
        return False
    key = (fn, tuple(map(_kind, leaves)))
    found = _MAKES_HELD.get(key)
    if found is None:
        held = held_on_cpu()
        try:
            found = holds(jax.make_jaxpr(fn)(*args).jaxpr, held)
        except Exception:  # (the call itself raises it, where it runs)
            found = any(getattr(x, "dtype", None) in held for x in leaves)
        if len(_MAKES_HELD) > 4096:
            _MAKES_HELD.clear()
        _MAKES_HELD[key] = found
    return found


def run_now(fn: Any, args: tuple) -> Any:
    """The eager kernel ``fn(*args)`` run on the CPU backend (see ``eager_on_cpu``); its
    other results go back to the accelerator. Counted in
    ``stats()["lazy"]["host_dtype_on_cpu"]``."""
    home = next((next(iter(x.devices())) for x in jax.tree.leaves(args)
                 if isinstance(x, jax.Array) and next(iter(x.devices())) != cold_device()),
                None)
    out = _on_cpu(fn, args, home)
    _stats.lazy["host_dtype_on_cpu"] += 1
    return out


def call(fn: Any, args: tuple) -> Any:
    """``fn(*args)`` (a ``jax.jit`` function called outside ``_lazy.Kernel``), on the CPU
    backend where it holds a value of ``held_on_cpu`` (``eager_on_cpu``)."""
    if held_on_cpu() and eager_on_cpu(fn, args):
        return run_now(fn, args)
    return fn(*args)


def on_cpu_backend(data: Any) -> Any:
    """Host data (NumPy's) of a ``held_on_cpu`` dtype as a ``jax.Array`` on the CPU backend (a
    copy), where such values live as JAX values; None for other data."""
    cpu = cold_device()
    if cpu is None or np.dtype(data.dtype) not in held_on_cpu():
        return None
    return jax.device_put(np.array(data), cpu)


def on_accelerator(result: Any) -> bool:
    """Whether ``result`` (a computed value, an npjax array, or a tuple or list of them) is a
    value of ``held_on_cpu`` outside the CPU backend: work a library function did directly
    with ``jax.numpy`` (not through ``_lazy.Kernel``), which the caller then redoes on the
    host. Pending lazy values and traced ones do not count (their programs decide)."""
    held = held_on_cpu()
    if not held:
        return False
    items = result if isinstance(result, tuple | list) else (result,)
    for x in items:
        # (an npjax array's own value; a jax.Array's ``_value`` is its NumPy copy; asked of
        # the type, so that a pending ``Lazy``, whose other attributes compute it, is left)
        value = x if isinstance(x, jax.Array) else \
            x._value if hasattr(type(x), "_value") and x._base is None else None
        if isinstance(value, jax.Array) and not isinstance(value, jax.core.Tracer) \
                and value.dtype in held and cold_device() not in value.devices():
            return True
    return False
