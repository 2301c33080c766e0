"""npjax.jit loop rolling against NumPy: adversarial kernels found by a hunt for wrong
answers (values bit for bit, dtypes, warnings, exceptions, final arguments), each a
regression test of what it found, and some that matched, kept as they are."""

from __future__ import annotations

import warnings

import jax.extend.core as jax_core
import numpy as np
import pytest

import npjax
from tests.test_jit_loops import check_reports


def _bits(x):
    """What must match bit for bit: kind, dtype, shape and bytes (views: strides too)."""
    if isinstance(x, tuple | list):
        return type(x).__name__, [_bits(v) for v in x]
    if isinstance(x, npjax.ndarray | np.ndarray | np.generic):
        h = np.asarray(x)
        scalar = x._scalar if isinstance(x, npjax.ndarray) else isinstance(x, np.generic)
        strides = None if scalar else x.strides
        return scalar, h.dtype.str, h.shape, h.tobytes(), strides
    return type(x).__name__, repr(x)


def check(kernel, *host_args, static=(), rolled=True, reruns=False):
    """``check_reports`` (warnings, exceptions, reruns, rolled), then results and final
    arguments bit for bit: floats exact, not within a tolerance."""
    jitted = check_reports(kernel, *host_args, static=static, rolled=rolled, reruns=reruns)
    np_args = [a.copy() if isinstance(a, np.ndarray) else a for a in host_args]
    args = [npjax.array(a) if isinstance(a, np.ndarray) else a for a in host_args]
    with warnings.catch_warnings():  # check_reports compared them
        warnings.simplefilter("ignore")
        try:
            want = _bits(kernel(np, *np_args))
        except Exception as exc:  # check_reports compared the exceptions
            want = type(exc)
        try:
            got = _bits(jitted(npjax, *args))
        except Exception as exc:
            got = type(exc)
    assert got == want
    assert [_bits(a) for a in args] == [_bits(a) for a in np_args]


def prefix_sums(xp, a, out):
    for i in range(out.shape[0]):
        out[i] = a[:i].sum()
    return out


def suffix_sums(xp, a, out):
    for i in range(out.shape[0]):
        out[i] = xp.sum(a[i:] * 2.0)
    return out


def row_tail_sums(xp, m, out):
    for j in range(out.shape[0]):
        out[j:] = m[j:, j:].sum(axis=1)
    return out


@pytest.mark.parametrize("n", [9, 20, 128])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.complex128])
def test_float_sums_of_moving_slices_are_numpys_pairwise_sums(n, dtype):
    # NumPy sums a[:i] pairwise (8 accumulators from 8 elements, halves past 128): the
    # zero-filled full-length sum grouped other elements and differed in the last bits
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dtype)
    for kernel in (prefix_sums, suffix_sums):
        check(kernel, a, np.zeros(n, dtype))


def test_longer_moving_slices_roll_zero_filled_within_rounding():
    # past _windows.PAIRWISE_MAX (128) the emulation's compile time grows with the length:
    # the zero-filled sum stays, rolled, equal to NumPy's up to the last bits
    n = 300
    a = np.random.default_rng(1).standard_normal(n)
    jitted = npjax.jit(prefix_sums, static_argnums=(0,))
    got = np.asarray(jitted(npjax, npjax.array(a), npjax.zeros(n)))
    np.testing.assert_allclose(got, prefix_sums(np, a, np.zeros(n)), rtol=1e-13, atol=1e-13)
    assert [o.rolled for o in jitted.loops] == [True]


def test_row_sums_of_a_shrinking_block_are_numpys():
    m = np.random.default_rng(3).standard_normal((14, 14)) * 1e3
    check(row_tail_sums, m, np.zeros(14))


def masked_sums(xp, a, t, out):
    for i in range(out.shape[0]):
        out[i] = a[a.real > t[i]].sum()
    return out


def masked_means(xp, a, n):
    return [xp.mean(a[a.real > i / (n + 1)]) for i in range(n)]


def masked_mean_rows(xp, a, t, out):
    for i in range(out.shape[0]):
        out[i] = a[a.real > t[i]].mean(keepdims=True)
    return out


def _values(dtype, n, seed):
    rng = np.random.default_rng(seed)
    x = rng.random(n) * 10.0 ** rng.integers(-2, 3, n)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.random(n)
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.complex64,
                                   np.complex128])
def test_float_sums_and_means_of_masked_reads_are_numpys(dtype):
    # NumPy sums the compacted a[m] pairwise and divides by an intp count (complex: Smith's
    # division by count + 0j); the masked sum of the full array grouped other elements
    a = _values(dtype, 60, 4)
    t = np.sort(a.real)[::6].copy()
    check(masked_sums, a, t, np.zeros(10, dtype))
    check(masked_means, a, 6, static=(1,), rolled=False)
    check(masked_mean_rows, a, t, np.zeros((10, 1), dtype))


def test_means_of_masked_integers_are_numpys():
    a = np.random.default_rng(5).integers(0, 1000, 70)
    check(masked_means, a, 5, static=(1,), rolled=False)


def complex_slices_into_real(xp, z, out, n):
    for i in range(n):
        out[i:i + 2] = z[i:i + 2]
    return out


def complex_rows_as_float(xp, z, out, n):
    for i in range(n):
        out[i] = z[i].astype(float) * 2
    return out


def big_ints_into_float16(xp, a, n):
    for i in range(n):
        a[i] = 70000
    return a


