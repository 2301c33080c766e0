"""Integer ``add.at``, ``bincount`` and ``histogram`` counts into small arrays on a TPU
(``_pure/_scatter_add``): the compare-and-sum form's values against NumPy's ``add.at`` bit
for bit (wrapping sums, repeated indices, every integer dtype), computed on the CPU; and
the TPU lowering of ``np.add.at`` and ``histogram`` into small targets holds no scatter
where the CPU's keeps it."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import npjax
from npjax._compile._jit_lower import lower
from npjax._pure import _scatter_add

INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
_compared = jax.jit(_scatter_add._compared)


@given(st.sampled_from(INTS), st.integers(1, _scatter_add.SMALL), st.integers(0, 3000),
       st.integers(0, 2**32 - 1))
def test_compare_and_sum_is_numpys_add_at(dtype, size, n, seed):
    gen = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    target = gen.integers(info.min, info.max, size, dtype=dtype, endpoint=True)
    ids = gen.integers(0, min(size, gen.integers(1, 20)), n)  # (many repeats)
    values = gen.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    want = target.copy()
    np.add.at(want, ids, values)
    got = np.asarray(_compared(jnp.asarray(target), jnp.asarray(ids), jnp.asarray(values)))
    assert got.dtype == want.dtype and np.array_equal(got, want)


def _counts(xp, idx):
    counts = xp.zeros(256, dtype=np.int64)
    xp.add.at(counts, idx, 1)
    wide = xp.zeros(_scatter_add.SMALL + 1, dtype=np.int64)  # (past SMALL: a scatter)
    xp.add.at(wide, idx, 2)
    return counts, wide, xp.histogram(idx, bins=16, range=(0, 256))[0]


def test_small_integer_targets_have_no_scatter_on_a_tpu():
    idx = np.random.default_rng(0).integers(0, 256, 5000)
    jitted = npjax.jit(_counts, static_argnums=(0,))
    tpu = lower(jitted, (npjax, npjax.asarray(idx)), platforms=("tpu",)).as_text()
    cpu = lower(jitted, (npjax, npjax.asarray(idx)), platforms=("cpu",)).as_text()
    assert tpu.count('"stablehlo.scatter"(') == 1  # (the wide target's)
    assert cpu.count('"stablehlo.scatter"(') == 3
    got = jitted(npjax, npjax.asarray(idx))
    for g, w in zip(got, _counts(np, idx)):
        assert g.dtype == w.dtype and np.array_equal(np.asarray(g), w)


def _add_at(xp, target, idx, values):
    xp.add.at(target, idx, values)


def test_numpys_functions_through_the_compare_form(monkeypatch):
    """``add.at``, ``bincount`` and ``histogram`` through the front door, on device arrays
    (host ones are NumPy's own), with the TPU's form made the CPU's too: NumPy's values and
    dtypes (wrapping int8 sums, negative indices, repeats, ``minlength``, a value array)."""
    from npjax._library import _ufunc_methods
    monkeypatch.setattr(_scatter_add, "_scattered", _scatter_add._compared)
    _ufunc_methods._at_kernel.cache_clear()  # (kernels traced before hold the scatter)
    gen = np.random.default_rng(5)
    idx = gen.integers(-40, 40, 3000)
    pos = np.abs(idx)
    try:
        with npjax.policy(placement="device"):
            for dtype, values in ((np.int8, np.int8(7)), (np.int64, gen.integers(-9, 9, 3000)),
                                  (np.uint16, np.uint16(65535))):
                want = np.zeros(40, dtype)
                np.add.at(want, idx, values)
                got = npjax.zeros(40, dtype)  # (traced: on a CPU NumPy runs an eager add.at)
                npjax.jit(_add_at, static_argnums=0)(npjax, got, npjax.asarray(idx), values)
                assert got.dtype == want.dtype and np.array_equal(np.asarray(got), want)
            pairs = ((npjax.bincount(npjax.asarray(pos), minlength=60),
                      np.bincount(pos, minlength=60)),
                     (npjax.histogram(npjax.asarray(pos), bins=7)[0],
                      np.histogram(pos, bins=7)[0]))
        for got, want in pairs:
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.array_equal(np.asarray(got), want)
    finally:
        _ufunc_methods._at_kernel.cache_clear()
