"""test_random_kinds.py, second half: discrete, multivariate and broadcast calls."""

from __future__ import annotations

import pytest

from tests.test_random import ARRAY_CALLS, BROADCAST_CALLS, GEN_CALLS, SIZES
from tests.test_random_kinds import HALF, check_kinds


@pytest.mark.parametrize("size", SIZES)
def test_jax_stream_kinds_more(size):
    check_kinds(GEN_CALLS[HALF:] + ARRAY_CALLS + BROADCAST_CALLS, [], size)
