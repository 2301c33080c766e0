"""The layer order of docs/architecture.md, read from the source: no import circle at module
level anywhere, and the bottom layers (pure, runtime, core) never import from above, not even
inside a function."""

from __future__ import annotations

import ast
import pathlib
from typing import Any

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "npjax"

# Bottom to top; a module may import only from its own layer and the layers below.
LAYERS = {
    "pure": {"_errors", "_dtypes", "_axes", "_impl"},
    "runtime": {"_policy", "_context", "_errstate", "_numpy_calls", "_host_reads", "_fp_flags",
                "_fp_screen", "_deferred_checks", "_finite_watch", "_ufunc_checks", "_stats",
                "_compile_cache", "_disk_cache", "_bounds"},
    "core": {"_views", "_lazy", "_casts", "_ndarray", "_array_conversions", "_subclasses",
             "_sharding", "_normalize", "_placement", "_buckets", "_index_plan", "_index_kernels",
             "_index_values", "_index_read", "_index_write", "_element_access",
             "_window_reads"},
}
TOOLS = {"__main__", "_runner", "_report", "_coverage"}
# Modules that may import the public namespace ``npjax`` (the package itself and the public
# subpackages built from it); every other module imports the modules it needs.
PUBLIC = {"npjax", "npjax.lib"}


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
    short = module.split(".")[1] if "." in module else module
    for rank, members in enumerate(LAYERS.values()):
        if short in members:
            return rank
    return None


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
def test_bottom_layers_import_only_downwards(module):
    rank = _layer(module)
    upward = [t for t in GRAPH[module] if _layer(t) is None or _layer(t) > rank]
    assert not upward, f"{module} (layer {list(LAYERS)[rank]}) imports from above: {upward}"


def test_nothing_imports_the_tools():
    for module, edges in GRAPH.items():
        if module.split(".")[-1] in TOOLS or module == "npjax":
            continue
        assert not [t for t in edges if t.split(".")[-1] in TOOLS and t != "npjax"], module


def test_the_layer_table_names_real_modules():
    shorts = {m.split(".")[1] for m in GRAPH if "." in m}
    for members in LAYERS.values():
        assert members <= shorts, members - shorts


def test_no_library_module_imports_the_public_namespace():
    """Not at module level, not inside a function (``import npjax``, ``from npjax import
    roll``, ``importlib.import_module("npjax")``): a module imports the module that defines
    what it needs (``_placement.public`` gives a function as ``npjax`` holds it, with the host
    route; ``_registry.public_namespace`` finds public functions by name)."""
    offenders = sorted(m for m, edges in GRAPH.items()
                       if "npjax" in edges and m not in PUBLIC
                       and m.split(".")[-1] not in TOOLS)
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
