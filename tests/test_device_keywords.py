"""Keywords and values the device path refused or got wrong (issue 36, item 4), each against
NumPy under the default placement and with every array on the device: the ufunc loop
spellings ``signature=``/``sig=``/``dtype=``, einsum's ``order=``, arrays of more than 32
dimensions (host arrays whatever the policy, computed by NumPy) and Python ints beyond int64
(NEP 50's errors, object arrays where NumPy makes them)."""

from __future__ import annotations

import numpy as np
import pytest

import npjax
from tests._parity import DEVICE_FLOAT, assert_same, family

PLACEMENTS = ("auto", "device")


def _under(placement: str):
    return npjax.policy(placement=placement)  # (also under --npjax-placement=device)


def _outcome(fn, xp):
    try:
        return fn(xp), None
    except Exception as exc:  # compared below: the same family of exception as NumPy's
        return None, exc


def _check(fn, placement):
    want, want_exc = _outcome(fn, np)
    with _under(placement):
        got, got_exc = _outcome(fn, npjax)
        if want_exc is not None:
            assert got_exc is not None and family(got_exc) is family(want_exc), (
                got_exc, want_exc)
            assert str(got_exc) == str(want_exc)
            return
        assert got_exc is None, got_exc
        assert_same(got, want)


def _f(xp):
    return xp.arange(4.0)


def _i(xp):
    return xp.arange(4)


def _m(xp):
    return xp.arange(4.0).reshape(2, 2)


