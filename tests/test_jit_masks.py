"""npjax.jit on mask reads of traced values (issue 17, item 1): ``x[m]`` used elementwise,
written back under the same mask, or reduced, against NumPy run eagerly on the same inputs.

Each case runs ``kernel(numpy, ...)`` and ``npjax.jit(kernel)(npjax, ...)`` (twice, so the
compiled program runs too) and compares results, dtypes, shapes, exception families and the
final state of every array argument. ``traced=True`` also asserts that the call ran as the
compiled program (no eager rerun after a device-side check).
"""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import npjax
from npjax._compile._jit import Jitted
from tests._parity import assert_same, assert_same_outcome
from tests.strategies import elements

_JITTED: dict = {}


@contextlib.contextmanager
def _count_eager():
    """Count the eager runs of jitted calls (device-side checks that failed)."""
    runs = []
    original = Jitted._eager

    def spy(self, args, kwargs):
        runs.append(1)
        return original(self, args, kwargs)

    Jitted._eager = spy
    try:
        yield runs
    finally:
        Jitted._eager = original


def _outcome(run, xp, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return run(xp, *args), None
    except Exception as exc:  # compared with NumPy's exception below
        return None, exc


def check(kernel, *host_args, static=(), traced=None, calls=2):
    """NumPy eagerly, then npjax.jit: same outcome and same final arguments. ``traced``:
    True asserts no eager rerun, False asserts one (a device-side check failed)."""
    key = (kernel.__code__, static)
    jitted = _JITTED.get(key)
    if jitted is None:
        jitted = _JITTED[key] = npjax.jit(kernel, static_argnums=(0, *[i + 1 for i in static]))
    for runs, _ in compare_calls(jitted, kernel, host_args, calls):
        if traced is not None:
            assert bool(runs) is not traced, f"eager reruns: {len(runs)}"
    return jitted


def compare_calls(jitted, kernel, host_args, calls):
    """``kernel`` run by NumPy, then ``jitted`` by npjax, ``calls`` times: the same outcome
    and final arguments each time; yields each call's eager reruns and NumPy's exception."""
    for _ in range(calls):
        np_args = [a.copy() if isinstance(a, np.ndarray) else a for a in host_args]
        expected, np_exc = _outcome(kernel, np, np_args)
        args = [npjax.array(a) if isinstance(a, np.ndarray) else a for a in host_args]
        with _count_eager() as runs:
            actual, exc = _outcome(jitted, npjax, args)
        assert_same_outcome(actual, exc, expected, np_exc, args, np_args)
        yield runs, np_exc


# --- the kernels of issue 17 ------------------------------------------------------------------


def floor_std(xp, stddev):
    stddev[stddev <= 0.1] = 1.0
    return stddev.sum()


def inv_cube(xp, inv_r3):
    inv_r3[inv_r3 > 0] = inv_r3[inv_r3 > 0] ** -1.5
    return inv_r3


def read_modify_write(xp, x, m):
    x[m] = x[m] * 2 + 1
    x[m] += 1
    x[m] -= x[m] // 3
    return x


def float_rmw(xp, x, m, alpha):
    x[m] = alpha * x[m] + xp.sqrt(xp.abs(x[m]))
    x[m] **= 2
    x[m] /= 2
    return x


def reductions(xp, x, m):
    pos = x > 0
    return (xp.sum(x[pos]), x[pos].mean(), x[m].max(), x[m].min(), xp.max(x[m]),
            x[m].argmax(), xp.argmin(x[m]), x[m].any(), xp.all(x[m] > 0), x[m].prod(),
            xp.count_nonzero(x[m] > 0))


def test_stddev_floor():
    rng = np.random.default_rng(0)
    check(floor_std, rng.random((6, 5)), traced=True)


def test_inverse_cube_distances():
    rng = np.random.default_rng(1)
    r = rng.random((5, 5)) * 3
    np.fill_diagonal(r, 0.0)  # the self-distances: not selected
    r[0, 1] = -2.0
    check(inv_cube, r, traced=True)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.float64, np.float32])
def test_read_modify_write(dtype):
    rng = np.random.default_rng(2)
    x = rng.integers(0, 50, (4, 6)).astype(dtype)
    check(read_modify_write, x, rng.random((4, 6)) > 0.5, traced=True)
    check(read_modify_write, x, np.ones((4, 6), bool), traced=True)
    check(read_modify_write, x, np.zeros((4, 6), bool), traced=True)
    check(read_modify_write, x, rng.random(4) > 0.5, traced=True)  # leading axis only


def test_float_read_modify_write_with_a_traced_scalar():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4))
    for alpha in (np.float64(0.5), np.asarray(2.5)):
        check(float_rmw, x, rng.random((3, 4)) > 0.3, alpha, traced=True)


def test_inplace_cast_error_is_numpy_s():
    # int_x[m] += 1.5: NumPy's same-kind cast of the read copy raises (UFuncTypeError)
    def k(xp, x, m):
        x[m] += 1.5
        return x
    check(k, np.arange(6), np.arange(6) > 2, calls=1)


