"""The registry: every public NumPy name resolves in npjax and has exactly one honest status.

NumPy's namespace is read here, at test time, so a name added by a newer NumPy fails a test
until the registry classifies it.
"""

from __future__ import annotations

import importlib
import inspect
import os
import types
import warnings

import numpy as np
import pytest

import npjax
from npjax._tools import _coverage
from npjax._calls import _registry, _registry_methods, _registry_scalars

RECORDS = _registry.records()
NATIVE = [r for r in RECORDS if r.status == "native"]


def _ours(record):
    return getattr(importlib.import_module("npjax" + record.module[5:]), record.name)


def _theirs(record):
    return getattr(importlib.import_module(record.module), record.name)


@pytest.mark.parametrize("module", _registry.MODULES)
def test_every_public_numpy_name_resolves(module):
    ours = importlib.import_module("npjax" + module[5:])
    names = [n for n in dir(importlib.import_module(module)) if not n.startswith("_")]
    unresolved = [n for n in names if not hasattr(ours, n)]
    assert unresolved == []


def test_no_name_is_missing_or_unclassified():
    missing = [f"{r.module}.{r.name}: {r.reason}" for r in RECORDS if r.status == "missing"]
    assert missing == []


def test_registry_lists_numpy_namespace_exactly():
    listed = {(r.module, r.name) for r in RECORDS}
    for module in _registry.MODULES:
        for name in _registry.public_names(module):
            assert (module, name) in listed


def test_native_records_are_npjax_objects():
    for r in NATIVE:
        ours, theirs = _ours(r), _theirs(r)
        assert ours is not theirs, r
        assert not getattr(ours, "_npjax_fallback", False), r
        module = (ours.__name__ if isinstance(ours, types.ModuleType)
                  else getattr(ours, "__module__", None) or type(ours).__module__)
        assert module is None or module.startswith("npjax") or isinstance(
            ours, npjax.ufunc), (r, module)


def test_tables_name_real_numpy_names_and_are_not_stale():
    for table in (_registry.HOST, _registry.FALLBACK, _registry.EXCLUDED,
                  _registry.FALLBACK_MODULES, _registry.NUMPY_OBJECTS):
        for key in table:
            sub, _, name = key.rpartition(".")
            module = "numpy." + sub if sub else "numpy"
            assert hasattr(importlib.import_module(module), name), key
            record = next(r for r in RECORDS if r.module == module and r.name == name)
            assert record.status != "native", f"{key} is native now: drop its table entry"


def test_native_calls_never_reach_numpy():
    """Probe every native function with small float arrays under fallback='raise': whatever
    the call does (result or a NumPy-like error), it must not be a host NumPy run."""
    x = npjax.asarray([[1.0, 2.0], [3.0, 4.0]])
    npjax.reset_stats()
    probed = 0
    for r in NATIVE:
        fn = _ours(r)
        if not callable(fn) or isinstance(fn, type) or not inspect.isroutine(fn) and not \
                isinstance(fn, npjax.ufunc):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fn(x)
            except NotImplementedError as exc:
                assert "would run on host NumPy" not in str(exc), (r, exc)
            except Exception:  # a NumPy-style error for a nonsense call is fine here
                pass
        probed += 1
    assert probed > 200
    assert npjax.stats()["fallbacks"] == {}


def test_dunder_all_and_dir():
    assert set(npjax.__all__) >= {r.name for r in RECORDS if r.module == "numpy"}
    assert {"policy", "stats", "FallbackWarning"} <= set(npjax.__all__)
    assert dir(npjax) == npjax.__all__


def _public_attributes(module: types.ModuleType) -> set[str]:
    """The module's public attributes, less npjax submodules that are no declared name (an
    import of ``npjax.<name>`` binds it on the package)."""
    declared = set(_registry.public_names("numpy")) | set(_registry.OWN)
    return {n for n, v in vars(module).items() if not n.startswith("_") and not (
        isinstance(v, types.ModuleType) and v.__name__.startswith("npjax.")
        and n not in declared)}


def test_every_public_attribute_is_in_all_and_in_the_registry():
    """npjax's public names are generated from the registry: NumPy's public names and
    ``_registry.OWN``. An attribute no table declares, or a declared name the module lacks,
    fails here."""
    public = _public_attributes(npjax)
    registry = {r.name for r in RECORDS if r.module == "numpy"} | {
        r.name for r in _registry.own_records()}
    assert public == set(npjax.__all__)
    assert public == registry
    assert sorted(public) == npjax.__all__ == dir(npjax)


def test_own_names_are_not_numpy_names():
    assert not set(_registry.OWN) & set(_registry.public_names("numpy"))
    for r in _registry.own_records():
        assert r.status == "npjax" and r.reason.split(": ")[0] in (
            "function", "class", "exception", "warning", "module"), r
        obj = getattr(npjax, r.name)
        kind = r.reason.split(": ")[0]
        if kind == "module":
            assert isinstance(obj, types.ModuleType), r
        elif kind == "function":
            assert callable(obj) and not isinstance(obj, type), r
        else:
            assert isinstance(obj, type), r


def test_unlisted_numpy_name_would_resolve_as_fallback():
    fn = _registry.lazy_fallback("numpy", "sum")
    assert getattr(fn, "_npjax_fallback", False)
    with pytest.raises(AttributeError):
        _registry.lazy_fallback("numpy", "no_such_name")
    with pytest.raises(AttributeError):
        npjax.no_such_name  # noqa: B018


