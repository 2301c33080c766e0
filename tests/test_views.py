"""Views against NumPy: random chains of view operations, then writes through any of them.

The same program runs on NumPy and on npjax. After every step the trace records, for the root
and every array made so far: its values, which array of the program its ``base`` is, its flags
(writeable, owndata, C/F contiguous), strides and whether it shares memory with each other
array. The two traces must be equal, exceptions included (by family).
"""

from __future__ import annotations

import copy
import pickle
import warnings

import jax
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from npjax._pure._dtypes import is_device_dtype
from tests import strategies as S
from tests._parity import assert_parity, family
from tests.test_indexing import build, index_specs

DTYPES = [np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.complex128)]


def _reshape_targets(shape: tuple) -> list[tuple]:
    size = int(np.prod(shape))
    out = [(size,), (1, size), (size, 1), (-1,), shape[::-1]]
    if len(shape) >= 2:
        out.append((shape[0] * shape[1],) + shape[2:])
        out.append(shape[:-2] + (shape[-2] * shape[-1],))
    if shape and shape[0] % 2 == 0 and shape[0]:
        out.append((2, shape[0] // 2) + shape[1:])
    return out


@st.composite
def programs(draw):
    """A root shape and dtype, then a list of view operations and writes."""
    shape = draw(S.shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    dtype = draw(st.sampled_from(DTYPES))
    probe = [np.empty(shape, dtype)]  # NumPy arrays standing for the program's arrays
    steps = []
    for _ in range(draw(st.integers(1, 7))):
        src = draw(st.integers(0, len(probe) - 1))
        v = probe[src]
        kinds = ["index", "index", "T", "transpose", "swapaxes", "reshape", "ravel", "squeeze",
                 "newaxis", "real", "imag", "view", "expand", "diagonal", "broadcast", "write",
                 "write", "iadd", "fill"]
        kind = draw(st.sampled_from(kinds))
        if kind == "index":
            op = (kind, draw(index_specs(v.shape, basic_only=True)))
        elif kind == "transpose":
            op = (kind, tuple(draw(st.permutations(range(v.ndim)))))
        elif kind == "swapaxes":
            axes = st.integers(-v.ndim, v.ndim - 1) if v.ndim else st.just(0)
            op = (kind, draw(axes), draw(axes))
        elif kind == "reshape":
            op = (kind, draw(st.sampled_from(_reshape_targets(v.shape))),
                  draw(st.sampled_from(["C", "F", "A"])))
        elif kind == "ravel":
            op = (kind, draw(st.sampled_from(["C", "F", "A", "K"])))
        elif kind == "expand":
            op = (kind, draw(st.integers(-v.ndim - 1, v.ndim)))
        elif kind == "broadcast":
            op = (kind, (2,) + v.shape)
        elif kind in ("write", "fill"):
            op = (kind, draw(index_specs(v.shape, basic_only=True)), draw(st.integers(-9, 9)))
        else:
            op = (kind,)
        steps.append((src, op))
        if kind not in ("write", "iadd", "fill"):
            try:
                probe.append(_apply(np, v, op))
            except Exception:
                steps[-1] = (src, ("fail",) + op)
    return shape, dtype, steps


def _apply(xp, v, op):
    kind = op[0]
    if kind == "index":
        return v[build(op[1], xp)]
    if kind == "T":
        return v.T
    if kind == "transpose":
        return v.transpose(op[1])
    if kind == "swapaxes":
        return v.swapaxes(op[1], op[2])
    if kind == "reshape":
        return v.reshape(op[1], order=op[2])
    if kind == "ravel":
        return v.ravel(order=op[1])
    if kind == "squeeze":
        return v.squeeze()
    if kind == "newaxis":
        return v[None]
    if kind == "real":
        return v.real
    if kind == "imag":
        return v.imag
    if kind == "view":
        return v.view()
    if kind == "expand":
        return np.expand_dims(v, op[1]) if xp is np else v._expand_dims(op[1])
    if kind == "diagonal":
        return v.diagonal()
    if kind == "broadcast":
        return np.broadcast_to(v, op[1]) if xp is np else v._broadcast_to(op[1])
    raise AssertionError(kind)


def _write(xp, v, op):
    kind = op[0]
    if kind == "write":
        v[build(op[1], xp)] = op[2]
    elif kind == "fill":
        target = v[build(op[1], xp)]
        if isinstance(target, np.generic) or getattr(target, "_scalar", False):
            v[build(op[1], xp)] = op[2]
        else:
            target[...] = op[2]
    else:
        v += 1


def _facts(xp, arrays):
    shares = np.shares_memory if xp is np else npjax.shares_memory
    may = np.may_share_memory if xp is np else npjax.may_share_memory
    def is_array(a):
        return isinstance(a, np.ndarray | npjax.ndarray) and not getattr(a, "_scalar", False)

    out = []
    for a in arrays:
        if not is_array(a):
            out.append(("scalar", np.asarray(a).tolist()))
            continue
        base = a.base
        where = None if base is None else next(
            (i for i, b in enumerate(arrays) if b is base), "other")
        out.append((np.asarray(a).tolist(), a.shape, str(a.dtype), where, a.flags.owndata,
                    a.flags.writeable, a.flags.c_contiguous, a.flags.f_contiguous, a.strides,
                    tuple(bool(shares(a, b)) for b in arrays if is_array(b)),
                    tuple(bool(may(a, b)) for b in arrays if is_array(b))))
    return out


def run(xp, program, host):
    shape, dtype, steps = program
    arrays = [xp.asarray(host.copy())]
    trace = []
    for src, op in steps:
        v = arrays[src]
        try:
            if op[0] == "fail":
                _apply(xp, v, op[1:])
                trace.append(("no error",))
            elif op[0] in ("write", "iadd", "fill"):
                _write(xp, v, op)
                trace.append(("wrote", _facts(xp, arrays)))
            else:
                arrays.append(_apply(xp, v, op))
                trace.append(("made", _facts(xp, arrays)))
        except Exception as exc:
            trace.append(("raised", family(exc).__name__))
    return trace


@given(programs(), st.data())
def test_view_chains_then_writes(program, data):
    shape, dtype, steps = program
    host = data.draw(S.hnp.arrays(dtype, shape, elements=st.integers(-5, 5)))
    expected = run(np, program, host)
    actual = run(npjax, program, host)
    for i, (e, a) in enumerate(zip(expected, actual)):
        assert a == e, f"step {i} {steps[i]}:\n npjax {a}\n numpy {e}\n program {program}"


# --- targeted cases -------------------------------------------------------------------------


def test_base_is_root_owner():
    def fn(xp):
        a = xp.asarray(np.arange(24.0)).reshape(2, 3, 4)  # a view of a 1-d owner
        b = a[1:, ::-1].T.swapaxes(0, 1)
        return (a.base is None, b.base is a.base, b.base is a, b.flags.owndata,
                a.T.reshape(-1).base is None, a.T.reshape(-1).flags.owndata,
                a.T.ravel().base is None, a.T.flatten().base is None, a.real is a,
                a.view().base is a.base, a.squeeze() is a)

    assert_parity(fn)


def test_reshape_copies_exactly_when_numpy_does():
    def fn(xp):
        a = xp.asarray(np.arange(12.0)).reshape(3, 4).copy()
        views = [a.T.reshape(12), a.T.reshape(4, 3), a[:, ::2].reshape(6), a[::2].reshape(8),
                 a.T.reshape(12, order="F"), a[:, 1:3].reshape(3, 2), a.T.ravel(),
                 a.T.ravel("K"), a[:, ::-1].ravel("K"), a[::-1].ravel("K")]
        for v in views:
            v[...] = -1
        return (a,) + tuple(views)

    assert_parity(fn)
    with pytest.raises(ValueError):
        npjax.asarray(np.arange(12.0)).reshape(3, 4).T.reshape(12, copy=False)


def test_read_only_views():
    for make in [lambda xp, a: a.diagonal(),
                 lambda xp, a: np.broadcast_to(a, (2, 3, 3)) if xp is np else
                 a._broadcast_to((2, 3, 3)),
                 lambda xp, a: a.diagonal()[None, ::-1]]:
        def fn(xp, make=make):
            a = xp.asarray(np.arange(9.0).reshape(3, 3).copy())
            v = make(xp, a)
            flags = (v.flags.writeable, v.base is a)
            try:
                v[...] = 1
            except ValueError:
                return flags, "raised", a
            return flags, a

        assert_parity(fn)
    def inc_diagonal(xp):
        d = xp.zeros((3, 3)).diagonal()
        d += 1

    assert_parity(inc_diagonal)
    with npjax.policy(placement="device"):  # (float32: a device dtype on every backend)
        a = npjax.zeros((3, 3), np.float32)
    d = a.diagonal()
    with pytest.raises(ValueError):
        d += 1
    with pytest.raises(ValueError):  # NumPy allows it for its own diagonal views
        d.flags.writeable = True


def test_writeable_flag():
    def fn(xp):
        a = xp.asarray(np.arange(4.0))
        v = a[1:]
        a.flags.writeable = False
        out = [_try_write(a), _try_write(v)]
        w = a[:2]
        out.append(w.flags.writeable)
        try:
            w.flags.writeable = True
        except ValueError:
            out.append("raised")
        a.flags.writeable = True
        a[0] = 5
        return tuple(out), a, v

    assert_parity(fn)


def _try_write(target) -> str:
    try:
        target[0] = 9
    except ValueError:
        return "raised"
    return "wrote"


def test_shape_assignment():
    def fn(xp):
        a = xp.asarray(np.arange(6.0))
        v = a[1:4]
        a.shape = (2, 3)
        v[0] = 10
        a[1, 1] = 7
        w = a.T
        try:
            w.shape = (6,)
        except AttributeError:
            pass
        try:
            a.shape = (4,)
        except ValueError:
            pass
        u = a[0]
        u.shape = (3, 1)
        u[2, 0] = -1
        return a, v, w, u, a.shape, u.base is a.base

    assert_parity(fn)


def test_shares_memory_matches_numpy():
    def fn(xp):
        z = xp.asarray(np.arange(12.0))
        m = z.reshape(3, 4)
        pairs = [(z[0:0], z), (z[:2], z[1:]), (z[::2], z[1::2]), (m[:, 0], m[:, 1]),
                 (m.T, m), (z, z.copy()), (m[1], m[:, 1]), (m[0], m[1]), (z, z[::-1])]
        out = []
        for a, b in pairs:
            out.append(xp.shares_memory(a, b))
            out.append(xp.may_share_memory(a, b))
            out.append(xp.shares_memory(a, b, max_work=None))
        return tuple(bool(x) for x in out)

    assert_parity(fn)
    a = npjax.zeros(3)
    assert not npjax.shares_memory(a, np.zeros(3))
    assert not npjax.may_share_memory(np.zeros(3), a)
    h = np.zeros(4)
    assert npjax.shares_memory(h, h[1:]) and not npjax.shares_memory(h[:2], h[2:])


def test_complex_real_imag_views():
    def fn(xp):
        c = xp.asarray(np.arange(6.0) + 1j * np.arange(6.0)[::-1]).reshape(2, 3)
        r, i = c.real, c.imag
        r[0] = -1
        i[:, 1] += 10
        c.real = 5
        c[1, 2] = 3 + 4j
        c.imag[0, 0] = 8
        return c, r, i, r.strides, i.base is c.base, r.flags.c_contiguous

    assert_parity(fn)

    def fn2(xp):
        a = xp.asarray(np.arange(3.0))
        im = a.imag
        try:
            im[0] = 1
        except ValueError:
            return "raised", im.flags.writeable, im.base is None
        return im

    assert_parity(fn2)


def test_inplace_operators_through_views():
    def fn(xp):
        a = xp.asarray(np.arange(12).reshape(3, 4))
        v = a[::2, 1:].T
        v += 1
        v *= 3
        w = a.reshape(12)[::3]
        w -= a.reshape(12)[1::3]
        a[...] = a[::-1]
        a.T[0] //= 2
        return a, v, w

    assert_parity(fn)


def test_pickle_and_copies_are_independent():
    a = npjax.asarray(np.arange(6.0)).reshape(2, 3)
    for clone in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a), a.copy()):
        assert clone.tolist() == a.tolist() and clone.dtype == a.dtype
        assert clone.base is None and not npjax.shares_memory(clone, a)
        clone[0, 0] = 100.0
        assert a[0, 0] == 0.0
    a[1, 1] = -5.0
    assert clone[1, 1] == 4.0
    s = npjax.asarray([1.5, 2.5])[1]
    t = pickle.loads(pickle.dumps(s))
    assert repr(t) == "np.float64(2.5)"
    v = a.T[::-1]
    w = pickle.loads(pickle.dumps(v))
    assert w.tolist() == v.tolist() and w.base is None


def test_copy_order_and_flags():
    def fn(xp):
        a = xp.asarray(np.arange(6.0).reshape(2, 3).copy())
        copies = (a.copy(), a.copy("F"), a.T.copy(), a.T.copy("K"), a.T.copy("A"),
                  a.astype(np.float32, order="F"), a.astype(np.float64, copy=False))
        return tuple((c.flags.c_contiguous, c.flags.f_contiguous, c.strides, c.flags.owndata,
                      c.base is None, c is a) for c in copies)

    assert_parity(fn)


def test_view_method():
    def fn(xp):
        a = xp.asarray(np.arange(4.0))
        v = a.view()
        v[0] = 9
        w = a.view(type(a))
        w[1] = 8
        return a, v.base is a, w.base is a, xp.shares_memory(a, v)

    assert_parity(fn)
    assert_parity(lambda xp: (lambda a: (a.view(np.int64).base is a, a))(xp.zeros(2)))


# --- core ndarray methods -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8, np.float32, np.complex64,
                                   np.bool_])
