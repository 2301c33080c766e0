"""``out=`` against NumPy on every route (host, device, lazy): the value written, the dtype
of ``out``, ``r is out``, and NumPy's errors for a bad shape, a cast the rule refuses and a
read-only ``out``; tuple ``out`` for a two-output ufunc and ``out=...``. Every route stores
through one writer (``npjax/_core/_out.py``; ``tests/test_one_door.py`` checks the source)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax

# (explicit, whatever the suite's options: lazy mode records device work)
MODES = {"host": {"placement": "host"}, "device": {"placement": "device"},
         "lazy": {"mode": "lazy", "placement": "device"}}
N = 5
# out kinds: (shape or None for the result's, dtype or None for the result's, read-only)
OUTS = {"same": (None, None, False), "float32": (None, "float32", False),
        "int64": (None, "int64", False), "complex128": (None, "complex128", False),
        "bool": (None, "bool", False), "bad shape": ((N + 2,), None, False),
        "broadcast": ("lead", None, False), "read-only": (None, None, True)}


def _matrix(lib, v):
    return lib.asarray(v[:4].reshape(2, 2))


# name -> (call(lib, v, w, out), the result's shape, its dtype)
CASES = {
    "add": (lambda L, v, w, o: L.add(L.asarray(v), L.asarray(w), out=o), (N,), "float64"),
    "sqrt": (lambda L, v, w, o: L.sqrt(L.asarray(np.abs(v)), out=o), (N,), "float64"),
    "sum": (lambda L, v, w, o: L.sum(L.asarray(np.stack([v, w])), axis=0, out=o), (N,),
            "float64"),
    "mean": (lambda L, v, w, o: L.mean(L.asarray(np.stack([v, w])), axis=0, out=o), (N,),
             "float64"),
    "matmul": (lambda L, v, w, o: L.matmul(_matrix(L, v), _matrix(L, w), out=o), (2, 2),
               "float64"),
    "dot": (lambda L, v, w, o: L.dot(_matrix(L, v), _matrix(L, w), out=o), (2, 2),
            "float64"),
    "concatenate": (lambda L, v, w, o: L.concatenate([L.asarray(v[:2]), L.asarray(w[2:])],
                                                     out=o), (N,), "float64"),
    "cumsum": (lambda L, v, w, o: L.cumsum(L.asarray(v), out=o), (N,), "float64"),
    "clip": (lambda L, v, w, o: L.clip(L.asarray(v), -1.0, 1.0, out=o), (N,), "float64"),
    "take": (lambda L, v, w, o: L.take(L.asarray(v), L.asarray([4, 0, 2, 2, 1]), out=o),
             (N,), "float64"),
    "add.accumulate": (lambda L, v, w, o: L.add.accumulate(L.asarray(v), out=o), (N,),
                       "float64"),
    "add.reduce": (lambda L, v, w, o: L.add.reduce(L.asarray(np.stack([v, w])), axis=0,
                                                   out=o), (N,), "float64"),
    "round": (lambda L, v, w, o: L.round(L.asarray(np.trunc(v * 10).astype(np.int64)),
                                         out=o), (N,), "int64"),
}

# (no subnormals: the device flushes them to zero, a known limit apart from ``out=``)
values = st.lists(st.floats(-100, 100, allow_nan=False, allow_subnormal=False), min_size=N,
                  max_size=N)


def _make_out(lib, shape, dtype, kind):
    oshape, odtype, readonly = OUTS[kind]
    if oshape == "lead":
        oshape = (2, *shape)
    out = lib.zeros(oshape or shape, dtype=odtype or dtype)
    if readonly:
        out.flags.writeable = False
    return out


def _outcome(fn):
    """("ok", result) or ("error", NumPy's exception class name)."""
    try:
        return "ok", fn()
    except Exception as exc:
        return "error", type(exc).__name__


def _compare(name, mode, v, w, kind, values_too=True):
    call, shape, dtype = CASES[name]
    want_out = _make_out(np, shape, dtype, kind)
    want = _outcome(lambda: call(np, v, w, want_out))
    with npjax.policy(**MODES[mode]):
        got_out = _make_out(npjax, shape, dtype, kind)
        got = _outcome(lambda: call(npjax, v, w, got_out))
        _same_outcome(got, got_out, want, want_out, values_too)


def _same_outcome(got, got_out, want, want_out, values_too=True):
    """npjax's outcome and out against NumPy's: the error class, or whether the result is
    ``out``, its dtype and shape (and values)."""
    assert got[0] == want[0], (want, got)
    if want[0] == "error":
        assert got[1] == want[1], (want, got)
        return
    assert (got[1] is got_out) == (want[1] is want_out)
    assert got_out.dtype == want_out.dtype and got_out.shape == want_out.shape
    if values_too:
        np.testing.assert_allclose(np.asarray(got_out), want_out, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", CASES)
@given(v=values, w=values, kind=st.sampled_from(sorted(OUTS)))
def test_out_matches_numpy(name, mode, v, w, kind):
    _compare(name, mode, np.array(v), np.array(w), kind)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["same", "float32", "int64", "bad shape", "read-only"])
def test_divmod_tuple_out(mode, kind):
    v, w = np.array([7.5, -3.0, 2.0, 9.0, -8.5]), np.array([2.0, 2.0, -1.5, 4.0, 3.0])

    def call(lib):
        o1 = _make_out(lib, (N,), "float64", kind)
        o2 = _make_out(lib, (N,), "float64", kind)
        return o1, o2, _outcome(lambda: lib.divmod(lib.asarray(v), lib.asarray(w),
                                                   out=(o1, o2)))

    w1, w2, want = call(np)
    with npjax.policy(**MODES[mode]):
        g1, g2, got = call(npjax)
        assert got[0] == want[0], (want, got)
        if want[0] == "error":
            assert got[1] == want[1]
            return
        assert type(got[1]) is tuple and got[1][0] is g1 and got[1][1] is g2
        for g, w_ in ((g1, w1), (g2, w2)):
            assert g.dtype == w_.dtype
            np.testing.assert_array_equal(np.asarray(g), w_)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["same", "float32", "int64", "bad shape", "read-only"])
