"""Casts of device arrays: NumPy's values, warnings and errors for NaN, infinities and
out-of-range floats cast to integers, and overflowing casts to narrower floats (``_casts``).

NumPy's values for invalid casts are those of the C conversion on the machine it runs on
(and of its SIMD or scalar loop): npjax computes them with NumPy on a host copy, so the
parity below is exact for contiguous arrays of the same shape."""

from __future__ import annotations

import warnings

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from tests import strategies as S
from tests._parity import assert_same, family

pytestmark = pytest.mark.device_placement

# Finite values around every integer range (and past them), plus NaN and infinities.
_SPECIAL = [numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 0.5, -0.5, -1.0, -1.5, 3.7, 127.0,
            128.0, -128.0, -129.0, 255.0, 256.0, 300.0, -300.0, 32767.0, 32768.0, -32769.0,
            65535.0, 65536.0, 65504.0, 2.0**31, -2.0**31, -2.0**31 - 1, 2.0**32, 2.0**32 - 1,
            2.0**63, -2.0**63, 2.0**64, 1e19, -1e19, 1e20, 1e38, 1e300, -1e300]
_SOURCES = S.FLOAT + S.COMPLEX
_TARGETS = S.INTEGER


def _values(dtype: numpy.dtype):
    """Values of float or complex ``dtype``, specials often."""
    special = st.sampled_from(_SPECIAL)
    width = dtype.itemsize * 8
    base = (st.floats(width=width, allow_subnormal=False) if dtype.kind == "f"
            else st.complex_numbers(width=width, allow_subnormal=False))
    return st.one_of(special, special, base)


def _run(lib, fn):
    """``fn(lib)``'s result (or exception) and the classes of the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(lib)
        except Exception as exc:  # compared with NumPy's
            result = exc
    return result, sorted({w.category.__name__ for w in caught})


def check(fn, context=""):
    """``fn`` on NumPy and npjax: same value, dtype, shape, exception family and warning
    classes."""
    want, want_warn = _run(numpy, fn)
    got, got_warn = _run(npjax, fn)
    where = f"\n  case: {context}"
    if isinstance(want, Exception) or isinstance(got, Exception):
        assert isinstance(want, Exception) and isinstance(got, Exception), (
            f"NumPy: {want!r}, npjax: {got!r}{where}")
        assert family(got) is family(want), f"NumPy: {want!r}, npjax: {got!r}{where}"
    else:
        assert_same(got, want, where=where)
    assert got_warn == want_warn, f"warnings: NumPy {want_warn}, npjax {got_warn}{where}"


@st.composite
def _case(draw, sources=_SOURCES, targets=_TARGETS):
    src = draw(st.sampled_from(sources))
    dst = draw(st.sampled_from(targets))
    n = draw(st.integers(0, 20))
    values = draw(st.lists(_values(src), min_size=n, max_size=n))
    return src, dst, values


def _array(lib, values, src):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 1e300 as float32 is inf: not the cast under test
        host = numpy.array(values, dtype=src)
    return host if lib is numpy else npjax.array(host)


@given(_case())
def test_astype_float_to_int(case):
    src, dst, values = case
    check(lambda m: _array(m, values, src).astype(dst), (src, dst, values))


@given(_case())
def test_asarray_with_int_dtype(case):
    src, dst, values = case
    check(lambda m: m.asarray(_array(m, values, src), dtype=dst), (src, dst, values))


@given(_case())
def test_setitem_float_array_into_int_array(case):
    src, dst, values = case

    def store(m):
        a = m.zeros(len(values), dst)
        a[...] = _array(m, values, src)
        return a

    check(store, (src, dst, values))


@given(_case(sources=S.FLOAT))
def test_fancy_setitem(case):
    src, dst, values = case

    def store(m):
        a = m.ones(len(values), dst)
        a[m.arange(len(values))[::-1]] = _array(m, values, src)
        return a

    check(store, (src, dst, values))


@given(_case(sources=S.FLOAT))
def test_out_unsafe(case):
    src, dst, values = case
    check(lambda m: m.positive(_array(m, values, src), out=m.zeros(len(values), dst),
                               casting="unsafe"), (src, dst, values))


@given(_case(sources=S.FLOAT))
def test_copyto(case):
    src, dst, values = case

    def copy(m):
        a = m.zeros(len(values), dst)
        m.copyto(a, _array(m, values, src), casting="unsafe")
        return a

    check(copy, (src, dst, values))


@given(_case(targets=S.FLOAT + S.COMPLEX))
def test_float_to_float_casts(case):
    """Overflows to narrower floats: NumPy's "overflow encountered in cast"."""
    src, dst, values = case
    check(lambda m: _array(m, values, src).astype(dst), (src, dst, values))


