"""Parity of the ndarray members in npjax/_library/_array_methods.py (dot, conj, to_device,
byteswap, getfield, setfield, __array_wrap__, __setstate__, ...) with NumPy's."""

from __future__ import annotations

import pickle
from typing import Any

import jax
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from tests._parity import assert_parity
from tests.strategies import ALL, NUMERIC, arrays

PALETTE = st.sampled_from([(), (0,), (3,), (2, 3)])


def _bits(dtype: np.dtype, shape: Any):
    """Arrays of ``dtype`` with arbitrary bytes (NaN payloads, subnormals included)."""
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return st.binary(min_size=size, max_size=size).map(
        lambda raw: np.frombuffer(raw, np.uint8).view(dtype).reshape(shape).copy())


def _same_bytes(ours: Any, theirs: np.ndarray) -> None:
    got = np.asarray(ours)
    assert got.dtype == theirs.dtype and got.shape == theirs.shape
    assert got.tobytes() == theirs.tobytes(), (got, theirs)


@given(arrays(st.sampled_from(NUMERIC), PALETTE), arrays(st.sampled_from(NUMERIC), PALETTE))
def test_dot_method(a, b):
    assert_parity(lambda xp: xp.asarray(a).dot(xp.asarray(b)), context=(a, b))


@given(arrays(st.sampled_from(ALL), PALETTE))
def test_conj_and_conjugate(a):
    for name in ("conj", "conjugate"):
        assert_parity(lambda xp, name=name: getattr(xp.asarray(a), name)(), context=(a,))
    x = npjax.asarray(a)
    assert (x.conj() is x) == (a.conj() is a)


def test_conj_of_scalar_is_a_scalar():
    assert_parity(lambda xp: xp.asarray([1 + 2j], xp.complex64)[0].conj())
    assert_parity(lambda xp: xp.asarray([2.5])[0].conjugate())


def test_to_device():
    x = npjax.arange(3.0)
    assert x.to_device(x.device) is x
    assert x.to_device(jax.devices()[0].platform) is x
    cpu = x.to_device("cpu")
    assert cpu.device.platform == "cpu"
    np.testing.assert_array_equal(np.asarray(cpu), np.arange(3.0))
    assert_parity(lambda xp: xp.arange(3.0).to_device("cpu", stream=1))
    with pytest.raises(ValueError, match="Unsupported device"):
        x.to_device("no-such-platform")


def test_class_getitem():
    assert npjax.ndarray[Any, Any] == npjax.ndarray[Any, Any]
    assert npjax.ndarray[Any].__origin__ is npjax.ndarray
    assert_parity(lambda xp: xp.ndarray[int, int, int])

    def f(x: npjax.ndarray[Any, np.dtype[np.float64]]) -> None: ...


@given(st.sampled_from(ALL).flatmap(lambda d: _bits(d, (2, 3))), st.booleans())
def test_byteswap_bitwise(a, inplace):
    x = npjax.asarray(a)
    out = x.byteswap(inplace=inplace)
    host = a.copy()
    expected = host.byteswap(inplace=inplace)
    _same_bytes(out, expected)
    _same_bytes(x, host)
    assert (out is x) == inplace


def test_byteswap_scalar():
    assert_parity(lambda xp: xp.asarray([5], xp.int32)[0].byteswap())
    assert_parity(lambda xp: xp.asarray([5], xp.int32)[0].byteswap(inplace=True))
    assert_parity(lambda xp: xp.asarray([5], xp.int32)[0].getfield(xp.int16, 2))


FIELD_DTYPES = [d for d in NUMERIC if d.kind != "c"] + [np.dtype(np.complex64)]


@given(st.sampled_from(NUMERIC), st.sampled_from(FIELD_DTYPES), st.integers(-1, 16),
       st.data())
def test_getfield_bitwise(src, dtype, offset, data):
    a = data.draw(_bits(src, (3,)))
    x = npjax.asarray(a)
    try:
        expected = a.getfield(dtype, offset)
    except ValueError:
        with pytest.raises(ValueError):
            x.getfield(dtype, offset)
        return
    got = x.getfield(dtype, offset)
    _same_bytes(got, expected)
    with pytest.raises(ValueError, match="read-only"):
        got[...] = 0


@given(st.sampled_from(NUMERIC), st.sampled_from(FIELD_DTYPES), st.integers(0, 15),
       st.data())
def test_setfield_bitwise(src, dtype, offset, data):
    a = data.draw(_bits(src, (3,)))
    val = data.draw(_bits(dtype, (3,)))
    x = npjax.asarray(a)
    try:
        a.setfield(val, dtype, offset)
    except ValueError:
        with pytest.raises(ValueError):
            x.setfield(npjax.asarray(val), dtype, offset)
        return
    assert x.setfield(npjax.asarray(val), dtype, offset) is None
    _same_bytes(x, a)


def test_field_of_bool_is_refused():
    with pytest.raises(NotImplementedError, match="bool"):
        npjax.asarray([0, 1, 2], dtype=np.uint8).getfield(bool)
    assert_parity(lambda xp: xp.asarray([True, False]).getfield(np.uint8))


@given(arrays(st.sampled_from(ALL), PALETTE), st.booleans())
def test_array_wrap(a, return_scalar):
    assert_parity(lambda xp: xp.zeros(2).__array_wrap__(xp.asarray(a), None, return_scalar),
                  context=(a,))


def test_array_finalize_and_delitem():
    assert_parity(lambda xp: xp.zeros(2).__array_finalize__(None))
    assert_parity(lambda xp: xp.ndarray.__delitem__(xp.zeros(2), 0))


@given(arrays(st.sampled_from(ALL), st.sampled_from([(), (3,), (2, 3)])), st.booleans())
def test_setstate(a, fortran):
    a = np.asfortranarray(a) if fortran else a
    state = a.__reduce__()[2]

    def run(xp):
        target = xp.ones((2, 2))
        view = target[0]
        target.__setstate__(state)
        # the view's values are not compared: NumPy's view then reads the memory its base let
        # go (freed, then reused by whatever is allocated next), so they are not NumPy's to give
        return target, view.shape, view.dtype, target.flags.f_contiguous

    assert_parity(run, context=(a,))


def test_pickle_round_trip_keeps_scalars():
    for obj in (npjax.arange(4.0).reshape(2, 2), npjax.float32(1.5)):
        clone = pickle.loads(pickle.dumps(obj, protocol=5))
        assert clone.shape == obj.shape and clone.dtype == obj.dtype
        np.testing.assert_array_equal(np.asarray(clone), np.asarray(obj))


def test_sizeof_counts_owned_data():
    import sys

    x = npjax.zeros(100)
    assert sys.getsizeof(x) >= 800 > sys.getsizeof(x[:50])
