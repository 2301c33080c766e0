"""Robustness: read-only views, threads, allocations larger than memory.

Read-only cases run through NumPy and npjax alike (same exception, base unchanged). Threads:
concurrent writes to distinct arrays never interfere, and each thread has its own policy.
Huge allocations raise MemoryError (NumPy's class family) instead of crashing.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import npjax
from tests._parity import DEVICE_FLOAT, assert_parity
from tests._threads import run_threads

BASE = np.arange(12.0, dtype=DEVICE_FLOAT).reshape(3, 4)

READONLY = {
    "diagonal": lambda xp, a: a.diagonal(),
    "np.diagonal": lambda xp, a: xp.diagonal(a),
    "broadcast_to": lambda xp, a: xp.broadcast_to(a[0], (3, 4)),
    "writeable False": lambda xp, a: _frozen(a[1:]),
    "writeable False owner": lambda xp, a: _frozen(a),
}
WRITES = {
    "setitem all": lambda xp, v: v.__setitem__(..., 0),
    "setitem one": lambda xp, v: v.__setitem__((0,) * v.ndim, 0),
    "setitem fancy": lambda xp, v: v.__setitem__(xp.asarray([0]), 0),
    "inplace add": lambda xp, v: v.__iadd__(1),
    "ufunc out": lambda xp, v: xp.add(v, 1, out=v),
    "fill": lambda xp, v: v.fill(0),
}


def _frozen(v):
    v.flags.writeable = False
    return v


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("view", sorted(READONLY))
def test_readonly_views_refuse_writes(view: str, write: str) -> None:
    def run(xp):
        a = xp.asarray(BASE.copy())
        v = READONLY[view](xp, a)
        try:
            WRITES[write](xp, v)
        except ValueError as exc:
            return "ValueError", np.asarray(a), str(exc) != ""
        return "no error", np.asarray(a)

    want, got = run(np), run(npjax)
    assert got[0] == want[0] == "ValueError", (got[0], want[0])
    np.testing.assert_array_equal(got[1], BASE)  # nothing written anywhere


@pytest.mark.device_placement  # host arrays: NumPy's own flags, so this passes there
@pytest.mark.xfail(reason="known deviation: NumPy lets WRITEABLE be set back to True on a "
                   "diagonal or broadcast_to view (writes then go through); npjax's diagonal "
                   "and broadcast lenses are read-only and refuse it (ValueError)")
def test_writeable_flag_restored_on_readonly_view() -> None:
    for view in ("diagonal", "broadcast_to"):
        assert_parity(lambda xp, view=view: _set_writeable(READONLY[view](
            xp, xp.asarray(BASE.copy()))))


def _set_writeable(v):
    v.flags.writeable = True
    return v


def test_concurrent_writes_to_distinct_arrays() -> None:
    """Threads writing their own arrays (element loops, in-place ops, fancy writes) at the
    same time each get exactly the result of running alone."""
    n_threads, n = 4, 16
    barrier = threading.Barrier(n_threads)
    results: dict[int, np.ndarray] = {}

    def work(k: int) -> None:
        a = npjax.zeros(n)
        barrier.wait()
        for i in range(n):
            a[i] = k * 100 + i
        a += k
        a[npjax.asarray([0, n - 1])] = -k
        v = a[2:6]
        v *= 2
        results[k] = np.asarray(a)

    run_threads([(work, (k,)) for k in range(n_threads)])
    for k in range(n_threads):
        want = np.arange(n, dtype=float) + k * 100 + k
        want[[0, n - 1]] = -k
        want[2:6] *= 2
        np.testing.assert_array_equal(results[k], want)


def test_each_thread_has_its_own_policy() -> None:
    barrier = threading.Barrier(3)
    seen: dict[str, tuple] = {}

    def work(name: str, **fields) -> None:
        npjax.set_policy(**fields)
        barrier.wait()  # every thread has set its policy
        barrier.wait()
        p = npjax.get_policy()
        seen[name] = (p.fallback, p.x64, npjax.asarray([1.5]).dtype)

    run_threads([(lambda: work("a", fallback="allow"), ()), (lambda: work("b", x64=False), ()),
                 (lambda: work("c", fallback="warn"), ())])
    assert seen["a"][:2] == ("allow", True) and seen["a"][2] == np.float64
    assert seen["b"][1] is False and seen["b"][2] == np.float32
    assert seen["c"][:2] == ("warn", True)
    assert npjax.get_policy().fallback == "raise"  # the main thread's, untouched


HUGE = {
    "zeros 10**15": lambda xp: xp.zeros(10**15),
    "ones 2-d": lambda xp: xp.ones((10**8, 10**7)),
    "full": lambda xp: xp.full(10**15, 1.0),
    "zeros int8": lambda xp: xp.zeros(10**15, dtype=np.int8),
    "eye": lambda xp: xp.eye(10**8),
}


@pytest.mark.parametrize("case", sorted(HUGE))
def test_huge_allocation_raises_memory_error(case: str) -> None:
    """More than the device holds: MemoryError at the call (NumPy's class), no crash."""
    for xp in (np, npjax):
        with pytest.raises(MemoryError):
            HUGE[case](xp)
    assert float(npjax.zeros(3).sum()) == 0.0  # still working afterwards
