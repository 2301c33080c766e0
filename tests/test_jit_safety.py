"""npjax.jit keeps the user's code as written (issue 35, points 3 and 4).

Exceptions while tracing are the user's: one raised by a signal handler (a time limit's
``Timeout``), by a ``raise`` of the user's code or of a class of the user's propagates at
once, as without npjax, and later calls are still compiled; NumPy's exceptions raised by the
traced NumPy semantics (``OverflowError`` at an unrolled iteration) still rerun the call
eagerly, so NumPy's writes before them are made.

A loop rolls only where nothing but arrays and its own locals change: code of the user's that
the body runs implicitly (a ``@property``, ``float(obj)`` calling ``__float__``, an operator of
the user's class, ``sorted(key=...)``) runs as often as written (the loop unrolls), and list
and dict arguments whose items the function replaces, adds or removes are changed in the
caller as NumPy's run changes them. Each case compares with plain NumPy.
"""

from __future__ import annotations

import gc
import os
import signal

import jax
import numpy as np
import pytest

import npjax
from npjax._compile import _loops

_SIGNALS = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no POSIX timers")


class Timeout(Exception):
    """What a time limit's signal handler raises (a plain Exception)."""


def _raise_timeout(signum, frame):
    raise Timeout("time is up")


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _eager_sites(name):
    return [e for e in npjax.stats()["jit_eager"] if e["function"] == name]


def _long(xp, a, n):
    for i in range(n):  # (``i % 7``: unrolled, one traced body per iteration)
        a[i % 7] = a[(i + 1) % 7] * 0.5 + 1.0
    return a


@_SIGNALS
@pytest.mark.parametrize("handler,exc", [(_raise_timeout, Timeout),
                                         (_raise_interrupt, KeyboardInterrupt)])
def test_a_timer_signal_while_tracing_propagates_at_once(handler, exc):
    f = npjax.jit(_long, static_argnums=(0, 2))
    npjax.reset_stats()
    a = npjax.zeros(7)
    old = signal.signal(signal.SIGALRM, handler)
    gc.disable()  # (Python drops an exception raised in a gc callback: JAX has one)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(exc):
            f(npjax, a, 1000)  # (tracing it takes more than a second)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        gc.enable()
    assert np.array_equal(np.asarray(a), np.zeros(7))  # (nothing written)
    assert not _eager_sites("_long")
    got = f(npjax, npjax.zeros(7), 30)  # compiled, not eager, later
    assert np.array_equal(np.asarray(got), _long(np, np.zeros(7), 30))
    assert not _eager_sites("_long")


def _rolls(xp, a, b):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] * 0.5 + b[i]
    return a


@_SIGNALS
def test_a_signal_while_a_loop_body_is_probed_propagates(monkeypatch):
    """A loop body's trace with a symbolic index (the probe) left a loop unrolled after any
    exception, so a time limit's Timeout raised there was lost and the trace went on."""
    classify = _loops._classify
    space = {"os": os, "signal": signal, "classify": classify}
    exec(compile("def interrupted(*args):\n"  # (not code of the user's: the probe runs it)
                 "    os.kill(os.getpid(), signal.SIGALRM)\n"  # (its handler runs at once)
                 "    return classify(*args)\n", "<npjax test>", "exec"), space)
    monkeypatch.setattr(_loops, "_classify", space["interrupted"])
    f = npjax.jit(_rolls, static_argnums=0)
    npjax.reset_stats()
    a, b = npjax.zeros(8), npjax.ones(8)
    old = signal.signal(signal.SIGALRM, _raise_timeout)
    gc.disable()  # (Python drops an exception raised in a gc callback: JAX has one)
    try:
        with pytest.raises(Timeout):
            f(npjax, a, b)
    finally:
        signal.signal(signal.SIGALRM, old)
        gc.enable()
    monkeypatch.setattr(_loops, "_classify", classify)
    assert np.array_equal(np.asarray(a), np.zeros(8))
    got = f(npjax, a, b)
    assert np.array_equal(np.asarray(got), _rolls(np, np.zeros(8), np.ones(8)))
    assert [o.rolled for o in f.loops] == [True] and not _eager_sites("_rolls")


class Mine(Exception):
    pass


_LOG = []


def _raises(xp, a):
    a[0] = 5.0
    _LOG.append("ran")  # (a side effect of the user's: once per call, as written)
    if a.shape[0] > 3:
        raise Mine("the user's own")
    return a


def test_a_users_exception_propagates_at_once_and_is_not_rerun():
    """It was rerun eagerly (the user's side effects before it ran twice) and the key could
    then be marked eager."""
    _LOG.clear()
    with pytest.raises(Mine):
        _raises(np, np.zeros(5))
    want = list(_LOG)
    f = npjax.jit(_raises, static_argnums=0)
    npjax.reset_stats()
    for calls in (1, 2):
        _LOG.clear()
        with pytest.raises(Mine):
            f(npjax, npjax.zeros(5))
        assert _LOG == want, calls
    assert not _eager_sites("_raises")


