"""Products (dot, vdot, inner, outer, tensordot, kron, einsum, einsum_path, cross) against
NumPy: values, dtypes (exact integer wraparound, boolean logic), scalar-vs-array, out= and
errors. Float sums run in a different order than BLAS: compared with the "products"
tolerance (1e-12 relative for double, 1e-5 for single, 1e-2 for half precision)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import npjax
from tests._parity import assert_parity
from tests.strategies import BOOL, COMPLEX, FLOAT, INTEGER, arrays
from tests.tolerances import OVERRIDES

PROD = "products"
OVERRIDES[PROD] = {
    np.dtype(np.float16): dict(rtol=1e-2, atol=1e-2),
    np.dtype(np.float32): dict(rtol=1e-5, atol=1e-5),
    np.dtype(np.complex64): dict(rtol=1e-5, atol=1e-5),
}
DTYPES = BOOL + INTEGER + FLOAT + COMPLEX
few_shapes = st.sampled_from([(), (0,), (3,), (2, 3), (3, 2), (2, 2, 3), (1, 3)])


def _small(dtype):
    """Values small enough that float products have no overflow (ints wrap as NumPy)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return dict(elements=st.integers(-8, 8).map(float))
    return {}


@st.composite
def operands(draw, n=2):
    out = []
    for _ in range(n):
        dtype = draw(st.sampled_from(DTYPES))
        shape = draw(few_shapes)
        if dtype.kind == "f":
            out.append(draw(hnp.arrays(dtype, shape, elements=st.integers(-8, 8))))
        elif dtype.kind == "c":
            out.append(draw(hnp.arrays(np.dtype(np.int8), shape, elements=st.integers(-8, 8)))
                       .astype(dtype) * (1 - 1j))
        else:
            out.append(draw(arrays(dtype, st.just(shape))))
    return out


@given(operands(), st.sampled_from(["dot", "vdot", "inner", "outer", "kron"]))
def test_binary_products(ops, name):
    a, b = ops
    assert_parity(lambda xp: getattr(xp, name)(xp.asarray(a), xp.asarray(b)), name=PROD,
                  context=(name, a, b))


def test_python_scalars_are_not_weak():
    f = np.ones(2, np.float32)
    for name in ("dot", "inner", "outer", "kron"):
        assert_parity(lambda xp, name=name: getattr(xp, name)(xp.asarray(f), 2.0), context=name)
    assert_parity(lambda xp: xp.dot(xp.ones(2, dtype=np.int8), 300))
    assert_parity(lambda xp: xp.vdot(xp.asarray(f[:1]), 2.0))
    assert_parity(lambda xp: xp.tensordot(xp.asarray(f), 2.0, 0))


def test_integer_products_exact():
    big = np.array([2**62, 3, -(2**62)], dtype=np.int64)
    i8 = np.full((2, 3), 100, np.int8)
    u8 = np.full((3, 2), 200, np.uint8)
    cases = [lambda xp: xp.dot(xp.asarray(big), xp.asarray(big)),
             lambda xp: xp.dot(xp.asarray(i8), xp.asarray(i8.T)),
             lambda xp: xp.dot(xp.asarray(u8.T), xp.asarray(u8)),
             lambda xp: xp.einsum("ij,jk->ik", xp.asarray(i8), xp.asarray(i8.T)),
             lambda xp: xp.tensordot(xp.asarray(i8), xp.asarray(i8), axes=([0, 1], [0, 1])),
             lambda xp: xp.kron(xp.asarray(i8), xp.asarray(u8)),
             lambda xp: xp.dot(xp.ones((2, 2), dtype=bool), xp.eye(2, dtype=bool)),
             lambda xp: xp.einsum("i,i", xp.zeros(3, dtype=bool), xp.ones(3, dtype=bool))]
    for i, case in enumerate(cases):
        assert_parity(case, context=i)


def test_dot_errors_and_out():
    assert_parity(lambda xp: xp.dot(xp.ones((2, 3)), xp.ones((2, 3))))
    assert_parity(lambda xp: xp.inner(xp.ones(3), xp.ones(2)))
    assert_parity(lambda xp: xp.vdot(xp.ones(3), xp.ones(2)))

    def out_ok(xp):
        out = xp.zeros((2, 2))
        res = xp.dot(xp.ones((2, 3)), xp.ones((3, 2)), out=out)
        assert res is out
        return out
    assert_parity(out_ok)
    for bad in [lambda xp: xp.zeros((2, 2), dtype=np.float32), lambda xp: xp.zeros((2, 3)),
                lambda xp: xp.zeros((2, 4))[:, ::2], lambda xp: xp.zeros((4,))]:
        assert_parity(lambda xp, bad=bad: xp.dot(xp.ones((2, 3)), xp.ones((3, 2)), out=bad(xp)))

    def scalar_out(xp):
        out = xp.zeros(())
        res = xp.dot(xp.ones(2), xp.ones(2), out=out)
        return res, out
    assert_parity(scalar_out)


