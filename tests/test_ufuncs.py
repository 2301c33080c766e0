"""Every NumPy ufunc through npjax: values, dtypes, shapes and errors equal NumPy's.

Integer division by zero and friends warn in NumPy (RuntimeWarning); npjax does not warn yet
(errstate is a later issue), so both sides run under ``np.errstate(all="ignore")``.

Each kernel compiles once per (ufunc, loop dtypes, shape). The exhaustive matrix (every
elementwise ufunc x every dtype x edge values x Python scalars) runs in every profile; CI's
device rerun samples its dtypes (see ``_edge_cases``). Hypothesis adds random dtype pairs and
broadcast/empty shapes on top.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import npjax
from npjax._calls._ufuncs import NAMES
from tests import strategies as S
from tests._parity import assert_parity
from tests.tolerances import OVERRIDES

_N = max(3, settings().max_examples // 6)
# Every new shape or dtype compiles a kernel, which makes shrinking a failure very slow:
# failures are reported as generated (the case is printed in the assertion message).
_NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]

# XLA's transcendental routines differ from the C library's by a few ulp (float32/complex64
# mostly); these joined tolerances say so.
_LOOSE = {np.dtype(np.float32): dict(rtol=2e-5, atol=2e-6),
          np.dtype(np.complex64): dict(rtol=2e-5, atol=2e-6),
          np.dtype(np.float64): dict(rtol=1e-10, atol=1e-13),
          np.dtype(np.complex128): dict(rtol=1e-10, atol=1e-13)}
for _n in ("arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cbrt", "cos",
           "cosh", "exp", "exp2", "expm1", "log", "log10", "log1p", "log2", "logaddexp",
           "logaddexp2", "sin", "sinh", "tan", "tanh", "power", "float_power", "arctan2",
           "hypot", "sqrt", "divide", "reciprocal", "matmul", "vecdot", "matvec", "vecmat"):
    OVERRIDES.setdefault(_n, _LOOSE)

ELEMENTWISE = sorted({getattr(np, n).__name__ for n in NAMES
                      if getattr(np, n).signature is None and n != "isnat"})
GUFUNCS = sorted({getattr(np, n).__name__ for n in NAMES if getattr(np, n).signature})


def _call(fn):
    def run(xp):
        with np.errstate(all="ignore"):
            return fn(xp)
    return run


def test_every_ufunc_is_there():
    assert len(NAMES) == 106
    for n in NAMES:
        ours, theirs = getattr(npjax, n), getattr(np, n)
        assert isinstance(ours, npjax.ufunc)
        assert ours.__name__ == theirs.__name__
        assert (ours.nin, ours.nout, ours.identity, ours.signature) == (
            theirs.nin, theirs.nout, theirs.identity, theirs.signature)
        assert getattr(npjax, theirs.__name__) is ours


def _scalar(dtype: np.dtype):
    """A Python scalar operand (weak under NEP 50), including out-of-range ints."""
    return st.one_of(st.sampled_from([0, 1, -1, 2, 3, 127, 128, 255, 256, -129, 1000,
                                      2**31, 2**63 - 1, -(2**63)]),
                     st.sampled_from([0.0, -0.0, 0.5, -1.5, 2.5, float("inf"), float("nan"),
                                      1e300]),
                     st.sampled_from([True, False, 1j, -2 + 0.5j]))


@st.composite
def _operands(draw, nin):
    shapes = draw(S.broadcastable_shapes(nin))
    first = draw(S.dtypes)
    dts = [first] + [draw(st.one_of(st.just(first), S.dtypes)) for _ in range(nin - 1)]
    ops = [draw(S.arrays(d, s)) for d, s in zip(dts, shapes)]
    if nin == 2 and draw(st.integers(0, 3)) == 0:
        k = draw(st.integers(0, 1))
        ops[k] = draw(_scalar(dts[k]))
    return ops


def _as_xp(xp, v):
    return xp.asarray(v) if isinstance(v, np.ndarray) else v


@pytest.mark.parametrize("name", ELEMENTWISE)
@settings(max_examples=_N, phases=_NO_SHRINK)
@given(data=st.data())
def test_ufunc_parity(name, data):
    uf = getattr(np, name)
    ops = data.draw(_operands(uf.nin))
    assert_parity(_call(lambda xp: getattr(xp, name)(*[_as_xp(xp, v) for v in ops])),
                  name=name, context=ops)


def _edge_values(dt: np.dtype) -> np.ndarray:
    e = S._edges(dt)
    if dt.kind in "iu":
        e = e + [2, 3, 7, 8, 63, 64, 100] + ([-5, -64] if dt.kind == "i" else [])
    elif dt.kind == "f":
        e = e + [3.0, -2.5, 1e-3, 100.0, 0.25, -3.0]
    elif dt.kind == "c":
        e = e + [complex(-1, 0), complex(0, -0.0), complex(2, -3), complex(0.5, 0.5),
                 complex(-2, 0.0), complex(-2, -0.0)]
    return np.array(e, dtype=dt)


# The matrix's cost on the device is its compiles (about nine programs per ufunc and dtype),
# not its values. The CI profile of the device rerun (``rerun-ci``) takes, per ufunc, float64
# and four more dtypes chosen in rotation, so every dtype meets about a third of the ufuncs;
# every other profile, and the default host run, takes every pair.
_EDGE_SAMPLE = 4


def _edge_cases() -> list[tuple[str, np.dtype]]:
    if os.environ.get("HYPOTHESIS_PROFILE") != "rerun-ci":
        return [(n, dt) for n in ELEMENTWISE for dt in S.ALL]
    others = [dt for dt in S.ALL if dt != np.float64]
    cases = []
    for i, n in enumerate(ELEMENTWISE):
        start = i * _EDGE_SAMPLE
        picked = {others[(start + k) % len(others)] for k in range(_EDGE_SAMPLE)}
        cases += [(n, dt) for dt in S.ALL if dt == np.float64 or dt in picked]
    return cases


@pytest.mark.parametrize(("name", "dtype"), _edge_cases(), ids=str)
def test_ufunc_edge_matrix(name, dtype):
    uf = getattr(np, name)
    a = _edge_values(dtype)
    if uf.nin == 1:
        assert_parity(_call(lambda xp: getattr(xp, name)(xp.asarray(a))), name=name)
        return
    assert_parity(_call(lambda xp: getattr(xp, name)(xp.asarray(a[:, None]),
                                                     xp.asarray(a[None, :]))), name=name)
    for s in (2, -1, 1000, -1000, 2.5, True, 1j):
        assert_parity(_call(lambda xp, s=s: getattr(xp, name)(xp.asarray(a), s)),
                      name=name, context=s)
        assert_parity(_call(lambda xp, s=s: getattr(xp, name)(s, xp.asarray(a))),
                      name=name, context=s)


# --- targeted cases ------------------------------------------------------------------------


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "bitwise_and"])
def test_weak_python_int_overflow(op):
    assert_parity(lambda xp: getattr(xp, op)(xp.asarray([1, 2], dtype=np.int8), 1000))


@pytest.mark.parametrize("op", ["less", "less_equal", "greater", "greater_equal", "equal",
                                "not_equal"])
@pytest.mark.parametrize("value", [1000, -1000, 2**64, -(2**63) - 1, 127, -128, 2.5])
def test_comparison_with_out_of_range_python_int(op, value):
    for dt in (np.int8, np.uint8, np.int64, np.uint64):
        assert_parity(lambda xp, dt=dt: getattr(xp, op)(xp.asarray([-128, 0, 127], dtype=dt)
                                                        if dt in (np.int8, np.int64) else
                                                        xp.asarray([0, 1, 255], dtype=dt),
                                                        value), context=(dt, value))
        assert_parity(lambda xp, dt=dt: getattr(xp, op)(value, xp.asarray([0, 1], dtype=dt)),
                      context=(dt, value))


def test_integer_power_negative_exponent():
    assert_parity(lambda xp: xp.power(xp.asarray([2, 3]), xp.asarray([1, -1])))
    assert_parity(lambda xp: xp.power(xp.asarray([2, 3]), -1))
    assert_parity(lambda xp: xp.asarray([2, 3], dtype=np.int8) ** -2)
    assert_parity(lambda xp: xp.power(xp.asarray([2, 3], dtype=np.uint8), 2))
    assert_parity(lambda xp: xp.power(xp.asarray([2, 3]), xp.asarray([], dtype=int)))


@pytest.mark.parametrize("dt", S.INTEGER, ids=str)
def test_integer_division_by_zero_and_extremes(dt):
    info = np.iinfo(dt)
    a = np.array([info.min, info.max, 7, 0, 1] + ([-7, -1] if dt.kind == "i" else []), dt)
    b = np.array([0, 0, 0, 0, 2] + ([-1, -1] if dt.kind == "i" else []), dt)
    for name in ("floor_divide", "remainder", "fmod", "divmod", "divide", "true_divide"):
        assert_parity(_call(lambda xp, n=name: getattr(xp, n)(xp.asarray(a), xp.asarray(b))),
                      name=name, context=name)


@pytest.mark.parametrize("dt", S.INTEGER, ids=str)
def test_shifts_past_bit_width(dt):
    bits = dt.itemsize * 8
    a = np.array([1, 5, np.iinfo(dt).max, np.iinfo(dt).min] + ([-1, -8] if dt.kind == "i"
                                                                 else []), dt)
    for shift in (0, 1, bits - 1, bits, bits + 1, 2 * bits + 3):
        for name in ("left_shift", "right_shift"):
            assert_parity(lambda xp, n=name, s=shift: getattr(xp, n)(
                xp.asarray(a), xp.asarray(np.full(a.shape, s, dt))), context=(name, shift))


def test_isnat_rejects_numbers():
    assert_parity(lambda xp: xp.isnat(xp.asarray([1.0, 2.0])))
    assert_parity(lambda xp: xp.isnat(xp.asarray([1, 2])))


@pytest.mark.parametrize("name", ["add", "sin", "divmod", "frexp", "less"])
def test_out_where_dtype(name):
    uf = getattr(np, name)
    a = np.array([[0.5, -1.5, 3.0], [2.0, -0.0, 8.0]])
    mask = np.array([True, False, True])

    def run(xp, **kw):
        args = [xp.asarray(a)] * uf.nin
        outs = tuple(xp.ones(a.shape, dtype=d) for d in uf.resolve_dtypes(
            (a.dtype,) * uf.nin + (None,) * uf.nout)[uf.nin:])
        res = getattr(xp, name)(*args, out=outs if uf.nout > 1 else outs[0], **kw)
        return res, outs

    assert_parity(_call(run), name=name)
    assert_parity(_call(lambda xp: run(xp, where=xp.asarray(mask))), name=name)
    if uf.nout == 1:
        assert_parity(_call(lambda xp: getattr(xp, name)(*[xp.asarray(a)] * uf.nin,
                                                         dtype=np.float32)), name=name)
        assert_parity(_call(lambda xp: getattr(xp, name)(*[xp.asarray(a)] * uf.nin,
                                                         dtype=np.int64)), name=name)
        assert_parity(_call(lambda xp: getattr(xp, name)(
            *[xp.asarray(a)] * uf.nin, dtype=np.int64, casting="unsafe")), name=name)


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_casting_and_out_dtype(casting):
    a = np.array([1.5, -2.5])
    assert_parity(lambda xp: xp.add(xp.asarray(a), 1, casting=casting))
    assert_parity(lambda xp: xp.add(xp.asarray(a), xp.asarray(a, np.float32),
                                    casting=casting))
    assert_parity(lambda xp: xp.add(xp.asarray(a), 1, out=xp.zeros(2, np.int64),
                                    casting=casting))
    assert_parity(lambda xp: xp.add(xp.asarray(a), 1, out=xp.zeros(2, np.float32),
                                    casting=casting))


def test_out_is_returned_and_view_written():
    def run(xp):
        base = xp.zeros(5)
        view = base[1:4]
        res = xp.add(xp.asarray([1.0, 2.0, 3.0]), 1.0, out=view)
        return res is view, base

    assert_parity(run)
    assert_parity(lambda xp: xp.add(xp.ones(3), 1, out=xp.zeros(4)))
    assert_parity(lambda xp: xp.add(xp.ones(3), 1, out=(xp.zeros(3), xp.zeros(3))))
    assert_parity(lambda xp: xp.add(xp.ones((2, 3)), 1, xp.zeros((2, 3))))


def test_positional_out_with_a_warm_fast_path():
    """Regression: the fast path once dropped a Python int operand and ignored ``out``."""
    a = npjax.ones((2, 3))
    npjax.add(a, a)
    npjax.add(a, 1.0)
    out = npjax.zeros((2, 3))
    assert npjax.add(a, 1, out) is out
    assert out.tolist() == [[2.0] * 3] * 2
    assert npjax.add(a, a, out) is out


def test_scalar_results_are_numpy_scalars():
    assert_parity(lambda xp: xp.add(1.0, 2))
    assert_parity(lambda xp: xp.sin(xp.float32(1.0)))
    assert_parity(lambda xp: xp.add(xp.asarray(1.0), 2))
    assert_parity(lambda xp: xp.divmod(7, 2))
    assert_parity(lambda xp: xp.add(True, True))
    assert_parity(lambda xp: xp.add(1, 1.5j))
    assert_parity(lambda xp: xp.equal(xp.asarray([1, 2]), None))
    assert_parity(lambda xp: xp.add([1, 2], [[3], [4]]))


def test_wrong_argument_counts():
    assert_parity(lambda xp: xp.add(xp.ones(2)))
    assert_parity(lambda xp: xp.sin(xp.ones(2), xp.ones(2), xp.ones(2)))
    assert_parity(lambda xp: xp.add(xp.ones(2), xp.ones(3)))


# --- gufuncs -------------------------------------------------------------------------------

_GU_SHAPES = {
    "matmul": [((2, 3), (3, 4)), ((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)),
               ((2, 1, 2, 3), (4, 3, 2)), ((0, 3), (3, 2)), ((2, 3), (4, 2)), ((), (3,)),
               ((3,), (4,))],
    "vecdot": [((3,), (3,)), ((2, 3), (3,)), ((2, 1, 3), (4, 3)), ((0,), (0,)),
               ((3,), (4,)), ((), ())],
    "matvec": [((2, 3), (3,)), ((4, 2, 3), (1, 3)), ((2, 3), (2,)), ((3,), (3,))],
    "vecmat": [((3,), (3, 2)), ((4, 3), (1, 3, 2)), ((2,), (3, 2)), ((3,), (3,))],
}


@pytest.mark.parametrize("name", GUFUNCS)
@settings(max_examples=_N, phases=_NO_SHRINK)
@given(data=st.data())
def test_gufunc_parity(name, data):
    sa, sb = data.draw(st.sampled_from(_GU_SHAPES[name]))
    da = data.draw(S.dtypes)
    db = data.draw(st.one_of(st.just(da), S.dtypes))
    a = data.draw(S.arrays(da, st.just(sa), allow_nan=False, allow_infinity=False)
                  if da.kind in "fc" else S.arrays(da, st.just(sa)))
    b = data.draw(S.arrays(db, st.just(sb), allow_nan=False, allow_infinity=False)
                  if db.kind in "fc" else S.arrays(db, st.just(sb)))
    if da.kind in "fc":
        a = np.clip(a.real, -1e3, 1e3).astype(da) if da.kind == "f" else a
    if db.kind in "fc":
        b = np.clip(b.real, -1e3, 1e3).astype(db) if db.kind == "f" else b
    if da.kind == "c" or db.kind == "c":
        a = a if da.kind != "c" else (a.real.clip(-1e3, 1e3) + 0j).astype(da)
        b = b if db.kind != "c" else (b.real.clip(-1e3, 1e3) + 0j).astype(db)
    assert_parity(_call(lambda xp: getattr(xp, name)(xp.asarray(a), xp.asarray(b))),
                  name=name, context=(a, b))


def test_matmul_bool_and_out():
    a = np.array([[True, False], [True, True]])
    assert_parity(lambda xp: xp.matmul(xp.asarray(a), xp.asarray(a)))
    assert_parity(lambda xp: xp.matmul(xp.asarray(a), xp.asarray(a), out=xp.zeros((2, 2))))
    assert_parity(lambda xp: xp.asarray(a, dtype=np.int8) @ xp.asarray(a))


def _swapped(v):
    """``v`` stored big-endian (as read from a file or the network), same values."""
    if isinstance(v, np.ndarray) and v.dtype.itemsize > 1:
        return v.astype(v.dtype.newbyteorder(">"))
    return v


@pytest.mark.parametrize("name", ELEMENTWISE)
@settings(max_examples=3, phases=_NO_SHRINK)
@given(data=st.data())
def test_byte_swapped_operands(name, data):
    # A big-endian dtype raised JAX's TypeError; such arrays stay on the host as NumPy keeps
    # them, and ufuncs given them compute NumPy's values and result dtypes.
    uf = getattr(np, name)
    ops = [_swapped(v) for v in data.draw(_operands(uf.nin))]
    assert_parity(_call(lambda xp: getattr(xp, name)(*[_as_xp(xp, v) for v in ops])),
                  name=name, context=ops)


@pytest.mark.parametrize("fn", [
    lambda xp: xp.asarray(np.arange(4, dtype=">i4")) * 3,
    lambda xp: xp.asarray(np.linspace(0, 1, 5, dtype=">f8")).sum(),
    lambda xp: xp.asarray(np.arange(6, dtype=">f4")).reshape(2, 3).T + 1,
    lambda xp: xp.arange(3, dtype=np.longdouble) * 2,
    lambda xp: xp.exp(np.ones(2, np.longdouble)),
    lambda xp: xp.mean(np.arange(4, dtype=np.clongdouble)),
    lambda xp: xp.zeros(3, dtype=">f8"),
])
def test_long_double_and_byte_swapped_arrays(fn):
    # Host arrays (NumPy's own, as NumPy keeps them) or device results of native dtypes:
    # NumPy's values, dtypes and shapes either way.
    want, got = fn(np), fn(npjax)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def _resolved(ufunc, dtypes, options):
    """``ufunc.resolve_dtypes``'s result, or the class of what it raised."""
    try:
        return ufunc.resolve_dtypes(dtypes, **options)
    except Exception as exc:
        return type(exc)