@pytest.mark.parametrize("value", [1000, -1, 2.9, np.nan, np.int64(1000), np.array(300),
                                   np.complex128(1 + 1j), 1 + 1j, True, None, [1]])
def test_fill(dtype, value):
    def fn(xp):
        a = xp.asarray(np.arange(6).reshape(2, 3).astype(dtype))
        v = a[:, 1:]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v.fill(value)
        return a, v

    assert_parity(fn, context=(dtype, value))


def test_fill_read_only():
    def fn(xp):
        a = xp.zeros((2, 2))
        a.diagonal().fill(1)

    assert_parity(fn)


def test_resize_owner():
    def fn(xp):
        out = []
        for new in [(2, 3), 5, (2, 2), (0,), (3, 1, 2)]:
            a = xp.asarray(np.arange(4.0))
            a.resize(new)
            out.append(a)
        b = xp.asarray(np.arange(4.0).reshape(2, 2).copy())
        b.resize(3, 3)
        out.append(b)
        return tuple(out)

    assert_parity(fn)


def _try_resize(target) -> str:
    try:
        target.resize((2, 3))
    except ValueError:
        return "raised"
    return "resized"


def test_resize_refused_for_views_and_referenced_arrays():
    def fn(xp):
        a = xp.asarray(np.arange(4.0))
        v = a[:2]
        return _try_resize(a), _try_resize(v)

    assert_parity(fn)

    def fn2(xp):
        a = xp.asarray(np.arange(4.0))
        b = a  # noqa: F841  (a second reference: NumPy refuses)
        a.resize((6,))

    assert_parity(fn2)


