"""Loops whose body updates its arguments in place (``vel += dt * acc; pos += dt * vel``)
and reads them whole in the next iteration roll under ``npjax.jit``: each iteration's new
values are checked by the next one's results, the last ones after the loop. Compared with
NumPy: values, final arguments, warnings and ``errstate`` errors."""

from __future__ import annotations

import numpy as np
import pytest

import npjax
from tests.test_jit_loops import check_reports


def leapfrog(xp, pos, vel, mass, steps):
    for _ in range(steps):
        d = pos[None, :, :] - pos[:, None, :]
        r2 = (d * d).sum(axis=2) + 1e-4
        inv = mass[None, :] / (r2 * xp.sqrt(r2))
        vel += 1e-3 * (d * inv[:, :, None]).sum(axis=1)
        pos += 1e-3 * vel
    return pos


def growth(xp, a, b, steps):
    for _ in range(steps):
        a *= b
        b += a * 0.0
    return a


def _bodies(n=6, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((n, 3)), rng.random((n, 3)) - 0.5, rng.random(n) + 0.5


def test_in_place_updates_read_whole_next_time_roll():
    check_reports(leapfrog, *_bodies(), 6, static=(3,), reruns=False)


@pytest.mark.parametrize("steps", [5, 8])
def test_an_overflow_in_a_middle_or_the_last_iteration_warns_as_numpy(steps):
    # a grows by 1e100 per step: it overflows in the 4th step (steps 5) or in the last (8
    # steps, starting lower)
    start = 1e-10 if steps == 5 else 1e-300
    check_reports(growth, np.full(3, start), np.full(3, 1e100), steps, static=(2,))


def test_an_overflow_under_raise_raises_as_numpy():
    a, b = np.full(3, 1e-10), np.full(3, 1e100)
    with npjax.errstate(over="raise"):
        with pytest.raises(FloatingPointError) as np_info:
            growth(np, a.copy(), b.copy(), 6)
        jitted = npjax.jit(growth, static_argnums=(0, 3))
        with pytest.raises(FloatingPointError) as info:
            jitted(npjax, npjax.array(a), npjax.array(b), 6)
    assert str(info.value) == str(np_info.value)
    assert [o.rolled for o in jitted.loops] == [True]


def masked_reductions(xp, x, steps, cut):
    total = 0.0
    for _ in range(steps):
        z = x * 1.0
        total = total + z[z > cut].mean() + z[z < 0].sum() - z[z > 1].max(initial=0.0)
        x = z * 0.9 - 0.01
    return x.sum(axis=1) + total


def whitening(xp, x, steps):
    total = 0.0
    for _ in range(steps):
        z = (x - x.mean(axis=0)) / x.std(axis=0)
        total = total + z[z > 0].mean()
        L = xp.linalg.cholesky(z.T @ z / z.shape[0] + 1e-3 * xp.eye(z.shape[1]))
        x = xp.linalg.solve(L, z.T).T.copy()
    return x.sum(axis=1) + total


def test_masked_reductions_roll():
    x = np.random.default_rng(2).standard_normal((30, 4))
    check_reports(masked_reductions, x, 6, 0.0, static=(1, 2), reruns=False)
    check_reports(whitening, x, 5, static=(1,), reruns=False)


def test_an_empty_masked_mean_in_a_rolled_loop_warns_as_numpy():
    # every value falls under the cut from the third iteration on: "Mean of empty slice"
    x = np.random.default_rng(3).random((10, 3)) * 0.5 + 0.7
    check_reports(masked_reductions, x, 10, 0.65, static=(1, 2))
