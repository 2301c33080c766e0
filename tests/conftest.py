"""Test set-up: NumPy-vs-npjax fixture, policy reset, Hypothesis profiles."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# No persistent compilation cache in the tests, nor in the scripts they start (the variable is
# inherited): a run must not depend on earlier ones, pytest turns JAX's cache I/O warnings into
# errors, and thousands of one-off kernels would crowd the user's cache. Compile counts are the
# same either way (JAX counts a cache hit as a compile). tests/test_compile_cache.py tests it.
os.environ["NPJAX_CACHE_DIR"] = "off"

import npjax
from tests import _parity

# (NPJAX_PURE_PYTHON=1 changes no default: the pure-Python build, tests/test_hostpath.py)
# (NPJAX_ALIGNED_MEMORY=1 changes where NumPy's memory lies, not a value: test_aligned_memory)
_ENV = [k for k in os.environ if k.startswith("NPJAX_")
        and k not in ("NPJAX_CACHE_DIR", "NPJAX_PURE_PYTHON", "NPJAX_ALIGNED_MEMORY")]
if _ENV:
    raise pytest.UsageError(f"unset {_ENV} before running the tests: they change defaults")

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])
# CI draws the same examples every run (a red CI is a regression, not a new random find) and
# few of them, so the whole suite stays well under 20 minutes on 2 busy cores; "full" is the
# same derandomized run at 30 examples; "thorough" explores with fresh random inputs and is
# how new edge cases are hunted.
settings.register_profile("ci", max_examples=15, derandomize=True, **_COMMON)
settings.register_profile("full", max_examples=30, derandomize=True, **_COMMON)
settings.register_profile("dev", max_examples=10, **_COMMON)
settings.register_profile("thorough", max_examples=500, **_COMMON)
# The parity suites rerun inside CI under lazy mode (tests/test_lazy.py) and with every array
# on the device (tests/test_placement.py): fewer examples, since the default run already drew
# 15 of the same inputs on the host path. Under "full" or "thorough" the reruns use that
# profile (tests/_rerun.py).
settings.register_profile("rerun-ci", max_examples=4, derandomize=True, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    parser.addoption("--npjax-mode", default="auto", choices=("auto", "eager", "lazy"),
                     help="run every test under this npjax execution mode (default: the "
                          "policy's, auto: lazy on an accelerator, eager on a CPU)")
    parser.addoption("--npjax-jit", action="store_true",
                     help="run npjax's side of every assert_parity comparison as one "
                          "npjax.jit call of the test body (fallback='eager' where it cannot "
                          "trace; the counts are printed at the end)")
    parser.addoption("--npjax-autojit", action="store_true",
                     help="run npjax's side of every assert_parity comparison twice through "
                          "npjax.autojit of the test body, hot at its second call (as written, "
                          "then compiled where autojit compiles it; the counts are printed at "
                          "the end)")
    parser.addoption("--npjax-placement", default=None, choices=("auto", "device", "host"),
                     help="run every test under this placement (default: the policy's)")


def pytest_configure(config):
    _parity.JIT = config.getoption("--npjax-jit")
    _parity.AUTOJIT = config.getoption("--npjax-autojit")
    _parity.PLACEMENT = config.getoption("--npjax-placement")
    if _parity.AUTOJIT:
        _hot_at_second_call(pytest.MonkeyPatch())  # for the whole session
    config.addinivalue_line("markers", "eager_only: the test checks eager-mode timing (when a "
                            "warning or error appears, buffer donation); lazy mode documents "
                            "its own and tests it in test_lazy.py")
    config.addinivalue_line("markers", "device_placement: the test checks how device arrays "
                            "work (programs, donation, transfers): it runs with "
                            "placement='device' whatever the suite's placement")
    config.addinivalue_line("markers", "host_placement: the test checks the host route (NumPy "
                            "computing host arrays): it runs with placement='auto' whatever "
                            "the suite's placement")
    config.addinivalue_line("markers", "rerun: the test reruns parity suites in a subprocess "
                            "(minutes): such tests start first, spread over the workers")


def pytest_terminal_summary(terminalreporter, config):
    if _parity.JIT:
        terminalreporter.write_line(f"npjax.jit parity bodies: {_parity.JIT_COUNTS}")
    if _parity.AUTOJIT:
        terminalreporter.write_line(f"npjax.autojit parity bodies: {_parity.AUTOJIT_COUNTS}")
        why = sorted(_parity.AUTOJIT_WHY.items(), key=lambda kv: -kv[1])
        for reason, n in why:
            terminalreporter.write_line(f"  {n:6d}  {reason}")


def pytest_collection_modifyitems(config, items):
    _start_reruns_first(items)
    if not npjax.Policy(mode=config.getoption("--npjax-mode")).lazy:
        return
    skip = pytest.mark.skip(reason="eager-mode timing; lazy mode's own is in test_lazy.py")
    for item in items:
        if item.get_closest_marker("eager_only"):
            item.add_marker(skip)


def _start_reruns_first(items):
    """Put the long subprocess reruns at the head of each worker's first batch, so no worker
    ends the run alone with one. pytest-xdist's load scheduler hands each of n workers
    ``len(items) // n // 4`` consecutive tests first; rerun k goes to worker k % n."""
    reruns = [t for t in items if t.get_closest_marker("rerun")]
    rest = [t for t in items if not t.get_closest_marker("rerun")]
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    chunk = max(len(items) // workers // 4, 2)
    ordered = []
    for k in range(workers):
        mine = reruns[k::workers]
        filler = max(chunk - len(mine), 0) if k < workers - 1 else 0  # up to the next batch
        ordered += mine + rest[:filler]
        rest = rest[filler:]
    items[:] = ordered + rest


@pytest.fixture(autouse=True)
def _policy_for_tests(request):
    """Every test starts from the defaults with fallback='raise' (fallback tests opt out),
    in the execution mode given by ``--npjax-mode``."""
    npjax.reset_policy()
    placement = request.config.getoption("--npjax-placement") or npjax.get_policy().placement
    if request.node.get_closest_marker("device_placement"):
        placement = "device"
    elif request.node.get_closest_marker("host_placement"):
        placement = "auto"
    npjax.set_policy(fallback="raise", mode=request.config.getoption("--npjax-mode"),
                     placement=placement)
    yield
    npjax.reset_policy()


@pytest.fixture(params=["numpy", "npjax"])
def xp(request):
    """The array namespace under test: NumPy itself, or npjax."""
    return np if request.param == "numpy" else npjax


def _hot_at_second_call(monkeypatch):
    """npjax.autojit's signatures are hot at their second call (no timing: the cost model
    always pays, every call is looked at; no index of earlier runs)."""
    from npjax._compile import _autojit

    monkeypatch.setattr(_autojit, "MIN_CALL_S", 0.0)
    monkeypatch.setattr(_autojit, "LOOK_S", 0.0)  # every call is looked at
    monkeypatch.setattr(_autojit, "HOT_CHECK", 10**9)  # (the slower-than-cold check is timed)
    monkeypatch.setattr(_autojit, "expected_compile_s", lambda: 0.0)
    monkeypatch.setattr(_autojit, "_index", _autojit._Index())
    monkeypatch.setattr(_autojit._index, "keys", {})


@pytest.fixture
def autojit_hot(monkeypatch):
    """npjax.autojit's signatures are hot at their second call (``_hot_at_second_call``)."""
    _hot_at_second_call(monkeypatch)
    npjax.reset_stats()
    yield
    npjax.reset_stats()


def pytest_runtest_logreport(report):
    """With TESTS_FAILURE_LOG set, each failure's report is appended to that file at once
    (a run on the TPU can end in a process abort, which loses pytest's own summary)."""
    path = os.environ.get("TESTS_FAILURE_LOG")
    if path and report.failed:
        with open(path, "a") as f:
            f.write(f"=== {report.nodeid} ({report.when})\n{report.longreprtext[-3000:]}\n")
