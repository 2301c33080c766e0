"""``AutoJit.signatures()``: what autojit settled on per signature (cold, compiled, as
written and why), read without changing it; and the benchmark suite's steady autojit variant,
which calls a kernel until autojit settled on it before timing it. Results are NumPy's."""

from __future__ import annotations

import sys
import types

import jax.numpy as jnp
import numpy
import pytest

import npjax
from benchmarks import suite
from npjax._compile import _autojit


@pytest.fixture(autouse=True)
def hot_at_second_call(autojit_hot, monkeypatch):
    """Hot at the second call (conftest.py); compiled calls are judged after two of them,
    on a clock where a call as written takes 0.25 s and a compiled one nothing."""
    monkeypatch.setattr(_autojit, "HOT_CHECK", 2)
    now = [0.0]

    def clock():
        now[0] += 0.25 if sys._getframe(1).f_code.co_name == "_timed" else 0.0
        return now[0]

    monkeypatch.setattr(_autojit, "_clock", clock)
    yield now


def _states(f) -> list[tuple[str, int, int, bool]]:
    return [(s["state"], s["calls"], s["compiled_calls"], s["checked"])
            for s in f.signatures()]


def test_cold_compiled_and_checked():
    def smooth(a):
        for i in range(1, a.shape[0]):
            a[i] = 0.5 * a[i - 1] + a[i]
        return a * 2.0

    f = npjax.autojit(smooth)
    assert f.signatures() == []
    seen = []
    for _ in range(4):
        a0 = numpy.arange(5.0)
        want = smooth(a0.copy())
        got = f(npjax.asarray(a0))
        numpy.testing.assert_array_equal(numpy.asarray(got), want)
        assert numpy.asarray(got).dtype == want.dtype
        seen.append(_states(f))
    # one call as written, the second compiles, two compiled calls are judged faster
    assert seen == [[("cold", 1, 0, False)], [("compiled", 1, 0, False)],
                    [("compiled", 1, 1, False)], [("compiled", 1, 2, True)]]
    assert f.signatures()[0]["why"] is None
    before = f.signatures()
    f.signatures()
    assert f.signatures() == before  # reading changes nothing


def test_signatures_of_other_shapes_are_listed_apart():
    f = npjax.autojit(lambda a: a + 1.0)
    for n in (3, 3, 4):
        numpy.testing.assert_array_equal(numpy.asarray(f(npjax.asarray(numpy.ones(n)))),
                                         numpy.ones(n) + 1.0)
    assert [s["state"] for s in f.signatures()] == ["compiled", "cold"]


def _judged(monkeypatch, now: list[float], delays: list[float]) -> tuple[list[dict], int]:
    """Five compiled calls judged (the default), the i-th taking ``delays[i]`` seconds up to
    its results on the host, against calls as written of 0.25 s; then three more calls."""
    monkeypatch.setattr(_autojit, "HOT_CHECK", 5)
    hostify = _autojit._hostify
    pending = list(delays)

    def slow_results(result, ctx):
        if sys._getframe(1).f_code.co_name == "_hot" and pending:
            now[0] += pending.pop(0)
        return hostify(result, ctx)

    monkeypatch.setattr(_autojit, "_hostify", slow_results)

    def smooth(a):
        return a[1:] * 0.5 + a[:-1]

    f = npjax.autojit(smooth)
    compiles = npjax.stats()["compiles"]["count"]
    for _ in range(2 + len(delays) + 3):
        a0 = numpy.arange(6.0)
        got = f(npjax.asarray(a0))
        numpy.testing.assert_array_equal(numpy.asarray(got), smooth(a0))
        assert numpy.asarray(got).dtype == smooth(a0).dtype
    return f.signatures(), npjax.stats()["compiles"]["count"] - compiles


def test_one_stalled_compiled_call_does_not_send_it_back(monkeypatch, hot_at_second_call):
    # the first compiled call pays the program's first run; another one stalls
    (sig,), compiles = _judged(monkeypatch, hot_at_second_call, [1.0, 0.0, 2.0, 0.0, 0.0])
    assert sig["state"] == "compiled" and sig["checked"] and sig["compiled_calls"] == 8
    assert compiles == 1


def test_compiled_calls_slower_than_as_written_run_as_written(monkeypatch,
                                                               hot_at_second_call):
    (sig,), _ = _judged(monkeypatch, hot_at_second_call, [0.3, 0.3, 0.1, 0.3, 0.3])
    assert sig["state"] == "as written" and sig["compiled_calls"] == 5
    assert sig["why"].startswith("compiled calls were not faster (median 300 ms against "
                                 "250 ms as written)")


