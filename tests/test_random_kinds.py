"""The "jax" stream returns what NumPy returns: the same kind of result (array, NumPy
scalar, Python value), shape and dtype, for every method and several sizes."""

from __future__ import annotations

import numpy as np
import pytest

import npjax
from tests.test_random import (
    GEN_CALLS,
    LEGACY_ARRAY_CALLS,
    LEGACY_CALLS,
    SIZES,
    _call,
    _same_kind,
    _sizes,
    _with_size,
)


HALF = len(GEN_CALLS) // 2
PART = GEN_CALLS[:HALF]  # the other half: test_random_kinds_more.py


def check_kinds(calls, legacy_calls, size):
    """Each call gives NumPy's kind of result (scalar/array, shape, dtype) under "jax"."""
    npjax.set_policy(random="jax")
    ours, theirs = npjax.random.default_rng(1), np.random.default_rng(1)
    for name, args, kwargs in calls:
        sizes = _sizes(name, args)
        if sizes is not SIZES and size is not None:
            continue  # array parameters: one shape (each compiles its own kernel)
        a, k = _with_size(name, args, kwargs, size)
        _same_kind(_call(ours, name, a, k), _call(theirs, name, a, k), f"{name}{a}{k}")
    npjax.random.seed(1)
    for name, args, kwargs in legacy_calls:
        a, k = _with_size(name, args, kwargs, size)
        _same_kind(_call(npjax.random.mtrand._rand, name, a, k),
                   _call(np.random.mtrand._rand, name, a, k),
                   f"legacy {name}{a}{k}")


@pytest.mark.parametrize("size", SIZES)
def test_jax_stream_kinds(size):
    check_kinds(PART, LEGACY_CALLS + LEGACY_ARRAY_CALLS, size)