def test_astype():
    # Float to integer casts use values the target can hold: out of range (and NaN) the
    # result is undefined in C and NumPy's depends on the CPU; npjax gives XLA's.
    signed = np.array([[1.5, -2.5, 0.0], [3.0, 127.9, -1.0]])
    unsigned = np.array([[1.5, 2.5, 0.0], [3.0, 255.9, 0.9]])
    for dtype in [np.int8, np.float32, np.complex64, np.bool_, np.uint8, np.uint16, np.float64]:
        host = unsigned if np.dtype(dtype).kind == "u" else signed
        for casting in ["no", "equiv", "safe", "same_kind", "unsafe"]:
            def fn(xp, dtype=dtype, casting=casting, host=host):
                a = xp.asarray(host)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    return a.astype(dtype, casting=casting), a.T.astype(dtype, casting=casting)

            assert_parity(fn, context=(dtype, casting))
    def fn(xp):
        a = xp.asarray(signed)
        return (a.astype(a.dtype, copy=False) is a, a.astype(a.dtype) is a,
                a.T.astype(a.dtype, copy=False, order="C") is a)

    assert_parity(fn)
    with pytest.warns(np.exceptions.ComplexWarning):
        npjax.asarray([1 + 1j]).astype(np.float64)
    s = npjax.asarray([1.5])[0].astype(np.int8)
    assert repr(s) == repr(np.float64(1.5).astype(np.int8))


