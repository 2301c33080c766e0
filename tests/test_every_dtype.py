"""Every NumPy dtype in an npjax array (issue 36, item 1).

Object, str/bytes, long double, datetime64/timedelta64, byte-swapped and structured/void data
live in npjax arrays whose storage is NumPy's (host arrays, whatever the placement); NumPy
computes every operation on them. Each test runs the same program through NumPy and npjax
(``assert_parity``: value, dtype, shape, exception class). The suite also runs under
``--npjax-placement=device``, where these arrays stay on the host and device operands come
to them; ``device_placement`` tests check that mixing explicitly.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from npjax._runtime import _stats
from tests._parity import assert_parity

# name -> code making a 4-element array of that family with ``xp``
FAMILIES = {
    "object": "xp.array([3, 'a', None, 2.5], dtype=object)",
    "object_ints": "xp.arange(4).astype(object)",
    "str": "xp.array(['b', 'a', 'cc', ''])",
    "bytes": "xp.array([b'b', b'a', b'cc', b''])",
    "longdouble": "xp.array([1.5, -2.25, 3.0, 0.5], dtype=xp.longdouble)",
    "clongdouble": "xp.array([1.5 + 1j, -2.25, 3.0j, 0.5], dtype=xp.clongdouble)",
    "datetime64": "xp.array(['2020-01-03', '2020-01-01', 'NaT', '2021-02-28'], dtype='M8[D]')",
    "timedelta64": "xp.array([3, -1, 0, 7], dtype='m8[s]')",
    "big_endian_int": "xp.array([3, 1, 2, 0], dtype='>i4')",
    "big_endian_float": "xp.array([3.5, -1.0, 2.0, 0.25], dtype='>f8')",
    "structured": "xp.array([(1, 2.5), (0, -1.0), (3, 0.5), (2, 1.0)], "
                  "dtype=[('a', 'i4'), ('b', 'f8')])",
    "void": "xp.array([b'ab1', b'cd2', b'ef3', b'gh4']).view('V3')",
}
NAMES = list(FAMILIES)


def make(xp, name):
    return eval(FAMILIES[name], {"xp": xp})


def _same(code, name, **extra):
    """Parity of ``code`` (an expression of ``xp`` and the family's array ``a``)."""
    def run(xp):
        env = {"xp": xp, "a": make(xp, name), "np": np, "pickle": pickle, **extra}
        exec(code, env)
        return env["r"]
    assert_parity(run, context=f"{name}: {code}")


@pytest.mark.parametrize("name", NAMES)
def test_made_as_npjax_host_arrays(name):
    a = make(npjax, name)
    assert type(a) is npjax.ndarray and isinstance(a, npjax.ndarray)
    assert a._host() is not None  # NumPy's storage, whatever the placement
    assert a.dtype == make(np, name).dtype
    assert_parity(lambda xp: make(xp, name))


@pytest.mark.parametrize("code", [
    "r = xp.zeros(3, dtype='U3')", "r = xp.empty(2, dtype=object)", "r = xp.ones(2, dtype='S2')",
    "r = xp.full(3, 'ab')", "r = xp.full(2, xp.datetime64('2020-01-01'))",
    "r = xp.zeros(2, dtype='M8[s]')", "r = xp.zeros((2, 2), dtype=[('x', 'f4'), ('y', 'i2')])",
    "r = xp.zeros(2, dtype=xp.longdouble)", "r = xp.zeros_like(xp.array(['a', 'bc']))",
    "r = xp.full_like(xp.arange(3), 'x', dtype='U1')", "r = xp.empty_like(a)",
    "r = xp.arange('2020-01', '2020-06', dtype='M8[M]')",
    "r = xp.arange(xp.datetime64('2020-01-01'), xp.datetime64('2020-01-04'))",
    "r = xp.fromiter(['a', 'bc'], dtype='U2')", "r = xp.fromiter(iter([1, None]), dtype=object)",
    "r = xp.frombuffer(b'abcd', dtype='S2')", "r = xp.frombuffer(b'\\x00\\x01\\x00\\x02', '>u2')",
    "r = xp.array([1, 2**70])", "r = xp.asarray(None)", "r = xp.array([[1], [2, 3]], dtype=object)",
    "r = xp.linspace(0, 1, 3).astype('U8')", "r = xp.array(a)", "r = xp.asarray(a) is a",
    "r = xp.array(a, copy=False) is a", "r = xp.asarray(a, dtype=a.dtype) is a",
    "r = xp.copy(a)", "r = a.copy()", "r = xp.ascontiguousarray(a)",
])
def test_creation(code):
    _same(code, "str")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("code", [
    "r = a.astype(object)", "r = a.astype('U12')", "r = a.astype('S12')",
    "r = a.astype(float)", "r = a.astype(xp.int64)", "r = a.astype(bool)",
    "r = xp.asarray(a, dtype=object)", "r = xp.array(a, dtype='U20')",
    "r = a.astype(object).astype(a.dtype)", "r = a.astype(a.dtype, copy=False) is a",
])
def test_astype_from_family(name, code):
    _same(code, name)


@pytest.mark.parametrize("target", [
    "object", "'U5'", "'S5'", "'M8[D]'", "'m8[s]'", "xp.longdouble", "'>i4'", "'>f8'",
    "[('a', 'i8')]", "'V8'",
])
@pytest.mark.parametrize("source", ["xp.arange(4)", "xp.arange(4.0) / 3", "xp.arange(4) > 1"])
def test_astype_to_family(source, target):
    _same(f"r = ({source}).astype({target})", "str")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("code", [
    "r = a[1]", "r = a[-1]", "r = a[1:3]", "r = a[::-1]", "r = a[[0, 2]]", "r = a[a.shape[0] - 5]",
    "r = a[xp.array([True, False, True, False])]", "r = a[None, 1:]", "r = a[..., 0]",
    "r = a.reshape(2, 2)[1, 0]", "r = a.reshape(2, 2).T", "r = a.reshape(2, 2)[:, 1]",
    "r = xp.take(a, [3, 0])", "r = a[xp.arange(2)]", "r = a[5]",
])
def test_index_reads(name, code):
    _same(code, name)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("code", [
    "a[0] = a[1]; r = a", "a[1:3] = a[2:4]; r = a", "a[[0, 3]] = a[[3, 0]]; r = a",
    "a[xp.array([True, False, False, True])] = a[1]; r = a", "a[::2] = a[1]; r = a",
    "a[...] = a[::-1].copy(); r = a", "a[:] = a[::-1]; r = a", "a.fill(a[2]); r = a",
    "a[7] = a[0]; r = a",
])
def test_index_writes(name, code):
    _same(code, name)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("code", [
    "v = a[1:]; v[0] = a[0]; r = (a, v)", "v = a.reshape(2, 2); v[1, 1] = a[0]; r = a",
    "v = a.reshape(2, 2).T; v[0, 1] = a[3]; r = (a, v.flags.c_contiguous)",
    "v = a[::2]; r = (v.base is a, v.flags.owndata, a.flags.owndata, xp.shares_memory(a, v))",
    "v = a.view(); v[2] = a[0]; r = (a, v.base is a)", "r = xp.may_share_memory(a, a.copy())",
    "r = (a.shape, a.strides, a.itemsize, a.nbytes, a.ndim, a.size, len(a))",
    "r = a.ravel()", "r = a.reshape(2, 2).flatten()", "r = xp.expand_dims(a, 0)",
    "r = xp.broadcast_to(a, (2, 4))", "r = a.flags.writeable",
])
def test_views_and_layout(name, code):
    _same(code, name)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("code", [
    "r = xp.sort(a)", "r = xp.argsort(a, kind='stable')", "r = a.copy(); r.sort()",
    "r = xp.concatenate([a, a[::-1]])", "r = xp.stack([a, a])", "r = xp.flip(a)",
    "r = xp.where(xp.array([True, False, True, False]), a, a[::-1])", "r = xp.roll(a, 1)",
    "r = xp.repeat(a, 2)", "r = xp.tile(a, 2)", "r = xp.unique(a)", "r = a == a",
    "r = a != a[::-1]", "r = a < a[::-1]", "r = xp.max(a)", "r = a.min()", "r = xp.argmax(a)",
    "r = a.sum()", "r = xp.cumsum(a)", "r = a.mean()", "r = xp.searchsorted(xp.sort(a), a)",
    "r = xp.isin(a, a[:2])", "r = xp.append(a, a[:1])", "r = xp.delete(a, 1)",
    "r = xp.insert(a, 1, a[0])", "r = xp.atleast_2d(a)", "r = xp.hstack([a, a])",
    "r = xp.split(a, 2)", "r = xp.array_equal(a, a.copy())",
])
def test_routines(name, code):
    _same(code, name)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("code", [
    "r = a.tolist()", "r = a[1:2].item()", "r = repr(a)", "r = str(a)",
    "r = a.tobytes() if a.dtype != object else None",  # (objects: their addresses)
    "r = pickle.loads(pickle.dumps(a))", "r = pickle.loads(pickle.dumps(a[::2]))",
    "r = list(a)", "r = xp.asarray(a).dtype", "r = format(a)", "r = bool(a[1:2])",
    "import copy; r = copy.deepcopy(a)",
])
def test_conversions_and_pickling(name, code):
    _same(code, name)


_DAYS = "d = xp.arange('2020-01-01', '2020-01-05', dtype='M8[D]'); "


@pytest.mark.parametrize("code", [
    # strings
    "s = xp.array(['ab', 'c', 'ab']); r = s == 'ab'",
    "s = xp.array(['ab', 'c', 'ab']); r = s < xp.array(['b'])",
    "s = xp.array(['ab', 'c']); r = s + s",
    "s = xp.array(['ab', 'c']); r = xp.add(s, '!')",
    "s = xp.array(['ab', 'c']); r = s * 2",
    "s = xp.array([b'ab', b'c']); r = s == b'c'",
    "s = xp.array(['ab', 'c']); r = xp.equal(s, s[::-1])",
    "s = xp.array(['ab', 'c']); r = xp.maximum(s, s)",
    "s = xp.array(['ab', 'c']); r = xp.char.upper(s).tolist()",
    # datetimes
    _DAYS + "r = d - d[0]",
    _DAYS + "r = d + xp.timedelta64(1, 'h')",
    _DAYS + "r = (d - d[0]) / xp.timedelta64(1, 'h')",
    _DAYS + "r = xp.diff(d)",
    _DAYS + "r = d > xp.datetime64('2020-01-02')",
    "d = xp.array(['NaT', '2020-01-01'], dtype='M8[s]'); r = xp.isnat(d)",
    "t = xp.array([1, 2, 3], dtype='m8[s]'); r = (t * 2, t // 2, -t, abs(t), t.sum(), t.mean())",
    "t = xp.array([1, 2, 3], dtype='m8[s]'); r = t + 1",
    _DAYS + "r = d + d",
    _DAYS + "r = xp.datetime_as_string(d)",
    _DAYS + "r = d.astype('M8[h]')",
    # objects
    "o = xp.array([1, 2.5, 3], dtype=object); r = o + 1",
    "o = xp.array([1, 2.5, 3], dtype=object); r = o * o",
    "o = xp.array(['x', 'y'], dtype=object); r = o + 'z'",
    "o = xp.array([1, 2**80], dtype=object); r = (o * 3).sum()",
    "o = xp.array([1, None], dtype=object); r = o == None",
    "o = xp.array([[1, 2], [3, 4]], dtype=object); r = o @ o",
    "o = xp.array([1, 'a'], dtype=object); r = o + 1",
    "o = xp.array([3, 1, 2], dtype=object); r = (xp.sort(o), o.max(), xp.cumsum(o))",
    "o = xp.array([3, 1, 2], dtype=object); r = xp.sqrt(o)",
    # long double, byte order, structured
    "x = xp.array([1.5, 2.5], dtype=xp.longdouble); r = (xp.sqrt(x), x.sum(), x * 3, x / 7)",
    "x = xp.array([1.5, 2.5], dtype=xp.longdouble); r = xp.exp(x) > 4",
    "x = xp.array([1, 2], dtype='>i4'); r = (x + 1, x.byteswap(), x.view('<i4'), x.sum())",
    "x = xp.array([1.0, 2.0], dtype='>f8'); r = xp.sin(x)",
    "x = xp.zeros(2, dtype=[('a', 'i4'), ('b', 'f8')]); x['a'] = [1, 2]; r = (x, x['a'])",
    "x = xp.zeros(2, dtype=[('a', 'i4'), ('b', 'f8')]); x[1] = (5, 1.5); r = (x[1], x['b'])",
    "x = xp.zeros(2, dtype=[('a', 'i4'), ('b', 'f8')]); r = x[['b', 'a']]",
    "x = xp.zeros(2, dtype=[('a', 'i4'), ('b', 'f8')]); x['b'] += 2; r = x",
    "x = xp.zeros(2, dtype=[('a', 'i4'), ('b', 'f8')]); r = x == x",
])
def test_ufuncs_numpy_supports(code):
    _same(code, "str")


@pytest.mark.parametrize("code", [
    "o = xp.empty(2, dtype=object); r = xp.add(xp.array([1, 2], dtype=object), 1, out=o); "
    "r = (r is o, o)",
    "t = xp.empty(3, dtype='m8[D]'); d = xp.arange('2020-01-01', '2020-01-04', dtype='M8[D]'); "
    "r = (xp.subtract(d, d[0], out=t) is t, t)",
    "s = xp.empty(2, dtype='U4'); r = (xp.add(xp.array(['a', 'b']), 'c', out=s) is s, s)",
    "b = xp.empty(2, dtype=bool); r = (xp.equal(xp.array(['a', 'b']), 'a', out=b) is b, b)",
    "o = xp.zeros(2, dtype=object); o += 1; o *= 3; r = o",
    "x = xp.ones(2, dtype=xp.longdouble); x += 1; r = x",
    "d = xp.arange('2020-01-01', '2020-01-03', dtype='M8[D]'); d += xp.timedelta64(1, 'D'); r = d",
    "s = xp.empty(2, dtype='U4'); xp.copyto(s, xp.array(['ab', 'c'])); r = s",
    "f = xp.zeros(2); xp.copyto(f, xp.array([1.5, 2.5], dtype=xp.longdouble)); r = f",
    "o = xp.empty(3, dtype=object); xp.copyto(o, xp.arange(3.0)); r = o",
    "f = xp.zeros(2); r = (xp.add(xp.array([1, 2], dtype=object), 1, out=f) is f, f)",
])
def test_out_and_in_place(code):
    _same(code, "str")


def test_isinstance_and_out_accepted():
    words = npjax.array(["a", "b"])
    assert isinstance(words, npjax.ndarray)
    out = npjax.empty(2, dtype=bool)
    assert npjax.equal(words, "a", out=out) is out and out.tolist() == [True, False]


def test_object_arrays_hold_the_objects_themselves():
    a, b = npjax.arange(3.0), npjax.ones(3)
    o = npjax.empty(3, dtype=object)
    o[1] = a
    o[2] = b
    assert o[1] is a and o[2] is b and o[0] is None
    o[0] = [1, 2]
    assert o[0] == [1, 2]
    lst = npjax.array([a, None], dtype=object)
    assert lst.shape == (2,) and lst[1] is None and lst[0] is a
    ragged = npjax.array([a, npjax.ones(2)], dtype=object)  # NumPy meets the items itself
    assert ragged.shape == (2,) and ragged[0] is a
    grid = npjax.array([a, a], dtype=object)  # equal shapes: their elements, as in NumPy
    assert grid.shape == (2, 3) and grid[1, 2] == 2.0
    n = np.arange(2.0)
    m = npjax.empty((2, 2), dtype=object)
    m[0, 1] = n
    assert m[0, 1] is n and m[(1, 0)] is None and type(m[0]) is npjax.ndarray
    total = o[1:].sum()  # the arrays' own addition: an npjax array
    assert isinstance(total, npjax.ndarray) and total.tolist() == [1.0, 2.0, 3.0]
    assert o[1] is a  # unchanged by the sum


@pytest.mark.device_placement
@pytest.mark.parametrize("code", [
    "r = xp.arange(3.0) + xp.array([1, 2, 3], dtype=xp.longdouble)",
    "r = xp.array([1, 2, 3], dtype=object) * xp.arange(3)",
    "r = xp.concatenate([xp.array([1, 2], dtype=object), xp.arange(2)])",
    "r = xp.concatenate([xp.arange(2.0), xp.array([1, 2], dtype=xp.longdouble)])",
    "r = xp.where(xp.arange(3) > 0, xp.array(['a', 'b', 'c']), 'z')",
    "r = xp.arange(3).astype(object)", "r = xp.arange(3.0).astype('U8')",
    "r = xp.arange(3).astype('M8[D]')", "r = xp.array(['1', '2']).astype(float) + xp.arange(2)",
    "r = xp.array(['a', 'b'])[xp.arange(2) > 0]", "r = xp.array(['a', 'b'])[xp.arange(2)[::-1]]",
    "f = xp.zeros(2); xp.copyto(f, xp.array([1.5, 2.5], dtype=xp.longdouble)); r = f",
    "f = xp.zeros(2); r = (xp.add(xp.array([1, 2], dtype=object), 1, out=f) is f, f)",
    "s = xp.array(['a', 'b']); s[xp.arange(2)[:1]] = 'z'; r = s",
    "f = xp.arange(3.0); f[1] = xp.array([5], dtype=xp.longdouble)[0]; r = f",
    "o = xp.empty(2, dtype=object); o[:] = xp.arange(2.0); r = o",
    "d = xp.arange('2020-01-01', '2020-01-04', dtype='M8[D]'); r = d + xp.arange(3)",
    "r = xp.stack([xp.arange(2), xp.array([1, 2], dtype='>i4')])",
    "r = xp.array([1.5, 2.5], dtype=xp.longdouble).sum() + xp.arange(2.0)",
    "r = xp.sort(xp.array(['b', 'a'])), xp.unique(xp.array([3, 1, 3], dtype=object))",
    "r = xp.add.reduce(xp.array([1, 2], dtype=object))",
    "r = xp.multiply.outer(xp.array([1, 2], dtype=object), xp.arange(2))",
    "r = xp.array([1, 2], dtype=object) == xp.arange(2)",
])
def test_mixed_with_device_arrays(code):
    """Every array a device array except the host-only ones: those stay on the host, and a
    device operand comes to them (never a JAX error)."""
    _same(code, "str")


@pytest.mark.device_placement
def test_device_operands_come_to_the_host_once_counted():
    before = sum(_stats.host_only.values())
    d = npjax.arange(3.0, dtype=npjax.float32)  # (float64 is a host dtype on a TPU)
    assert d._host() is None
    r = d + npjax.array([1, 2, 3], dtype=object)
    assert r.dtype == object and r._host() is not None and r.tolist() == [1.0, 3.0, 5.0]
    assert sum(_stats.host_only.values()) > before
    words = npjax.array(["a", "b"])
    assert words._host() is not None  # the device cannot hold it: kept on the host


@pytest.mark.device_placement
def test_device_code_refuses_host_only_data_clearly():
    from npjax._pure._errors import HostOnly

    with pytest.raises(HostOnly, match="host only"):
        npjax.array(["a"])._read()  # what device code gets instead of a raw JAX error
    with pytest.raises(NotImplementedError, match="dtype"):  # no device view of these
        npjax.arange(3.0, dtype=npjax.float32).view("U2")


# --- properties ------------------------------------------------------------------------------

_text = st.text(alphabet="abcxyz", max_size=4)


@given(st.lists(_text, min_size=1, max_size=6), st.lists(_text, min_size=1, max_size=6))
def test_strings_compare_sort_and_join_as_numpy(xs, ys):
    def run(xp):
        a, b = xp.array(xs), xp.array(ys)
        return (xp.sort(a), a == a[::-1], xp.concatenate([a, b]), a + a, xp.unique(b),
                a.argsort(kind="stable"), xp.isin(a, b), a.astype(object).tolist())
    assert_parity(run, context=(xs, ys))


@given(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=6),
       st.sampled_from(["D", "h", "s", "ms"]), st.integers(-1000, 1000))
