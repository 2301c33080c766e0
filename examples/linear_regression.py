"""Least-squares polynomial regression with np.linalg.lstsq on generated data.

Noisy samples of a cubic (the "noise" is a fixed high-frequency wiggle, so the output is
deterministic) are fitted with polynomials of degree 1 to 4; the script prints the coefficients,
residuals, rank and singular values of each fit, picks the degree with the best adjusted R^2,
and saves the design matrix, coefficients and predictions with np.savez into the folder
named by $EXAMPLES_OUT (default: examples-output in the current folder, made if missing).
Run: python linear_regression.py [samples]
"""

import os
import sys

import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
true_coef = np.array([0.5, -2.0, 0.0, 3.0])  # 0.5 - 2x + 3x^3
x = np.linspace(-1.0, 1.0, n)
noise = 0.05 * np.sin(37.0 * x) + 0.02 * np.cos(91.0 * x)
y = true_coef[0] + true_coef[1] * x + true_coef[2] * x**2 + true_coef[3] * x**3 + noise

best = None
for degree in range(1, 5):
    X = np.vander(x, degree + 1, increasing=True)  # columns 1, x, x^2, ...
    coef, residuals, rank, sv = np.linalg.lstsq(X, y, rcond=None)
    fitted = X @ coef
    ss_res = ((y - fitted) ** 2).sum()
    ss_tot = ((y - y.mean()) ** 2).sum()
    r2 = 1.0 - ss_res / ss_tot
    adjusted = 1.0 - (1.0 - r2) * (n - 1) / (n - degree - 1)
    print(f"degree {degree}: rank {rank}, adjusted R^2 = {adjusted:.12f}")
    print("  coefficients:", coef)
    print("  residual sum of squares:", residuals)
    print("  singular values:", sv)
    if best is None or adjusted > best[1]:
        best = (degree, adjusted, X, coef, fitted)

degree, adjusted, X, coef, fitted = best
error = np.abs(fitted - (y - noise)).max()
print(f"best degree: {degree}; largest error against the noiseless cubic: {error:.6e}")
out_dir = os.environ.get("EXAMPLES_OUT", "examples-output")
os.makedirs(out_dir, exist_ok=True)
np.savez(os.path.join(out_dir, "regression.npz"), design=X, coef=coef, fitted=fitted)
np.savetxt(os.path.join(out_dir, "regression_coef.txt"), coef)
print("saved regression.npz and regression_coef.txt")
