"""npjax's ``numpy.lib.recfunctions``: NumPy's own functions for structured arrays, on the host.

Structured dtypes are host data in npjax: ``npjax.array(..., dtype=[("a", "i4"), ...])`` is a
host array (its storage a NumPy array, whatever the placement). So these functions are NumPy's
own, run on the host: npjax arrays among the arguments are handed over as NumPy arrays (host
ones share their memory, device ones are copied); NumPy's arrays among the results become npjax
arrays placed as the host route places results (views of the arguments stay views:
``structured_to_unstructured(s)`` writes through to ``s`` as in NumPy); masked arrays and record
arrays are NumPy's own objects. Errors (an unstructured array where a structured one is
needed...) are NumPy's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy.lib.recfunctions as _numpy_rfn

from npjax._calls import _registry
from npjax._calls._fallback import to_host
from npjax._placement._made import place_numpy

__all__ = list(_numpy_rfn.__all__)


def _host(name: str, fn: Callable) -> Callable:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return place_numpy(fn(*to_host(args), **to_host(kwargs)), args, kwargs)

    call.__module__ = "npjax.lib.recfunctions"
    call.__doc__ = (f"NumPy's ``numpy.lib.recfunctions.{name}`` on the host (structured "
                    "arrays are host data); its arrays become npjax arrays.")
    call._npjax_host = True
    return call


for _name in __all__:
    globals()[_name] = _host(_name, getattr(_numpy_rfn, _name))

_registry.install(globals(), "numpy.lib.recfunctions")
_npjax_host = True  # the module as a name of numpy.lib: a host module (npjax/_calls/_registry.py)
