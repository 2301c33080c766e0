"""The NaN that ``log``, ``log2``, ``log10``, ``log1p`` and ``arctanh`` make of a number
outside their domain carries NumPy's sign on the device (x86-64: -nan), eager and under
npjax.jit; XLA's own functions give +nan. (NaN inputs are not compared here: README.)"""

from __future__ import annotations

import numpy as np
import pytest

import npjax

pytestmark = pytest.mark.device_placement

_OUTSIDE = {"log": [-1.0, -np.inf, -0.5, -1e300], "log2": [-1.0, -np.inf, -3.0],
            "log10": [-1.0, -np.inf, -7.5], "log1p": [-2.0, -np.inf, -1.5],
            "arctanh": [2.0, -2.0, np.inf, -np.inf, 1.5]}


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("name", sorted(_OUTSIDE))
@pytest.mark.parametrize("jit", [False, True])
def test_nans_outside_the_domain_have_numpys_sign(name, dtype, jit):
    with np.errstate(all="ignore"):
        x = np.array(_OUTSIDE[name] + [0.25, 0.5], dtype)
        want = getattr(np, name)(x)
    with npjax.errstate(all="ignore"):
        if jit:
            fn = npjax.jit(lambda xp, a: getattr(xp, name)(a), static_argnums=(0,))
            got = np.asarray(fn(npjax, npjax.array(x)))
        else:
            got = np.asarray(getattr(npjax, name)(npjax.array(x)))
    assert got.dtype == want.dtype
    nan = np.isnan(want)
    assert nan[:-2].all() and (np.isnan(got) == nan).all()
    assert (np.signbit(got[nan]) == np.signbit(want[nan])).all()