def test_datetime_arithmetic_as_numpy(days, unit, step):
    def run(xp):
        d = xp.array(days, dtype=f"M8[{unit}]")
        t = xp.timedelta64(step, unit)
        return (d + t, d - d[0], (d - d[0]) // xp.timedelta64(1, unit), xp.sort(d),
                d.max(), xp.diff(d), d.astype("M8[ms]"), xp.datetime_as_string(d[:1]))
    assert_parity(run, context=(days, unit, step))


@given(st.lists(st.one_of(st.integers(-2**70, 2**70), st.fractions(), _text), min_size=1,
                max_size=6))
def test_object_arrays_as_numpy(items):
    def run(xp):
        o = xp.empty(len(items), dtype=object)
        o[:] = items
        return (o.tolist(), o[::-1], o == o, xp.concatenate([o, o[:1]]), o + o,
                pickle.loads(pickle.dumps(o)))
    assert_parity(run, context=items)


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=6))
def test_long_double_and_byte_order_as_numpy(values):
    def run(xp):
        x = xp.array(values, dtype=xp.longdouble)
        y = xp.array(values, dtype=">f8")
        return (x * 3 + 1, x.sum(), xp.sort(x), y + 1, y.astype("<f8"), y.byteswap(),
                (x == y), x.astype(xp.float64))
    assert_parity(run, context=values)


