"""npjax.distributed: one NumPy script over several processes and hosts (``jax.distributed``).

Every process runs the same script (SPMD, JAX's multi-controller model). After
``initialize``, the policy's ``sharding`` is ``"auto"`` over a mesh of the devices of *all*
processes, so every npjax array is a global ``jax.Array``:

- arrays made from host data (``npjax.array(list)``, ``asarray(numpy_array)``...) are global
  arrays built from that host data; every process must pass the same data (each process
  places the parts its own devices hold; nothing checks that the data agree);
- creation functions and operations run as one program on all devices (XLA's collectives;
  on CPUs through gloo);
- writes (``a[i] = v``) run the same update on every process, so all see the same array,
  provided every process performs them with the same indices and values;
- ``np.asarray(a)``, ``print(a)``, ``a.tolist()`` and ``float(a)`` gather the whole array to
  every process (a collective: every process must make the call).
"""

from __future__ import annotations

import os
from typing import Any

import jax
import numpy as np

from npjax._runtime import _context

__all__ = ["initialize", "is_initialized", "process_count", "process_index", "shutdown"]

_state = {"initialized": False}


def _env_int(names: tuple[str, ...]) -> int | None:
    for name in names:
        raw = os.environ.get(name)
        if raw:
            return int(raw)
    return None


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, local_device_ids: Any = None, *,
               cpu_collectives: str | None = "gloo", initialization_timeout: int = 300,
               sharding: Any = "auto") -> None:
    """Join this process to a multi-process JAX computation and place arrays over all of it.

    coordinator_address: "host:port" of process 0 (default: ``$NPJAX_COORDINATOR_ADDRESS``
    or ``$JAX_COORDINATOR_ADDRESS``); num_processes, process_id: default from
    ``$NPJAX_NUM_PROCESSES``/``$JAX_NUM_PROCESSES`` and ``$NPJAX_PROCESS_ID``/
    ``$JAX_PROCESS_ID``, else JAX's cluster detection (SLURM, MPI, ...).
    cpu_collectives: CPU collectives implementation ("gloo" by default, "mpi", or None to
    keep JAX's setting). sharding: the policy's sharding from now on (default "auto").
    """
    if _state["initialized"]:
        raise RuntimeError("npjax.distributed.initialize was already called")
    if coordinator_address is None:
        coordinator_address = (os.environ.get("NPJAX_COORDINATOR_ADDRESS")
                               or os.environ.get("JAX_COORDINATOR_ADDRESS"))
    if num_processes is None:
        num_processes = _env_int(("NPJAX_NUM_PROCESSES", "JAX_NUM_PROCESSES"))
    if process_id is None:
        process_id = _env_int(("NPJAX_PROCESS_ID", "JAX_PROCESS_ID"))
    if cpu_collectives is not None:
        jax.config.update("jax_cpu_collectives_implementation", cpu_collectives)
    if not jax.distributed.is_initialized():
        _restart_backends()
        jax.distributed.initialize(coordinator_address, num_processes, process_id,
                                   local_device_ids,
                                   initialization_timeout=initialization_timeout)
        _after_restart()
    _state["initialized"] = True
    _context.set_policy(sharding=sharding)


_saved: dict[str, Any] = {}


def _restart_backends() -> None:
    """Importing npjax already started JAX's local backend (the global random state holds a
    key on it); ``jax.distributed.initialize`` must come before that, so the backend is
    dropped and the key carried over through the host."""
    from jax._src import xla_bridge

    if not xla_bridge.backends_are_initialized():
        return
    from jax._src.api import clear_backends

    from npjax.random import _legacy

    _saved["key"] = np.asarray(_legacy._rand._key)
    _saved["rand"] = _legacy._rand
    clear_backends()


def _after_restart() -> None:
    from npjax._runtime import _host_reads
    from npjax._core import _normalize, _sharding

    for cached in (_sharding._devices, _sharding._default_mesh, _sharding._target,
                   _normalize.resolve_device):
        cached.cache_clear()
    _host_reads.forget_backends()
    if "key" in _saved:
        _saved["rand"]._key = jax.device_put(_saved.pop("key"))
        _saved.pop("rand")


def is_initialized() -> bool:
    """Whether ``initialize`` has run in this process."""
    return _state["initialized"]


def process_count() -> int:
    """The number of processes (1 without ``initialize``)."""
    return jax.process_count()


def process_index() -> int:
    """This process's index, 0 .. process_count() - 1."""
    return jax.process_index()


def shutdown() -> None:
    """Leave the multi-process computation (``jax.distributed.shutdown``)."""
    if jax.distributed.is_initialized():
        jax.distributed.shutdown()
    _state["initialized"] = False