def test_random_out(mode, kind):
    """``Generator.random(out=)``: NumPy's stream on the host (the device's stream is its
    own: there the values are only in [0, 1))."""
    got_out, want_out = _out_of_one_call(
        mode, kind, lambda lib, out: lib.random.default_rng(7).random(out=out))
    if got_out is not None:
        drawn = np.asarray(got_out)
        if mode != "host":
            assert ((drawn >= 0) & (drawn < 1)).all()
        else:
            np.testing.assert_array_equal(drawn, want_out)


def _out_of_one_call(mode, kind, fn):
    """``fn(lib, out)`` with an ``out`` of ``kind`` in NumPy and in npjax (under ``mode``):
    the same outcome (the error class, or ``out`` itself returned, of NumPy's dtype); then
    (npjax's out, NumPy's out), or (None, None) after an error."""
    def call(lib):
        out = _make_out(lib, (N,), "float64", kind)
        return out, _outcome(lambda: fn(lib, out))

    want_out, want = call(np)
    with npjax.policy(**MODES[mode]):
        got_out, got = call(npjax)
    assert got[0] == want[0], (want, got)
    if want[0] == "error":
        assert got[1] == want[1]
        return None, None
    assert got[1] is got_out and got_out.dtype == want_out.dtype
    return got_out, want_out


ELLIPSIS_CALLS = {
    "add": lambda L: L.add(1.5, 2.0, out=...),
    "divmod": lambda L: L.divmod(L.asarray([7.5, -3.0]), 2.0, out=...),
    "add.reduce": lambda L: L.add.reduce(L.asarray([1.5, 2.0]), out=...),
    "clip": lambda L: L.clip(L.asarray([1.5, -2.0]), -1.0, 1.0, out=...),
    "clip of a scalar": lambda L: L.clip(L.float64(1.5), -1.0, 1.0, out=...),
    "sum": lambda L: L.sum(L.asarray([1.5, 2.0]), out=...),
    "cumsum": lambda L: L.cumsum(L.asarray([1.5, 2.0]), out=...),
}