UFUNC_CALLS = {
    "signature tuple": lambda xp: xp.add(_f(xp), _f(xp), signature=(None, None, "f4")),
    "signature all": lambda xp: xp.add(_f(xp), _f(xp), signature=("f4", "f4", "f4")),
    "signature types": lambda xp: xp.add(_f(xp), _f(xp),
                                         signature=(np.float32, np.float32, np.float32)),
    "signature string": lambda xp: xp.add(_f(xp), _f(xp), signature="ff->f"),
    "signature none": lambda xp: xp.add(_i(xp), _i(xp), signature=(None, None, None)),
    "sig string ints": lambda xp: xp.add(_i(xp), _i(xp), sig="dd->d"),
    "sig tuple ints": lambda xp: xp.add(_i(xp), _i(xp), sig=(None, None, "f8")),
    "signature unary": lambda xp: xp.sqrt(_i(xp), signature="d->d"),
    "sig unary float32": lambda xp: xp.sqrt(_i(xp), sig="f->f"),
    "signature two outputs": lambda xp: xp.divmod(_f(xp), _f(xp) + 1, signature="dd->dd"),
    "signature comparison": lambda xp: xp.equal(_f(xp), _f(xp), signature=(None, None, "?")),
    "signature with a Python int": lambda xp: xp.add(_i(xp), 3, signature=(None, None, "f4")),
    "signature divide": lambda xp: xp.divide(_i(xp), _i(xp) + 1, signature=(None, None, "f4")),
    "signature with out": lambda xp: xp.add(_i(xp), _i(xp), signature="dd->d",
                                            out=xp.zeros(4)),
    "signature unsafe": lambda xp: xp.add(_f(xp) + 0.5, _f(xp), signature="ll->l",
                                          casting="unsafe"),
    "dtype float32": lambda xp: xp.add(_f(xp), _f(xp), dtype="f4"),
    "dtype float64 of ints": lambda xp: xp.add(_i(xp), _i(xp), dtype="f8"),
    "dtype unary": lambda xp: xp.sqrt(_f(xp), dtype="f4"),
    "dtype reduce": lambda xp: xp.add.reduce(_i(xp), dtype="f4"),
    "signature DType class": lambda xp: xp.add(_f(xp), _f(xp), signature=(
        None, None, np.dtypes.Float32DType)),
    "signature of a gufunc": lambda xp: xp.matmul(_m(xp), _m(xp), signature="ff->f"),
    "dtype of a gufunc": lambda xp: xp.matmul(_m(xp), _m(xp), dtype="f4"),
    "signature of Python scalars": lambda xp: xp.add(1, 2, signature="dd->d"),
    "signature of a logical": lambda xp: xp.logical_and(_i(xp), _i(xp), signature="??->?"),
    "signature isnan": lambda xp: xp.isnan(_f(xp), signature="d->?"),
    "signature power": lambda xp: xp.power(_i(xp), _i(xp), signature="dd->d"),
    "signature ldexp": lambda xp: xp.ldexp(_f(xp), _i(xp), signature=(None, None, "f4")),
    "signature casting equiv": lambda xp: xp.add(_f(xp), _f(xp), signature="dd->d",
                                                 casting="equiv"),
    "signature out float32": lambda xp: xp.add(_f(xp), _f(xp), signature="dd->d",
                                               out=xp.zeros(4, dtype="f4")),
    "dtype float16 overflow warns": lambda xp: xp.add(_f(xp), 70000.0, dtype="f2"),
    "dtype complex": lambda xp: xp.sqrt(_f(xp) - 2, dtype="c16"),
    "dtype type object": lambda xp: xp.add(_i(xp), _i(xp), dtype=np.float32),
    "dtype object": lambda xp: xp.add(_i(xp), _i(xp), dtype=object),
    "signature object": lambda xp: xp.add(_i(xp), _i(xp), signature="OO->O"),
    "dtype accumulate": lambda xp: xp.add.accumulate(_i(xp), dtype="f4"),
    "dtype outer": lambda xp: xp.multiply.outer(_i(xp), _i(xp), dtype="f4"),
    "signature bytes": lambda xp: xp.add(_i(xp), _i(xp), signature=b"dd->d"),
    "power dtype casts a float exponent": lambda xp: xp.power(1.5, 2.8, dtype=np.intp,
                                                              casting="unsafe"),
    "power signature casts a float exponent": lambda xp: xp.power(
        _f(xp) + 1.5, 2.8, signature=(None, None, np.intp), casting="unsafe"),
    "power small negative float exponent": lambda xp: xp.power(_i(xp), -0.5, dtype=np.intp,
                                                               casting="unsafe"),
    # NumPy's errors
    "power negative float exponent": lambda xp: xp.power(2, -1.5, dtype=np.intp,
                                                         casting="unsafe"),
    "signature bytes short": lambda xp: xp.add(3, 4, signature=b"ii-i"),
    "signature bytes undecodable": lambda xp: xp.add(3, 4, signature=b"\xff\xff->i"),
    "signature bad symbols": lambda xp: xp.add(3, 4, signature="%^->#"),
    "signature a float": lambda xp: xp.add(3, 4, signature=123.0),
    "signature casting no": lambda xp: xp.add(_i(xp), _i(xp), signature="dd->d", casting="no"),
    "signature big int": lambda xp: xp.add(_i(xp), 2**70, signature="dd->d"),
    "signature cast refused": lambda xp: xp.add(_f(xp), _f(xp), signature="ii->i"),
    "signature and dtype": lambda xp: xp.add(_f(xp), _f(xp), signature="dd->d", dtype="f8"),
    "sig and dtype": lambda xp: xp.add(_f(xp), _f(xp), sig="dd->d", dtype="f8"),
    "sig and signature": lambda xp: xp.add(_f(xp), _f(xp), sig="dd->d", signature="dd->d"),
    "signature short tuple": lambda xp: xp.add(_f(xp), _f(xp), signature=(None, None)),
    "signature short string": lambda xp: xp.add(_f(xp), _f(xp), signature="ff"),
    "signature one code": lambda xp: xp.add(_f(xp), _f(xp), signature="d"),
    "signature a list": lambda xp: xp.add(_f(xp), _f(xp), signature=["f4", None, None]),
    "signature a dtype": lambda xp: xp.add(_f(xp), _f(xp), signature=np.dtype("f4")),
    "signature no loop": lambda xp: xp.add(_f(xp), _f(xp), signature=("f4", None, None)),
    "dtype cast refused": lambda xp: xp.add(_f(xp), _f(xp), dtype="i8"),
}


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", list(UFUNC_CALLS))
def test_ufunc_loop_keywords(name, placement):
    _check(UFUNC_CALLS[name], placement)


def _square(xp):
    return xp.arange(6.0).reshape(2, 3)


EINSUM_CALLS = {
    f"order {order!r}": (lambda xp, order=order: xp.einsum(
        "ij,kj->ik", _square(xp), _square(xp), order=order))
    for order in ("C", "F", "A", "K", "c", "f", None, "X", 3)
}
EINSUM_CALLS["order 'F' transpose"] = lambda xp: xp.einsum("ij->ji", _square(xp), order="F")
EINSUM_CALLS["order 'F' scalar"] = lambda xp: xp.einsum("ij,ij", _square(xp), _square(xp),
                                                        order="F")


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", list(EINSUM_CALLS))
def test_einsum_order(name, placement):
    _check(EINSUM_CALLS[name], placement)


