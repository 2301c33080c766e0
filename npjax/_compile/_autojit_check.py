"""What ``npjax.autojit`` may compile: a function whose run changes nothing but arrays and its
own locals (issue 35, point 3), read from its bytecode before its first compile.

A compiled function runs its Python once, while it is traced; later calls run the program. So
a function is compiled only when running its Python once or many times is the same:

- it writes no global, no variable of an enclosing function and no attribute, imports
  nothing, handles no exception (a trace error caught by ``except`` would take another path
  than the run as written; ``with`` blocks are fine), has no default value but what a
  global may be (below), and is not a generator;
- every global, closure variable and default value it reads is a module of npjax, NumPy's
  module (a namespace: what is read of it is checked as a global is; not ``numpy.random``),
  ``math``, ``cmath``, ``operator`` or ``itertools``, a function or ufunc of npjax, a function
  of ``operator``, a builtin without side effects (not ``print``, ``open``, ``input``...), a
  number, string, ``None``, slice or tuple of them, a NumPy dtype or scalar type, or a
  function of the user's own that passes the same check;
  nothing it reaches draws random numbers (``npjax.random``: functions, generators), reads or
  writes files, or changes process state (``seterr``, ``set_printoptions``, ``set_policy``,
  ``seed``...). npjax arrays read from globals are refused (a compiled function holds them
  as constants; the script may change them); a NumPy array of numbers of at most
  ``CONST_BYTES`` is a constant whose contents are guarded (below); larger ones are refused.

The values read are *guards* (``Guards``): each compiled call checks that every global and
closure variable the check read still holds the same object (a script that rebinds a global
threshold gets its new value, compiled anew), and that every NumPy array among them still
holds the same shape, dtype and bytes (a script that writes into a table gets its new
values, compiled anew). While a compile traces the function those arrays are read-only
(``Guards.freeze``, ``_autojit._Guarded``): a function that writes into one raises there and
runs as written, and is refused from then on.
"""

from __future__ import annotations

import builtins
import dis
import inspect
import types
from typing import Any

import numpy as np

from npjax._compile import _user_code

__all__ = ["CONST_BYTES", "Guards", "check"]

CONST_BYTES = 1 << 16  # the largest global or closure NumPy array held as a constant: its
# bytes are compared at every compiled call (a few microseconds at this size)

_MODULES = ("math", "cmath", "operator", "itertools")
_BUILTINS = frozenset((
    "abs", "all", "any", "bool", "complex", "divmod", "enumerate", "float", "int", "isinstance",
    "issubclass", "len", "list", "dict", "tuple", "set", "frozenset", "map", "filter", "max",
    "min", "pow", "range", "reversed", "round", "slice", "sorted", "sum", "zip", "type",
    "getattr", "hasattr", "iter", "next", "callable", "str", "repr", "format",
    "chr", "ord", "bin", "hex", "oct", "ValueError", "TypeError", "IndexError", "KeyError",
    "RuntimeError", "ZeroDivisionError", "ArithmeticError", "Exception", "AssertionError",
    "NotImplementedError", "StopIteration", "True", "False", "None", "Ellipsis",
    "NotImplemented"))
_RANDOM = ("random",)
_FILES = frozenset(("save", "savez", "savez_compressed", "savetxt", "load", "loadtxt",
                    "genfromtxt", "fromfile", "tofile", "memmap", "fromregex"))
# npjax functions that change process state (a compiled function would change it only while
# traced)
_STATEFUL = frozenset(("seterr", "seterrcall", "set_printoptions", "setbufsize", "set_policy",
                       "reset_policy", "reset_stats", "policy", "printoptions", "seed",
                       "set_string_function"))
_STORES = {"STORE_GLOBAL": "writes the global", "DELETE_GLOBAL": "deletes the global",
           "STORE_ATTR": "sets the attribute", "DELETE_ATTR": "deletes the attribute",
           "IMPORT_NAME": "imports", "IMPORT_STAR": "imports",
           "CHECK_EXC_MATCH": "catches exceptions by class",
           "CHECK_EG_MATCH": "catches exceptions by class"}
