"""npjax.jit on code that JAX compiles once rewritten as hand ports are (issue 35, item 5):
``np.histogram`` with a static bin count, a traced integer element as an index, slice bounds
read from an array, ``while`` on a traced condition, builtin ``max``/``min`` of traced 0-d
values, and a store through a masked index array.

Each case runs ``kernel(numpy, ...)`` and ``npjax.jit(kernel)(npjax, ...)`` (twice, so the
compiled program runs too) and compares results (value, dtype, shape), the exception family,
the warnings and the final state of every array argument. ``traced=True`` also asserts the
call ran as the compiled program (no eager rerun after a device-side check); ``traced=False``
that a device-side check failed and the call reran eagerly (NumPy's exception or result).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import npjax
from tests._parity import assert_same_outcome
from tests.test_jit_masks import _count_eager

_JITTED: dict = {}


def _outcome(run, xp, args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            got, exc = run(xp, *args), None
        except Exception as e:  # compared with NumPy's exception
            got, exc = None, e
    return got, exc, [(w.category, str(w.message)) for w in caught]


def check(kernel, *host_args, traced=None, calls=2):
    """NumPy eagerly, then npjax.jit: the same outcome, warnings and final arguments."""
    jitted = _JITTED.get(kernel)
    if jitted is None:
        jitted = _JITTED[kernel] = npjax.jit(kernel, static_argnums=(0,))
    for _ in range(calls):
        np_args = [a.copy() if isinstance(a, np.ndarray) else a for a in host_args]
        expected, np_exc, np_warns = _outcome(kernel, np, np_args)
        args = [npjax.array(a) if isinstance(a, np.ndarray) else a for a in host_args]
        with _count_eager() as runs:
            actual, exc, warns = _outcome(jitted, npjax, args)
        assert_same_outcome(actual, exc, expected, np_exc, args, np_args)
        if exc is not None:
            assert type(exc) is type(np_exc), (exc, np_exc)
        assert warns == np_warns
        if traced is not None:
            assert bool(runs) is not traced, f"eager reruns: {len(runs)}"
    return jitted


def _grid():
    return np.arange(12.0).reshape(3, 4)


# --- a traced integer element as an index -----------------------------------------------------


def element_index(xp, G, idx):
    G[1, idx[2]] = 7.0
    G[idx[1], idx[2]] += 1
    r = G[idx[0]]  # a view at a traced row: writes through it reach G
    r[1] = -5.0
    return G[1, idx[2]] * 2, G[-1, idx[2]] + G[idx[1]].sum()


def test_traced_element_index():
    check(element_index, _grid(), np.array([2, -1, 3]), traced=True)
    check(element_index, _grid(), np.array([0, 1, -4], dtype=np.int32), traced=True)


def test_traced_element_index_out_of_bounds():
    check(element_index, _grid(), np.array([2, 3, 3]), traced=False)
    check(element_index, _grid(), np.array([2, 1, -5]), traced=False)
    check(element_index, _grid(), np.array([2, 1, 4], dtype=np.uint8), traced=False)


def element_index_loop(xp, a, idx):
    for i in range(8):
        a[idx[1]] = a[idx[0]] + i
    return a


def test_traced_element_index_in_loop():
    check(element_index_loop, np.arange(5.0), np.array([1, 3]), traced=True)


# --- slice bounds read from an array ------------------------------------------------------------


def static_length_slices(xp, a, idx):
    s = idx[0] - 1
    a[1, s:2 + s + 1] = 0.0  # (the bounds: one value plus Python ints)
    empty = a[idx[0]:idx[0]]
    return a[1, idx[0]:idx[0] + 3] * 2, a[0, s:s + 3].sum(), empty


def test_static_length_slice_bounds():
    check(static_length_slices, np.arange(12.0).reshape(2, 6), np.array([2, 0]), traced=True)
    check(static_length_slices, np.arange(12.0).reshape(2, 6), np.array([1, 0]), traced=True)


def test_static_length_slice_clamped_reruns():
    # NumPy clamps (a shorter slice) or reads from the end (a negative start): the program's
    # check fails and the call reruns eagerly, which gives NumPy's slice.
    check(static_length_slices, np.arange(12.0).reshape(2, 6), np.array([5, 0]), traced=False)
    check(static_length_slices, np.arange(12.0).reshape(2, 6), np.array([0, 0]), traced=False)
    check(static_length_slices, np.arange(12.0).reshape(2, 6), np.array([-2, 0]),
          traced=False)


def windows_in_loop(xp, a, idx, out):
    for i in range(6):
        out[i] = a[idx[i]:idx[i] + 3].sum()
    return out


def test_static_length_slice_in_rolled_loop():
    a = np.arange(20.0)
    check(windows_in_loop, a, np.array([0, 5, 2, 17, 9, 11]), np.zeros(6), traced=True)
    check(windows_in_loop, a, np.array([0, 5, 2, 18, 9, 11]), np.zeros(6), traced=False)


def two_bounds(xp, a, idx):
    return a[idx[1]:idx[0]]


def open_bound(xp, a, idx):
    return a[:idx[0]].sum()


def written_between(xp, a, idx):
    s = idx[0]
    idx[0] = 1
    return a[s:idx[0] + 2]


@pytest.mark.parametrize("kernel", [two_bounds, open_bound, written_between])
def test_value_dependent_slice_length_refused(kernel):
    # The length depends on the values: a clear JitError naming the line and why.
    with pytest.raises(npjax.JitError, match="slice.*depends on"):
        npjax.jit(kernel, static_argnums=(0,))(npjax, npjax.arange(12.0),
                                               npjax.array([7, 2]))
    assert_fallback_same(kernel, np.arange(12.0), np.array([7, 2]))


def assert_fallback_same(kernel, *host_args):
    """With ``fallback="eager"`` a refused call gives NumPy's outcome."""
    np_args = [a.copy() for a in host_args]
    expected, np_exc, np_warns = _outcome(kernel, np, np_args)
    args = [npjax.array(a) for a in host_args]
    jitted = npjax.jit(kernel, static_argnums=(0,), fallback="eager")
    actual, exc, warns = _outcome(jitted, npjax, args)
    assert_same_outcome(actual, exc, expected, np_exc, args, np_args)
    assert warns == np_warns


