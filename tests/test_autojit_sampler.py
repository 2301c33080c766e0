"""``jit="auto"`` under a plain ``import npjax``: the sampler rebinds the user's hot
module-level functions to ``npjax.autojit`` (``npjax/_compile/_autojit_sampler.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np

import npjax
from npjax._compile import _autojit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

USER = textwrap.dedent("""
    import functools, json, sys, time
    import numpy
    import npjax as np
    from npjax._compile import _autojit_sampler as S
    S.INTERVAL_S, S.HOT_SAMPLES = 0.002, 3

    def step(x, y):
        for _ in range(30):
            x = x * 0.5 + y
        return x

    @functools.lru_cache(maxsize=None)
    def decorated(n):
        return n

    def outer(x):
        def inner(x):
            return x + 1
        return inner(x)

    class Box:
        def method(self, x):
            return x * 2

    def busy(fn, *args, seconds=2.0):
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            out = fn(*args)
            if "step" in " ".join(S.rebound) and fn is not step:
                break
        return out

    @np.jit
    def compiled(x):  # an XLA compile while the main thread is sampled every 2 ms
        for k in range(40):
            x = np.sin(x) * 0.5 + np.cos(x * k)
        return x

    MODE = sys.argv[1]
    if MODE == "auto":
        np.set_policy(jit="auto")
    elif MODE == "block":
        block = np.policy(jit="auto")
        block.__enter__()
    keyed = {step: "found"}
    x, y = np.asarray(numpy.linspace(0, 1, 50)), np.asarray(numpy.ones(50))
    busy(step, x, y)
    compiled(x)
    busy(decorated, 3, seconds=0.3)
    busy(outer, x, seconds=0.3)
    busy(Box().method, x, seconds=0.3)
    busy(json.dumps, [1, 2], seconds=0.3)
    got = numpy.asarray(step(x, y))
    want = numpy.linspace(0, 1, 50)
    for _ in range(30):
        want = want * 0.5 + numpy.ones(50)
    print(json.dumps({
        "step": type(step).__name__, "keyed": keyed.get(step), "same": bool((got == want).all()),
        "decorated": type(decorated).__name__,
        "method": type(Box.method).__name__, "dumps": type(json.dumps).__name__,
        "sampling": S._thread_running is not None and not S._stop.is_set(),
        "rebound": sorted(r.split()[-1] for r in S.rebound)}))
""")


def _run(tmp_path, mode):
    script = tmp_path / "user_script.py"
    script.write_text(USER)
    env = {**os.environ, "PYTHONPATH": ROOT, "JAX_PLATFORMS": "cpu"}
    env.pop("NPJAX_JIT", None)
    out = subprocess.run([sys.executable, str(script), mode], capture_output=True, text=True,
                         timeout=180, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    import json
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_hot_user_functions_are_rebound_under_auto(tmp_path):
    for mode in ("auto", "block"):
        got = _run(tmp_path, mode)
        assert got["sampling"] and got["step"] == "AutoJit", (mode, got)
        assert got["keyed"] == "found" and got["same"], (mode, got)
        # decorated, nested (outer's inner), methods and library functions as written
        assert (got["decorated"], got["method"], got["dumps"]) == (
            "_lru_cache_wrapper", "function", "function"), (mode, got)
        assert "step" in got["rebound"] and set(got["rebound"]) <= {"step", "busy", "outer"}


def test_no_sampling_under_explicit(tmp_path):
    got = _run(tmp_path, "explicit")
    assert not got["sampling"] and got["rebound"] == [] and got["step"] == "function", got
    assert got["same"]


def test_a_wrapper_compares_and_hashes_as_its_function():
    def f(x):
        return x

    wrapped = _autojit.auto(f)
    assert wrapped == f and f == wrapped and hash(wrapped) == hash(f)
    assert {f: 1}[wrapped] == 1 and {wrapped: 2}[f] == 2
    assert wrapped == _autojit.auto(f) and wrapped != (lambda x: x)
    with npjax.policy(jit="explicit"):  # the runner's wrapper follows each call's policy
        assert wrapped(np.float64(2.0)) == 2.0


def test_a_compiled_callers_guard_holds_after_a_rebind():
    """A name rebound to the wrapper of the function a check read still means that function
    (a compiled caller does not compile again)."""
    from npjax._compile import _autojit_check

    def f(x):
        return x

    ns = {"f": f}
    guards = _autojit_check.Guards()
    guards.name(ns, "f", f)
    ns["f"] = _autojit.auto(f)
    assert guards.hold()
    ns["f"] = _autojit.auto(lambda x: x)
    assert not guards.hold()


def test_only_the_main_thread_starts_it_and_another_handler_is_left_alone(tmp_path):
    script = tmp_path / "user_handler.py"
    script.write_text(textwrap.dedent("""
        import json, signal, threading
        import npjax as np
        from npjax._compile import _autojit_sampler as S

        t = threading.Thread(target=lambda: np.set_policy(jit="auto"))
        t.start(); t.join()
        from_thread = S._thread_running is not None
        mine = lambda signum, frame: None
        signal.signal(signal.SIGURG, mine)
        np.set_policy(jit="auto")
        print(json.dumps({"from_thread": from_thread, "kept": signal.getsignal(signal.SIGURG)
                          is mine, "sampling": S._thread_running is not None}))
    """))
    env = {**os.environ, "PYTHONPATH": ROOT, "JAX_PLATFORMS": "cpu"}
    env.pop("NPJAX_JIT", None)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=180, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    import json
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {
        "from_thread": False, "kept": True, "sampling": False}


def test_sampling_stops_when_the_policy_leaves_auto():
    import threading
    import time

    from npjax._compile import _autojit_sampler as S

    if threading.current_thread() is not threading.main_thread():
        return
    with npjax.policy(jit="auto"):
        assert S._thread_running is not None and not S._stop.is_set()
    deadline = time.monotonic() + 10
    while not S._stop.is_set() and time.monotonic() < deadline:
        sum(range(1000))  # (bytecodes: the handler runs between them)
    assert S._stop.is_set()
    S._thread_running.join(5)
    assert not S._thread_running.is_alive()
