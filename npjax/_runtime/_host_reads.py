"""Where a value can be read: on the host without a transfer (``on_host``), or only by a
device read, which the checks count (``SYNCS``)."""

from __future__ import annotations

import collections
from typing import Any

import jax

try:  # the type of a computed jax.Array (not a tracer, nor a value lazy mode left)
    from jax._src.array import ArrayImpl as CONCRETE
except ImportError:  # pragma: no cover - other JAX layouts: no type matches, general paths
    CONCRETE = None

# "checks": device reads made by checks at the call; "deferred": checks deferred;
# "deferred_reads": reads of deferred checks (one per flush); "bounds": index bounds checks.
SYNCS: collections.Counter = collections.Counter()

_all_cpu: bool | None = None

_host_only = False  # CPU-only JAX in one process: every array is host memory here


def on_host(x: Any) -> bool:
    """Whether ``x`` can be read on the host without a transfer (CPU backend or host data)."""
    global _all_cpu, _host_only
    if _host_only:  # the hot path: one global read
        return True
    if not isinstance(x, jax.Array):
        return True
    if _all_cpu is None:
        _all_cpu = all(d.platform == "cpu" for d in jax.devices())
        _host_only = _all_cpu and jax.process_count() == 1
    if _all_cpu:  # a global array over several processes (npjax.distributed) is not
        return x.is_fully_addressable  # readable here: checked on the devices instead
    return all(d.platform == "cpu" for d in x.devices())


_single: bool | None = None


def single_process() -> bool:
    """Whether this JAX runs in one process (every device array fully addressable here)."""
    global _single
    if _single is None:
        _single = jax.process_count() == 1
    return _single


def forget_backends() -> None:
    """Find the backends again at the next ``on_host`` (``npjax.distributed`` restarts them:
    a single CPU process may become one of several)."""
    global _all_cpu, _host_only, _single
    _all_cpu, _host_only, _single = None, False, None
