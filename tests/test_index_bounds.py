"""Bounds checks of device index arrays (``npjax/_core/_index_plan.py``,
``npjax/_runtime/_bounds.py``).

NumPy raises IndexError at the indexing line, so the check is made at the call (not deferred,
see ``_index_plan``'s docstring); these tests check that it is free where the bounds are known
by construction, and that the accelerator route (the min and max computed by the gather's own
program) gives NumPy's results and errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import npjax
from npjax._core import _index_plan
from tests import strategies as S
from tests._parity import DEVICE_FLOAT, assert_parity

pytestmark = pytest.mark.device_placement


def _bounds_syncs():
    return npjax.stats()["syncs"]["index_bounds"]


def test_index_arrays_bounded_by_construction_cost_no_wait():
    rng = np.random.default_rng(0)
    x = npjax.asarray(rng.random(300))
    a = npjax.asarray(rng.random((300, 4)))
    makers = {"argsort": lambda: npjax.argsort(x), "nonzero": lambda: npjax.nonzero(x > .5)[0],
              "arange": lambda: npjax.arange(5, 290, 3),
              "long arange": lambda: npjax.arange(0, 300 * 300, 300) // 300}
    for name, make in makers.items():
        idx = make()
        if name == "long arange":  # a computed array: read once, then known
            a[idx]
        npjax.reset_stats()
        got = a[idx]
        a[idx] = 1.0
        assert _bounds_syncs() == 0, name
        assert got.shape[0] == idx.shape[0]


def test_loose_known_bounds_still_check_the_values():
    # nonzero of a 10-element mask is known to lie in 0..9; on an axis of 5 the values decide
    a = npjax.arange(5.0)
    inside = npjax.nonzero(npjax.asarray([True, False, True] + [False] * 7))[0]
    assert a[inside].tolist() == [0.0, 2.0]
    outside = npjax.nonzero(npjax.asarray([False] * 9 + [True]))[0]
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 0 with size 5"):
        a[outside]


def test_a_computed_index_array_waits_once_per_read():
    a = npjax.arange(1000.0, dtype=DEVICE_FLOAT)
    b = npjax.asarray(np.random.default_rng(1).integers(0, 10**6, 100))
    a[(b * 2) % 1000]
    npjax.reset_stats()
    for k in range(3, 13):
        a[(b * k) % 1000]
    assert _bounds_syncs() == 10


@pytest.fixture(params=["cpu", "accelerator"])
def route(request, monkeypatch):
    if request.param == "accelerator":  # device index arrays not read in place
        monkeypatch.setattr(_index_plan, "on_host", lambda x: isinstance(x, np.ndarray))
    return request.param


# ``route`` patches once per test, the same for every example: nothing to reset between them.
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(S.shapes(min_dims=1, max_dims=3, min_side=1, max_side=5), st.data())
def test_reads_with_device_index_arrays(route, shape, data):
    host = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    k = data.draw(st.integers(1, min(2, len(shape))), label="arrays")
    idx = [data.draw(S.hnp.arrays(np.int64, (3,), elements=st.integers(
        -shape[i] - 1, shape[i])), label=f"idx{i}") for i in range(k)]

    def fn(xp):
        return xp.asarray(host)[tuple(xp.asarray(i) + 0 for i in idx)]  # computed on device

    assert_parity(fn, context=(shape, idx, route))


def test_error_text_on_both_routes(route):
    a = npjax.arange(6.0).reshape(2, 3)
    i = npjax.asarray([0, 1]) + 0
    j = npjax.asarray([2, 3]) + 0
    with pytest.raises(IndexError, match="^index 3 is out of bounds for axis 1 with size 3$"):
        a[i, j]


def test_index_array_into_an_empty_axis_on_both_routes(route):
    # the accelerator route must not trace its fused gather from a size-0 axis: JAX 0.11
    # refuses that gather with a TypeError (found on a GPU), NumPy raises IndexError
    for shape in [(0,), (2, 0)]:
        def fn(xp, shape=shape):
            a = xp.zeros(shape, bool)
            return xp.take_along_axis(a, xp.asarray([[0]] if len(shape) == 2 else [0]) + 0,
                                      axis=-1)

        assert_parity(fn, context=(shape, route))
