"""Execution policy: where arrays live and how calls run.

The policy is a frozen dataclass, so it is hashable and can be part of compile-cache keys.
The policy in force is part of the execution context (``_context.py``: one ContextVar per
thread or task). Environment variables ``NPJAX_<FIELD>`` set the defaults; they are read once,
at import.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any

_CHOICES = {
    "mode": ("eager", "lazy"),
    "fallback": ("warn", "raise", "allow"),
    "random": ("jax", "numpy"),
    "placement": ("auto", "device", "host"),
}
_INT_FIELDS = ("shard_threshold", "host_threshold")


@dataclasses.dataclass(frozen=True)
class Policy:
    """How npjax places arrays and runs calls.

    device: None (JAX's default device), a platform name ("cpu", "gpu") or a ``jax.Device``.
    sharding: None (single device), "auto" (arrays of at least ``shard_threshold`` elements
    split over a 1-D mesh of all devices, smaller ones replicated), a ``jax.sharding.Sharding``
    or a ``PartitionSpec`` (over ``npjax.mesh()``); see ``npjax/_sharding.py``.
    shard_threshold: the element count from which arrays are sharded (``sharding`` not None).
    mode: "eager" (each call runs at once) or "lazy" (recorded, run fused when needed: _lazy.py).
    fallback: what a call that runs on host NumPy does: "warn", "raise" or "allow".
    x64: True gives NumPy's 64-bit defaults (float64, int64); False gives 32-bit defaults.
    random: "jax" (device streams) or "numpy" (bit-exact NumPy streams; later issue).
    placement: where results live (``_placement.py``). "auto": a result of at most
    ``host_threshold`` elements whose array inputs all live on the host is computed by NumPy
    and stays a host array; anything else runs on the device. "device": every array on the
    device (npjax before placement existed). "host": every result NumPy can compute stays
    on the host, whatever its size. In lazy mode host arrays run at once and device work is
    recorded; ``npjax.jit``, ``device`` and ``sharding`` put everything on the device.
    host_threshold: the largest result (in elements) that "auto" keeps on the host.
    """

    device: Any = None
    sharding: Any = None
    mode: str = "eager"
    fallback: str = "warn"
    x64: bool = True
    random: str = "jax"
    shard_threshold: int = 2**16
    placement: str = "auto"
    host_threshold: int = 2**16

    def __post_init__(self) -> None:
        for field, allowed in _CHOICES.items():
            value = getattr(self, field)
            if value not in allowed:
                raise ValueError(f"npjax.policy: {field}={value!r}; expected one of {allowed}")
        if not isinstance(self.x64, bool):
            raise TypeError(f"npjax.policy: x64 must be a bool, got {self.x64!r}")
        if self.sharding is not None:
            _check_sharding(self.sharding)
        for field in _INT_FIELDS:
            value = getattr(self, field)
            if type(value) is not int or value < 0:
                raise ValueError(f"npjax.policy: {field} must be an int >= 0, got {value!r}")
        # Derived once per policy: the largest host result (-1: nothing runs on the host).
        object.__setattr__(self, "host_limit", _host_limit(self))


def _host_limit(p: Policy) -> int:
    if (p.placement == "device" or p.device is not None or p.sharding is not None
            or not p.x64):
        return -1
    return sys.maxsize if p.placement == "host" else p.host_threshold


def _check_sharding(value: Any) -> None:
    import jax

    kinds = (jax.sharding.NamedSharding, jax.sharding.SingleDeviceSharding,
             jax.sharding.PartitionSpec)
    if isinstance(value, kinds) or (isinstance(value, str) and value == "auto"):
        return
    raise ValueError(f"npjax.policy: sharding={value!r}; expected None, 'auto', a "
                     "jax.sharding.NamedSharding, SingleDeviceSharding or PartitionSpec")


def _parse_env(name: str, raw: str) -> Any:
    if name == "x64":
        lowered = raw.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"NPJAX_X64={raw!r}: expected 1/0/true/false")
    if name in _INT_FIELDS:
        return int(raw)
    return raw.strip() or None


def _from_environment() -> Policy:
    fields = {}
    for field in dataclasses.fields(Policy):
        raw = os.environ.get("NPJAX_" + field.name.upper())
        if raw is not None:
            fields[field.name] = _parse_env(field.name, raw)
    return Policy(**fields)


# The defaults: built-in values overridden by ``NPJAX_*`` variables (read once, at import).
DEFAULT_POLICY = _from_environment()
