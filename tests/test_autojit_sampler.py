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

    MODE = sys.argv[1]
    if MODE == "auto":
        np.set_policy(jit="auto")
    elif MODE == "block":
        block = np.policy(jit="auto")
        block.__enter__()
    keyed = {step: "found"}
    x, y = np.asarray(numpy.linspace(0, 1, 50)), np.asarray(numpy.ones(50))
    busy(step, x, y)
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
        "sampling": S._thread is not None,
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
