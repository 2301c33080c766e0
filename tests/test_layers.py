"""The layers of docs/architecture.md, read from the source: each layer is a folder of
``npjax/``, a module imports (even inside a function) only from its own layer and the ones
below, there is no import circle at module level anywhere, and no module is over 800 lines."""

from __future__ import annotations

import ast
import pathlib
from typing import Any

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "npjax"

# The layer folders, bottom to top.
LAYERS = ("_pure", "_runtime", "_execution", "_core", "_placement", "_calls", "_library",
          "_compile", "_tools")
# Modules that may import the public namespace ``npjax`` (the package itself and the public
# subpackages built from it, and the tools); every other module imports the modules it needs.
PUBLIC = {"npjax", "npjax.lib", "npjax.__main__"}
MAX_LINES = 800


def _name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _edges(tree: ast.Module, name: str, package: str, modules: Any) -> dict[str, bool]:
    """{imported npjax module: True when imported at module level} for one module's source."""
    top = set(map(id, tree.body))
    for node in tree.body:
        if isinstance(node, ast.If | ast.Try):
            top.update(map(id, node.body))
    edges: dict[str, bool] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                       for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", None))
              in ("import_module", "__import__")):
            targets = [node.args[0].value]  # importlib.import_module("npjax...")
        else:
            continue
        for target in targets:
            if target in modules and target != name:
                edges[target] = edges.get(target, False) or id(node) in top
    return edges


def _imports() -> dict[str, dict[str, bool]]:
    """module -> {imported npjax module: True when imported at module level}."""
    modules = {_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, dict[str, bool]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        graph[name] = _edges(ast.parse(path.read_text()), name, package, modules)
    return graph


GRAPH = _imports()


def _layer(module: str) -> int | None:
    """The rank of a module's layer folder (None for the public modules above them)."""
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def test_no_import_circle_at_module_level():
    seen: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        seen[module] = 1
        for target, at_top in GRAPH[module].items():
            if not at_top:
                continue
            if seen.get(target) == 1:
                cycle = path[path.index(target):] + [target]
                pytest.fail("import circle: " + " -> ".join(cycle))
            if target not in seen:
                visit(target, path + [target])
        seen[module] = 2

    for module in sorted(GRAPH):
        if module not in seen:
            visit(module, [module])


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if _layer(m) is not None))
def test_layers_import_only_downwards(module):
    rank = _layer(module)
    upward = [t for t in GRAPH[module] if (_layer(t) is None or _layer(t) > rank)
              and not (t == "npjax" and LAYERS[rank] == "_tools")]
    assert not upward, f"{module} (layer {LAYERS[rank]}) imports from above: {upward}"


def test_every_private_module_is_in_a_layer_folder():
    flat = sorted(p.name for p in PACKAGE.glob("_*.py") if p.name not in ("__init__.py",
                                                                           "__main__.py"))
    folders = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name.startswith("_")
                     and p.name != "__pycache__")
    assert not flat, f"private modules outside the layer folders: {flat}"
    assert folders == sorted(LAYERS), folders


def test_nothing_imports_the_tools():
    for module, edges in GRAPH.items():
        if _layer(module) == LAYERS.index("_tools") or module in ("npjax", "npjax.__main__"):
            continue
        assert not [t for t in edges if _layer(t) == LAYERS.index("_tools")], module


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.name)
def test_no_module_is_over_the_line_limit(path):
    assert len(path.read_text().splitlines()) <= MAX_LINES, path


def _reachable(module: str) -> set[str]:
    """Every npjax module ``module`` imports, directly or not, at module level or inside a
    function."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        for target in GRAPH[todo.pop()]:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_the_index_plan_never_imports_the_array():
    """An index is planned (parsed, checked, turned into lens steps) without the array: the
    plan and what it imports know an npjax array only by its base class (``ArrayBase``)."""
    reached = _reachable("npjax._core._index_plan")
    assert "npjax._core._ndarray" not in reached, sorted(reached)


def test_no_library_module_imports_the_public_namespace():
    """Not at module level, not inside a function (``import npjax``, ``from npjax import
    roll``, ``importlib.import_module("npjax")``): a module imports the module that defines
    what it needs (``_route.public`` gives a function as ``npjax`` holds it, with the host
    route; ``_registry.public_namespace`` finds public functions by name)."""
    offenders = sorted(m for m, edges in GRAPH.items()
                       if "npjax" in edges and m not in PUBLIC
                       and _layer(m) != LAYERS.index("_tools"))
    assert not offenders, f"modules importing the public namespace npjax: {offenders}"


@pytest.mark.parametrize("source", [
    "def f():\n    import npjax\n    return npjax.roll\n",
    "def f():\n    from npjax import roll\n",
    "def f():\n    import importlib\n    return importlib.import_module('npjax')\n",
    "def f():\n    return __import__('npjax')\n",
])
def test_the_public_namespace_check_sees_imports_inside_functions(source):
    edges = _edges(ast.parse(source), "npjax._x", "npjax", set(GRAPH))
    assert edges == {"npjax": False}


# Core indexing (its count buckets, and the array's reads of its storage) reads and writes
# values without asking which mode it is in (eager, lazy, ``npjax.jit``'s trace): each mode's
# behaviour is behind the executor and its hooks (``_core/_executor.py``). No reasoned
# exception is needed today: {module: why} if one is.
INDEXING = ("_core/_index_read", "_core/_index_write", "_core/_index_values",
            "_core/_window_reads", "_core/_index_plan", "_core/_index_kernels",
            "_placement/_element_access", "_core/_ndarray", "_core/_buckets")
MODE_QUESTION_EXCEPTIONS: dict[str, str] = {}
_LAZY_MODULES = ("_lazy", "_lazy_checks", "_lazy_cold")


def _mode_questions(source: str) -> list[str]:
    """What a module's source does that asks the mode: calls ``trace()``, reads an
    attribute ``.lazy`` or ``.trace`` (the policy's or the context's), or imports lazy
    mode's modules (or names from them) or ``trace``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "trace":
            found.append(f"line {node.lineno}: trace()")
        elif isinstance(node, ast.Attribute) and node.attr in ("lazy", "trace"):
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.ImportFrom):
            module = (node.module or "").rsplit(".", 1)[-1]
            names = {a.name for a in node.names}
            if module in _LAZY_MODULES or names & {*_LAZY_MODULES, "trace"}:
                found.append(f"line {node.lineno}: from {node.module} import {sorted(names)}")
        elif isinstance(node, ast.Import) and any(
                a.name.rsplit(".", 1)[-1] in _LAZY_MODULES for a in node.names):
            found.append(f"line {node.lineno}: import of lazy mode")
    return found


@pytest.mark.parametrize("module", INDEXING)
def test_core_indexing_does_not_ask_the_mode(module):
    path = PACKAGE / f"{module}.py"
    found = _mode_questions(path.read_text())
    if module in MODE_QUESTION_EXCEPTIONS:
        assert found, f"{module}: the exception is no longer needed"
        return
    assert not found, f"{module} asks which mode it is in: {found}"


@pytest.mark.parametrize("source", [
    "from npjax._runtime._context import trace\n",
    "def f():\n    return trace() is None\n",
    "def f(ctx):\n    return ctx.trace\n",
    "def f():\n    return current().lazy\n",
    "from npjax._execution._lazy import Kernel\n",
    "from npjax._execution import _lazy\n",
    "from npjax._core._lazy import Kernel\n",
    "import npjax._execution._lazy_checks\n",
])
def test_the_mode_question_check_sees_each_kind(source):
    assert _mode_questions(source)
