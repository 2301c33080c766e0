"""Device samplers for the "jax" stream, and NumPy's parameter checks.

Every sampler is a pure function ``fn(key, shape, dtype, static, *params) -> array`` drawn
with ``jax.random``. ``kernel(name, shape, dtype, static)`` wraps one in a cached ``jax.jit``
of ``(key, *params) -> (next_key, sample)``: the key is split inside the compiled call, so a
draw is one device dispatch. Parameters arrive as Python scalars (weakly typed, no recompile
per value) or ``jax.Array``s already broadcastable to ``shape``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._runtime import _context

f64 = jnp.float64
i64 = jnp.int64
INT64_MAX = np.iinfo(np.int64).max
POISSON_LAM_MAX = float(INT64_MAX) - math.sqrt(INT64_MAX) * 10
LEGACY_POISSON_LAM_MAX = POISSON_LAM_MAX

SAMPLERS: dict[str, Callable[..., jax.Array]] = {}


def sampler(name: str):
    def register(fn):
        SAMPLERS[name] = fn
        return fn
    return register


@functools.lru_cache(maxsize=512)
def kernel(name: str, shape: tuple, dtype: str, static: tuple = ()) -> Callable:
    """The compiled ``(key, *params) -> (next_key, sample)`` for one static configuration."""
    fn = SAMPLERS[name]

    def run(key, *params):
        key, sub = jax.random.split(key)
        return key, fn(sub, shape, np.dtype(dtype), static, *params)

    return jax.jit(run)


def _f(x, shape):
    return jnp.broadcast_to(jnp.asarray(x, f64), shape)


def _u(key, shape, dtype=f64):
    return jax.random.uniform(key, shape, dtype)


def _e(key, shape):
    return jax.random.exponential(key, shape, f64)


def _n(key, shape):
    return jax.random.normal(key, shape, f64)


def _gamma(key, a, shape, dtype=f64):
    """Marsaglia-Tsang gamma variates with a vectorised rejection loop (boosted for a < 1).

    One loop per kernel, much cheaper to compile than ``jax.random.gamma``."""
    a = jnp.broadcast_to(jnp.asarray(a, dtype), shape)
    k_boost, k_loop = jax.random.split(key)
    small = a < 1
    d = jnp.where(small, a + 1, a) - 1.0 / 3.0
    c = 1.0 / jnp.sqrt(9.0 * d)
    bad = jnp.isnan(a) | (a == 0)

    def propose(k):
        kn, ku = jax.random.split(k)
        x = jax.random.normal(kn, shape, dtype)
        v = (1.0 + c * x) ** 3
        u = jax.random.uniform(ku, shape, dtype)
        logv = jnp.log(jnp.where(v > 0, v, 1.0))
        ok = (v > 0) & (jnp.log(u) < 0.5 * x * x + d - d * v + d * logv)
        return ok | bad, d * v

    g = _rejection(k_loop, shape, propose, jnp.zeros(shape, dtype))
    boost = jnp.exp(jnp.log(jax.random.uniform(k_boost, shape, dtype)) / a)
    g = jnp.where(small, g * boost, g)
    return jnp.where(a == 0, jnp.zeros((), dtype), jnp.where(jnp.isnan(a), jnp.nan, g))


def _poisson(key, lam, shape):
    lam = _f(lam, shape)
    return jax.random.poisson(key, lam, shape, i64)


# --- continuous ------------------------------------------------------------------------------

@sampler("random")
def _random(key, shape, dtype, static):
    return _u(key, shape, dtype)


@sampler("standard_normal")
def _standard_normal(key, shape, dtype, static):
    return jax.random.normal(key, shape, dtype)


@sampler("standard_exponential")
def _standard_exponential(key, shape, dtype, static):
    return jax.random.exponential(key, shape, dtype)


@sampler("standard_gamma")
def _standard_gamma(key, shape, dtype, static, a):
    return _gamma(key, a, shape, dtype)


@sampler("normal")
def _normal(key, shape, dtype, static, loc, scale):
    return _f(loc, shape) + _f(scale, shape) * _n(key, shape)


@sampler("uniform")
def _uniform(key, shape, dtype, static, low, high):
    low = _f(low, shape)
    return low + (_f(high, shape) - low) * _u(key, shape)


@sampler("exponential")
def _exponential(key, shape, dtype, static, scale):
    return _f(scale, shape) * _e(key, shape)


@sampler("gamma")
def _gamma_s(key, shape, dtype, static, a, scale):
    return _f(scale, shape) * _gamma(key, a, shape)


@sampler("beta")
def _beta(key, shape, dtype, static, a, b):
    g = _gamma(key, jnp.stack([_f(a, shape), _f(b, shape)]), (2, *shape))
    x, y = g[0], g[1]
    total = x + y
    # Both tiny: NumPy's Johnk algorithm; in log space the ratio is still well defined.
    return jnp.where(total > 0, x / jnp.where(total > 0, total, 1.0),
                     (_f(a, shape) / (_f(a, shape) + _f(b, shape))) > 0.5)


def _chisq(key, df, shape):
    return 2.0 * _gamma(key, _f(df, shape) / 2.0, shape)


@sampler("chisquare")
def _chisquare(key, shape, dtype, static, df):
    return _chisq(key, df, shape)


def _ncchisq_df(key, df, nonc, shape):
    """(degrees of freedom of the central part, additive normal term) of NumPy's method."""
    df, nonc = _f(df, shape), _f(nonc, shape)
    k2, k3 = jax.random.split(key)
    big = df > 1
    i = jax.random.poisson(k3, nonc / 2.0, shape, i64)
    central = jnp.where(nonc == 0, df, jnp.where(big, df - 1, df + 2.0 * i))
    extra = jnp.where((nonc != 0) & big, (_n(k2, shape) + jnp.sqrt(nonc)) ** 2, 0.0)
    return central, extra


