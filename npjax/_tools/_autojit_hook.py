"""``python -m npjax run`` under ``jit="auto"``: ``npjax.autojit`` on the functions of the
user's own files (issue 35, point 2).

The script and every module it imports from its own folder tree (the runner's ``_UserCode``:
not npjax, the standard library or installed packages) are compiled from source with each
undecorated ``def`` at module level given one decorator, ``_autojit.auto`` (imported by the
decorator expression itself). Its line is the ``def``'s own, so tracebacks,
``co_firstlineno`` and the report's lines are the source's. Functions with decorators of
their own, methods and nested functions are left as they are. Each eligible module-level
``for i in range(...)`` loop gets its range passed through ``_autojit_loop.loop`` (its hot
remaining iterations run as one compiled loop function; the loop as written otherwise).
Local modules are loaded by ``Finder``, a ``sys.meta_path`` finder in front of the others
while the script runs; it compiles from source each time (it neither reads nor writes the
``.pyc`` files a plain ``python`` run uses).
"""

from __future__ import annotations

import ast
import importlib.machinery
import sys
import types
from collections.abc import Callable
from typing import Any

# The decorator: an expression that needs no name in the module's globals (``runpy`` runs a
# ``-m`` module's code in a namespace of its own).
_DECORATOR = '__import__("npjax._compile._autojit", fromlist=("auto",)).auto'


_LOOP = '__import__("npjax._compile._autojit_loop", fromlist=("loop",)).loop'


def transform(tree: ast.Module, path: str = "<unknown>") -> ast.Module:
    """Add the autojit decorator to each undecorated module-level ``def`` of ``tree``, and
    route each eligible module-level ``for`` loop's range through ``_autojit_loop.loop``."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.decorator_list:
            deco = ast.parse(_DECORATOR, mode="eval").body
            _locate(deco, node)
            node.decorator_list.append(deco)
    _loops(tree.body, path)
    return tree


def _locate(expr: ast.AST, node: ast.AST) -> None:
    for sub in ast.walk(expr):
        ast.copy_location(sub, node)
        sub.end_lineno, sub.end_col_offset = node.lineno, node.col_offset


def _loops(stmts: list, path: str) -> None:
    """Module-level loops (also inside module-level ``if``, ``with`` and loops; not inside
    ``try``, whose handler could see the names a compiled loop binds at another time)."""
    from npjax._compile import _autojit_loop  # (only when a script runs under the hook)

    for node in stmts:
        if isinstance(node, ast.For) and _autojit_loop.eligible(node):
            k = _autojit_loop.register(node, path)  # (its tree before inner loops change)
            call = ast.parse(_LOOP, mode="eval").body
            call = ast.Call(func=call, args=[ast.Constant(value=k), node.iter,
                                             ast.Call(func=ast.Name(id="globals",
                                                                    ctx=ast.Load()),
                                                      args=[], keywords=[])], keywords=[])
            _locate(call.func, node.iter)
            for sub in (call, call.args[0], call.args[2], call.args[2].func):
                ast.copy_location(sub, node.iter)
            node.iter = call
        if isinstance(node, ast.For | ast.While | ast.If):
            _loops(node.body, path)
            _loops(node.orelse, path)
        elif isinstance(node, ast.With):
            _loops(node.body, path)


def compile_source(source: bytes | str, path: str) -> types.CodeType:
    """``compile(source, path, "exec")`` with the autojit decorators added."""
    tree = ast.parse(source, path)
    return compile(transform(tree, path), path, "exec", dont_inherit=True)


class _Loader(importlib.machinery.SourceFileLoader):
    """Loads a local module's source with the autojit decorators (no ``.pyc``)."""

    def get_code(self, fullname: str) -> types.CodeType:
        path = self.get_filename(fullname)
        return compile_source(self.get_data(path), path)


class Finder:
    """A ``sys.meta_path`` finder: modules whose source is one of the user's files get
    ``_Loader``."""

    def __init__(self, is_user: Callable[[str], bool]) -> None:
        self.is_user = is_user

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        top = name.partition(".")[0]
        if top in ("npjax", "numpy", "jax", "jaxlib") or top in sys.stdlib_module_names:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if (spec is None or spec.origin is None or not spec.origin.endswith(".py")
                or type(spec.loader) is not importlib.machinery.SourceFileLoader
                or not self.is_user(spec.origin)):
            return None  # the other finders find it as they would
        spec.loader = _Loader(spec.name, spec.origin)
        return spec

    def install(self) -> None:
        sys.meta_path.insert(0, self)

    def uninstall(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)
