"""The call path: unsupported parameters raise, fallback is declared and loud, out= works."""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np
import pytest

import npjax
from npjax._calls._dispatch import ArrayIn, Out, Unsupported, npfunc
from npjax._pure._errors import NpjaxUnsupported


@npfunc(numpy_fn=np.cumsum)
def _cumsum_or_host(a: ArrayIn, axis=None, dtype=None, out: Out = None,
                    order: Unsupported("K") = "K"):
    if a.dtype == np.int8:
        raise NpjaxUnsupported("int8 is not handled by this test body")
    return jnp.cumsum(a, axis=axis)


def test_unsupported_parameter_names_itself():
    with pytest.raises(NotImplementedError, match="'order'"):
        _cumsum_or_host([1, 2], order="F")
    assert _cumsum_or_host([1, 2], order="K").tolist() == [1, 3]
    with pytest.raises(NotImplementedError, match="'order'"):  # given by position
        _cumsum_or_host([1, 2], None, None, None, "F")
    assert _cumsum_or_host([1, 2], None, None, None, "K").tolist() == [1, 3]
    assert _cumsum_or_host([1, 2], None).tolist() == [1, 3]  # before it: not looked at


def test_public_identity():
    assert _cumsum_or_host.__name__ == "_cumsum_or_host"
    assert _cumsum_or_host.__module__ == "npjax"


def test_fallback_raise_warn_allow():
    x = npjax.asarray(np.array([1, 2, 3], dtype=np.int8))
    with npjax.policy(fallback="raise"), pytest.raises(NotImplementedError, match="host"):
        _cumsum_or_host(x)
    with npjax.policy(fallback="warn"), pytest.warns(npjax.FallbackWarning, match="int8"):
        got = _cumsum_or_host(x)
    assert isinstance(got, npjax.ndarray)
    assert got.dtype == np.cumsum(np.array([1, 2, 3], np.int8)).dtype
    assert got.tolist() == [1, 3, 6]
    with npjax.policy(fallback="allow"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _cumsum_or_host(x).tolist() == [1, 3, 6]


def test_no_fallback_when_the_body_handles_it():
    with npjax.policy(fallback="raise"):
        assert _cumsum_or_host([1.0, 2.0]).tolist() == [1.0, 3.0]


def test_out_returns_the_same_object_and_writes_views():
    out = npjax.zeros(3)
    assert _cumsum_or_host([1.0, 2.0, 3.0], out=out) is out
    assert out.tolist() == [1.0, 3.0, 6.0]
    base = npjax.zeros((2, 3))
    row = base[1]
    assert _cumsum_or_host([1.0, 1.0, 1.0], out=row) is row
    assert base.tolist() == [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]


def test_out_shape_mismatch_raises_value_error():
    with pytest.raises(ValueError):
        _cumsum_or_host([1.0, 2.0, 3.0], out=npjax.zeros(4))


def test_fallback_keeps_out_identity():
    x = npjax.asarray(np.array([1, 2], dtype=np.int8))
    out = npjax.zeros(2, dtype=np.int64)
    with npjax.policy(fallback="allow"):
        assert _cumsum_or_host(x, out=out) is out
    assert out.tolist() == [1, 3]
