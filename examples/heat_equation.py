"""Heat equation by explicit finite differences (FTCS), in 1-D and 2-D.

A rod with fixed zero-temperature ends, starting from two sine modes, is compared with the exact
solution; then a square plate with a hot square in the middle cools with its edges held at 0.
Run: python heat_equation.py [steps]
"""

import sys

import numpy as np

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 400

# --- 1-D rod: u_t = alpha * u_xx on [0, 1], u(0) = u(1) = 0 ---------------------------------
n = 51
dx = 1.0 / (n - 1)
alpha = 1.0
dt = 0.4 * dx * dx / alpha  # r = alpha*dt/dx^2 = 0.4 <= 0.5: stable
r = alpha * dt / (dx * dx)

x = np.arange(n) * dx
u = np.sin(np.pi * x) + 0.5 * np.sin(3 * np.pi * x)
u[0] = 0.0
u[-1] = 0.0

for _ in range(steps):
    u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])

t = steps * dt
exact = (np.exp(-np.pi**2 * alpha * t) * np.sin(np.pi * x)
         + 0.5 * np.exp(-9 * np.pi**2 * alpha * t) * np.sin(3 * np.pi * x))
mid = n // 2
print(f"1-D rod: {n} points, {steps} steps, r = {r}, t = {t:.6f}")
print("u(x = 0.0, 0.1, ..., 1.0) =", u[::5])
print(f"u(0.5) = {u[mid]:.12f}   exact = {exact[mid]:.12f}   "
      f"error = {abs(u[mid] - exact[mid]):.3e}")

# --- 2-D plate: u_t = alpha * (u_xx + u_yy), edges held at 0 ---------------------------------
m = 33
h = 1.0 / (m - 1)
dt2 = 0.2 * h * h / alpha  # r2 = 0.2 <= 0.25: stable
r2 = alpha * dt2 / (h * h)
plate = np.zeros((m, m))
plate[12:21, 12:21] = 100.0

for _ in range(steps // 2):
    plate[1:-1, 1:-1] = plate[1:-1, 1:-1] + r2 * (
        plate[2:, 1:-1] + plate[:-2, 1:-1] + plate[1:-1, 2:] + plate[1:-1, :-2]
        - 4 * plate[1:-1, 1:-1])

print(f"2-D plate: {m}x{m} points, {steps // 2} steps, r = {r2}")
print("centre row, every 4th point:", plate[m // 2, ::4])
print(f"centre temperature = {plate[m // 2, m // 2]:.10f}")
print(f"corner-adjacent temperature = {plate[1, 1]:.6e}")
