"""The names the design pages cite exist in the code (issue 33: docs/architecture.md draws the
call path as the code runs it, so a module, function or test it names must be there).

Each `backticked` span of ``docs/architecture.md`` and ``docs/contributing.md`` that looks
like code is checked, and so is each private name of architecture.md's drawings (code
blocks); every private module of npjax must be named on architecture.md:

- a path (``npjax/_core/_out.py``, ``tests/test_layers.py::test_x``): the file exists (under
  the repository, ``npjax/`` or a layer folder) and so does the test it names;
- ``_module`` or ``_module.name`` (a private module of npjax): the module exists and defines
  ``name`` (a function, class, method or assignment);
- ``Class.member`` or ``function`` with an underscore-led or known npjax name: defined
  somewhere in npjax.

Words that are NumPy's or Python's (``np.add``, ``__array__``, ``out=``) are not npjax's
names and are skipped. The check is lenient for a bare ``_name`` (any definition of it in
npjax will do) and strict for a module's member and a drawn module.
"""

from __future__ import annotations

import functools
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "npjax"
PAGES = ("docs/architecture.md", "docs/contributing.md")
# The page whose code blocks draw the code (layers, doors); contributing.md's blocks are
# examples of code to write.
DRAWN = ("docs/architecture.md",)
# Names a page cites as examples of what a contributor would add: not in the code.
EXAMPLES = frozenset(("_pure/_impl/special.py",))
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


@functools.cache
def modules() -> dict[str, list[pathlib.Path]]:
    """Private module name (``_ndarray``, ``_impl``, ``_hostpath``) -> its files or folders."""
    found: dict[str, list[pathlib.Path]] = {}
    for p in PACKAGE.rglob("*"):
        if "__pycache__" in p.parts or p.name.startswith("__"):
            continue
        if p.suffix in (".py", ".c") or (p.is_dir() and (p / "__init__.py").exists()):
            found.setdefault(p.stem, []).append(p)
    return found


@functools.cache
def _source(path: pathlib.Path) -> str:
    if path.is_dir():
        return "\n".join(_source(p) for p in sorted(path.glob("*.py")))
    return path.read_text()


@functools.cache
def _all_source() -> str:
    return "\n".join(_source(p) for p in sorted(PACKAGE.rglob("*.py")))


def defines(source: str, name: str) -> bool:
    """Whether ``source`` defines ``name``: def, class, an assignment, a slot or a member
    set on an object (``x.name =``), a keyword parameter or dictionary key named so."""
    n = re.escape(name)
    return bool(re.search(
        rf"^\s*(?:async\s+)?(?:def|class)\s+{n}\b|^\s*{n}\s*(?::[^=\n]*)?=|"
        rf"\.{n}\s*=[^=]|[\"']{n}[\"']|\b{n}\s*=|^\s*{n}\s*:|\bimport\b.*\b{n}\b|"
        rf"\b{n}\s*\(|\bstatic\s+\w.*\b{n}\s*\(", source, re.M))


def _file(text: str) -> pathlib.Path | None:
    for base in (ROOT, ROOT / "docs", ROOT / "tests", PACKAGE,
                 *[p for p in PACKAGE.iterdir() if p.is_dir()]):
        if (base / text).exists():
            return base / text
    hits = [p for p in PACKAGE.rglob(pathlib.Path(text).name) if str(p).endswith(text)]
    return hits[0] if hits else None


def problems_of(span: str) -> list[str]:
    """What is missing for one backticked span (empty when all is there or it is not ours)."""
    span = span.strip().rstrip("()")
    if span in EXAMPLES:
        return []
    m = re.fullmatch(r"((?:[\w./-]+/)?[\w.-]+\.(?:py|c|md|json|sh))(?:::(\w+))?", span)
    if m:
        path = _file(m.group(1))
        if path is None:
            return [f"{m.group(1)}: no such file"]
        if m.group(2) and not defines(path.read_text(), m.group(2)):
            return [f"{span}: {m.group(1)} has no {m.group(2)}"]
        return []
    m = re.fullmatch(rf"({IDENT}(?:\.{IDENT})*)(?:\(.*\))?", span)
    if not m:
        return []
    parts = m.group(1).split(".")
    if parts[0] in ("np", "numpy", "jax", "jnp", "lax", "npjax", "self", "x", "a", "b"):
        return []
    head = parts[0]
    if head in modules():
        if len(parts) == 1:
            return []
        for path in modules()[head]:
            if path.suffix == ".c" or defines(_source(path), parts[1]):
                return []
        return [f"{span}: {head} defines no {parts[1]}"]
    if not head.startswith("_") or head.startswith("__"):
        # a class or function of npjax's own, by its name: only dotted members are checked
        if len(parts) > 1 and re.search(rf"^\s*class\s+{re.escape(head)}\b", _all_source(),
                                        re.M):
            return [] if defines(_all_source(), parts[-1]) else [
                f"{span}: no member {parts[-1]} in npjax"]
        return []
    if defines(_all_source(), parts[-1]) or head in modules():
        return []
    return [f"{span}: neither a module nor a name of npjax"]


def _spans(text: str) -> list[str]:
    """Backticked spans outside code blocks."""
    return [span for k, block in enumerate(text.split("```")) if not k % 2
            for span in re.findall(r"`([^`\n]+)`", block)]


def drawn_names(text: str) -> set[str]:
    """The private names of the page's code blocks (a layer drawing names modules; a door
    drawing ``_module.name``)."""
    return {m for k, block in enumerate(text.split("```")) if k % 2
            for m in re.findall(r"(?<![\w./])(_[a-z]\w*(?:\.\w+)?)", block)}


@pytest.mark.parametrize("page", PAGES)
def test_every_name_the_page_cites_exists(page):
    text = (ROOT / page).read_text()
    missing = sorted({p for span in _spans(text) for p in problems_of(span)})
    assert not missing, "\n".join(missing)


def test_the_drawings_name_modules_that_exist():
    """The layer and door drawings of architecture.md name modules (``_module`` or
    ``_module.name``; an array method such as ``_rebind`` in a module's note): each module
    exists, and so does each name in it."""
    text = (ROOT / DRAWN[0]).read_text()
    missing = sorted(name for name in drawn_names(text) if problems_of(name) or (
        name.split(".")[0] not in modules() and not re.search(
            rf"^\s*def {re.escape(name)}\b|[\"']{re.escape(name)}[\"']\s*:", _all_source(),
            re.M)))
    assert not missing, missing


def test_every_module_is_drawn():
    """Each private module of npjax is named on architecture.md (a module no page names is
    code a reader cannot find)."""
    text = (ROOT / DRAWN[0]).read_text()
    unnamed = sorted(str(p.relative_to(PACKAGE)) for name, paths in modules().items()
                     for p in paths if name.startswith("_") and not re.search(
                         rf"(?<![\w]){re.escape(name)}\b", text))
    assert not unnamed, unnamed


@pytest.mark.parametrize("span, missing", [
    ("_ndarray", False), ("_ndarray.host_owner", False), ("_ndarray.no_such_thing", True),
    ("_no_such_module", True), ("npjax/_core/_out.py", False), ("npjax/_core/_gone.py", True),
    ("tests/test_layers.py::test_no_import_circle_at_module_level", False),
    ("tests/test_layers.py::test_gone", True), ("np.add", False), ("FiniteWatch.poison", False),
    ("FiniteWatch.gone_member", True), ("_route.host_first", False),
])
def test_the_check_sees_a_missing_name(span, missing):
    assert bool(problems_of(span)) is missing
