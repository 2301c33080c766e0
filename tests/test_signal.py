"""Parity of convolve, correlate, the window functions, i0 and sinc with NumPy.

Integer and boolean convolutions are compared exactly (full integer ranges, wrapping included).
Float inputs are bounded (|x| <= 10, lengths <= 6) so the difference between NumPy's BLAS dot
products and the term-by-term sums here stays within rtol=1e-5, atol=1e-4 (float32/complex64)
and rtol=1e-12, atol=1e-12 (64-bit); NaN and inf are included.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests._parity import assert_parity as _assert_parity
from tests.strategies import ALL, FLOAT, INTEGER, elements
from tests.tolerances import OVERRIDES

_CONV_TOL = {np.dtype(np.float32): dict(rtol=1e-5, atol=1e-4),
             np.dtype(np.complex64): dict(rtol=1e-5, atol=1e-4),
             np.dtype(np.float64): dict(rtol=1e-12, atol=1e-12),
             np.dtype(np.complex128): dict(rtol=1e-12, atol=1e-12)}
OVERRIDES["convolve"] = OVERRIDES["correlate"] = _CONV_TOL
OVERRIDES["i0"] = {np.dtype(np.float64): dict(rtol=1e-13)}
OVERRIDES["sinc"] = {np.dtype(np.float64): dict(rtol=1e-13, atol=1e-15)}

def assert_parity(fn, **kwargs):
    """Parity with NumPy's floating-point warnings silenced (npjax's errstate is elsewhere)."""
    with np.errstate(all="ignore"):
        return _assert_parity(fn, **kwargs)


_SPECIAL = [0.0, -0.0, 1.0, -2.5, np.nan, np.inf, -np.inf]


def _signal_elements(dtype: np.dtype):
    if dtype.kind in "biu":
        return elements(dtype)
    if dtype.kind == "f":
        return st.one_of(st.sampled_from(_SPECIAL),
                         st.floats(-10, 10, width=8 * dtype.itemsize)).map(float)
    # Finite only: BLAS's complex dot (NumPy) and a plain sum place inf/NaN differently.
    part = st.floats(-10, 10, width=4 * dtype.itemsize)
    return st.one_of(st.sampled_from([0j, -0.0 + 0j, 1 + 0j, 1j, -2.5 + 1j]),
                     st.builds(complex, part, part))


def vectors(dtype, min_side=0, max_side=6):
    return hnp.arrays(dtype, st.integers(min_side, max_side).map(lambda n: (n,)),
                      elements=_signal_elements(dtype))


def _arrays(dtypes, elems):
    shapes = hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4)
    return st.tuples(st.sampled_from(dtypes), shapes).flatmap(
        lambda t: hnp.arrays(t[0], t[1], elements=elems(t[0])))


modes = st.sampled_from(["full", "same", "valid", 0, 1, 2])


@pytest.mark.parametrize("name", ["convolve", "correlate"])
@given(data=st.data(), mode=modes)
def test_convolve_correlate(name, data, mode):
    d1 = data.draw(st.sampled_from(ALL), label="dtype a")
    d2 = data.draw(st.sampled_from([d1, np.dtype(np.int64), np.dtype(np.float64),
                                    np.dtype(np.complex128), np.dtype(np.uint8)]),
                   label="dtype v")
    a = data.draw(vectors(d1), label="a")
    v = data.draw(vectors(d2), label="v")
    if np.result_type(a, v).kind == "c":  # complex results: finite inputs only (see above)
        a, v = (np.where(np.isfinite(x), x, 0).astype(x.dtype) if x.dtype.kind in "fc" else x
                for x in (a, v))
    assert_parity(lambda xp: getattr(xp, name)(xp.asarray(a), xp.asarray(v), mode=mode),
                  name=name, context=(a, v, mode))
    assert_parity(lambda xp: getattr(xp, name)(xp.asarray(v), xp.asarray(a), mode=mode),
                  name=name, context=(v, a, mode))


@pytest.mark.parametrize("name", ["convolve", "correlate"])
@pytest.mark.parametrize("a, v, mode", [
    ([1, 2, 3], [0, 1, 0.5], "full"), ([1, 2], [1j, 2, 3], "same"), ([1, 2, 3, 4], [1j, 2], "same"),
    (3, 2, "full"), (3, [1, 2], "valid"), ([[1, 2]], [1], "full"), ([], [1], "full"),
    ([1], [], "full"), ([1, 2], [1], "s"), ([1, 2], [1], 5), ([1, 2], [1], None),
    ([1, 2], [1], 1.0), (np.int8([100, 100]), np.int8([100, 1]), "full"),
    (np.uint64([2**63, 3]), np.uint64([2, 2**64 - 1]), "full"),
    ([True, False], [True, True], "full"), (np.float16([1, 2]), np.float16([3, 4]), "same"),
    (np.float32([1, 2]), 2.0, "full"), (np.int8([1, 2]), 300, "full"),
])
def test_convolve_correlate_cases(name, a, v, mode):
    assert_parity(lambda xp: getattr(xp, name)(a, v, mode), name=name, context=(a, v, mode))


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
@pytest.mark.parametrize("M", [-3, -1, 0, 0.5, 1, 1.0, True, 2, 3, 4, 5, 6.5, 9, 16, np.int8(5),
                               np.float32(7), np.nan, "a"])
def test_windows(name, M):
    assert_parity(lambda xp: getattr(xp, name)(M), name=name, context=M)


@pytest.mark.parametrize("M", [-1, 0, 1, 2, 3, 5.5, 8, np.int16(6)])
@pytest.mark.parametrize("beta", [0, 0.5, 5, 14.0, -2, np.float32(3), 1j])
def test_kaiser(M, beta):
    assert_parity(lambda xp: xp.kaiser(M, beta), name="i0", context=(M, beta))


@given(a=_arrays(FLOAT + INTEGER + [np.dtype(np.bool_)], lambda d: _i0_elements(d)))
def test_i0(a):
    assert_parity(lambda xp: xp.i0(xp.asarray(a)), name="i0", context=(a,))


def _i0_elements(dtype):
    if dtype.kind == "f":
        top = {2: 11.0, 4: 85.0, 8: 700.0}[dtype.itemsize]
        return st.one_of(st.sampled_from([0.0, -0.0, 8.0, -8.0, 1.0, np.nan, np.inf, -np.inf]),
                         st.floats(-top, top, width=8 * dtype.itemsize))
    return elements(dtype)


@pytest.mark.parametrize("x", [np.array([1j]), 1 + 0j, np.complex64(2)])
def test_i0_complex_is_a_type_error(x):
    assert_parity(lambda xp: xp.i0(x))


@given(a=_arrays(ALL, lambda d: _sinc_elements(d)))
def test_sinc(a):
    assert_parity(lambda xp: xp.sinc(xp.asarray(a)), name="sinc", context=(a,))


def _sinc_elements(dtype):
    if dtype.kind == "f":
        return st.one_of(st.sampled_from([0.0, -0.0, 0.5, -1.0, 1e-30, np.nan, np.inf]),
                         st.floats(-100, 100, width=8 * dtype.itemsize))
    if dtype.kind == "c":
        part = st.floats(-5, 5, width=4 * dtype.itemsize)
        return st.one_of(st.sampled_from([0j, 1j, 0.5 + 0.5j]), st.builds(complex, part, part))
    if dtype.kind in "iu":
        return st.integers(0 if dtype.kind == "u" else -100, 100)
    return elements(dtype)


@pytest.mark.parametrize("x", [0, 1, 0.5, True, 2.5j, np.float32(0.25), np.int8(3)])
def test_sinc_scalars(x):
    assert_parity(lambda xp: xp.sinc(x), name="sinc", context=x)
