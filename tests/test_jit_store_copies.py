"""Stores into touching boxes of an array, each made from the array's value before them
(``un = u.copy(); u[1:-1] = f(un); u[0] = g(un); u[-1] = u[0]``), are traced by npjax.jit
as one store (``npjax._compile._store_merge``): compared with NumPy, and the rolled loop's
program copies no more arrays than the same loop written in JAX."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import npjax
from tests.test_jit_loops import (_array_copies_in_loop_bodies, _program_text, check,
                                  check_reports)


def burgers(xp, u, steps):
    for _t in range(steps):
        un = u.copy()
        u[1:-1] = un[1:-1] - 0.3 * un[1:-1] * (un[1:-1] - un[:-2]) \
            + 0.1 * (un[2:] - 2 * un[1:-1] + un[:-2])
        u[0] = un[0] - 0.3 * un[0] * (un[0] - un[-2]) + 0.1 * (un[1] - 2 * un[0] + un[-2])
        u[-1] = u[0]
    return u


def rows_then_edges(xp, u, steps):
    for _t in range(steps):
        un = u.copy()
        u[1:-1] = 0.5 * un[1:-1] + 0.25 * (un[2:] + un[:-2])  # rows of a 2-d array
        u[:1] = 0.5 * un[:1] + 0.5 * un[-2:-1]
        u[-1:] = u[:1]
    return u


def element_first(xp, u, steps):
    for _t in range(steps):
        un = u.copy()
        u[0] = un[1] * 0.5
        u[1:] = un[:-1] * 0.25 + un[1:] * 0.5  # the later box comes after the first
    return u


def read_between(xp, u, steps):
    for _t in range(steps):
        un = u.copy()
        u[1:-1] = un[1:-1] * 0.5 + un[:-2] * 0.25
        w = u * 1.0  # reads the value between the stores: not joined
        u[0] = un[0] * 0.5 + un[-2]
        u[-1] = u[0] + w[3]
    return u


def apart(xp, u, steps):
    for _t in range(steps):
        un = u.copy()
        u[2:-2] = un[2:-2] * 0.5 + un[1:-3] * 0.25
        u[0] = un[1] * 0.5  # u[1] is not written: the boxes do not touch
        u[-1] = un[-3]
    return u


def _hand_burgers(u, steps):
    def body(_, u):
        left = jnp.concatenate([u[-2:-1], u[:-2]])
        mid, right = u[:-1], u[1:]
        new = mid - 0.3 * mid * (mid - left) + 0.1 * (right - 2 * mid + left)
        return jnp.concatenate([new, new[:1]])

    return jax.jit(lambda u: lax.fori_loop(0, steps, body, u)).lower(u).compile().as_text()


@pytest.mark.parametrize("n", [2, 3, 12, 101])
def test_joined_stores_give_numpy_values(n):
    u = 1.0 + 0.5 * np.sin(np.linspace(0.0, 2 * np.pi, n))
    rolled = True if n > 3 else None  # (short arrays: NumPy's IndexError for some kernels)
    check(burgers, u, 7, static=(1,), rolled=rolled)
    check(burgers, u.astype(np.float32), 7, static=(1,), rolled=rolled)
    check(element_first, u, 6, static=(1,), rolled=rolled)
    check(element_first, (u * 100).astype(np.int64), 6, static=(1,), rolled=rolled)
    check(read_between, u, 6, static=(1,), rolled=rolled)
    check(apart, u, 6, static=(1,), rolled=rolled)


@pytest.mark.parametrize("shape", [(6, 3), (9, 1), (20, 7)])
def test_joined_row_stores_give_numpy_values(shape):
    u = np.random.default_rng(sum(shape)).random(shape)
    check(rows_then_edges, u, 6, static=(1,), rolled=True)
    check(rows_then_edges, u.astype(np.float32), 6, static=(1,), rolled=True)


def test_joined_stores_keep_numpy_warnings():
    u = 1.0 + 0.5 * np.sin(np.linspace(0.0, 2 * np.pi, 30))
    for i in (0, 7, -2):
        v = u.copy()
        v[i] = 1e200  # overflows (squared) in the first step, at the edge or inside
        check_reports(burgers, v, 4, static=(1,))
    check_reports(burgers, u, 4, static=(1,), reruns=False)


def test_joined_stores_copy_no_more_arrays_than_jax():
    # Traced as written, the u[1:-1] store updated un's buffer in place while u[0]'s value
    # still read un: XLA copied u before the update and the result back (2 array copies
    # per iteration). Joined, the body is one new value, copied into the loop's buffer as
    # the hand-written JAX loop's is.
    u = 1.0 + 0.5 * np.sin(np.linspace(0.0, 2 * np.pi, 101))
    hand = _array_copies_in_loop_bodies(_hand_burgers(jnp.asarray(u), 8))
    for kernel, x in ((burgers, u), (rows_then_edges, np.outer(u, [1.0, 2.0]))):
        jitted = npjax.jit(kernel, static_argnums=(0, 2))
        text = _program_text(jitted, npjax, npjax.array(x), 8)
        assert _array_copies_in_loop_bodies(text) <= hand == 1


def test_joined_stores_of_device_arrays_roll():
    """A device array's layout is made when first asked for: one made inside the loop body
    (by a slice store after an element store) is not a change of the array, and the loop
    rolls on an accelerator as on the host."""
    u = 1.0 + 0.5 * np.sin(np.linspace(0.0, 2 * np.pi, 12))
    with npjax.policy(placement="device"):
        for kernel in (element_first, read_between, apart):
            check(kernel, u, 6, static=(1,), rolled=True)
        check(element_first, (u * 100).astype(np.int64), 6, static=(1,), rolled=True)
