"""One table of comparison tolerances per result dtype; exact for integers and booleans.

Per-function overrides join the table by taking the larger value. JAX computes
transcendental functions with XLA's own routines, not the C library NumPy uses, so floats
agree to a few units in the last place, not bit for bit.
"""

from __future__ import annotations

import numpy as np

DEFAULT = {
    np.dtype(np.float16): dict(rtol=2e-3, atol=1e-3),
    np.dtype(np.float32): dict(rtol=2e-6, atol=1e-6),
    np.dtype(np.float64): dict(rtol=1e-12, atol=1e-14),
    np.dtype(np.complex64): dict(rtol=2e-6, atol=1e-6),
    np.dtype(np.complex128): dict(rtol=1e-12, atol=1e-14),
}

# Looser tolerances for named functions: dtype -> rtol/atol, joined with DEFAULT by max.
OVERRIDES: dict[str, dict] = {}


def tolerance(dtype: np.dtype, name: str | None = None) -> dict:
    """rtol/atol for comparing results of ``dtype`` (zero for exact kinds)."""
    dtype = np.dtype(dtype)
    base = DEFAULT.get(dtype, dict(rtol=0.0, atol=0.0))
    extra = OVERRIDES.get(name or "", {}).get(dtype)
    if extra is None:
        return dict(base)
    return {k: max(base[k], extra.get(k, 0.0)) for k in base}
