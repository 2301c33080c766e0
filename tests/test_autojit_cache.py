"""Issue 35's second-run target: a script's second run with the persistent compilation cache
compiles nothing (every program comes from the cache: ``npjax.stats()``'s cache misses). The
index beside the cache (``_autojit._index``) names what earlier runs compiled, with what
loading it costs (a cache hit still traces and lowers): such a signature is hot once its
calls took that long. Counted, never timed (the clock is a fake one where it decides)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy
import pytest

import npjax
from npjax._compile import _autojit

SCRIPT = textwrap.dedent("""\
    import numpy as np

    def step(u, v):
        for i in range(1, u.shape[0]):
            u[i] = 0.5 * u[i - 1] + v[i]
        return np.sqrt(u * u + 1.0)

    def main():
        u = np.arange(64) / 63.0
        v = np.cos(u)
        for _ in range(8):
            u = step(u, v)
        print(repr(float(u.sum())))

    main()
    """)

_EAGER = "a.expected_compile_s = lambda: 0.0; "  # a compile always pays: hot at call 2

# Every run: every call looked at (LOOK_S 0), none too short (MIN_CALL_S 0), compiled calls
# never sent back for being slower (HOT_CHECK); with ``_EAGER`` a compile always pays,
# without it the expected compile is 0.5 s, which calls of microseconds never add up to.
# At exit, the compile times the expected compile learns from go to stderr.
_PATCH = ("import atexit, sys, npjax._compile._autojit as a; a.MIN_CALL_S = a.LOOK_S = 0; "
          "a.HOT_CHECK = 10**9; {extra}"
          "atexit.register(lambda: print('learned', len(a._COMPILES), file=sys.stderr)); "
          "from npjax.__main__ import main; sys.exit(main(sys.argv[1:]))")


def _run(tmp_path: Path, cache: Path, report: str, extra: str = "") -> tuple[str, dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NPJAX_", "JAX_"))}
    env["NPJAX_CACHE_DIR"] = str(cache)
    done = subprocess.run([sys.executable, "-c", _PATCH.format(extra=extra), "run",
                           "--no-report", "--report-json", report, "script.py"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / report).read_text())
    data["learned"] = int(done.stderr.rsplit("learned ", 1)[1].split()[0])
    return done.stdout, data


def _numpy_result(tmp_path: Path) -> str:
    """The script run by Python and NumPy alone."""
    done = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, check=True)
    return done.stdout.strip()


def test_second_run_with_the_persistent_cache_compiles_nothing(tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT)
    cache = tmp_path / "xla"
    out1, first = _run(tmp_path, cache, "1.json", _EAGER)
    out2, second = _run(tmp_path, cache, "2.json", _EAGER)
    assert out1.strip() == out2.strip() == _numpy_result(tmp_path)
    compiled1 = [(e["function"], e["cold_calls"]) for e in first["autojit"]["compiled"]]
    compiled2 = [(e["function"], e["cold_calls"]) for e in second["autojit"]["compiled"]]
    assert compiled1 == compiled2 == [("step", 1)]  # hot at its second call, both runs
    assert first["compiles"]["cache_misses"] > 0  # the first run compiled it
    assert second["compiles"]["cache_misses"] == 0  # the second compiled nothing
    assert second["compiles"]["cache_hits"] == second["compiles"]["count"] > 0
    # a load from the cache is not a compile: the expected compile learns from the first only
    assert (first["learned"], second["learned"]) == (1, 0)
    index = json.loads((cache / "autojit-index.json").read_text())
    assert len(index) == 1 and all(cost >= 0.0 for cost in index.values())


def test_the_index_cost_is_what_a_second_run_waits_for(tmp_path):
    """A signature an earlier run compiled is hot once its calls took what loading it from
    the cache costs (the index's seconds): at its second call when that is nothing, never in
    calls of microseconds when it is more than a compile (loading traces it again)."""
    (tmp_path / "script.py").write_text(SCRIPT)
    cache = tmp_path / "xla"
    _run(tmp_path, cache, "1.json", _EAGER)
    path = cache / "autojit-index.json"
    (key,) = json.loads(path.read_text())
    path.write_text(json.dumps({key: 0.0}))
    out, free = _run(tmp_path, cache, "2.json")
    assert [(e["function"], e["cold_calls"]) for e in free["autojit"]["compiled"]] == [
        ("step", 1)]
    assert free["compiles"]["cache_misses"] == 0
    path.write_text(json.dumps({key: 1e9}))
    out3, dear = _run(tmp_path, cache, "3.json")
    assert out.strip() == out3.strip() == _numpy_result(tmp_path)
    assert dear["autojit"]["compiled"] == []
    assert [(e["function"], e["calls"]) for e in dear["autojit"]["cold"]] == [("step", 8)]
    assert dear["compiles"]["count"] == 0


def _fake_clock(monkeypatch, step: float) -> None:
    """Each read of autojit's clock ``step`` seconds after the one before: a timed call as
    written takes ``step`` (from its first read to its second)."""
    now = [0.0]

    def clock() -> float:
        now[0] += step
        return now[0]

    monkeypatch.setattr(_autojit, "_clock", clock)


@pytest.mark.parametrize(("cost", "cold_calls"), [(0.0, 1), (0.35, 4), (None, 1)])
def test_a_known_signature_compiles_once_its_calls_took_its_load_cost(
        monkeypatch, autojit_hot, cost, cold_calls):
    monkeypatch.setattr(_autojit, "expected_compile_s", lambda: 1e9)  # a compile never pays
    _fake_clock(monkeypatch, 0.1)

    def twice(x):
        return x * 2.0

    x = npjax.asarray(numpy.arange(3.0))
    sig, _ = _autojit._signature((x,), {})
    key = _autojit._index_key(twice.__code__, sig)
    _autojit._index.keys = {} if cost is None else {key: cost}
    f = npjax.autojit(twice)
    for _ in range(6):
        numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(3.0) * 2.0)
    done = npjax.stats()["autojit"]["compiled"]
    if cost is None:  # no earlier run compiled it: a compile never pays
        assert done == []
    else:
        assert [e["cold_calls"] for e in done] == [cold_calls]


def test_an_index_of_keys_alone_loads_as_free(monkeypatch, tmp_path):
    """An index an earlier npjax wrote (a list of keys): loading them costs nothing, as it
    then assumed; a new entry is written with its cost."""
    from npjax._runtime import _compile_cache

    monkeypatch.setitem(_compile_cache.state, "dir", str(tmp_path))
    (tmp_path / "autojit-index.json").write_text(json.dumps(["a" * 32]))
    index = _autojit._Index()
    assert "a" * 32 in index and index.cost("a" * 32) == 0.0
    index.add("b" * 32, 0.25)
    assert json.loads((tmp_path / "autojit-index.json").read_text()) == {
        "a" * 32: 0.0, "b" * 32: 0.25}
    assert _autojit._Index().cost("b" * 32) == 0.25


@pytest.mark.parametrize(("measured", "cold_calls"), [([], 5), ([0.2], 2), ([0.1, 1.0, 0.3], 3)])
def test_a_first_compile_is_expected_to_take_the_default(monkeypatch, measured, cold_calls):
    """Before a compile is measured in the process, one is expected to take
    ``DEFAULT_COMPILE_S`` (0.5 s: a first run compiles only calls that took that long, 5 of
    0.11 s here); then the median of those measured (0.2 s: 2 calls; 0.3 s: 3)."""
    monkeypatch.setattr(_autojit, "MIN_CALL_S", 0.0)
    monkeypatch.setattr(_autojit, "LOOK_S", 0.0)
    monkeypatch.setattr(_autojit, "HOT_CHECK", 10**9)
    monkeypatch.setattr(_autojit, "_index", _autojit._Index())
    monkeypatch.setattr(_autojit._index, "keys", {})
    monkeypatch.setattr(_autojit, "_COMPILES", list(measured))
    monkeypatch.setattr(_autojit, "_median", [0, _autojit.DEFAULT_COMPILE_S])
    assert _autojit.DEFAULT_COMPILE_S == 0.5
    _fake_clock(monkeypatch, 0.11)
    npjax.reset_stats()

    def halve(x):
        return x * 0.5

    f = npjax.autojit(halve)
    x = npjax.asarray(numpy.arange(4.0))
    for _ in range(7):
        numpy.testing.assert_array_equal(numpy.asarray(f(x)), numpy.arange(4.0) * 0.5)
    assert [e["cold_calls"] for e in npjax.stats()["autojit"]["compiled"]] == [cold_calls]
    npjax.reset_stats()
