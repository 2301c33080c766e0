"""Structural checks of issue 33's one door, read from the source (beside test_layers.py):
the question "is this array's storage on the host?" has one spelling, ``HOST_STORAGE``
(``_core/_ndarray.py``), and the host route's hot paths are made by one factory
(``_core/_host_paths.host_path``), not copied by hand."""

from __future__ import annotations

import ast
import pathlib
import re

import numpy as np

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "npjax"
SOURCES = sorted(PACKAGE.rglob("*.py"))
HOME = "_core/_ndarray.py"  # where ``HOST_STORAGE`` is defined


def _rel(path: pathlib.Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def _is_numpy_array_type(node: ast.AST, aliases: frozenset = frozenset()) -> bool:
    """``np.ndarray``, ``numpy.ndarray`` or a name the module gave it (``aliases``)."""
    if isinstance(node, ast.Name):
        return node.id in aliases
    return (isinstance(node, ast.Attribute) and node.attr == "ndarray"
            and isinstance(node.value, ast.Name) and node.value.id in ("np", "numpy"))


def _reads_storage(node: ast.AST) -> bool:
    """``<x>._value``: an array's storage."""
    return isinstance(node, ast.Attribute) and node.attr == "_value"


def _is_type_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "type" and len(node.args) == 1)


def _scopes(tree: ast.Module) -> list[ast.AST]:
    return [tree, *(n for n in ast.walk(tree)
                    if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))]


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of ``scope`` outside the functions it defines."""
    found, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))
    return found


def storage_questions(source: str) -> list[tuple[int, str]]:
    """Where ``source`` asks whether an array's storage is a NumPy array other than by
    ``HOST_STORAGE``: ``type(x._value) is np.ndarray``, ``isinstance(x._value, np.ndarray)``,
    the same through a local bound to ``x._value`` (``data = self._value``, ``x := a._value``)
    or to ``type(x._value)``, and through any other name given to ``np.ndarray`` (such a
    name may ask about NumPy's results, never about a storage)."""
    tree = ast.parse(source)
    found = []
    aliases = frozenset(  # other names for NumPy's array type
        t.id for node in ast.walk(tree) if isinstance(node, ast.Assign | ast.AnnAssign)
        and node.value is not None and _is_numpy_array_type(node.value)
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(t, ast.Name) and t.id != "HOST_STORAGE")
    for scope in _scopes(tree):
        nodes = _own_nodes(scope)
        values, kinds = set(), set()  # locals bound to a storage, to a storage's type
        for node in nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.NamedExpr | ast.AnnAssign) and node.value is not None:
                target, value = node.target, node.value
            else:
                continue
            if isinstance(target, ast.Name):
                if _reads_storage(value):
                    values.add(target.id)
                elif _is_type_call(value) and _storage(value.args[0], values):
                    kinds.add(target.id)
        for node in nodes:
            if isinstance(node, ast.Compare) and all(
                    isinstance(op, ast.Is | ast.IsNot) for op in node.ops):
                left = node.left
                asks = (_is_type_call(left) and _storage(left.args[0], values)) or (
                    isinstance(left, ast.Name) and left.id in kinds)
                if asks and any(_is_numpy_array_type(c, aliases) for c in node.comparators):
                    found.append((node.lineno, ast.unparse(node)))
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id == "isinstance" and len(node.args) == 2
                  and _storage(node.args[0], values)
                  and any(_is_numpy_array_type(n, aliases) for n in ast.walk(node.args[1]))):
                found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def _storage(node: ast.AST, values: set) -> bool:
    if isinstance(node, ast.NamedExpr):
        node = node.value
    return _reads_storage(node) or (isinstance(node, ast.Name) and node.id in values)


def test_the_storage_question_has_one_spelling():
    """Whether an array's storage is on the host is asked as ``type(v) is HOST_STORAGE``
    (``ndarray._host()`` answers it for a whole array): no module writes the question with
    ``np.ndarray`` or a name of its own for it."""
    found = {_rel(p): q for p in SOURCES if (q := storage_questions(p.read_text()))}
    assert not found, found