# --- a store through a masked index array ---------------------------------------------------


def masked_scatter(xp, N, xi, mask):
    N[xi[mask]] = 1
    return N


def masked_scatter_2d(xp, N, xi, mask, row):
    N[xi[mask], :] = row
    N[:, xi[xi > 1]] = -1.5
    return N, N[xi[mask]].sum(), xp.max(N[xi[mask]] * 2)


def masked_count_needed(xp, N, xi, mask, v):
    N[xi[mask]] = v[mask]
    return N


def masked_update(xp, N, xi, mask, v):
    N[xi[mask]] += 1  # (duplicates: NumPy's last write of values read before)
    return N


_XI = np.array([1, 3, -1, 3, 0, 5])


def test_masked_scatter():
    for mask in ([True, False, True, True, False, True], [False] * 6, [True] * 6):
        check(masked_scatter, np.zeros(6), _XI, np.array(mask), traced=True)
    check(masked_scatter, np.zeros(6, np.uint8), _XI.astype(np.int32),
          np.array([True, True, False, True, True, False]), traced=True)


def test_masked_scatter_out_of_bounds():
    xi = np.array([1, 9, 2])
    check(masked_scatter, np.zeros(6), xi, np.array([True, True, False]), traced=False)
    check(masked_scatter, np.zeros(6), xi, np.array([True, False, True]), traced=True)


def test_masked_scatter_2d():
    N = np.arange(36.0).reshape(6, 6)
    check(masked_scatter_2d, N, _XI, np.array([True, False, True, True, False, True]),
          np.arange(6.0), traced=True)


