"""Integer scatter-add into a small array (``np.add.at``, ``bincount``, ``histogram``'s
counts) as compare-and-sum where XLA applies a scatter one update at a time.

A TPU applies an XLA scatter about one update at a time: ``np.add.at(counts, idx, 1)`` with
4M indices into 256 int64 bins took 245 ms there (61 ns an update; int32 bins 36 ms), where
the same counts as ``sum(idx[:, None] == arange(256))``, which XLA fuses into one reduction
without making the 4M x 256 comparisons, took 3.0 ms (``benchmarks/scatter_forms.py`` on the
chip, 2026-12-07). On a CPU the scatter is the faster (5 ms against 420 ms at 1M indices), and
stays. Integer sums wrap, so they are NumPy's in any order: the result is ``add.at``'s bit for
bit. The comparisons cost ``indices x target size``: targets up to ``SMALL`` elements only.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

__all__ = ["SMALL", "add_at"]

SMALL = 1024  # target elements; at 256 compare-and-sum was 80x the chip's int64 scatter


def add_at(flat: Any, ids: Any, values: Any) -> Any:
    """``flat.at[ids].add(values)``: ``flat`` 1-d, ``ids`` in bounds (checked before),
    ``values`` broadcast to ``ids``'s shape, of ``flat``'s dtype."""
    if flat.dtype.kind not in "iu" or flat.shape[0] > SMALL or ids.size == 0:
        return _scattered(flat, ids, values)
    if isinstance(flat, jax.core.Tracer):  # (in a program: the platform it is lowered for)
        return lax.platform_dependent(flat, ids, values, tpu=_compared, default=_scattered)
    on_tpu = any(d.platform == "tpu" for d in flat.devices())  # (eager: no cond to run)
    return (_compared if on_tpu else _scattered)(flat, ids, values)


def _scattered(flat: Any, ids: Any, values: Any) -> Any:
    return flat.at[ids].add(values)


def _compared(flat: Any, ids: Any, values: Any) -> Any:
    hit = ids.reshape(-1, 1).astype(np.int32) == jnp.arange(flat.shape[0], dtype=np.int32)
    values = jnp.broadcast_to(jnp.asarray(values, flat.dtype), ids.shape).reshape(-1, 1)
    zero = jnp.zeros((), flat.dtype)
    return flat + jnp.sum(jnp.where(hit, values, zero), axis=0, dtype=flat.dtype)