def test_small_methods():
    host = np.arange(6, dtype=np.int16).reshape(2, 3)

    def fn(xp):
        a = xp.asarray(host)
        t = a.T
        return (a.item(4), a.item(1, 2), t.item(1), a.tolist(), t.tolist(), a.tobytes(),
                t.tobytes(), t.tobytes("F"), t.tobytes("A"), a.nbytes, a.itemsize, t.nbytes,
                a[0].item(-1), a.ndim, a.size, a.shape, t.strides)

    assert_parity(fn)
    assert_parity(lambda xp: xp.asarray(host).item())
    assert_parity(lambda xp: xp.asarray(host).item(6))


def test_array_protocol():
    with npjax.policy(placement="device"):  # (float32: a device dtype on every backend)
        a = npjax.asarray(np.arange(3.0, dtype=np.float32))
    h = np.asarray(a)
    assert isinstance(h, np.ndarray) and h.tolist() == [0.0, 1.0, 2.0]
    assert np.asarray(a, dtype=np.float32).dtype == np.float32
    assert np.array(a, copy=True).flags.writeable
    h[0] = 5  # a host copy of a device array: the npjax array is unchanged
    assert a[0] == 0.0
    with pytest.raises(ValueError):
        np.array(a, copy=False)
    assert a.__array__(np.int64).dtype == np.int64