# --- flags -----------------------------------------------------------------------------------


@pytest.mark.parametrize("make_array", [
    "xp.arange(6.0)", "xp.arange(6).reshape(2, 3)", "xp.arange(6).reshape(2, 3).T",
    "xp.arange(6)[::2]", "xp.array(['a', 'b'])", "xp.arange(3.0)[1]",
    "xp.broadcast_to(xp.arange(3), (2, 3))", "xp.arange(4).view(xp.int32)",
])
def test_flags_as_numpy(make_array):
    keys = ["C", "F", "O", "W", "A", "X", "B", "CA", "FA", "FNC", "FORC", "BEHAVED",
            "CARRAY", "FARRAY", "ALIGNED", "WRITEBACKIFCOPY", "OWNDATA", "WRITEABLE",
            "C_CONTIGUOUS", "F_CONTIGUOUS", "CONTIGUOUS", "FORTRAN"]

    def run(xp):
        a = eval(make_array, {"xp": xp})
        f = a.flags
        return ([f[k] for k in keys], f.aligned, f.behaved, f.carray, f.farray, f.fnc, f.forc,
                f.writebackifcopy, f.num, f == a.copy().flags, f == a.flags, repr(f))
    assert_parity(run, context=make_array)


def test_flags_keys_and_settings_as_numpy():
    def run(xp):
        a = xp.arange(3.0)
        a.flags["W"] = False
        try:
            a[0] = 1
        except ValueError:
            written = False
        else:
            written = True
        a.flags.writeable = True
        return written, a.flags["WRITEABLE"], a.flags == xp.arange(3.0).flags
    assert_parity(run)
    for xp in (np, npjax):
        with pytest.raises(KeyError):
            xp.arange(3).flags["Q"]


