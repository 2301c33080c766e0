"""``npjax.__array_namespace_info__()`` answers as NumPy's does, for JAX's devices."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import npjax

KINDS = [None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric", ("integral", "bool"), ("real floating",
                                                               "complex floating"), ()]


def _info(xp):
    return xp.__array_namespace_info__()


def test_capabilities_match_numpy():
    assert _info(npjax).capabilities() == _info(np).capabilities()


@pytest.mark.parametrize("kind", KINDS)
def test_dtypes_match_numpy(kind):
    ours, theirs = _info(npjax).dtypes(kind=kind), _info(np).dtypes(kind=kind)
    assert list(ours) == list(theirs)
    assert all(isinstance(d, np.dtype) and d == theirs[k] for k, d in ours.items())


@pytest.mark.parametrize("kind", ["float", "integer", 3, ("integral", "nope")])
def test_unknown_kind_raises_value_error(kind):
    for xp in (np, npjax):
        with pytest.raises(ValueError):
            _info(xp).dtypes(kind=kind)


def test_default_dtypes_follow_the_x64_policy():
    assert _info(npjax).default_dtypes() == _info(np).default_dtypes()
    with npjax.policy(x64=False):
        assert _info(npjax).default_dtypes() == {
            "real floating": np.dtype(np.float32), "complex floating": np.dtype(np.complex64),
            "integral": np.dtype(np.int32), "indexing": np.dtype(np.int32)}
        assert npjax.zeros(2).dtype == _info(npjax).default_dtypes()["real floating"]


def test_devices_are_jax_devices():
    info = _info(npjax)
    assert info.devices() == jax.devices()
    assert info.default_device() == jax.devices()[0]
    assert npjax.zeros(2).device == info.default_device()
    with npjax.policy(device="cpu"):
        assert info.default_device() == jax.devices("cpu")[0]
    for device in (None, "cpu", *info.devices()):
        assert info.dtypes(device=device) == info.dtypes()
        assert info.default_dtypes(device=device) == info.default_dtypes()
    x = npjax.asarray([1.0, 2.0], device=info.default_device())
    assert x.device == info.default_device()


@pytest.mark.parametrize("device", ["not-a-platform", 7])
def test_unknown_device_raises_value_error(device):
    for xp in (np, npjax):
        with pytest.raises(ValueError):
            _info(xp).dtypes(device=device)
        with pytest.raises(ValueError):
            _info(xp).default_dtypes(device=device)


def test_array_namespace_has_the_info():
    xp = npjax.asarray([1]).__array_namespace__()
    assert xp.__array_namespace_info__().devices()