LAYOUTS = {
    "F": lambda xp: xp.einsum("ij,kj->ik", _square(xp), _square(xp), order="F"),
    "A of transposed operands": lambda xp: xp.einsum(
        "ij,jk->ik", _square(xp).T, xp.arange(6.0).reshape(3, 2).T, order="A"),
    "A of a transposed and a C operand": lambda xp: xp.einsum(
        "ji,jk->ik", _square(xp), _square(xp)[:, :2], order="A"),
    "A of 1-d operands": lambda xp: xp.einsum("i,j->ij", xp.arange(2.0), xp.arange(3.0),
                                              order="A"),
    "A with a list": lambda xp: xp.einsum("ji,jk->ik", _square(xp), [[1.0], [2.0]],
                                          order="A"),
    "C": lambda xp: xp.einsum("ij,jk->ik", _square(xp).T, xp.arange(6.0).reshape(3, 2).T,
                              order="C"),
}


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", list(LAYOUTS))
def test_einsum_order_layout(name, placement):
    """NumPy's memory order for 'F', 'A' and 'C' ('K' on the device gives C order)."""
    want = LAYOUTS[name](np)
    with _under(placement):
        got = LAYOUTS[name](npjax)
        assert (got.flags.c_contiguous, got.flags.f_contiguous, got.strides) == (
            want.flags.c_contiguous, want.flags.f_contiguous, want.strides)


ONES33 = (1,) * 33
MANY_DIMS = {
    "zeros 33": lambda xp: xp.zeros(ONES33),
    "ones 33": lambda xp: xp.ones(ONES33, dtype=xp.float32),
    "full 33": lambda xp: xp.full((2,) + ONES33, 7),
    "empty 33 shape": lambda xp: xp.empty((1,) * 40).shape,
    "zeros 64": lambda xp: xp.zeros((1,) * 64),
    "zeros 65": lambda xp: xp.zeros((1,) * 65),
    "ones 33 + 1": lambda xp: xp.ones(ONES33) + 1,
    "ones 33 sum": lambda xp: xp.ones((2,) + ONES33).sum(),
    "ones 33 sum axis": lambda xp: xp.ones((2,) + ONES33).sum(axis=0),
    "ones 33 with a 1-d array": lambda xp: xp.ones(ONES33) * xp.arange(3.0),
    "ones 33 exp": lambda xp: xp.exp(xp.ones(ONES33)),
    "reshape to 33": lambda xp: xp.arange(3.0).reshape((3,) + ONES33) * 2,
    "new axes to 33": lambda xp: xp.arange(3.0)[(None,) * 33],
    "new axes to 33 then add": lambda xp: xp.arange(3.0)[(None,) * 33] + 1,
    "expand_dims to 33": lambda xp: xp.expand_dims(xp.arange(3.0), tuple(range(33))),
    "broadcast_to 33": lambda xp: xp.broadcast_to(xp.arange(3.0), ONES33[:-1] + (2, 3)),
    "ones 33 squeezed": lambda xp: xp.ones((2,) + ONES33).squeeze() + 1,
    "ones 33 transpose": lambda xp: xp.ones((2,) + ONES33 + (3,)).T.shape,
    "ones 33 index": lambda xp: xp.ones((2,) + ONES33)[1],
    "ones 33 setitem": lambda xp: _set(xp.zeros((2,) + ONES33)),
    "ones 33 concatenate": lambda xp: xp.concatenate([xp.ones(ONES33), xp.zeros(ONES33)]),
    "array of 33 dims": lambda xp: xp.asarray(np.ones(ONES33)) + xp.ones(3),
    "flat of 33 dims": lambda xp: xp.ones(ONES33).flat,
    "flat of 32 dims": lambda xp: list(xp.ones((2,) + (1,) * 31).flat),
    "choose of 60 dims": lambda xp: (lambda a: a.choose([a, a]))(xp.ones((1,) * 60,
                                                                        dtype=xp.intp)),
    "outer beyond 64 dims": lambda xp: xp.add.outer(xp.ones(ONES33), xp.ones(ONES33)),
    "64 fancy indices": lambda xp: xp.ones((1,) * 64)[(xp.array([0]),) * 64],
    "nested lists of 64 levels": lambda xp: xp.array(_nested(64), dtype="float64"),
    "nested lists of 65 levels": lambda xp: xp.array([_nested(64)], dtype="float64"),
    "nested lists of 65 levels, no dtype": lambda xp: xp.array([_nested(64)]),
    "nested lists of 40 levels sum": lambda xp: xp.array(_nested(40)).sum(),
    "64 dims + 1-d": lambda xp: xp.ones((1,) * 64) + xp.ones(3),
    "40 dims mean of an axis": lambda xp: xp.arange(6.0).reshape((2, 3) + (1,) * 38).mean(1),
    "40 dims astype": lambda xp: xp.ones((1,) * 40).astype(xp.int32),
    "40 dims nonzero": lambda xp: xp.nonzero(xp.ones((2,) + (1,) * 39)),
    "40 dims where": lambda xp: xp.where(xp.ones((1,) * 40) > 0, 1, 2),
    "40 dims tolist": lambda xp: xp.ones((1,) * 40).tolist(),
    "40 dims item": lambda xp: xp.ones((1,) * 40).item(),
    "40 dims ravel": lambda xp: xp.ones((2,) + (1,) * 39).ravel(),
    "40 dims take": lambda xp: xp.take(xp.ones((2,) + (1,) * 39), [1]),
    "40 dims fill through ...": lambda xp: _set_all(xp.ones((2,) + (1,) * 39)),
}


