"""Subclasses of ``npjax.ndarray``, kept as NumPy keeps subclasses of ``numpy.ndarray``.

NumPy hands a subclass on: ``a.view(Sub)``, views, methods, operators and ufuncs of a ``Sub``
instance give ``Sub`` instances, each with one ``__array_finalize__(obj)`` call (``obj``: the
``Sub`` operand; the viewed array for ``view``; None for a new one), and a ``Sub``'s own
methods (``__setitem__``...) run as written. npjax's code computes with plain arrays, so:

- ``view(type=Sub)`` makes a plain view of the same memory and gives it the class.
- Every subclass gets, between itself and ``npjax.ndarray``, the class ``SubclassOps`` (its
  ``__bases__`` are set when it is defined): each ndarray method, operator and array
  property there runs npjax's on plain views of the same memory (operands too), then gives
  the results the subclass (``_RULES``: the few NumPy returns as base arrays or scalars).
  ``super()`` in the subclass's own methods reaches these too. Results that are operands
  (``out=``, in-place operators) are those operands.
- ufuncs: results take the class of the subclass operand with the highest
  ``__array_priority__`` (the first on a tie), through its ``__array_wrap__``; ufunc
  methods (``reduce``...) that of their first subclass operand.
- NumPy functions that call the method of a non-``numpy.ndarray`` argument (``np.sum``,
  ``np.take``, ``np.mean``...: ``DELEGATED``) run NumPy's own Python implementation, which
  calls the subclass's method: NumPy's result by construction.
- ``array``/``asarray`` give base-class arrays, ``asanyarray`` the instance itself, as NumPy.
- ``npjax.random``'s draws read a subclass operand's memory and give base-class arrays, as
  NumPy's random functions do (they keep no subclass); ``shuffle`` permutes it in place.
- Any other npjax function given a subclass instance raises ``NotImplementedError``: NumPy
  decides function by function whether a result keeps the subclass, and a base-class
  result where NumPy keeps it would be a silent change of type. Compute on
  ``x.view(npjax.ndarray)`` (same memory) and view the result as the subclass.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np

from npjax._core._ndarray import as_class, ndarray


class SubclassOperand(Exception):
    """Raised by the host route and the ufunc path when an operand is a subclass instance
    (caught by the public callables, which apply NumPy's rules or refuse)."""


def is_subclass(x: Any) -> bool:
    """Whether ``x`` is an instance of a proper subclass of ``npjax.ndarray``."""
    return type(x) is not ndarray and isinstance(x, ndarray)


def has_subclass(args: tuple, kwargs: dict) -> bool:
    """Whether a subclass instance is among the arguments (one level into sequences)."""
    for a in (*args, *kwargs.values()):
        if type(a) is tuple or type(a) is list:
            if any(is_subclass(x) for x in a):
                return True
        elif is_subclass(a):
            return True
    return False


def plain(x: ndarray) -> ndarray:
    """A plain npjax array over the memory of ``x`` (a view: writes reach ``x``)."""
    return ndarray._view(x, (), x._layout_array()[...])


def as_subclass(x: ndarray, cls: type, obj: Any) -> ndarray:
    """The array ``x`` (a new result nothing else holds) as an instance of ``cls``: the same
    storage, a 0-d array for a scalar, then ``__array_finalize__(obj)``."""
    new = as_class(x, cls)
    new.__array_finalize__(obj)
    return new


def _plain_arg(x: Any, originals: dict) -> Any:
    if is_subclass(x):
        p = plain(x)
        originals[id(p)] = x
        return p
    if type(x) is tuple or type(x) is list:
        if any(is_subclass(v) for v in x):
            return type(x)(_plain_arg(v, originals) for v in x)
    return x


def _plain_args(args: tuple, kwargs: dict, originals: dict) -> tuple[tuple, dict]:
    return (tuple(_plain_arg(a, originals) for a in args),
            {k: _plain_arg(v, originals) for k, v in kwargs.items()})


def _wrap(result: Any, cls: type, obj: Any, originals: dict, rule: Any) -> Any:
    """A method's result as NumPy gives it for a subclass instance ``obj`` (see _RULES); a
    tuple ``rule`` gives each item of a tuple result its own rule (other results: "base")."""
    kind = type(result)
    if isinstance(rule, tuple):
        if not isinstance(result, tuple):
            return _wrap(result, cls, obj, originals, "base")
        items = [_wrap(r, cls, obj, originals, k) for r, k in zip(result, rule, strict=True)]
        return kind(*items) if hasattr(result, "_fields") else kind(items)
    if kind is ndarray:
        original = originals.get(id(result))
        if original is not None:
            return original
        if rule == "base" or (rule == "scalar" and result._scalar):
            return result
        return as_subclass(result, cls, obj)
    if isinstance(result, np.generic):
        if rule != "wrap":
            return result
        return as_subclass(ndarray._owner(np.asarray(result)), cls, obj)
    if isinstance(result, tuple):
        items = [_wrap(r, cls, obj, originals, rule) for r in result]
        return kind(*items) if hasattr(result, "_fields") else kind(items)
    return result


def _round_rule(self: ndarray, args: tuple, kwargs: dict) -> str:
    """NumPy's ``round`` makes a base-class array when it scales (float decimals != 0,
    integer decimals < 0); otherwise the subclass is kept."""
    decimals = args[0] if args else kwargs.get("decimals", 0)
    kind = self.dtype.kind
    scales = (kind == "f" and decimals != 0) or (kind in "iu" and decimals < 0)
    return "base" if scales else "wrap"


# Methods whose results NumPy does not give the subclass: "base" (base-class arrays),
# "scalar" (scalars stay scalars; arrays get the subclass), or a function of the call
# giving one of these. Every other method: "wrap" (0-d results too).
_RULES: dict[str, Any] = {
    "round": _round_rule, "nonzero": "base", "argmax": "scalar", "argmin": "scalar",
    "trace": "scalar", "__getitem__": "scalar"}


def call_method(name: str, fn: Any, self: ndarray, args: tuple, kwargs: dict) -> Any:
    """``fn`` (npjax's method ``name``) for ``self`` with NumPy's subclass rules: run on plain
    views of ``self`` and of the operands, then the results given ``type(self)`` when
    ``self`` is a subclass instance (else only the operands are made plain)."""
    originals: dict = {}
    p = self
    if type(self) is not ndarray:
        p = plain(self)
        originals[id(p)] = self
    args, kwargs = _plain_args(args, kwargs, originals)
    result = fn(p, *args, **kwargs)
    if p is self:  # a plain array's method: its results are plain (operands mapped back)
        return _wrap(result, ndarray, None, originals, "base")
    rule = _RULES.get(name, "wrap")
    if callable(rule):
        rule = rule(self, args, kwargs)
    return _wrap(result, type(self), self, originals, rule)


def _wrap_choice(args: tuple, kwargs: dict) -> Any:
    """The operand whose ``__array_wrap__`` NumPy's ufunc uses: the subclass instance with
    the highest ``__array_priority__``, the first one on a tie."""
    best, priority = None, None
    for a in args:
        if is_subclass(a):
            p = getattr(a, "__array_priority__", 0.0)
            if best is None or p > priority:
                best, priority = a, p
    return best


def call_ufunc(ufunc: Any, args: tuple, kwargs: dict, method: str | None = None) -> Any:
    """A ufunc call (or ufunc ``method``) with subclass operands, with NumPy's rules."""
    originals: dict = {}
    p_args, p_kwargs = _plain_args(args, kwargs, originals)
    fn = ufunc if method is None else getattr(ufunc, method)
    result = fn(*p_args, **p_kwargs)
    chosen = _wrap_choice(args, kwargs)
    if chosen is None:  # subclass instances only among the outputs
        return _wrap(result, ndarray, None, originals, "base")
    return _wrap_ufunc(result, chosen, originals)


def _wrap_ufunc(result: Any, chosen: ndarray, originals: dict) -> Any:
    if isinstance(result, tuple):
        return tuple(_wrap_ufunc(r, chosen, originals) for r in result)
    if type(result) is ndarray and id(result) in originals:
        return originals[id(result)]
    if type(result) is not ndarray and not isinstance(result, np.generic):
        return result
    if type(chosen).__array_wrap__ is not _base_array_wrap:  # the subclass's own
        return chosen.__array_wrap__(result, None, result.ndim == 0)
    if type(result) is not ndarray:
        result = ndarray._owner(np.asarray(result))
    return as_subclass(result, type(chosen), chosen)


# NumPy functions that call the method of an argument that is not a numpy.ndarray
# (fromnumeric's _wrapfunc/_wrapreduction and the like): NumPy's Python code, run on the
# subclass instance, gives NumPy's result (the method's).
DELEGATED = frozenset({
    "all", "amax", "amin", "any", "argmax", "argmin", "argpartition", "argsort", "around",
    "choose", "clip", "compress", "cumprod", "cumsum", "max", "mean", "min", "nonzero",
    "prod", "put", "repeat", "reshape", "round", "searchsorted", "squeeze", "std", "sum",
    "swapaxes", "take", "transpose", "var", "shape", "ndim", "size"})


# NumPy functions whose code is ``asanyarray(a).<name>(...)``: the subclass's own method runs,
# given every parameter after ``a`` by name (these defaults, in order); linalg's namesakes
# call them on the last two axes.
METHOD_OF = {"trace": {"offset": 0, "axis1": 0, "axis2": 1, "dtype": None, "out": None},
             "diagonal": {"offset": 0, "axis1": 0, "axis2": 1}}


# npjax functions whose own code applies NumPy's subclass rules (``subok``).
HANDLED = frozenset({"copy", "zeros_like", "ones_like", "empty_like", "full_like", "allclose",
                     "require"})


# npjax functions whose array results NumPy gives the class of the subclass operand (its
# ufuncs, methods or ``__array_wrap__``), checked against NumPy in tests/test_subclasses.py:
# computed on plain views of the operands, the results then take the class ("wrap"), 0-d
# results too except under "scalar" (NumPy's scalar there). Only where every array operand is
# an instance of that one subclass, and without ``out=``. Not here: functions whose NumPy code
# calls the subclass's own ``__setitem__`` (linspace, logspace, geomspace, nanmedian), which
# npjax's would not.
KEPT = {
    **dict.fromkeys((
        "nanmin", "nanmax", "nansum", "nanprod", "nancumsum", "nancumprod", "nanmean",
        "nanvar", "nanstd", "median", "average", "ptp", "diff", "dot", "inv", "solve", "pinv",
        "qr", "cholesky", "matrix_power", "tensorsolve"), "wrap"),
    **dict.fromkeys(("nanargmin", "nanargmax", "percentile", "quantile", "nanpercentile",
                     "nanquantile"), "scalar"),
    # functions that begin with ``asarray`` (linalg's, and ``outer``/``cross``/``tensordot``
    # under both names): base-class results (scalars for 2-d operands of ``det``...)
    **dict.fromkeys(("det", "slogdet", "norm", "matrix_norm", "vector_norm", "cond",
                     "matrix_rank", "eigvals", "eigvalsh", "svdvals", "tensorinv", "outer",
                     "cross", "tensordot"), "base"),
    # linalg's wrappers of a ufunc or method (0-d results of the subclass too) and
    # ``multi_dot`` (``dot``'s: a scalar for two 1-d ends)
    **dict.fromkeys(("matmul", "vecdot", "matrix_transpose"), "wrap"),
    "multi_dot": "scalar",
    # ... and those that wrap some of their results: a rule for each item of the tuple
    "eig": ("base", "wrap"), "eigh": ("base", "wrap"), "svd": ("wrap", "base", "wrap"),
    "lstsq": ("wrap", "wrap", "base", "base"),
}


# ... and those whose results take the class of one operand (by position; NumPy's wrap of
# ``linalg.solve`` and ``lstsq`` is b's, of ``dot`` a's), the others' classes aside: plain
# results when that operand is a plain array.
KEPT_FROM = {"solve": 1, "dot": 0, "lstsq": 1}


def _one_subclass(args: tuple, kwargs: dict) -> Any:
    """The subclass operand when every array operand (a ``where=`` mask aside) is an instance
    of its class, else None."""
    found = None
    for a in (*args, *(v for k, v in kwargs.items() if k != "where")):
        for x in (a if type(a) is tuple or type(a) is list else (a,)):
            if isinstance(x, ndarray | np.ndarray | jax.Array) and not isinstance(x, np.generic):
                if not is_subclass(x) or (found is not None and type(x) is not type(found)):
                    return None
                found = x if found is None else found
    return found


def call_function(name: str, numpy_fn: Any, args: tuple, kwargs: dict,
                  public: Any = None) -> Any:
    """An npjax function ``name`` given a subclass instance: NumPy's own code for the
    functions that delegate to methods, the subclass kept for those of ``KEPT`` (``public``:
    the npjax function, run on plain views), else NotImplementedError."""
    impl = getattr(numpy_fn, "_implementation", None)
    module = getattr(numpy_fn, "__module__", "")
    if name in DELEGATED and impl is not None and module == "numpy":
        return impl(*args, **kwargs)
    if name in METHOD_OF and impl is not None and args and is_subclass(args[0]):
        if module == "numpy.linalg":  # NumPy's code: np.trace/np.diagonal, the last two axes
            return impl(*args, **kwargs)
        if module == "numpy":  # NumPy's code: ``asanyarray(a).<name>(every parameter=...)``
            named = {**METHOD_OF[name], **dict(zip(METHOD_OF[name], args[1:])), **kwargs}
            return getattr(args[0], name)(**named)
    if public is not None and name in KEPT and kwargs.get("out") is None:
        if name in KEPT_FROM:  # the class of one operand, or none
            at = KEPT_FROM[name]
            obj = args[at] if len(args) > at and is_subclass(args[at]) else False
        else:
            obj = _one_subclass(args, kwargs)
        if obj is False:
            plain_args, plain_kwargs = _plain_args(args, kwargs, {})
            return public(*plain_args, **plain_kwargs)
        if obj is not None:
            originals: dict = {}
            plain_args, plain_kwargs = _plain_args(args, kwargs, originals)
            return _wrap(public(*plain_args, **plain_kwargs), type(obj), obj, originals,
                         KEPT[name])
    kinds = sorted({type(a).__name__ for a in (*args, *kwargs.values()) if is_subclass(a)}
                   | {type(v).__name__ for a in (*args, *kwargs.values())
                      if type(a) is tuple or type(a) is list for v in a if is_subclass(v)})
    raise NotImplementedError(
        f"npjax.{name}: an operand is an instance of the ndarray subclass "
        f"{', '.join(kinds)}; npjax keeps subclasses through views, methods, operators and "
        "ufuncs (NumPy decides function by function whether other results keep the "
        f"subclass). Call {name} on x.view(npjax.ndarray) (the same memory) and view the "
        "result as the subclass if it should be one.")


def refuse(name: str, *values: Any) -> None:
    """For npjax functions outside the routes above: NotImplementedError (``call_function``)
    when one of ``values`` is (or holds) a subclass instance."""
    if has_subclass(values, {}):
        call_function(name, None, values, {})


# --- the class between a subclass and npjax.ndarray -------------------------------------

# Members that need no wrapping: they return no arrays, or handle subclasses themselves.
_PASS = frozenset({
    "__array__", "__array_function__", "__array_ufunc__", "__array_namespace__",
    "__array_finalize__", "__init__", "__new__", "__repr__", "__str__", "__format__",
    "__len__", "__iter__", "__bool__", "__float__", "__int__", "__complex__", "__index__",
    "__hash__", "__sizeof__", "__setstate__", "__class_getitem__", "__init_subclass__",
    "__dlpack__", "__dlpack_device__", "__buffer__", "__release_buffer__", "__reduce__",
    "__reduce_ex__", "__getstate__", "__setitem__", "__delitem__", "__contains__", "view",
    "tolist", "item", "tobytes", "tofile", "dump", "dumps", "setflags", "fill", "resize",
    "to_jax", "__jax_array__", "devices"})
_PROPERTIES = ("T", "mT", "real", "imag")
_base_array_wrap: Any = None
SubclassOps: Any = None


def _method(name: str, fn: Any) -> Any:
    def method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
        return call_method(name, fn, self, args, kwargs)

    functools.update_wrapper(method, fn)
    return method


def _property(name: str, prop: property) -> property:
    def get(self: ndarray) -> Any:
        return call_method(name, prop.fget, self, (), {})

    return property(get, prop.fset, prop.fdel, prop.__doc__)


def _init_subclass(cls: type, **kwargs: Any) -> None:
    """Put ``SubclassOps`` between a new direct subclass and ``npjax.ndarray``."""
    super(ndarray, cls).__init_subclass__(**kwargs)
    if SubclassOps is not None and ndarray in cls.__bases__ and cls is not SubclassOps:
        cls.__bases__ = tuple(SubclassOps if b is ndarray else b for b in cls.__bases__)


def install() -> None:
    """Build ``SubclassOps`` from ndarray's members as they are now (call once, after every
    family has installed its methods and the host route is in place)."""
    global SubclassOps, _base_array_wrap
    members: dict[str, Any] = {"__slots__": (), "__module__": "npjax"}
    for name, value in vars(ndarray).items():
        if name in _PASS or (name.startswith("_") and not name.startswith("__")):
            continue
        if callable(value) and not isinstance(value, type | classmethod | staticmethod):
            members[name] = _method(name, value)
    for name in _PROPERTIES:
        members[name] = _property(name, vars(ndarray)[name])
    _base_array_wrap = vars(ndarray)["__array_wrap__"]
    ndarray.__init_subclass__ = classmethod(_init_subclass)
    SubclassOps = type("SubclassOps", (ndarray,), members)
    SubclassOps.__doc__ = ("Between a subclass of npjax.ndarray and npjax.ndarray: "
                           "npjax's members, with NumPy's subclass rules "
                           "(npjax/_core/_subclasses.py).")