def test_masked_scatter_count_needed():
    with pytest.raises(npjax.JitError, match="x\\[mask\\]"):
        npjax.jit(masked_count_needed, static_argnums=(0,))(
            npjax, npjax.zeros(6), npjax.array(_XI), npjax.array(_XI > 1), npjax.ones(6))
    assert_fallback_same(masked_count_needed, np.zeros(6), _XI, _XI > 1, np.arange(6.0))
    with pytest.raises(npjax.JitError, match="x\\[mask\\]"):
        npjax.jit(masked_update, static_argnums=(0,))(
            npjax, npjax.zeros(6), npjax.array(_XI), npjax.array(_XI > 1), npjax.ones(6))


# --- builtin max/min of traced 0-d values ----------------------------------------------------


def builtin_max_min(xp, a, b):
    hi = max(a[0], b[0])
    lo = min(a[1], b[1], a[2])
    return hi, lo, max(b[2], a[2]) * 2, min(a.sum(), b.sum())


def builtin_mixed(xp, x, n):
    return min(x.sum(), 3.0), max(n[0], 2), max(x[0], n[0])


def builtin_running_max(xp, a):
    m = a[0]
    for i in range(1, 8):
        m = max(m, a[i])
    return m


def test_builtin_max_min():
    a = np.array([1.0, 5.0, 2.0])
    b = np.array([3.0, 2.0, 2.0])
    check(builtin_max_min, a, b, traced=True)
    check(builtin_max_min, b, a, traced=True)
    i = np.array([4, -1, 7])
    check(builtin_max_min, i, i[::-1].copy(), traced=True)


def test_builtin_max_min_nan():
    # Python's max keeps the first argument where no comparison is true: NaN first stays,
    # NaN later is never picked. (A NaN result reruns eagerly wherever it appears: the
    # error-state check of npjax.jit sees a non-finite value; the rerun gives NumPy's.)
    nan = np.nan
    check(builtin_max_min, np.array([nan, 5.0, nan]), np.array([3.0, nan, 1.0]))
    check(builtin_max_min, np.array([3.0, nan, 1.0]), np.array([nan, 5.0, nan]))


def test_builtin_max_min_other_kinds():
    # An argument of another type than the first traced one (a Python number, an int
    # scalar beside a float one) reruns eagerly when Python picks it: NumPy's object.
    check(builtin_mixed, np.array([5.5, -3.0]), np.array([5, 1]), traced=True)
    check(builtin_mixed, np.array([5.5, 1.0]), np.array([5, 1]), traced=False)  # 3.0
    check(builtin_mixed, np.array([5.5, -3.0]), np.array([1, 1]), traced=False)  # 2
    check(builtin_mixed, np.array([0.5, 1.0]), np.array([5, 1]), traced=False)  # n[0]


def test_builtin_running_max_in_loop():
    check(builtin_running_max, np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]), traced=True)
    check(builtin_running_max, np.array([3.0, np.nan, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]))
    check(builtin_running_max, np.array([np.nan, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]))


# --- np.histogram with a static bin count -----------------------------------------------------


def hist4(xp, x):
    return xp.histogram(x, 4)


def hist_kwargs(xp, x):
    n, e = xp.histogram(x, bins=7)
    return n, e, xp.histogram(x, bins=5, range=(0.0, 1.0))


def hist_density(xp, x, w):
    return xp.histogram(x, 6, density=True), xp.histogram(x, bins=3, weights=w)


def hist_edges(xp, x, edges):
    return xp.histogram(x, edges), xp.histogram_bin_edges(x, 9)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.int32,
                                   np.uint8, np.int8])
def test_histogram_static_bins(dtype):
    rng = np.random.default_rng(1)
    for scale in (1.0, 1e-3, 100.0):
        x = (rng.standard_normal(50) * scale * (100 if dtype in (np.int64, np.int32) else 1))
        if np.dtype(dtype).kind == "u":
            x = np.abs(x) * 40
        elif np.dtype(dtype).kind == "i":
            x = x * 20
        check(hist4, x.astype(dtype), traced=True)
        check(hist_kwargs, x.astype(dtype), traced=True)