def test_masked_reductions():
    rng = np.random.default_rng(4)
    x = rng.standard_normal(12)
    check(reductions, x, rng.random(12) > 0.5, traced=True)
    check(reductions, x, np.ones(12, bool), traced=True)
    x2 = rng.integers(-5, 5, (4, 3))
    check(reductions, x2, rng.random((4, 3)) > 0.5, traced=True)


def axis_reductions(xp, x, m, name, axis, keepdims):
    r = getattr(x[m], name)(axis=axis, keepdims=keepdims)
    if axis is not None and 0 not in np.atleast_1d(axis) and -x[m].ndim not in \
            np.atleast_1d(axis):
        x[m] = r.astype(x.dtype) if keepdims else x[m]  # still masked: written back
        return x.sum()
    return r


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min", "any", "all", "std",
                                  "var", "argmax", "argmin"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
def test_reductions_along_axes(name, axis):
    if name.startswith("arg") and isinstance(axis, tuple):
        return
    rng = np.random.default_rng(5)
    x = rng.standard_normal((5, 3, 2)).round(1)
    m = rng.random(5) > 0.4
    for keepdims in (False, True):
        if name.startswith("arg") and keepdims and axis is None:
            continue
        check(axis_reductions, x, m, name, axis, keepdims, static=(2, 3, 4), traced=True)
    m2 = rng.random((5, 3)) > 0.4  # a mask over two axes
    check(axis_reductions, x, m2, name, axis, False, static=(2, 3, 4), traced=True)


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin", "mean", "std"])
def test_empty_selection_is_a_device_check(name):
    # max/argmax of nothing: ValueError; mean/std: nan with RuntimeWarnings (eager rerun)
    def k(xp, x, m, name):
        return getattr(x[m], name)()
    x = np.arange(5.0)
    check(k, x, x > 1, name, static=(2,), traced=True)
    check(k, x, x > 10, name, static=(2,), traced=False, calls=1)


def test_mean_of_empty_warns_at_the_user_line():
    f = npjax.jit(lambda x: x[x > 10].mean())
    x = npjax.arange(4.0)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        r = f(x)
    assert np.isnan(float(r))
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        np.arange(4.0)[np.arange(4.0) > 10].mean()
    assert [w.category for w in seen] == [w.category for w in want]


def test_max_of_empty_raises_value_error():
    f = npjax.jit(lambda x: x[x > 10].max())
    assert float(f(npjax.arange(20.0))) == 19.0
    with pytest.raises(ValueError, match="zero-size array"):
        f(npjax.arange(4.0))


def test_nan_in_selection_and_outside():
    x = np.array([np.nan, 1.0, 3.0, np.nan, -2.0, 0.5])
    for m in (np.array([0, 1, 1, 0, 1, 1], bool), np.array([1, 1, 0, 0, 1, 0], bool)):
        check(reductions, x, m)
        check(read_modify_write, x, m)


def pair_masks(xp, x, y):
    x[x > 0] = y[x > 0] * 2  # two traced masks, equal: checked on the device
    y[y < 0] = x[x < 0]  # different masks: NumPy pairs by order (or raises): eager rerun
    return x, y


def test_masks_are_compared_on_the_device():
    check(pair_masks, np.array([1.0, -1, 2, -3]), np.array([-5.0, 6, -7, 8]), traced=False)
    check(pair_masks, np.array([1.0, -1, 2, -3]), np.array([-5.0, 6, -7, -8]), traced=False)

    def same(xp, x, y):
        x[x > 0] = y[x > 0] * 2
        return x
    check(same, np.array([1.0, -1, 2, -3]), np.array([-5.0, 6, -7, 8]), traced=True)


def elementwise_functions(xp, x, m):
    s = xp.where(x[m] > 0, x[m], 0.0).sum()
    x[m] = xp.clip(x[m], -1, 1)
    return s, x, xp.sum(xp.round(x[m] * 10)), (x[m] == 1).sum()


def test_elementwise_functions():
    rng = np.random.default_rng(6)
    check(elementwise_functions, rng.standard_normal(8) * 3, rng.random(8) > 0.5,
          traced=True)


def rows(xp, x, m, row):
    x[m] = x[m] + row  # a row broadcasts along the trailing axes: no count involved
    return (x[m] * row[None]).sum(axis=0)


def test_broadcasting_trailing_axes():
    rng = np.random.default_rng(7)
    check(rows, rng.standard_normal((5, 3)), rng.random(5) > 0.5, np.arange(3.0),
          traced=True)


# --- what still needs the count: JitError, and fallback="eager" -----------------------------


