"""``a[index]`` and ``a[index] = value`` against NumPy: random index expressions and values.

Every case runs the same code through NumPy and npjax (``assert_parity``): the result (kind,
shape, dtype, values) or the exception family must agree, and after a write the whole array
must agree.
"""

from __future__ import annotations

import warnings
import weakref

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from npjax._library import _memory
from tests import strategies as S
from tests._parity import assert_parity

# --- index expressions ------------------------------------------------------------------------
# An index is described by a tuple of specs (hashable, printable); ``build`` makes the real
# index for one namespace, so npjax arrays in the index are made by npjax itself.


def _int_array_spec(side: int):
    values = st.integers(-side - 2, side + 1)
    shape = st.lists(st.integers(0, 3), min_size=0, max_size=2).map(tuple)
    return st.tuples(st.just("iarr"), st.sampled_from(["list", "np", "xp"]),
                     shape.flatmap(lambda s: S.hnp.arrays(np.int64, s, elements=values)))


def _mask_spec(shape: tuple, axis: int):
    """A boolean mask for the axes from ``axis`` on (sometimes of the wrong shape)."""
    rest = shape[axis:]
    good = st.integers(1, max(1, len(rest))).map(lambda n: rest[:n]) if rest else st.just(())
    wrong = S.shapes(min_dims=1, max_dims=2, max_side=4)
    mask_shape = st.one_of(good, good, good, wrong)
    return st.tuples(st.just("mask"), st.sampled_from(["np", "xp", "list"]),
                     mask_shape.flatmap(lambda s: S.hnp.arrays(np.bool_, s)))


@st.composite
def index_specs(draw, shape: tuple, basic_only: bool = False):
    n_items = draw(st.integers(0, len(shape) + 2))
    specs = []
    axis = 0
    for _ in range(n_items):
        side = shape[axis] if axis < len(shape) else 2
        kinds = ["int", "slice", "slice", "new", "ellipsis"]
        if not basic_only:
            kinds += ["iarr", "iarr", "mask", "bool0", "float", "npint"]
        kind = draw(st.sampled_from(kinds))
        if kind == "int":
            specs.append(("int", draw(st.integers(-side - 2, side + 1))))
            axis += 1
        elif kind == "npint":
            specs.append(("npint", draw(st.integers(-side - 1, side))))
            axis += 1
        elif kind == "slice":
            bound = st.one_of(st.none(), st.integers(-6, 6))
            step = st.one_of(st.none(), st.integers(-3, 3))
            specs.append(("slice", draw(bound), draw(bound), draw(step)))
            axis += 1
        elif kind == "new":
            specs.append(("new",))
        elif kind == "ellipsis":
            specs.append(("ellipsis",))
        elif kind == "iarr":
            specs.append(draw(_int_array_spec(side)))
            axis += 1
        elif kind == "mask":
            spec = draw(_mask_spec(shape, axis))
            specs.append(spec)
            axis += spec[2].ndim
        elif kind == "bool0":
            specs.append(("bool0", draw(st.sampled_from(["py", "np", "arr0"])),
                          draw(st.booleans())))
        else:
            specs.append(("float", 1.0))
            axis += 1
    as_tuple = len(specs) != 1 or draw(st.booleans())
    return tuple(specs), as_tuple


def build(spec: tuple, xp) -> object:
    specs, as_tuple = spec
    items = []
    for s in specs:
        kind = s[0]
        if kind == "int":
            items.append(s[1])
        elif kind == "npint":
            items.append(np.int32(s[1]))
        elif kind == "slice":
            items.append(slice(s[1], s[2], s[3]))
        elif kind == "new":
            items.append(None)
        elif kind == "ellipsis":
            items.append(Ellipsis)
        elif kind in ("iarr", "mask"):
            form, arr = s[1], s[2]
            items.append(arr.tolist() if form == "list" else
                         xp.asarray(arr) if form == "xp" else arr)
        elif kind == "bool0":
            form, v = s[1], s[2]
            items.append(v if form == "py" else np.bool_(v) if form == "np" else
                         xp.asarray(v))
        else:
            items.append(s[1])
    if not as_tuple:
        return items[0]
    return tuple(items)


cases = S.shapes(min_dims=0, max_dims=4, min_side=0, max_side=4).flatmap(
    lambda shape: st.tuples(S.arrays(S.dtypes, st.just(shape)), index_specs(shape)))