def _arrays(r):
    """A result as (kind, dtype, shape, values), item by item for a tuple."""
    if isinstance(r, tuple):
        return tuple(_arrays(x) for x in r)
    scalar = isinstance(r, np.generic) or getattr(r, "_scalar", False)  # (npjax's scalars)
    return "scalar" if scalar else "array", str(r.dtype), r.shape, np.asarray(r).tolist()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ELLIPSIS_CALLS)
def test_out_ellipsis(name, mode):
    """``out=...``: arrays, never scalars, where NumPy takes it; NumPy's error class where
    it refuses it."""
    want = _outcome(lambda: _arrays(ELLIPSIS_CALLS[name](np)))
    with npjax.policy(**MODES[mode]):
        got = _outcome(lambda: _arrays(ELLIPSIS_CALLS[name](npjax)))
    assert got == want


@pytest.mark.parametrize("mode", MODES)
def test_a_foreign_out_is_refused_or_written_as_numpy_does(mode):
    """A NumPy array as ``out`` of an npjax ufunc: NumPy's ufunc writes it (the writer's
    NumPy branch), returning it itself."""
    v = np.array([1.0, 2.0, 3.0])
    want = np.zeros(3)
    np.add(v, v, out=want)
    with npjax.policy(**MODES[mode]):
        got = np.zeros(3)
        r = npjax.add(npjax.asarray(v), npjax.asarray(v), out=got)
        assert r is got
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["same", "float32", "int64", "bad shape", "read-only"])
def test_out_of_a_host_only_call(mode, kind):
    """An operand of a dtype the device cannot hold runs NumPy's call on the host whatever
    the policy: a device ``out`` is fetched, written by NumPy, and stored back by the
    writer."""
    x = np.array([1.5, 2.5, -3.0, 0.25, 7.0], dtype=np.longdouble)

    got_out, want_out = _out_of_one_call(
        mode, kind, lambda lib, out: lib.add(lib.asarray(x), 1.0, out=out))
    if got_out is not None:
        np.testing.assert_array_equal(np.asarray(got_out), want_out)


# (``take``'s index check reads the indices: a JitError under npjax.jit, ``out=`` or not)
@pytest.mark.parametrize("name", [name for name in CASES if name != "take"])
@given(v=values, w=values, kind=st.sampled_from(sorted(OUTS)))
def test_out_matches_numpy_under_jit(name, v, w, kind):
    """The same calls inside ``npjax.jit`` (``out`` an argument: written back after the
    call)."""
    call, shape, dtype = CASES[name]
    v, w = np.array(v), np.array(w)
    want_out = _make_out(np, shape, dtype, kind)
    want = _outcome(lambda: call(np, v, w, want_out))
    got_out = _make_out(npjax, shape, dtype, kind)
    got = _outcome(lambda: npjax.jit(lambda o: call(npjax, v, w, o))(got_out))
    _same_outcome(got, got_out, want, want_out)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["round", "cumsum", "sum", "clip", "take"])
def test_positional_out_of_a_host_only_call(mode, name):
    """``out`` given by position to a call NumPy runs on the host for a host-only operand
    (``np.round(a, 1, out)``): the device ``out`` is written and returned, as NumPy's."""
    x = np.array([1.55, -2.5, 15.0, 0.125], dtype=np.longdouble)
    calls = {"round": (lambda lib, a, o: lib.round(a, 1, o), (4,)),
             "cumsum": (lambda lib, a, o: lib.cumsum(a, 0, None, o), (4,)),
             "sum": (lambda lib, a, o: lib.sum(a, 0, None, o), ()),
             "clip": (lambda lib, a, o: lib.clip(a, -1.0, 2.0, o), (4,)),
             "take": (lambda lib, a, o: lib.take(a, [3, 0], 0, o), (2,))}
    call, shape = calls[name]
    want_out = np.zeros(shape, np.float32)
    want = call(np, x, want_out)
    with npjax.policy(**MODES[mode]):
        got_out = npjax.zeros(shape, np.float32)
        got = call(npjax, npjax.asarray(x), got_out)
    assert (got is got_out) == (want is want_out)
    np.testing.assert_array_equal(np.asarray(got_out), want_out)
