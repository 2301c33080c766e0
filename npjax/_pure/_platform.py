"""The platform of JAX's default backend, told without starting it where possible.

Starting a TPU's runtime takes about 7 s (``make_tpu_client``, measured on a v5e), more than
a small script's whole run under NumPy. A script whose arrays all stay on the host (small,
or of a dtype the chip cannot hold) never needs it, yet the placement rules must know
whether the backend will be a TPU (float64 is a host dtype there). JAX tells a TPU machine
from its PCI vendor ids before it starts anything; that is what is asked here.
"""

from __future__ import annotations

import glob
from collections.abc import Iterable


def default_platform(named: Iterable[str]) -> str:
    """JAX's default platform, or ``"other"`` where it is none of ``named`` (the platforms
    the caller has an answer for). Without a started backend, a table naming only ``"tpu"``
    is answered from the machine: a TPU chip JAX may use, or not; any other platform named
    starts the backend to ask."""
    import jax

    if set(named) - {"tpu"} or _backends_started():
        return jax.default_backend()
    return "tpu" if tpu_expected() else "other"


def _backends_started() -> bool:
    try:
        from jax._src import xla_bridge

        return bool(xla_bridge.backends_are_initialized())
    except (ImportError, AttributeError):  # another JAX: ask it the documented way
        return True


def tpu_expected() -> bool:
    """Whether JAX's default backend will be a TPU: JAX may use one (``JAX_PLATFORMS``
    unset or naming it first) and the machine shows one (JAX's own PCI check, or the
    accelerator device files libtpu opens)."""
    import jax

    platforms = jax.config.jax_platforms
    if platforms:
        return platforms.split(",")[0].strip() == "tpu"
    try:
        from jax._src import hardware_utils, xla_bridge

        if "tpu" not in xla_bridge._backend_factories:
            return False
        chips = hardware_utils.num_available_tpu_chips_and_device_id()[0]
    except (ImportError, AttributeError):
        return jax.default_backend() == "tpu"
    return chips > 0 or bool(glob.glob("/dev/accel[0-9]*") or glob.glob("/dev/vfio/[0-9]*"))