def shares(xp, a, b) -> bool:
    """``shares_memory`` of the namespace (npjax's from its module until it is exported)."""
    fn = np.shares_memory if xp is np else getattr(npjax, "shares_memory",
                                                    _memory.shares_memory)
    return fn(a, b)


# --- getitem --------------------------------------------------------------------------------


@given(cases)
def test_getitem_parity(case):
    host, spec = case

    def fn(xp):
        return xp.asarray(host)[build(spec, xp)]

    assert_parity(fn, context=(host.shape, host.dtype, spec))


@given(S.shapes(min_dims=0, max_dims=4, max_side=4).flatmap(
    lambda shape: st.tuples(st.just(shape), index_specs(shape, basic_only=True))))
def test_basic_getitem_is_a_view(case):
    shape, spec = case
    host = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)

    def fn(xp):
        a = xp.asarray(host.copy())
        v = a[build(spec, xp)]
        is_scalar = not isinstance(v, np.ndarray) if xp is np else (
            not isinstance(v, npjax.ndarray) or v._scalar)
        if is_scalar:
            return ("scalar",)
        facts = (v.base is a, v.flags.owndata, v.flags.writeable, v.flags.c_contiguous,
                 v.flags.f_contiguous, v.strides, shares(xp, a, v))
        v[...] = -1.0
        return facts, a

    assert_parity(fn, context=(shape, spec))


def test_getitem_errors():
    a = np.arange(12.0).reshape(3, 4)
    for index in [(0, 0, 0), 3, -4, (slice(None), 4), slice(None, None, 0), 1.0,
                  np.float64(1.0), [1.0], [[0, 1], [0, 1, 2]], (Ellipsis, Ellipsis),
                  np.array([True, False]), [3], [-4], "a", (np.array([[True]]), 0),
                  ([0, 1], [0, 1, 2]), np.array([], bool), np.zeros((0, 0), bool),
                  (0, np.array([], bool)), ([], 5), (np.array([], bool), 9),
                  np.zeros((3, 0), bool), (slice(None), np.array([], bool))]:
        assert_parity(lambda xp, index=index: xp.asarray(a)[index], context=repr(index))


def test_scalar_results_are_scalars():
    a = np.arange(6.0).reshape(2, 3)
    for index in [(1, 2), (-1, -1), (np.int64(1), 0), (1, Ellipsis, 2), (1, 2, None), 1,
                  (np.array(1), 2)]:
        assert_parity(lambda xp, index=index: xp.asarray(a)[index], context=repr(index))
    assert_parity(lambda xp: xp.asarray(1.5)[()])
    assert_parity(lambda xp: xp.asarray(1.5)[...])
    assert_parity(lambda xp: xp.asarray(1.5)[None])


def test_npjax_scalar_as_index():
    a = npjax.asarray([10, 20, 30])
    i = a[0] // 10  # an npjax (NumPy-like) scalar
    assert int(a[i]) == 20
    assert a[[i, 0]].tolist() == [20, 10]


# --- setitem --------------------------------------------------------------------------------


def _value_strategy(target_dtype: np.dtype):
    """Values of several kinds: Python scalars, NumPy scalars and arrays, lists."""
    shape = S.shapes(min_dims=0, max_dims=3, max_side=4)
    small_dtypes = st.sampled_from([d for d in S.ALL
                                    if np.can_cast(d, target_dtype, "same_kind")])
    return st.one_of(
        st.tuples(st.just("py"), S.elements(target_dtype).map(lambda v: np.asarray(v).item())),
        st.tuples(st.just("npscalar"), S.elements(target_dtype).map(
            lambda v: np.asarray(v, target_dtype)[()])),
        st.tuples(st.just("np"), S.arrays(small_dtypes, shape)),
        st.tuples(st.just("list"), S.arrays(target_dtype, shape).map(lambda a: a.tolist())),
        st.tuples(st.just("xp"), S.arrays(st.sampled_from(
            [d for d in S.ALL if np.can_cast(d, target_dtype, "safe")]), shape)),
    )


def _value(v, xp):
    kind, data = v
    return xp.asarray(data) if kind == "xp" else data


set_cases = S.shapes(min_dims=0, max_dims=4, min_side=0, max_side=4).flatmap(
    lambda shape: S.dtypes.flatmap(lambda dtype: st.tuples(
        S.arrays(dtype, st.just(shape)), index_specs(shape), _value_strategy(dtype))))