def _ncchisq(key, df, nonc, shape):
    k1, k2 = jax.random.split(key)
    central, extra = _ncchisq_df(k2, df, nonc, shape)
    return _chisq(k1, central, shape) + extra


@sampler("noncentral_chisquare")
def _noncentral_chisquare(key, shape, dtype, static, df, nonc):
    return _ncchisq(key, df, nonc, shape)


@sampler("f")
def _f_dist(key, shape, dtype, static, dfnum, dfden):
    a, b = _f(dfnum, shape), _f(dfden, shape)
    g = _chisq(key, jnp.stack([a, b]), (2, *shape))
    return (g[0] / a) / (g[1] / b)


@sampler("noncentral_f")
def _noncentral_f(key, shape, dtype, static, dfnum, dfden, nonc):
    k1, k2 = jax.random.split(key)
    a, b = _f(dfnum, shape), _f(dfden, shape)
    central, extra = _ncchisq_df(k2, a, nonc, shape)
    g = _chisq(k1, jnp.stack([central, b]), (2, *shape))
    return ((g[0] + extra) * b) / (g[1] * a)


@sampler("gumbel")
def _gumbel(key, shape, dtype, static, loc, scale):
    return _f(loc, shape) + _f(scale, shape) * jax.random.gumbel(key, shape, f64)


@sampler("laplace")
def _laplace(key, shape, dtype, static, loc, scale):
    return _f(loc, shape) + _f(scale, shape) * jax.random.laplace(key, shape, f64)


@sampler("logistic")
def _logistic(key, shape, dtype, static, loc, scale):
    return _f(loc, shape) + _f(scale, shape) * jax.random.logistic(key, shape, f64)


@sampler("lognormal")
def _lognormal(key, shape, dtype, static, mean, sigma):
    return jnp.exp(_f(mean, shape) + _f(sigma, shape) * _n(key, shape))


@sampler("pareto")
def _pareto(key, shape, dtype, static, a):
    return jnp.expm1(_e(key, shape) / _f(a, shape))


@sampler("power")
def _power(key, shape, dtype, static, a):
    return jnp.power(-jnp.expm1(-_e(key, shape)), 1.0 / _f(a, shape))


@sampler("rayleigh")
def _rayleigh(key, shape, dtype, static, scale):
    return _f(scale, shape) * jnp.sqrt(2.0 * _e(key, shape))


@sampler("standard_cauchy")
def _standard_cauchy(key, shape, dtype, static):
    return jax.random.cauchy(key, shape, f64)


@sampler("standard_t")
def _standard_t(key, shape, dtype, static, df):
    k1, k2 = jax.random.split(key)
    df = _f(df, shape)
    return _n(k1, shape) * jnp.sqrt(df / _chisq(k2, df, shape))