def test_array_protocol_shares_host_memory():
    """A host array hands NumPy its own buffer, as a NumPy array does: later in-place
    updates show in what a library kept from ``np.asarray`` (issue 15, item 4)."""
    with npjax.policy(placement="host", mode="eager"):
        a = npjax.arange(3.0)
    kept = np.asarray(a)
    a += 1
    a[0] = -1
    assert kept.tolist() == [-1.0, 2.0, 3.0]
    assert np.shares_memory(np.array(a, copy=False), kept)  # (a view: __array_struct__)
    assert np.shares_memory(kept, np.asarray(a[1:]))
    assert not np.shares_memory(np.array(a, copy=True), kept)


# --- view(dtype): the same bytes as another dtype -------------------------------------------


def _bytes_of(x):
    """Bytes for comparing, with bool bytes read as NumPy reads them (nonzero: True)."""
    x = np.asarray(x)
    return (x != 0).view(np.uint8) if x.dtype == np.bool_ else np.ascontiguousarray(x).view(
        np.uint8)


def _device_cannot_view(host: np.ndarray, dst: np.dtype) -> bool:
    """Whether npjax holds ``host`` on the device and the backend holds no ``dst`` (float64
    on a TPU): then the view raises NotImplementedError naming the dtype (checked here)."""
    a = npjax.asarray(host.copy())
    if a._host() is not None or is_device_dtype(np.dtype(dst)) or host.dtype == dst:
        return False
    with pytest.raises(NotImplementedError, match=f"{np.dtype(dst)}.*{jax.default_backend()}"):
        a.view(dst)
    return True


@given(S.dtypes, S.dtypes, S.shapes(min_dims=0, max_dims=3, max_side=4), st.data())
def test_view_dtype_parity(src, dst, shape, data):
    host = data.draw(S.arrays(src, st.just(shape)))
    transposed = data.draw(st.booleans())

    def run(xp):
        a = xp.asarray(host.copy())
        if transposed:
            a = a.T  # last axis not contiguous: NumPy refuses other item sizes
        try:
            v = a.view(dst)
        except ValueError as exc:
            return ("error", type(exc))
        return v.shape, v.dtype, _bytes_of(v)

    if _device_cannot_view(host, dst):
        return
    want, got = run(np), run(npjax)
    assert got[:2] == want[:2]
    if want[0] != "error":
        np.testing.assert_array_equal(got[2], want[2])


@given(S.dtypes, S.dtypes, st.data())
def test_view_dtype_writes_reach_the_array(src, dst, data):
    host = data.draw(S.arrays(src, st.just((2, 16))))  # 16 items: every item size divides
    v_host = host.copy().view(dst)
    new = data.draw(S.arrays(dst, st.just(v_host.shape[1:])))
    if dst == np.bool_ and src != np.bool_:
        return  # NumPy stores the bool byte as it is; npjax reads it back as 0/1 (documented)

    def run(xp):
        a = xp.asarray(host.copy())
        v = a.view(dst)
        v[1] = xp.asarray(new)
        return a

    if _device_cannot_view(host, dst):
        return

    want, got = run(np), run(npjax)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(_bytes_of(got), _bytes_of(want))


def test_view_dtype_scalars_and_errors():
    assert_parity(lambda xp: xp.asarray(1.5)[()].view(np.int64))
    assert_parity(lambda xp: xp.asarray(1.5).view(np.int32))  # 0-d: item size must not change
    assert_parity(lambda xp: xp.arange(3.0).view(np.int32))
    assert_parity(lambda xp: xp.arange(3, dtype=np.int8).view(np.int16))  # 3 bytes: no
    if npjax.get_policy().placement != "device":  # host arrays: NumPy's view, any dtype
        assert_parity(lambda xp: xp.arange(3.0).view("V8").view(np.float64))
    with npjax.policy(placement="device"), pytest.raises(NotImplementedError, match="dtype"):
        npjax.arange(3, dtype=np.int32).view("U1")  # a device array: host-only dtypes are not
        # views there
