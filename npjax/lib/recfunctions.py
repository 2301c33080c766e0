"""npjax's ``numpy.lib.recfunctions``: NumPy's own functions for structured arrays, on the host.

Structured dtypes are host data in npjax: ``npjax.array(..., dtype=[("a", "i4"), ...])`` is a
NumPy array (DESIGN: host-only dtypes stay NumPy arrays). So these functions are NumPy's own,
run on the host: npjax arrays among the arguments are handed over as NumPy arrays (host ones
share their memory, device ones are copied), and the results are NumPy's own objects, as NumPy
returns them (structured arrays, masked arrays, record arrays, and views of the arguments:
``structured_to_unstructured(s)`` writes through to ``s`` as in NumPy). Pass a numeric result
to ``npjax.asarray`` for device work. Errors (an unstructured array where a structured one is
needed...) are NumPy's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy.lib.recfunctions as _numpy_rfn

from npjax._calls import _registry
from npjax._calls._fallback import to_host

__all__ = list(_numpy_rfn.__all__)


def _host(name: str, fn: Callable) -> Callable:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*to_host(args), **to_host(kwargs))

    call.__module__ = "npjax.lib.recfunctions"
    call.__doc__ = (f"NumPy's ``numpy.lib.recfunctions.{name}`` on the host (structured "
                    "arrays are host data); returns NumPy's result as it is.")
    call._npjax_host = True
    return call


for _name in __all__:
    globals()[_name] = _host(_name, getattr(_numpy_rfn, _name))

_registry.install(globals(), "numpy.lib.recfunctions")
_npjax_host = True  # the module as a name of numpy.lib: a host module (npjax/_calls/_registry.py)