def test_coverage_docs_are_current():
    path = os.path.join(os.path.dirname(__file__), os.pardir, "docs", "coverage.md")
    with open(path, encoding="utf-8") as f:
        committed = f.read()
    assert committed == _coverage.render(markdown=True), (
        "docs/coverage.md is stale: run python -m npjax coverage --write docs/coverage.md")


def test_coverage_targets():
    summary = _coverage.summary()
    assert summary["resolved"] == summary["total"]


def test_every_ndarray_attribute_is_provided_or_excluded_with_a_reason():
    """NumPy's ndarray attributes, read now: a new one fails until npjax has or excludes it."""
    records = _registry_methods.records()
    assert {r.name for r in records} == set(_registry_methods.public_attributes())
    assert [r.name for r in records if r.status == "missing"] == []
    for r in records:
        if r.status == "excluded":
            assert r.reason and not hasattr(npjax.ndarray, r.name), r
        else:
            assert hasattr(npjax.ndarray, r.name), r


def test_ndarray_tables_are_not_stale():
    names = set(_registry_methods.public_attributes())
    for table in (_registry_methods.HOST, _registry_methods.EXCLUDED):
        assert set(table) <= names, set(table) - names
    assert all(reason for reason in _registry_methods.EXCLUDED.values())


def test_every_numpy_scalar_attribute_is_provided_or_excluded_with_a_reason():
    """NumPy's scalar attributes, read now: each resolves on the 0-d npjax arrays that stand
    for scalars on the device, or is excluded with a reason (host results are NumPy's own
    scalars: tests/test_scalars.py::test_host_scalars_are_numpys_own)."""
    records = _registry_scalars.records()
    assert {r.name for r in records} == set(_registry_scalars.public_attributes())
    assert [r.name for r in records if r.status == "missing"] == []
    with npjax.policy(placement="device"):
        scalars = {t: npjax.zeros(2, t)[0] for t in _registry_scalars.TYPES}
    memory = set(_registry_methods.HOST) - {"__array__", "__repr__", "__str__", "__format__",
                                            "__reduce__", "__setstate__", "tolist", "item",
                                            "tobytes", "tofile", "dump", "dumps"}
    for r in records:
        if r.status == "excluded":
            assert r.reason, r
            continue
        assert hasattr(npjax.ndarray, r.name), r
        if r.name in memory:  # host memory: device arrays have none (AttributeError)
            continue
        for t, x in scalars.items():
            if r.name.startswith("__"):  # looked up on the type: raise as NumPy's do
                assert hasattr(x, r.name) or not hasattr(t(0), r.name), (r.name, t)
            else:
                assert hasattr(x, r.name) == hasattr(t(0), r.name), (r.name, t)


def test_scalar_tables_are_not_stale():
    names = set(_registry_scalars.public_attributes())
    for table in (_registry_scalars.HOST, _registry_scalars.EXCLUDED):
        assert set(table) - set(_registry_methods.HOST) <= names
    assert set(_registry_scalars.EXCLUDED) <= names
    assert all(reason for reason in _registry_scalars.EXCLUDED.values())


@pytest.mark.parametrize("qualified", ["add", "mean", "linalg.solve", "fft.rfft", "where",
                                       "random.default_rng", "arange", "exp", "ndarray.sum",
                                       "ndarray.astype", "ndarray.reshape", "ndarray.cumsum"])
def test_help_shows_numpys_documentation(qualified):
    """``help``/``np.info`` of an npjax function: its own docstring, then NumPy's."""
    import contextlib
    import io
    import operator

    ours = operator.attrgetter(qualified)(npjax)
    theirs = operator.attrgetter(qualified)(np)
    doc = inspect.getdoc(ours)
    assert inspect.cleandoc(theirs.__doc__) in doc
    assert doc.index("NumPy's documentation") > 0  # (npjax's own text first)
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        np.info(ours)
    assert inspect.cleandoc(theirs.__doc__).splitlines()[-1] in shown.getvalue()


def test_help_of_every_array_method_shows_numpys_documentation():
    """``help(a.clip)``, ``np.info(a.sum)``: every public method NumPy documents."""
    a = npjax.arange(3.0)
    for name in dir(np.ndarray):
        theirs = getattr(np.ndarray, name)
        if name.startswith("_") or not callable(theirs) or not theirs.__doc__:
            continue
        doc = inspect.getdoc(getattr(a, name))
        assert f"NumPy's documentation of ``numpy.ndarray.{name}``" in doc, name
        assert inspect.cleandoc(theirs.__doc__) in doc, name


BUILTINS = [n for n in dir(np) if isinstance(getattr(np, n), types.BuiltinFunctionType)]


@pytest.mark.parametrize("name", BUILTINS)
def test_numpys_builtin_functions_stay_functions_as_class_attributes(name):
    """``class T: array = np.array``: NumPy's built-in functions do not bind as methods;
    npjax's stand-ins behave the same, pickle by name and keep their signatures."""
    import pickle

    ours = getattr(npjax, name)
    theirs_cls = type("T", (), {"f": getattr(np, name)})
    ours_cls = type("T", (), {"f": ours})
    assert isinstance(theirs_cls().f, types.MethodType) == isinstance(ours_cls().f,
                                                                      types.MethodType)
    assert pickle.loads(pickle.dumps(ours)) is ours
    assert ours.__name__ == name


def test_a_class_attribute_array_maker_makes_arrays():
    class T:
        array = npjax.array
        zeros = npjax.zeros

    assert isinstance(T().array([1, 2]), npjax.ndarray)
    assert T().zeros(2).tolist() == [0.0, 0.0]