@pytest.mark.parametrize("name", sorted({getattr(np, n).__name__ for n in NAMES}))
def test_ufunc_introspection_is_numpys(name):
    """``inspect.signature``, pickling (the same object back) and ``resolve_dtypes`` (values
    and exception classes) as NumPy's ufunc of the same name."""
    import inspect
    import pickle

    ours, theirs = getattr(npjax, name), getattr(np, name)
    assert inspect.signature(ours) == inspect.signature(theirs)
    assert pickle.loads(pickle.dumps(ours)) is ours
    for dt in ("int8", "float32", "complex128", "bool"):
        dtypes = (np.dtype(dt),) * theirs.nin + (None,) * theirs.nout
        for options in ({}, {"casting": "no"}, {"reduction": True}):
            assert _resolved(ours, dtypes, options) == _resolved(theirs, dtypes, options)


@pytest.mark.parametrize("placement", ["auto", "device"])
def test_out_ellipsis_gives_arrays_never_scalars(placement):
    """``out=...``: NumPy's way to ask a ufunc (and its reduce, accumulate, outer) for
    arrays even where the result is 0-d."""
    calls = [lambda m: m.add(1.0, 2.0, out=...), lambda m: m.sin(m.float64(1.0), out=...),
             lambda m: m.divmod(7, 2, out=...), lambda m: m.add(m.arange(3), 1, out=...),
             lambda m: m.add.reduce(m.arange(3), out=...),
             lambda m: m.maximum.reduce(m.arange(4.0), out=...),
             lambda m: m.multiply.outer(m.arange(2), 3, out=...),
             lambda m: m.add.accumulate(m.arange(3), out=...)]
    with npjax.policy(placement=placement):
        for call in calls:
            got, want = call(npjax), call(np)
            for g, w in zip(got if isinstance(want, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                assert isinstance(g, npjax.ndarray) and type(w) is np.ndarray
                assert (g.shape, g.dtype) == (w.shape, w.dtype)
                np.testing.assert_array_equal(np.asarray(g), w)
                assert repr(g) == repr(w)
