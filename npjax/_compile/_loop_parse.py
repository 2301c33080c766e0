"""Reading a function as the syntax tree that compiles to its very code (``_parse``), for
``_loop_source``'s rewrite: from its source (``inspect.getsource``), from its line for a
lambda, or, for a function npjax made from a syntax tree (``generated``: a loop at module
level that the runner compiles as a function, ``npjax._compile._autojit_loop``), that tree
itself, kept beside its code object. The file name and line numbers of such a function are
those of the user's script, so tracebacks, warnings and ``npjax.JitError`` name its lines.
"""

from __future__ import annotations

import __future__
import ast
import copy
import inspect
import linecache
import textwrap
import types
from collections.abc import Callable

__all__ = ["generated"]

_PREFIX = "_npjax_"
# the names of ``_loop_source._HELPERS`` (its closure's cells)
HELPERS = ("loop", "call", "getsub", "setsub", "aug", "augitem", "items", "slice", "UNBOUND",
           "NameError", "made", "while", "pick")
_GENERATED: dict[types.CodeType, ast.FunctionDef] = {}  # code -> the tree it was made from


def _name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def generated(fdef: ast.FunctionDef, filename: str, globals_: dict) -> types.FunctionType:
    """A function of ``fdef`` (no free names) over ``globals_``, compiled as ``_compile``
    compiles a rewrite (so ``_compiles_to`` holds), with ``filename`` and ``fdef``'s line
    numbers; ``_parse`` of it gives a copy of ``fdef``."""
    plain = compile("def f(): pass", filename, "exec", dont_inherit=True).co_consts[0]
    stub = types.FunctionType(plain, globals_)  # (no __future__ flags: a script's own)
    code = _compile(stub, copy.deepcopy(fdef), 0, filename)
    if len(_GENERATED) > 256:
        _GENERATED.clear()
    _GENERATED[code] = copy.deepcopy(fdef)
    return types.FunctionType(code, globals_, fdef.name)


def _compile(fn: Callable, fdef: ast.FunctionDef, first: int,
             filename: str | None = None) -> types.CodeType:
    """The code of ``fdef`` compiled as a closure over ``fn``'s free names and the helpers."""
    params = list(fn.__code__.co_freevars) + [_PREFIX + h for h in HELPERS]
    factory = ast.FunctionDef(
        name=_PREFIX + "factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params],
                           kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[fdef, ast.Return(value=_name(fdef.name))], decorator_list=[], returns=None,
        type_comment=None)
    # Module-level imports of the user's file: the compiler reads ``np.f(x)`` on a name that
    # an import bound as an attribute load, not a method load (CPython 3.11+).
    imported = sorted({n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and
                       isinstance(fn.__globals__.get(n.id), types.ModuleType)})
    imports = [ast.Import(names=[ast.alias(name="sys", asname=n)]) for n in imported]
    module = ast.Module(body=imports + [factory], type_ignores=[])
    ast.fix_missing_locations(module)
    flags = fn.__code__.co_flags & _FUTURE_FLAGS
    code = compile(module, filename or fn.__code__.co_filename, "exec", flags=flags,
                   dont_inherit=True)
    outer = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    return next(c for c in outer.co_consts if isinstance(c, types.CodeType)
                and c.co_name == fdef.name)


_FUTURE_FLAGS = 0
for _feature in ("annotations", "division", "generator_stop"):
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag


def _parse(fn: Callable) -> ast.FunctionDef | None:
    code = fn.__code__
    tree = _GENERATED.get(code)
    if tree is not None:  # made from a syntax tree (``generated``): no source to read
        return copy.deepcopy(tree)
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE |
                        inspect.CO_ASYNC_GENERATOR):
        return None
    if fn.__name__ == "<lambda>":
        return _lambda(fn)
    try:
        src = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(src)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef) or \
            tree.body[0].name != fn.__name__:
        return None
    fdef = tree.body[0]
    ast.increment_lineno(tree, code.co_firstlineno - 1)  # line 1 is the first decorator's
    fdef.decorator_list = []
    fdef.returns = None
    for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs + [
            fdef.args.vararg, fdef.args.kwarg]:
        if a is not None:
            a.annotation = None
    return fdef


def _lambda(fn: Callable) -> ast.FunctionDef | None:
    """A lambda as the ``def`` that compiles to its very bytecode: the lambda on its first
    line (of the whole file, parsed) whose code is ``fn``'s."""
    code = fn.__code__
    try:
        lines = linecache.getlines(inspect.getsourcefile(fn) or "", fn.__globals__)
        tree = ast.parse("".join(lines))
    except (OSError, TypeError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Lambda) or node.lineno != code.co_firstlineno:
            continue
        fdef = ast.FunctionDef(name=_PREFIX + "lambda", args=node.args,
                               body=[ast.copy_location(ast.Return(value=node.body), node.body)],
                               decorator_list=[], returns=None, type_comment=None)
        ast.copy_location(fdef, node)
        if _compiles_to(fn, fdef):
            return fdef
    return None


def _compiled(fn: Callable, fdef: ast.FunctionDef) -> types.CodeType | None:
    try:
        return _compile(fn, fdef, 0)
    except (SyntaxError, ValueError, StopIteration):
        return None


def _compiles_to(fn: Callable, fdef: ast.FunctionDef) -> bool:
    """Whether ``fdef`` compiles to the very code of ``fn``: bytecode, names and constants
    (a file edited after its import can differ in a literal only: ``x * 2.0`` read back as
    ``x * 3.0`` has the same bytecode)."""
    same = _compiled(fn, fdef)
    return same is not None and _code_key(same) == _code_key(fn.__code__)


def _code_key(code: types.CodeType) -> tuple:
    return (code.co_code, code.co_names, code.co_varnames, _const_key(code.co_consts))


def _const_key(c: object) -> object:
    """A constant as the compiler keeps it apart: by type and repr (``2 == 2.0 == True`` and
    ``0.0 == -0.0`` for ``==``), tuples and frozensets item by item, code objects by
    ``_code_key``."""
    if type(c) is types.CodeType:
        return _code_key(c)
    if type(c) is tuple:
        return tuple(_const_key(x) for x in c)
    if type(c) is frozenset:
        return frozenset(_const_key(x) for x in c)
    return type(c), repr(c)