@pytest.mark.parametrize("body", [
    lambda x: x[x > 0].shape,
    lambda x: len(x[x > 0]),
    lambda x: print(x[x > 0]),
    lambda x: npjax.concatenate([x[x > 0], x]),
    lambda x: x[x > 0],
    lambda x: x[x > 0] + x,
    lambda x: float(x[x > 0].sum()) + 1,
    lambda x: x[x > 0][0],
])
def test_what_needs_the_count_raises_jit_error(body):
    f = npjax.jit(body)
    with pytest.raises(npjax.JitError, match=r"test_jit_masks\.py:\d+"):
        f(npjax.arange(-2.0, 3.0))
    g = npjax.jit(body, fallback="eager")  # runs eagerly: the same outcome as eager code
    with contextlib.redirect_stdout(io.StringIO()):
        got, exc = _outcome(lambda xp, a: g(a), npjax, [npjax.arange(-2.0, 3.0)])
        want, want_exc = _outcome(lambda xp, a: body(a), npjax, [npjax.arange(-2.0, 3.0)])
    assert (exc is None) == (want_exc is None), (exc, want_exc)
    if isinstance(want, npjax.ndarray):
        assert_same(got, np.asarray(want))
    elif want_exc is None:
        assert got == want


# --- one program for every count --------------------------------------------------------------


def test_one_program_for_every_count():
    f = npjax.jit(read_modify_write, static_argnums=0)
    rng = np.random.default_rng(8)
    npjax.reset_stats()
    counts = set()
    for k in range(6):
        m = rng.random(32) < k / 5
        counts.add(int(m.sum()))
        x = rng.integers(0, 9, 32)
        want = read_modify_write(np, x.copy(), m)
        assert_same(f(npjax, npjax.asarray(x), npjax.asarray(m)), want)
    assert len(counts) >= 4
    assert f._cache_size() == 1
    compiles = npjax.stats()["compiles"]["by_function"]
    assert compiles.get("jit(traced)", 0) <= 1, compiles


# --- Hypothesis ---------------------------------------------------------------------------------


_FLOATS = [np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.int64), np.dtype(np.int16),
           np.dtype(np.uint8), np.dtype(np.bool_), np.dtype(np.complex128)]


@st.composite
def _masked_case(draw, bounded):
    dtype = draw(st.sampled_from(_FLOATS))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5))
    kw = {}
    if bounded and dtype.kind in "fiu":
        kw = {"min_value": -100, "max_value": 100} if dtype.kind != "u" else {"max_value": 100}
        if dtype.kind == "f":
            kw.update(allow_nan=False, allow_infinity=False)
    elif bounded and dtype.kind == "c":
        kw = {"allow_nan": False, "allow_infinity": False, "max_magnitude": 100}
    x = draw(hnp.arrays(dtype, shape, elements=elements(dtype, **kw)))
    nm = draw(st.integers(1, len(shape)))
    kind = draw(st.sampled_from(["random", "all", "none"]))
    if kind == "random":
        m = draw(hnp.arrays(np.bool_, shape[:nm]))
    else:
        m = np.full(shape[:nm], kind == "all")
    return x, m


def exact_reductions(xp, x, m):
    out = [x[m].any(), x[m].all(), (x[m] != 0).sum()]
    if x.dtype.kind != "c":
        out += [x[m].max(), x[m].min(axis=0), x[m].argmax(), x[m].argmin(axis=0)]
    return tuple(out)


def rounded_reductions(xp, x, m):
    out = [x[m].sum(), x[m].sum(axis=0), x[m].mean()]
    if x.dtype.kind != "b":
        out += [x[m].std(), x[m].var(axis=0, ddof=1)]
    return tuple(out)


def hyp_rmw(xp, x, m):
    if x.dtype.kind == "b":
        x[m] = ~x[m]
    else:
        x[m] = x[m] * 3 - 1
        x[m] += 2
    return x


@settings(max_examples=40, deadline=None)
@given(_masked_case(bounded=False))
def test_hypothesis_exact_reductions_and_writes(case):
    x, m = case
    check(exact_reductions, x, m)
    check(hyp_rmw, x, m, calls=1)


@settings(max_examples=40, deadline=None)
@given(_masked_case(bounded=True))
def test_hypothesis_sums_and_means(case):
    x, m = case
    check(rounded_reductions, x, m)


def nested(xp, x, m):
    y = x[m]
    out = [y[y > 0].sum(), y[y > 0].max(initial=-1.0)]
    if x.ndim > 1:
        out += [y[(y > 0)[:, 0]].sum(axis=0), y[..., 0].min(initial=9.0), y[:, None, 1].sum()]
    return tuple(out)


def test_selection_of_a_selection_and_trailing_indexing():
    rng = np.random.default_rng(9)
    for shape in ((7,), (5, 3)):
        check(nested, rng.standard_normal(shape), rng.random(shape[0]) > 0.3, traced=True)
        check(nested, rng.standard_normal(shape), np.zeros(shape[0], bool), traced=True)


def view_rmw(xp, z):
    inner = z[1:-1, ::2]
    inner[inner > 2] = inner[inner > 2] * 10
    z[1:-1][z[1:-1] < 1] -= 1
    return z[1:-1].sum(), inner[inner > 20].min(initial=0)


def test_read_modify_write_through_views():
    rng = np.random.default_rng(10)
    check(view_rmw, rng.integers(0, 5, (6, 5)), traced=True)
