"""NumPy 2 (NEP 50) promotion: every dtype pair and every weak Python scalar, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from tests._parity import assert_parity
from tests.strategies import ALL

PAIRS = [(a, b) for a in ALL for b in ALL]


@pytest.mark.parametrize("left, right", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_array_array_promotion(left, right):
    assert_parity(lambda xp: xp.add(xp.ones(2, dtype=left), xp.ones(2, dtype=right)),
                  context=(left, right))


SCALARS = [True, 3, -3, 2.5, 1 + 2j, 200, 300, -129, 2**40, 2**63, 1e300]


@pytest.mark.parametrize("dtype", ALL, ids=str)
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
def test_weak_python_scalar_promotion(dtype, scalar):
    """Python scalars take the array's dtype; ints that do not fit raise OverflowError.

    NumPy warns when a huge Python int overflows float16; floating-point warnings are the
    errstate issue's, so they are silenced here on both sides.
    """
    with np.errstate(all="ignore"):
        assert_parity(lambda xp: xp.multiply(xp.ones(2, dtype=dtype), scalar),
                      context=(dtype, scalar))
        assert_parity(lambda xp: xp.ones(2, dtype=dtype) + scalar, context=(dtype, scalar))


def test_numpy_scalars_are_strong():
    assert_parity(lambda xp: xp.ones(2, dtype=np.float32) + np.float64(1.5))
    assert_parity(lambda xp: xp.ones(2, dtype=np.int8) + np.int64(1))


def test_dtype_objects_are_numpys_own():
    import npjax

    assert npjax.float64 is np.float64
    assert npjax.dtype is np.dtype
    assert npjax.asarray([1.0]).dtype is np.dtype(np.float64)


def test_unknown_dtype_raises_type_error():
    assert_parity(lambda xp: xp.zeros(2, dtype="not-a-dtype"))
