"""The two streams' seeds and the bridge to the host NumPy stream: the JAX key derived from a
``SeedSequence``, ``numpy_mode`` (which stream a draw uses), host arguments and placed
results for NumPy's generator, and the ``streamed`` method decorator."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from npjax._calls._dispatch import write_out
from npjax._core._ndarray import ndarray
from npjax._core._normalize import to_jax
from npjax._core._placement import place_made
from npjax._runtime._context import current


# --- keys ------------------------------------------------------------------------------------

def key_from_seed_seq(seq: Any) -> jax.Array:
    """A threefry key (``uint32[2]``) derived from a ``SeedSequence`` (fresh entropy if none).

    It starts as host data (the first draw moves it to the device), so that creating a
    generator, and importing npjax with its global one, starts no JAX backend: that keeps
    ``npjax.distributed.initialize`` possible after ``import npjax``."""
    if not isinstance(seq, np.random.SeedSequence):
        seq = np.random.SeedSequence()
    return seq.generate_state(2, np.uint32)


# --- the numpy-policy bridge -----------------------------------------------------------------

def numpy_mode(gen: Any = None) -> bool:
    """Whether ``gen`` draws from NumPy's stream: always for the legacy ``RandomState`` (NumPy
    keeps its streams forever, NEP 19), and for a ``Generator`` under ``random="numpy"``."""
    return getattr(gen, "_legacy", False) or current().random == "numpy"


def to_host(x: Any) -> Any:
    """Arguments for the host NumPy generator: npjax/JAX arrays become NumPy arrays."""
    if isinstance(x, ndarray):
        host = np.asarray(x)
        return host[()] if x._scalar else host
    if isinstance(x, jax.Array):
        return np.asarray(x)
    if isinstance(x, list | tuple) and any(isinstance(i, ndarray | jax.Array) for i in x):
        return type(x)(to_host(i) for i in x)
    return x


def from_host(result: Any) -> Any:
    """A host NumPy draw placed as any new array (``place_made``): a host array (NumPy's
    scalar for a scalar) where the policy keeps it on the host, else on the device (an npjax
    scalar for a scalar). Draws ignore their inputs' kinds, as ``_host_draws`` does."""
    return place_made(result)


def _check_out_flags(out: Any) -> None:
    if not isinstance(out, ndarray):
        raise TypeError("out must be an npjax array")
    if not out.flags.c_contiguous or out._readonly:
        raise ValueError("Supplied output array is not contiguous, writable or aligned.")


def call_numpy(np_gen: Any, name: str, args: tuple, kwargs: dict) -> Any:
    """Run ``np_gen.name(*args, **kwargs)`` on host arguments and place the result."""
    args = tuple(to_host(a) for a in args)
    kwargs = {k: to_host(v) for k, v in kwargs.items()}
    return from_host(getattr(np_gen, name)(*args, **kwargs))


def streamed(fn: Callable) -> Callable:
    """Method decorator: where ``numpy_mode(self)``, run NumPy's method of the host generator."""
    name = fn.__name__

    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        if numpy_mode(self):
            out = kwargs.get("out")
            if isinstance(out, ndarray):
                _check_out_flags(out)
                twin = np.empty(out.shape, out.dtype)
                kwargs = dict(kwargs, out=twin)
                call_numpy(self._np, name, args, kwargs)
                return write_out(out, to_jax(twin), "no", name)
            return call_numpy(self._np, name, args, kwargs)
        return fn(self, *args, **kwargs)

    return method