@given(st.data())
def test_tensordot(data):
    a = data.draw(hnp.arrays(np.float64, (2, 3, 4), elements=st.integers(-4, 4)))
    b = data.draw(hnp.arrays(data.draw(st.sampled_from([np.float32, np.int16,
                                                        np.complex64])), (3, 4, 2),
                             elements=st.integers(-4, 4)))
    axes = data.draw(st.sampled_from([0, 1, 2, ([1, 2], [0, 1]), ([2], [1]), (1, 0),
                                      ([1, 1], [0, 0]), ([0], [0]), 3, ([5], [0])]))
    assert_parity(lambda xp: xp.tensordot(xp.asarray(a), xp.asarray(b), axes=axes), name=PROD,
                  context=(axes,))


_EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 2)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]), ("ij->ji", [(2, 3)]), ("i,i", [(3,), (3,)]), ("i,j->ij", [(2,), (3,)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 2)]), ("ijk,jl,lk->i", [(2, 3, 2), (3, 4), (4, 2)]),
    ("i,i", [(1,), (3,)]), ("i,i", [(2,), (3,)]), ("ii", [(3, 2)]), ("i->", [(0,)]),
    ("ij,jk->ik", [(2, 3)]), ("i,->i", [(3,), ()]), ("ab,bc,cd,de->ae",
                                                     [(2, 3), (3, 2), (2, 4), (4, 2)]),
]


@pytest.mark.parametrize("subscripts,shapes", _EINSUM)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.complex128, np.bool_])
@pytest.mark.parametrize("optimize", [False, True, "greedy", "optimal"])
def test_einsum(subscripts, shapes, dtype, optimize):
    ops = [(np.arange(int(np.prod(s))).reshape(s) % 5 - 2).astype(dtype) for s in shapes]
    assert_parity(lambda xp: xp.einsum(subscripts, *[xp.asarray(o) for o in ops],
                                       optimize=optimize), name=PROD,
                  context=(subscripts, shapes))


def test_einsum_interleaved_dtype_casting_out_and_path():
    a = np.arange(6.0).reshape(2, 3)
    b = np.arange(3.0)
    assert_parity(lambda xp: xp.einsum(xp.asarray(a), [0, 1], xp.asarray(b), [1], [0]))
    assert_parity(lambda xp: xp.einsum(xp.asarray(a), [Ellipsis, 1], [1, Ellipsis]))
    assert_parity(lambda xp: xp.einsum("i,i", xp.asarray(b), xp.asarray(b), dtype=np.float32))
    assert_parity(lambda xp: xp.einsum("i,i", xp.asarray(b), xp.asarray(b), dtype=np.float32,
                                       casting="unsafe"))
    assert_parity(lambda xp: xp.einsum("i->", xp.asarray(b), out=xp.zeros((), np.float32)))
    assert_parity(lambda xp: xp.einsum("i->i", xp.asarray(b), out=xp.zeros((1, 3))))

    def out_ok(xp):
        out = xp.zeros(2)
        res = xp.einsum("ij,j->i", xp.asarray(a), xp.asarray(b), out=out)
        assert res is out
        return out
    assert_parity(out_ok)
    path = np.einsum_path("ij,jk,kl->il", a, a.T, a, optimize="greedy")[0]
    assert_parity(lambda xp: xp.einsum("ij,jk,kl->il", xp.asarray(a), xp.asarray(a.T),
                                       xp.asarray(a), optimize=path))
    for opt in ("greedy", "optimal", True, False):
        got = npjax.einsum_path("ij,jk,kl->il", npjax.asarray(a), npjax.asarray(a.T),
                                npjax.asarray(a), optimize=opt)
        assert got == np.einsum_path("ij,jk,kl->il", a, a.T, a, optimize=opt)
    assert npjax.einsum_path(npjax.asarray(a), [0, 1], npjax.asarray(b), [1]) == \
        np.einsum_path(a, [0, 1], b, [1])


@given(st.data())
def test_cross(data):
    na, nb = data.draw(st.sampled_from([3, 2])), data.draw(st.sampled_from([3, 2]))
    da = data.draw(st.sampled_from([np.float64, np.float32, np.int16, np.uint8, np.complex64,
                                    np.bool_]))
    db = np.float64 if data.draw(st.booleans()) else da

    def el(d):
        return st.booleans() if d is np.bool_ else st.integers(0, 5)
    a = data.draw(hnp.arrays(da, data.draw(st.sampled_from([(na,), (2, na)])),
                             elements=el(da)))
    b = data.draw(hnp.arrays(db, data.draw(st.sampled_from([(nb,), (2, nb), (1, 2, nb)])),
                             elements=el(db)))
    kw = data.draw(st.sampled_from([{}, dict(axisc=0), dict(axisa=-1, axisb=-1, axisc=-2)]))
    assert_parity(lambda xp: xp.cross(xp.asarray(a), xp.asarray(b), **kw), name=PROD,
                  context=(a, b, kw))


def test_cross_axes_and_errors():
    a = np.arange(12.0).reshape(3, 4)
    assert_parity(lambda xp: xp.cross(xp.asarray(a), xp.asarray(a), axis=0))
    assert_parity(lambda xp: xp.cross(xp.asarray(a), xp.asarray(a.T), axisa=0, axisc=0))
    assert_parity(lambda xp: xp.cross(xp.asarray(a), xp.asarray(a)))
    assert_parity(lambda xp: xp.cross(xp.asarray(a), xp.asarray(a), axisa=2))
    assert_parity(lambda xp: xp.cross(xp.asarray(1.0), xp.asarray(a)))
    assert_parity(lambda xp: xp.cross(xp.ones((2, 3)), xp.ones((3, 3))))