@sampler("triangular")
def _triangular(key, shape, dtype, static, left, mode, right):
    left, mode, right = _f(left, shape), _f(mode, shape), _f(right, shape)
    base = right - left
    leftbase = mode - left
    u = _u(key, shape)
    lo = left + jnp.sqrt(u * leftbase * base)
    hi = right - jnp.sqrt((1.0 - u) * (right - mode) * base)
    return jnp.where(u <= leftbase / base, lo, hi)


@sampler("wald")
def _wald(key, shape, dtype, static, mean, scale):
    mean, scale = _f(mean, shape), _f(scale, shape)
    k1, k2 = jax.random.split(key)
    y = _n(k1, shape)
    y = mean * y * y
    x = mean + mean / (2.0 * scale) * (y - jnp.sqrt(4.0 * scale * y + y * y))
    u = _u(k2, shape)
    return jnp.where(u <= mean / (mean + x), x, mean * mean / x)


@sampler("weibull")
def _weibull(key, shape, dtype, static, a):
    a = _f(a, shape)
    return jnp.where(a == 0, 0.0, jnp.power(_e(key, shape), 1.0 / jnp.where(a == 0, 1.0, a)))


def _rejection(key, shape, propose, init):
    """Vectorised rejection: redraw the not-yet-accepted elements until all are accepted
    (at most 10000 rounds: a guard against parameters for which nothing is ever accepted)."""
    def cond(state):
        return ~jnp.all(state[1]) & (state[3] < 10000)

    def body(state):
        key, done, value, rounds = state
        key, sub = jax.random.split(key)
        ok, new = propose(sub)
        take = ok & ~done
        return key, done | take, jnp.where(take, new, value), rounds + 1

    init_state = (key, jnp.zeros(shape, bool), init, jnp.asarray(0, jnp.int32))
    return lax.while_loop(cond, body, init_state)[2]


@sampler("vonmises")
def _vonmises(key, shape, dtype, static, mu, kappa):
    mu, kappa = _f(mu, shape), _f(kappa, shape)
    safe = jnp.where(kappa < 1e-8, 1.0, kappa)
    r = 1.0 + jnp.sqrt(1.0 + 4.0 * safe * safe)
    rho = (r - jnp.sqrt(2.0 * r)) / (2.0 * safe)
    s = jnp.where(safe < 1e-5, 1.0 / safe + safe, (1.0 + rho * rho) / (2.0 * rho))
    k0, k1, k2 = jax.random.split(key, 3)

    def propose(k):
        ka, kb, kc = jax.random.split(k, 3)
        z = jnp.cos(jnp.pi * _u(ka, shape))
        w = (1.0 + s * z) / (s + z)
        y = safe * (s - w)
        v = _u(kb, shape)
        ok = (y * (2.0 - y) - v >= 0) | (jnp.log(y / v) + 1.0 - y >= 0) | jnp.isnan(kappa)
        angle = jnp.arccos(jnp.clip(w, -1.0, 1.0))
        return ok, jnp.where(_u(kc, shape) < 0.5, -angle, angle)

    angle = _rejection(k0, shape, propose, jnp.zeros(shape, f64))
    wrapped = jnp.sqrt(1.0 / safe) * _n(k2, shape)
    angle = jnp.where(safe > 1e6, wrapped, angle)
    result = angle + mu
    mod = jnp.fmod(jnp.abs(result) + jnp.pi, 2.0 * jnp.pi) - jnp.pi
    result = jnp.where(result < 0, -mod, mod)
    return jnp.where(kappa < 1e-8, jnp.pi * (2.0 * _u(k1, shape) - 1.0), result)


# --- discrete --------------------------------------------------------------------------------

@sampler("binomial")
def _binomial(key, shape, dtype, static, n, p):
    n = jnp.broadcast_to(jnp.asarray(n, i64), shape)
    p = _f(p, shape)
    out = jax.random.binomial(key, n.astype(f64), p, shape, f64)
    return jnp.where(p == 0, 0, jnp.where(p == 1, n, out.astype(i64)))


@sampler("poisson")
def _poisson_s(key, shape, dtype, static, lam):
    return _poisson(key, lam, shape)


@sampler("negative_binomial")
def _negative_binomial(key, shape, dtype, static, n, p):
    p = _f(p, shape)
    k1, k2 = jax.random.split(key)
    y = _gamma(k1, n, shape) * ((1.0 - p) / p)
    return _poisson(k2, y, shape)


