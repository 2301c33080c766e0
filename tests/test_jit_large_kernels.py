"""What npjax.jit's programs cost at the large benchmark preset, read from their compiled HLO
(no wall time is asserted): the -0.0 that rounds products is not written out as an array, the
mean of a mask is counted in the loop that makes the mask, and a store into a moving slice
copies no array. Values are NumPy's, bit for bit where they were."""

from __future__ import annotations

import re

import numpy
import pytest

import npjax
from benchmarks.kernels import cholesky as _cholesky
from benchmarks.kernels.monte_carlo import kernel as _price_and_pi
from tests.test_jit_loops import _traced_program, check


def _inputs(n, seed=0):
    rng = numpy.random.default_rng(seed)
    return rng.standard_normal(n), rng.random(n), rng.random(n)


def _device(host):
    with npjax.policy(placement="device"):
        return [npjax.asarray(a) for a in host]


def _optimized_hlo(fn, *host):
    jitted = npjax.jit(fn, static_argnums=0)
    return _traced_program(jitted, npjax, *_device(host)).lower().compile().as_text()


def _full_arrays(text, n, dtype="f64"):
    """The fusions of the entry computation that write an array of ``n`` elements."""
    entry = text[text.index("ENTRY"):]
    return re.findall(rf"= {dtype}\[{n}\]\{{0\}} fusion\(", entry)


N = 20_000


def test_monte_carlo_matches_numpy_bitwise():
    host = _inputs(N)
    want = _price_and_pi(numpy, *host)
    got = npjax.jit(_price_and_pi, static_argnums=0)(npjax, *_device(host))
    assert got.dtype == want.dtype
    assert numpy.asarray(got)[1].tobytes() == want[1].tobytes()  # the count: exact
    numpy.testing.assert_allclose(numpy.asarray(got), want, rtol=1e-12)


def test_product_zero_is_not_written_out():
    # One shared -0.0 was broadcast once for every product of the program; that broadcast
    # fed the YNN reduction of the price and the kernels of pi, and XLA wrote it out as an
    # array of N float64 that the reduction read back. No float64 array of N elements is
    # written now (the mask of pi is counted where it is made, see below).
    text = _optimized_hlo(_price_and_pi, *_inputs(N))
    assert "wrapped_broadcast" not in text
    assert _full_arrays(text, N) == []


def _zero_products(fn, *host):
    """How many multiplications of the program's -0.0 (its last input) ``fn`` traces to."""
    jitted = npjax.jit(fn, static_argnums=0)
    jaxpr = _traced_program(jitted, npjax, *_device(host)).jaxpr.jaxpr
    zero = jaxpr.invars[-1]
    got, want = jitted(npjax, *_device(host)), fn(numpy, *host)
    for g, w in zip(got, want):
        assert numpy.asarray(g).tobytes() == numpy.asarray(w).tobytes()
    return len([e for e in jaxpr.eqns if e.primitive.name == "mul" and zero in e.invars])


def _products(np, a, b):
    return (a * b).sum(), (a * a + b * b <= 1.0).mean()


def test_each_rounded_product_of_arrays_has_its_own_zero():
    assert _zero_products(_products, *_inputs(2048)[1:]) == 3  # a * b, a * a, b * b


def test_small_products_share_the_zero():
    # (no kernel computing a zero per scalar product: they cannot be written out large)
    assert _zero_products(_products, *_inputs(8)[1:]) == 0


def test_mean_of_a_mask_is_counted_in_one_pass():
    # (u*u + v*v <= 1).mean() was the mask widened to float64, written out, and summed by
    # a second kernel; counted as integers it is one kernel reading u and v.
    def pi(np, u, v):
        return (u * u + v * v <= 1.0).mean()

    host = _inputs(N)[1:]
    with npjax.errstate(all="ignore"):  # (the check of u*u + v*v reads u, v once more)
        text = _optimized_hlo(pi, *host)
    assert _full_arrays(text, N) == []
    assert _full_arrays(text, N, "pred") == []


@pytest.mark.parametrize("dtype", [None, numpy.float64, numpy.float32, numpy.float16])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2)])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_float_sums_of_booleans_match_numpy(dtype, axis, mode):
    rng = numpy.random.default_rng(1)
    mask = rng.random((40, 3, 70)) < 0.3

    def means(np, m):
        return m.mean(axis=axis, dtype=dtype), m.sum(axis=axis, dtype=dtype or np.float64)

    want = means(numpy, mask)
    if mode == "jit":
        got = npjax.jit(means, static_argnums=0)(npjax, npjax.asarray(mask))
    else:
        got = means(npjax, npjax.asarray(mask))
    for g, w in zip(got, want):
        g = numpy.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()


