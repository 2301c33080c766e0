"""Sharding: ``npjax.mesh``, ``npjax.shard`` and where the ``sharding`` policy puts new arrays.

The policy field ``sharding`` says how *new* arrays (from host data and creation functions)
are placed; results of operations keep the sharding XLA propagates to them (GSPMD), and an
input already spread over the policy's devices is never moved again.

- ``None``: one device (the policy's ``device``), as without this module.
- ``"auto"``: arrays of at least ``shard_threshold`` elements are split over a 1-D mesh of
  all devices (``npjax.mesh()``, axis name ``"x"``) along their largest axis that the device
  count divides; smaller arrays, 0-d arrays and arrays with no such axis are *replicated* on
  every device of the mesh (so they mix with sharded ones without any move).
- a ``PartitionSpec`` (over ``npjax.mesh()``) or a ``NamedSharding``: applied to every new
  array of at least ``shard_threshold`` elements whose rank is at least the spec's length;
  others are replicated over the same mesh. A large array whose split axes the mesh does not
  divide raises ``ValueError`` (no padding).
- a ``SingleDeviceSharding``: every new array on that device.

Arrays that are not committed to a placement (made by a kernel from Python scalars only) and
committed arrays on other devices are moved to the policy's placement when they are used as
inputs; such moves count as ``device_to_device`` transfers in ``npjax.stats()``.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec, SingleDeviceSharding

from npjax._runtime import _stats
from npjax._core._array_base import ArrayBase
from npjax._runtime._context import current
from npjax._runtime._policy import Policy

__all__ = ["mesh", "shard"]

AXIS = "x"


@functools.lru_cache(maxsize=16)
def _devices(device: Any) -> tuple:
    """The devices a policy ``device`` value spans (all devices of the default backend or of
    a platform; a single ``jax.Device``)."""
    if device is None:
        return tuple(jax.devices())
    if isinstance(device, jax.Device):
        return (device,)
    return tuple(jax.devices(device))


@functools.lru_cache(maxsize=16)
def _default_mesh(device: Any) -> Mesh:
    return Mesh(np.array(_devices(device), dtype=object), (AXIS,))


def mesh(devices: Any = None, axis_names: Any = (AXIS,), shape: Any = None) -> Mesh:
    """A ``jax.sharding.Mesh`` for placing npjax arrays.

    devices: a sequence of ``jax.Device`` (default: every device of the policy's platform,
    all processes included after ``npjax.distributed.initialize``); shape: the mesh's shape
    (default: 1-D); axis_names: one name per mesh axis (default ``("x",)``).
    """
    if isinstance(axis_names, str):
        axis_names = (axis_names,)
    axis_names = tuple(axis_names)
    if devices is None and shape is None and axis_names == (AXIS,):
        return _default_mesh(current().device)
    devs = list(_devices(current().device) if devices is None else devices)
    if shape is None:
        shape = (len(devs),) if len(axis_names) == 1 else None
    if shape is None:
        raise ValueError("npjax.mesh: give 'shape' for a mesh of several axes")
    shape = tuple(int(s) for s in shape)
    if math.prod(shape) != len(devs):
        raise ValueError(f"npjax.mesh: shape {shape} needs {math.prod(shape)} devices, "
                         f"got {len(devs)}")
    if len(shape) != len(axis_names):
        raise ValueError(f"npjax.mesh: {len(axis_names)} axis names for a {len(shape)}-d mesh")
    return Mesh(np.array(devs, dtype=object).reshape(shape), axis_names)


def _auto_spec(shape: tuple, n: int) -> PartitionSpec:
    """Split the largest axis that ``n`` divides (first such axis on ties)."""
    best = None
    for i, d in enumerate(shape):
        if d >= n and d % n == 0 and (best is None or d > shape[best]):
            best = i
    if best is None:
        return PartitionSpec()
    return PartitionSpec(*([None] * best + [AXIS]))


def _check_divides(shape: tuple, sharding: NamedSharding) -> None:
    sizes = sharding.mesh.shape
    for i, entry in enumerate(sharding.spec):
        if entry is None:
            continue
        names = entry if isinstance(entry, tuple) else (entry,)
        parts = math.prod(sizes[name] for name in names)
        if shape[i] % parts:
            raise ValueError(
                f"npjax: cannot shard an array of shape {shape} with {sharding.spec}: axis "
                f"{i} (length {shape[i]}) is not divisible by {parts} devices; npjax does not "
                "pad uneven shards. Use sharding='auto' (which replicates such arrays), a "
                "different PartitionSpec, or a larger shard_threshold.")


@functools.lru_cache(maxsize=1024)
def _target(shape: tuple, sharding: Any, threshold: int, device: Any) -> Any:
    """The placement of a new array of ``shape`` under these policy fields."""
    if isinstance(sharding, SingleDeviceSharding):
        return sharding
    big = math.prod(shape) >= threshold and len(shape) > 0
    if isinstance(sharding, str):  # "auto"
        m = _default_mesh(device)
        spec = _auto_spec(shape, m.size) if big and m.size > 1 else PartitionSpec()
        return NamedSharding(m, spec)
    if isinstance(sharding, PartitionSpec):
        sharding = NamedSharding(_default_mesh(device), sharding)
    if big and len(sharding.spec) <= len(shape):
        _check_divides(shape, sharding)
        return sharding
    return NamedSharding(sharding.mesh, PartitionSpec())


def target(shape: tuple, policy: Policy | None = None) -> Any:
    """The ``jax.sharding.Sharding`` a new array of ``shape`` gets under the policy."""
    if policy is None:
        policy = current()
    return _target(tuple(shape), policy.sharding, policy.shard_threshold, policy.device)


def _put(value: Any, sharding: Any) -> jax.Array:
    """``value`` (host data or a ``jax.Array``) placed with ``sharding``. Over several
    processes every process holds the same ``value`` and supplies its own devices' parts."""
    if sharding.is_fully_addressable:
        return jax.device_put(value, sharding)
    return jax.make_array_from_callback(np.shape(value), sharding, lambda index: value[index])


