"""``npjax.__array_namespace_info__()``: the Array API 2024.12 inspection object.

It answers as ``numpy.__array_namespace_info__()`` does (same dictionary keys, the same
``kind`` names and tuples of them, ``ValueError`` for an unknown kind or device), with JAX's
devices in place of NumPy's ``"cpu"`` and the default dtypes of the current policy
(``x64=True``, the default: float64, complex128, int64; ``x64=False``: the 32-bit ones).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from npjax._core._normalize import resolve_device
from npjax._runtime._context import get_policy

__all__ = ["__array_namespace_info__"]

_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


def _check_device(device: Any) -> None:
    """``None``, a platform name JAX knows or one of JAX's devices; else ``ValueError``."""
    if device is None:
        return
    found = None
    if isinstance(device, str | jax.Device):
        try:
            found = resolve_device(device)
        except (RuntimeError, ValueError):  # a platform JAX does not have here
            pass
    if found not in jax.devices(getattr(found, "platform", None)):
        raise ValueError(f"npjax: unsupported device {device!r}")


class __array_namespace_info__:  # the standard's name, lower case
    """Capabilities, devices and dtypes of the npjax namespace (Array API 2024.12)."""

    __module__ = "npjax"

    def capabilities(self) -> dict[str, Any]:
        """Boolean indexing and data-dependent shapes work (eagerly, as in NumPy)."""
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self) -> Any:
        """The policy's device, or JAX's default device."""
        return resolve_device(get_policy().device) or jax.devices()[0]

    def devices(self) -> list[Any]:
        """Every device JAX can place arrays on."""
        return list(jax.devices())

    def default_dtypes(self, *, device: Any = None) -> dict[str, np.dtype]:
        """The default floating, complex, integer and index dtypes under the policy."""
        _check_device(device)
        bits = "64" if get_policy().x64 else "32"
        return {"real floating": np.dtype("float" + bits),
                "complex floating": np.dtype("complex" + str(2 * int(bits))),
                "integral": np.dtype("int" + bits), "indexing": np.dtype("int" + bits)}

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, np.dtype]:
        """The Array API dtypes npjax supports, optionally of one kind or a tuple of kinds."""
        _check_device(device)
        if kind is None:
            names: tuple[str, ...] = ("bool", *_KINDS["numeric"])
        elif isinstance(kind, tuple):
            names = ()
            for k in kind:
                names += tuple(self.dtypes(kind=k))
        elif isinstance(kind, str) and kind in _KINDS:
            names = _KINDS[kind]
        else:
            raise ValueError(f"unsupported kind: {kind!r}")
        return {name: np.dtype(name) for name in names}
