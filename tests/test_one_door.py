"""Structural checks of issue 33's one door, read from the source (beside test_layers.py):
the question "is this array's storage on the host?" has one spelling, ``HOST_STORAGE``
(``_core/_ndarray.py``), and the host route's hot paths are made by one factory
(``_placement/_host_paths.host_path``), not copied by hand."""

from __future__ import annotations

import ast
import inspect
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
    from npjax._placement import _host_paths

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
    assert spelled == ["_placement/_host_paths.py", "_runtime/_numpy_calls.py"]


def test_made_code_shows_in_tracebacks():
    """The texts are registered with ``linecache``: a traceback through a made path shows its
    line (and names npjax's package, so NumPy's warnings name the user's line)."""
    import linecache

    from npjax._calls._ufuncs import UFUNCS

    code = UFUNCS["add"]._host_path.__code__
    assert "def path2(a, b, limit):" in linecache.getline(code.co_filename,
                                                         code.co_firstlineno)


# --- one ``out=`` writer ------------------------------------------------------------------
# ``_core/_out.py`` writes every ``out=``: ``write_out`` a computed value, ``out_buffer`` the
# host storage NumPy writes on the host route (``_hostpath_ufuncs.c``'s ``ufunc_fast_out`` is
# that branch in C for ``ufunc(a, b, out=c)`` and ``ufunc(a, out=c)``), ``write_numpy_out`` a
# NumPy array as ``out``.
WRITER = "_core/_out.py"
# {module: why it writes into an ``out`` itself}; each must still do so.
OUT_WRITE_EXCEPTIONS = {
    "_core/_window_reads.py": "a window (a view read at a bucketed length) as out: the writer "
                              "fills the padded window, and the window's store puts it into "
                              "the out's root (the bucket's one program)",
}
_OUT_NAME = re.compile(r"^outs?$")
_WRITE_METHODS = {"_write", "_rebind", "fill", "__setitem__", "itemset", "put", "resize"}
_MEMORY = {"_host", "_layout"}  # an out's memory, as NumPy would write it
_WRITE_CALLS = {"copyto", "store", "write_through", "host_data", "operand"}


