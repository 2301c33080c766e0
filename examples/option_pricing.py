"""Monte Carlo pricing of European and Asian call options with np.random.default_rng.

Geometric Brownian motion paths are simulated with a seeded generator; the European call is
checked against the Black-Scholes formula, and an arithmetic-average Asian call (which has no
closed form) is priced with the European call as a control variate.
Run: python option_pricing.py [paths]
"""

import math
import sys

import numpy as np

n_paths = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
n_steps = 50
s0, strike, rate, sigma, maturity = 100.0, 105.0, 0.03, 0.25, 1.0
dt = maturity / n_steps

rng = np.random.default_rng(20240601)
z = rng.standard_normal((n_paths, n_steps))
log_steps = (rate - 0.5 * sigma**2) * dt + sigma * math.sqrt(dt) * z
paths = s0 * np.exp(np.cumsum(log_steps, axis=1))  # (n_paths, n_steps)

discount = math.exp(-rate * maturity)
european = discount * np.maximum(paths[:, -1] - strike, 0.0)
asian = discount * np.maximum(paths.mean(axis=1) - strike, 0.0)


def black_scholes_call(s, k, r, vol, t):
    d1 = (math.log(s / k) + (r + 0.5 * vol**2) * t) / (vol * math.sqrt(t))
    d2 = d1 - vol * math.sqrt(t)
    cdf = lambda v: 0.5 * (1.0 + math.erf(v / math.sqrt(2.0)))  # noqa: E731
    return s * cdf(d1) - k * math.exp(-r * t) * cdf(d2)


exact = black_scholes_call(s0, strike, rate, sigma, maturity)
price = european.mean()
stderr = european.std(ddof=1) / math.sqrt(n_paths)
print(f"{n_paths} paths of {n_steps} steps")
print("European call: Monte Carlo", price, "+/-", stderr)
print("European call: Black-Scholes", exact)
print("within 3 standard errors:", abs(price - exact) < 3 * stderr)

cov = np.cov(asian, european)
beta = cov[0, 1] / cov[1, 1]
controlled = asian - beta * (european - exact)
print("Asian call: plain", asian.mean(), "+/-", asian.std(ddof=1) / math.sqrt(n_paths))
print("Asian call: control variate", controlled.mean(), "+/-",
      controlled.std(ddof=1) / math.sqrt(n_paths))
print("control variate beta:", beta)
print("probability of exercise (European):", (paths[:, -1] > strike).mean())
print("first path, every 10th step:", paths[0, ::10])
