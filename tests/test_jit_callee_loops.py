"""Loops in functions of the user's own that a jitted function calls roll too
(``_compile/_loop_source.callee``): a helper, a method, a nested ``def``, at any depth.
Compared with NumPy (values, final arguments, warnings); ``f.loops`` must show the callee's
loop rolled, where before it ran unrolled, one copy of its body per iteration."""

from __future__ import annotations

import functools
import os

import numpy as np

import npjax
from npjax._compile import _loop_source
from tests.test_jit_loops import check_reports


def decay(xp, a, b):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] * 0.5 + b[i]
    return a


def calls_helper(xp, a, b):
    return decay(xp, a, b) + 1.0


def calls_through_two(xp, a, b):
    return calls_helper(xp, a, b) * 2.0


class Smoother:
    def __init__(self, w):
        self.w = w

    def run(self, xp, x):
        for i in range(1, x.shape[0]):
            x[i] = self.w * x[i] + (1.0 - self.w) * x[i - 1]
        return x


def calls_method(xp, a, smoother):
    return smoother.run(xp, a).sum()


def nested_def(xp, a, b):
    def scan(x):
        for i in range(1, x.shape[0]):
            x[i] += x[i - 1]
        return x
    return scan(a * b)


def append_helper(xp, a, log):
    for i in range(a.shape[0]):
        log.append(i)  # a Python side effect: the loop runs as written
        a[i] *= 2.0
    return a


def calls_append_helper(xp, a):
    log = []
    out = append_helper(xp, a, log)
    return out, xp.asarray(log)


def _args(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random(n), rng.random(n)


def _rolled_lines(jitted):
    return [(o.line, o.rolled) for o in jitted.loops]


def test_a_helpers_loop_rolls():
    f = check_reports(calls_helper, *_args(), reruns=False)
    assert _rolled_lines(f) == [(decay.__code__.co_firstlineno + 1, True)]


def test_a_helper_two_calls_down_rolls():
    f = check_reports(calls_through_two, *_args(), reruns=False)
    assert _rolled_lines(f) == [(decay.__code__.co_firstlineno + 1, True)]


def test_a_methods_loop_rolls():
    a, _ = _args()
    f = check_reports(calls_method, a, Smoother(0.25), static=(1,), reruns=False)
    assert _rolled_lines(f) == [(Smoother.run.__code__.co_firstlineno + 1, True)]


def test_a_nested_defs_loop_rolls():
    f = check_reports(nested_def, *_args(), reruns=False)
    assert len(f.loops) == 1 and f.loops[0].rolled


def test_a_helper_with_side_effects_runs_as_written():
    a, _ = _args(12)
    np_a = a.copy()
    want_out, want_log = calls_append_helper(np, np_a)
    jitted = npjax.jit(calls_append_helper, static_argnums=0)
    x = npjax.array(a)
    out, log = jitted(npjax, x)
    np.testing.assert_array_equal(np.asarray(out), want_out)
    np.testing.assert_array_equal(np.asarray(log), want_log)
    np.testing.assert_array_equal(np.asarray(x), np_a)
    assert [o.rolled for o in jitted.loops] == [False]


def test_a_jitted_lambda_rolls_the_loops_of_what_it_calls():
    # the lambda itself has no source to rewrite; ``decay`` is reached through a def
    a, b = _args()
    want = calls_helper(np, a.copy(), b)

    def outer(x, y):
        return calls_helper(npjax, x, y)

    jitted = npjax.jit(lambda x, y: outer(x, y))
    got = jitted(npjax.array(a), npjax.array(b))
    np.testing.assert_array_equal(np.asarray(got), want)
    # a lambda is not rewritten, so the calls it makes are not routed: unrolled, as before
    assert jitted.loops == [] or not any(o.rolled for o in jitted.loops)


def test_only_the_users_code_is_rewritten():
    assert _loop_source._user_code(decay.__code__)
    assert not _loop_source._user_code(npjax.zeros.__code__)
    assert not _loop_source._user_code(functools.reduce.__code__ if hasattr(
        functools.reduce, "__code__") else os.path.join.__code__)
    assert not _loop_source._user_code(np.linspace.__wrapped__.__code__ if hasattr(
        np.linspace, "__wrapped__") else np.lib.stride_tricks.as_strided.__code__)
    assert not _loop_source._user_code(compile("x = 1", "<string>", "exec"))
