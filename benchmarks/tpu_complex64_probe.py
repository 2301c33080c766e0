"""Where the chip's complex64 and float32 special values leave NumPy's, and why: complex
``multiply``/``square`` with an overflowing product next to an infinite one (a fused
multiply-add?), complex ``tanh``/``tan`` at large parts, ``exp`` of float32 in ulps, and the
compile and run time of npjax's exact ``exp`` rule against XLA's (issue 34).
Run on the device machine: ``python benchmarks/tpu_complex64_probe.py``."""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import npjax
from npjax._pure import _accurate

F32 = np.float32
jax.config.update("jax_enable_x64", True)


def show(title, got, want):
    got, want = np.asarray(got), np.asarray(want)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    if got.dtype.kind == "c":
        same = ((got.real == want.real) | (np.isnan(got.real) & np.isnan(want.real))) & \
               ((got.imag == want.imag) | (np.isnan(got.imag) & np.isnan(want.imag)))
    print(f"{title}: {int((~same).sum())} of {same.size} differ; got {got.ravel()[:6]} "
          f"want {want.ravel()[:6]}")


def products():
    a = np.array([-1e30 - np.inf * 1j, 1e30 + 0j, 1e30 + 1e30j], np.complex64)
    a[0] = complex(-1e30, -np.inf)
    b = np.array([1e30 + 1j, 1e30 + 0j, 1e30 - 1e30j], np.complex64)
    with np.errstate(all="ignore"):
        show("jnp.multiply c64", jax.jit(jnp.multiply)(a, b), a * b)
    s = np.array([complex(1e30, np.inf), complex(1e30, -1e30), complex(-2.5, 1e30)],
                 np.complex64)
    with np.errstate(all="ignore"):
        show("jnp.square c64", jax.jit(jnp.square)(s), np.square(s))
    x = np.array([1e30, 1e30, 3e19], F32)
    y = np.array([np.inf, 1e30, 3e19], F32)
    # real a*c - b*d with an overflowing a*c: inf - inf = nan in NumPy, -inf in one fma
    f = jax.jit(lambda p, q: p * p - q * F32(1))
    with np.errstate(all="ignore"):
        show("float32 p*p - q", f(x, y), x * x - y)
    g = jax.jit(lambda p, q: lax.sub(lax.mul(p, p), lax.mul(q, q)))
    with np.errstate(all="ignore"):
        show("float32 p*p - q*q", g(x, y), x * x - y * y)
    h = jax.jit(lambda p, q: (p * p - q * q, p * p, q * q))
    with np.errstate(all="ignore"):
        show("float32 p*p - q*q, products also out", h(x, y)[0], x * x - y * y)
    with np.errstate(all="ignore"):
        for mode in ("eager", "lazy"):
            show(f"npjax multiply c64 {mode}", npjax_call("multiply", mode)(a, b), a * b)
            show(f"npjax square c64 {mode}", npjax_call("square", mode)(s), np.square(s))
        with npjax.policy(placement="device"):
            px, py = npjax.asarray(x), npjax.asarray(y)
            show("npjax float32 p*p - q*q lazy", np.asarray(px * px - py * py), x * x - y * y)
            show("npjax.jit float32 p*p - q*q",
                 npjax.jit(lambda p, q: p * p - q * q)(px, py), x * x - y * y)


def hyperbolic():
    parts = np.array([0.0, -0.0, 1e-30, 0.5, 1.0, -2.5, 9.0, 11.0, 12.0, 50.0, 100.0, -1e30,
                      1e30, np.inf, -np.inf, np.nan], F32)
    z = np.empty((parts.size, parts.size), np.complex64)
    z.real, z.imag = parts[:, None], parts[None, :]
    z = z.ravel()
    for name in ("tanh", "tan", "exp", "expm1", "arctan", "sinh", "cosh", "sin", "cos"):
        with np.errstate(all="ignore"):
            want = getattr(np, name)(z)
        for who, fn in (("jnp", jax.jit(getattr(jnp, name))), ("npjax", npjax_call(name))):
            report(f"{who} {name}", z, np.asarray(fn(z)), want)