def test_histogram_edge_cases():
    check(hist4, np.full(5, 3.0), traced=True)  # equal min and max: widened by 0.5
    check(hist4, np.full(5, 7, np.int64), traced=True)
    check(hist4, np.array([-2 ** 62, 2 ** 62, 0], np.int64), traced=True)  # wide ints
    # NumPy's warning of bool data is raised while tracing: such calls run eagerly
    # (npjax.jit's rule for warnings of the trace), NumPy's warning and result
    check(hist4, np.array([True, False, True]), traced=False)
    check(hist4, np.array([1.0, np.nan]))  # NumPy's ValueError (rerun eagerly)
    check(hist4, np.array([1.0, np.inf]))
    check(hist4, np.array([-60000.0, 60000.0], np.float16))  # NumPy's overflow warnings
    check(hist4, np.array([0.0, 1e-4], np.float16))  # float16 subnormal edges: rerun
    check(hist_kwargs, np.array([0.5, 2.0, -1.0, 1.0]), traced=True)  # out of range


def test_histogram_density_weights_edges():
    rng = np.random.default_rng(2)
    x = rng.random(40)
    check(hist_density, x, rng.random(40), traced=True)
    check(hist_edges, x, np.array([0.0, 0.2, 0.5, 1.0]), traced=True)
    check(hist_edges, x, np.array([0.0, 0.6, 0.5, 1.0]), traced=False)  # not monotonic


def hist_in_loop(xp, xs):
    out = xp.zeros((xs.shape[0], 4), dtype=xp.int64)
    for i in range(xs.shape[0]):
        out[i] = xp.histogram(xs[i], 4)[0]
    return out


def test_histogram_in_rolled_loop():
    check(hist_in_loop, np.random.default_rng(3).random((6, 30)), traced=True)


# --- while loops on a traced condition ---------------------------------------------------------


def while_rebind(xp, x):
    while x.sum() < 100:
        x = x * 2
    x[0] = -1.0  # (no iteration: x is the argument, written here)
    return x


def while_newton(xp, x, b):
    err = 1.0  # a Python number first: the first test runs as written
    while err > 1e-8:
        x_new = 0.5 * (x + b / x)
        err = xp.abs(x_new - x).max()
        x = x_new
    return x, err


def while_in_place(xp, a, out):
    while a[0] < 50:
        a[0] += a[1]
        a[1:] *= 1.5
        out += a
    return a[2] * 2


def while_nested(xp, x):
    y = xp.zeros_like(x)
    for i in range(5):
        while x[i] < 10 * (i + 1):
            x[i] = x[i] * 1.5 + 1
        y[i] = x.sum()
    return y


def while_loop_inside(xp, x):
    while x.max() < 1000.0:
        for i in range(1, x.shape[0]):
            x[i] = x[i] + x[i - 1]
    return x


def _relax(xp, u, tol):
    delta = xp.abs(u).max()
    while delta > tol:  # in a function of the user's the kernel calls
        new = 0.5 * (xp.roll(u, 1) + xp.roll(u, -1))
        delta = xp.abs(new - u).max()
        u = new
    return u


def while_in_callee(xp, u):
    return _relax(xp, u, 1e-3) * 2


def while_overflow(xp, x):
    while x.max() < 1e308:
        x = x * 1e10
    return x


def test_while_traced_condition():
    check(while_rebind, np.arange(1.0, 4.0), traced=True)
    check(while_rebind, np.arange(100.0, 104.0), traced=False)  # no iteration: eagerly
    check(while_newton, np.array([1.0, 3.0, 10.0]), np.array([2.0, 9.0, 50.0]), traced=True)
    check(while_in_place, np.array([1.0, 2.0, 3.0]), np.zeros(3), traced=True)
    check(while_nested, np.array([1.0, 30.0, 2.0, 0.5, 100.0]), traced=True)
    check(while_loop_inside, np.array([1.0, 0.5, 0.25, 2.0]), traced=True)
    check(while_in_callee, np.array([1.0, 0.0, 3.0, 0.0, 2.0]), traced=True)


