"""The loop index of a rolled loop as an operand of ufuncs and array operators
(``labels == k``, ``a[i] * i``, ``np.add(a[i], i)``): the Python int NumPy sees there, as a
0-d array of the dtype NEP 50 gives it; where some value of the index would not fit that
dtype, the loop unrolls and NumPy's OverflowError (or exact comparison) comes at its
iteration. Compared with NumPy: values, dtypes, final arguments, exceptions, warnings."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_jit_loops import check, check_reports


def cluster_means(xp, labels, x, c):
    for j in range(c.shape[0]):
        m = labels == j
        count = m.sum()
        c[j] = (x * m[:, None]).sum(axis=0) / xp.maximum(count, 1)
    return c


def arithmetic(xp, a):
    for i in range(a.shape[0]):
        a[i] = a[i] * i + (i - a[i]) - 2 * i / (a[i] + 1.0) + (a[i] < i) + (i >= a[i])
    return a


def ufunc_calls(xp, a):
    for i in range(1, a.shape[0]):
        a[i] = xp.add(a[i], i) + xp.multiply(i, 3) - xp.maximum(a[i - 1], i)
    return a


def int_rows(xp, a):
    for i in range(a.shape[0]):
        a[i] = a[i] + i - (a[i] == i)
    return a


def dtype_of_products(xp, a, out):
    for i in range(a.shape[0]):
        out[i] = (a[i] * i).dtype.itemsize + (i * a[i] + a).dtype.itemsize
    return out


def divisions(xp, a):
    for i in range(a.shape[0]):
        a[i] = a[i] // (i - 3) + a[i] % (i + 1)
    return a


def test_comparisons_with_the_index_roll():
    rng = np.random.default_rng(0)
    check(cluster_means, rng.integers(0, 5, 40), rng.random((40, 2)), rng.random((5, 2)),
          rolled=True)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.int8,
                                   np.uint8, np.complex64])
def test_operators_and_ufuncs_keep_numpys_dtypes(dtype):
    a = (np.arange(12) % 7).astype(dtype)
    # (uint8: ``i - a[i]`` of NumPy scalars overflows, so the call reruns eagerly for the
    # warning; the values are compared all the same)
    check(arithmetic, a.copy(), rolled=True, traced=None if dtype == np.uint8 else True)
    check(ufunc_calls, a.copy(), rolled=True)
    check(dtype_of_products, a.copy(), np.zeros(12), rolled=True)


def test_an_index_beyond_the_dtype_unrolls_and_raises_numpys_overflow():
    """128 does not fit int8: the loop unrolls, its trace raises NumPy's OverflowError at
    that iteration, and the eager rerun raises it after NumPy's writes before it."""
    # (uint8: ``a[0] + 0 - True`` of NumPy scalars overflows: NumPy's "overflow encountered
    # in scalar subtract", so the call reruns eagerly for it)
    check_reports(int_rows, np.zeros(20, np.uint8), rolled=True, reruns=True)
    check(int_rows, np.zeros(200, np.int8), traced=None)


def test_integer_division_by_the_index_warns_as_numpy():
    check_reports(divisions, np.arange(8, dtype=np.int64))  # i - 3 == 0: divide by zero