@pytest.mark.parametrize("src", _SOURCES)
@pytest.mark.parametrize("dst", _TARGETS)
def test_every_pair_with_specials(src, dst):
    check(lambda m: _array(m, _SPECIAL, src).astype(dst), (src, dst))


@pytest.mark.parametrize("fn", [
    lambda m, a: m.add(a, 1, dtype=m.int64, casting="unsafe"),
    lambda m, a: m.sum(a, dtype=m.int64),
    lambda m, a: m.add.reduce(a, dtype=m.int8),
    lambda m, a: m.cumsum(a, dtype=m.int8),
    lambda m, a: m.add.accumulate(a, dtype=m.int16),
    lambda m, a: m.concatenate([a], dtype=m.int16, casting="unsafe"),
    lambda m, a: m.clip(a, 0, 10, out=m.zeros(a.shape, m.int16), casting="unsafe"),
    lambda m, a: m.full(a.shape, a, dtype=m.int32),
    lambda m, a: m.array(a, dtype=m.uint8),
    lambda m, a: m.linspace(0, a[2], 3, dtype=m.int64),
], ids=["ufunc_dtype", "sum", "reduce", "cumsum", "accumulate", "concatenate", "clip_out",
        "full", "array", "linspace"])
def test_other_paths(fn):
    values = [numpy.nan, numpy.inf, 1e300, 3.5, -1.0, 300.0]
    check(lambda m: fn(m, m.array(values)))


@pytest.mark.parametrize("store", [
    lambda a, v: a.__setitem__(1, v),
    lambda a, v: a.__setitem__(a == 0, v),
    lambda a, v: a.fill(v),
], ids=["element", "mask", "fill"])
def test_zero_d_array_values(store):
    def run(m):
        a = m.zeros(3, m.int64)
        store(a, m.array(numpy.nan))
        return a

    check(run)


def test_element_from_numpy_scalar_raises():
    """A NumPy scalar is converted as a Python float: NaN raises ValueError."""
    def run(m):
        a = m.zeros(3, m.int64)
        a[0] = m.array([numpy.nan])[0]
        return a

    check(run)


def test_put_and_place():
    def put(m):
        a = m.zeros(3, m.int8)
        m.put(a, [0, 1], m.array([numpy.nan, 300.0]))
        return a

    def place(m):
        a = m.zeros(3, m.int8)
        m.place(a, a == 0, m.array([numpy.nan, 300.0, 1.0]))
        return a

    check(put)
    check(place)  # NumPy casts arrays safely here: TypeError


def test_errstate_is_honoured():
    a = npjax.array([numpy.nan, 1.0])
    with npjax.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        a.astype(npjax.int64)
    with npjax.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert a.astype(npjax.int64).tolist() == [numpy.iinfo(numpy.int64).min, 1]
    calls = []
    with npjax.errstate(invalid="call", call=lambda *args: calls.append(args)):
        a.astype(npjax.int32)
    assert calls == [("invalid value", 8)]


def test_warning_at_the_callers_line():
    a = npjax.array([numpy.nan])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a.astype(npjax.int64)
        b = npjax.zeros(1, npjax.int8)
        b[:] = a
    assert [w.filename for w in caught] == [__file__, __file__]
    assert all(w.category is RuntimeWarning for w in caught)
    assert str(caught[0].message) == "invalid value encountered in cast"


def test_result_stays_on_the_device():
    a = npjax.array([numpy.nan, 2.0], numpy.float32)  # (a device dtype on every backend)
    with pytest.warns(RuntimeWarning):
        r = a.astype(npjax.int64)
    assert r._host() is None
    assert r.device == a.device


