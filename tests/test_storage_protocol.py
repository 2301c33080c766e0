"""The array's storage protocol (DESIGN.md section 2, issue 33), read from the source with
``ast`` (comments and strings do not count): outside the array module
(``npjax/_core/_ndarray.py``) no code builds an array object field by field or changes an
array's storage by assignment. The array module's constructors (``ndarray._owner``,
``host_owner``, ``host_view``, ``lens_view``, ``as_class``) build every array, and
``ndarray._rebind`` is the one way to change an owner's storage (it moves the version on and
clears caches as asked).

The one exception: the C module ``npjax/_core/_hostpath.c`` (not Python, so not read here)
builds owners and views itself (``new_owner``/``new_view``), setting the same slots as
``host_owner``/``host_view``; ``test_the_c_module_builds_as_the_constructors_do`` checks that
they agree."""

from __future__ import annotations

import ast
import pathlib

import numpy
import pytest

import npjax
from npjax._core._array_base import HOSTPATH
from npjax._core._ndarray import _STATE, host_owner, host_view

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "npjax"
ARRAY_MODULE = pathlib.Path("_core") / "_ndarray.py"
# Fields only the array module sets: the storage (``_value``, and ``_version``, which moves
# with it), a view's structure (``_base``, ``_lens``, ``_root_shape``), what the array is
# (``_scalar``) and whether its buffer is its own (``_mine``). (``_layout``, ``_readonly`` and
# the caches are set elsewhere: layout, flags and memo, not storage.) No other npjax class
# has attributes of these names.
STORAGE_FIELDS = frozenset(("_value", "_version", "_base", "_lens", "_root_shape", "_scalar",
                            "_mine"))


def _targets(node: ast.AST):
    if isinstance(node, ast.Tuple | ast.List):
        for e in node.elts:
            yield from _targets(e)
    elif isinstance(node, ast.Starred):
        yield from _targets(node.value)
    elif isinstance(node, ast.Attribute):
        yield node


def offences(source: str) -> list[str]:
    """What in ``source`` breaks the protocol: ``line: what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = [node.target] if not isinstance(node, ast.Delete) else node.targets
        else:
            targets = []
        found.extend(f"{node.lineno}: sets {ast.unparse(attr)}" for target in targets
                     for attr in _targets(target) if attr.attr in STORAGE_FIELDS)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("setattr", "delattr") and len(node.args) > 1 and \
                isinstance(node.args[1], ast.Constant) and node.args[1].value in STORAGE_FIELDS:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        # object.__new__ (called or kept under another name) and ndarray.__new__: an array
        # object made outside the constructors
        if isinstance(node, ast.Attribute) and node.attr == "__new__" and \
                isinstance(node.value, ast.Name) and node.value.id in ("object", "ndarray"):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "__new__" and node.args and \
                isinstance(node.args[0], ast.Name) and node.args[0].id == "ndarray":
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def package_offences(package: pathlib.Path) -> list[str]:
    return [f"{p.relative_to(package)}:{o}" for p in sorted(package.rglob("*.py"))
            if p.relative_to(package) != ARRAY_MODULE for o in offences(p.read_text())]


def test_no_storage_change_or_array_building_outside_the_array_module():
    found = package_offences(PACKAGE)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("source", [
    "def f(a, v):\n    a._value = v\n",
    "def f(a, v):\n    a._value, a._mine = v, True\n",
    "def f(a):\n    a._version += 1\n",
    "def f(a, v):\n    setattr(a, '_value', v)\n",
    "def f(r):\n    v = object.__new__(ndarray)\n    v._base = r\n",
    "new = object.__new__\n",
    "def f():\n    return ndarray.__new__(ndarray, 3)\n",
    "def f(cls):\n    return super(cls).__new__(ndarray)\n",
])
def test_the_check_finds_each_way(source):
    assert offences(source)


@pytest.mark.parametrize("source", [
    "# a._value = v\n",
    "def f(a, v):\n    a._rebind(v, True)\n    return a._value\n",
    "def f(a):\n    a._readonly = True\n    a._layout = None\n",
    "class It:\n    def __new__(cls):\n        return super().__new__(cls)\n",
])
def test_the_check_allows_the_protocol(source):
    assert not offences(source)


@pytest.mark.skipif(HOSTPATH is None, reason="the C module is not built or is turned off")
def test_the_c_module_builds_as_the_constructors_do():
    """``a + b`` of host arrays and ``a[1:]`` run in C: their slots are those
    ``host_owner``/``host_view`` give."""
    a = npjax.asarray(numpy.arange(4.0))
    made = {"owner": (a + a, host_owner), "view": (a[1:], lambda d: host_view(a, d))}
    for kind, (got, constructor) in made.items():
        data = got._value if kind == "owner" else got._layout
        want = constructor(data)
        assert type(got) is type(want), kind
        for name in _STATE:
            g, w = getattr(got, name), getattr(want, name)
            assert g is w or (type(g) is type(w) and g == w), (kind, name, g, w)
