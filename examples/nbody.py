"""Gravitational n-body simulation with a leapfrog (kick-drift-kick) integrator.

Bodies start on a ring with small deterministic perturbations (no random numbers); the script
reports total energy and momentum before and after, which the integrator should conserve well.
Run: python nbody.py [steps]
"""

import sys

import numpy as np

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
n = 16
G = 1.0
softening = 0.1
dt = 0.001

i = np.arange(n)
phase = 2 * np.pi * i / n
mass = 1.0 + 0.5 * np.sin(3.0 * i)
pos = np.stack([np.cos(phase), np.sin(phase), 0.1 * np.sin(2 * phase)], axis=1)
vel = 0.8 * np.stack([-np.sin(phase), np.cos(phase), np.zeros(n)], axis=1)
vel -= (mass[:, None] * vel).sum(axis=0) / mass.sum()  # zero total momentum


def acceleration(pos):
    diff = pos[None, :, :] - pos[:, None, :]  # r_j - r_i, (n, n, 3)
    dist2 = (diff ** 2).sum(axis=2) + softening ** 2
    inv_d3 = dist2 ** -1.5
    return G * (diff * (mass[None, :, None] * inv_d3[:, :, None])).sum(axis=1)


def energy(pos, vel):
    kinetic = 0.5 * (mass * (vel ** 2).sum(axis=1)).sum()
    diff = pos[None, :, :] - pos[:, None, :]
    dist = np.sqrt((diff ** 2).sum(axis=2) + softening ** 2)
    pair = G * mass[:, None] * mass[None, :] / dist
    potential = -0.5 * (pair.sum() - (G * mass ** 2 / softening).sum())  # drop i == j terms
    return kinetic + potential


e0 = energy(pos, vel)
acc = acceleration(pos)
for _ in range(steps):
    vel += 0.5 * dt * acc
    pos += dt * vel
    acc = acceleration(pos)
    vel += 0.5 * dt * acc

e1 = energy(pos, vel)
momentum = (mass[:, None] * vel).sum(axis=0)
print(f"{n} bodies, {steps} steps of dt = {dt}")
print(f"energy before: {e0!r}")
print(f"energy after:  {e1!r}")
print(f"relative energy change: {abs((e1 - e0) / e0):.3e}")
print("total momentum:", np.abs(momentum).max() < 1e-12)
print("centre of mass:", (mass[:, None] * pos).sum(axis=0) / mass.sum())
print("body 0 position:", pos[0])