def _overflows(xp, a, u):
    for i in range(250, 260):
        a[0] = a[0] + 1.0
        u[1] = u[0] + i  # (a Python int out of uint8's range at i = 256: OverflowError)
    return a


def test_numpys_exception_while_tracing_still_reruns_eagerly():
    """A known condition: NumPy's exception raised by the traced NumPy semantics; the eager
    rerun makes NumPy's writes before it."""
    a, u = np.zeros(2), np.zeros(2, np.uint8)
    with pytest.raises(OverflowError):
        _overflows(np, a, u)
    ja, ju = npjax.zeros(2), npjax.zeros(2, np.uint8)
    with pytest.raises(OverflowError):
        npjax.jit(_overflows, static_argnums=0)(npjax, ja, ju)
    assert np.array_equal(np.asarray(ja), a) and np.array_equal(np.asarray(ju), u)


# --- implicit calls of the user's code in a loop body --------------------------------------


class Counted:
    """A user's class whose methods Python calls implicitly; ``calls`` counts them."""

    def __init__(self):
        self.calls = 0

    @property
    def scale(self):
        self.calls += 1
        return 0.5

    def __float__(self):
        self.calls += 1
        return 0.25

    def __mul__(self, other):
        self.calls += 1
        return other * 2.0


def _property(xp, a, obj):
    for i in range(8):
        a = a * obj.scale + i
    return a


def _float(xp, a, obj):
    for _ in range(8):
        a = a + float(obj)
    return a


def _operator(xp, a, obj):
    for _ in range(8):
        a = obj * a + 1.0
    return a


_KEYS = []


def _key(x):
    _KEYS.append(x)
    return -x


def _sorted(xp, a, b):
    for i in range(8):
        order = sorted([3, 1, 2], key=_key)
        a[i] = b[i] * order[0]
    return a


@pytest.mark.parametrize("kernel", [_property, _float, _operator])
def test_implicit_calls_run_as_often_as_written(kernel):
    want_obj, got_obj = Counted(), Counted()
    want = kernel(np, np.arange(4.0), want_obj)
    f = npjax.jit(kernel, static_argnums=(0, 2))
    got = f(npjax, npjax.arange(4.0), got_obj)
    assert np.array_equal(np.asarray(got), want)
    assert got_obj.calls == want_obj.calls == 8
    assert [o.rolled for o in f.loops] == [False]  # (unrolled: the body is as written)
    assert "code of your own" in f.loops[0].reason


def test_a_key_function_runs_as_often_as_written():
    _KEYS.clear()
    want = _sorted(np, np.zeros(8), np.arange(8.0))
    want_keys = list(_KEYS)
    _KEYS.clear()
    f = npjax.jit(_sorted, static_argnums=0)
    got = f(npjax, npjax.zeros(8), npjax.arange(8.0))
    assert np.array_equal(np.asarray(got), want)
    assert _KEYS == want_keys and len(want_keys) == 24


def _plain(xp, a, b):  # no user code in the body: still rolls
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] * 0.5 + b[i]
    return a


def test_a_body_without_implicit_calls_still_rolls():
    f = npjax.jit(_plain, static_argnums=0)
    got = f(npjax, npjax.zeros(8), npjax.arange(8.0))
    assert np.array_equal(np.asarray(got), _plain(np, np.zeros(8), np.arange(8.0)))
    assert [o.rolled for o in f.loops] == [True]


# --- list and dict arguments the function changes ------------------------------------------


def _step(xp, P, V, dt):
    for i in range(len(P)):
        P[i] = P[i] + dt * V[i]
    return P[0]


def _grow(xp, P, d):
    P.append(P[0] + 1.0)
    P.append(P[1])  # (the caller's own object, as NumPy's run leaves it)
    d["x"] = d["x"] * 2.0
    d["new"] = P[0]
    del P[0]
    return len(P)


def _swap(xp, P):
    P[0], P[1] = P[1], P[0]
    return P


def _lists(xp, n=5):
    return [xp.arange(3.0) + k for k in range(n)], [xp.ones(3) * k for k in range(n)]


def _same_lists(got, want):
    assert type(got) is type(want) and len(got) == len(want)
    for g, w in zip(got, want):
        assert np.array_equal(np.asarray(g), w)


