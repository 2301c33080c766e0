"""The finiteness screen of a result read on the host (``_fp_screen._all_finite``, its C
part ``_runtime/_finite.c`` where built) against NumPy's ``isfinite(x).all()``."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from npjax._runtime import _fp_screen

DTYPES = ["float16", "float32", "float64", "complex64", "complex128"]
SPECIALS = [np.inf, -np.inf, np.nan, -np.nan]


def _cases(dtype: str) -> list[np.ndarray]:
    """Finite arrays of several shapes and sizes, and each with one special value placed at
    its start, middle or end (both parts of a complex number in turn)."""
    rng = np.random.default_rng(0)
    tiny, big = np.finfo(dtype).tiny, np.finfo(dtype).max
    out = []
    for shape in [(), (1,), (3,), (2, 3), (1000,), (7, 9, 5), (20000,)]:
        base = rng.standard_normal(shape).astype(dtype)
        if base.size:
            base.flat[0] = tiny  # extreme finite values are finite
            base.flat[-1] = -big
        out.append(base)
        for special in SPECIALS:
            for at in {0, base.size // 2, base.size - 1}:
                for part in ([1, 1j] if base.dtype.kind == "c" else [1]):
                    x = base.copy()
                    x.flat[at] = special * part if part == 1 else complex(0, special)
                    out.append(x)
    return out


@pytest.mark.parametrize("dtype", DTYPES)
def test_screen_misses_nothing(dtype):
    """A non-finite element always answers False; NumPy's dot product, used past the C
    screen's limit, may also answer False for finite values whose squares overflow (the
    flags then decide), the C screen never does."""
    for x in _cases(dtype):
        want = bool(np.isfinite(x).all())
        got = _fp_screen._all_finite(jnp.asarray(x))
        by_numpy = _fp_screen._screen is None or x.nbytes > 1 << 16
        assert got is want or (want and got is False and by_numpy), (x.shape, x.dtype)


@pytest.mark.skipif(_fp_screen._screen is None, reason="the C screen is not built")
@pytest.mark.parametrize("dtype", DTYPES)
def test_c_screen_answers_or_declines(dtype):
    """The C part alone: NumPy's answer for contiguous buffers within its size limit,
    None (NumPy decides) for strided buffers, other dtypes and non-buffers."""
    for x in _cases(dtype):
        got = _fp_screen._screen(x)
        assert got is None or got is bool(np.isfinite(x).all()), (x.shape, x.dtype)
        if x.nbytes <= 1 << 16:
            assert got is not None
    x = np.array([1.0, np.inf, 2.0, 3.0], dtype=dtype)
    assert _fp_screen._screen(x[::2]) is None  # strided: not read here
    assert _fp_screen._screen(x[::2].copy()) is True
    assert _fp_screen._screen(np.arange(4)) is None  # integers
    assert _fp_screen._screen(3.0) is None  # no buffer
    assert _fp_screen._screen(jnp.ones(3, dtype=jnp.bfloat16)) is None  # no buffer export


@pytest.mark.parametrize("dtype", DTYPES)
def test_python_screen_misses_nothing(dtype):
    """The screen where the C one is not built (``_py_screen``): False for every array with
    an inf or NaN, True only for finite ones (a finite array whose sum overflows may answer
    False), None for other dtypes, larger and strided buffers."""
    for x in _cases(dtype):
        got = _fp_screen._py_screen(jnp.asarray(x))
        if dtype not in ("float32", "float64") or x.size > _fp_screen._SMALL:
            assert got is None, (x.shape, x.dtype)
        elif not np.isfinite(x).all():
            assert got is False, (x.shape, x.dtype)
        else:
            assert got is True or x.dtype.kind == "f" and abs(x).max() > 1e30
    x = np.array([1.0, np.inf, 2.0, 3.0], dtype=dtype)
    assert _fp_screen._py_screen(x[::2]) is None  # strided: not read here
    assert _fp_screen._py_screen(3.0) is None  # no buffer
    assert _fp_screen._py_screen(jnp.ones(3, dtype=jnp.bfloat16)) is None
