"""One record per public attribute of ``numpy.ndarray``: how ``npjax.ndarray`` provides it.

The attributes are those ``numpy.ndarray`` itself defines (methods, properties, operators and
protocol members; not the ones every Python object inherits). Statuses as for module names:
``native`` (npjax's own), ``host`` (npjax's own, host work by nature: text, bytes, files),
``excluded`` (npjax arrays do not have it; the reason says why) and ``missing`` (a test fails).
"""

from __future__ import annotations

import functools

import numpy as np

from npjax._pure._facts import VIEWS
from npjax._calls._registry import Spec

MODULE = "numpy.ndarray"

HOST = {
    "__array__": "a host NumPy copy by definition",
    "__repr__": "text", "__str__": "text", "__format__": "text",
    "__reduce__": "pickles a host copy", "__reduce_ex__": "pickles a host copy",
    "__setstate__": "reads NumPy's pickle state (host bytes)",
    "tolist": "Python objects", "item": "a Python scalar", "tobytes": "host bytes",
    "tofile": "writes a file", "dump": "writes a file", "dumps": "host bytes",
}

# Host memory (``_host_memory``): a host array's own memory; a device array has none and
# raises AttributeError (BufferError for ``__buffer__``) naming the host copy to make.
_MEMORY = "a host array's own memory; device arrays have none (np.asarray(a) for a copy)"
HOST.update({"__array_interface__": _MEMORY, "__array_struct__": _MEMORY,
             "ctypes": _MEMORY, "data": _MEMORY})
HOST.update({name: _MEMORY for name in ("__buffer__", "__release_buffer__")
             if name in vars(np.ndarray)})  # PEP 688 members: Python 3.12 and later

EXCLUDED: dict[str, str] = {}

_SKIP = ("__doc__", "__new__")  # class machinery, not array behaviour


def public_attributes() -> list[str]:
    """Every attribute ``numpy.ndarray`` defines itself."""
    return sorted(n for n in vars(np.ndarray) if n not in _SKIP)


def _own(name: str) -> bool:
    """Whether ``npjax.ndarray`` defines ``name`` (itself, not through ``object``)."""
    from npjax._core._ndarray import ndarray

    return any(name in vars(cls) for cls in ndarray.__mro__ if cls is not object)


def classify_attribute(module: str, name: str, excluded: dict, host: dict,
                       missing: str) -> Spec:
    """One attribute's spec: excluded (with the reason), missing (``missing`` says why)
    when ``npjax.ndarray`` does not define it, host (with the reason) or native; its kind,
    and whether it returns a view (``_facts.VIEWS``, keys ``ndarray.<name>``)."""
    if name in excluded:
        status, reason = "excluded", excluded[name]
    elif not _own(name):
        status, reason = "missing", missing
    elif name in host:
        status, reason = "host", host[name]
    else:
        status, reason = "native", ""
    theirs = getattr(np.ndarray, name, getattr(np.generic, name, None))
    kind = ("dunder" if name.startswith("__") else "method" if callable(theirs)
            else "property")
    return Spec(module, name, status, reason, kind, VIEWS.get(f"ndarray.{name}", "")
                if module == MODULE else "")


def classify(name: str) -> Spec:
    return classify_attribute(MODULE, name, EXCLUDED, HOST, "npjax.ndarray lacks it")


@functools.cache
def records() -> tuple[Spec, ...]:
    return tuple(classify(n) for n in public_attributes())
