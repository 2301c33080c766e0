"""One ``Spec`` per public NumPy name (how npjax provides it: its status, kind and facts), and
npjax's own public names. The facts (``_facts``): whether the result is a view of the first
argument, whether lazy mode records the work (``NOT_LAZY``), why it cannot trace under
``npjax.jit``; ``tests/test_specs.py`` checks them against NumPy and ``npjax.jit``. A native
callable's row is what its ``Declaration`` says (``_declared``: its ``spec``, made with its
door); the facts are read from the tables only for the rest (ndarray attributes apart).

Statuses:
- ``native``: an npjax implementation (computes on JAX, or is pure Python logic of npjax's own).
- ``host``: an npjax function whose work is host-side by nature (files, text, calendars): NumPy's
  own function on host copies of npjax arrays, results placed back. Not announced.
- ``numpy``: NumPy's own object, used as it is because it touches no array data (scalar types,
  constants, exceptions, dtype questions, the printing options).
- ``fallback``: runs on host NumPy, announced by the ``fallback`` policy (warning by default).
- ``excluded``: NumPy's own object, not adapted to npjax arrays; the reason says why.
- ``npjax``: a public name of npjax's own, which NumPy does not have (``OWN``: its kind and
  what it is).

Names are classified by the tables below; ``install`` fills a module's namespace with every name
that the npjax modules do not define. ``npjax.__all__`` and ``dir(npjax)`` are generated here
(``npjax_all``): NumPy's public names and ``OWN``; ``tests/test_registry.py`` checks that the
module has exactly those public attributes. A name NumPy gains later and no table lists still
resolves (``__getattr__``, as a fallback) and ``tests/test_registry.py`` fails until it is
classified.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types
from typing import Any, NamedTuple

import numpy as np

from npjax._pure._declared import Declaration, declare
from npjax._pure._declared import key as _key
from npjax._pure._facts import NOT_LAZY, NOT_TRACEABLE, VIEWS  # noqa: F401 (NOT_LAZY: _coverage reads it here)
from npjax._calls._fallback import fallback_function, host_function

MODULES = ("numpy", "numpy.linalg", "numpy.fft", "numpy.random", "numpy.lib",
           "numpy.lib.stride_tricks", "numpy.lib.recfunctions")


class Spec(NamedTuple):
    """How npjax provides one public name, and what is known of it."""
    module: str
    name: str
    status: str
    reason: str
    # "function", "ufunc", "class", "module", "constant"; for ndarray attributes "method",
    # "dunder", "property"
    kind: str = ""
    view: str = ""  # ``_facts.VIEWS``: "always", "may", or "" (a new array or no array)
    lazy: bool | None = None  # lazy mode records its work (None: not an npfunc or a ufunc)
    trace: str = ""  # why it cannot trace under npjax.jit (``_facts.NOT_TRACEABLE``), or ""


# NumPy's own objects that need no adaptation (besides the automatic classes below: scalar
# types, exceptions and warnings, and non-callable constants).
NUMPY_OBJECTS = {
    "finfo", "iinfo", "dtype", "issubdtype", "isdtype", "promote_types", "typename",
    "mintypecode", "format_float_positional", "format_float_scientific", "base_repr",
    "binary_repr", "get_printoptions", "set_printoptions", "printoptions", "getbufsize",
    "setbufsize", "busdaycalendar", "datetime_data", "info", "iterable", "ndindex",
    "dtypes", "exceptions", "typing", "char", "strings",
    "errstate", "seterr", "geterr", "seterrcall", "geterrcall", "common_type",
    "lib.add_docstring", "lib.add_newdoc", "lib.mixins",
}

HOST = {
    "save": "writes a file", "savez": "writes a file", "savez_compressed": "writes a file",
    "savetxt": "writes a file", "load": "reads a file", "loadtxt": "reads a file",
    "genfromtxt": "reads a file", "fromfile": "reads a file", "fromregex": "reads a file",
    "array2string": "text", "array_repr": "text", "array_str": "text",
    "datetime_as_string": "datetime64 is host-only", "busday_count": "datetime64 is host-only",
    "busday_offset": "datetime64 is host-only", "is_busday": "datetime64 is host-only",
}
HOST["lib.recfunctions"] = "structured arrays are host data: NumPy's functions, on the host"
HOST.update({f"lib.recfunctions.{name}": "structured arrays are host data: NumPy's own "
             "function, its arrays npjax arrays" for name in (
                 __import__("numpy.lib.recfunctions", fromlist=["_"]).__all__)})

FALLBACK: dict[str, str] = {}

EXCLUDED = {
    "show_config": "describes NumPy's own build", "show_runtime": "describes NumPy's runtime",
    "get_include": "C headers of NumPy", "test": "runs NumPy's own test suite",
    "f2py": "Fortran wrapper generator", "ctypeslib": "ctypes views of host memory",
    "core": "NumPy's private implementation package",
    "ma": "masked arrays are NumPy arrays (a subclass npjax does not mirror)",
    "rec": "record arrays are structured host data",
    "polynomial": "the Polynomial classes run on NumPy arrays (legacy poly* functions are "
                  "native)",
    "matrix": "np.matrix is a NumPy subclass (discouraged by NumPy itself)",
    "asmatrix": "np.matrix is a NumPy subclass", "bmat": "np.matrix is a NumPy subclass",
    "memmap": "memory-mapped host files", "recarray": "structured host data",
    "record": "structured host data",
    "linalg.test": "runs NumPy's own test suite", "fft.test": "runs NumPy's own test suite",
    "random.test": "runs NumPy's own test suite",
    "lib.test": "runs NumPy's own test suite",
    "lib.array_utils": "axis helpers take no array data; byte_bounds reports host memory "
                       "addresses, which npjax arrays do not have",
    "lib.format": "the .npy format's low-level readers and writers work on host files and "
                  "NumPy arrays (np.save and np.load are npjax host functions)",
    "lib.introspect": "describes NumPy's own SIMD dispatch",
    "lib.npyio": "DataSource and NpzFile read host files into NumPy arrays",
    "random.bit_generator":
        "NumPy's implementation module (the bit generator classes are in numpy.random)",
    **{f"lib.recfunctions.{name}": "a module recfunctions imports for its own use (not in "
       "its __all__)" for name in ("itertools", "ma", "mrec", "np")},
}

# npjax's own public names (NumPy has none of them): name -> (kind, what it is). Every public
# attribute of ``npjax`` that is not a NumPy name must be here, and every name here must exist.
OWN = {
    "FallbackWarning": ("warning", "issued when a call runs on host NumPy (fallback policy)"),
    "JitError": ("exception", "npjax.jit met a value that only exists at run time"),
    "Policy": ("class", "the policy value: device, sharding, mode, fallback, random, placement"),
    "policy": ("function", "context manager: a policy for a block of code"),
    "get_policy": ("function", "the policy in force"),
    "set_policy": ("function", "change fields of the current policy"),
    "reset_policy": ("function", "back to the default policy (NPJAX_* variables apply)"),
    "stats": ("function", "counters: calls, fallbacks, transfers, compiles"),
    "reset_stats": ("function", "zero the counters"),
    "jit": ("function", "compile a NumPy-style function with JAX"),
    "autojit": ("function", "run a function as written until it is hot, then npjax.jit it"),
    "asnumpy": ("function", "a host NumPy copy of an array"),
    "from_jax": ("function", "an npjax array holding a jax.Array (no copy)"),
    "mesh": ("function", "a jax.sharding.Mesh for placing npjax arrays"),
    "shard": ("function", "re-place an array's storage with a sharding spec"),
    "distributed": ("module", "one NumPy script over several processes (jax.distributed)"),
}

# Modules whose functions run on host NumPy, announced (each callable is a fallback).
FALLBACK_MODULES = {"emath": "complex-valued results depend on the data (host NumPy)"}


def _auto_numpy(obj: Any) -> bool:
    """Scalar types, dtype classes, exceptions, warnings and plain constants."""
    if isinstance(obj, type):
        return issubclass(obj, np.generic | np.dtype | BaseException)
    return not callable(obj) and not isinstance(obj, types.ModuleType)


def _numpy_module(module: str) -> types.ModuleType:
    return __import__(module, fromlist=["_"])


def public_names(module: str) -> list[str]:
    """NumPy's public names in ``module`` (every attribute not starting with ``_``)."""
    return sorted(n for n in dir(_numpy_module(module)) if not n.startswith("_"))


