"""Lazy mode, loops that write an array row by row or element by element (issue 16).

``for i in range(1, n): a[i] = a[i - 1] * 0.5 + b[i]`` records the same calls every
iteration. The flushed program runs them as one ``lax.scan`` (``_lazy.Roll``) and reads
back the row the last store put there from the stored value (``_lazy.stored_part``): one
compiled body whatever the trip count, and XLA updates the array in place instead of
copying it at every write. Values, dtypes, views and the error state stay NumPy's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import npjax
from npjax._execution import _lazy
from tests._parity import DEVICE_FLOAT as F

pytestmark = pytest.mark.device_placement

LAZY = dict(mode="lazy")


def _ar_rows(xp, a, b):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] * 0.5 + b[i]
    return a


def _inputs(n=300, m=8, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((n, m)).astype(F), rng.random((n, m)).astype(F)


def _lazy_run(fn, *arrays):
    args = [npjax.asarray(x.copy()) for x in arrays]
    npjax.reset_stats()
    with npjax.policy(**LAZY):
        out = fn(npjax, *args)
        got = np.asarray(out)
    return got, args, dict(npjax.stats()["lazy"])


def test_row_recurrence_rolls_and_matches_numpy():
    a0, b0 = _inputs()
    want = _ar_rows(np, a0.copy(), b0)
    got, _, counts = _lazy_run(_ar_rows, a0, b0)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert counts["recorded"] >= 4 * 299
    assert counts["rolled"] >= 1 and counts["rolled"] == counts["programs"]
    assert counts["programs"] <= 3  # the graph is cut at about 1000 calls: few shapes


def test_other_trip_counts_reuse_the_programs():
    a0, b0 = _inputs(n=300)
    _lazy_run(_ar_rows, a0, b0)
    for n in (300, 290):  # the same graphs again, then a shorter last one
        a1, b1 = _inputs(n=n, seed=n)
        got, _, counts = _lazy_run(_ar_rows, a1, b1)
        np.testing.assert_array_equal(got, _ar_rows(np, a1.copy(), b1))
    assert counts["programs"] <= 1


def spy_programs(monkeypatch) -> list:
    """Lazy programs compiled from now on, each with its inputs (the program cache emptied)."""
    made = []
    compile_ = _lazy._compile

    def spy(key, spec, out_refs, inputs, roll=None):
        got = compile_(key, spec, out_refs, inputs, roll)
        made.append((got[:2], list(inputs)))  # (the program, its roll)
        return got

    monkeypatch.setattr(_lazy, "_programs", {})
    monkeypatch.setattr(_lazy, "_compile", spy)
    return made


def test_rolled_program_updates_the_array_in_place(monkeypatch):
    """The cause of issue 16: each write of the straight program copied the whole array."""
    a0, b0 = _inputs(n=200, m=16)
    made = spy_programs(monkeypatch)
    got, _, _ = _lazy_run(_ar_rows, a0, b0)
    np.testing.assert_array_equal(got, _ar_rows(np, a0.copy(), b0))
    assert made
    for (fn, roll), inputs in made:
        assert roll is not None
        text = fn.lower(_lazy.neg_zero(), *roll.arrange(inputs)).compile().as_text()
        typed = {np.float64: "f64", np.float32: "f32"}[F] + "[200,16]"
        copies = [line for line in text.splitlines() if " copy(" in line and typed in line]
        assert len(copies) <= 1, copies  # at most the copy of the input (not donated)


def test_element_recurrence_and_python_scalars_per_trip():
    def kernel(xp, x, y):
        for i in range(1, x.shape[0]):
            x[i] = x[i - 1] * 0.5 + y[i] + i * 0.25  # a Python float that changes each trip
        return x

    x0, y0 = (np.random.default_rng(s).random(400).astype(F) for s in (3, 4))
    got, _, counts = _lazy_run(kernel, x0, y0)
    np.testing.assert_array_equal(got, kernel(np, x0.copy(), y0))
    assert counts["rolled"] >= 1


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.complex64])
def test_dtypes_and_casting_stores(dtype):
    def kernel(xp, a, b):
        for i in range(1, a.shape[0]):
            a[i] = a[i - 1] * 3 // 2 + b[i] + i if a.dtype.kind in "iu" else \
                a[i - 1] * 0.5 + b[i] * 2.5 + i
        return a

    a0 = (np.arange(200 * 4) % 7).reshape(200, 4).astype(dtype)
    b0 = (np.arange(200 * 4) % 5).reshape(200, 4).astype(np.float64)
    with np.errstate(all="ignore"):
        want = kernel(np, a0.copy(), b0.astype(dtype) if dtype != np.float32 else b0)
    b_in = b0.astype(dtype) if dtype != np.float32 else b0  # float32: float64 values cast
    got, _, _ = _lazy_run(kernel, a0, b_in)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_views_alias_and_writes_through_views():
    def kernel(xp, a, b):
        first, block = a[5], a[2:6]  # views taken before the loop
        for i in range(1, a.shape[0]):
            row = a[i]
            row[...] = a[i - 1] * 0.5 + b[i]  # a write through a view
        return a, first, block

    a0, b0 = _inputs(n=240, m=6, seed=7)
    want = kernel(np, a0.copy(), b0)
    a, b = npjax.asarray(a0.copy()), npjax.asarray(b0)
    with npjax.policy(**LAZY):
        got = kernel(npjax, a, b)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), w)
        got[1][0] = -1.0  # the view still writes into the array
        assert float(a[5, 0]) == -1.0
    assert got[1].base is not None


def test_intermediate_rows_read_after_the_loop():
    def kernel(xp, a, b):
        kept = []
        for i in range(1, a.shape[0]):
            a[i] = a[i - 1] * 0.5 + b[i]
            if i % 50 == 0:
                kept.append(a[i].copy())  # a value of one trip kept past the loop
        return a, kept

    a0, b0 = _inputs(n=260, m=5, seed=9)
    want = kernel(np, a0.copy(), b0)
    a, b = npjax.asarray(a0.copy()), npjax.asarray(b0)
    with npjax.policy(**LAZY):
        got = kernel(npjax, a, b)
        np.testing.assert_array_equal(np.asarray(got[0]), want[0])
        for g, w in zip(got[1], want[1]):
            np.testing.assert_array_equal(np.asarray(g), w)


def _overflowing(xp, a, b):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] * 1e30 + b[i]
    return a


def test_error_state_raise_in_a_rolled_loop():
    a0, b0 = _inputs(n=200, m=4, seed=11)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError) as want:
        _overflowing(np, a0.copy(), b0)
    a, b = npjax.asarray(a0.copy()), npjax.asarray(b0)
    with npjax.policy(**LAZY), npjax.errstate(over="raise"), \
            pytest.raises(FloatingPointError) as got:
        np.asarray(_overflowing(npjax, a, b))
    assert "overflow" in str(got.value) and "overflow" in str(want.value)


def test_error_state_warns_once_in_a_rolled_loop():
    a0, b0 = _inputs(n=200, m=4, seed=12)
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        expected = _overflowing(np, a0.copy(), b0)
    a, b = npjax.asarray(a0.copy()), npjax.asarray(b0)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        with npjax.policy(**LAZY):
            result = np.asarray(_overflowing(npjax, a, b))
    np.testing.assert_array_equal(result, expected)
    assert {str(w.message) for w in want} == {"overflow encountered in multiply"}
    assert "overflow encountered in multiply" in {str(w.message) for w in got}
    assert all(w.category is RuntimeWarning for w in got)


def test_no_check_when_errors_are_ignored():
    a0, b0 = _inputs(n=200, m=4, seed=13)
    with np.errstate(all="ignore"):
        want = _overflowing(np, a0.copy(), b0)
    a, b = npjax.asarray(a0.copy()), npjax.asarray(b0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with npjax.policy(**LAZY), npjax.errstate(all="ignore"):
            got = np.asarray(_overflowing(npjax, a, b))
    np.testing.assert_array_equal(got, want)


def _life(xp, Z, steps):
    for _ in range(steps):
        N = (Z[0:-2, 0:-2] + Z[0:-2, 1:-1] + Z[0:-2, 2:] + Z[1:-1, 0:-2] + Z[1:-1, 2:]
             + Z[2:, 0:-2] + Z[2:, 1:-1] + Z[2:, 2:])
        birth = (N == 3) & (Z[1:-1, 1:-1] == 0)
        survive = ((N == 2) | (N == 3)) & (Z[1:-1, 1:-1] == 1)
        Z[...] = 0
        Z[1:-1, 1:-1][birth | survive] = 1
    return Z


@pytest.mark.parametrize("dtype", ["int64", "int8", np.dtype(F).name])
def test_a_value_written_each_trip_as_a_new_0d_array_rolls(dtype):
    """``Z[...] = 0`` records a new 0-d NumPy array each trip: stacked like a Python
    scalar, so Game of Life's step rolls (before, its graph ran unrolled: a 21 s compile
    at 300 x 600)."""
    rng = np.random.default_rng(3)
    Z0 = (rng.random((40, 60)) < 0.3).astype(dtype)
    want = _life(np, Z0.copy(), 30)
    got, args, counts = _lazy_run(lambda xp, Z: _life(xp, Z, 30), Z0)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(args[0]), want)  # written in place
    assert counts["rolled"] >= 1 and counts["rolled"] == counts["programs"]