def npjax_call(name, mode="lazy"):
    def call(*xs):
        with npjax.policy(placement="device", mode=mode), npjax.errstate(all="ignore"):
            return np.asarray(getattr(npjax, name)(*(npjax.asarray(x) for x in xs)))
    return call


def report(title, z, got, want):
    """As tests/test_device_special_values.py: NaN where NumPy's is, else close and the
    same sign bit, each part."""
    bad = np.zeros(z.shape, bool)
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        with np.errstate(all="ignore"):
            close = (g == w) | (np.abs(g - w) <= 2e-6 * np.abs(w))
        bad |= ~np.where(np.isnan(w), np.isnan(g), close & (np.signbit(g) == np.signbit(w)))
    print(f"{title}: {int(bad.sum())} of {z.size} off:",
          [(complex(zz), complex(g), complex(w)) for zz, g, w in
           zip(z[bad][:8], got[bad][:8], want[bad][:8])])


def ulps(got, want):
    g = got.view(np.int32).astype(np.int64)
    w = want.view(np.int32).astype(np.int64)
    g, w = (np.where(v < 0, -(2**31) - v, v) for v in (g, w))
    return np.abs(g - w)


def trigonometric():
    """float32 sin, cos, tan by decade of |x| up to 3e38 (range reduction of large
    arguments: complex power's exp(y log x) reads cos and sin of such products), and the
    complex64 powers the chip's special-values run found off."""
    rng = np.random.default_rng(3)
    for lo in (0, 2, 4, 8, 16, 24, 30, 38):
        x = (10.0 ** rng.uniform(lo, lo + 1 if lo < 38 else 38.5, 4096)).astype(F32)
        x = x[np.isfinite(x)]
        for name in ("sin", "cos", "tan"):
            want = getattr(np, name)(x)
            got = np.asarray(jax.jit(getattr(jnp, name))(x))
            sign = int((np.signbit(got) != np.signbit(want)).sum())
            err = np.abs(got.astype(np.float64) - want) / np.maximum(np.abs(want), 1e-30)
            print(f"{name} |x| ~ 1e{lo}: max rel {err.max():.2e}, ulps {ulps(got, want).max()}, "
                  f"signs differ {sign} of {x.size}")
    x = np.array([-2.5 + 1j] * 3, np.complex64)
    y = np.array([1e30, -1e30 + 1j, 1e30 + 1j], np.complex64)
    with np.errstate(all="ignore"):
        show("npjax power c64", npjax_call("power")(x, y), np.power(x, y))
        w = np.log(x) * y
        show("cos, sin of y log x", np.asarray(jax.jit(jnp.cos)(w.imag)) + 1j * np.asarray(
            jax.jit(jnp.sin)(w.imag)), np.cos(w.imag) + 1j * np.sin(w.imag))


def exp_accuracy_and_cost():
    x = np.linspace(-87, 88, 2**20, dtype=F32)
    want = np.exp(x)
    for name, fn in (("XLA exp", jnp.exp), ("npjax rule _exp", _accurate._exp),
                     ("XLA exp2", jnp.exp2), ("npjax rule _exp2", _accurate._exp2)):
        f = jax.jit(fn)
        t = time.perf_counter()
        c = f.lower(x).compile()
        compile_s = time.perf_counter() - t
        got = np.asarray(c(x))
        ref = want if "2" not in name else np.exp2(x)
        u = ulps(got, ref)
        t = time.perf_counter()
        for _ in range(20):
            c(x).block_until_ready()
        run_ms = (time.perf_counter() - t) / 20 * 1e3
        print(f"{name}: max {u.max()} ulps, mean {u.mean():.2f}, rel "
              f"{np.max(np.abs(got - ref) / ref):.2e}; compile {compile_s:.2f} s, "
              f"run {run_ms:.3f} ms at 2**20")


if __name__ == "__main__":
    print(jax.devices())
    for step in (products, hyperbolic, trigonometric, exp_accuracy_and_cost):
        print(f"== {step.__name__}")
        try:
            step()
        except Exception as exc:  # one step's failure keeps the others
            print("FAILED", type(exc).__name__, str(exc)[:400])