def classify(module: str, name: str, ours: Any) -> Spec:
    """The spec of one NumPy name given npjax's object for it (``None`` when absent)."""
    status, reason = _status(module, name, ours)
    spec = getattr(ours, "spec", None)
    if status == "native" and isinstance(spec, Declaration):  # what its door declares
        return Spec(module, name, spec.status, spec.reason, spec.kind, spec.view, spec.lazy,
                    spec.trace)
    obj = ours if ours is not None else getattr(_numpy_module(module), name)
    key = _key(module, name)
    lazy = getattr(obj, "lazy", None)
    if type(obj).__name__ == "ufunc":
        kind, lazy = "ufunc", status == "native"
    elif isinstance(obj, types.ModuleType):
        kind = "module"
    elif isinstance(obj, type):
        kind = "class"
    else:
        kind = "function" if callable(obj) else "constant"
    return Spec(module, name, status, reason, kind, VIEWS.get(key, ""),
                lazy if isinstance(lazy, bool) else None, NOT_TRACEABLE.get(key, ""))


def _status(module: str, name: str, ours: Any) -> tuple[str, str]:
    """(status, reason) of one NumPy name given npjax's object for it."""
    theirs = getattr(_numpy_module(module), name)
    if ours is None:
        return "missing", "no npjax object"
    if getattr(ours, "_npjax_fallback", False):
        return "fallback", FALLBACK_MODULES.get(name) or getattr(ours, "_npjax_reason", "")
    if getattr(ours, "_npjax_host", False):
        return "host", HOST.get(_key(module, name), "")
    if ours is theirs:
        if _key(module, name) in EXCLUDED:
            return "excluded", EXCLUDED[_key(module, name)]
        if _key(module, name) in NUMPY_OBJECTS or _auto_numpy(theirs) or (
                module != "numpy" and isinstance(theirs, type)):
            return "numpy", "touches no array data"
        return "missing", "NumPy's object re-exported without a reason"
    return "native", ""