_GENERATOR = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
_MISSING = object()
_LOCAL = object()  # the root of an attribute chain read from a local variable
_LEAVES = (int, float, complex, bool, str, bytes, type(None), type(Ellipsis), np.generic,
           np.dtype)


def _leaf(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_leaf(v) for v in value)
    if isinstance(value, slice):  # (immutable, as a tuple)
        return _leaf((value.start, value.stop, value.step))
    return isinstance(value, _LEAVES)


class Refused(Exception):
    """Why a function cannot be compiled, with the ``file:line`` it is about."""

    def __init__(self, why: str, site: str) -> None:
        super().__init__(why)
        self.why, self.site = why, site


class Guards:
    """The globals and closure variables a check read: (namespace, name, object) and
    (cell, object); ``hold()`` says whether each still holds the same object."""

    __slots__ = ("_seen", "arrays", "cells", "defaults", "names")

    def __init__(self) -> None:
        self.names: list[tuple[dict, str, Any]] = []
        self.cells: list[tuple[Any, Any]] = []
        # (array, name, shape, dtype, bytes): NumPy arrays held as constants
        self.arrays: list[tuple[np.ndarray, str, tuple, np.dtype, bytes]] = []
        # (function, its __defaults__, its __kwdefaults__ items)
        self.defaults: list[tuple[Any, Any, tuple]] = []
        self._seen: set[tuple[int, Any]] = set()

    def default(self, fn: Any) -> None:
        if (id(fn), "defaults") not in self._seen:
            self._seen.add((id(fn), "defaults"))
            self.defaults.append((fn, fn.__defaults__, _items(fn.__kwdefaults__)))

    def array(self, a: np.ndarray, name: str) -> None:
        if (id(a), "array") not in self._seen:
            self._seen.add((id(a), "array"))
            self.arrays.append((a, name, a.shape, a.dtype, a.tobytes()))

    def changed(self) -> list[str]:
        """The names of the guarded NumPy arrays whose contents changed."""
        return [name for a, name, shape, dtype, data in self.arrays
                if a.shape != shape or a.dtype != dtype or a.tobytes() != data]

    def freeze(self) -> list[np.ndarray]:
        """Make the guarded arrays read-only (while a compile traces the function: a write
        into one raises there, and the call runs as written); the ones it changed."""
        frozen = [a for a, *_ in self.arrays if a.flags.writeable]
        for a in frozen:
            a.flags.writeable = False
        return frozen

    def name(self, ns: dict, name: str, obj: Any) -> None:
        if (id(ns), name) not in self._seen:
            self._seen.add((id(ns), name))
            self.names.append((ns, name, obj))

    def cell(self, cell: Any, obj: Any) -> None:
        if (id(cell), None) not in self._seen:
            self._seen.add((id(cell), None))
            self.cells.append((cell, obj))

    def hold(self) -> bool:
        for ns, name, obj in self.names:
            now = ns.get(name, _MISSING)
            if now is not obj and _user_code.unwrapped(now) is not obj:
                return False
        if not all(_contents(cell) is obj for cell, obj in self.cells):
            return False
        for fn, defaults, kw in self.defaults:
            if fn.__defaults__ is not defaults or _items(fn.__kwdefaults__) != kw:
                return False
        return not self.arrays or not self.changed()


def _items(kwdefaults: dict | None) -> tuple:
    """A function's keyword defaults, compared by identity."""
    return tuple((k, id(v)) for k, v in kwdefaults.items()) if kwdefaults else ()


