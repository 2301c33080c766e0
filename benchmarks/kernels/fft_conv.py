"""Circular convolution of a batch of signals with a filter through rfft / irfft."""

import jax
import jax.numpy as jnp

NAME, KIND = "fft_conv", "spectral"
SIZES = {"small": dict(batch=16, n=4096), "large": dict(batch=64, n=1 << 16)}
STATIC = ()


def setup(rng, batch, n):
    return rng.standard_normal((batch, n)), rng.standard_normal(n) * (rng.random(n) < 0.01)


def kernel(np, x, h):
    n = x.shape[1]
    spec = np.fft.rfft(x, axis=1)
    spec *= np.fft.rfft(h)
    y = np.fft.irfft(spec, n=n, axis=1)
    y -= y.mean(axis=1, keepdims=True)
    return y


@jax.jit
def reference(x, h):
    n = x.shape[1]
    y = jnp.fft.irfft(jnp.fft.rfft(x, axis=1) * jnp.fft.rfft(h), n=n, axis=1)
    return y - y.mean(axis=1, keepdims=True)