@given(set_cases)
def test_setitem_parity(case):
    host, spec, value = case

    def fn(xp):
        a = xp.asarray(host.copy())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's cast RuntimeWarnings: values compared
            a[build(spec, xp)] = _value(value, xp)
        return a

    assert_parity(fn, context=(host.shape, host.dtype, spec, value))


@given(S.shapes(min_dims=1, max_dims=3, min_side=1, max_side=4).flatmap(
    lambda shape: st.tuples(S.arrays(np.int64, st.just(shape)),
                            index_specs(shape, basic_only=True))))
def test_setitem_through_view_then_read(case):
    host, spec = case

    def fn(xp):
        a = xp.asarray(host.copy())
        v = a[build(spec, xp)]
        if isinstance(v, np.generic) or getattr(v, "_scalar", False):
            return a
        v[...] = 7
        v += 1
        return a, v

    assert_parity(fn, context=(host.shape, spec))


@pytest.mark.parametrize("dtype,index,value", [
    (np.int64, 0, 2.9), (np.int64, slice(None), 2.9), (np.int8, 0, 1000),
    (np.int8, slice(None), 1000), (np.int8, slice(0, 1), [1000]), (np.int8, slice(0, 1),
                                                                   np.array([1000])),
    (np.int8, 0, np.int64(1000)), (np.int8, [0], np.int64(1000)), (np.float64, 0, 1 + 2j),
    (np.float64, slice(None), 1 + 2j), (np.int64, 0, np.nan), (np.int64, slice(None), np.nan),
    (np.int64, [0], np.nan), (np.int64, 0, np.inf), (np.uint8, 0, -1), (np.uint8, 0,
                                                                        np.int64(-1)),
    (np.bool_, 0, 5), (np.int64, 0, True), (np.float64, 0, None), (np.int64, 0, None),
    (np.int64, 0, [2]), (np.int64, 0, [[2]]), (np.int64, slice(0, 1), [[2]]),
    (np.int64, slice(0, 1), np.array([[2]])), (np.int64, 0, np.array([5])),
    (np.int64, 0, 2 ** 70), (np.uint64, 0, 2 ** 64 - 1), (np.float32, 0, 1e300),
    (np.int64, (0, Ellipsis), [[2]]), (np.int64, Ellipsis, np.array([1, 2, 3])),
    (np.int64, slice(None), [1, 2]), (np.int64, slice(None), np.ones((2, 3))),
    (np.int64, slice(None), np.ones((1, 1, 3))), (np.int64, [0, 1], [1, 2, 3]),
    (np.float64, np.array([True, False, True]), [1.5, 2.5]),
    (np.float64, np.array([True, False, True]), [1.5, 2.5, 3.5]),
])
def test_setitem_value_conversion(dtype, index, value):
    def fn(xp):
        a = xp.zeros(3, dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            a[index] = value
        return a

    assert_parity(fn, context=(dtype, index, value))


@pytest.mark.parametrize("xp", [np, npjax])
@pytest.mark.parametrize("index,value", [
    (0, np.complex128(1 + 2j)), (slice(None), np.array([1 + 2j])), ([0], np.complex64(1 + 1j)),
    (0, "xp"), (slice(None), "xp"),
])
def test_setitem_complex_warning(xp, index, value):
    a = xp.zeros(3)
    if isinstance(value, str):
        value = xp.asarray([1 + 2j, 3j, 1])[0 if index == 0 else slice(None)]
    with pytest.warns(np.exceptions.ComplexWarning):
        a[index] = value
    assert np.asarray(a)[0] == 1.0


def test_repeated_fancy_indices_last_write_wins():
    for index, value in [([0, 0, 0], [1, 2, 3]), ([1, -2, 1], [5, 6, 7]),
                         (([0, 0], [1, 1]), [4, 9])]:
        assert_parity(lambda xp, index=index, value=value: _set(xp, (4, 4), index, value))


def _set(xp, shape, index, value):
    a = xp.zeros(shape, np.int64)
    a[index] = value
    return a


def test_overlapping_assignment():
    def fn(xp):
        a = xp.asarray(np.arange(6.0))
        a[1:] = a[:-1]
        b = xp.asarray(np.arange(6.0))
        b[:-1] = b[1:]
        c = xp.asarray(np.arange(12.0).reshape(3, 4))
        c[:, ::-1] = c
        c.T[...] = c.T[::-1]
        return a, b, c

    assert_parity(fn)


def test_setitem_errors():
    cases = [(5, 1.0), (-6, 1.0), ([5], 1.0), (slice(None, None, 0), 1), (1.0, 1),
             (slice(None), [1, 2]), (slice(None), np.ones((2, 5))), (np.ones(4, bool), 1),
             ((0, 0), 1), ("a", 1)]
    for index, value in cases:
        def fn(xp, index=index, value=value):
            a = xp.zeros(5)
            a[index] = value
            return a

        assert_parity(fn, context=(index, value))


def test_read_only_and_scalar_writes_raise():
    def fn(xp):
        a = xp.zeros((3, 3))
        d = a.diagonal()
        d[0] = 1

    assert_parity(fn)

    with pytest.raises(ValueError):
        npjax.zeros(3)._broadcast_to((2, 3))[0, 0] = 1

    def fn3(xp):
        s = xp.asarray([1.0, 2.0])[0]
        s[()] = 3.0

    assert_parity(fn3)


def test_index_order_of_advanced_dims():
    a = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    for index in [(slice(None), [0, 1], [1, 2]), ([0, 1], slice(None), [1, 2]),
                  (slice(None), [0, 1], slice(None), [1, 2]), ([[0], [1]], 0, slice(1, 3)),
                  (0, slice(None), [1, 2]), (None, [0, 1], None, [1, 2]),
                  (Ellipsis, [0, 1]), ([1], Ellipsis, [2]), (np.array([[True, False, True]] * 2),
                                                             [0, 1])]:
        assert_parity(lambda xp, index=index: xp.asarray(a)[index], context=repr(index))
        def fn(xp, index=index):
            b = xp.asarray(a.copy())
            b[index] = -1
            return b

        assert_parity(fn, context=repr(index))


# --- hot loops: compile once, donate safely ---------------------------------------------------


@pytest.mark.eager_only
@pytest.mark.device_placement
def test_scalar_write_loop_donates_old_buffer():
    a = npjax.zeros(8, np.float32)  # (a device dtype on every backend)
    a[0] = 1.0  # first write: the initial buffer came from outside the write path
    for i in range(1, 8):
        held = a.to_jax()  # the user holds the current buffer: it must not be donated
        a[i] = float(i)
        assert not held.is_deleted()
        del held
    seen = []
    for i in range(8):
        seen.append(weakref.ref(a._value))
        a[i] = float(i) * 2
    # Nobody held the buffers: each write donated the previous one (deleted, or freed).
    for w in seen:
        arr = w()
        assert arr is None or arr.is_deleted()
    np.testing.assert_array_equal(np.asarray(a), np.arange(8.0) * 2)


@pytest.mark.device_placement
def test_donation_never_deletes_a_held_buffer():
    a = npjax.asarray(np.arange(5.0))
    a[0] = 1.0
    a[1] = 1.0
    b = a.copy()
    a[0] = 9.0
    assert b.tolist() == [1.0, 1.0, 2.0, 3.0, 4.0]
    b[4] = 7.0
    assert a.tolist() == [9.0, 1.0, 2.0, 3.0, 4.0]
    v = a[...]
    w = a.view()
    a[2] = -1.0
    assert v.tolist() == w.tolist() == a.tolist()
    x = a.to_jax()
    a[3] = 5.0
    assert not x.is_deleted() and float(x[3]) == 3.0
    s = npjax.asarray(np.array(2.5))
    t = s[()]
    s[()] = 1.0
    s[...] = 3.0
    assert float(t) == 2.5
    c = npjax.asarray(a)
    d = npjax.array(a)
    a[0] = 0.0
    a[1] = 0.0
    assert d.tolist()[0] == 9.0 and c.tolist()[0] == 0.0
    with npjax.policy(device="cpu"):
        e = npjax.array(a)
        a[0] = 4.0
        a[1] = 4.0
        assert e.tolist()[:2] == [0.0, 0.0]


def _cache_size(fn):
    return fn._cache_size() if hasattr(fn, "_cache_size") else None


def test_loops_compile_once():
    from npjax._core import _index_read, _index_write

    a = npjax.zeros(10)
    a[0] = 1.0
    a[1] = 1.0
    a[1]
    w = _index_write._owner_scalar_writer(1, True)
    r = _index_read._owner_scalar_reader(1)
    before = (_cache_size(w), _cache_size(r))
    for i in range(10):
        a[i] = float(i)
        a[-i - 1]
    assert (_cache_size(w), _cache_size(r)) == before
    # views: a row of a 2-d array, written and read by position
    m = npjax.zeros((4, 4))
    for i in range(4):
        m[i][i] = 1.0
        m[i, 1:3] = 2.0
    n = np.zeros((4, 4))
    for i in range(4):
        n[i][i] = 1.0
        n[i, 1:3] = 2.0
    np.testing.assert_array_equal(np.asarray(m), n)
    sizes = _index_write._updater.cache_info().currsize
    for i in range(4):
        m[i][i] = 3.0
        m[i, 1:3] = 4.0
    assert _index_write._updater.cache_info().currsize == sizes


def test_npjax_scalar_values_convert_as_numpy_scalars():
    for dtype, index in [(np.int8, 0), (np.int8, slice(None)), (np.int8, [0, 1]),
                         (np.uint8, 0), (np.int64, slice(1, None))]:
        for source in (np.array([1000, -1]), np.array([np.nan, 2.5]),
                       np.array([1 + 1j, 2j])):
            def fn(xp, dtype=dtype, index=index, source=source):
                a = xp.zeros(3, dtype)
                s = xp.asarray(source)[0]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    a[index] = s
                return a

            assert_parity(fn, context=(dtype, index, source))


@pytest.mark.device_placement
def test_augmented_slice_assignment_writes_once(monkeypatch):
    # ``a[1:-1] += 1.0`` is ``v = a[1:-1]; v += 1.0; a[1:-1] = v``: the last store puts a
    # view back where it came from, which changes nothing and must cost nothing.
    from npjax._core import _index_write

    writes = []
    real = _index_write.write_through
    monkeypatch.setattr(_index_write, "write_through", lambda *a: writes.append(1) or real(*a))

    def fn(xp):  # (float32: a device dtype on every backend; float64 is a host one on a TPU)
        a = xp.asarray(np.arange(10.0, dtype=np.float32))
        a[1:-1] += 1.0
        a[::3] *= 2.0
        a[1:] = a[:-1]  # same structure, other positions: a real write
        return a

    assert_parity(fn)
    writes.clear()  # (``--npjax-autojit`` runs the body twice, ``--npjax-jit`` traces it)
    fn(npjax)
    assert len(writes) == 3  # one per statement


# --- boolean mask stores: one program per shape ---------------------------------------------


@given(S.shapes(min_dims=1, max_dims=3, min_side=0, max_side=4).flatmap(
    lambda shape: st.tuples(
        S.arrays(S.dtypes, st.just(shape)),
        st.integers(1, len(shape)).flatmap(
            lambda n: S.hnp.arrays(np.bool_, st.just(shape[:n]))),
        st.sampled_from(["py", "zero_d", "rest", "per_element", "xp_rest"]),
        st.one_of(st.integers(0, 100), st.floats(0, 100)),  # in range of every dtype
        st.booleans())))
def test_mask_store_parity(case):
    host, mask, kind, number, through_view = case
    rest = host.shape[mask.ndim:]

    def value(xp):
        if kind == "py":
            return number
        if kind == "zero_d":
            return xp.asarray(number)
        if kind in ("rest", "xp_rest"):
            v = np.full(rest, number)
            return xp.asarray(v) if kind == "xp_rest" else v
        return np.full((int(mask.sum()),) + rest, number)  # the general path

    def fn(xp):
        a = xp.asarray(host.copy())
        target = a[...] if through_view else a
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's cast warnings: values compared
            target[xp.asarray(mask)] = value(xp)
        return a

    assert_parity(fn, context=(host.dtype, host.shape, mask, kind, number))


def test_mask_stores_compile_once_whatever_the_count():
    # A mask write in a loop compiled a scatter per count of true elements (Game of Life
    # made hundreds of programs); it is a ``where`` of one program per shape.
    rng = np.random.default_rng(0)
    a = npjax.zeros((40, 30))
    inner = a[1:-1]
    for step in range(12):
        if step == 2:
            npjax.reset_stats()
        mask = npjax.asarray(rng.random((38, 30)) < rng.random())
        inner[mask] = float(step)
        a[a > 5.0] = -1.0
    assert npjax.stats()["compiles"]["count"] == 0


@pytest.mark.parametrize("index", [np.array([True, False, True]), slice(0, 2), [0, 1]])
def test_complex_warning_points_at_the_callers_line(index):
    a = npjax.zeros(3)
    value = npjax.asarray([1 + 1j, 2 + 2j])
    with pytest.warns(np.exceptions.ComplexWarning) as seen:
        a[index] = value
    assert [w.filename for w in seen] == [__file__]  # one warning, at this line