def test_float64_to_float16_rounds_once():
    """XLA on CPU casts float64 to float16 through float32; NumPy rounds once."""
    values = [1 + 2.0**-11 + 2.0**-40, -(1 + 2.0**-11 + 2.0**-40), 2.0**-25 + 2.0**-50,
              65519.99, 65520.0, 0.1]
    check(lambda m: m.array(values).astype(m.float16).view(m.uint16))


def test_jit_reruns_eagerly():
    """Under npjax.jit the check is a device flag: the call runs again eagerly."""
    @npjax.jit
    def f(x):
        return (x * 2).astype(npjax.int32)

    ok = f(npjax.array([1.5, 2.0]))
    assert ok.tolist() == [3, 4]
    with pytest.warns(RuntimeWarning, match="invalid value encountered in cast"):
        bad = f(npjax.array([numpy.nan, 2.0]))
    assert bad.tolist() == [numpy.iinfo(numpy.int32).min, 4]


def test_lazy_mode():
    with npjax.policy(mode="lazy"):
        a = npjax.array([1.0, 2.0]) * numpy.inf
        with pytest.warns(RuntimeWarning, match="invalid value encountered in cast"):
            r = a.astype(npjax.int16)
        assert r.tolist() == [0, 0]


@pytest.mark.parametrize("src", _SOURCES)
@pytest.mark.parametrize("dst", [numpy.dtype(numpy.int8), numpy.dtype(numpy.uint64),
                                 numpy.dtype(numpy.float16)])
def test_accelerator_branch(monkeypatch, src, dst):
    """Off the CPU backend the check is a kernel output read back: forced here on CPU."""
    from npjax._core import _casts

    monkeypatch.setattr(_casts, "on_host", lambda value: False)
    check(lambda m: _array(m, _SPECIAL, src).astype(dst), (src, dst))
    check(lambda m: _array(m, [1.5, -0.5, 100.0], src).astype(dst), (src, dst))


@pytest.mark.parametrize("fn", [
    lambda m, z: z.astype(m.bool_),
    lambda m, z: m.asarray(z, dtype=m.bool_),
    lambda m, z: (lambda b: (b.__setitem__(Ellipsis, z), b)[1])(m.zeros(3, m.bool_)),
    lambda m, z: (lambda b: (m.copyto(b, z, casting="unsafe"), b)[1])(m.zeros(3, m.bool_)),
], ids=["astype", "asarray", "setitem", "copyto"])
def test_complex_to_bool_is_nonzero_and_silent(fn):
    """NumPy casts complex to bool as "nonzero" (1j is True), with no ComplexWarning."""
    check(lambda m: fn(m, m.array([1j, 0j, 2 + 0j])))


@pytest.mark.parametrize("fn", [
    lambda m: m.positive(m.asarray([numpy.nan, 1.0]), out=m.zeros(2, numpy.int64),
                         casting="unsafe"),
    lambda m: m.add(m.asarray([numpy.inf]), 1.0, out=m.zeros(1, numpy.int32), casting="unsafe"),
    lambda m: m.multiply(m.asarray([1e10]), 1.0, out=m.zeros(1, numpy.float16),
                         casting="unsafe"),
    lambda m: m.sum(m.asarray([numpy.nan, 1.0]), out=m.zeros((), numpy.int64)),
    lambda m: m.prod(m.asarray([numpy.nan, 1.0]), out=m.zeros((), numpy.int64)),
    lambda m: m.max(m.asarray([numpy.nan, 1.0]), out=m.zeros((), numpy.int64)),
], ids=["positive", "add", "multiply-f16", "sum", "prod", "max"])
def test_cast_into_out_warns_in_numpys_loop(fn):
    """A ufunc casting into ``out`` reports the cast's floating-point errors as its own loop's
    ("invalid value encountered in add"), a sum or product as its reduce loop's, others as a
    cast: NumPy's messages."""
    def messages(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(lib)
        return [str(w.message) for w in caught]

    assert messages(npjax) == messages(numpy)