def put_host(host: np.ndarray, policy: Policy) -> jax.Array:
    """A host array placed as the policy says (the host->device transfer is counted by the
    caller)."""
    return _put(host, target(host.shape, policy))


def place(value: jax.Array, policy: Policy) -> jax.Array:
    """A ``jax.Array`` input or new result on the policy's devices: kept when it is already
    committed to them (XLA's propagated sharding), otherwise placed as a new array."""
    if isinstance(value, jax.core.Tracer):
        return value
    new = target(value.shape, policy)
    devices = new.device_set
    if value.sharding.device_set == devices and (value.committed or len(devices) == 1):
        return value
    _stats.record_transfer("device_to_device", value.nbytes)
    return _put(value, new)


def place_new(value: jax.Array, policy: Policy) -> jax.Array:
    """A creation function's result (made from already placed inputs) with the placement of a
    new array: a replicated result is split as the policy says, locally on each device."""
    new = target(value.shape, policy)
    if value.sharding == new:
        return value
    if value.sharding.device_set != new.device_set:
        _stats.record_transfer("device_to_device", value.nbytes)
        return _put(value, new)
    return jax.device_put(value, new)  # same devices: each keeps its part, nothing moves


def _as_sharding(spec: Any, shape: tuple, on_mesh: Mesh | None) -> Any:
    if isinstance(spec, str) and spec == "auto":
        m = on_mesh if on_mesh is not None else mesh()
        return NamedSharding(m, _auto_spec(shape, m.size))
    if spec is None:
        return NamedSharding(on_mesh if on_mesh is not None else mesh(), PartitionSpec())
    if isinstance(spec, PartitionSpec):
        spec = NamedSharding(on_mesh if on_mesh is not None else mesh(), spec)
    if isinstance(spec, NamedSharding):
        if len(spec.spec) > len(shape):
            raise ValueError(f"npjax.shard: {spec.spec} has more entries than the array has "
                             f"axes ({len(shape)})")
        _check_divides(shape, spec)
        return spec
    if isinstance(spec, jax.sharding.Sharding):
        return spec
    raise TypeError(f"npjax.shard: expected a PartitionSpec, a jax.sharding.Sharding, 'auto' "
                    f"or None, got {spec!r}")


def shard(a: ArrayBase, spec: Any = "auto", *, mesh: Mesh | None = None) -> ArrayBase:
    """Re-place the storage of ``a`` with ``spec`` and return ``a`` (values unchanged).

    spec: a ``PartitionSpec`` (over ``mesh``, default ``npjax.mesh()``), a
    ``jax.sharding.Sharding``, ``"auto"`` (split the largest axis the device count divides,
    whatever the size) or ``None`` (replicate on every device of the mesh). The storage is
    that of the array owning the data: for a view, ``spec`` applies to its base array's shape,
    and every view of it sees the new placement.
    """
    if not isinstance(a, ArrayBase):
        raise TypeError(f"npjax.shard: expected an npjax array, got {type(a).__name__}")
    root: Any = a  # (an ndarray: the array module is above this one)
    root = root if root._base is None else root._base
    value = root._value
    sharding = _as_sharding(spec, value.shape, mesh)
    if value.sharding != sharding:
        _stats.record_transfer("device_to_device", value.nbytes)
        root._rebind(_put(value, sharding), False)  # (views read it with its new placement)
    return a
