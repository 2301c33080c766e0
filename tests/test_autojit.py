"""npjax.autojit (issue 35, items 1, 2, 7): the function runs as written while cold and
compiled through npjax.jit once hot; results, argument mutations, warnings and exceptions
are NumPy's on every call (cold, compiling, compiled); refusals are never retried; the
policy field ``jit``; the runner applies it to the script's own functions and reports it.
Compiles are counted with ``npjax.stats()``, never timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy
import pytest

import npjax
from npjax._compile import _autojit, _autojit_check
from tests._parity import DEVICE_FLOAT

CALLS = 5  # cold, compiling and compiled calls


@pytest.fixture(autouse=True)
def hot_at_second_call(autojit_hot):
    """A signature is hot at its second call (``autojit_hot`` in conftest.py)."""
    yield


def _compiles() -> int:
    return npjax.stats()["compiles"]["count"]


def _auto():
    return npjax.stats()["autojit"]


def test_results_and_mutations_match_numpy_cold_and_hot():
    def kernel(a, b):
        for i in range(1, a.shape[0]):
            a[i] = a[i - 1] * 0.5 + b[i]
        return a.sum(axis=1)

    f = npjax.autojit(kernel)
    rng = numpy.random.default_rng(0)
    for call in range(CALLS):
        a0, b0 = rng.random((50, 3)), rng.random((50, 3))
        a_np, a_nj = a0.copy(), npjax.asarray(a0.copy())
        want = kernel(a_np, b0)
        got = f(a_nj, npjax.asarray(b0))
        numpy.testing.assert_array_equal(numpy.asarray(got), want, err_msg=f"call {call}")
        numpy.testing.assert_array_equal(numpy.asarray(a_nj), a_np, err_msg=f"call {call}")
        assert numpy.asarray(got).dtype == want.dtype
    done = _auto()["compiled"]
    assert [(e["function"], e["signatures"], e["cold_calls"], e["hot_calls"]) for e in done] \
        == [("test_results_and_mutations_match_numpy_cold_and_hot.<locals>.kernel", 1, 1,
             CALLS - 2)]
    assert _auto()["refused"] == []


def test_cold_calls_compile_nothing_and_hot_calls_compile_once(monkeypatch):
    def scale(a):
        return a * 2.0 + 1.0

    f = npjax.autojit(scale)
    x = npjax.asarray(numpy.arange(6.0))
    monkeypatch.setattr(_autojit, "expected_compile_s", lambda: 1e9)  # never pays
    for _ in range(4):
        numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(6.0) * 2 + 1)
    assert _auto()["compiled"] == []
    assert f._jitted is None
    # (every live wrapper's cold signatures are listed: an earlier test's too)
    cold = [e for e in _auto()["cold"] if e["function"].endswith("scale")]
    assert [(e["function"].rsplit(".", 1)[-1], e["calls"]) for e in cold] == [("scale", 4)]
    monkeypatch.setattr(_autojit, "expected_compile_s", lambda: 0.0)
    f(x)  # compiles
    after_compile = _compiles()
    for _ in range(3):
        numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(6.0) * 2 + 1)
    assert _compiles() == after_compile
    assert f._jitted._cache_size() == 1


def test_one_program_per_signature():
    def add(a, b):
        return a + b

    f = npjax.autojit(add)
    for n in (3, 3, 3, 4, 4, 4):
        x = npjax.asarray(numpy.ones(n))
        numpy.testing.assert_array_equal(numpy.asarray(f(x, x)), numpy.full(n, 2.0))
    assert f._jitted._cache_size() == 2
    assert _auto()["compiled"][0]["signatures"] == 2


def test_cannot_trace_runs_as_written_and_is_never_retried():
    def branchy(x):
        if x.sum() > 0:  # a value-dependent branch: npjax.jit cannot trace it
            return x * 2
        return x - 1

    f = npjax.autojit(branchy)
    for call in range(6):
        sign = 1 if call % 2 else -1
        x0 = numpy.arange(4.0) * sign
        want = branchy(x0)
        numpy.testing.assert_array_equal(numpy.asarray(f(npjax.asarray(x0))), want)
    refused = _auto()["refused"]
    assert len(refused) == 1
    entry = refused[0]
    assert entry["reason"].startswith("cannot trace")
    assert entry["site"] == f"{__file__}:{branchy.__code__.co_firstlineno + 1}"
    assert entry["count"] == 5  # refused at the second call; as written since, no new try
    before = _compiles()
    traces = npjax.stats()["compiles"]["traces"]
    for _ in range(3):
        f(npjax.asarray(numpy.ones(4)))
    assert npjax.stats()["compiles"]["traces"] == traces and _compiles() == before
    assert _auto()["refused"][0]["count"] == 8
    assert _auto()["compiled"] == []


def test_an_exception_of_the_trace_runs_as_written_and_is_not_retried():
    def scaled(a, t):
        a[0] = 5.0
        return a * (1.0 / t)  # ZeroDivisionError at t == 0.0, after the write

    f = npjax.autojit(scaled)
    for _ in range(CALLS):
        a_np, a_nj = numpy.ones(3), npjax.ones(3)
        with pytest.raises(ZeroDivisionError):
            scaled(a_np, 0.0)
        with pytest.raises(ZeroDivisionError):
            f(a_nj, 0.0)
        numpy.testing.assert_array_equal(numpy.asarray(a_nj), a_np)
    refused = _auto()["refused"]
    assert [(e["reason"], e["count"]) for e in refused] == [
        ("npjax.jit could not trace it (ZeroDivisionError)", CALLS - 1)]
    assert _auto()["compiled"] == []


def test_the_check_refuses_side_effects_once_per_function(capsys):
    log = []

    def noisy(x):
        print("step")
        return x + 1

    def appends(x):
        log.append(1)
        return x + 1

    f, g = npjax.autojit(noisy), npjax.autojit(appends)
    for _ in range(4):
        f(npjax.asarray(numpy.ones(3)))
        g(npjax.asarray(numpy.ones(3)))
    assert capsys.readouterr().out == "step\n" * 4
    assert log == [1] * 4
    reasons = {e["function"].rsplit(".", 1)[-1]: e for e in _auto()["refused"]}
    assert reasons["noisy"]["reason"] == "calls print"
    assert reasons["noisy"]["site"] == f"{__file__}:{noisy.__code__.co_firstlineno + 1}"
    assert reasons["noisy"]["count"] == 3  # refused at the second call, then as written
    assert "log" in reasons["appends"]["reason"]
    assert f._jitted is None and g._jitted is None


SCALE = 2.0
GLOBAL_ARRAY = npjax.ones(3)  # (NumPy's arrays are guarded constants: test_autojit_constants)


def uses_scale(x):
    return x * SCALE


def uses_global_array(x):
    return x + GLOBAL_ARRAY


def test_globals_are_guarded(monkeypatch):
    f = npjax.autojit(uses_scale)
    x = npjax.asarray(numpy.arange(3.0))
    for _ in range(3):
        numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(3.0) * 2)
    monkeypatch.setitem(globals(), "SCALE", 3.0)
    for _ in range(3):
        numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(3.0) * 3)
    g = npjax.autojit(uses_global_array)
    for _ in range(3):
        numpy.testing.assert_array_equal(numpy.asarray(g(x)), numpy.arange(3.0) + 1)
    assert [e["reason"].split(" (")[0] for e in _auto()["refused"]] == [
        "reads the global array GLOBAL_ARRAY"]


def test_user_exceptions_propagate_with_numpys_writes():
    def fails(a, n):
        a[0] = 7.0
        if n > 2:
            raise ValueError("too many")
        return a * 2

    f = npjax.autojit(fails)
    for call in range(CALLS):
        a_np, a_nj = numpy.zeros(3), npjax.zeros(3)
        with pytest.raises(ValueError, match="too many"):
            fails(a_np, 3)
        with pytest.raises(ValueError, match="too many"):
            f(a_nj, 3)
        numpy.testing.assert_array_equal(numpy.asarray(a_nj), a_np, err_msg=f"call {call}")


def test_numpy_exceptions_and_warnings_as_written():
    def gather(a, idx):
        return a[idx] * 2

    def logs(x):
        return numpy_log(x)

    f = npjax.autojit(gather)
    a = numpy.arange(5.0)
    for idx in ([0, 1], [1, 2], [0, 4], [0, 9], [0, 9]):
        ix = numpy.asarray(idx)
        try:
            want = gather(a, ix)
        except IndexError:
            with pytest.raises(IndexError):
                f(npjax.asarray(a), npjax.asarray(ix))
            continue
        numpy.testing.assert_array_equal(numpy.asarray(f(npjax.asarray(a),
                                                         npjax.asarray(ix))), want)
    g = npjax.autojit(logs)
    for call in range(CALLS):
        x = numpy.array([0.0, 1.0, 2.0])
        with warnings.catch_warnings(record=True) as theirs:
            warnings.simplefilter("always")
            want = numpy.log(x)
        with warnings.catch_warnings(record=True) as ours:
            warnings.simplefilter("always")
            got = g(npjax.asarray(x))
        numpy.testing.assert_array_equal(numpy.asarray(got), want)
        assert [(w.category, str(w.message)) for w in ours] == \
            [(w.category, str(w.message)) for w in theirs], f"call {call}"
    compiled = {e["function"].rsplit(".", 1)[-1]: e for e in _auto()["compiled"]}
    assert set(compiled) == {"gather", "logs"}, _auto()
    assert _auto()["refused"] == []


def numpy_log(x):
    return npjax.log(x)


def test_unsupported_arguments_run_as_written():
    class Box:
        def __init__(self):
            self.value = npjax.zeros(2)

    def bump(box, a):
        box.value = box.value + a
        return box.value

    f = npjax.autojit(bump)
    box = Box()
    for _ in range(3):
        f(box, npjax.ones(2))
    numpy.testing.assert_array_equal(numpy.asarray(box.value), [3.0, 3.0])
    assert _auto()["compiled"] == []
    assert _auto()["refused"][0]["reason"].startswith("an argument is a Box")


def test_list_arguments_are_updated_as_written():
    def step(P, V):
        for i in range(len(P)):
            P[i] = P[i] + V[i]
        return P[0].sum()

    f = npjax.autojit(step)
    P_np = [numpy.ones(2), numpy.zeros(2)]
    P_nj = [npjax.ones(2), npjax.zeros(2)]
    V = [numpy.full(2, 0.5), numpy.full(2, 2.0)]
    for _ in range(CALLS):
        want = step(P_np, V)
        got = f(P_nj, [npjax.asarray(v) for v in V])
        assert float(got) == float(want)
    for p_nj, p_np in zip(P_nj, P_np):
        numpy.testing.assert_array_equal(numpy.asarray(p_nj), p_np)


def test_inside_a_trace_it_is_traced_with_the_caller():
    inner = npjax.autojit(lambda x: x * 3)

    @npjax.jit
    def outer(x):
        return inner(x) + 1

    x = npjax.asarray(numpy.arange(3.0))
    for _ in range(3):
        numpy.testing.assert_array_equal(numpy.asarray(outer(x)), numpy.arange(3.0) * 3 + 1)
    assert inner._sigs == {}


def test_decorator_forms_and_errors():
    @npjax.autojit
    def f(x):
        return x + 1

    assert npjax.autojit(f) is f and f.__name__ == "f" and "autojit" in repr(f)
    with pytest.raises(TypeError):
        npjax.autojit(len)


def test_policy_field_jit():
    assert npjax.get_policy().jit == "explicit"
    with npjax.policy(jit="auto") as p:
        assert p.jit == "auto" and npjax.get_policy().jit == "auto"
    assert npjax.get_policy().jit == "explicit"
    with pytest.raises(ValueError, match="jit"):
        npjax.policy(jit="always").__enter__()
    with pytest.raises(ValueError, match="jit"):
        npjax.set_policy(jit=True)
    npjax.set_policy(jit="auto")
    assert npjax.get_policy().jit == "auto"
    npjax.reset_policy()
    assert npjax.get_policy().jit == "explicit"


def test_runner_wrapper_follows_the_policy():
    def double(x):
        return x * 2

    f = _autojit.auto(double)
    x = npjax.asarray(numpy.arange(3.0))
    for _ in range(3):
        f(x)
    assert f._sigs == {}  # jit="explicit": the function itself
    with npjax.policy(jit="auto"):
        for _ in range(3):
            numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(3.0) * 2)
    assert _auto()["compiled"][0]["hot_calls"] == 1


def test_runner_applies_autojit_and_reports_it(tmp_path):
    (tmp_path / "helper.py").write_text(textwrap.dedent("""\
        import numpy as np

        def smooth(u):
            for i in range(1, u.shape[0] - 1):
                u[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1]
            return u
        """))
    (tmp_path / "script.py").write_text(textwrap.dedent("""\
        import numpy as np
        from helper import smooth

        def noisy(u):
            print("sum", round(float(u.sum()), 6))
            return u

        u = np.linspace(0.0, 1.0, 64) ** 2
        for step in range(30):
            smooth(u)
            noisy(u)
        print(type(smooth).__name__, type(noisy).__name__)
        """))
    report = tmp_path / "report.json"
    env = dict(os.environ, NPJAX_CACHE_DIR="off")
    plain = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True,
                           text=True, env=env, check=True)
    code = ("import sys, npjax._compile._autojit as a; a.MIN_CALL_S = a.LOOK_S = 0; "
            "a.expected_compile_s = lambda: 0.0; a.HOT_CHECK = 10**9; "
            "from npjax.__main__ import main; sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, "run", "--no-report", "--report-json",
                           str(report), "script.py"], cwd=tmp_path, capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert plain.stdout.splitlines()[:-1] == done.stdout.splitlines()[:-1]
    assert done.stdout.splitlines()[-1] == "AutoJit AutoJit"
    data = json.loads(report.read_text())["autojit"]
    assert [(e["function"], os.path.basename(e["site"])) for e in data["compiled"]] == [
        ("smooth", "helper.py:3")]
    assert sorted((e["function"], os.path.basename(e["site"]), e["reason"])
                  for e in data["refused"]) == [
        ("<module loop>", "script.py:9", "calls print (script.py:5)"),  # (it calls noisy)
        ("noisy", "script.py:5", "calls print")]
    explicit = subprocess.run([sys.executable, "-m", "npjax", "run", "--jit", "explicit",
                               "--no-report", "script.py"], cwd=tmp_path, capture_output=True,
                              text=True, env=env)
    assert explicit.stdout.splitlines()[-1] == "function function"


def test_report_lists_compiled_refused_and_cold():
    from npjax._tools import _report

    data = {"autojit": {
        "compiled": [{"function": "step", "site": "/x/a.py:3", "signatures": 1,
                      "compile_s": 0.2, "cold_calls": 3, "cold_s": 0.3, "hot_calls": 97,
                      "saved_s": 9.5}],
        "refused": [{"function": "show", "site": "/x/a.py:9", "reason": "calls print",
                     "count": 4}],
        "cold": [{"function": "tiny", "site": "/x/a.py:12", "calls": 50, "seconds": 0.001,
                  "reason": "calls too short to gain (20 us each)"}]}}
    text = _report.format_report(data)
    assert "Compiled automatically (autojit): 1 function(s)" in text
    assert "estimated time saved 9.500 s" in text
    assert "calls print" in text and "/x/a.py:9" in text
    assert "calls too short to gain" in text


def test_results_are_of_the_kinds_as_written():
    """Host array arguments (the CPU default): NumPy scalars and host arrays, as written."""
    def parts(a):
        return (a * 2).sum(), a * 2, a[1:]

    f = npjax.autojit(parts)
    for call in range(CALLS):
        a = npjax.asarray(numpy.arange(4.0))
        want, got = parts(a), f(a)
        assert [type(x) for x in got] == [type(x) for x in want], f"call {call}"
        assert [getattr(x, "_host", lambda: 0)() is not None for x in got] == \
            [getattr(x, "_host", lambda: 0)() is not None for x in want]
        assert got[2].base is a
        for g, w in zip(got, want):
            numpy.testing.assert_array_equal(numpy.asarray(g), numpy.asarray(w))
    assert _auto()["compiled"][0]["hot_calls"] == CALLS - 2


def test_runner_module_mode_and_tracebacks(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "main.py").write_text(textwrap.dedent("""\
        import numpy as np

        def scale(u, k):
            return u * k

        print(type(scale).__name__, float(scale(np.ones(3), 2.0).sum()))
        scale(np.ones(3))
        """))
    env = dict(os.environ, NPJAX_CACHE_DIR="off")
    done = subprocess.run([sys.executable, "-m", "npjax", "run", "--no-report", "-m",
                           "pkg.main"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode == 1
    assert done.stdout == "AutoJit 6.0\n"
    assert "TypeError: scale() missing 1 required positional argument: 'k'" in done.stderr
    assert "_autojit.py" not in done.stderr  # the wrapper's frames are not shown


def _timed_calls(monkeypatch, call_s: float):
    """A clock under which every timed call takes ``call_s`` (it moves on at each read), a
    function ``step`` and a count of the looks at calls."""
    now = [0.0]
    looks = [0]

    def clock():
        now[0] += call_s
        return now[0]

    monkeypatch.setattr(_autojit, "_clock", clock)
    monkeypatch.setattr(_autojit, "LOOK_S", 1e-4)
    signature = _autojit._signature

    def counted(args, kwargs):
        looks[0] += 1
        return signature(args, kwargs)

    monkeypatch.setattr(_autojit, "_signature", counted)

    def step(x):
        return x + 1

    return step, looks


def test_short_calls_are_looked_at_once_in_a_sample(monkeypatch):
    monkeypatch.setattr(_autojit, "MIN_CALL_S", 1e-3)  # every call is short
    monkeypatch.setattr(_autojit, "expected_compile_s", lambda: 0.0)
    step, looks = _timed_calls(monkeypatch, 1e-6)
    f = npjax.autojit(step)
    x = npjax.asarray(numpy.arange(3.0))
    calls = 1 + 20 * _autojit.SAMPLE
    for _ in range(calls):
        numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(3.0) + 1)
    # the first call is not looked at; then one look in SAMPLE calls or fewer (varied)
    assert 20 <= looks[0] <= 45
    (st,) = f._sigs.values()
    assert calls - _autojit.SAMPLE <= st.calls <= calls + _autojit.SAMPLE  # the skipped too
    assert f._jitted is None and _compiles_of(f) == 0
    assert _auto()["cold"][0]["reason"].startswith("calls too short to gain")


def _compiles_of(f) -> int:
    return 0 if f._jitted is None else f._jitted._cache_size()


def test_long_calls_are_looked_at_when_a_compile_becomes_due(monkeypatch):
    monkeypatch.setattr(_autojit, "MIN_CALL_S", 1e-4)
    call_s = 2.0 ** -10  # (exact sums)
    monkeypatch.setattr(_autojit, "expected_compile_s", lambda: 100 * call_s)
    step, looks = _timed_calls(monkeypatch, call_s)  # a look per 10-20 calls
    f = npjax.autojit(step)
    x = npjax.asarray(numpy.arange(3.0))
    for call in range(1, 121):
        numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(3.0) + 1)
        if call == 101:  # calls 2-101 took as long as a compile (the first warms up)
            ((st,),) = [f._sigs.values()]
            assert st.state == _autojit._COLD and f._jitted is None
        if call == 102:
            assert st.state == _autojit._HOT  # compiled at the call it became due
    assert looks[0] <= 100 // 10 + 1 + 18  # then every call: compiled calls
    assert [(e["cold_calls"], e["hot_calls"]) for e in _auto()["compiled"]] == [(100, 18)]


def test_functions_of_several_signatures_are_looked_at_every_call(monkeypatch):
    monkeypatch.setattr(_autojit, "MIN_CALL_S", 1e-4)
    monkeypatch.setattr(_autojit, "expected_compile_s", lambda: 1e9)
    step, looks = _timed_calls(monkeypatch, 1e-3)
    f = npjax.autojit(step)
    xs = [npjax.asarray(numpy.arange(3.0)), npjax.asarray(numpy.arange(4.0))]
    for call in range(200):
        f(xs[call % 2])
    assert len(f._sigs) == 2
    assert sorted(st.calls for st in f._sigs.values())[0] >= 70
    assert looks[0] >= 150


def test_a_compiled_call_is_timed_to_its_results(monkeypatch):
    """The slower-than-cold check times a compiled call with its results' transfer: a
    program whose results take long to reach the host runs as written again."""
    monkeypatch.setattr(_autojit, "HOT_CHECK", 3)
    now = [0.0]

    def clock():  # a call as written takes 0.5 s, a compiled one nothing but its results
        now[0] += 0.25 if sys._getframe(1).f_code.co_name == "_timed" else 0.0
        return now[0]

    monkeypatch.setattr(_autojit, "_clock", clock)
    hostify = _autojit._hostify

    def slow_results(result, ctx):
        now[0] += 1.0  # the results' wait: longer than any call as written
        return hostify(result, ctx)

    monkeypatch.setattr(_autojit, "_hostify", slow_results)
    f = npjax.autojit(lambda x: x * 2.0)
    x = npjax.asarray(numpy.arange(3.0))
    for _ in range(2 + 3 + 3):
        numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(3.0) * 2)
    (st,) = f._sigs.values()
    assert st.state == _autojit._AS_WRITTEN and st.hot_n == 3
    assert f._hot_sigs == 0  # (calls as written are looked at less again)
    assert _auto()["refused"][0]["reason"].startswith("compiled calls were not faster")
    assert _auto()["refused"][0]["count"] == 1 + 3


def test_signatures_are_bounded(monkeypatch):
    monkeypatch.setattr(_autojit, "MAX_SIGNATURES", 4)

    def shift(x, c):
        return x + c

    f = npjax.autojit(shift)
    x = npjax.asarray(numpy.zeros(2))
    for c in range(8):  # a Python scalar is static: one signature per value
        numpy.testing.assert_array_equal(numpy.asarray(f(x, float(c))), numpy.full(2, c))
    assert len(f._sigs) == 4
    assert [(e["reason"].split(" (")[0], e["count"]) for e in _auto()["refused"]] == [
        ("more than 4 signatures", 4)]


@npjax.autojit
def module_level(x):
    return x * 2


def test_pickled_by_name():
    import pickle

    assert pickle.loads(pickle.dumps(module_level)) is module_level
    assert module_level.__code__ is module_level.__wrapped__.__code__
    assert module_level.__globals__ is globals() and module_level.__defaults__ is None


@npjax.autojit
def inner_helper(x):
    return x * SCALE


def outer_uses_helper(x):
    return inner_helper(x) + 1


def test_calls_of_other_autojit_functions_are_checked_through():
    f = npjax.autojit(outer_uses_helper)
    x = npjax.asarray(numpy.arange(3.0))
    for _ in range(CALLS):
        numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(3.0) * SCALE + 1)
    assert [e["function"] for e in _auto()["compiled"]] == ["outer_uses_helper"]
    assert _auto()["refused"] == []


def test_a_signature_an_earlier_run_compiled_is_hot_at_its_second_call(monkeypatch, tmp_path):
    monkeypatch.setattr(_autojit, "expected_compile_s", lambda: 1e9)  # a compile never pays
    source = "def twice(x):\n    return [v * 2 for v in (x,)][0]\n"
    made = [{}, {}]
    for namespace in made:  # the same code, compiled twice (nested code at other addresses)
        exec(compile(source, str(tmp_path / "m.py"), "exec"), namespace)
    x = npjax.asarray(numpy.arange(3.0))
    sig, _ = _autojit._signature((x,), {})
    keys = {_autojit._index_key(ns["twice"].__code__, sig) for ns in made}
    assert len(keys) == 1
    _autojit._index.keys = dict.fromkeys(keys, 0.0)  # as an earlier run left it (free to load)
    f = npjax.autojit(made[0]["twice"])
    for _ in range(3):
        numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(3.0) * 2)
    assert [(e["cold_calls"], e["hot_calls"]) for e in _auto()["compiled"]] == [(1, 1)]


@pytest.mark.parametrize("fields", [{"mode": "lazy", "placement": "device"},
                                    {"placement": "device"}])
def test_device_arrays_and_lazy_mode(fields):
    def kernel(a, b):
        for i in range(1, a.shape[0]):
            a[i] = a[i - 1] * 0.5 + b[i]
        return a.sum(axis=1)

    f = npjax.autojit(kernel)
    rng = numpy.random.default_rng(1)
    with npjax.policy(**fields):
        for call in range(CALLS):
            a0, b0 = (rng.random((20, 3)).astype(DEVICE_FLOAT) for _ in range(2))
            a_np, a_nj = a0.copy(), npjax.asarray(a0.copy())
            want = kernel(a_np, b0)
            got = f(a_nj, npjax.asarray(b0))
            assert type(got) is npjax.ndarray and got._host() is None
            numpy.testing.assert_array_equal(numpy.asarray(got), want, err_msg=f"call {call}")
            numpy.testing.assert_array_equal(numpy.asarray(a_nj), a_np)
    assert _auto()["compiled"][0]["hot_calls"] == CALLS - 2


def test_closure_variables_are_guarded():
    def make():
        k = 2.0

        def times(x):
            return x * k

        def set_k(v):
            nonlocal k
            k = v

        return times, set_k

    times, set_k = make()
    f = npjax.autojit(times)
    x = npjax.asarray(numpy.arange(3.0))
    for k in (2.0, 2.0, 2.0, 5.0, 5.0, 5.0):
        set_k(k)
        numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(3.0) * k)
    assert _auto()["compiled"][0]["signatures"] == 2  # compiled again after the change


def test_runner_transformed_functions_keep_their_lines_and_roll_their_loops(tmp_path):
    from npjax._tools import _autojit_hook

    path = tmp_path / "user.py"
    path.write_text(textwrap.dedent("""\
        import npjax as np

        def smooth(u):
            for i in range(1, u.shape[0] - 1):
                u[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1]
            return u

        @staticmethod
        def decorated(u):
            return u
        """))
    namespace = {"__name__": "user"}
    exec(_autojit_hook.compile_source(path.read_text(), str(path)), namespace)
    f = namespace["smooth"]
    assert type(f) is _autojit.AutoJit and f.__code__.co_firstlineno == 3
    assert type(namespace["decorated"]) is staticmethod  # its own decorators: left alone
    u_np = numpy.linspace(0.0, 1.0, 40) ** 2
    u_nj = npjax.asarray(u_np.copy())
    with npjax.policy(jit="auto"):
        for _ in range(3):
            f(u_nj)
            for i in range(1, u_np.shape[0] - 1):
                u_np[i] = 0.25 * u_np[i - 1] + 0.5 * u_np[i] + 0.25 * u_np[i + 1]
    numpy.testing.assert_array_equal(numpy.asarray(u_nj), u_np)
    assert [loop.rolled for loop in f._jitted.loops] == [True]


RNG = npjax.random.default_rng(0)
rand = npjax.random.rand
save = npjax.save
seterr = npjax.seterr
random = npjax.random


def draws_legacy(x):
    return x + rand(3)


def draws_generator(x):
    return x + RNG.random(3)


def draws_module(x):
    return x + random.random(3)


def saves(x):
    save("never.npy", x)
    return x


def sets_state(x):
    seterr(all="ignore")
    return x


def test_random_draws_files_and_process_state_are_refused():
    x = npjax.zeros(3)
    for fn in (draws_legacy, draws_generator, draws_module, saves, sets_state):
        with pytest.raises(_autojit_check.Refused) as caught:
            _autojit_check.check(fn)
        assert caught.value.site == f"{__file__}:{fn.__code__.co_firstlineno + 1}"
    npjax.random.seed(0)
    f = npjax.autojit(draws_legacy)
    got = [numpy.asarray(f(x)) for _ in range(4)]
    npjax.random.seed(0)
    want = [numpy.asarray(draws_legacy(x)) for _ in range(4)]
    for g, w in zip(got, want):
        numpy.testing.assert_array_equal(g, w)
    assert _auto()["compiled"] == []
    assert _auto()["refused"][0]["reason"].startswith("draws random numbers")


def draws_through_an_argument(xp, x):
    return x + xp.random.rand(3)


def test_random_draws_through_a_module_argument_are_refused():
    f = npjax.autojit(draws_through_an_argument)
    x = npjax.zeros(3)
    npjax.random.seed(1)
    got = [numpy.asarray(f(npjax, x)) for _ in range(4)]
    npjax.random.seed(1)
    want = [numpy.asarray(draws_through_an_argument(npjax, x)) for _ in range(4)]
    for g, w in zip(got, want):
        numpy.testing.assert_array_equal(g, w)
    assert [e["reason"] for e in _auto()["refused"]] == ["draws random numbers (xp.random)"]


def test_exception_handlers_and_mutable_defaults_are_refused():
    def guarded(x):
        try:
            return float(x.sum())  # under a trace this raises, and the handler would catch it
        except Exception:
            return 0.0

    def remembers(x, seen=[]):  # noqa: B006 (the point of the test)
        seen.append(1)
        return x * len(seen)

    def quiet(x):
        with npjax.errstate(divide="ignore"):
            return x / 0.0

    f, g, h = (npjax.autojit(fn) for fn in (guarded, remembers, quiet))
    x = npjax.asarray(numpy.arange(1.0, 4.0))
    for call in range(CALLS):
        assert f(x) == 6.0
        numpy.testing.assert_array_equal(numpy.asarray(g(x)), numpy.arange(1.0, 4.0) * (call + 1))
        numpy.testing.assert_array_equal(numpy.asarray(h(x)), numpy.full(3, numpy.inf))
    reasons = {e["function"].rsplit(".", 1)[-1]: e["reason"] for e in _auto()["refused"]}
    assert reasons == {"guarded": "handles exceptions (try/except or try/finally)",
                       "remembers": "has a default value that is not a number, string, "
                                    "tuple of them, function or module (the function could "
                                    "change it)"}
    assert [e["function"].rsplit(".", 1)[-1] for e in _auto()["compiled"]] == ["quiet"]


def test_lazy_calls_are_judged_up_to_their_values(monkeypatch):
    """In lazy mode a call as written records its work and returns before computing it, so
    its time says little: the compiled calls are judged against calls run as written up to
    their values (a kernel whose recording took 1.2 ms of its 3 ms was sent back to running
    as written on the TPU, its compiled calls taking 1.9 ms)."""
    monkeypatch.setattr(_autojit, "HOT_CHECK", 3)
    monkeypatch.setattr(_autojit, "expected_compile_s", lambda: 0.0)
    cost = {"_timed": 0.01, "_hot": 0.1, "_written": 1.0}  # seconds a call of each kind takes
    now = [0.0]

    def clock():
        now[0] += cost.get(sys._getframe(1).f_code.co_name, 0.0)
        return now[0]

    monkeypatch.setattr(_autojit, "_clock", clock)

    def step(x):
        return npjax.exp(x) * 2.0 + 1.0

    f = npjax.autojit(step)
    data = numpy.linspace(-1.0, 1.0, 7, dtype=numpy.float32)
    with npjax.policy(mode="lazy", placement="device"):
        x = npjax.asarray(data)
        for _ in range(1 + 2 + 1 + 3 + 3 + 2):
            numpy.testing.assert_allclose(numpy.asarray(f(x)), numpy.exp(data) * 2 + 1,
                                          rtol=1e-6)
    (st,) = f._sigs.values()
    assert st.deferred and st.written_ts == [1.0] * 3
    assert st.state == _autojit._HOT and f._hot_sigs == 1
    assert st.cold_mean() == 1.0 and st.hot_n > 3  # (compiled again after the judgement)
    assert not _auto()["refused"]


def test_lazy_calls_slower_to_record_than_compiled_calls_are_not_rerun(monkeypatch):
    """Where the compiled calls beat the lazy calls' recording alone, they are faster than
    the calls as written: no call is run up to its values to tell (on the chip one such call
    of a 20000-row loop took 5 s)."""
    monkeypatch.setattr(_autojit, "HOT_CHECK", 3)
    monkeypatch.setattr(_autojit, "expected_compile_s", lambda: 0.0)
    cost = {"_timed": 1.0, "_hot": 0.1, "_written": 5.0}
    now = [0.0]

    def clock():
        now[0] += cost.get(sys._getframe(1).f_code.co_name, 0.0)
        return now[0]

    monkeypatch.setattr(_autojit, "_clock", clock)
    f = npjax.autojit(lambda x: npjax.exp(x) * 2.0 + 1.0)
    data = numpy.linspace(-1.0, 1.0, 7, dtype=numpy.float32)
    with npjax.policy(mode="lazy", placement="device"):
        x = npjax.asarray(data)
        for _ in range(1 + 2 + 1 + 3 + 3):
            numpy.testing.assert_allclose(numpy.asarray(f(x)), numpy.exp(data) * 2 + 1,
                                          rtol=1e-6)
    (st,) = f._sigs.values()
    assert st.deferred and st.written_ts == [] and st.written == 1.0
    assert st.state == _autojit._HOT and st.hot_n > 3
