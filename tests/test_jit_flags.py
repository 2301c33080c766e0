"""Floating-point flags under ``npjax.jit`` where the trace checks fewer values (issue 17):
reductions whose operands are watched check their result only, ufuncs that cannot raise a
flag are not checked, and results that hide a non-finite operand (``exp(-inf)`` is 0) are
made to show it. Each case runs under NumPy and under ``npjax.jit``: the same value, dtype
and sign of zero, and the same warnings (or exception)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import npjax
from tests._parity import assert_same

BIG, NAN, INF = 1e200, np.nan, np.inf


def _run(fn, args, jit):
    xp = npjax if jit else np
    ins = [npjax.asarray(a.copy()) for a in args] if jit else [a.copy() for a in args]
    call = npjax.jit(fn, static_argnums=0) if jit else fn
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call(xp, *ins)
        except FloatingPointError as exc:
            result = type(exc)
        if jit and not isinstance(result, type):
            np.asarray(result)
    return result, [(w.category, str(w.message)) for w in caught]


def assert_like_numpy(fn, *args, **state):
    """``fn(xp, *args)`` under NumPy and under ``npjax.jit`` in error state ``state``."""
    with np.errstate(**state):
        want, want_w = _run(fn, args, False)
        got, got_w = _run(fn, args, True)
    if isinstance(want, type):
        assert got is want
    else:
        assert_same(got, want, check_sign_of_zero=True)
    assert got_w == want_w
    return got_w


def chain(xp, x):
    return xp.sqrt(x * x + 2 * x + 1).sum()


def chain_sqrt_negative(xp, x):
    return xp.sqrt(x * x - 2 * x).sum()


def pricing(xp, z):  # benchmarks/kernels/monte_carlo.py: exp of a product, a clipped mean
    s = 100.0 * xp.exp(-2.0 * z)
    s -= 105.0
    xp.maximum(s, 0.0, out=s)
    return s.mean()


def exp_of_product(xp, x, y):
    return xp.exp(x * y).sum()


def moments(xp, x, y):
    d = x * y
    return xp.stack([d.mean(), d.std(), d.var(axis=0).sum(), xp.prod(d, axis=0).sum()])


def quotient(xp, x, y, c):
    return ((x * y) / c).sum(axis=0)


def ratios(xp, x, y, z):  # benchmarks/kernels/particles.py: a product over a product
    return (x * y) / (z * z) + x / y


def truncated(xp, x, y):
    return xp.trunc(x * y), xp.floor(x * y) + xp.ceil(x * y)


def clipped_sum(xp, x):
    return xp.maximum(x, 0.0).sum() + xp.exp(x).mean()


def binned(xp, x, c):  # benchmarks/kernels/histogram.py: bins of scaled values
    idx = xp.floor((x - 4.0) * c).astype(np.int64)
    xp.clip(idx, 0, 7, out=idx)
    counts = xp.zeros(8, dtype=np.int64)
    xp.add.at(counts, idx, 1)
    return counts


CASES = {
    "bins": (binned, [np.linspace(0.0, 8.0, 50), np.array(1.0)]),
    "bins, overflow before the cast": (binned, [np.array([1.0, BIG, 5.0]), np.array(BIG)]),
    "bins, nan before the cast": (binned, [np.array([1.0, NAN, 5.0]), np.array(1.0)]),
    "bins, invalid product": (binned, [np.array([4.0, 5.0]), np.array(INF)]),
    "chain": (chain, [np.linspace(0.0, 1.0, 100)]),
    "chain, large": (chain, [np.linspace(0.0, 1.0, 5000)]),
    "chain, overflow": (chain, [np.array([1.0, BIG, 3.0])]),
    "chain, invalid in sqrt": (chain_sqrt_negative, [np.array([1.0, 3.0, 0.5])]),
    "pricing": (pricing, [np.linspace(-3, 3, 1000)]),
    "pricing, overflow to -inf before exp": (pricing, [np.array([0.1, 1e308, -0.2])]),
    "pricing, overflow in exp": (pricing, [np.array([0.1, -1000.0, -0.2])]),
    "pricing, underflow in exp": (pricing, [np.array([0.1, 1000.0, -0.2])]),
    "exp of a product": (exp_of_product, [np.arange(6.0), np.full(6, 0.5)]),
    "exp of an overflowed product": (exp_of_product, [np.array([1.0, -BIG]), np.array([BIG, BIG])]),
    "moments": (moments, [np.arange(12.0).reshape(4, 3), np.full((4, 3), 0.25)]),
    "moments, overflow": (moments, [np.array([[1e300, 1.0], [2.0, -1e300]]),
                                    np.array([[1e10, 1.0], [1.0, 1e10]])]),
    "moments, square overflows": (moments, [np.array([[1e200, 1.0], [-1e200, 2.0]]),
                                            np.ones((2, 2))]),
    "quotient": (quotient, [np.arange(6.0).reshape(3, 2), np.ones((3, 2)), np.array([2.0, 4.0])]),
    "quotient, zero divisor": (quotient, [np.arange(6.0).reshape(3, 2), np.ones((3, 2)),
                                          np.array([2.0, 0.0])]),
    "quotient, infinite divisor": (quotient, [np.arange(6.0).reshape(3, 2), np.ones((3, 2)),
                                              np.array([INF, 2.0])]),
    "quotient, overflowed product": (quotient, [np.array([[BIG, 1.0]]), np.array([[BIG, 1.0]]),
                                                np.array([INF, 2.0])]),
    "ratios": (ratios, [np.array([1.0, -2.0, 0.0]), np.array([3.0, 0.5, -1.0]),
                        np.array([2.0, 1.0, 4.0])]),
    "ratios, overflowed numerator": (ratios, [np.array([1.0, BIG]), np.array([2.0, BIG]),
                                              np.array([1.0, 3.0])]),
    "ratios, overflowed divisor": (ratios, [np.array([1.0, 2.0]), np.array([2.0, 1.0]),
                                            np.array([1.0, BIG])]),
    "ratios, both overflowed": (ratios, [np.array([1.0, BIG]), np.array([2.0, BIG]),
                                         np.array([1.0, BIG])]),
    "ratios, zero divisor": (ratios, [np.array([1.0, 2.0]), np.array([0.0, 1.0]),
                                      np.array([1.0, 2.0])]),
    "signed zeros": (truncated, [np.array([-0.3, 0.3, 0.0, -2.5]),
                                 np.array([1.0, 1.0, -1.0, 1.0])]),
    "signed zeros, overflow": (truncated, [np.array([-0.3, BIG]), np.array([1.0, -BIG])]),
    "non-finite inputs": (clipped_sum, [np.array([1.0, NAN, -INF, 2.0])]),
    "infinite input": (clipped_sum, [np.array([1.0, INF, 2.0])]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_flags_like_numpy(case):
    fn, args = CASES[case]
    assert_like_numpy(fn, *args)


@pytest.mark.parametrize("case", ["pricing, overflow to -inf before exp",
                                  "ratios, overflowed numerator", "ratios, overflowed divisor",
                                  "bins, overflow before the cast", "bins, invalid product",
                                  "pricing, underflow in exp",
                                  "exp of an overflowed product", "moments, overflow",
                                  "chain, invalid in sqrt", "signed zeros, overflow"])
@pytest.mark.parametrize("state", [dict(over="raise", invalid="raise"), dict(under="warn"),
                                   dict(all="ignore"), dict(over="ignore")])
def test_flags_like_numpy_in_other_states(case, state):
    fn, args = CASES[case]
    assert_like_numpy(fn, *args, **state)


def test_flags_found_in_cases():
    """The cases above do raise what they are meant to (no test passes by seeing nothing)."""
    def found(case, **state):
        fn, args = CASES[case]
        return assert_like_numpy(fn, *args, **state)

    assert found("pricing, overflow to -inf before exp") == [
        (RuntimeWarning, "overflow encountered in multiply")]
    assert found("chain, invalid in sqrt") == [
        (RuntimeWarning, "invalid value encountered in sqrt")]
    assert found("exp of an overflowed product") == [
        (RuntimeWarning, "overflow encountered in multiply"),
        (RuntimeWarning, "overflow encountered in exp")]
    assert found("ratios, overflowed numerator") == [
        (RuntimeWarning, "overflow encountered in multiply")]
    assert found("ratios, overflowed divisor") == [
        (RuntimeWarning, "overflow encountered in multiply")]
    assert found("non-finite inputs") == []
    assert found("pricing, underflow in exp") == []
    assert found("pricing, underflow in exp", under="warn") == [
        (RuntimeWarning, "underflow encountered in exp")]


def test_exp_of_underflowed_values_stays_traced():
    """``exp`` of very negative values is 0 without a flag NumPy reports: no eager rerun."""
    f = npjax.jit(lambda x, y: npjax.exp(x * y).sum())
    x, y = npjax.asarray(np.full(8, -1000.0)), npjax.asarray(np.ones(8))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(f(x, y)) == 0.0
    calls = []
    f._eager = lambda *a: calls.append(a)
    f(x, y)
    assert calls == []


def test_a_float_to_int_cast_checks_its_operand():
    # The cast's own check is True at any non-finite value (and reruns the call eagerly,
    # with NumPy's reports), so the float result it casts needs no finite check of its own;
    # the clipped positions need no bounds check (clip by Python ints bounds them).
    x = npjax.asarray(np.linspace(0.0, 8.0, 50))
    jitted = npjax.jit(binned, static_argnums=0)
    jitted(npjax, x, npjax.asarray(1.0))
    (entry,) = jitted._cache.values()
    compiled, seen = entry.compiled, []
    entry.compiled = lambda *a: seen.append(a) or compiled(*a)
    try:
        jitted(npjax, x, npjax.asarray(1.0))
    finally:
        entry.compiled = compiled
    text = str(compiled.trace(*seen[0]).jaxpr)
    assert "is_finite" not in text  # no finite watch left
    assert "reduce_min" not in text and "reduce_max" not in text  # no bounds check


def clipped_past_the_end(xp, idx):
    counts = xp.zeros(4, dtype=np.int64)
    xp.add.at(counts, xp.clip(idx, -5, 4), 1)  # 4 and -5 are out of bounds
    return counts


@pytest.mark.parametrize("idx", [[0, 1, 3, -4], [0, 9, 2], [-9, 1]])
def test_clipped_positions_out_of_bounds_raise_numpys_error(idx):
    idx = np.array(idx, np.int64)
    try:
        want = clipped_past_the_end(np, idx.copy())
    except IndexError as exc:
        with pytest.raises(IndexError) as info:
            npjax.jit(clipped_past_the_end, static_argnums=0)(npjax, npjax.asarray(idx))
        assert str(info.value) == str(exc)
    else:
        got = npjax.jit(clipped_past_the_end, static_argnums=0)(npjax, npjax.asarray(idx))
        assert_same(got, want)


def test_a_quotient_shows_its_numerator():
    # ``x / y`` is not finite wherever ``x`` is not: only a watched divisor is made to show
    # in the quotient (``FiniteWatch.poison``), the numerator is covered as it is.
    def quotients(xp, x, y):
        return (x * 2.0) / y, (x * 3.0) / (y * 2.0)

    jitted = npjax.jit(quotients, static_argnums=0)
    x, y = npjax.asarray(np.arange(1.0, 4.0)), npjax.asarray(np.arange(2.0, 5.0))
    jitted(npjax, x, y)
    (entry,) = jitted._cache.values()
    compiled, seen = entry.compiled, []
    entry.compiled = lambda *a: seen.append(a) or compiled(*a)
    try:
        jitted(npjax, x, y)
    finally:
        entry.compiled = compiled
    # (lowered for the CPU: the finite check is platform-dependent, one subtraction there)
    text = compiled.trace(*seen[0]).lower(lowering_platforms=("cpu",)).as_text()
    # one poison (``y * 2.0`` shown in the second quotient: two subtractions), none for
    # the numerators, and the finite check of each quotient (one subtraction each); the
    # numerators' poisons made eight
    assert text.count("stablehlo.subtract ") == 4, text