def _names(node: ast.AST) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _pairs(target: ast.AST, value: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """(name, value) pairs: ``a, b = x, y`` and ``for a, b in zip(x, y)`` item by item."""
    if isinstance(target, ast.Tuple | ast.List):
        items = value.elts if isinstance(value, ast.Tuple | ast.List) else (
            value.args if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "zip"
            else None)
        if items is not None and len(items) == len(target.elts):
            return [p for t, v in zip(target.elts, items) for p in _pairs(t, v)]
        return [p for t in target.elts for p in _pairs(t, value)]
    if isinstance(target, ast.Starred):
        return _pairs(target.value, value)
    return [(target, value)] if isinstance(target, ast.Name) else []


def _bound(node: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """(name, value) pairs a node binds: assignments, walrus, ``for`` and comprehensions."""
    if isinstance(node, ast.Assign):
        return [p for t in node.targets for p in _pairs(t, node.value)]
    if isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
        return _pairs(node.target, node.value)
    if isinstance(node, ast.For | ast.comprehension):
        return _pairs(node.target, node.iter)
    return []


def out_writes(source: str) -> list[tuple[int, str]]:
    """Where ``source`` writes into an ``out`` argument (a parameter named ``out`` or
    ``outs``, such a local taken from the keywords, a name bound from one: ``o = out[0]``,
    ``for o in outs``; or an item of one): the storage methods (``_write``, ``_rebind``),
    ``fill`` and the like, item or storage assignment, ``copyto``/``store``/``write_through``
    into it, or its memory read for NumPy to write."""
    found: list[tuple[int, str]] = []

    def visit(scope: ast.AST, inherited: frozenset) -> None:
        params = set()
        if not isinstance(scope, ast.Module):
            a = scope.args
            params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
        nodes = _own_nodes(scope)
        aliases = set(inherited) | {p for p in params if _OUT_NAME.match(p)} | {
            target.id for node in nodes for target, value in _bound(node)
            if _OUT_NAME.match(target.id) and any(  # ``out = kwargs["out"]``, ...
                isinstance(c, ast.Constant) and c.value == "out" for c in ast.walk(value))}
        while True:  # names bound from an out, to a fixed point
            grown = {target.id for node in nodes for target, value in _bound(node)
                     if _names(value) & aliases} - aliases
            if not grown:
                break
            aliases |= grown

        def is_out(node: ast.AST) -> bool:
            while isinstance(node, ast.Subscript):
                node = node.value
            return isinstance(node, ast.Name) and node.id in aliases

        for node in nodes:
            hit = False
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and is_out(func.value):
                    hit = func.attr in _WRITE_METHODS or func.attr in _MEMORY
                name = getattr(func, "attr", getattr(func, "id", None))
                if name in _WRITE_CALLS and any(is_out(x) for x in node.args):
                    hit = True
            elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    if isinstance(t, ast.Subscript | ast.Attribute) and is_out(t.value):
                        hit = True
            elif isinstance(node, ast.Attribute) and node.attr in _MEMORY and is_out(
                    node.value) and isinstance(node.ctx, ast.Load):
                hit = True
            if hit:
                found.append((node.lineno, ast.unparse(node)))
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(node, frozenset(aliases))

    tree = ast.parse(source)
    visit(tree, frozenset())
    return sorted(set(found))


def test_one_writer_of_out():
    """No module but ``_core/_out.py`` writes into an ``out`` argument (the reasoned
    exceptions above apart): every public callable's ``out=`` goes through the writer."""
    found = {_rel(p): w for p in SOURCES if _rel(p) != WRITER and (w := out_writes(
        p.read_text()))}
    unexplained = {m: w for m, w in found.items() if m not in OUT_WRITE_EXCEPTIONS}
    assert not unexplained, unexplained
    stale = sorted(set(OUT_WRITE_EXCEPTIONS) - set(found))
    assert not stale, f"exceptions no longer needed: {stale}"


def test_the_writer_is_defined_once():
    """``write_out`` and ``out_buffer`` are defined in the writer alone; the host route's
    ``host_operands`` asks ``out_buffer`` for an ``out``, and the C module handles an ``out``
    in ``ufunc_fast_out`` alone (the writer's host branch for ``ufunc(a, b, out=c)`` and
    ``ufunc(a, out=c)``)."""
    from npjax._core import _out
    from npjax._placement import _route

    homes = sorted(_rel(p) for p in SOURCES if re.search(
        r"^def (write_out|out_buffer|check_cast)\b", p.read_text(), re.M))
    assert homes == [WRITER]
    assert "out_buffer(" in inspect.getsource(_route.host_operands)
    assert _out.write_out.__module__ == "npjax._core._out"
    c_source = "\n".join(p.read_text() for p in sorted((PACKAGE / "_core").glob("_hostpath*.c")))
    takes_out = re.findall(r"^(?:static )?PyObject \*(\w+)\([^)]*\bout\b", c_source, re.M)
    assert takes_out == ["ufunc_fast_out"]


def test_the_out_check_sees_each_write():
    """The check above finds the ways code wrote into an ``out`` before the writer."""
    caught = [
        "def f(x, out=None):\n    out._write(x)\n",
        "def f(x, out=None):\n    o = out[0]\n    o._write(x)\n",
        "def f(x, out=None):\n    for o in out:\n        o[...] = x\n",
        "def f(x, out=None):\n    copyto(out, x)\n",
        "def f(x, out=None):\n    np.copyto(out[0], x)\n",
        "def f(x, out=None):\n    data = out._host()\n    data[...] = x\n",
        "def f(x, out=None):\n    out._rebind(x)\n",
        "def f(x, out=None):\n    out += x\n    out.fill(0)\n",
        "def f(x, out=None):\n    def g():\n        out._value = x\n    g()\n",
        "def f(x, outs=None):\n    store(w, outs, x)\n",
        "def f(x, **kwargs):\n    out = kwargs.get('out')\n    out._write(x)\n",
    ]
    assert [bool(out_writes(s)) for s in caught] == [True] * len(caught)
    passed = [
        "def f(x, out=None):\n    return write_out(out, x, 'unsafe', 'f')\n",
        "def f(x, out=None):\n    return g(x, out=out)\n",
        "def f(x, out=None):\n    if out is not None and out.shape != x.shape:\n"
        "        raise ValueError\n",
        "def f(a, x):\n    a._write(x)\n",  # an operand written in place, not an out
        "def f(a):\n    out = np.empty(3)\n    out[0] = a\n",  # its own array
    ]
    assert [bool(out_writes(s)) for s in passed] == [False] * len(passed)
