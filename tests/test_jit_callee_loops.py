"""Functions of the user's own and npjax.jit's loops (``_compile/_loop_source.callee``):
loops in a function the jitted function calls (a helper, a method, a nested ``def``, at any
depth) roll too, and a loop whose body calls such a function rolls when the function has no
Python side effects (``pure``). Compared with NumPy (values, final arguments, warnings);
``f.loops`` must show the loop rolled, where before it ran unrolled, one copy of its body
per iteration."""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np

import npjax
from npjax._compile import _loop_source, _user_code
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


def rhs(xp, y):
    return xp.stack([y[1], -xp.sin(y[0]) - 0.1 * y[1]])


def rk4_step(xp, f, y, h):
    k1 = f(xp, y)
    k2 = f(xp, y + h / 2 * k1)
    k3 = f(xp, y + h / 2 * k2)
    k4 = f(xp, y + h * k3)
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def integrate(xp, y0, n):
    y = y0
    for _ in range(n):
        y = rk4_step(xp, rhs, y, 0.01)
    return y


class Leapfrog:
    def __init__(self, dt):
        self.dt = dt

    def kick(self, v, a):
        v += a * self.dt  # in place, through the argument

    def drift(self, x, v):
        return x + v * self.dt


def leapfrog(xp, x, v, stepper, n):
    for _ in range(n):
        stepper.kick(v, -x)
        x = stepper.drift(x, v)
    return x, v


def put(x, i, value):
    x[i] = value  # an item store with the caller's loop index


def running_max(x):
    m = x[0]
    for j in range(1, x.shape[0]):  # a loop of its own, inside the caller's rolled body
        m = m * 0.5 + x[j]
    return m


def rows(xp, a, out):
    for i in range(a.shape[0]):
        put(out, i, running_max(a[i]))
    return out


class Counter:
    calls = 0


def counted(x, counter):
    counter.calls = counter.calls + 1  # an attribute store: a side effect
    return x * 2.0


def calls_counted(xp, a, counter):
    for i in range(a.shape[0]):
        a[i] = counted(a[i], counter)
    return a, counter.calls


def guarded(x):
    try:
        return x * 2.0
    except ValueError:
        return x


def calls_guarded(xp, a):
    for i in range(a.shape[0]):
        a[i] = guarded(a[i])
    return a


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
    a, b = _args()
    want = calls_helper(np, a.copy(), b)
    jitted = npjax.jit(lambda x, y: calls_helper(npjax, x, y))
    got = jitted(npjax.array(a), npjax.array(b))
    np.testing.assert_array_equal(np.asarray(got), want)
    assert _rolled_lines(jitted) == [(decay.__code__.co_firstlineno + 1, True)]


def test_lambdas_on_one_line_are_told_apart():
    a, b = _args()
    pair = (lambda x, y: calls_helper(npjax, x, y), lambda x, y: x * 2.0 + y)
    for fn, want in zip(pair, (calls_helper(np, a.copy(), b), a * 2.0 + b)):
        jitted = npjax.jit(fn)
        np.testing.assert_array_equal(np.asarray(jitted(npjax.array(a), npjax.array(b))),
                                      want)
    assert _loop_source._lambda(pair[1]).body[0].value.op.__class__.__name__ == "Add"


def test_only_the_users_code_is_rewritten():
    assert _user_code.user_code(decay.__code__)
    assert not _user_code.user_code(npjax.zeros.__code__)
    assert not _user_code.user_code(functools.reduce.__code__ if hasattr(
        functools.reduce, "__code__") else os.path.join.__code__)
    assert not _user_code.user_code(np.linspace.__wrapped__.__code__ if hasattr(
        np.linspace, "__wrapped__") else np.lib.stride_tricks.as_strided.__code__)
    assert not _user_code.user_code(compile("x = 1", "<string>", "exec"))


def test_installed_code_outside_site_packages_is_not_the_users(tmp_path, monkeypatch):
    # a wheel installed into a folder of sys.path (``pip install --target``, PYTHONPATH)
    (tmp_path / "wheelmod.py").write_text("def f():\n    return 1\n")
    (tmp_path / "wheelmod-1.0.dist-info").mkdir()
    (tmp_path / "wheelmod-1.0.dist-info" / "RECORD").write_text(
        "wheelmod.py,sha256=x,30\nwheelmod-1.0.dist-info/RECORD,,\n")
    (tmp_path / "mine.py").write_text("def g():\n    return 2\n")
    # a source checkout's egg-info lists the user's own files: they stay the user's
    (tmp_path / "proj.egg-info").mkdir()
    (tmp_path / "proj.egg-info" / "SOURCES.txt").write_text("mine.py\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    _user_code._top_level_names.cache_clear()
    wheelmod, mine = importlib.import_module("wheelmod"), importlib.import_module("mine")
    assert not _user_code.user_code(wheelmod.f.__code__)
    assert _user_code.user_code(mine.g.__code__)


def test_a_loop_rolls_where_jax_is_not_under_site_packages(tmp_path):
    # the TPU machine's JAX lives in a folder on PYTHONPATH: its functions, run inside a loop
    # body, are not the user's code (they were, and every loop there ran unrolled)
    jax_dir = os.path.dirname(importlib.util.find_spec("jax").origin)
    os.symlink(jax_dir, tmp_path / "jax")
    script = textwrap.dedent("""
        import jax, npjax
        assert jax.__file__.startswith(FOLDER), jax.__file__
        def f(a):
            for _ in range(20):
                a[1:-1] = 0.5 * (a[:-2] + a[2:])
            return a
        j = npjax.jit(f)
        j(npjax.arange(8.0))
        print([o.rolled for o in j.loops])
        """).replace("FOLDER", repr(str(tmp_path)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(tmp_path), os.path.dirname(os.path.dirname(npjax.__file__))]))
    (tmp_path / "script.py").write_text(script)  # (a loop rolls from its source file)
    out = subprocess.run([sys.executable, str(tmp_path / "script.py")], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[True]"


def test_a_loop_calling_pure_helpers_rolls():
    f = check_reports(integrate, np.array([1.0, 0.0]), 300, static=(1,), reruns=False)
    assert [o.rolled for o in f.loops] == [True]


def test_a_loop_calling_methods_that_write_their_argument_rolls():
    x, v = _args(16)
    f = check_reports(leapfrog, x, v, Leapfrog(0.05), 50, static=(2, 3), reruns=False)
    assert [o.rolled for o in f.loops] == [True]


def test_a_helpers_item_store_and_own_loop_inside_a_rolled_body():
    a = np.random.default_rng(1).random((12, 9))
    f = check_reports(rows, a, np.zeros(12), reruns=False)
    assert len(f.loops) == 2 and all(o.rolled for o in f.loops)


def test_a_helper_with_an_attribute_store_leaves_the_loop_unrolled():
    a, _ = _args(6)
    want = calls_counted(np, a.copy(), Counter())
    counter = Counter()
    jitted = npjax.jit(calls_counted, static_argnums=(0, 2))
    got = jitted(npjax, npjax.array(a), counter)
    np.testing.assert_array_equal(np.asarray(got[0]), want[0])
    assert got[1] == want[1] == 6 and counter.calls == 6
    assert [o.rolled for o in jitted.loops] == [False]
    assert "counted, a function of your own" in jitted.loops[0].reason


def test_a_helper_with_try_leaves_the_loop_unrolled():
    a, _ = _args(6)
    f = check_reports(calls_guarded, a, rolled=False, reruns=False)
    assert len(f.loops) == 1 and "guarded, a function of your own" in f.loops[0].reason
