"""Test set-up: NumPy-vs-npjax fixture, policy reset, Hypothesis profiles."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import npjax

_ENV = [k for k in os.environ if k.startswith("NPJAX_")]
if _ENV:
    raise pytest.UsageError(f"unset {_ENV} before running the tests: they change defaults")

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])
# CI draws the same examples every run (a red CI is a regression, not a new random find);
# "thorough" explores with fresh random inputs and is how new edge cases are hunted.
settings.register_profile("ci", max_examples=30, derandomize=True, **_COMMON)
settings.register_profile("dev", max_examples=10, **_COMMON)
settings.register_profile("thorough", max_examples=500, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _policy_for_tests():
    """Every test starts from the defaults with fallback='raise' (fallback tests opt out)."""
    npjax.reset_policy()
    npjax.set_policy(fallback="raise")
    yield
    npjax.reset_policy()


@pytest.fixture(params=["numpy", "npjax"])
def xp(request):
    """The array namespace under test: NumPy itself, or npjax."""
    return np if request.param == "numpy" else npjax
