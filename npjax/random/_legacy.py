"""``RandomState`` (NumPy's legacy API) and the global functions bound to a hidden instance.

Both always draw NumPy's streams (NEP 19 freezes them), whatever the ``random`` policy.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import jax
import numpy as np

from npjax._core._ndarray import ndarray
from npjax._runtime._errstate import _stacklevel
from npjax.random import _samplers as S
from npjax.random._bridge import key_from_seed_seq, numpy_mode, streamed
from npjax.random._streams import _Streams, draw_integers

_STATE_TAG = "npjax-threefry"


def _key_for_seed(seed: Any) -> jax.Array:
    if isinstance(seed, np.random.BitGenerator):
        return key_from_seed_seq(getattr(seed, "seed_seq", None))
    if seed is None:
        return key_from_seed_seq(None)
    entropy = np.asarray(seed).astype(np.uint64).ravel().tolist()
    return key_from_seed_seq(np.random.SeedSequence(entropy if len(entropy) != 1 else
                                                    entropy[0]))


def _key_for_state(state: Any) -> jax.Array:
    """A key determined by a NumPy state (so ``set_state(s)`` repeats the JAX stream too)."""
    if isinstance(state, dict):
        inner = state.get("state", {})
        words = np.asarray(inner.get("key", [0]), np.uint64).ravel().tolist()
        words.append(int(inner.get("pos", 0)))
    else:
        words = np.asarray(state[1], np.uint64).ravel().tolist() + [int(state[2])]
    return key_from_seed_seq(np.random.SeedSequence(words))


class RandomState(_Streams):
    """npjax implementation of numpy.random.RandomState: NumPy's own streams under every
    policy (NumPy promises the legacy streams never change, NEP 19; scripts seeded with
    ``np.random.seed`` print NumPy's numbers). Draws run on the host MT19937 and the results
    are placed on the device. ``set_state`` also accepts the ``("npjax-threefry", key,
    numpy_state)`` tuples older npjax versions returned."""

    _legacy = True

    def __init__(self, seed: Any = None) -> None:
        self._np = np.random.RandomState(seed)
        self._key = _key_for_seed(seed)

    def __repr__(self) -> str:
        return f"RandomState(MT19937) at 0x{id(self):X}"

    def seed(self, seed: Any = None) -> None:
        """npjax implementation of numpy.random.RandomState.seed (reseeds both streams)."""
        self._np.seed(seed)
        self._key = _key_for_seed(seed)

    def get_state(self, legacy: bool = True) -> Any:
        """npjax implementation of numpy.random.RandomState.get_state."""
        state = self._np.get_state(legacy=legacy)
        if numpy_mode(self):
            if isinstance(state, tuple):  # the key as an npjax (host) array, as NumPy's
                return (state[0], ndarray._owner(state[1]), *state[2:])
            return state
        return (_STATE_TAG, np.asarray(self._key), state)

    def set_state(self, state: Any) -> None:
        """npjax implementation of numpy.random.RandomState.set_state."""
        if isinstance(state, tuple) and len(state) == 3 and state[0] == _STATE_TAG:
            self._np.set_state(state[2])
            self._key = jax.device_put(np.asarray(state[1], np.uint32))
            return
        self._np.set_state(state)
        self._key = _key_for_state(state)

    # --- uniform floats and normals -------------------------------------------------------

    @streamed
    def random_sample(self, size: Any = None) -> Any:
        """npjax implementation of numpy.random.RandomState.random_sample."""
        return self._draw("random", size)

    @streamed
    def random(self, size: Any = None) -> Any:
        """npjax implementation of numpy.random.RandomState.random."""
        return self._draw("random", size)

    @streamed
    def rand(self, *args: int) -> Any:
        """npjax implementation of numpy.random.RandomState.rand."""
        return self._draw("random", args if args else None)

    @streamed
    def randn(self, *args: int) -> Any:
        """npjax implementation of numpy.random.RandomState.randn."""
        return self._draw("standard_normal", args if args else None)

    @streamed
    def standard_normal(self, size: Any = None) -> Any:
        """npjax implementation of numpy.random.RandomState.standard_normal."""
        return self._draw("standard_normal", size)

    @streamed
    def standard_exponential(self, size: Any = None) -> Any:
        """npjax implementation of numpy.random.RandomState.standard_exponential."""
        return self._draw("standard_exponential", size)

    @streamed
    def standard_gamma(self, shape: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.RandomState.standard_gamma."""
        return self._draw("standard_gamma", size, ((shape, "shape", S.NON_NEGATIVE, "f"),))

    # --- integers -------------------------------------------------------------------------

    @streamed
    def randint(self, low: Any, high: Any = None, size: Any = None, dtype: Any = int) -> Any:
        """npjax implementation of numpy.random.RandomState.randint."""
        return draw_integers(self, low, high, size, dtype, False)

    @streamed
    def random_integers(self, low: Any, high: Any = None, size: Any = None) -> Any:
        """npjax implementation of numpy.random.RandomState.random_integers (deprecated)."""
        if high is None:
            warnings.warn(f"This function is deprecated. Please call randint(1, {low} + 1) "
                          "instead", DeprecationWarning, stacklevel=_stacklevel())
            high, low = low, 1
        else:
            warnings.warn(f"This function is deprecated. Please call randint({low}, {high} + 1) "
                          "instead", DeprecationWarning,
                          stacklevel=_stacklevel())
        return draw_integers(self, low, high, size, "l", True)

    @streamed
    def tomaxint(self, size: Any = None) -> Any:
        """npjax implementation of numpy.random.RandomState.tomaxint."""
        return draw_integers(self, 0, int(np.iinfo(np.int64).max), size, int, True)

    @streamed
    def bytes(self, length: int) -> bytes:
        """npjax implementation of numpy.random.RandomState.bytes."""
        n = operator.index(length)
        return np.asarray(self._run("bytes", (n,), "uint8", (), ())).tobytes()

    # --- sequences ------------------------------------------------------------------------

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None) -> Any:
        """npjax implementation of numpy.random.RandomState.choice."""
        return self._choice(a, size, replace, p, 0, True)

    def shuffle(self, x: Any) -> None:
        """npjax implementation of numpy.random.RandomState.shuffle (in place, views too)."""
        self._shuffle(x, 0)

    def permutation(self, x: Any) -> Any:
        """npjax implementation of numpy.random.RandomState.permutation."""
        return self._permutation(x, 0)

    @streamed
    def multivariate_normal(self, mean: Any, cov: Any, size: Any = None,
                            check_valid: str = "warn", tol: float = 1e-8) -> Any:
        """npjax implementation of numpy.random.RandomState.multivariate_normal."""
        return self._mvn(mean, cov, size, check_valid, tol, "svd")


