"""npjax.jit: rolled loops whose iterations are independent run at once, batched over the
loop counter, instead of as a ``lax.fori_loop`` (``npjax/_compile/_loop_vector.py``).

Each kernel is compared with NumPy (values bit for bit, dtypes, exceptions, warnings, final
arguments), and the traced program shows which loops became a loop on the device: none for
a map loop or an accumulation loop, one for a loop whose iteration reads the previous one's
write, or whose body reduces floats in an order XLA picks.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import npjax
from benchmarks.kernels import particles as _particles
from npjax._compile._loop_vector import MIN_TRIPS_CPU
from npjax._runtime._policy import _cpu_backend
from tests.test_jit_loops import _traced_program, check, check_reports


def _loops_on_device(jitted, *host_args):
    """How many loops (``scan``/``while``) the program ``jitted`` runs for ``host_args`` has."""
    args = [npjax.array(a) if isinstance(a, np.ndarray) else a for a in host_args]
    with warnings.catch_warnings():  # (reports of a rerun were compared with NumPy's)
        warnings.simplefilter("ignore")
        text = str(_traced_program(jitted, npjax, *args).jaxpr)
    return text.count("scan[") + text.count("while[")


def _batched(kernel, *host_args, static=(), loops=0):
    """``kernel`` checked against NumPy; its loops ran batched unless ``loops`` (how many
    loops its program keeps) is not 0."""
    jitted = check(kernel, *host_args, static=static, rolled=True)
    assert _loops_on_device(jitted, *host_args) == loops
    assert [o.batched for o in jitted.loops] == [not loops] * len(jitted.loops)
    return jitted


def _rows(n=24, m=3, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).random((n, m)).astype(dtype)


# --- map loops ------------------------------------------------------------------------------


def euler(xp, p, v):
    n = p.shape[0]
    P = [p[i].copy() for i in range(n)]
    V = [v[i].copy() for i in range(n)]
    for i in range(n):
        V[i] = (1.0 - 0.1 * 0.01) * V[i] + 0.01 * P[i]
        P[i] = P[i] + 0.01 * V[i]
    return xp.stack(P), xp.stack(V)


def every_other(xp, a):
    X = [a[i].copy() for i in range(a.shape[0])]
    for i in range(1, a.shape[0], 2):
        X[i] = xp.sqrt(X[i] * 3.0) - X[i]
    return xp.stack(X)


def in_place(xp, a, b):
    X = [a[i].copy() for i in range(a.shape[0])]
    Y = [b[i].copy() for i in range(b.shape[0])]
    for i in range(a.shape[0]):
        X[i] *= 2.0
        X[i] += Y[i] / 3.0
    return xp.stack(X)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_map_loop_runs_at_once(dtype):
    _batched(euler, _rows(dtype=dtype), _rows(seed=1, dtype=dtype))


def test_a_map_loop_with_a_step_and_in_place_operators_runs_at_once():
    _batched(every_other, _rows(n=44))
    _batched(in_place, _rows(), _rows(seed=2))


# --- accumulation loops ---------------------------------------------------------------------


def springs(xp, a):
    n = a.shape[0]
    P = [a[i].copy() for i in range(n)]
    F = [xp.zeros(a.shape[1], a.dtype) for _ in range(n)]
    for i in range(n - 1):
        d = P[i + 1] - P[i]
        r = xp.sqrt(xp.sum(d * d))
        f = 3.0 * (r - 0.5) / r * d
        F[i] += f
        F[i + 1] -= f
    for i in range(n - 2):  # names left by the loop above: written before read here
        d = P[i + 2] - P[i]
        f = 0.7 / (xp.sum(d * d) + 1.0) * d
        F[i] -= f
        F[i + 2] += f
    return xp.stack(F), d, f, i  # (the names the last iteration leaves, as NumPy's)


def backwards(xp, a, b):
    n = a.shape[0]
    F = [a[i].copy() for i in range(n)]
    Q = [b[i].copy() for i in range(n)]
    for i in range(n - 1, 1, -1):  # offsets 0, -1, -2: each slot in the loop's order
        e = Q[i] * 1.5 - 0.25
        F[i - 2] *= e
        F[i] += e
        F[i - 1] -= e * e
    return xp.stack(F)


def scalar_operand(xp, a):
    n = a.shape[0]
    F = [a[i].copy() for i in range(n)]
    for i in range(n - 1):
        F[i + 1] += 0.1
        F[i] -= 1e-3
    return xp.stack(F)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_an_accumulation_loop_with_two_offsets_runs_at_once(dtype):
    _batched(springs, _rows(dtype=dtype))


def test_accumulations_apply_in_the_order_of_the_loop():
    # the same slot meets three statements (a product among sums) in the loop's order:
    # any other order changes the bits
    _batched(backwards, _rows() * 7.0 + 0.3, _rows(seed=4))
    _batched(scalar_operand, _rows() * 1e-3)


def test_integer_accumulations_run_at_once():
    def count(xp, a):
        n = a.shape[0]
        C = [xp.zeros(a.shape[1], a.dtype) for _ in range(n)]
        for i in range(n - 1):
            C[i] += a[i] * 3
            C[i + 1] -= a[i]
        return xp.stack(C)
    _batched(count, np.arange(72, dtype=np.int64).reshape(24, 3))


def mixed_operands(xp, a, b):
    n = a.shape[0]
    F = [a[i].copy() for i in range(n)]
    for i in range(n - 1):
        d = b[i + 1] - b[i]
        F[i] += xp.sum(d * d)  # a NumPy scalar: broadcast over the item
        F[i + 1] -= d  # float64 into the items' dtype (same_kind)
    return xp.stack(F)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_accumulations_with_scalar_and_cast_operands(dtype):
    a = (_rows() + 1j * _rows(seed=6)).astype(dtype) if dtype == np.complex128 else \
        _rows(dtype=dtype)
    _batched(mixed_operands, a, _rows(seed=7))


def test_an_overflow_only_the_sums_make_warns_as_numpy():
    # every term is finite, their sum in slot 1 is not (the last iteration, run as
    # written, makes the last two slots only): the sums of the slots are checked
    a = _rows()
    a[:2] = 1e308
    jitted = check_reports(scalar_sums, a)
    assert _loops_on_device(jitted, a) == 0 and jitted.loops[0].batched


def scalar_sums(xp, a):
    n = a.shape[0]
    F = [xp.zeros(a.shape[1]) for _ in range(n)]
    for i in range(n - 1):
        F[i] += a[i]
        F[i + 1] += a[i]
    return xp.stack(F)


def test_float_warnings_of_the_body_are_numpys():
    a, b = _rows(), _rows(seed=5)
    b[4] = 0.0
    with np.errstate(divide="warn", invalid="warn"):
        jitted = check_reports(in_place_divide, a, b)
    assert _loops_on_device(jitted, a, b) == 0 and jitted.loops[0].batched


def in_place_divide(xp, a, b):
    X = [a[i].copy() for i in range(a.shape[0])]
    for i in range(a.shape[0]):
        X[i] = X[i] / b[i]
    return xp.stack(X)


# --- loops that stay a fori_loop ------------------------------------------------------------


def doubling_list(xp, a):
    X = [a[i].copy() for i in range(a.shape[0])]
    for i in range(a.shape[0] - 1):
        X[i + 1] = X[i] * 2.0
    return xp.stack(X)


def doubling_array(xp, x):
    for i in range(x.shape[0] - 1):
        x[i + 1] = x[i] * 2.0
    return x


def reads_its_sum(xp, a):
    n = a.shape[0]
    F = [a[i].copy() for i in range(n)]
    for i in range(n - 1):
        F[i + 1] += F[i] * 0.5  # reads what the previous iteration added
    return xp.stack(F)


def twice_in_one_iteration(xp, a, b):
    n = a.shape[0]
    F = [a[i].copy() for i in range(n)]
    for i in range(n - 1):
        F[i] += b[i]
        F[i + 1] -= b[i]
        F[i] *= 0.5  # the slot again in the same iteration, after another statement
    return xp.stack(F)


def norm_springs(xp, a):
    n = a.shape[0]
    P = [a[i].copy() for i in range(n)]
    F = [xp.zeros(a.shape[1]) for _ in range(n)]
    for i in range(n - 1):
        d = P[i + 1] - P[i]
        f = xp.linalg.norm(d) * d  # XLA's reduce_sum: its order is XLA's, per program
        F[i] += f
        F[i + 1] -= f
    return xp.stack(F)


def carried_sum(xp, a):
    X = [a[i].copy() for i in range(a.shape[0])]
    s = xp.zeros(a.shape[1])
    for i in range(a.shape[0]):
        s = s + X[i]
        X[i] = s * 1.0
    return xp.stack(X), s


def test_a_loop_reading_the_previous_iterations_write_stays_a_fori_loop():
    a = _rows()
    _batched(doubling_list, a, loops=1)
    _batched(doubling_array, a, loops=1)
    _batched(reads_its_sum, a, loops=1)
    _batched(twice_in_one_iteration, a, _rows(seed=3), loops=1)
    _batched(carried_sum, a, loops=1)


def test_a_float_reduction_by_xla_stays_a_fori_loop():
    _batched(norm_springs, _rows(), loops=1)


def test_particles():
    # the time loop stays a fori_loop (all its iterations: nothing after it reads what
    # only the last one gives, ``_loop_source._Live``); in its body the loop with
    # ``np.linalg.norm`` too, the other two run at once
    pos, vel, steps = _particles.setup(np.random.default_rng(0), 24, 4)
    jitted = check(_particles.kernel, pos, vel, steps, static=(2,), rolled=True)
    assert [o.batched for o in jitted.loops] == [False, True, True, False]
    assert _loops_on_device(jitted, pos, vel, steps) == 2


@pytest.mark.skipif(not _cpu_backend(), reason="the XLA CPU backend's threshold")
def test_few_iterations_stay_a_fori_loop_on_the_cpu():
    n = MIN_TRIPS_CPU  # (n - 1 rolled iterations: the last runs as written)
    _batched(euler, _rows(n=n), _rows(n=n, seed=1), loops=1)
    _batched(euler, _rows(n=n + 1), _rows(n=n + 1, seed=1))