# --- NumPy's own code on these arrays: strings, iterators, random, loops ----------------------


@pytest.mark.parametrize("code", [
    "r = xp.strings.upper(xp.array(['ab', 'c']))", "r = xp.char.upper(xp.array(['ab', 'c']))",
    "r = xp.strings.str_len(xp.array(['ab', 'c']))", "r = xp.strings.find(a, 'b')",
    "r = xp.char.add(a, a)", "r = xp.strings.startswith(a, 'b')",
    "r = list(xp.ndenumerate(a))", "r = [x.tolist() for x in xp.nditer(a)]",
    "r = a.flat[1]", "r = a.flat[[0, 2]]", "r = a.copy(); r.flat[1] = 'q'",
    "r = list(a.flat)", "r = a.flat.copy()",
    "r = xp.frompyfunc(lambda s: s * 2, 1, 1)(a)", "r = xp.vectorize(lambda s: s + '!')(a)",
    "r = xp.apply_along_axis(lambda v: v[::-1], 0, a)",
    "r = xp.lib.recfunctions.structured_to_unstructured("
    "xp.zeros(2, dtype=[('x', 'f8'), ('y', 'f8')]))",
])
def test_numpys_own_code_gives_npjax_arrays(code):
    _same(code, "str")


@pytest.mark.parametrize("name", ["str", "object", "datetime64", "structured"])
def test_random_draws_of_host_only_arrays(name):
    a = make(npjax, name)
    rng = npjax.random.default_rng(0)
    for r in (rng.permutation(a), rng.choice(a, 3), rng.choice(a, 2, replace=False)):
        assert type(r) is npjax.ndarray and r.dtype == a.dtype
        assert all(x in a.tolist() for x in r.tolist())
    b = a.copy()
    rng.shuffle(b)
    assert sorted(map(str, b.tolist())) == sorted(map(str, a.tolist()))