def declare_by_hand(namespace: dict[str, Any], module: str = "numpy") -> None:
    """Give each native public function of ``namespace`` that carries no declaration its
    hand-written ``Declaration`` as ``spec``, with the namespace's reason (``_BY_HAND``):
    ``npjax.random``'s functions, which have no ``host_first`` (every other hand-written
    function declares itself where it is defined, ``_route.hand_written``, or is declared
    when routed, ``_route.route_namespace``)."""
    source = _numpy_module(module)
    why = namespace.get("_BY_HAND", "")
    for name in public_names(module):
        obj = namespace.get(name)
        fn = obj.__func__ if isinstance(obj, staticmethod) else obj
        if (isinstance(fn, types.FunctionType) and not isinstance(getattr(fn, "spec", None),
                                                                  Declaration)
                and getattr(source, name) is not fn and _status(module, name, fn)[0] == "native"):
            fn.spec = declare(module, name, "hand-written", by_hand=why)


# NumPy's module name -> npjax's public namespace for it (its module dict), as installed by
# npjax/__init__.py: how the library finds public functions by name at call time (NumPy's
# dispatch protocols, ``__array_namespace__``) without importing the package above it.
_PUBLIC: dict[str, dict[str, Any]] = {}


def register(namespace: dict[str, Any], module: str) -> None:
    """Record ``namespace`` (an npjax module dict) as npjax's public module for ``module``."""
    _PUBLIC[module] = namespace


def public_namespace(module: str = "numpy") -> dict[str, Any]:
    """npjax's public namespace (module dict) for NumPy's ``module`` (empty before import)."""
    return _PUBLIC.get(module, {})


def public_module(module: str = "numpy") -> types.ModuleType:
    """npjax's public module for NumPy's ``module`` (``npjax`` for "numpy")."""
    return sys.modules[_PUBLIC[module]["__name__"]]


def install(namespace: dict[str, Any], module: str = "numpy") -> None:
    """Give ``namespace`` (npjax's module dict) every NumPy name it lacks, per the tables, and
    record it as npjax's public namespace for ``module``."""
    register(namespace, module)
    source = _numpy_module(module)
    for name in public_names(module):
        if name in namespace:
            _add_numpy_doc(namespace[name], getattr(source, name, None), f"{module}.{name}")
            continue
        obj = getattr(source, name)
        qualified = _key(module, name)
        if qualified in FALLBACK_MODULES:
            namespace[name] = _fallback_module(name, obj)
        elif qualified in HOST and not isinstance(obj, types.ModuleType):
            namespace[name] = host_function(qualified, obj)
        elif (qualified in NUMPY_OBJECTS or qualified in EXCLUDED or _auto_numpy(obj)
              or isinstance(obj, type | types.ModuleType)):
            namespace[name] = obj
        elif callable(obj):
            namespace[name] = fallback_function(qualified, obj)
        else:
            namespace[name] = obj
    for name in public_names(module):  # NumPy's built-in functions do not bind as methods
        if isinstance(getattr(source, name, None), types.BuiltinFunctionType) and \
                isinstance(namespace[name], types.FunctionType):
            namespace[name] = NonBinding(namespace[name])
    if module == "numpy":  # ``help(a.sum)``, ``np.info(np.ndarray.sum)``: NumPy's too
        cls = namespace["ndarray"]
        for name in dir(np.ndarray):
            if not name.startswith("_") and hasattr(cls, name):
                _add_numpy_doc(inspect.getattr_static(cls, name), getattr(np.ndarray, name),
                               f"numpy.ndarray.{name}")