@sampler("geometric")
def _geometric(key, shape, dtype, static, p):
    p = _f(p, shape)
    u = 1.0 - _u(key, shape)  # (0, 1]
    x = jnp.ceil(jnp.log(u) / jnp.log1p(-jnp.where(p == 1, 0.5, p)))
    x = jnp.clip(x, 1, 9.2e18)
    return jnp.where(p == 1, 1, x.astype(i64))


@sampler("logseries")
def _logseries(key, shape, dtype, static, p):
    p = _f(p, shape)
    k1, k2 = jax.random.split(key)
    r = jnp.log1p(-p)
    v = _u(k1, shape)
    u = _u(k2, shape)
    q = -jnp.expm1(r * u)
    many = jnp.floor(1.0 + jnp.log(v) / jnp.log(q))
    many = jnp.clip(jnp.nan_to_num(many, nan=1.0, posinf=9.2e18), 1, 9.2e18).astype(i64)
    out = jnp.where(v <= q * q, many, jnp.where(v >= q, 1, 2))
    return jnp.where((v >= p) | (p == 0), 1, out)


@sampler("zipf")
def _zipf(key, shape, dtype, static, a):
    a = _f(a, shape)
    am1 = a - 1.0
    b = jnp.power(2.0, am1)

    def propose(k):
        ka, kb = jax.random.split(k)
        u = 1.0 - _u(ka, shape)
        v = _u(kb, shape)
        x = jnp.floor(jnp.power(u, -1.0 / am1))
        valid = (x >= 1) & (x <= 9.2e18)
        t = jnp.power(1.0 + 1.0 / x, am1)
        ok = valid & (v * x * (t - 1.0) / (b - 1.0) <= t / b)
        return ok, jnp.where(valid, x, 1.0)

    return _rejection(key, shape, propose, jnp.ones(shape, f64)).astype(i64)


def hypergeometric_draw(key, ngood, nbad, nsample, shape):
    """Good items among ``nsample`` drawn without replacement (sequential, vectorised)."""
    ngood = jnp.broadcast_to(jnp.asarray(ngood, i64), shape)
    nbad = jnp.broadcast_to(jnp.asarray(nbad, i64), shape)
    nsample = jnp.broadcast_to(jnp.asarray(nsample, i64), shape)
    total = ngood + nbad
    flip = nsample > total // 2
    m = jnp.where(flip, total - nsample, nsample)
    steps = jnp.max(m, initial=0)

    def body(state):
        i, key, g, b, count = state
        key, sub = jax.random.split(key)
        active = i < m
        u = _u(sub, shape)
        take = active & (u * (g + b).astype(f64) < g.astype(f64))
        drop = active & ~take
        return i + 1, key, g - take, b - drop, count + take

    init = (jnp.asarray(0, i64), key, ngood, nbad, jnp.zeros(shape, i64))
    count = lax.while_loop(lambda s: s[0] < steps, body, init)[4]
    return jnp.where(flip, ngood - count, count)


@sampler("hypergeometric")
def _hypergeometric(key, shape, dtype, static, ngood, nbad, nsample):
    return hypergeometric_draw(key, ngood, nbad, nsample, shape)


@sampler("integers")
def _integers(key, shape, dtype, static, low, high):
    """Integers. ``static``: ("range",): ``[low, high)`` with ``high`` representable;
    ("general",) / bool dtype: ``[low, high]`` inclusive, up to the dtype's full range."""
    if static == ("range",):
        wide = np.dtype(np.uint64) if dtype.kind == "u" else np.dtype(np.int64)
        return jax.random.randint(key, shape, low, high, wide).astype(dtype)
    if dtype.kind == "b":
        low = jnp.broadcast_to(jnp.asarray(low, i64), shape)
        high = jnp.broadcast_to(jnp.asarray(high, i64), shape)
        return jnp.where(high > low, jax.random.bernoulli(key, 0.5, shape), low > 0)
    wide = np.dtype(np.uint64) if dtype.kind == "u" else np.dtype(np.int64)
    info = np.iinfo(wide)
    low = jnp.broadcast_to(jnp.asarray(low, wide), shape)
    high = jnp.broadcast_to(jnp.asarray(high, wide), shape)
    k1, k2 = jax.random.split(key)
    top, bottom = wide.type(info.max), wide.type(info.min)
    shift = (high == top).astype(wide)
    draw = jax.random.randint(k1, shape, low - shift, high + 1 - shift, wide) + shift
    full = (low == bottom) & (high == top)
    bits = lax.bitcast_convert_type(jax.random.bits(k2, shape, jnp.uint64), wide)
    return jnp.where(full, bits, draw).astype(dtype)


