"""npjax's ``numpy.lib``: its public submodules and names, for npjax arrays.

``stride_tricks`` is npjax's own (views on JAX); ``scimath`` is ``npjax.emath``;
``recfunctions`` (NumPy's functions for structured arrays, host data) is imported on first
use, as NumPy's is; the rest are NumPy's own objects, classified in ``npjax/_calls/_registry.py``
like every public NumPy name.
"""

import npjax as _npjax
from npjax._calls import _registry
from npjax.lib import stride_tricks as stride_tricks

scimath = _npjax.emath

_registry.install(globals(), "numpy.lib")
globals().pop("recfunctions", None)  # NumPy's, if imported before npjax: ours, on demand
_registry.register(vars(stride_tricks), "numpy.lib.stride_tricks")


def __getattr__(name: str):
    if name == "recfunctions":  # imports numpy.ma (about 20 ms): only when asked for
        import importlib

        return importlib.import_module("npjax.lib.recfunctions")
    return _registry.lazy_fallback("numpy.lib", name)


def __dir__() -> list[str]:
    """The names here, ``recfunctions`` included before its first use (as ``dir(numpy.lib)``
    lists it)."""
    return sorted(set(globals()) | {"recfunctions"})
