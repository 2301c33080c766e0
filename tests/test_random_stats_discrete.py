"""The "jax" stream's discrete, multivariate and sequence samplers against SciPy: chi-square
tests and moments at fixed seeds (see test_random_stats.py for the thresholds)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import npjax
from tests.test_random_stats import ALPHA, N, _chi2, _jax_stream, _ks  # noqa: F401 (fixture)

DISCRETE = [
    ("binomial", (10, 0.3), stats.binom(10, 0.3)),
    ("binomial", (200, 0.6), stats.binom(200, 0.6)),
    ("poisson", (3.5,), stats.poisson(3.5)),
    ("poisson", (150.0,), stats.poisson(150.0)),
    ("negative_binomial", (5, 0.4), stats.nbinom(5, 0.4)),
    ("geometric", (0.3,), stats.geom(0.3)),
    ("logseries", (0.6,), stats.logser(0.6)),
    ("logseries", (0.95,), stats.logser(0.95)),
    ("zipf", (2.5,), stats.zipf(2.5)),
    ("hypergeometric", (7, 5, 4), stats.hypergeom(12, 7, 4)),
    ("hypergeometric", (8, 12, 15), stats.hypergeom(20, 8, 15)),
    ("integers", (-5, 5), stats.randint(-5, 5)),
]



@pytest.mark.parametrize("name,args,dist", DISCRETE, ids=lambda v: str(v)[:20])
def test_discrete(name, args, dist):
    gen = npjax.random.default_rng(777)
    sample = np.asarray(getattr(gen, name)(*args, size=N))
    assert sample.dtype == np.int64
    _chi2(sample, dist, f"{name}{args}")
    mean, var = dist.mean(), dist.var()
    if np.isfinite(var):
        assert abs(sample.mean() - mean) < 5 * np.sqrt(var / N), f"mean {name}{args}"


def test_legacy_global_stream():
    npjax.random.seed(11)
    _ks(npjax.random.randn(N), stats.norm(), "randn")
    _ks(npjax.random.rand(N), stats.uniform(), "rand")
    _chi2(npjax.random.randint(0, 7, N), stats.randint(0, 7), "randint")
    _chi2(npjax.random.poisson(5.0, N), stats.poisson(5.0), "legacy poisson")
    _ks(npjax.random.standard_gamma(3.0, N), stats.gamma(3.0), "legacy standard_gamma")


def test_broadcast_parameters():
    gen = npjax.random.default_rng(3)
    x = np.asarray(gen.normal([0.0, 100.0], [1.0, 10.0], size=(N, 2)))
    _ks(x[:, 0], stats.norm(0.0, 1.0), "column 0")
    _ks(x[:, 1], stats.norm(100.0, 10.0), "column 1")
    k = np.asarray(gen.poisson(npjax.asarray([1.0, 40.0]), size=(N, 2)))
    _chi2(k[:, 1], stats.poisson(40.0), "poisson column")
    b = np.asarray(gen.integers([0, 10], [5, 13], size=(N, 2)))
    _chi2(b[:, 1], stats.randint(10, 13), "integers column")


def test_multivariate():
    gen = npjax.random.default_rng(8)
    alpha = np.array([1.0, 2.0, 3.0])
    d = np.asarray(gen.dirichlet(alpha, N))
    np.testing.assert_allclose(d.sum(axis=1), 1.0, rtol=1e-12)
    _ks(d[:, 2], stats.beta(3.0, 3.0), "dirichlet marginal")
    p = np.array([0.2, 0.3, 0.5])
    m = np.asarray(gen.multinomial(20, p, N))
    assert (m.sum(axis=1) == 20).all()
    _chi2(m[:, 1], stats.binom(20, 0.3), "multinomial marginal")
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    for method in ("svd", "eigh", "cholesky"):
        x = np.asarray(gen.multivariate_normal([1.0, -1.0], cov, N, method=method))
        np.testing.assert_allclose(np.cov(x.T), cov, atol=0.15)
        _ks(x @ np.array([1.0, 1.0]), stats.norm(0.0, np.sqrt(cov.sum())), method)
    h = np.asarray(gen.multivariate_hypergeometric([5, 10, 15], 12, N))
    assert (h.sum(axis=1) == 12).all()
    _chi2(h[:, 0], stats.hypergeom(30, 5, 12), "multivariate_hypergeometric")


def test_sequences_uniform():
    gen = npjax.random.default_rng(13)
    perms = np.asarray(npjax.stack([gen.permutation(3) for _ in range(600)]))
    codes = perms[:, 0] * 3 + perms[:, 1]
    counts = np.unique(codes, return_counts=True)[1]
    assert len(counts) == 6 and stats.chisquare(counts).pvalue > ALPHA
    c = np.asarray(gen.choice(4, N, p=[0.1, 0.2, 0.3, 0.4]))
    _chi2(c, stats.rv_discrete(values=([0, 1, 2, 3], [0.1, 0.2, 0.3, 0.4])), "choice p")
    c = np.asarray(gen.choice(6, N))
    _chi2(c, stats.randint(0, 6), "choice")
    firsts = np.asarray(npjax.stack([gen.choice(5, 2, replace=False) for _ in range(500)]))
    assert (firsts[:, 0] != firsts[:, 1]).all()
    _chi2(firsts[:, 0], stats.randint(0, 5), "choice without replacement")