@sampler("bytes")
def _bytes(key, shape, dtype, static):
    return jax.random.bits(key, shape, jnp.uint8)


# --- multivariate ----------------------------------------------------------------------------

@sampler("dirichlet")
def _dirichlet(key, shape, dtype, static, alpha):
    g = _gamma(key, alpha, shape)
    total = jnp.sum(g, axis=-1, keepdims=True)
    return g / total


@sampler("multinomial")
def _multinomial(key, shape, dtype, static, n, pvals):
    """Sequential conditional binomials over the last axis (``shape[-1]`` categories)."""
    k = shape[-1]
    batch = shape[:-1]
    n = jnp.broadcast_to(jnp.asarray(n, i64), batch)
    pvals = jnp.broadcast_to(jnp.asarray(pvals, f64), shape)
    keys = jax.random.split(key, max(k - 1, 1))
    remaining = n
    left = jnp.ones(batch, f64)
    parts = []
    for j in range(k - 1):
        pj = pvals[..., j]
        prob = jnp.clip(jnp.where(left > 0, pj / jnp.where(left > 0, left, 1.0), 0.0), 0.0, 1.0)
        draw = _binomial(keys[j], batch, dtype, (), remaining, prob)
        draw = jnp.where(remaining > 0, draw, 0)
        parts.append(draw)
        remaining = remaining - draw
        left = left - pj
    parts.append(remaining)
    return jnp.stack(parts, axis=-1)


@sampler("multivariate_normal")
def _multivariate_normal(key, shape, dtype, static, mean, factor):
    z = jax.random.normal(key, shape, f64)
    return jnp.asarray(mean, f64) + z @ factor


@sampler("multivariate_hypergeometric")
def _multivariate_hypergeometric(key, shape, dtype, static, colors, nsample):
    k = shape[-1]
    batch = shape[:-1]
    colors = jnp.asarray(colors, i64)
    keys = jax.random.split(key, max(k, 1))
    remaining = jnp.broadcast_to(jnp.asarray(nsample, i64), batch)
    rest = jnp.sum(colors)
    parts = []
    for j in range(k - 1):
        rest = rest - colors[j]
        draw = hypergeometric_draw(keys[j], colors[j], rest, remaining, batch)
        parts.append(draw)
        remaining = remaining - draw
    parts.append(remaining)
    return jnp.stack(parts, axis=-1)


# --- permutations ----------------------------------------------------------------------------

@sampler("permutation_index")
def _permutation_index(key, shape, dtype, static):
    return jax.random.permutation(key, shape[0]).astype(i64)


@sampler("permuted")
def _permuted(key, shape, dtype, static, x):
    (axis,) = static
    return jax.random.permutation(key, x, axis=axis, independent=True)


@sampler("choice_uniform")
def _choice_uniform(key, shape, dtype, static, pop):
    return jax.random.randint(key, shape, 0, pop, i64)


@sampler("choice_p")
def _choice_p(key, shape, dtype, static, p):
    (replace,) = static
    n = p.shape[0]
    return jax.random.choice(key, n, shape, replace=replace, p=p).astype(i64)


@sampler("choice_noreplace")
def _choice_noreplace(key, shape, dtype, static):
    (pop,) = static
    count = math.prod(shape)
    return jax.random.permutation(key, pop)[:count].reshape(shape).astype(i64)


# --- parameter checks (NumPy's _common.pyx constraints) --------------------------------------

NONE, NON_NEGATIVE, POSITIVE, POSITIVE_NOT_NAN, BOUNDED_0_1, BOUNDED_GT_0_1 = range(6)
BOUNDED_LT_0_1, GT_1, GTE_1, POISSON, LEGACY_POISSON, LEGACY_NONNEG_LONG = range(6, 12)