def _nested(depth):
    n = [1.25]
    for _ in range(depth - 1):
        n = [n]
    return n


def _set_all(a):
    a[...] = 3
    return a


def _set(a):
    a[0] = 5
    return a


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", list(MANY_DIMS))
def test_more_than_32_dimensions(name, placement):
    _check(MANY_DIMS[name], placement)


@pytest.mark.parametrize("placement", PLACEMENTS)
def test_more_than_32_dimensions_are_host_arrays(placement):
    with _under(placement):
        for a in (npjax.zeros(ONES33), npjax.ones((2,) + ONES33) + 1,
                  npjax.asarray(np.ones(ONES33))):
            assert a._host() is not None
        small = npjax.ones(3, DEVICE_FLOAT)
        assert (small._host() is None) == (placement == "device")


BIG = 2**70
BIG_INTS = {
    "int64 scalar + big": lambda xp: xp.int64(1) + BIG,
    "uint64 scalar + 2**64": lambda xp: xp.uint64(1) + 2**64,
    "array + big": lambda xp: xp.arange(3) + BIG,
    "array - big": lambda xp: xp.arange(3) - BIG,
    "array * big": lambda xp: xp.arange(3) * BIG,
    "array // big": lambda xp: xp.arange(3) // BIG,
    "array + 2**63": lambda xp: xp.arange(3) + 2**63,
    "array + 2**62": lambda xp: xp.arange(3) + 2**62,
    "uint64 array + 2**63": lambda xp: xp.arange(3, dtype=xp.uint64) + 2**63,
    "uint64 array + 2**64": lambda xp: xp.arange(3, dtype=xp.uint64) + 2**64,
    "uint8 array + 300": lambda xp: xp.arange(3, dtype=xp.uint8) + 300,
    "uint8 array + -1": lambda xp: xp.arange(3, dtype=xp.uint8) + -1,
    "int8 array < 300": lambda xp: xp.arange(3, dtype=xp.int8) < 300,
    "array == big": lambda xp: xp.arange(3) == BIG,
    "array < -big": lambda xp: xp.arange(3) < -BIG,
    "add(array, big)": lambda xp: xp.add(xp.arange(3), BIG),
    "maximum(array, big)": lambda xp: xp.maximum(xp.arange(3), BIG),
    "float array * big": lambda xp: xp.arange(3.0) * BIG,
    "float array * 2**1030": lambda xp: xp.arange(3.0) * 2**1030,
    "int64 scalar < big": lambda xp: xp.int64(1) < BIG,
    "array setitem big": lambda xp: xp.arange(3).__setitem__(0, BIG),
    "array fill big": lambda xp: xp.arange(3).fill(BIG),
    "int64(big)": lambda xp: xp.int64(BIG),
    "array([big])": lambda xp: xp.array([BIG]),
    "array(big)": lambda xp: xp.array(BIG),
    "array([2**64 - 1])": lambda xp: xp.array([2**64 - 1]),
    "array([2**63])": lambda xp: xp.array([2**63]),
    "array([-2**63 - 1])": lambda xp: xp.array([-(2**63) - 1]),
    "array([big, 1.5])": lambda xp: xp.array([BIG, 1.5]),
    "array(big, dtype=int64)": lambda xp: xp.array(BIG, dtype=xp.int64),
    "asarray([1, big])": lambda xp: xp.asarray([1, BIG]),
    "full(3, big)": lambda xp: xp.full(3, BIG),
    "full(3, big, int64)": lambda xp: xp.full(3, BIG, dtype=xp.int64),
    "arange(big, big + 3)": lambda xp: xp.arange(BIG, BIG + 3),
    "sum + big": lambda xp: xp.arange(3).sum() + BIG,
    "where(..., big)": lambda xp: xp.where(xp.arange(3) > 0, xp.arange(3), BIG),
    "object array + 1": lambda xp: xp.array([BIG]) + 1,
    "uint8 array + big": lambda xp: xp.arange(3, dtype=xp.uint8) + BIG,
    "int8 array + 2**63": lambda xp: xp.arange(3, dtype=xp.int8) + 2**63,
    "sum(initial=2**64)": lambda xp: xp.arange(3).sum(initial=2**64),
    "uint8 sum(initial=big)": lambda xp: xp.arange(3, dtype=xp.uint8).sum(initial=BIG),
    "uint64(2**64)": lambda xp: xp.uint64(2**64),
    "full(3, 2**64, uint8)": lambda xp: xp.full(3, 2**64, dtype=xp.uint8),
    "arange(2**64, uint64)": lambda xp: xp.arange(2**64, 2**64 + 3, dtype=xp.uint64),
    "clip(array, 0, big)": lambda xp: xp.clip(xp.arange(3), 0, BIG),
    "choose(1, [float32, big])": lambda xp: xp.choose(1, [xp.float32(1), BIG]),
    "choose(array, [ints, big])": lambda xp: xp.choose(xp.array([0, 1]), [xp.arange(2), BIG]),
    "choose(array, [uint8, 300])": lambda xp: xp.choose(xp.array([0, 1]),
                                                        [xp.arange(2, dtype=xp.uint8), 300]),
    "select(..., default=big)": lambda xp: xp.select([xp.array([True, False])], [xp.arange(2)],
                                                     BIG),
    "select(floats, default=big)": lambda xp: xp.select([xp.array([True, False])],
                                                        [xp.arange(2.0)], BIG),
    "isin(ints, [big])": lambda xp: xp.isin(xp.arange(3), [BIG]),
    "isin(ints, [big, 1])": lambda xp: xp.isin(xp.arange(3), [BIG, 1]),
    "concatenate with [big]": lambda xp: xp.concatenate([xp.arange(2), [BIG]]),
    "stack with [big, 1]": lambda xp: xp.stack([xp.arange(2), [BIG, 1]]),
    "full_like(ints, big)": lambda xp: xp.full_like(xp.arange(3), BIG),
    "searchsorted(ints, big)": lambda xp: xp.searchsorted(xp.arange(3), BIG),
    "dot(ints, [big, 1, 1])": lambda xp: xp.dot(xp.arange(3), [BIG, 1, 1]),
    "concatenate float32 scalar and a Python float": lambda xp: xp.concatenate(
        [xp.float32(1), 1.0], axis=None),
    "concatenate int8 scalar and 300": lambda xp: xp.concatenate([xp.int8(1), 300], axis=None),
    "concatenate int8 array and 3": lambda xp: xp.concatenate([xp.arange(2, dtype=xp.int8), 3],
                                                              axis=None),
    "concatenate int8 array and 1.5": lambda xp: xp.concatenate(
        [xp.arange(2, dtype=xp.int8), 1.5], axis=None),
    "concatenate float32 array and 1j": lambda xp: xp.concatenate(
        [xp.arange(2, dtype=xp.float32), 1j], axis=None),
    "concatenate float32 scalar and big": lambda xp: xp.concatenate([xp.float32(1), BIG],
                                                                    axis=None),
    "concatenate ints and big": lambda xp: xp.concatenate([xp.arange(2), BIG], axis=None),
    "concatenate Python numbers": lambda xp: xp.concatenate([1, 2.0], axis=None),
    "concatenate scalars along an axis": lambda xp: xp.concatenate([xp.float32(1), 1.0]),
    "concatenate weak int, casting no": lambda xp: xp.concatenate(
        [xp.arange(2, dtype=xp.int8), 300], axis=None, casting="no"),
    "concatenate weak float, casting no": lambda xp: xp.concatenate(
        [xp.arange(2, dtype=xp.int8), 1.5], axis=None, casting="no"),
    "concatenate weak int, dtype": lambda xp: xp.concatenate(
        [xp.arange(2, dtype=xp.int8), 300], axis=None, dtype=xp.int16),
    "view setitem big": lambda xp: xp.arange(3, dtype=xp.uint8)[1:].__setitem__(0, BIG),
}


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize("name", list(BIG_INTS))
def test_python_ints_beyond_int64(name, placement):
    _check(BIG_INTS[name], placement)
