"""Lazy mode, what a Python time loop over device arrays costs beyond NumPy's work.

A loop whose temporaries have names (``x = a[i - 1]; ...; a[i] = w``) still holds some of
them when a long graph is cut in the middle of an iteration: values made by the trip before
the last are used after the loop. The rolled loop then ends at that trip and the trips after
it run as written (``Roll.find``), instead of the whole graph running unrolled (a thousand
writes into one array: minutes of compile on a large array).
"""

from __future__ import annotations

import numpy as np
import pytest

import npjax
from npjax._core import _lazy

pytestmark = pytest.mark.device_placement


def _named_temporaries(xp, a, b):
    for i in range(1, a.shape[0]):
        x = a[i - 1]
        y = x * 0.5
        z = b[i]
        w = y + z
        a[i] = w
    return a


def _lazy_run(fn, *arrays):
    args = [npjax.asarray(x.copy()) for x in arrays]
    npjax.reset_stats()
    with npjax.policy(mode="lazy"):
        got = np.asarray(fn(npjax, *args))
    return got, dict(npjax.stats()["lazy"])


def test_named_temporaries_held_at_a_cut_still_roll(monkeypatch):
    monkeypatch.setattr(_lazy, "_programs", {})
    rng = np.random.default_rng(3)
    a0, b0 = rng.random((700, 4)), rng.random((700, 4))
    want = _named_temporaries(np, a0.copy(), b0)
    got, counts = _lazy_run(_named_temporaries, a0, b0)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert counts["flushes"] >= 2  # the graph was cut while the temporaries were held
    assert counts["programs"] >= 2 and counts["rolled"] == counts["programs"]


def test_value_from_an_early_trip_used_after_the_loop():
    """A held value of an early trip: the loop stops there, the rest runs as written."""
    rng = np.random.default_rng(4)
    a0, b0 = rng.random((40, 3)), rng.random((40, 3))

    def kernel(xp, a, b):
        kept = None
        for i in range(1, a.shape[0]):
            w = a[i - 1] * 0.5 + b[i]
            a[i] = w
            if i == 30:
                kept = w  # no call of its own: every trip records the same calls
        return xp.concatenate([a, kept[None] * 2.0])

    want = kernel(np, a0.copy(), b0)
    got, counts = _lazy_run(kernel, a0, b0)
    np.testing.assert_array_equal(got, want)
    assert counts["rolled"] >= 1
