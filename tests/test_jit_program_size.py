"""The size of the programs npjax traces, read from their HLO text: the device-side checks of
reductions and the inverse real FFT compile to few operations (issue 17: XLA's compile time
of npjax.jit's first call grows with the number of kernels; no wall time is asserted)."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import npjax
from npjax import fft as npjax_fft
from npjax._library import _reduction_checks as checks
from npjax._pure import _boolsums
from tests.test_jit_loops import _traced_program


def _lowered(fn, *args) -> str:
    return jax.jit(fn).lower(*args).as_text()


def _reductions(text: str) -> int:
    return len(re.findall(r"stablehlo\.reduce[ (]", text))


def _check_text(body, size: int, static: tuple, args: tuple, result) -> str:
    fn = checks._compiled(checks._Events(body, size, static))
    return _lowered(fn, args, result)


X = jnp.ones((2000, 16))
F64 = np.dtype(np.float64)


def test_var_check_makes_few_reductions():
    # NumPy's var has 6 flag events here; each any/all/count was one reduction (14 in all)
    text = _check_text(checks._var_body, 6, ((0,), 0, F64, False), (X, None, None),
                       jnp.ones((1, 16)))
    assert _reductions(text) <= 6  # screen, two sums of values, three boolean folds


def test_mean_check_makes_few_reductions():
    text = _check_text(checks._mean_body, 1, ((0,), F64, "divide"), (X, None),
                       jnp.ones((16,)))
    assert _reductions(text) <= 4  # screen, sum, facts per lane, facts over the lanes


def test_check_reductions_compile_without_reduce_window():
    """XLA's CPU backend splits a large boolean reduction into reduce-window kernels; the
    checks' boolean reductions are variadic (one kernel) or float sums."""
    fn = checks._compiled(checks._Events(checks._var_body, 6, ((0,), 0, F64, False)))
    hlo = jax.jit(fn).lower((X, None, None), jnp.ones((1, 16))).compile().as_text()
    if jax.default_backend() == "cpu":
        assert "reduce-window" not in hlo


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 0)])
def test_fold_many_matches_jnp(shape):
    rng = np.random.default_rng(0)
    a, b = rng.random(shape) < 0.3, rng.random(shape) < 0.9
    for axis in (None, 0, -1):
        got = _boolsums.fold_many([(a, "or"), (b, "and"), (a, "count")], axis, True)
        want = [np.any(a, axis, keepdims=True), np.all(b, axis, keepdims=True),
                np.sum(a, axis, keepdims=True)]
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(np.asarray(g), w)
        one = _boolsums.fold_many([(b, "and")], axis)
        np.testing.assert_array_equal(np.asarray(one[0]), np.all(b, axis))


def test_all_finite_matches_isfinite():
    for v in (1.0, np.inf, -np.inf, np.nan):
        for dt in (np.float16, np.float32, np.float64, np.complex64, np.complex128):
            x = np.array([1.0, 2.0, v]).astype(dt)
            if dt in (np.complex64, np.complex128):
                x = np.array([1 + 1j, complex(1.0, v), complex(v, 0.0)], dt)
            assert bool(_boolsums.all_finite(jnp.asarray(x))) == bool(np.isfinite(x).all())


def test_irfft_has_no_scatter():
    x = jnp.ones((5,), np.complex128)
    text = _lowered(lambda v: npjax_fft._transform(
        v, kind="c2r", n=8, axis=0, fct=None, cdtype=np.dtype(np.complex128), odtype=F64,
        conj=False), x)
    assert "scatter" not in text


def test_irfft_reads_only_the_real_parts_of_the_ends():
    x = np.array([1 + 5j, 2 - 1j, 3 + 2j, 4 + 7j, 5 - 3j])
    for n in (8, 9):
        got = np.asarray(npjax.fft.irfft(npjax.asarray(x), n))
        np.testing.assert_array_equal(got, np.fft.irfft(x, n))


def test_integer_sums_compile_without_reduce_window():
    """``x.sum()`` of booleans or integers over many elements: one variadic reduction of two
    halves (``_boolsums.split_fold``), not XLA's tree of reduce-window kernels."""
    from npjax._pure._impl import reductions

    b = jnp.ones((2000,), bool)
    fn = jax.jit(lambda v: reductions._fold(v, (0,), "add", np.dtype(np.int64)))
    assert "reduce-window" not in fn.lower(b).as_text()
    if jax.default_backend() == "cpu":
        assert "reduce-window" not in fn.lower(b).compile().as_text()


@pytest.mark.parametrize("op", ["or", "and", "add", "mul"])
def test_split_fold_matches_numpy(op):
    rng = np.random.default_rng(1)
    for shape, axes in (((33,), (0,)), ((40, 3), (0,)), ((5, 41), (0, 1)), ((64, 2), (1,))):
        x = rng.random(shape) < 0.6 if op in ("or", "and") else rng.integers(-9, 9, shape)
        want = {"or": np.any, "and": np.all, "add": np.sum, "mul": np.prod}[op](x, axis=axes)
        got = np.asarray(_boolsums.split_fold(jnp.asarray(x), axes, op))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_a_rolled_loop_carries_no_float_accumulators():
    """The error-state check of a rolled loop folds each iteration's results into the
    loop's one flag: no float32 accumulator is carried (XLA compiled one kernel to make it,
    one to add to it, and a tree of them to reduce it after the loop)."""
    def rows(a, b):
        for i in range(1, a.shape[0]):
            a[i] = a[i - 1] * 0.5 + b[i]
        return a

    jitted = npjax.jit(rows)
    a, b = np.random.default_rng(2).random((2, 100, 40))
    text = _traced_program(jitted, npjax.asarray(a), npjax.asarray(b)).lower().as_text()
    loops = re.findall(r"stablehlo\.while\((.*)\)", text)
    assert loops and not any("xf32>" in carried for carried in loops)
    if jax.default_backend() == "cpu":
        hlo = _traced_program(jitted, npjax.asarray(a), npjax.asarray(b)).lower().compile()
        assert "reduce-window" not in hlo.as_text()
    want = a.copy()
    for i in range(1, 100):
        want[i] = want[i - 1] * 0.5 + b[i]
    np.testing.assert_array_equal(np.asarray(jitted(npjax.asarray(a), npjax.asarray(b))), want)


def test_split_fold_only_where_the_last_axis_is_reduced():
    """A column reduction (the last axis kept) stays XLA's own: its variadic form ran many
    times slower."""
    assert _boolsums.splits((4000,), (0,)) and _boolsums.splits((40, 50), (1,))
    assert _boolsums.splits((40, 50), (0, 1))
    assert not _boolsums.splits((4000, 40), (0,)) and not _boolsums.splits((3, 5), (1,))
    b = np.random.default_rng(3).random((100, 3)) < 0.5
    np.testing.assert_array_equal(np.asarray(_boolsums.count(jnp.asarray(b), 0)), b.sum(0))
