"""NumPy memory in 64-byte aligned blocks (``npjax/_core/_aligned.c``, issue 35 item 6): the
blocks keep NumPy's values through every allocation path, and ``npjax.jit`` given host
memory (fresh host arrays, ones a NumPy view shares, NumPy's own arrays) reads it in place:
no copy per call, writes between calls seen by the next call, the function's writes in the
caller's memory."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as onp
import pytest

import npjax as np
from npjax._compile import _jit_inputs
from npjax._core import _array_base
from npjax._runtime import _stats

aligned_only = pytest.mark.skipif(not _array_base.ALIGNED,
                                  reason="the aligned allocator is not built or turned off")
host_cpu = pytest.mark.skipif(
    np.array([1.0])._host() is None or _jit_inputs.jax.default_backend() != "cpu",
    reason="host arrays read in place by XLA's CPU backend")
N = 20_000  # 160 KB of float64: above REALIGN_BYTES, read in place


def _sent() -> int:
    return _stats.stats()["transfers"]["host_to_device"]["bytes"]


def _back() -> int:
    return _stats.stats()["transfers"]["device_to_host"]["bytes"]


def _at(a) -> int:
    return onp.asarray(a).ctypes.data


@aligned_only
@pytest.mark.parametrize("n", [1, 7, 127, 128, 1000, 5000, 300_000])
def test_numpy_blocks_keep_their_values_and_large_ones_are_aligned(n):
    made = [onp.empty(n), onp.zeros(n), onp.ones(n), onp.arange(float(n)),
            onp.full(n, 2.5), onp.random.default_rng(0).random(n)]
    for a in made:
        if a.nbytes >= 1024:
            assert a.ctypes.data % 64 == 0
        else:
            assert a.ctypes.data % 16 == 0
    assert not made[1].any()
    assert made[2].sum() == n
    assert made[3][-1] == n - 1
    assert (made[4] == 2.5).all()


@aligned_only
@pytest.mark.parametrize(("start", "new"), [(10, 5000), (5000, 10), (100_000, 300_000),
                                            (300_000, 64), (64, 100)])
def test_resize_keeps_the_values_across_block_sizes(start, new):
    a = onp.arange(float(start))
    a.resize(new, refcheck=False)
    keep = min(start, new)
    onp.testing.assert_array_equal(a[:keep], onp.arange(float(keep)))
    if new > start:
        assert not a[start:].any()  # NumPy fills the growth with zeros
    assert a.ctypes.data % (64 if a.nbytes >= 1024 else 16) == 0


@aligned_only
def test_grown_buffers_and_other_threads_keep_values():
    it = onp.fromiter((i * 0.5 for i in range(100_000)), float)
    onp.testing.assert_array_equal(it, onp.arange(100_000) * 0.5)
    s = onp.array(["ab" * 300] * 50)  # a string array: a block of its own size
    assert s[49] == "ab" * 300
    got = []
    t = threading.Thread(target=lambda: got.append(onp.arange(50_000.0).sum()))
    t.start()
    t.join()
    assert got == [onp.arange(50_000.0).sum()]


def test_off_unless_the_environment_asks():
    code = ("import npjax, numpy; from npjax._core import _array_base as b; "
            "print(b.ALIGNED, numpy._core.multiarray.get_handler_name())")
    for value, want in (("", ["False", "default_allocator"]), ("0", ["False", "default_allocator"]),
                        ("1", ["True", "npjax_aligned_allocator"])):
        env = {k: v for k, v in os.environ.items() if k != "NPJAX_ALIGNED_MEMORY"}
        if value:
            env["NPJAX_ALIGNED_MEMORY"] = value
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, check=True)
        if value == "1" and done.stdout.split()[0] == "False":
            pytest.skip("the aligned allocator is not built")
        assert done.stdout.split() == want, value


@pytest.mark.rerun
def test_this_file_with_the_allocator_on():
    """The tests above that need the allocator, in a process that turns it on."""
    if _array_base.ALIGNED:
        pytest.skip("on in this process: they ran here")
    env = dict(os.environ, NPJAX_ALIGNED_MEMORY="1")
    env.pop("PYTEST_XDIST_WORKER", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "-rs", __file__], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    skipped = [ln for ln in done.stdout.splitlines() if ln.startswith("SKIPPED")]
    assert " passed" in done.stdout and len(skipped) == 1 and "this process" in skipped[0], \
        done.stdout[-2000:]  # (only this test itself skips there)


@aligned_only
@host_cpu
def test_fresh_host_arrays_are_read_in_place():
    f = np.jit(lambda x: np.sqrt(x * x + 2 * x + 1).sum())
    x0 = onp.random.default_rng(1).random(N)
    f(np.asarray(x0))
    before = _sent()
    for k in range(3):
        x = np.asarray(x0 + k)  # a new array each call, as a script makes them
        assert _at(x) % 64 == 0
        onp.testing.assert_allclose(float(f(x)), onp.sqrt((x0 + k) ** 2 + 2 * (x0 + k) + 1)
                                    .sum(), rtol=1e-12)
    assert _sent() == before


@aligned_only
@host_cpu
def test_writes_between_calls_are_seen_and_nothing_is_sent():
    x0 = onp.linspace(0.0, 1.0, N)
    x = np.array(x0)
    view = onp.asarray(x)  # a NumPy view the caller keeps: the memory stays where it is
    at = view.ctypes.data
    f = np.jit(lambda x: (x * 3.0 + 1.0, x.max()))
    ref = x0.copy()
    f(x)
    before = _sent()

    def check():
        r, m = f(x)
        onp.testing.assert_array_equal(onp.asarray(r), ref * 3.0 + 1.0)
        assert float(m) == ref.max()

    x[...] = x0[::-1]  # an assignment through npjax
    ref[...] = x0[::-1]
    check()
    x += 2.0  # an npjax in-place operation
    ref += 2.0
    check()
    view[5] = 99.0  # NumPy writing the memory directly
    ref[5] = 99.0
    check()
    onp.multiply(view, 0.5, out=view)
    ref *= 0.5
    check()
    assert _sent() == before
    assert _at(x) == at


@aligned_only
@host_cpu
def test_the_function_writes_into_the_callers_array():
    def k(y, x):
        y[1:] += x[:-1] * 2.0
        x *= 0.5
        return y.sum()

    x0, y0 = onp.arange(float(N)), onp.ones(N)
    x, y = np.array(x0), np.array(y0)
    yv = onp.asarray(y)  # the caller's NumPy view of y sees the writes
    f = np.jit(k)
    xn, yn = x0.copy(), y0.copy()
    assert float(f(y, x)) == k(yn, xn)
    sent = _sent()
    for _ in range(2):
        back = _back()
        r = f(y, x)
        assert _back() - back == x0.nbytes + y0.nbytes  # the written ones go back
        assert float(r) == k(yn, xn)
        onp.testing.assert_array_equal(onp.asarray(x), xn)
        onp.testing.assert_array_equal(yv, yn)
    assert _sent() == sent  # read in place


@aligned_only
@host_cpu
def test_numpy_arguments_are_read_in_place_and_written_back():
    a = onp.arange(float(N))
    f = np.jit(lambda a: (a.sum(), a.__imul__(2.0))[0])
    an = a.copy()
    f(a)
    an *= 2.0
    onp.testing.assert_array_equal(a, an)
    before = _sent()
    a[0] = -7.0  # the caller's write before the next call
    an[0] = -7.0
    r = f(a)
    assert float(r) == an.sum()
    an *= 2.0
    onp.testing.assert_array_equal(a, an)
    assert _sent() == before
