"""Parity of the index helpers (npjax/_library/_index_tricks.py) with NumPy, and their mutations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from tests._parity import assert_parity, assert_same
from tests.strategies import ALL, FLOAT, INTEGER, arrays

PALETTE = [(), (0,), (1,), (3,), (4,), (2, 3), (3, 1), (1, 4), (0, 2), (2, 0), (2, 2, 2),
           (1, 3, 2), (3, 3), (4, 2), (2, 4)]


def shapes(min_dims=0, max_dims=3):
    return st.sampled_from([s for s in PALETTE if min_dims <= len(s) <= max_dims])


# --- r_, c_, s_, index_exp -----------------------------------------------------------------------

R_CASES = [
    lambda xp: xp.r_[1:4, 0, [5, 6]],
    lambda xp: xp.r_[xp.asarray([1, 2]), 3.5],
    lambda xp: xp.r_[np.int8(3), xp.asarray([1, 2], dtype=np.int8)],
    lambda xp: xp.r_[xp.asarray([1, 2], dtype=np.int8), 300],
    lambda xp: xp.r_[-1:1:6j, [0] * 3, 5, 6],
    lambda xp: xp.r_[0:1:0.25],
    lambda xp: xp.r_["-1", xp.arange(6).reshape(2, 3), xp.arange(6).reshape(2, 3)],
    lambda xp: xp.r_["0,2", [1, 2, 3], [4, 5, 6]],
    lambda xp: xp.r_["0,2,0", [1, 2, 3], [4, 5, 6]],
    lambda xp: xp.r_["1,2,0", [1, 2, 3], [4, 5, 6]],
    lambda xp: xp.r_["0,3,1", xp.asarray([[1, 2], [3, 4]]), [5, 6]],
    lambda xp: xp.r_[()],
    lambda xp: xp.r_[1, "0"],
    lambda xp: xp.r_["x", [1]],
    lambda xp: xp.r_["1,x", [1]],
    lambda xp: xp.r_[[1, 2], [[3]]],
    lambda xp: xp.r_[True, 2],
    lambda xp: xp.c_[xp.asarray([1, 2, 3]), xp.asarray([4, 5, 6])],
    lambda xp: xp.c_[[[1, 2, 3]], -1, -2, [[4, 5, 6]]],
    lambda xp: xp.c_[1:3, [5.5, 6]],
    lambda xp: xp.c_[xp.zeros((2, 2), np.float32), xp.ones(2, np.int16)],
]


@pytest.mark.parametrize("case", range(len(R_CASES)))
def test_r_c(case):
    assert_parity(R_CASES[case], context=case)


def test_r_matrix_directive():
    for key in ("r", "c"):
        with pytest.warns(PendingDeprecationWarning):
            want = np.r_[key, [1, 2, 3]]
        with pytest.warns(PendingDeprecationWarning):
            got = npjax.r_[key, npjax.asarray([1, 2, 3])]
        assert type(got) is type(want)
        np.testing.assert_array_equal(got, want)
    with pytest.raises(NotImplementedError):
        npjax.r_["a"]


def test_s_index_exp():
    a = npjax.arange(5)
    assert npjax.s_[1:3] == slice(1, 3)
    assert npjax.s_[1, ::2] == (1, slice(None, None, 2))
    assert npjax.index_exp[1:3] == (slice(1, 3),)
    assert npjax.index_exp[..., 1] == (Ellipsis, 1)
    assert npjax.s_[a] is a
    assert len(npjax.r_) == 0


# --- ix_ ----------------------------------------------------------------------------------------

ix_items = st.one_of(
    st.lists(st.integers(-3, 3), max_size=3),
    st.lists(st.booleans(), min_size=3, max_size=3),
    st.sampled_from([[], [[1]], 2, [1.5]]))


@given(st.lists(ix_items, max_size=3), st.booleans())
def test_ix(items, as_arrays):
    assert_parity(lambda xp: xp.ix_(*[xp.asarray(i) if as_arrays else i for i in items]),
                  context=items)


def test_ix_selects():
    host = np.arange(20).reshape(4, 5)
    a = npjax.asarray(host)
    assert_same(a[npjax.ix_([0, 2], [True, False, True, False, True])],
                host[np.ix_([0, 2], [True, False, True, False, True])])


# --- ravel_multi_index, unravel_index ---------------------------------------------------------

dims_st = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)
modes = st.sampled_from(["raise", "wrap", "clip", ("wrap", "clip", "raise"), "bad", 0, 1])
orders = st.sampled_from(["C", "F", "A", "c"])


@given(dims_st, st.data(), modes, orders, st.booleans())
def test_ravel_multi_index(dims, data, mode, order, as_arrays):
    idx_shape = data.draw(st.sampled_from([(), (3,), (2, 1)]))
    coords = [data.draw(arrays(np.dtype(np.int64), idx_shape, min_value=-6, max_value=8,
                               edge_rich=False)) for _ in dims]
    if isinstance(mode, tuple):
        mode = mode[:len(dims)]

    def run(xp):
        mi = tuple(xp.asarray(c) if as_arrays else c.tolist() for c in coords)
        return xp.ravel_multi_index(mi, dims, mode=mode, order=order)

    assert_parity(run, context=(coords, dims, mode, order))


@pytest.mark.parametrize("case", [
    lambda xp: xp.ravel_multi_index((1, 2), (3, 4)),
    lambda xp: xp.ravel_multi_index((1,), (3, 4)),
    lambda xp: xp.ravel_multi_index((1.0, 2), (3, 4)),
    lambda xp: xp.ravel_multi_index(([], []), (3, 4)),
    lambda xp: xp.ravel_multi_index((xp.asarray([1], np.uint8), True), (3, 4)),
    lambda xp: xp.ravel_multi_index((1, 2), (2 ** 40, 2 ** 40)),
    lambda xp: xp.ravel_multi_index(xp.asarray([[1, 2], [0, 1]]), (3, 4)),
    lambda xp: xp.ravel_multi_index(([1, 2], [[0], [1]]), (3, 4)),
    lambda xp: xp.ravel_multi_index(([1, 2], [0, 1, 2]), (3, 4)),
    lambda xp: xp.ravel_multi_index((1, -7), (3, 4), mode="wrap"),
    lambda xp: xp.ravel_multi_index((1, 9), (3, 4), mode=("clip", "wrap")),
    lambda xp: xp.ravel_multi_index((1, 2), (3, -4)),
    lambda xp: xp.ravel_multi_index((), ()),
    lambda xp: xp.ravel_multi_index((1, 2), (3, 4), mode=("wrap",)),
    lambda xp: xp.ravel_multi_index(1, (3,)),
])
def test_ravel_multi_index_cases(case):
    assert_parity(case)


@given(dims_st, st.data(), orders, st.sampled_from([(), (3,), (2, 2)]), st.booleans())
def test_unravel_index(dims, data, order, idx_shape, as_array):
    size = int(np.prod(dims))
    idx = data.draw(arrays(np.dtype(np.int64), idx_shape, min_value=-2, max_value=size + 2,
                           edge_rich=False))

    def run(xp):
        return xp.unravel_index(xp.asarray(idx) if as_array else idx.tolist(), dims, order)

    assert_parity(run, context=(idx, dims, order))


@pytest.mark.parametrize("case", [
    lambda xp: xp.unravel_index(6, 12),
    lambda xp: xp.unravel_index(6.0, (3, 4)),
    lambda xp: xp.unravel_index([], (3, 4)),
    lambda xp: xp.unravel_index(xp.asarray([], dtype=np.int64), (3, 4)),
    lambda xp: xp.unravel_index(np.uint8(3), (3, 4)),
    lambda xp: xp.unravel_index(xp.asarray([3, 40], dtype=np.uint16), (3, 4)),
    lambda xp: xp.unravel_index(0, ()),
    lambda xp: xp.unravel_index(5, (3.0, 4)),
    lambda xp: xp.unravel_index(5, (3, 4), order="K"),
    lambda xp: xp.unravel_index(0, (3, 0)),
    lambda xp: xp.unravel_index(5, (2 ** 40, 2 ** 40)),
])
def test_unravel_index_cases(case):
    assert_parity(case)


# --- diag / triangle indices --------------------------------------------------------------------


@given(st.integers(-1, 5), st.integers(-6, 6), st.one_of(st.none(), st.integers(0, 5)),
       st.sampled_from(["tril_indices", "triu_indices"]))
def test_tri_indices(n, k, m, name):
    assert_parity(lambda xp: getattr(xp, name)(n, k, m), context=(n, k, m))


@given(shapes(), st.integers(-4, 4), st.sampled_from(["tril_indices_from",
                                                      "triu_indices_from"]))
def test_tri_indices_from(shape, k, name):
    assert_parity(lambda xp: getattr(xp, name)(xp.zeros(shape), k), context=(shape, k))


@pytest.mark.parametrize("args", [(3,), (0,), (3, 1), (2, 3), (3, 0), (-1,)])
def test_diag_indices(args):
    assert_parity(lambda xp: xp.diag_indices(*args))


@pytest.mark.parametrize("shape", [(3, 3), (2, 2, 2), (3,), (2, 3), (0, 0), ()])
def test_diag_indices_from(shape):
    assert_parity(lambda xp: xp.diag_indices_from(xp.zeros(shape)))


@pytest.mark.parametrize("fn", ["triu", "tril"])
@pytest.mark.parametrize("k", [-1, 0, 2])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_mask_indices(fn, k, n):
    assert_parity(lambda xp: xp.mask_indices(n, getattr(xp, fn), k))


# --- fill_diagonal (in place) ------------------------------------------------------------------

fill_shapes = st.sampled_from([(3, 3), (4, 2), (2, 4), (5, 2), (1, 1), (2, 2, 2), (3, 3, 3),
                               (2, 3, 2), (3,), (0, 0)])
fill_vals = st.one_of(st.integers(-3, 300), st.floats(-3, 3, allow_nan=False),
                      st.lists(st.integers(-2, 9), max_size=4), st.just(complex(1, 2)),
                      st.just(float("nan")))


@given(fill_shapes, fill_vals, st.booleans(), st.sampled_from(ALL[:1] + INTEGER[:1] + FLOAT[2:]))
def test_fill_diagonal(shape, val, wrap, dtype):
    def run(xp):
        a = xp.zeros(shape, dtype)
        xp.fill_diagonal(a, val, wrap=wrap)
        return a

    assert_parity(run, context=(shape, val, wrap, dtype))


def test_fill_diagonal_view_and_aliases():
    for xp in (np, npjax):
        a = xp.zeros((4, 6))
        alias = a.reshape(6, 4)
        view = a[:, ::2]  # strided view: (4, 3)
        xp.fill_diagonal(view, [7, 8])
        if xp is np:
            want_a, want_alias = a.copy(), alias.copy()
        else:
            assert_same(a, want_a)
            assert_same(alias, want_alias)
    b = npjax.zeros((3, 3))
    npjax.fill_diagonal(b.T, npjax.asarray([1.0, 2.0, 3.0]))
    assert_same(b, np.diag([1.0, 2.0, 3.0]))
    ro = npjax.zeros((3, 3))._broadcast_to((3, 3))
    with pytest.raises(ValueError):
        npjax.fill_diagonal(ro, 1)


# --- flat ---------------------------------------------------------------------------------------

flat_keys = st.sampled_from([0, -1, 5, 6, -7, slice(1, 4), slice(None, None, -2), Ellipsis,
                             [1, 2], [0, 0], [], (1,), (1, 2), None,
                             np.array([[1], [2]]), np.array(2), np.array([True] * 6)])


@given(flat_keys, st.sampled_from([(2, 3), (3, 2)]), st.booleans())
def test_flat_getitem(key, shape, transposed):
    def run(xp):
        a = xp.arange(6.0).reshape(shape)
        return (a.T if transposed else a).flat[key]

    assert_parity(run, context=(key, shape, transposed))


flat_values = st.sampled_from([7, 2.7, 300, [1, 2], [], [[1], [2]], np.array([1 + 2j]),
                               float("nan"), None, np.array([5]), "1"])


@given(flat_keys, flat_values, st.sampled_from([np.int8, np.float64]), st.booleans())
def test_flat_setitem(key, value, dtype, transposed):
    def run(xp):
        a = xp.zeros((2, 3), dtype)
        target = a.T if transposed else a
        target.flat[key] = value
        return a

    assert_parity(run, context=(key, value, dtype, transposed))


# NumPy 2.4's rules: a Python bool (or 0-d bool array) is deprecated, True the first element
# and False none; a NumPy bool scalar, a list of bools and ``flat[()] = v`` raise; a mask of
# another length raises; a flat iterator indexes as its elements.
FLAT_24 = [True, False, np.True_, np.array(True), np.array(False), (), Ellipsis,
           np.zeros(7, bool), np.array([True, False] * 3), [True, False], "flat", "empty_flat",
           "str_flat"]


@pytest.mark.parametrize("placement", ["auto", "device"])
@pytest.mark.parametrize("key", FLAT_24, ids=repr)
def test_flat_numpy_24_keys(key, placement):
    import warnings

    def run(xp, write):
        k = {"flat": xp.asarray(np.array([0, 5, 4])).flat,
             "empty_flat": xp.asarray(np.array([], "S")).flat,
             "str_flat": xp.asarray(np.array(["a"], "S")).flat}.get(key, key) \
            if isinstance(key, str) else key
        a = xp.arange(6).reshape(2, 3)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                if write:
                    a.flat[k] = 70
                    got = a
                else:
                    got = a.flat[k]
            except IndexError as exc:
                got = ("IndexError", str(exc))
        return got, [(w.category, str(w.message)) for w in seen]

    for write in (False, True):
        want, want_warnings = run(np, write)
        with npjax.policy(placement=placement):
            got, got_warnings = run(npjax, write)
        assert got_warnings == want_warnings
        if isinstance(want, tuple):
            assert got == want
        else:
            assert_same(got, want)


@pytest.mark.parametrize("name", ["__array__", "copy"])
def test_flatiter_method_signatures(name):
    import inspect

    want = inspect.signature(getattr(np.flatiter, name))
    got = inspect.signature(getattr(npjax.flatiter, name))
    assert [(p.name, p.kind) for p in got.parameters.values()] == \
        [(p.name, p.kind) for p in want.parameters.values()]


def test_flat_iteration_and_attributes():
    for transposed in (False, True):
        host = np.arange(6).reshape(2, 3)
        host = host.T if transposed else host
        a = npjax.arange(6).reshape(2, 3)
        a = a.T if transposed else a
        it, want = a.flat, host.flat
        assert len(it) == len(want) and it.index == want.index and it.coords == want.coords
        assert_same(list(it), list(want))
        assert it.index == want.index and it.coords == want.coords
        assert it.base is a
        assert_same(a.flat.copy(), host.flat.copy())
        assert_same(a.flat == 3, host.flat == 3)
    b = npjax.zeros((2, 2))
    b.flat = [1, 2, 3]
    assert_same(b, np.array([[1.0, 2.0], [3.0, 1.0]]))


# --- ndenumerate, ndindex, broadcast ------------------------------------------------------------


@given(arrays(st.sampled_from([ALL[0], INTEGER[1], FLOAT[2], np.dtype(np.complex64)]),
              shapes()))
def test_ndenumerate(a):
    assert_parity(lambda xp: list(xp.ndenumerate(xp.asarray(a))), context=(a,))


def test_ndenumerate_view():
    host = np.arange(6).reshape(2, 3)[:, ::-1].T
    got = list(npjax.ndenumerate(npjax.arange(6).reshape(2, 3)[:, ::-1].T))
    assert_same(got, list(np.ndenumerate(host)))


def test_ndindex():
    assert list(npjax.ndindex(2, 3)) == list(np.ndindex(2, 3))
    assert list(npjax.ndindex((2, 0))) == []


@given(st.lists(shapes(max_dims=2), min_size=0, max_size=3))
def test_broadcast(shape_list):
    def run(xp):
        b = xp.broadcast(*[xp.arange(int(np.prod(s))).reshape(s) + i * 10
                           for i, s in enumerate(shape_list)])
        head = (b.shape, b.nd, b.ndim, b.size, b.numiter, b.index)
        values = list(b)
        return head, values, b.index

    assert_parity(run, context=shape_list)


def test_broadcast_nested_and_reset():
    for xp in (np, npjax):
        b = xp.broadcast(xp.arange(3), [[1], [2]])
        first = next(b)
        b.reset()
        assert b.index == 0
        c = xp.broadcast(b, 5)
        assert c.numiter == 3 and c.shape == (2, 3)
        if xp is np:
            want = first
        else:
            assert_same(first, want)


def test_broadcast_iters_base_is_the_argument():
    """``b.iters[i].base`` is the i-th argument itself (NumPy gh-5881), nested too."""
    for xp in (np, npjax):
        arrs = [xp.empty((6, 7)), xp.empty((5, 6, 1)), xp.empty((7,)), xp.empty((5, 1, 7))]
        for b in (xp.broadcast(*arrs), xp.broadcast(xp.broadcast(*arrs[:2]),
                                                    xp.broadcast(*arrs[2:]))):
            assert b.shape == (5, 6, 7) and b.numiter == 4
            assert all(a is it.base for a, it in zip(arrs, b.iters))


def test_broadcast_signature_and_keywords():
    import inspect

    for xp in (np, npjax):
        params = inspect.signature(xp.broadcast).parameters
        assert list(params) == ["arrays"]
        assert params["arrays"].kind == inspect.Parameter.VAR_POSITIONAL
        reset = inspect.signature(xp.broadcast.reset).parameters
        assert list(reset) == ["self"]
        assert reset["self"].kind == inspect.Parameter.POSITIONAL_ONLY
        with pytest.raises(ValueError, match="keyword arguments not accepted"):
            xp.broadcast(1, x=1)
        b = xp.broadcast(xp.empty((5, 6)), **{})
        assert b.shape == (5, 6)


# --- nditer -----------------------------------------------------------------------------------

VIEWS = [lambda a: a, lambda a: a.T, lambda a: a[::-1], lambda a: a[:, ::2],
         lambda a: a.transpose(1, 0, 2)[::-1] if a.ndim == 3 else a]


@given(shapes(), st.sampled_from(range(len(VIEWS))), st.sampled_from("KCFA"))
def test_nditer_read(shape, view, order):
    def run(xp):
        a = VIEWS[view](xp.arange(int(np.prod(shape)), dtype=np.int8).reshape(shape))
        it = xp.nditer(a, flags=["multi_index", "c_index", "zerosize_ok"], order=order)
        out = [(x, it.multi_index, it.index, it.iterindex) for x in it]
        return out, it.itersize, it.finished

    assert_parity(run, context=(shape, view, order))


@given(st.lists(shapes(max_dims=2), min_size=1, max_size=3))
def test_nditer_broadcast_operands(shape_list):
    def run(xp):
        ops = [xp.arange(int(np.prod(s)), dtype=np.int16).reshape(s) for s in shape_list]
        return [tuple(x) for x in xp.nditer(ops, flags=["zerosize_ok"])]

    assert_parity(run, context=shape_list)


def test_nditer_readwrite():
    for view in VIEWS[:4]:
        def run(xp, view=view):
            a = xp.arange(6.0).reshape(2, 3)
            alias = a.reshape(3, 2)
            with xp.nditer(view(a), op_flags=[["readwrite"]]) as it:
                for i, x in enumerate(it):
                    x[...] = 2 * x + i
            return a, alias

        assert_parity(run)


def test_nditer_readwrite_without_with_and_iternext():
    for xp in (np, npjax):
        a = xp.arange(4).reshape(2, 2)
        for x in xp.nditer(a, op_flags=["readwrite"]):
            x[...] = x * 10
        b = xp.arange(3.0)
        it = xp.nditer(b, op_flags=["readwrite"])
        with it:
            while not it.finished:
                it[0] = it[0] + 1
                it.iternext()
        if xp is np:
            want = (a.copy(), b.copy())
        else:
            assert_same((a, b), want)


def test_nditer_allocate_and_dtypes():
    def run(xp):
        a = xp.arange(6).reshape(2, 3)
        it = xp.nditer([a, xp.arange(3.0), None])
        with it:
            for x, y, z in it:
                z[...] = x * y
            res = it.operands[2], it.dtypes
        return res

    assert_parity(run)

    def buffered(xp):
        a = xp.arange(4, dtype=np.int32)
        return list(xp.nditer(a, flags=["buffered"], op_dtypes=["float64"]))

    assert_parity(buffered)


@pytest.mark.parametrize("case", [
    lambda xp: xp.nditer(xp.arange(3)._broadcast_to((2, 3)) if xp is npjax else
                         np.broadcast_to(np.arange(3), (2, 3)), op_flags=["readwrite"]),
    lambda xp: xp.nditer([xp.arange(3), xp.zeros((2, 3))], op_flags=[["readwrite"],
                                                                      ["readonly"]]),
    lambda xp: xp.nditer(xp.arange(3), op_dtypes=["float64"]),
    lambda xp: xp.nditer(xp.zeros(0)),
    lambda xp: xp.nditer(xp.arange(3), flags=["bogus"]),
    lambda xp: xp.nditer([xp.arange(3), xp.arange(4)]),
    lambda xp: len(xp.nditer(xp.arange(5))),
])
def test_nditer_errors(case):
    assert_parity(case)


def test_nditer_readonly_element():
    for xp in (np, npjax):
        with pytest.raises(ValueError):
            for x in xp.nditer(xp.arange(3)):
                x[...] = 1


@pytest.mark.parametrize("kwargs", [{"flags": ["external_loop"]}, {"flags": ["reduce_ok"]},
                                    {"op_axes": [[0]]}])
def test_nditer_unsupported(kwargs):
    with pytest.raises(NotImplementedError, match="nditer"):
        npjax.nditer(npjax.arange(3), **kwargs)
