"""The parity helper itself: it must catch a wrong dtype, value, kind or exception."""

import numpy as np
import pytest

import npjax
from tests._parity import assert_parity


def test_parity_passes_for_equal_results():
    assert_parity(lambda xp: xp.add(xp.asarray([1, 2]), 1))


def test_parity_catches_wrong_dtype():
    with pytest.raises(AssertionError, match="dtype"):
        assert_parity(lambda xp: xp.asarray([1, 2], dtype=np.int32 if xp is np else np.int64))


def test_parity_catches_scalar_vs_array():
    with pytest.raises(AssertionError, match="scalar"):
        assert_parity(lambda xp: xp.add(1.0, 2.0) if xp is np else npjax.asarray(3.0))


def test_parity_catches_exception_mismatch():
    def fn(xp):
        if xp is np:
            raise IndexError("x")
        raise ValueError("x")

    with pytest.raises(AssertionError, match="raised"):
        assert_parity(fn)
