"""Module-level loops under ``python -m npjax run`` (issue 35, item 2) and the cap on
unrolled tracing (item 6): a hot ``for ... in range`` at module level runs its remaining
iterations as one compiled loop function and the module's globals end as NumPy's run leaves
them; a loop that cannot trace runs as written, each iteration once; warnings and
exceptions come at the user's line; a loop that stays unrolled refuses quickly. The same
script runs through NumPy (the oracle) and through the runner's hook with npjax."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
import time
import warnings

import numpy
import pytest

import npjax
from npjax._compile import _autojit_loop, _loop_unroll
from npjax._tools import _autojit_hook


@pytest.fixture
def always_pays(monkeypatch):
    """The cost model always pays: a loop compiles at its third iteration."""
    monkeypatch.setattr(_autojit_loop, "PAYS", 0.0)
    monkeypatch.setattr(_autojit_loop, "MIN_LEFT_S", 0.0)
    monkeypatch.setattr(_autojit_loop, "SPENT", 0.0)
    npjax.reset_stats()
    yield
    npjax.reset_stats()


def _run(source: str, path, engine: str) -> dict:
    """The script's globals after it ran: with NumPy as written, or with npjax through the
    runner's hook under jit="auto"."""
    source = textwrap.dedent(source)
    path.write_text(source)
    if engine == "numpy":
        namespace = {"__name__": "__main__", "np": numpy}
        exec(compile(source, str(path), "exec"), namespace)
        return namespace
    namespace = {"__name__": "__main__", "np": npjax}
    with npjax.policy(jit="auto"):
        exec(_autojit_hook.compile_source(source, str(path)), namespace)
    return namespace


def _same(ours, theirs) -> None:
    assert type(ours).__name__ == type(theirs).__name__ or (
        isinstance(ours, npjax.ndarray) and isinstance(theirs, numpy.ndarray)), (ours, theirs)
    if isinstance(theirs, numpy.ndarray | numpy.generic):
        assert numpy.asarray(ours).dtype == theirs.dtype
        numpy.testing.assert_array_equal(numpy.asarray(ours), theirs)
    else:
        assert ours == theirs


HOT = """\
n = 3000
a = np.zeros(n)
b = np.linspace(0.0, 1.0, n)
t = 0.0
for i in range(1, n):
    a[i] = a[i - 1] * 0.5 + b[i]
    t += 0.5
    c = a[i] * 2
"""


def test_a_hot_module_loop_compiles_once_and_rebinds_the_globals(tmp_path, always_pays):
    theirs = _run(HOT, tmp_path / "hot.py", "numpy")
    ours = _run(HOT, tmp_path / "hot.py", "npjax")
    assert npjax.stats()["compiles"]["by_function"]["jit(traced)"] == 1  # one: the loop
    for name in ("a", "b", "t", "c", "i"):
        _same(ours[name], theirs[name])
    compiled = npjax.stats()["autojit"]["compiled"]
    assert [(e["function"], e["site"]) for e in compiled] == [
        ("<module loop>", f"{tmp_path / 'hot.py'}:5")]
    assert ours["a"] is not None and ours["i"] == 2999 and type(ours["t"]) is float


def test_module_loop_with_user_functions_and_nested_statements(tmp_path, always_pays):
    source = """\
    def step(u):
        v = u.copy()
        v[1:-1] = 0.25 * u[:-2] + 0.5 * u[1:-1] + 0.25 * u[2:]
        return v

    if __name__ == "__main__":
        u = np.linspace(0.0, 1.0, 50) ** 2
        for s in range(200):
            u = step(u)
    """
    theirs = _run(source, tmp_path / "nested.py", "numpy")
    ours = _run(source, tmp_path / "nested.py", "npjax")
    _same(ours["u"], theirs["u"])
    _same(ours["s"], theirs["s"])
    assert [e["site"] for e in npjax.stats()["autojit"]["compiled"]] == [
        f"{tmp_path / 'nested.py'}:8"]


def test_loops_that_cannot_trace_run_as_written_once(tmp_path, always_pays, capsys):
    source = """\
    calls = [0]

    def counted(x):
        calls[0] += 1
        return x

    n = 300
    a = np.zeros(n)
    b = np.linspace(0.0, 1.0, n)
    for i in range(1, n):
        if a[i - 1] > 0.5:
            a[i] = a[i - 1] * 0.5
        else:
            a[i] = a[i - 1] + b[i]
    for j in range(40):
        print("row", j)
    for k in range(50):
        b = counted(b) + 1.0
    """
    theirs = _run(source, tmp_path / "refused.py", "numpy")
    printed = capsys.readouterr().out
    ours = _run(source, tmp_path / "refused.py", "npjax")
    assert capsys.readouterr().out == printed  # every print once, in order
    for name in ("a", "b", "i", "j", "k"):
        _same(ours[name], theirs[name])
    assert ours["calls"] == theirs["calls"] == [50]
    assert npjax.stats()["autojit"]["compiled"] == []
    refused = {e["site"].rsplit(":", 1)[1]: e["reason"]
               for e in npjax.stats()["autojit"]["refused"]}
    assert set(refused) >= {"10", "15", "17"}, refused
    assert refused["17"] == "reads calls, a list (refused.py:4)"  # (counted's global list)
    assert "cannot trace" in refused["10"] and refused["15"] == "calls print (refused.py:16)"


