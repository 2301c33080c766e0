"""Which callees a rolled loop body may call while it is probed (``npjax._compile._loops``)."""

from __future__ import annotations

import types
from typing import Any

import jax
import numpy as np

from npjax._calls._ufuncs import ufunc
from npjax._compile._masked import MaskedValue
from npjax._compile._windows import Window
from npjax._core._ndarray import ndarray

__all__ = ["ALWAYS", "allowed"]

ALWAYS: set[int] = set()  # ids of npjax's own helpers a body calls (``run_loop``)
_PURE_BUILTINS = frozenset(id(f) for f in (
    abs, all, any, bool, callable, complex, divmod, enumerate, float, format, getattr,
    hasattr, hash, int, isinstance, issubclass, len, list, max, min, pow, range, repr,
    reversed, round, slice, sorted, str, sum, tuple, type, zip, dict, frozenset, set))
_PURE_MODULES = ("math", "cmath", "operator", "jax", "jax.numpy", "jax.lax")
_IMPURE_NAMES = frozenset((
    "save", "savez", "savez_compressed", "savetxt", "tofile", "dump", "seterr", "seterrcall",
    "set_printoptions", "setbufsize", "set_policy", "reset_policy", "resize", "setflags",
    "__setstate__", "printoptions", "errstate", "policy"))
_CONTAINER_METHODS = frozenset(("get", "keys", "values", "items", "index", "count", "copy"))


def allowed(f: Any) -> bool:
    """Whether a rolled body may call ``f`` while a probe runs: npjax and JAX functions,
    ndarray methods, ``math``/``operator``, pure builtins and container reads (no Python side
    effects a trace cannot undo)."""
    if id(f) in _PURE_BUILTINS or id(f) in ALWAYS or f is ndarray:
        return True
    name = getattr(f, "__name__", None)
    if name in _IMPURE_NAMES:
        return False
    t = type(f)
    if t is ufunc:
        return True
    if isinstance(f, type):
        return issubclass(f, np.generic) or f is np.dtype
    owner = getattr(f, "__self__", None)
    if owner is not None and t is not types.FunctionType:
        if isinstance(owner, ndarray | ufunc | jax.Array | Window | MaskedValue):
            return True
        if isinstance(owner, types.ModuleType):
            return owner.__name__ in ("math", "cmath", "operator")
        if type(owner) in (dict, list, tuple):
            return name in _CONTAINER_METHODS and type(owner) is not list or name in (
                "index", "count", "copy")
        return False
    module = getattr(f, "__module__", None) or ""
    if t is types.FunctionType or t is types.BuiltinFunctionType or t is np.ufunc or \
            callable(f):
        if module == "npjax" or (module.startswith("npjax.") and
                                 not module.startswith("npjax.random")):
            return True
        if module in _PURE_MODULES or module.startswith(("jax.", "jax._src.")):
            return not module.startswith(("jax.debug", "jax._src.debugging"))
        if t is types.BuiltinFunctionType and module in ("math", "cmath", "_operator"):
            return True
    return False