def test_items_rebound_in_a_list_argument_reach_the_caller():
    P, V = _lists(np)
    want = _step(np, P, V, 0.5)
    jP, jV = _lists(npjax)
    before_V = list(jV)
    f = npjax.jit(_step, static_argnums=(0, 3))
    for calls in (1, 2):  # (traced, then the compiled program)
        if calls == 2:
            want = _step(np, P, V, 0.5)
        got = f(npjax, jP, jV, 0.5)
        assert np.array_equal(np.asarray(got), want)
        _same_lists(jP, P)
        assert all(x is y for x, y in zip(jV, before_V))


def test_items_added_and_removed_reach_the_caller():
    P, _ = _lists(np, 3)
    d = {"x": np.ones(2)}
    keep = P[1]
    assert _grow(np, P, d) == 4
    jP, _ = _lists(npjax, 3)
    jd = {"x": npjax.ones(2)}
    jkeep = jP[1]
    assert npjax.jit(_grow, static_argnums=0)(npjax, jP, jd) == 4
    _same_lists(jP, P)
    assert (P[0] is keep and P[3] is keep) and (jP[0] is jkeep and jP[3] is jkeep)
    assert list(jd) == list(d) and all(np.array_equal(np.asarray(jd[k]), d[k]) for k in d)


def test_a_returned_list_argument_is_the_callers_list():
    P, _ = _lists(np, 3)
    a, b = P[0], P[1]
    assert _swap(np, P) is P and P[0] is b and P[1] is a
    jP, _ = _lists(npjax, 3)
    ja, jb = jP[0], jP[1]
    got = npjax.jit(_swap, static_argnums=0)(npjax, jP)
    assert got is jP and jP[0] is jb and jP[1] is ja


def _swallowing(inner):
    """``inner`` behind a bare ``except`` of library code (the file is JAX's), as JAX's
    tracing path has them: a signal's exception raised there is lost without npjax's guard."""
    space = {"os": os, "signal": signal, "inner": inner}
    exec(compile("def swallowing(*args):\n"
                 "    try:\n"
                 "        os.kill(os.getpid(), signal.SIGALRM)\n"  # (its handler runs at once)
                 "    except BaseException:\n"
                 "        pass\n"
                 "    return inner(*args)\n", jax.core.__file__, "exec"), space)
    return space["swallowing"]


@_SIGNALS
@pytest.mark.parametrize("handler,exc", [(_raise_timeout, Timeout),
                                         (_raise_interrupt, KeyboardInterrupt)])
def test_a_signal_library_code_swallows_while_tracing_still_propagates(monkeypatch, handler,
                                                                         exc):
    """A handler's exception lost in an ``except:`` of JAX's is raised after the trace, and
    nothing is written; later calls are compiled."""
    monkeypatch.setattr(_loops, "_classify", _swallowing(_loops._classify))
    f = npjax.jit(_rolls, static_argnums=0)
    npjax.reset_stats()
    a, b = npjax.zeros(8), npjax.ones(8)
    old = signal.signal(signal.SIGALRM, handler)
    gc.disable()
    try:
        with pytest.raises(exc):
            f(npjax, a, b)
        assert signal.getsignal(signal.SIGALRM) is handler  # (the user's, back in place)
    finally:
        signal.signal(signal.SIGALRM, old)
        gc.enable()
    monkeypatch.undo()
    assert np.array_equal(np.asarray(a), np.zeros(8))
    got = f(npjax, a, b)
    assert np.array_equal(np.asarray(got), _rolls(np, np.zeros(8), np.ones(8)))
    assert not _eager_sites("_rolls")


_CAUGHT = []


def _catches_its_signal(xp, a):
    try:
        os.kill(os.getpid(), signal.SIGALRM)
    except Timeout:
        _CAUGHT.append(xp.__name__)
    return a * 2.0


@_SIGNALS
def test_a_signal_the_users_code_catches_while_tracing_stays_caught():
    """The user's own ``try`` around the point a handler's exception lands keeps it, as in
    NumPy's run: the call returns NumPy's result."""
    f = npjax.jit(_catches_its_signal, static_argnums=0)
    old = signal.signal(signal.SIGALRM, _raise_timeout)
    _CAUGHT.clear()
    try:
        want = _catches_its_signal(np, np.arange(3.0))
        got = f(npjax, npjax.arange(3.0))
    finally:
        signal.signal(signal.SIGALRM, old)
    assert np.array_equal(np.asarray(got), want) and _CAUGHT == ["numpy", "npjax"]


def test_a_first_call_keeps_no_reference_to_its_arguments():
    """The signal guard of a first call (a trace) holds the call's frame; it lets it go, so
    ``resize``'s reference check passes as NumPy's does right after the call (no cycle left
    for the collector)."""
    gc.disable()
    try:
        a, n = npjax.array(np.ones((20, 20))), np.ones((20, 20))
        npjax.jit(lambda a: a.sum())(a)
        a.resize((3, 5))
        n.resize((3, 5))
    finally:
        gc.enable()
    assert np.array_equal(np.asarray(a), n)