WARNS = """\
x = np.ones(4)
with np.errstate(divide="warn"):
    for j in range(60):
        y = x / (j - 40)
        x = x * 1.0
"""


def test_warnings_come_at_the_users_line(tmp_path, always_pays):
    path = tmp_path / "warns.py"
    caught = {}
    for engine in ("numpy", "npjax"):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            caught[engine] = (_run(WARNS, path, engine), got)
    (ours, ours_w), (theirs, theirs_w) = caught["npjax"], caught["numpy"]
    _same(ours["y"], theirs["y"])
    _same(ours["j"], theirs["j"])
    assert [(str(w.message), w.filename, w.lineno) for w in ours_w] == [
        (str(w.message), w.filename, w.lineno) for w in theirs_w]
    assert theirs_w and theirs_w[0].lineno == 4


RAISES = """\
a = np.zeros(20)
total = 0.0
for i in range(40):
    total = total + 1.0
    a[i] = total
"""


def test_exceptions_come_at_the_users_line_with_the_names_as_written(tmp_path, always_pays):
    path = tmp_path / "raises.py"
    got = {}
    for engine in ("numpy", "npjax"):
        namespace = {"__name__": "__main__", "np": numpy if engine == "numpy" else npjax}
        code = (compile(RAISES, str(path), "exec") if engine == "numpy"
                else _autojit_hook.compile_source(RAISES, str(path)))
        with npjax.policy(jit="auto"), pytest.raises(IndexError) as info:
            exec(code, namespace)
        tb = info.tb
        while tb.tb_next is not None:
            tb = tb.tb_next
        user = [f for f in _frames(info.tb) if f[0] == str(path)]
        got[engine] = (namespace, user[-1])
    (ours, ours_at), (theirs, theirs_at) = got["npjax"], got["numpy"]
    assert ours_at == theirs_at == (str(path), 5)
    for name in ("a", "total", "i"):
        _same(ours[name], theirs[name])


def _frames(tb):
    out = []
    while tb is not None:
        out.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    return out


def test_the_policy_and_short_loops_leave_loops_as_written(tmp_path, always_pays):
    path = tmp_path / "off.py"
    path.write_text(HOT)
    namespace = {"__name__": "__main__", "np": npjax}
    with npjax.policy(jit="explicit"):
        exec(_autojit_hook.compile_source(HOT, str(path)), namespace)
    assert npjax.stats()["autojit"]["compiled"] == []
    for refused in ("for i in range(9):\n    break\n", "for i in x:\n    pass\n",
                    "for i in range(9):\n    global y\n", "for i in range(9):\n    del x\n",
                    "for i, j in range(9):\n    pass\n"):
        assert not _autojit_loop.eligible(ast.parse(refused).body[0])


# --- the cap on unrolled tracing -----------------------------------------------------------