_rand = RandomState()


def seed(seed: Any = None) -> None:
    """npjax implementation of numpy.random.seed."""
    _rand.seed(seed)


def get_state(legacy: bool = True) -> Any:
    """npjax implementation of numpy.random.get_state."""
    return _rand.get_state(legacy)


def set_state(state: Any) -> None:
    """npjax implementation of numpy.random.set_state."""
    _rand.set_state(state)


def get_bit_generator() -> Any:
    """npjax implementation of numpy.random.get_bit_generator (the NumPy bit generator)."""
    return _rand._np._bit_generator


def set_bit_generator(bitgen: Any) -> None:
    """npjax implementation of numpy.random.set_bit_generator."""
    _rand._np = np.random.RandomState(bitgen)
    _rand._key = _key_for_seed(bitgen)


def sample(size: Any = None) -> Any:
    """npjax implementation of numpy.random.sample."""
    return _rand.random_sample(size)


def ranf(size: Any = None) -> Any:
    """npjax implementation of numpy.random.ranf."""
    return _rand.random_sample(size)


_BOUND = ("beta", "binomial", "bytes", "chisquare", "choice", "dirichlet", "exponential", "f",
          "gamma", "geometric", "gumbel", "hypergeometric", "laplace", "logistic", "lognormal",
          "logseries", "multinomial", "multivariate_normal", "negative_binomial",
          "noncentral_chisquare", "noncentral_f", "normal", "pareto", "permutation",
          "poisson", "power", "rand", "randint", "randn", "random", "random_integers",
          "random_sample", "rayleigh", "shuffle", "standard_cauchy", "standard_exponential",
          "standard_gamma", "standard_normal", "standard_t", "triangular", "uniform",
          "vonmises", "wald", "weibull", "zipf")


def _bound(name: str):
    def fn(*args: Any, **kwargs: Any) -> Any:
        return getattr(_rand, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"npjax implementation of numpy.random.{name} (hidden global RandomState)."
    return fn


globals().update({name: _bound(name) for name in _BOUND})

__all__ = ["RandomState", "get_bit_generator", "get_state", "ranf", "sample", "seed",
           "set_bit_generator", "set_state", *_BOUND]