@pytest.mark.parametrize("n", [4, 10])
def test_warnings_raised_while_tracing_come_at_every_iteration_and_every_call(n):
    # NumPy warns at each iteration (and each call); the trace warned once per body it ran
    # (3 of 10 in a rolled loop) and the compiled program never again: such calls rerun
    # eagerly now, which warns as NumPy does
    z = np.arange(12) + 1j
    check(complex_slices_into_real, z, np.zeros(12), n, static=(2,), reruns=True)
    check(complex_rows_as_float, z.reshape(6, 2), np.zeros((6, 2)), min(n, 6), static=(2,),
          reruns=True)
    check(big_ints_into_float16, np.zeros(12, np.float16), n, static=(1,), reruns=True)


def store_complex_at_start(xp, z, out):
    out[0:2] = z[0:2]
    return out


def test_a_warning_raised_while_tracing_comes_again_on_later_calls():
    check(store_complex_at_start, np.arange(4) + 1j, np.zeros(4), rolled=True, reruns=True)


# --- kernels of the hunt that matched NumPy, kept -------------------------------------


def swap_rows(xp, a, n):  # the right side is two views: both rows end as row i + 1
    for i in range(n):
        a[i], a[i + 1] = a[i + 1], a[i]
    return a


def row_view_sees_write(xp, a, out, n):
    for i in range(n):
        row = a[i]
        a[i] = 0
        out[i] = row.sum()
    return a, out


def alias_of_argument(xp, a, n):
    b = a[1:]
    for i in range(n):
        b[i] += a[i]
    return a, b


def reversed_fill(xp, a, n):
    b = xp.zeros_like(a)
    for i in range(n):
        b[i] = a[n - 1 - i] * i
    return b


def negative_step(xp, a, n):
    for i in range(n - 1, 0, -1):
        a[i - 1] = a[i - 1] + a[i]
    return a


def overlapping_window_add(xp, a, n):
    for i in range(n):
        a[i + 1:i + 4] += a[i:i + 3]
    return a


def transposed_rebind(xp, a, n):
    x = a
    for _i in range(n):
        x = (x * 2).T.copy().T
    return x


def concatenated_view(xp, a, n):
    x = a
    for _i in range(n):
        x = xp.concatenate([x, x * 0.5])[2:a.shape[0] + 2]
    return x


def int8_index_promotion(xp, a, n):
    for i in range(n):
        a[i] = a[i] + i
    return a


def masked_halving(xp, a, t, n):
    for i in range(n):
        a[a > t[i]] *= 0.5
    return a


def starts_as_argument(xp, a, b, n):
    x = b
    for i in range(n):
        x = x * a[i]
    return x, b


def divide_by_zero_rows(xp, a, b, n):
    out = xp.zeros_like(a)
    for i in range(n):
        out[i] = a[i] / b[i]
    return out


def _kept_cases():
    rng = np.random.default_rng(9)
    zero_ones = rng.integers(-1, 2, 12).astype(float)
    for n in (4, 9, 10, 11):
        yield swap_rows, (rng.random((12, 3)), n)
        yield row_view_sees_write, (rng.random((12, 3)), np.zeros(12), n)
        yield alias_of_argument, (rng.random(12), n)
        yield reversed_fill, (rng.random(12), n)
        yield negative_step, (rng.random(12).astype(np.float32), n)
        yield overlapping_window_add, (rng.random(16), n)
        yield transposed_rebind, (rng.random((3, 4)), n)
        yield concatenated_view, (rng.random(5), n)
        yield int8_index_promotion, (rng.integers(0, 9, 12).astype(np.int8), n)
        yield masked_halving, (rng.random(12), rng.random(12), n)
        yield starts_as_argument, (rng.random((12, 3)), rng.random(3), n)
        yield divide_by_zero_rows, (zero_ones, zero_ones[::-1].copy(), n)


@pytest.mark.parametrize("kernel,args", list(_kept_cases()),
                         ids=lambda v: getattr(v, "__name__", None) or f"n{v[-1]}")
def test_kernels_that_matched(kernel, args):
    jitted = npjax.jit(kernel, static_argnums=(0, len(args)))
    for _ in range(2):
        np_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        jx_args = [npjax.array(a) if isinstance(a, np.ndarray) else a for a in args]
        with warnings.catch_warnings(record=True) as want_w:
            warnings.simplefilter("always")
            want = _bits(kernel(np, *np_args))
        with warnings.catch_warnings(record=True) as got_w:
            warnings.simplefilter("always")
            got = _bits(jitted(npjax, *jx_args))
        assert got == want
        assert [_bits(a) for a in jx_args] == [_bits(a) for a in np_args]
        assert [(w.category, str(w.message)) for w in got_w] == [
            (w.category, str(w.message)) for w in want_w]


def _equations(jaxpr) -> int:
    """Equations of a jaxpr, those of its sub-jaxprs (calls, loops, branches) included."""
    count = 0
    for eqn in jaxpr.eqns:
        count += 1
        for sub in jax_core.jaxprs_in_params(eqn.params):
            count += _equations(sub)
    return count


@pytest.mark.parametrize("n", [128, 129, 2000, 4096, 5000])
def test_the_program_of_a_masked_sum_stays_small_past_the_pairwise_limit(n):
    # NumPy's pairwise order is emulated for every count up to 4096 elements by a program
    # that grows with the levels of NumPy's recursion only (an earlier emulation grew with
    # the length: 32000 elements took minutes of tracing and 5 GB); past that, XLA's sum
    from tests.test_jit_loops import _traced_program
    a = np.random.default_rng(n).standard_normal(n)
    jitted = npjax.jit(lambda xp, x: x[x > 0].sum(), static_argnums=(0,))
    traced = _traced_program(jitted, npjax, npjax.array(a))
    assert _equations(traced.jaxpr.jaxpr) < 2500
    got = float(jitted(npjax, npjax.array(a)))
    if n <= 4096:
        assert got == a[a > 0].sum()
    np.testing.assert_allclose(got, a[a > 0].sum(), rtol=1e-13)