G = [0]


def test_a_refused_function_is_as_written_with_the_line():
    def counts(a):
        G[0] += 1  # a write to a global: compiled, it would run once
        return a * 3.0

    f = npjax.autojit(counts)
    for _ in range(3):
        numpy.testing.assert_array_equal(numpy.asarray(f(npjax.asarray(numpy.ones(2)))),
                                         numpy.ones(2) * 3.0)
    assert G[0] == 3  # every call ran as written
    (sig,) = f.signatures()
    assert sig["state"] == "as written" and sig["compiled_calls"] == 0
    assert f"{__file__}:" in sig["why"]


def test_a_value_dependent_branch_is_as_written():
    def branchy(x):
        if x.sum() > 0:
            return x * 2.0
        return x - 1.0

    f = npjax.autojit(branchy)
    for _ in range(3):
        x0 = numpy.arange(3.0)
        numpy.testing.assert_array_equal(numpy.asarray(f(npjax.asarray(x0))), branchy(x0))
    (sig,) = f.signatures()
    assert sig["state"] == "as written"
    # the error JAX gave, not the empty brackets of its shape ``bool[]``
    assert sig["why"].startswith("cannot trace: TracerArrayConversionError: ")


def _module(kernel, reference) -> types.SimpleNamespace:
    return types.SimpleNamespace(
        NAME="tiny", KIND="elementwise", SIZES={"small": {"n": 16}}, STATIC=(),
        setup=lambda rng, n: (rng.random(n), rng.random(n)), kernel=kernel,
        reference=reference)


def test_the_suites_steady_variant_times_after_autojit_settled():
    def kernel(np, a, b):
        for i in range(1, a.shape[0]):
            a[i] = a[i - 1] * 0.5 + b[i]
        return np.sqrt(a) + b

    def reference(a, b):
        return jnp.sqrt(a) + b  # (not the same kernel: only timed here)

    rec = suite.run_kernel(_module(kernel, reference), "small", 2, lambda msg: None,
                           variants=("numpy", "npjax_autojit", "npjax_autojit_steady"))
    steady = rec["to_steady"]
    assert steady["state"] == "compiled" and steady["why"] == ""
    assert steady["calls"] == 4  # as written, compiling, two compiled calls judged
    assert rec["check"]["npjax_autojit_steady"]["ok"]
    assert rec["check"]["npjax_autojit"]["ok"]
    summary = suite.summarize([rec])
    assert summary["per_kernel"]["tiny"]["numpy_over_autojit_steady"] > 0
    text = suite.table([rec], summary, suite._machine(), "small", "auto")
    assert "| tiny | " in text.split("`npjax.autojit`")[1]


def test_the_suites_steady_variant_reports_a_kernel_left_as_written():
    def kernel(np, a, b):
        if a.sum() > b.sum():  # value-dependent: autojit runs it as written
            return a - b
        return b - a

    rec = suite.run_kernel(_module(kernel, lambda a, b: a - b), "small", 2, lambda msg: None,
                           variants=("numpy", "npjax_autojit_steady"))
    steady = rec["to_steady"]
    assert steady["state"] == "as written"
    assert steady["why"].startswith("cannot trace: TracerArrayConversionError: ")
    assert rec["check"]["npjax_autojit_steady"]["ok"]


def test_a_slow_first_call_as_written_does_not_keep_a_slower_compiled_version(
        monkeypatch, hot_at_second_call):
    """Compiled calls are judged against the calls as written after the first (which pays
    its first runs): a first call of 2.25 s and two of 0.25 s make compiled calls of 0.3 s
    the slower ones, so the signature runs as written; results stay NumPy's."""
    now, reads = hot_at_second_call, [0]
    monkeypatch.setattr(_autojit, "MIN_CALLS", 4)  # three calls as written, then compiled

    def first_call_slow():  # (the fixture's clock, the first call as written 2 s longer)
        if sys._getframe(1).f_code.co_name == "_timed":
            reads[0] += 1
            now[0] += 2.25 if reads[0] == 2 else 0.25
        return now[0]

    monkeypatch.setattr(_autojit, "_clock", first_call_slow)
    (sig,), _ = _judged(monkeypatch, now, [0.3] * 5)
    assert sig["state"] == "as written"
    assert sig["why"].startswith("compiled calls were not faster (median 300 ms against "
                                 "250 ms as written)")
