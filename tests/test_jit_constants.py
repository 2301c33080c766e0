"""Arrays an ``npjax.jit`` function makes itself or captures from NumPy are computed as
compiled code, as arguments are: XLA's constant folder, which evaluated them by another code
path, gave other answers (found by the parity suites under ``--npjax-jit``)."""

from __future__ import annotations

import warnings

import numpy as np

import npjax
from tests._parity import assert_same


def _both(fn):
    """The same values and warnings from NumPy and from ``npjax.jit``."""
    with warnings.catch_warnings(record=True) as np_warns:
        warnings.simplefilter("always")
        want = fn(np)
    with warnings.catch_warnings(record=True) as warns:
        warnings.simplefilter("always")
        got = npjax.jit(fn, static_argnums=0)(npjax)
    for g, w in zip(got, want):
        assert_same(g, w)
    assert [str(w.message) for w in warns] == [str(w.message) for w in np_warns]


def test_a_captured_array_sorted_along_its_first_axis():
    a = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], dtype=np.float16)
    _both(lambda xp: (xp.sort(xp.asarray(a), axis=0), xp.sort(xp.asarray(a.astype(np.float32)),
                                                             axis=0)))


def test_arctan2_of_constant_zeros():
    """XLA's CPU code for atan2 folds two zeros it sees as constants to NaN (the folding
    is LLVM's, so it happens with XLA's constant folder off); NumPy gives +-0 or +-pi. Under
    errstate "ignore" no check looks at the result, so the compiled value is the answer."""
    for dtype in (np.float16, np.float32, np.float64):
        def fn(xp, dtype=dtype):
            z = xp.zeros(3, dtype=dtype)
            return (xp.arctan2(z, z), xp.arctan2(-z, z), xp.arctan2(z, -z), xp.arctan2(-z, -z),
                    xp.angle(xp.asarray(False)), xp.angle(xp.asarray([False, True])),
                    xp.arctan2(xp.int8(0), 0))
        with np.errstate(all="ignore"):
            _both(fn)
