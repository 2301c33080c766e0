"""npjax's ``numpy.lib``: its public submodules and names, for npjax arrays.

``stride_tricks`` is npjax's own (views on JAX); ``scimath`` is ``npjax.emath``; the rest are
NumPy's own objects, classified in ``npjax/_registry.py`` like every public NumPy name.
"""

import npjax as _npjax
from npjax import _registry
from npjax.lib import stride_tricks as stride_tricks

scimath = _npjax.emath

_registry.install(globals(), "numpy.lib")
_registry.register(vars(stride_tricks), "numpy.lib.stride_tricks")


def __getattr__(name: str):
    return _registry.lazy_fallback("numpy.lib", name)