def _contents(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return _MISSING


def _site(code: types.CodeType, line: int | None) -> str:
    return f"{code.co_filename}:{line if line is not None else code.co_firstlineno}"


def _codes(code: types.CodeType) -> list[types.CodeType]:
    out = [code]
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out += _codes(c)
    return out


def _npjax_object(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) or getattr(type(obj), "__module__", "")
    return isinstance(module, str) and (module == "npjax" or module.startswith("npjax."))


class _Checker:
    def __init__(self) -> None:
        self.guards = Guards()
        self.seen: set[types.CodeType] = set()

    def function(self, fn: Any, depth: int = 0) -> None:
        code = fn.__code__
        if code in self.seen:
            return
        self.seen.add(code)
        if depth > 8:
            raise Refused("calls functions nested too deep to check", _site(code, None))
        if code.co_flags & _GENERATOR:
            raise Refused("is a generator or coroutine", _site(code, None))
        defaults = (*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values())
        for value in defaults:
            if _leaf(value):
                continue
            try:  # a default read as a global is (a guarded NumPy array, a function...)
                self._object(value, "a default value", _site(code, None), depth)
            except Refused:
                raise Refused("has a default value that is not a number, string, tuple of "
                              "them, function or module (the function could change it)",
                              _site(code, None)) from None
        if defaults:
            self.guards.default(fn)
        cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
        for sub in _codes(code):
            self._code(fn, sub, cells, depth)

    def _code(self, fn: Any, code: types.CodeType, cells: dict, depth: int) -> None:
        ops = [ins.opname for ins in dis.get_instructions(code)]
        if ops.count("PUSH_EXC_INFO") > ops.count("WITH_EXCEPT_START"):
            # an ``except``/``finally`` handler: under a trace it would also catch npjax's
            # "cannot trace" errors and take another path than the run as written
            raise Refused("handles exceptions (try/except or try/finally)", _site(code, None))
        line = None
        chain: list[str] | None = None
        root: Any = None
        where = None
        for ins in dis.get_instructions(code):
            if ins.starts_line is not None:
                line = ins.starts_line
            op = ins.opname
            if chain is not None and op in ("LOAD_ATTR", "LOAD_METHOD"):
                chain.append(ins.argval)
                continue
            if chain is not None:
                self._value(root, chain, where, depth)
                chain = None
            if op in _STORES:
                what = f" {ins.argval}" if op in ("STORE_GLOBAL", "DELETE_GLOBAL", "STORE_ATTR",
                                                 "DELETE_ATTR", "IMPORT_NAME") else ""
                raise Refused(f"{_STORES[op]}{what}", _site(code, line))
            if op in ("STORE_DEREF", "DELETE_DEREF") and ins.argval in fn.__code__.co_freevars:
                raise Refused(f"writes the variable {ins.argval} of an enclosing function",
                              _site(code, line))
            if op in ("LOAD_GLOBAL", "LOAD_NAME"):
                name = ins.argval
                ns = fn.__globals__
                if name in ns:
                    obj = ns[name]
                    self.guards.name(ns, name, obj)
                else:
                    self.guards.name(ns, name, _MISSING)
                    bns = ns.get("__builtins__", builtins.__dict__)
                    if isinstance(bns, types.ModuleType):
                        bns = bns.__dict__
                    obj = bns.get(name, _MISSING)
                    if obj is _MISSING:
                        continue  # a NameError when it runs, as written (the trace raises it)
                    if name not in _BUILTINS:
                        raise Refused(f"calls {name}", _site(code, line))
                    self.guards.name(bns, name, obj)
                    continue
                chain, root, where = [name], obj, _site(code, line)
            elif op in ("LOAD_DEREF", "LOAD_CLASSDEREF") and ins.argval in cells:
                cell = cells[ins.argval]
                try:
                    obj = cell.cell_contents
                except ValueError:
                    continue
                self.guards.cell(cell, obj)
                chain, root, where = [ins.argval], obj, _site(code, line)
            elif op == "LOAD_FAST":  # a local or argument (a module given as one: np.random)
                chain, root, where = [ins.argval], _LOCAL, _site(code, line)
        if chain is not None:
            self._value(root, chain, where, depth)

    def _value(self, obj: Any, chain: list[str], site: str, depth: int) -> None:
        """Check a global (or closure variable) ``chain[0]`` and the attributes read of it."""
        for i, attr in enumerate(chain):
            dotted = ".".join(chain[:i + 1])
            if attr in _RANDOM and i:
                raise Refused(f"draws random numbers ({dotted})", site)
            if attr in _FILES | _STATEFUL and i:
                raise Refused(f"reads or writes files or process state ({dotted})", site)
            if obj is _LOCAL:
                continue  # a local's value is not known here: only the names it reads
            if i:
                if not isinstance(obj, types.ModuleType):
                    return  # an attribute of an allowed object (np.float64.eps, a method)
                obj = getattr(obj, attr, None)
            self._object(obj, dotted, site, depth)

    def _object(self, obj: Any, name: str, site: str, depth: int) -> None:
        t = type(obj)
        home = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(
            obj, "__module__", None)
        if any(isinstance(m, str) and (m == "npjax.random" or m.startswith("npjax.random."))
               for m in (home, t.__module__)):
            raise Refused(f"draws random numbers ({name})", site)
        if _npjax_object(obj) and getattr(obj, "__name__", None) in _FILES | _STATEFUL:
            raise Refused(f"reads or writes files or process state ({name})", site)
        if (fn := _user_code.unwrapped(obj)) is not obj:
            self.function(fn, depth + 1)  # another autojit function
            return
        if isinstance(obj, types.ModuleType):
            top = obj.__name__.partition(".")[0]
            if obj.__name__ == "numpy.random" or obj.__name__.startswith("numpy.random."):
                raise Refused(f"draws random numbers ({name})", site)
            if top in ("npjax", "numpy") or obj.__name__ in _MODULES:
                return  # (a namespace: what is read of it is checked as it is read)
            raise Refused(f"uses the module {obj.__name__} ({name})", site)
        if isinstance(obj, _LEAVES) or (isinstance(obj, slice) and _leaf(obj)):
            return
        if isinstance(obj, tuple):
            for item in obj:
                self._object(item, name, site, depth)
            return
        if isinstance(obj, type):
            home = obj.__module__ or ""
            if issubclass(obj, np.generic) or home == "builtins" or _npjax_object(obj) or (
                    home.partition(".")[0] == "numpy" and not home.startswith("numpy.random")):
                return  # NumPy's and npjax's classes: dtype, finfo, errstate, ndarray...
            raise Refused(f"uses the class {name}", site)
        if _npjax_object(obj):
            if hasattr(obj, "_value") or hasattr(obj, "shape"):  # an npjax array
                raise Refused(f"reads the global array {name} (a compiled function would "
                              "keep its value)", site)
            return
        if isinstance(obj, types.BuiltinFunctionType):
            module = getattr(obj, "__module__", None)
            if module in _MODULES or module == "_operator":  # (operator's functions' own)
                return
            if module == "builtins" and obj.__name__ in _BUILTINS:  # (as a default value)
                return
            raise Refused(f"calls {name}", site)
        if isinstance(obj, types.FunctionType):
            if _user_code.user_code(obj.__code__):
                self.function(obj, depth + 1)
                return
            raise Refused(f"calls {name} ({obj.__module__}), not npjax's code or yours", site)
        if t is np.ndarray and obj.dtype.kind in "biufc" and obj.nbytes <= CONST_BYTES:
            self.guards.array(obj, name)  # a constant while its contents stay the same
            return
        if isinstance(obj, np.ndarray):
            raise Refused(f"reads the array {name} (over {CONST_BYTES} bytes or not of "
                          "numbers: a compiled function would keep its value)", site)
        if hasattr(obj, "__array__"):
            raise Refused(f"reads the global array {name} (a compiled function would keep "
                          "its value)", site)
        raise Refused(f"reads {name}, a {type(obj).__name__}", site)


def check(fn: Any) -> Guards:
    """The guards of ``fn`` when it may be compiled; raises ``Refused`` when not."""
    checker = _Checker()
    checker.function(fn)
    return checker.guards
