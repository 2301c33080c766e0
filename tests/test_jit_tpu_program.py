"""The program npjax.jit builds, lowered for a TPU on the CPU (``_compile._jit_lower``): views
at int positions are static slices and 32-bit update offsets (not nested calls computing
64-bit offsets, which a TPU emulates), the error-state check reads ``isfinite`` there, and
``_capabilities.PRODUCTS_EXACT`` leaves products unrounded only on the platforms it names;
the CPU's results stay NumPy's."""

from __future__ import annotations

import re

import jax
import numpy as np
import pytest

import npjax
from npjax._compile._jit_lower import lower
from npjax._pure import _capabilities
from npjax._pure._impl import positions, setops
from tests.test_jit_store_copies import burgers


def jacobi(xp, u, steps):
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def _text(fn, x, steps, platform):
    jitted = npjax.jit(fn, static_argnums=(0, 2))
    return lower(jitted, (npjax, npjax.asarray(x), steps), platforms=(platform,)).as_text()


@pytest.mark.parametrize("fn,shape", [(jacobi, (40, 30)), (burgers, (50,))])
def test_views_at_int_positions_are_static(fn, shape):
    x = np.random.default_rng(0).random(shape)
    text = _text(fn, x, 5, "tpu")
    assert "stablehlo.while" in text  # (rolled)
    assert "dynamic_slice" not in text and "@apply_get" not in text
    # stores at 32-bit constant offsets; the loop counter is the one 64-bit compare
    for line in text.splitlines():
        if "dynamic_update_slice" in line:
            assert "tensor<i64>" not in line, line
    assert len(re.findall(r"stablehlo\.(?:compare|select).*tensor<i64>", text)) == 1


def test_finite_check_reads_isfinite_on_a_tpu_only():
    x = np.random.default_rng(1).random((20, 20))
    assert "is_finite" in _text(jacobi, x, 3, "tpu")
    assert "is_finite" not in _text(jacobi, x, 3, "cpu")
    big = x * 1e308  # overflows: NumPy warns, and so does npjax.jit (checked on the CPU)
    with pytest.warns(RuntimeWarning):
        np.testing.assert_array_equal(
            npjax.jit(jacobi, static_argnums=(0, 2))(npjax, npjax.asarray(big), 3),
            jacobi(np, big.copy(), 3))


def _adds(text, t="f64"):
    return len(re.findall(rf"stablehlo\.add .*tensor<\d+x\d+x{t}>", text))


def test_products_exact_names_platforms_and_dtypes(monkeypatch):
    x = np.random.default_rng(2).random((16, 16))
    monkeypatch.setattr(_capabilities, "PRODUCTS_EXACT", {})
    rounded_tpu, rounded_cpu = _text(jacobi, x, 3, "tpu"), _text(jacobi, x, 3, "cpu")
    rounded_f32 = _text(jacobi, x.astype(np.float32), 3, "tpu")
    monkeypatch.setattr(_capabilities, "PRODUCTS_EXACT",
                        {"tpu": frozenset({"float64", "complex128"})})
    assert _adds(_text(jacobi, x, 3, "tpu")) < _adds(rounded_tpu)  # (after 0.25 * ...)
    assert _adds(_text(jacobi, x, 3, "cpu")) == _adds(rounded_cpu)
    assert _adds(_text(jacobi, x.astype(np.float32), 3, "tpu"), "f32") == \
        _adds(rounded_f32, "f32")  # (float32 is not named)

    def f(r):
        return r - (r / 127) * 127  # a fused multiply-add differs from NumPy here

    r = np.random.default_rng(3).random(4096) * 1000
    for dt in (np.float64, np.float32):
        got = npjax.jit(f)(npjax.asarray(r.astype(dt)))
        np.testing.assert_array_equal(np.asarray(got), f(r.astype(dt)))


def test_burgers_values_are_numpys():
    u = 1.0 + 0.5 * np.sin(np.linspace(0.0, 2 * np.pi, 101))
    got = npjax.jit(burgers, static_argnums=(0, 2))(npjax, npjax.asarray(u), 20)
    np.testing.assert_array_equal(np.asarray(got), burgers(np, u.copy(), 20))


def masks(xp, x, m, steps):
    total = 0.0
    for _ in range(steps):
        r = (x * x).sum(axis=1)
        r[r > 0.5] = r[r > 0.5] ** -1.5  # a masked read-modify-write
        total = total + r[r > 1.0].sum()  # NumPy's pairwise order over the selected
        x[m] = x[m] * 0.5
    return x, total


def test_mask_positions_are_counted_on_the_chip():
    """A mask's selected positions are a running count of it; in int64 a TPU computes that
    on the host (``_capabilities``: 64-bit scans), a callback in every iteration
    (gravity_masks: three). Counted in int32 (``_boolsums.running_count``), the program
    holds no host callback; the values stay NumPy's."""
    rng = np.random.default_rng(2)
    x, m = rng.random((64, 3)), rng.random((64, 3)) > 0.5
    jitted = npjax.jit(masks, static_argnums=(0, 3))
    text = lower(jitted, (npjax, npjax.asarray(x), npjax.asarray(m), 6),
                 platforms=("tpu",)).as_text()
    assert "callback" not in text
    got = jitted(npjax, npjax.asarray(x), npjax.asarray(m), 6)
    want = masks(np, x.copy(), m, 6)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-13)
        assert np.asarray(g).dtype == np.asarray(w).dtype
    # nonzero's and unique's kernels (eager calls: their sizes are the data's)
    keep = jax.ShapeDtypeStruct((4096,), bool)
    for fn, args in ((jax.jit(positions.true_positions, static_argnums=1), (keep, 4096)),
                     (setops._unique_inverse, (jax.ShapeDtypeStruct((4096,), np.int64), keep,
                                               (4096,)))):
        assert "callback" not in fn.trace(*args).lower(lowering_platforms=("tpu",)).as_text()
    a = rng.random(50) - 0.5
    assert np.array_equal(np.asarray(npjax.nonzero(npjax.asarray(a) > 0)[0]), np.nonzero(a > 0)[0])