def while_index_error(xp, x):
    while x.sum() < 100:
        x = x * 2
        x[5] = 1.0  # NumPy's IndexError at the first iteration
    return x


def test_while_warnings_and_exceptions():
    check(while_overflow, np.array([1.0, -2.0]), traced=False)  # NumPy's overflow warning
    check(while_index_error, np.arange(3.0))
    check(while_newton, np.array([1.0, 0.0]), np.array([2.0, 1.0]), traced=False)


def while_counter(xp, x):
    n = 0
    while x.sum() < 100:
        x = x * 2
        n += 1  # a Python int: its value would depend on the traced trip count
    return x, n


def while_scratch(xp, x):
    while x.sum() < 100:
        t = x * 2
        x = t
    return t  # bound or not depends on the trip count


def while_side_effect(xp, x):
    seen = []
    while x.sum() < 100:
        x = x * 2
        seen.append(1)  # a Python side effect per iteration
    return x, len(seen)


def while_branch(xp, x):
    while x.sum() < 100:
        if x[0] > 5:  # a value-dependent if: refused, as anywhere
            x = x + 1
        x = x * 2
    return x


@pytest.mark.parametrize("kernel,why", [
    (while_counter, "'n' holds a Python number"), (while_scratch, "'t'"),
    (while_side_effect, "append"), (while_branch, "Tracer")])
def test_while_refused(kernel, why):
    with pytest.raises(npjax.JitError, match=why):
        npjax.jit(kernel, static_argnums=(0,))(npjax, npjax.arange(1.0, 4.0))
    assert_fallback_same(kernel, np.arange(1.0, 4.0))


def test_while_concrete_condition_runs_as_written():
    # a test on Python values: iterated while tracing, as Python does
    def halve(xp, x, n):
        while n > 1:
            x = x / 2
            n //= 2
        return x
    check(halve, np.arange(3.0), 8, traced=True)


# --- npjax.autojit: these compile; a value-dependent if still runs as written ---------------


def auto_kernel(xp, x, idx, N, mask):
    counts, edges = xp.histogram(x, 4)
    while x.sum() < 100:
        x = x * 2
    N[idx[mask]] = 1
    return counts, edges, max(x[0], x[1]), x[idx[0]:idx[0] + 2], N[1, idx[2]]


def auto_branchy(xp, x):
    while x.sum() < 100:
        if x[0] > 5:
            x = x + 1
        x = x * 2
    return x


def test_autojit_compiles_them(autojit_hot):
    f = npjax.autojit(auto_kernel)
    rng = np.random.default_rng(4)
    for _ in range(4):
        x = rng.random(8) + 0.5
        host = (x, np.array([1, 3, 2]), np.zeros((3, 4)), np.array([True, False, True]))
        np_args = [a.copy() for a in host]
        want = auto_kernel(np, *np_args)
        args = [npjax.array(a) for a in host]
        got = f(npjax, *args)
        assert_same_outcome(got, None, want, None, args, np_args)
    auto = npjax.stats()["autojit"]
    assert auto["refused"] == [] and len(auto["compiled"]) == 1


def test_autojit_value_dependent_if_runs_as_written(autojit_hot):
    f = npjax.autojit(auto_branchy)
    for k in range(4):
        x = np.arange(1.0, 4.0) + k
        want = auto_branchy(np, x.copy())
        assert_same_outcome(f(npjax, npjax.array(x)), None, want, None, [], [])
    refused = npjax.stats()["autojit"]["refused"]
    assert len(refused) == 1 and refused[0]["reason"].startswith("cannot trace")