def test_host_storage_is_defined_once():
    from npjax._core import _ndarray

    assert _ndarray.HOST_STORAGE is np.ndarray
    homes = [_rel(p) for p in SOURCES if re.search(r"^HOST_STORAGE\b.*=", p.read_text(), re.M)]
    assert homes == [HOME]


def test_the_check_sees_each_spelling():
    """The check above finds the spellings the code used before (issue 33)."""
    caught = [
        "def f(a):\n    return type(a._value) is np.ndarray\n",
        "def f(a):\n    return type(a._value) is not numpy.ndarray\n",
        "def f(a):\n    data = a._value\n    return type(data) is np.ndarray\n",
        "def f(a):\n    if type(x := a._value) is np.ndarray:\n        return x\n",
        "def f(a):\n    kind = type(a._value)\n    return kind is np.ndarray\n",
        "def f(a):\n    return isinstance(a._value, np.ndarray)\n",
        "_HOST_TYPE = np.ndarray\ndef f(a):\n    return type(a._value) is _HOST_TYPE\n",
        "def f(a):\n    host_type = np.ndarray\n    return type(a._value) is not host_type\n",
    ]
    assert [bool(storage_questions(s)) for s in caught] == [True] * len(caught)
    passed = [
        "def f(a):\n    return type(a._value) is HOST_STORAGE\n",
        "def f(a):\n    data = a._value\n    return type(data) is not HOST_STORAGE\n",
        "def f(r):\n    return type(r) is np.ndarray\n",  # NumPy's result, not a storage
        "HOST_STORAGE = np.ndarray\n",
        "_ARRAY = np.ndarray\ndef f(r):\n    return type(r) is _ARRAY\n",  # a result
    ]
    assert [bool(storage_questions(s)) for s in passed] == [False] * len(passed)



def test_no_hand_copies_of_the_host_route():
    """No comment in npjax says a helper is "written out" (copied by hand into a hot path):
    the hot paths are made by ``host_path`` from one text."""
    copies = [f"{_rel(p)}:{n}" for p in SOURCES
              for n, line in enumerate(p.read_text().splitlines(), 1) if "written out" in line]
    assert not copies, copies


def test_the_hot_paths_are_made_by_one_factory():
    """Operator members, ufunc calls (``ufunc.__call__``'s host path and each ufunc's
    ``host_path``) and ``host_data`` are compiled from ``_host_paths``' texts: their code
    names that factory, and NumPy's loop under the error state is spelled only there and in
    ``run_loops`` itself."""
    from npjax._calls._ufuncs import UFUNCS
    from npjax._core import _host_paths

    made = _host_paths.__file__ + " ("
    members = [_host_paths.host_operator(name, lambda *a: None) for name in (
        "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__mul__", "__truediv__",
        "__matmul__", "__lt__", "__eq__", "__neg__", "__pos__", "__abs__", "__invert__")]
    paths = [u._host_path for u in UFUNCS.values() if u.nin <= 2]
    assert len(paths) > 80
    call = _host_paths.ufunc_call(lambda *a, **k: None, lambda *a: None)
    for fn in (*members, *paths, call, _host_paths.host_data):
        assert fn.__code__.co_filename.startswith(made), fn
    spelled = sorted(_rel(p) for p in SOURCES if "loops_context_for(extobj)" in p.read_text())
    assert spelled == ["_core/_host_paths.py", "_runtime/_numpy_calls.py"]


def test_made_code_shows_in_tracebacks():
    """The texts are registered with ``linecache``: a traceback through a made path shows its
    line (and names npjax's package, so NumPy's warnings name the user's line)."""
    import linecache

    from npjax._calls._ufuncs import UFUNCS

    code = UFUNCS["add"]._host_path.__code__
    assert "def path2(a, b, limit):" in linecache.getline(code.co_filename,
                                                         code.co_firstlineno)
