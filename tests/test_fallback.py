"""Declared fallback: loud by policy, pointing at the caller's line, counted, and faithful to
NumPy's mutation of arguments; host-only dtypes are host arrays, computed quietly."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import npjax
from npjax._calls import _fallback
from npjax._runtime import _stats
from tests._parity import assert_parity

emath_sqrt = npjax.emath.sqrt  # a registry fallback (results' dtype depends on the data)


def _line_after() -> int:
    return inspect.currentframe().f_back.f_lineno + 1


def test_warn_names_function_and_user_line():
    x = npjax.asarray([-1.0, 4.0])
    with npjax.policy(fallback="warn"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = _line_after()
        got = emath_sqrt(x)
    [w] = [w for w in caught if issubclass(w.category, npjax.FallbackWarning)]
    assert "emath.sqrt" in str(w.message)
    assert w.filename == __file__ and w.lineno == line
    assert issubclass(npjax.FallbackWarning, UserWarning)
    assert isinstance(got, npjax.ndarray) and got.dtype == np.complex128
    assert got.tolist() == [1j, 2 + 0j]


def test_raise_and_allow_modes_and_counter():
    x = npjax.asarray([4.0])
    npjax.reset_stats()
    with npjax.policy(fallback="raise"), pytest.raises(NotImplementedError, match="emath"):
        emath_sqrt(x)
    with npjax.policy(fallback="allow"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert emath_sqrt(x).tolist() == [2.0]
        assert emath_sqrt(x).tolist() == [2.0]
    report = npjax.stats()
    assert report["fallbacks"] == {"emath.sqrt": 2}
    assert all(site["site"].startswith(__file__) for site in report["fallback_sites"])


def test_fallback_parity_with_numpy():
    with npjax.policy(fallback="allow"):
        for values in ([-4.0, 0.0, 9.0], [4, 9], [], [[-1.0]]):
            assert_parity(lambda xp, v=values: xp.emath.sqrt(xp.asarray(v)),
                          context=values)
            assert_parity(lambda xp, v=values: xp.emath.log(xp.asarray(v)), context=values)


@pytest.mark.parametrize("name", ["copyto", "putmask", "place", "put", "put_along_axis"])
def test_mutating_functions_write_back_through_views(name):
    """A mutating NumPy function run as a fallback updates the npjax array and its aliases."""
    args = {"copyto": lambda xp, d: (d, xp.asarray([7.0, 8.0])),
            "putmask": lambda xp, d: (d, xp.asarray([True, False]), 5.0),
            "place": lambda xp, d: (d, xp.asarray([False, True]), [6.0]),
            "put": lambda xp, d: (d, [1], [9.0]),
            "put_along_axis": lambda xp, d: (d, xp.asarray([1]), 3.0, 0)}[name]
    results = {}
    for xp in (np, npjax):
        base = xp.zeros((2, 2))
        view = base[1]
        fn = getattr(np, name)
        if xp is npjax:
            fn = _fallback.fallback_function(name, fn)
        with npjax.policy(fallback="allow"):
            assert fn(*args(xp, view)) is None
        results[xp] = (np.asarray(base), np.asarray(view))
    np.testing.assert_array_equal(results[npjax][0], results[np][0])
    np.testing.assert_array_equal(results[npjax][1], results[np][1])


def test_out_through_a_fallback_is_written_and_returned():
    base = npjax.zeros((2, 3))
    row = base[0]
    add = _fallback.fallback_function("add", np.add)
    with npjax.policy(fallback="allow"):
        got = add(npjax.asarray([1.0, 2.0, 3.0]), 1.0, out=row)
    assert got is row
    assert base.tolist() == [[2.0, 3.0, 4.0], [0.0, 0.0, 0.0]]
    with npjax.policy(fallback="allow"):
        pair = add(npjax.asarray([1, 2]), 1, out=(npjax.zeros(2, dtype=np.int64),))
    assert isinstance(pair, npjax.ndarray) and pair.tolist() == [2, 3]


def test_out_casting_follows_numpy_in_fallback():
    add = _fallback.fallback_function("add", np.add)
    out = npjax.zeros(2, dtype=np.int64)
    with npjax.policy(fallback="allow"), pytest.raises(TypeError):
        add(npjax.asarray([0.5, 1.5]), 1.0, out=out)
    assert out.tolist() == [0, 0]


def test_host_only_dtypes_are_host_arrays_quietly():
    with npjax.policy(fallback="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        words = npjax.array(["a", "bc"])
        assert type(words) is npjax.ndarray and words.dtype == np.dtype("<U2")
        months = npjax.arange("2024-01", "2024-03", dtype="datetime64[M]")
        np.testing.assert_array_equal(
            months, np.arange("2024-01", "2024-03", dtype="datetime64[M]"))
        assert npjax.datetime64("2024-01-01") == np.datetime64("2024-01-01")
        assert npjax.char.upper(words).tolist() == ["A", "BC"]
        joined = npjax.concatenate([words, npjax.array(["d"])])
        assert joined.tolist() == ["a", "bc", "d"]
        assert npjax.zeros(2, dtype="U3").tolist() == ["", ""]
        objects = npjax.asarray(np.array([1, None], dtype=object))
        assert type(objects) is npjax.ndarray and objects.dtype == object
        assert npjax.add(words, words).tolist() == ["aa", "bcbc"]
    with npjax.policy(fallback="raise", placement="device"):  # forced to the host: counted
        before = sum(_stats.host_only.values())
        assert npjax.add(words, words).tolist() == ["aa", "bcbc"]
        assert sum(_stats.host_only.values()) > before


def test_stats_counts_fallback_by_name():
    _stats.reset_stats()
    with npjax.policy(fallback="allow"):
        npjax.emath.log10(npjax.asarray([10.0]))
    assert npjax.stats()["fallbacks"] == {"emath.log10": 1}