def check_scalar(val: float, name: str, cons: int) -> None:
    """NumPy's ``check_constraint`` for a scalar parameter."""
    nan = math.isnan(val)
    if cons == NON_NEGATIVE:
        if not nan and math.copysign(1.0, val) < 0:
            raise ValueError(f"{name} < 0")
    elif cons in (POSITIVE, POSITIVE_NOT_NAN):
        if cons == POSITIVE_NOT_NAN and nan:
            raise ValueError(f"{name} must not be NaN")
        if val <= 0:
            raise ValueError(f"{name} <= 0")
    elif cons == BOUNDED_0_1:
        if not (val >= 0) or not (val <= 1):
            raise ValueError(f"{name} < 0, {name} > 1 or {name} is NaN")
    elif cons == BOUNDED_GT_0_1:
        if not val > 0 or not val <= 1:
            raise ValueError(f"{name} <= 0, {name} > 1 or {name} contains NaNs")
    elif cons == BOUNDED_LT_0_1:
        if not (val >= 0) or not (val < 1):
            raise ValueError(f"{name} < 0, {name} >= 1 or {name} is NaN")
    elif cons == GT_1:
        if not (val > 1):
            raise ValueError(f"{name} <= 1 or {name} is NaN")
    elif cons == GTE_1:
        if not (val >= 1):
            raise ValueError(f"{name} < 1 or {name} is NaN")
    elif cons in (POISSON, LEGACY_POISSON):
        top = POISSON_LAM_MAX if cons == POISSON else LEGACY_POISSON_LAM_MAX
        if not (val >= 0):
            raise ValueError(f"{name} < 0 or {name} is NaN")
        if not (val <= top):
            raise ValueError(f"{name} value too large")
    elif cons == LEGACY_NONNEG_LONG:
        if val < 0:
            raise ValueError(f"{name} < 0")
        if val > INT64_MAX:
            raise ValueError(f"{name} is out of bounds for long")


def check_array(val: Any, name: str, cons: int) -> None:
    """NumPy's ``check_array_constraint``; ``val`` is a NumPy or a JAX array."""
    xp = np if isinstance(val, np.ndarray) else jnp
    tr = _context.trace() if isinstance(val, jax.core.Tracer) else None

    def any_(x):
        if tr is not None:  # npjax.jit: a device-side check (the call reruns eagerly)
            tr.check(jnp.any(x))
            return False
        return bool(xp.any(x))

    def all_(x):
        if tr is not None:
            tr.check(~jnp.all(x))
            return True
        return bool(xp.all(x))

    if cons == NON_NEGATIVE:
        if any_(xp.logical_and(xp.logical_not(xp.isnan(val)), xp.signbit(val))):
            raise ValueError(f"{name} < 0")
    elif cons in (POSITIVE, POSITIVE_NOT_NAN):
        if cons == POSITIVE_NOT_NAN and any_(xp.isnan(val)):
            raise ValueError(f"{name} must not be NaN")
        if any_(val <= 0):
            raise ValueError(f"{name} <= 0")
    elif cons == BOUNDED_0_1:
        if not all_(val >= 0) or not all_(val <= 1):
            raise ValueError(f"{name} < 0, {name} > 1 or {name} contains NaNs")
    elif cons == BOUNDED_GT_0_1:
        if not all_(val > 0) or not all_(val <= 1):
            raise ValueError(f"{name} <= 0, {name} > 1 or {name} contains NaNs")
    elif cons == BOUNDED_LT_0_1:
        if not all_(val >= 0) or not all_(val < 1):
            raise ValueError(f"{name} < 0, {name} >= 1 or {name} contains NaNs")
    elif cons == GT_1:
        if not all_(val > 1):
            raise ValueError(f"{name} <= 1 or {name} contains NaNs")
    elif cons == GTE_1:
        if not all_(val >= 1):
            raise ValueError(f"{name} < 1 or {name} contains NaNs")
    elif cons in (POISSON, LEGACY_POISSON):
        top = POISSON_LAM_MAX if cons == POISSON else LEGACY_POISSON_LAM_MAX
        if not all_(val <= top):
            raise ValueError(f"{name} value too large")
        if not all_(val >= 0.0):
            raise ValueError(f"{name} < 0 or {name} contains NaNs")
    elif cons == LEGACY_NONNEG_LONG:
        if not all_(val >= 0):
            raise ValueError(f"{name} < 0")
        if not all_(val <= INT64_MAX):
            raise ValueError(f"{name} is out of bounds for long")
