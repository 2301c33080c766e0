"""What a TPU runs per iteration of npjax.jit's time-step loops (the TPU lowering, read on
the CPU): no optimisation barrier on an array (the update barrier of ``_views.settled`` and
the division's are the CPU backend's: there they stay), one reduction for the error-state
check; compiled for a compile-only TPU where libtpu is present, at most one kernel per
iteration more than the hand-written ``jax.jit`` of the same loop (the check's). The CPU's
values stay NumPy's."""

from __future__ import annotations

import functools
import importlib.util
import os
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import npjax
from npjax._compile._jit_lower import lower
from tests.test_jit_store_copies import burgers


def life(xp, z, steps):
    for _ in range(steps):
        n = (z[:-2, :-2] + z[:-2, 1:-1] + z[:-2, 2:] + z[1:-1, :-2] + z[1:-1, 2:]
             + z[2:, :-2] + z[2:, 1:-1] + z[2:, 2:])
        alive = ((n == 3) & (z[1:-1, 1:-1] == 0)) | (((n == 2) | (n == 3)) & (z[1:-1, 1:-1] == 1))
        z[...] = 0
        z[1:-1, 1:-1][alive] = 1
    return z


def cfd(xp, u, steps):
    dt, dx = 0.001, 0.01
    for _ in range(steps):
        un = u.copy()
        u[1:-1] = un[1:-1] - un[1:-1] * dt / dx * (un[1:-1] - un[:-2])
        u[0] = un[0] - un[0] * dt / dx * (un[0] - un[-2])
        u[-1] = u[0]
    return u


@functools.partial(jax.jit, static_argnums=1)
def life_by_hand(z, steps):
    def body(_, z):
        n = (z[:-2, :-2] + z[:-2, 1:-1] + z[:-2, 2:] + z[1:-1, :-2] + z[1:-1, 2:]
             + z[2:, :-2] + z[2:, 1:-1] + z[2:, 2:])
        alive = ((n == 3) & (z[1:-1, 1:-1] == 0)) | (((n == 2) | (n == 3)) & (z[1:-1, 1:-1] == 1))
        return jnp.zeros_like(z).at[1:-1, 1:-1].set(alive.astype(z.dtype))
    return lax.fori_loop(0, steps, body, z)


@functools.partial(jax.jit, static_argnums=1)
def cfd_by_hand(u, steps):
    def body(_, u):
        left = jnp.concatenate([u[-2:-1], u[:-2]])
        mid = u[:-1]
        new = mid - mid * 0.001 / 0.01 * (mid - left)
        return jnp.concatenate([new, new[:1]])
    return lax.fori_loop(0, steps, body, u)


CASES = {"life": (life, life_by_hand, lambda: (np.random.default_rng(0).random((40, 70)) < .3)
                  .astype(np.int64)),
         "cfd": (cfd, cfd_by_hand, lambda: 1 + .5 * np.sin(np.linspace(0, 6.28, 2001))),
         "burgers": (burgers, None, lambda: 1 + .5 * np.sin(np.linspace(0, 6.28, 2001)))}


def _lowered(name, platform, sharding=None):
    fn, _, make = CASES[name]
    jitted = npjax.jit(fn, static_argnums=(0, 2))
    return lower(jitted, (npjax, npjax.asarray(make()), 5), platforms=(platform,),
                 sharding=sharding)


def _array_barriers(text):
    return re.findall(r"optimization_barrier .*: tensor<\d", text)


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_array_barrier_on_a_tpu(name):
    tpu, cpu = _lowered(name, "tpu").as_text(), _lowered(name, "cpu").as_text()
    assert "stablehlo.while" in tpu  # (rolled)
    assert not _array_barriers(tpu)
    assert _array_barriers(cpu)  # (the CPU backend's miscompile guards stay there)


def test_division_hides_the_divisor_only_on_a_tpu():
    tpu, cpu = _lowered("cfd", "tpu").as_text(), _lowered("cfd", "cpu").as_text()
    assert re.search(r"optimization_barrier %\w+ : tensor<f64>\n", tpu)
    assert re.search(r"optimization_barrier %\w+, %\w+ : tensor<1999xf64>, tensor<1999xf64>",
                     cpu)


