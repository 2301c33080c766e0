"""Policies: context-scoped, thread- and task-safe, set from the environment once."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

import jax
import numpy as np
import pytest

import npjax
from tests._parity import DEVICE_FLOAT
from tests._threads import run_threads


def test_defaults_and_context_manager():
    npjax.reset_policy()
    assert npjax.get_policy() == npjax.Policy()
    with npjax.policy(fallback="allow", x64=False) as p:
        assert p.fallback == "allow" and npjax.get_policy().x64 is False
        with npjax.policy(fallback="raise"):
            assert npjax.get_policy().fallback == "raise"
            assert npjax.get_policy().x64 is False
        assert npjax.get_policy().fallback == "allow"
    assert npjax.get_policy() == npjax.Policy()


def test_set_and_reset():
    npjax.set_policy(fallback="allow")
    assert npjax.get_policy().fallback == "allow"
    npjax.reset_policy()
    assert npjax.get_policy().fallback == "warn"


@pytest.mark.parametrize("field, value", [("mode", "fast"), ("fallback", "never"),
                                          ("random", "torch")])
def test_bad_values_raise(field, value):
    with pytest.raises(ValueError, match=field):
        npjax.set_policy(**{field: value})


def test_unknown_field_raises():
    with pytest.raises(TypeError):
        npjax.set_policy(colour="red")


def test_policy_is_hashable_for_cache_keys():
    assert hash(npjax.Policy()) == hash(npjax.Policy())


def test_threads_see_their_own_policy():
    seen = {}
    barrier = threading.Barrier(2)

    def worker(name, fallback):
        with npjax.policy(fallback=fallback):
            barrier.wait()
            seen[name] = npjax.get_policy().fallback

    run_threads([(worker, ("a", "allow")), (worker, ("b", "raise"))])
    assert seen == {"a": "allow", "b": "raise"}


def test_asyncio_tasks_see_their_own_policy():
    async def task(fallback):
        with npjax.policy(fallback=fallback):
            await asyncio.sleep(0.01)
            return npjax.get_policy().fallback

    async def main():
        return await asyncio.gather(task("allow"), task("raise"), task("warn"))

    assert asyncio.run(main()) == ["allow", "raise", "warn"]


def test_environment_variables_are_read_at_import():
    env = {k: v for k, v in os.environ.items() if not k.startswith("NPJAX_")}
    env.update(NPJAX_FALLBACK="allow", NPJAX_X64="0")
    code = "import npjax; p = npjax.get_policy(); print(p.fallback, p.x64)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["allow", "False"]


def test_x64_false_gives_32_bit_defaults():
    with npjax.policy(x64=False):
        assert npjax.zeros(3).dtype == np.float32
        assert npjax.asarray([1, 2]).dtype == np.int32
        assert npjax.asarray([1.5]).dtype == np.float32
        assert npjax.arange(3).dtype == np.int32
        # An explicit dtype is honoured as given.
        assert npjax.asarray([1.5], dtype=np.float64).dtype == np.float64
        assert npjax.asarray(np.zeros(2)).dtype == np.float64


def test_device_policy_places_arrays():
    cpu = jax.devices("cpu")[0]
    with npjax.policy(device="cpu"):
        a = npjax.asarray([1.0, 2.0])
        assert a.devices() == {cpu}
        assert (a + 1).devices() == {cpu}
    with npjax.policy(device=cpu):
        assert npjax.zeros(2).devices() == {cpu}


def test_auto_mode_is_eager_on_a_cpu_backend():
    """The default mode "auto" runs eagerly on a CPU backend, where NumPy computes every size
    on the host (benchmarks/threshold.py): nothing is recorded."""
    assert npjax.get_policy().mode == "auto"
    assert npjax.Policy().lazy is (jax.default_backend() != "cpu")
    if jax.default_backend() != "cpu":
        pytest.skip("an accelerator backend: auto is lazy here")
    npjax.reset_stats()
    x = np.linspace(0.0, 1.0, 100_000)
    got = npjax.sqrt(npjax.asarray(x) * 2.0 + 1.0)
    assert got._host() is not None and npjax.stats()["lazy"]["recorded"] == 0
    np.testing.assert_array_equal(np.asarray(got), np.sqrt(x * 2.0 + 1.0))


def test_auto_mode_fuses_device_work_on_an_accelerator(monkeypatch):
    """On an accelerator backend "auto" is lazy mode: small arrays stay NumPy's, large ones
    are device arrays whose work is recorded and run as one program when a value is read.
    The backend is faked here (the fusing itself is lazy mode's, tested on this CPU)."""
    from npjax._runtime import _policy

    monkeypatch.setattr(_policy, "_cpu_backend", lambda: False)
    x = np.linspace(-1.0, 1.0, 100_000, dtype=DEVICE_FLOAT)  # (float64: a host dtype on a TPU)
    with npjax.policy(mode="auto", fallback="raise") as p:  # a new policy: asked afresh
        assert p.lazy
        small = npjax.arange(5.0) * 2.0
        assert small._host() is not None  # small work: NumPy's, as under any mode
        big = npjax.asarray(x)
        npjax.reset_stats()
        y = npjax.exp(-big * big) + npjax.sin(big) * 0.5
        s = y.sum()
        assert npjax.stats()["lazy"]["recorded"] >= 5
        assert npjax.stats()["lazy"]["flushes"] == 0
        value = float(s)
        assert npjax.stats()["lazy"]["flushes"] == 1
    want = np.exp(-x * x) + np.sin(x) * 0.5
    # (float32: XLA's sum order; terms near 1 that cancel: within their rounding)
    rtol, atol = (1e-12, 1e-15) if DEVICE_FLOAT is np.float64 else (1e-5, 1e-6)
    np.testing.assert_allclose(value, want.sum(), rtol=rtol)
    np.testing.assert_allclose(np.asarray(y), want, rtol=rtol, atol=atol)
    with npjax.policy(mode="eager") as p:
        assert not p.lazy
