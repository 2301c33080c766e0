"""Lazy mode, what a Python time loop over device arrays costs beyond NumPy's work.

A loop whose temporaries have names (``x = a[i - 1]; ...; a[i] = w``) still holds some of
them when a long graph is cut in the middle of an iteration: values made by the trip before
the last are used after the loop. The rolled loop then ends at that trip and the trips after
it run as written (``Roll.find``), instead of the whole graph running unrolled (a thousand
writes into one array: minutes of compile on a large array).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import npjax
from npjax._execution import _lazy
from tests._parity import DEVICE_FLOAT as F
from tests.test_lazy_rows import spy_programs

# float arrays are F (float32 where the accelerator holds no float64: float64 arrays are
# host arrays there), named in HLO text as HLO_F
HLO_F = {np.float64: "f64", np.float32: "f32"}[F]

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
    a0, b0 = rng.random((700, 4)).astype(F), rng.random((700, 4)).astype(F)
    want = _named_temporaries(np, a0.copy(), b0)
    got, counts = _lazy_run(_named_temporaries, a0, b0)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert counts["flushes"] >= 2  # the graph was cut while the temporaries were held
    assert counts["programs"] >= 2 and counts["rolled"] == counts["programs"]


def test_value_from_an_early_trip_used_after_the_loop():
    """A held value of an early trip: the loop stops there, the rest runs as written."""
    rng = np.random.default_rng(4)
    a0, b0 = rng.random((40, 3)).astype(F), rng.random((40, 3)).astype(F)

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


def _fdtd(xp, ex, ey, hz, fict):
    for t in range(fict.shape[0]):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
    return hz


def test_checked_stores_in_a_rolled_stencil_copy_no_more_arrays(monkeypatch):
    """A checked result stored into a view is checked where it was stored: the check does
    not compute it again from arrays that the loop updates in place (a copy each)."""
    made = spy_programs(monkeypatch)
    rng = np.random.default_rng(5)
    n = 48
    arrays = [rng.random(shape).astype(F) for shape in ((n, n),) * 3 + ((12,),)]
    want = _fdtd(np, *[x.copy() for x in arrays])
    got, counts = _lazy_run(_fdtd, *arrays)
    np.testing.assert_array_equal(got, want)
    assert counts["rolled"] == counts["programs"] == 1
    (fn, roll), inputs = made[0]
    text = fn.lower(_lazy.neg_zero(), *roll.arrange(inputs)).compile().as_text()
    copies = [line for line in _loop_body(text) if " copy(" in line and f"{HLO_F}[{n},{n}]" in line]
    assert len(copies) <= 2, copies  # was 5: hz twice, ey three times


def _loop_body(text: str) -> list:
    """The lines of the body computation of the one while loop of an HLO text."""
    name = re.search(r" while\(.*body=(%[\w.\-]+)", text).group(1)
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(name + " "))
    last = next(i for i in range(first, len(lines)) if lines[i] == "}")
    return lines[first:last]


def test_checked_stores_still_report_numpy_errors():
    rng = np.random.default_rng(6)
    n = 24
    arrays = [rng.random((n, n)) for _ in range(3)] + [rng.random(10)]
    arrays[2][5, 7] = 1e308  # hz: the first stores overflow, then inf - inf is invalid
    with np.errstate(all="warn"), pytest.warns(RuntimeWarning) as numpy_warned:
        want = _fdtd(np, *[x.copy() for x in arrays])
    with np.errstate(all="warn"), pytest.warns(RuntimeWarning) as warned:
        got, _ = _lazy_run(_fdtd, *arrays)
    np.testing.assert_array_equal(got, want)
    assert {str(w.message) for w in warned} == {str(w.message) for w in numpy_warned}


def _burgers(xp, u, steps):
    for _ in range(steps):
        un = u.copy()
        u[1:-1] = un[1:-1] - un[1:-1] * 0.01 * (un[1:-1] - un[:-2]) + 0.02 * (
            un[2:] - 2 * un[1:-1] + un[:-2])
        u[0] = un[0] - un[0] * 0.01 * (un[0] - un[-2]) + 0.02 * (un[1] - 2 * un[0] + un[-2])
        u[-1] = u[0]
    return u


def test_a_store_updated_again_in_the_trip_keeps_its_check(monkeypatch):
    """``u[1:-1] = ...`` then ``u[0] = ...``: the first store's result is checked as itself
    (read back from ``u`` before the second store, the check would need a copy of ``u``)."""
    made = spy_programs(monkeypatch)
    u0 = (1.0 + 0.5 * np.sin(np.linspace(0.0, 6.0, 301))).astype(F)
    want = _burgers(np, u0.copy(), 20)
    got, counts = _lazy_run(lambda xp, u: _burgers(xp, u, 20), u0)
    np.testing.assert_array_equal(got, want)
    assert counts["rolled"] == counts["programs"] == 1
    (fn, roll), inputs = made[0]
    text = fn.lower(_lazy.neg_zero(), *roll.arrange(inputs)).compile().as_text()
    copies = [line for line in _loop_body(text) if " copy(" in line and f"{HLO_F}[301]" in line]
    assert len(copies) <= 2, copies