def test_check_is_one_reduction_on_a_tpu():
    variadic = r"stablehlo\.reduce\(%\w+ init: %\w+\), \(%\w+ init:"
    assert not re.search(variadic, _lowered("cfd", "tpu").as_text())
    assert re.search(variadic, _lowered("cfd", "cpu").as_text())  # (``_boolsums`` there)


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="exact on the CPU backend only "
                    "(a TPU's float64 division is not correctly rounded)")
@pytest.mark.parametrize("name", ["life", "cfd", "burgers"])
def test_cpu_values_are_numpys(name):
    fn, _, make = CASES[name]
    x = make()
    got = npjax.jit(fn, static_argnums=(0, 2))(npjax, npjax.asarray(x), 7)
    np.testing.assert_array_equal(np.asarray(got), fn(np, x.copy(), 7))


@pytest.mark.skipif(importlib.util.find_spec("libtpu") is None or
                    os.environ.get("JAX_PLATFORMS") != "cpu",
                    reason="needs libtpu and JAX_PLATFORMS=cpu (a compile-only TPU)")
@pytest.mark.parametrize("name", ["life", "cfd"])
def test_kernels_per_iteration_near_hand_written(name):
    from benchmarks.tpu_compile_probe import _aot_sharding, loop_kernels
    sharding = _aot_sharding()
    _, hand, make = CASES[name]
    x = make()
    ours = loop_kernels(_lowered(name, "tpu", sharding).compile().as_text())
    spec = jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=sharding)
    theirs = loop_kernels(hand.trace(spec, 5).lower(lowering_platforms=("tpu",))
                          .compile().as_text())
    # (+1: the error-state check's reduction, NumPy's warnings, which the hand-written lacks;
    # before the barriers went off the TPU: life 7 against 4, cfd 14 against 8)
    assert ours["loop kernels"] <= theirs["loop kernels"] + 1, (ours, theirs)


@pytest.mark.parametrize("name", ["test_a_transient_overflow_in_a_stencil_warns",
                                  "test_a_transient_overflow_stored_with_a_cast_warns",
                                  "test_a_transient_overflow_overwritten_in_the_next_iteration_warns"])
def test_results_checked_as_computed_warn_as_numpy(name, monkeypatch):
    """A TPU checks a stored result as computed (``_finite_watch._result``), not read back
    from the array it was stored into: made to on the CPU, the warnings and eager reruns
    are NumPy's. (On the CPU the read back stays: checking the expression made XLA copy the
    arrays there, ``test_in_place_slice_updates_in_a_rolled_loop_copy_no_array``.)"""
    from npjax._runtime import _finite_watch
    from tests import test_jit_loops
    monkeypatch.setattr(_finite_watch, "_stored", _finite_watch._result)
    getattr(test_jit_loops, name)()


@pytest.mark.skipif(importlib.util.find_spec("libtpu") is None or
                    os.environ.get("JAX_PLATFORMS") != "cpu",
                    reason="needs libtpu and JAX_PLATFORMS=cpu (a compile-only TPU)")
@pytest.mark.parametrize("kernel", ["jacobi_2d", "fdtd_2d"])
def test_the_check_joins_the_stencils_kernels_on_a_tpu(kernel, monkeypatch):
    """The suite's float32 stencils: as many kernels per iteration as the hand-written
    loop (the error-state check's reduction joins the kernel that computes the results)."""
    from benchmarks import tpu_compile_probe as probe
    from benchmarks.tpu_compile_probe import _aot_sharding, loop_kernels
    monkeypatch.setattr(probe, "FLOAT32", True)
    sharding = _aot_sharding()
    counts = {which: loop_kernels(probe.lowered(kernel, "large", which, sharding).compile()
                                  .as_text())["loop kernels"] for which in ("hand", "npjax")}
    assert counts["npjax"] <= counts["hand"], counts
