"""The "jax" stream draws from the right distributions: Kolmogorov-Smirnov (continuous) and
chi-square (discrete) tests against SciPy, and moments, at fixed seeds.

The seeds are fixed, so each test is deterministic; the threshold (p > 1e-4) is far below
what a correct sampler gives and far above what a wrong one gives at these sample sizes.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import npjax

N = 4096  # a power of two: draws of this size share one compiled kernel
ALPHA = 1e-4


@pytest.fixture(autouse=True)
def _jax_stream():
    """These tests are about the "jax" stream (the default "auto" draws host-placed results
    from NumPy's own generator)."""
    npjax.set_policy(random="jax")

CONTINUOUS = [
    ("random", (), stats.uniform()),
    ("standard_normal", (), stats.norm()),
    ("standard_exponential", (), stats.expon()),
    ("standard_gamma", (0.5,), stats.gamma(0.5)),
    ("normal", (1.0, 2.0), stats.norm(1.0, 2.0)),
    ("uniform", (-1.0, 3.0), stats.uniform(-1.0, 4.0)),
    ("exponential", (2.0,), stats.expon(scale=2.0)),
    ("gamma", (2.0, 3.0), stats.gamma(2.0, scale=3.0)),
    ("beta", (0.5, 2.0), stats.beta(0.5, 2.0)),
    ("chisquare", (3.0,), stats.chi2(3.0)),
    ("noncentral_chisquare", (3.0, 1.5), stats.ncx2(3.0, 1.5)),
    ("noncentral_chisquare", (0.5, 2.0), stats.ncx2(0.5, 2.0)),
    ("f", (3.0, 5.0), stats.f(3.0, 5.0)),
    ("noncentral_f", (3.0, 5.0, 1.0), stats.ncf(3.0, 5.0, 1.0)),
    ("gumbel", (0.5, 2.0), stats.gumbel_r(0.5, 2.0)),
    ("laplace", (0.5, 2.0), stats.laplace(0.5, 2.0)),
    ("logistic", (0.5, 2.0), stats.logistic(0.5, 2.0)),
    ("lognormal", (0.1, 0.5), stats.lognorm(0.5, scale=np.exp(0.1))),
    ("pareto", (3.0,), stats.lomax(3.0)),
    ("power", (2.0,), stats.powerlaw(2.0)),
    ("rayleigh", (2.0,), stats.rayleigh(scale=2.0)),
    ("standard_cauchy", (), stats.cauchy()),
    ("standard_t", (4.0,), stats.t(4.0)),
    ("triangular", (0.0, 1.0, 3.0), stats.triang(1.0 / 3.0, 0.0, 3.0)),
    ("vonmises", (0.5, 2.0), "numpy"),  # wrapped to [-pi, pi): compare with NumPy's sampler
    ("vonmises", (-2.0, 1e-6), stats.uniform(-np.pi, 2 * np.pi)),
    ("vonmises", (3.0, 1e7), "numpy"),
    ("wald", (1.0, 2.0), stats.invgauss(0.5, scale=2.0)),
    ("weibull", (1.5,), stats.weibull_min(1.5)),
]

def _ks(sample, dist, where):
    p = stats.kstest(np.asarray(sample), dist.cdf).pvalue
    assert p > ALPHA, f"KS p={p:.2e} {where}"


def _chi2(sample, dist, where):
    sample = np.asarray(sample)
    lo, hi = int(sample.min()), int(sample.max())
    support = np.arange(lo, hi + 1)
    observed = np.bincount(sample - lo, minlength=len(support)).astype(float)
    expected = dist.pmf(support) * len(sample)
    # Lump cells with small expectations (and the mass outside [lo, hi]) together.
    keep = expected >= 5
    outside = (1.0 - dist.pmf(support).sum()) * len(sample)
    obs, exp = observed[keep], expected[keep]
    rest = expected[~keep].sum() + outside
    if rest > 1e-9 * len(sample):
        obs, exp = np.append(obs, observed[~keep].sum()), np.append(exp, rest)
    exp *= obs.sum() / exp.sum()
    p = stats.chisquare(obs, exp).pvalue
    assert p > ALPHA, f"chi-square p={p:.2e} {where}"


@pytest.mark.parametrize("name,args,dist", CONTINUOUS, ids=lambda v: str(v)[:20])
def test_continuous(name, args, dist):
    gen = npjax.random.default_rng(20240611)
    sample = getattr(gen, name)(*args, size=N)
    if dist == "numpy":
        reference = getattr(np.random.default_rng(1), name)(*args, size=4 * N)
        p = stats.ks_2samp(np.asarray(sample), reference).pvalue
        assert p > ALPHA, f"KS p={p:.2e} {name}{args}"
        return
    _ks(sample, dist, f"{name}{args}")


def test_float32_samplers():
    gen = npjax.random.default_rng(5)
    for name, dist in (("random", stats.uniform()), ("standard_normal", stats.norm()),
                       ("standard_exponential", stats.expon())):
        x = getattr(gen, name)(size=N, dtype=np.float32)
        assert x.dtype == np.float32
        _ks(x, dist, f"{name} float32")
    _ks(gen.standard_gamma(2.0, size=N, dtype=np.float32), stats.gamma(2.0), "gamma float32")