def test_foreign_ufuncs_give_npjax_arrays():
    """A ufunc npjax does not have (NumPy's string loops, another library's) runs its own
    loops on the host."""
    from numpy._core import umath

    r = np.strings.str_len(npjax.array(["ab", "c"]))  # NumPy's function, npjax's array
    assert type(r) is npjax.ndarray and r.tolist() == [2, 1]
    r = umath.str_len(npjax.array(["abc"]))
    assert type(r) is npjax.ndarray and r.tolist() == [3]
    special = pytest.importorskip("scipy.special")
    x = npjax.arange(3.0)
    r = special.erf(x)
    assert type(r) is npjax.ndarray
    np.testing.assert_allclose(np.asarray(r), special.erf(np.arange(3.0)), rtol=0)
    out = npjax.zeros(3)
    assert special.erf(x, out=out) is out and out.tolist() == r.tolist()


def test_numpy_subclass_views_and_protocols_of_host_only_data():
    s = npjax.array([(1, 2.0)], dtype=[("a", "i4"), ("b", "f8")])
    r = s.view(np.recarray)  # NumPy's own view of the host memory
    r.a[0] = 7
    assert type(r) is np.recarray and s["a"][0] == 7
    assert type(npjax.rec.array(s)) is np.recarray
    c = npjax.array(["ab"]).view(np.char.chararray)
    assert type(c) is np.char.chararray and c.upper().tolist() == ["AB"]
    assert "descr" in s.__array_interface__  # NumPy reads it back exactly
    picked = s[["b", "a"]]  # offsets the interface cannot say: NumPy takes __array__
    assert not hasattr(picked, "__array_interface__")
    assert np.asarray(picked).dtype == np.asarray(s)[["b", "a"]].dtype
    assert np.shares_memory(np.asarray(picked), np.asarray(s))
    assert not hasattr(npjax.array(["a"]), "__array_struct__")  # NumPy misreads str capsules
