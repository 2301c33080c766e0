"""Host data read by device work is sent to the device once while it stays the same
(``_core/_device_copies._sent``): a lazy program or a loop of device calls reads a small host
array once per operation. Values must stay NumPy's whenever the host data changes, through
npjax or directly through NumPy's view of its memory, down to the sign of zero."""

from __future__ import annotations

import numpy as np
import pytest

import npjax
from tests._parity import DEVICE_FLOAT as F


def _uploads():
    return npjax.stats()["transfers"]["host_to_device"]["count"]


@pytest.mark.parametrize("mode", ["eager", "lazy"])
def test_a_host_array_used_by_many_device_operations_is_sent_once(mode):
    w_np = np.arange(5.0, dtype=F)
    with npjax.policy(mode=mode, placement="auto"):  # (also under --npjax-placement=device)
        with npjax.policy(placement="device"):
            big = npjax.zeros((4000, 5), F)
        w = npjax.asarray(w_np)
        assert w._host() is not None  # (a host array)
        npjax.reset_stats()
        for _ in range(20):
            big = big + w
            big = big * w
        got = np.asarray(big)
        assert _uploads() == 1
    want = np.zeros((4000, 5), F)
    for _ in range(20):
        want = (want + w_np) * w_np
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", ["eager", "lazy"])
def test_changed_host_data_is_sent_again(mode):
    x = np.array([1.0, 0.0, 2.0])
    with npjax.policy(mode=mode):
        with npjax.policy(placement="device"):
            big = npjax.ones((1000, 3))
        w = npjax.asarray(x)
        r1 = big * w
        w[1] = -0.0  # npjax's write (NumPy's, on the host)
        r2 = big * w
        np.asarray(w)[2] = 7.0  # a write through NumPy's view of the memory
        r3 = big * w
        results = [np.asarray(r) for r in (r1, r2, r3)]
    wants = [np.ones((1000, 3)) * v for v in
             (x, np.array([1.0, -0.0, 2.0]), np.array([1.0, -0.0, 7.0]))]
    for got, want in zip(results, wants):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_a_numpy_array_changed_before_a_lazy_program_runs_is_read_as_it_was():
    """The device copy of a NumPy argument is a copy: XLA on a CPU could alias the memory
    of an aligned array, so a write after the call changed a pending result."""
    for _ in range(5):  # (alignment decided whether memory was aliased: large ones are)
        u = np.arange(1.0, 3 * 4096 + 1.0)
        with npjax.policy(mode="lazy"):
            with npjax.policy(placement="device"):
                big = npjax.ones((4, 3 * 4096))
            r = big * u
            want = np.ones((4, 3 * 4096)) * u
            u[0] = 99.0
            got = np.asarray(r)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