def test_float16_sum_of_many_booleans_matches_numpy():
    # past 2048 a float16 sum is not the count (it rounds): NumPy's order, not a count
    mask = numpy.ones(5000, bool)
    want = mask.sum(dtype=numpy.float16)
    got = numpy.asarray(npjax.asarray(mask).sum(dtype=numpy.float16))
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


# --- stores into moving slices: scattered, not selected into the old part ---------------


def _column_after_element(xp, a):
    # cholesky's pattern: an element of column j, then the rest of column j below it
    for j in range(a.shape[1]):
        a[j, j] = a[j, j] * 2.0 + 1.0
        a[j + 1:, j] = a[j + 1:, j] / a[j, j]
    return a


def _row_window(xp, a):
    for j in range(a.shape[0]):
        a[j, j + 1:] = a[j, j + 1:] - a[j, j]
    return a


def _corner_window(xp, a):
    for j in range(a.shape[0] - 1):
        a[j + 1:, j + 1:] = a[j + 1:, j + 1:] * 0.5 + a[j, j]
    return a


def _scalar_into_window(xp, a):
    for j in range(a.shape[1]):
        a[j + 1:, j] = 0.0
    return a


def _float_into_int_window(xp, a):
    for j in range(a.shape[1]):
        a[:j, j] = 2.7
    return a


def _window_of_3d(xp, a):
    for j in range(a.shape[2]):
        a[1, j + 1:, j] = a[1, j + 1:, j] + a[0, j, j]
    return a


def _window_of_a_view(xp, a):
    v = a[1:]
    for j in range(v.shape[1]):
        v[j + 1:, j] = v[j + 1:, j] * 3.0
    return a


def _padding_not_finite(xp, a):
    # 1 / a[j+1:, j] where the rows above hold zeros: the padding of the computed window is
    # inf, which no NumPy value holds; only the stored elements are checked (no rerun)
    for j in range(a.shape[1]):
        a[j + 1:, j] = 1.0 / a[j + 1:, j]
    return a


def _overflow_in_window(xp, a):
    for j in range(a.shape[1]):
        a[j + 1:, j] = a[j + 1:, j] * 1e308
    return a


def _lower(n, seed=3):
    return numpy.tril(numpy.random.default_rng(seed).random((n, n)) + 0.5)


@pytest.mark.parametrize("kernel, host, traced", [
    (_column_after_element, lambda: numpy.random.default_rng(0).random((7, 7)), True),
    (_row_window, lambda: numpy.random.default_rng(1).random((6, 6)), True),
    (_corner_window, lambda: numpy.random.default_rng(2).random((5, 5)), True),
    (_scalar_into_window, lambda: numpy.random.default_rng(3).random((6, 4)), True),
    (_float_into_int_window, lambda: numpy.arange(30).reshape(5, 6), True),
    (_window_of_3d, lambda: numpy.random.default_rng(4).random((2, 6, 5)), True),
    (_window_of_a_view, lambda: numpy.random.default_rng(5).random((7, 6)), True),
    (_padding_not_finite, lambda: _lower(6), True),
    (_overflow_in_window, lambda: numpy.random.default_rng(6).random((5, 5)) + 1.0, None),
])
def test_stores_into_moving_slices_match_numpy(kernel, host, traced):
    check(kernel, host(), rolled=True, traced=traced)


def _loop_body(text):
    """The optimized HLO of the body of the program's (one) while loop."""
    body = re.search(r"body=%([\w.\-]+)", text).group(1)
    start = text.index(f"%{body} ")
    return text[start:text.index("\n}\n", start)]


def test_cholesky_loop_copies_no_matrix():
    # ``L[j, j] = ...`` then ``L[j + 1:, j] = ...``: the second store read column j's old
    # value, XLA fused that read with the first store (reading L as it was before it), and
    # copied L twice per iteration; scattered, the column's old value is not read.
    n = 48
    a = _cholesky.setup(numpy.random.default_rng(0), n)[0]
    text = _optimized_hlo(_cholesky.kernel, a)
    assert not re.findall(rf"f64\[{n},{n}\]\S* copy\(", _loop_body(text))
    jitted = check(_cholesky.kernel, a, rolled=True)
    numpy.testing.assert_allclose(numpy.asarray(jitted(npjax, npjax.asarray(a))),
                                  _cholesky.kernel(numpy, a), rtol=1e-13)
