"""Parity of npjax.fft with numpy.fft (values, dtypes, shapes, exceptions, out=, warnings).

Tolerance (FFT round-off): the transforms sum up to 64 terms of magnitude <= 10, so an output
carries an absolute error of about eps * |largest output| * log2(n). The tests use
rtol=1e-10, atol=1e-10 for 64-bit results and rtol=1e-4, atol=1e-3 for 32-bit ones (float16
results: the default float16 tolerance). Inputs are finite: which outputs become inf and which
NaN for non-finite inputs depends on the FFT algorithm (a documented deviation).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import npjax
from tests._parity import assert_parity, assert_same
from tests.tolerances import OVERRIDES

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]
_TOL = {np.dtype(np.complex128): dict(rtol=1e-10, atol=1e-10),
        np.dtype(np.float64): dict(rtol=1e-10, atol=1e-10),
        np.dtype(np.complex64): dict(rtol=1e-4, atol=1e-3),
        np.dtype(np.float32): dict(rtol=1e-4, atol=1e-3)}
for _name in ONE_D + N_D:
    OVERRIDES[_name] = _TOL

DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int64, np.float16, np.float32,
                                np.float64, np.complex64, np.complex128)]
NORMS = [None, "backward", "ortho", "forward"]


def _elements(dtype: np.dtype):
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        return st.integers(0 if dtype.kind == "u" else -10, 10)
    if dtype.kind == "f":
        return st.floats(-10, 10, width=8 * dtype.itemsize).map(float)
    part = st.floats(-10, 10, width=4 * dtype.itemsize)
    return st.builds(complex, part, part)


def small_arrays(min_dims: int = 1, max_dims: int = 3, max_side: int = 4):
    shapes = hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1,
                              max_side=max_side)
    return st.sampled_from(DTYPES).flatmap(
        lambda d: hnp.arrays(d, shapes, elements=_elements(d)))


def test_every_numpy_fft_name_exists():
    missing = [n for n in np.fft.__all__ if not callable(getattr(npjax.fft, n, None))]
    assert missing == []
    assert sorted(npjax.fft.__all__) == sorted(np.fft.__all__)


@pytest.mark.parametrize("name", ONE_D)
@given(a=small_arrays(max_dims=2, max_side=5), n=st.sampled_from([None, 1, 2, 3, 4, 7, 8]),
       axis=st.sampled_from([-1, 0, 1]), norm=st.sampled_from(NORMS))
def test_one_dimensional(name, a, n, axis, norm):
    assert_parity(lambda xp: getattr(xp.fft, name)(xp.asarray(a), n=n, axis=axis, norm=norm),
                  name=name, context=(a, n, axis, norm))


@pytest.mark.parametrize("name", N_D)
@given(a=small_arrays(), data=st.data(), norm=st.sampled_from(NORMS))
def test_n_dimensional(name, a, data, norm):
    nd = a.ndim
    axes = data.draw(st.one_of(
        st.none(), st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd, unique=True)),
        label="axes")
    s = None
    if axes is not None and data.draw(st.booleans(), label="with s"):
        s = data.draw(st.lists(st.integers(1, 5), min_size=len(axes), max_size=len(axes)),
                      label="s")
    kwargs = {"norm": norm}
    if axes is not None:
        kwargs["axes"] = axes
    if s is not None:
        kwargs["s"] = s
    assert_parity(lambda xp: getattr(xp.fft, name)(xp.asarray(a), **kwargs), name=name,
                  context=(a, kwargs))


ERROR_CASES = [
    ("fft", (3,), dict(n=0)), ("fft", (3,), dict(n=-2)), ("fft", (3,), dict(n=0.5)),
    ("fft", (3,), dict(n=2.0)), ("fft", (3,), dict(n=True)), ("fft", (3,), dict(norm="bad")),
    ("ifft", (3,), dict(norm="bad")), ("hfft", (3,), dict(norm="bad")),
    ("fft", (3,), dict(axis=1)), ("fft", (3,), dict(axis=1, n=2)), ("fft", (), {}),
    ("fft", (), dict(n=2)), ("fft", (0,), {}), ("fft", (0, 3), {}), ("fft", (0, 3), dict(axis=0)),
    ("fft", (2, 3), dict(axis=1.0)), ("rfft", (3,), dict(n=1)), ("irfft", (1,), {}),
    ("irfft", (1,), dict(n=1)), ("hfft", (1,), {}), ("fftn", (), {}),
    ("fftn", (3, 3), dict(axes=())), ("fftn", (3, 3), dict(axes=(0, 0))),
    ("fftn", (3, 3), dict(s=(2,), axes=(0, 1))), ("fftn", (3, 3), dict(axes=(0, 2))),
    ("fftn", (3, 3), dict(s=(2, -1), axes=(0, 1))), ("fft2", (3,), {}),
    ("rfftn", (3, 3), dict(axes=())), ("irfftn", (3, 3), dict(axes=())),
    ("rfftn", (3, 3), dict(axes=(1, 1))), ("irfftn", (3, 4), dict(axes=(1, 1), s=(3, 5))),
    ("fftn", (3, 3), dict(axes=0)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
@pytest.mark.parametrize("name, shape, kwargs", ERROR_CASES)
def test_edge_arguments(name, shape, kwargs, dtype):
    a = (np.arange(int(np.prod(shape))) % 3 + 1).reshape(shape).astype(dtype)
    assert_parity(lambda xp: getattr(xp.fft, name)(xp.asarray(a), **kwargs), name=name,
                  context=(name, shape, kwargs))


@pytest.mark.parametrize("name", ["rfft", "ihfft", "rfftn", "rfft2"])
def test_rfft_of_complex_is_a_type_error(name):
    a = np.ones((4, 4), complex)
    assert_parity(lambda xp: getattr(xp.fft, name)(xp.asarray(a)))


def test_s_without_axes_warns_like_numpy():
    a = np.arange(9.0).reshape(3, 3)
    seen = {}
    for xp in (np, npjax):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            xp.fft.fftn(xp.asarray(a), s=(2, 2))
            xp.fft.fftn(xp.asarray(a), s=(2, None), axes=(0, 1))
        seen[xp] = [(w.category, w.filename) for w in rec]
    assert [c for c, _ in seen[np]] == [DeprecationWarning, DeprecationWarning]
    # NumPy's own fftn (a host array) warns where NumPy does (inside numpy); npjax's device
    # version warns at the caller's line
    on_host = npjax.asarray(a)._host() is not None
    assert seen[npjax] == (seen[np] if on_host else [(DeprecationWarning, __file__)] * 2)
    assert_parity(lambda xp: xp.fft.fftn(xp.asarray(a), s=(2, 2)), name="fftn")


def _with_out(xp, name, a, out_dtype, out_shape, **kwargs):
    out = xp.zeros(out_shape, out_dtype)
    result = getattr(xp.fft, name)(xp.asarray(a), out=out, **kwargs)
    return result is out, result, out


OUT_CASES = [
    ("fft", np.float64, np.complex128, (2, 4), {}), ("fft", np.float64, np.complex64, (2, 4), {}),
    ("fft", np.float32, np.complex128, (2, 4), {}), ("fft", np.float64, np.float64, (2, 4), {}),
    ("fft", np.float64, np.complex128, (2, 5), {}), ("fft", np.float64, np.complex128, (1, 4), {}),
    ("fft", np.float64, np.complex128, (2, 6), dict(n=6)),
    ("rfft", np.float64, np.complex128, (2, 3), {}),
    ("rfft", np.float64, np.complex128, (2, 4), {}),
    ("irfft", np.complex128, np.float64, (2, 6), {}),
    ("irfft", np.complex128, np.float32, (2, 6), {}),
    ("irfft", np.complex128, np.complex128, (2, 6), {}),
    ("ihfft", np.float64, np.complex128, (2, 3), {}),
    ("hfft", np.complex128, np.float64, (2, 6), {}),
    ("ifft", np.complex128, np.complex128, (2, 4), dict(norm="ortho")),
    ("fftn", np.float64, np.complex128, (2, 4), {}),
    ("fftn", np.float64, np.complex128, (2, 2), dict(s=(2, 2), axes=(0, 1))),
    ("ifftn", np.complex128, np.complex64, (2, 4), {}),
    ("rfftn", np.float64, np.complex128, (2, 3), {}),
    ("irfftn", np.complex128, np.float64, (2, 6), {}),
    ("ifft2", np.complex128, np.complex128, (2, 4), {}),
    ("irfft2", np.complex128, np.float64, (2, 6), {}),
    ("fft2", np.complex128, np.complex128, (2, 4), {}),
]


@pytest.mark.parametrize("name, in_dtype, out_dtype, out_shape, kwargs", OUT_CASES)
def test_out(name, in_dtype, out_dtype, out_shape, kwargs):
    a = (np.arange(8) % 5 - 2.0).reshape(2, 4).astype(in_dtype)
    assert_parity(lambda xp: _with_out(xp, name, a, out_dtype, out_shape, **kwargs), name=name,
                  context=(name, in_dtype, out_dtype, out_shape))


@given(n=st.integers(-2, 9), d=st.sampled_from([1.0, 0.5, 3, np.float32(0.1), np.float64(2.5),
                                                 2j, -1.5]))
def test_freq(n, d):
    assert_parity(lambda xp: xp.fft.fftfreq(n, d), context=(n, d))
    assert_parity(lambda xp: xp.fft.rfftfreq(n, d=d), context=(n, d))
    assert_parity(lambda xp: xp.fft.fftfreq(np.int64(n) if n else n), context=n)


@pytest.mark.parametrize("n", [4.0, "4", None])
def test_freq_bad_n(n):
    assert_parity(lambda xp: xp.fft.fftfreq(n))
    assert_parity(lambda xp: xp.fft.rfftfreq(n))


def test_freq_device_is_declared_unsupported():
    with pytest.raises(NotImplementedError):
        npjax.fft.fftfreq(4, device="cpu")
    assert_same(npjax.fft.fftfreq(4, device=None), np.fft.fftfreq(4))


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@given(a=hnp.arrays(st.sampled_from(DTYPES), hnp.array_shapes(min_dims=0, max_dims=3,
                                                               min_side=0, max_side=5)),
       axes=st.sampled_from([None, 0, -1, 1, 3, (0,), (0, -1), (1, 0), [0, 0], ()]))
def test_shift(name, a, axes):
    assert_parity(lambda xp: getattr(xp.fft, name)(xp.asarray(a), axes=axes),
                  context=(a, axes))


def test_list_input_and_round_trip():
    x = [1, 2, 3, 4, 5]
    assert_parity(lambda xp: xp.fft.ifft(xp.fft.fft(x)), name="fft")
    assert_parity(lambda xp: xp.fft.irfft(xp.fft.rfft(x), n=5), name="irfft")
    assert_parity(lambda xp: xp.fft.fft(np.float32(3.0) * np.ones((1, 1))), name="fft")


@pytest.mark.parametrize("mode", ["lazy", "eager"])
def test_ihfft_on_the_device_in_every_mode(mode):
    """ihfft conjugates its result inside the transform's kernel (it once handed a pending
    lazy value to jax.numpy and raised TypeError)."""
    a = np.arange(12.0).reshape(3, 4) % 5
    with npjax.policy(placement="device", mode=mode):
        x = npjax.asarray(a)
        assert_same(npjax.fft.ihfft(x), np.fft.ihfft(a), name="ihfft")
        out = npjax.empty((3, 3), complex)
        assert npjax.fft.ihfft(x, out=out) is out
        assert_same(out, np.fft.ihfft(a), name="ihfft")
