"""Execution policy: where arrays live and how calls run.

The policy is a frozen dataclass, so it is hashable and can be part of compile-cache keys.
The policy in force is part of the execution context (``_context.py``: one ContextVar per
thread or task). Environment variables ``NPJAX_<FIELD>`` set the defaults; they are read once,
at import.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

_CHOICES = {
    "mode": ("eager", "lazy"),
    "fallback": ("warn", "raise", "allow"),
    "random": ("jax", "numpy"),
}


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
    """

    device: Any = None
    sharding: Any = None
    mode: str = "eager"
    fallback: str = "warn"
    x64: bool = True
    random: str = "jax"
    shard_threshold: int = 2**16

    def __post_init__(self) -> None:
        for field, allowed in _CHOICES.items():
            value = getattr(self, field)
            if value not in allowed:
                raise ValueError(f"npjax.policy: {field}={value!r}; expected one of {allowed}")
        if not isinstance(self.x64, bool):
            raise TypeError(f"npjax.policy: x64 must be a bool, got {self.x64!r}")
        if self.sharding is not None:
            _check_sharding(self.sharding)
        if type(self.shard_threshold) is not int or self.shard_threshold < 0:
            raise ValueError("npjax.policy: shard_threshold must be an int >= 0, got "
                             f"{self.shard_threshold!r}")


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
    if name == "shard_threshold":
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
