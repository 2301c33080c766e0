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