class NonBinding(staticmethod):
    """An npjax function standing in for one of NumPy's built-in functions (``array``,
    ``zeros``, ``arange``...), which, unlike a Python function, stay plain functions as class
    attributes (``class T: array = np.array`` then ``T().array([1])``). Pickled by name."""

    def __reduce__(self) -> tuple:
        return _top_level, (self.__name__,)

    def __getattr__(self, name: str) -> Any:  # the function's own marks (``_npjax_host``...)
        return getattr(self.__func__, name)


def _top_level(name: str) -> Any:
    """``npjax.<name>`` (unpickling a ``NonBinding``)."""
    return getattr(public_module(), name)


_NUMPY_DOC = "\n\nNumPy's documentation of ``{}``:\n\n{}"


def _add_numpy_doc(ours: Any, theirs: Any, qualified: str) -> None:
    """``help()``/``np.info`` of an npjax function show its own docstring (what npjax does,
    its differences) and then NumPy's documentation of the function it stands in for."""
    if (ours is theirs or isinstance(ours, type | types.ModuleType) or not callable(ours)
            or not getattr(theirs, "__doc__", None) or "NumPy's documentation" in (
                ours.__doc__ or "")):
        return
    try:
        ours.__doc__ = inspect.cleandoc(ours.__doc__ or "") + _NUMPY_DOC.format(
            qualified, inspect.cleandoc(theirs.__doc__))
    except (AttributeError, TypeError):  # (objects whose docstring is read-only)
        pass


def _fallback_module(name: str, source: types.ModuleType) -> types.ModuleType:
    module = types.ModuleType(f"npjax.{name}", f"numpy.{name} run on host NumPy (fallback).")
    for attr in getattr(source, "__all__", [n for n in dir(source) if not n.startswith("_")]):
        obj = getattr(source, attr)
        module.__dict__[attr] = (fallback_function(f"{name}.{attr}", obj, FALLBACK_MODULES[name])
                                 if callable(obj) and not isinstance(obj, type) else obj)
    module.__all__ = list(getattr(source, "__all__", []))
    module._npjax_fallback = True
    module._npjax_reason = FALLBACK_MODULES[name]
    return module


def lazy_fallback(module: str, name: str) -> Any:
    """A name NumPy has and no table lists (e.g. new in a later NumPy): a fallback."""
    source = _numpy_module(module)
    if name.startswith("_") or not hasattr(source, name):
        raise AttributeError(f"module 'npjax' has no attribute {name!r}")
    obj = getattr(source, name)
    if callable(obj) and not isinstance(obj, type):
        return fallback_function(name, obj, "not yet classified by npjax")
    return obj


@functools.cache
def records() -> tuple[Spec, ...]:
    """Every spec of NumPy's public names, for the coverage report and the tests."""
    for module in MODULES:  # submodules imported on demand (numpy.lib.recfunctions): both
        _numpy_module(module)  # NumPy's and npjax's first, as their parents then list them
        if module not in _PUBLIC:
            __import__("npjax" + module[5:])
    out = []
    for module in MODULES:
        namespace = public_namespace(module)
        for name in public_names(module):
            if name in namespace and namespace[name] is None:  # newaxis, whose value is None
                out.append(Spec(module, name, "numpy", "touches no array data", "constant"))
            else:
                out.append(classify(module, name, namespace.get(name)))
    return tuple(out)


def own_records() -> tuple[Spec, ...]:
    """The specs of npjax's own public names (status ``npjax``; reason: kind and meaning)."""
    return tuple(Spec("npjax", name, "npjax", f"{kind}: {what}", kind)
                 for name, (kind, what) in sorted(OWN.items()))


def npjax_all() -> list[str]:
    """``npjax.__all__`` (and ``dir(npjax)``): NumPy's public names, each of which resolves in
    npjax, and npjax's own (``OWN``)."""
    return sorted(set(public_names("numpy")) | set(OWN))
