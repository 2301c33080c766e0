"""Execution policy: where arrays live and how calls run.

The policy is a frozen dataclass, so it is hashable and can be part of compile-cache keys.
The policy in force is part of the execution context (``_context.py``: one ContextVar per
thread or task). Environment variables ``NPJAX_<FIELD>`` set the defaults; they are read once,
at import.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from typing import Any

_CHOICES = {
    "mode": ("auto", "eager", "lazy"),
    "fallback": ("warn", "raise", "allow"),
    "random": ("auto", "jax", "numpy"),
    "placement": ("auto", "device", "host"),
    "jit": ("explicit", "auto"),
}
_INT_FIELDS = ("shard_threshold", "host_threshold")


@dataclasses.dataclass(frozen=True)
class Policy:
    """How npjax places arrays and runs calls.

    device: None (JAX's default device), a platform name ("cpu", "gpu") or a ``jax.Device``.
    sharding: None (single device), "auto" (arrays of at least ``shard_threshold`` elements
    split over a 1-D mesh of all devices, smaller ones replicated), a ``jax.sharding.Sharding``
    or a ``PartitionSpec`` (over ``npjax.mesh()``); see ``npjax/_core/_sharding.py``.
    shard_threshold: the element count from which arrays are sharded (``sharding`` not None).
    mode: "eager" (each call runs at once), "lazy" (device work recorded, run fused when a
    value is needed: _lazy.py) or "auto" (lazy on an accelerator backend, eager on a CPU
    backend, where NumPy computes every size on the host: ``lazy``).
    fallback: what a call that runs on host NumPy does: "warn", "raise" or "allow".
    x64: True gives NumPy's 64-bit defaults (float64, int64); False gives 32-bit defaults.
    random: which stream a ``Generator`` (``default_rng``) draws from. "auto" (default):
    NumPy's own generator for draws placed on the host (its exact numbers, no compile),
    JAX keys for draws placed on the device (``placement``); "jax": JAX keys for every draw;
    "numpy": NumPy's generator for every draw. The legacy API (``np.random.seed``,
    ``RandomState``) always gives NumPy's streams (NEP 19).
    placement: where results live (``_placement/_route.py``). "auto": a result of at most
    ``host_threshold`` elements whose array inputs all live on the host is computed by NumPy
    and stays a host array; anything else runs on the device. "device": every array on the
    device (npjax before placement existed). "host": every result NumPy can compute stays
    on the host, whatever its size. In lazy mode host arrays run at once and device work is
    recorded; ``npjax.jit``, ``device`` and ``sharding`` put everything on the device.
    host_threshold: the largest result (in elements) that "auto" keeps on the host; None:
    every size in eager mode on a CPU backend, else 65536 (``benchmarks/threshold.py``; the
    backend is asked only when a result is larger: ``keeps_large``).
    jit: "explicit" (only what the user compiles: ``npjax.jit``, ``npjax.autojit``) or
    "auto" (``python -m npjax run`` applies ``npjax.autojit`` to the functions of the
    script's own files: ``npjax/_compile/_autojit.py``; under a plain import, to those
    found hot on the main thread's stack: ``_compile/_autojit_sampler.py``). The default
    is "auto" where JAX's default backend is a TPU (``_on_tpu``), "explicit" elsewhere.
    """

    device: Any = None
    sharding: Any = None
    mode: str = "auto"
    fallback: str = "warn"
    x64: bool = True
    random: str = "auto"
    shard_threshold: int = 2**16
    placement: str = "auto"
    host_threshold: int | None = None
    jit: str = "explicit"

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
            if (type(value) is not int or value < 0) and not (
                    value is None and field == "host_threshold"):
                raise ValueError(f"npjax.policy: {field} must be an int >= 0, got {value!r}")

    @functools.cached_property
    def host_limit(self) -> int:
        """The largest result NumPy computes on the host under this policy (-1: none).
        Derived once per policy, when first asked (it may ask JAX for its backend)."""
        if (self.placement == "device" or self.device is not None
                or self.sharding is not None or not self.x64):
            return -1
        if self.placement == "host":
            return sys.maxsize
        if self.host_threshold is not None:
            return self.host_threshold
        # benchmarks/threshold.py: on a CPU backend one eager XLA call never beats NumPy's
        # (same cores, plus a dispatch), so eager work stays NumPy's at every size; a fused
        # lazy program wins from about 2**16 elements, as a GPU kernel does. Which backend JAX
        # has is not asked here: starting it costs about 40 ms, most of a small script's time.
        # The limit is the smaller answer, and a larger result asks ``keeps_large``.
        return DEFAULT_LIMIT

    def keeps_large(self) -> bool:
        """Whether results over ``host_limit`` stay on the host all the same: eager work under
        the default threshold on a CPU backend (JAX's backend starts the first time)."""
        return (self.placement == "auto" and self.host_threshold is None
                and self.host_limit == DEFAULT_LIMIT and not self.lazy and _cpu_backend())

    @functools.cached_property
    def lazy(self) -> bool:
        """Whether device work is recorded and run fused (``_lazy.py``): mode "lazy", or
        "auto" on an accelerator backend. On a GPU a fused program beat one dispatch per call
        on every kernel of the large preset (4.7x NumPy against 1.5x, geometric mean:
        benchmarks/results/gpu); on a CPU backend eager work stays NumPy's (``keeps_large``).
        Asked on device paths only: "auto" starts JAX's backend to answer."""
        return self.mode == "lazy" or (self.mode == "auto" and not _cpu_backend())


DEFAULT_LIMIT = 2**16  # the host limit under placement="auto" on an accelerator, and lazy


@functools.lru_cache(maxsize=1)
def _cpu_backend() -> bool:
    import jax

    return jax.default_backend() == "cpu"


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
    if "jit" not in fields and _on_tpu():
        fields["jit"] = "auto"
    return Policy(**fields)


def _on_tpu() -> bool:
    """Whether JAX's default backend will be a TPU, told without starting it (``_platform``):
    there ``jit`` defaults to "auto". On the chip, lazy mode ran the float32 large preset at
    1.77x NumPy's speed and ``npjax.autojit`` at 10.9x from its first call, 12.2x settled
    (geometric means; benchmarks/results/tpu/suite_float32_large_autojit.md)."""
    from npjax._pure import _platform

    try:
        return _platform.tpu_expected()
    except Exception:  # (a JAX that cannot tell: the explicit default)
        return False


# The defaults: built-in values overridden by ``NPJAX_*`` variables (read once, at import).
DEFAULT_POLICY = _from_environment()