UNROLLED = """\
import resource, sys, time
import npjax as np

def f(a, n):
    for i in range(1, n):
        if i % 2 == 0:          # the index as a Python value: the loop cannot roll
            a[i] = a[i - 1] * 0.5
    return a

if sys.argv[1] == "refuse":
    t0 = time.perf_counter()
    try:
        np.jit(f)(np.zeros(100001), 100000)
    except np.JitError as exc:
        print("JitError", str(exc))
    print("seconds", time.perf_counter() - t0)
else:
    np.jit(f)(np.zeros(11), 10)
print("peak_mb", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def test_a_loop_that_cannot_roll_refuses_quickly_with_bounded_memory(tmp_path):
    path = tmp_path / "unrolled.py"
    path.write_text(UNROLLED)
    out = {}
    for mode in ("small", "refuse"):
        done = subprocess.run([sys.executable, str(path), mode], capture_output=True,
                              text=True, timeout=300, env={**os.environ, "JAX_PLATFORMS": "cpu"})
        assert done.returncode == 0, done.stderr
        out[mode] = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    message = out["refuse"]["JitError"]
    assert f"{path}:5: this loop stays unrolled" in message
    assert f"more than {_loop_unroll.MAX_UNROLLED} iterations" in message
    assert float(out["refuse"]["seconds"]) < 10.0
    # the refusal costs no more memory than one small compiled call (measured: +0-20 MB)
    assert float(out["refuse"]["peak_mb"]) < float(out["small"]["peak_mb"]) + 200


def tri(np, L, b):
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n):  # triangular: the inner range depends on the outer index
        s = 0.0
        for j in range(i):
            s += L[i, j] * x[j]
        x[i] = (b[i] - s) / L[i, i]
    return x


def test_autojit_refuses_loops_unrolled_past_its_limit_and_runs_them_as_written(autojit_hot):
    f = npjax.autojit(tri)
    L = numpy.tril(numpy.linspace(1.0, 2.0, 30 * 30).reshape(30, 30))
    b = numpy.linspace(0.0, 1.0, 30)
    want = tri(numpy, L, b)
    t0 = time.perf_counter()
    for _ in range(3):
        got = f(npjax, npjax.array(L), npjax.array(b))
        numpy.testing.assert_array_equal(numpy.asarray(got), want)
    assert time.perf_counter() - t0 < 30
    refused = npjax.stats()["autojit"]["refused"]
    assert any("stays unrolled" in e["reason"] and e["site"].startswith(__file__)
               for e in refused), refused
    assert npjax.stats()["autojit"]["compiled"] == []


# --- the first run ---------------------------------------------------------------------------


def _wall(path, jit: str) -> float:
    done = subprocess.run([sys.executable, "-m", "npjax", "run", "--no-report", "--jit", jit,
                           str(path)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 0, done.stderr
    return float(done.stdout.split()[-1])


def test_first_run_is_not_slower_than_as_written(tmp_path):
    """A short module loop is never compiled; a hot one compiles and pays (the cost model's
    thresholds, measured in the script around each loop, best of three)."""
    path = tmp_path / "first.py"
    path.write_text(textwrap.dedent("""\
        import time
        import numpy as np
        t0 = time.perf_counter()
        x = np.zeros(8)
        for i in range(20000):          # short: 10-30 ms as written, never compiled
            x = x * 0.5 + 1.0
        n = 2000000
        a = np.zeros(n)
        b = np.linspace(0.0, 1.0, n)
        for i in range(1, n):           # hot: about 1 s as written
            a[i] = a[i - 1] * 0.5 + b[i]
        print(float(a.sum()) + float(x.sum()), time.perf_counter() - t0)
        """))
    walls = {jit: min(_wall(path, jit) for _ in range(3)) for jit in ("explicit", "auto")}
    assert walls["auto"] <= 1.2 * walls["explicit"], walls


def flipconv(np, a, b):
    out = np.zeros(a.shape[0])
    for k in range(1, a.shape[0]):  # np.flip of a growing slice
        out[k] = np.dot(np.flip(a[:k]), b[:k])
    return out


def test_flip_of_a_growing_slice_rolls():
    """Its loop unrolled (999 iterations: a 28 s first call at n = 1000); it rolls as
    ``a[:k][::-1]`` does (a dot of masked windows: NumPy's value to the last bits)."""
    a = numpy.linspace(0.0, 1.0, 60) + 0.3
    f = npjax.jit(flipconv, static_argnums=0)
    got = f(npjax, npjax.array(a), npjax.array(a ** 2))
    assert [loop.rolled for loop in f.loops] == [True]
    numpy.testing.assert_allclose(numpy.asarray(got), flipconv(numpy, a, a ** 2), rtol=1e-14)


def test_names_of_comprehensions_in_the_loop_stay_theirs(tmp_path, always_pays):
    source = """\
    a = np.zeros(40)
    for i in range(40):
        a[i] = sum([k * 1.0 for k in range(3)]) + i
    """
    theirs = _run(source, tmp_path / "comp.py", "numpy")
    ours = _run(source, tmp_path / "comp.py", "npjax")
    assert "k" not in ours and "k" not in theirs
    _same(ours["a"], theirs["a"])
    _same(ours["i"], theirs["i"])


WRITES_A_NUMPY_GLOBAL = """\
import operator

import numpy

COUNT = numpy.zeros(1, numpy.int64)


def bump(x):
    operator.iadd(COUNT, 1)  # (a write into the global array, no store statement)
    return x * 0.5 + 1.0


x = np.zeros(3)
for i in range(200):
    x = bump(x)
"""


def test_a_loop_calling_a_function_that_reads_a_numpy_global_runs_as_written(tmp_path,
                                                                                always_pays):
    # (a NumPy global is a guarded constant of an autojit function; a rolled loop would run
    # the write once for all its iterations)
    theirs = _run(WRITES_A_NUMPY_GLOBAL, tmp_path / "count.py", "numpy")
    ours = _run(WRITES_A_NUMPY_GLOBAL, tmp_path / "count.py", "npjax")
    _same(ours["x"], theirs["x"])
    numpy.testing.assert_array_equal(ours["COUNT"], theirs["COUNT"])
    assert theirs["COUNT"][0] == 200
    assert npjax.stats()["autojit"]["compiled"] == []
    (refused,) = npjax.stats()["autojit"]["refused"]
    assert refused["reason"] == ("reads the NumPy array COUNT of a global or closure variable "
                                 "(a compiled loop would keep its value)")
