"""``Generator`` (``numpy.random.Generator`` on JAX or, by policy, on NumPy's stream) and
``default_rng``. The machinery it shares with ``RandomState`` is in ``_streams``,
``_bridge`` and ``_params``.
"""

from __future__ import annotations

import operator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._pure._axes import normalize_axis
from npjax._core._out import write_out
from npjax._core._ndarray import ndarray
from npjax._core._normalize import to_jax
from npjax.random import _samplers as S
from npjax.random._bridge import (from_host, held_data, key_from_seed_seq, numpy_mode, streamed,
                                  to_host)
from npjax.random._params import size_shape
from npjax.random._streams import _Streams, draw_integers


class Generator(_Streams):
    """npjax implementation of numpy.random.Generator.

    Holds NumPy's ``Generator`` on the given bit generator (the ``random="numpy"`` stream)
    and a JAX key derived from the bit generator's ``SeedSequence`` (the ``random="jax"``
    stream). Differences from NumPy: under the default policy the numbers come from
    ``jax.random`` (same seed -> same numbers in npjax, but not NumPy's numbers).
    """

    def __init__(self, bit_generator: Any) -> None:
        self._np = np.random.Generator(bit_generator)
        self._key = key_from_seed_seq(getattr(bit_generator, "seed_seq", None))

    def __repr__(self) -> str:
        return f"Generator({type(self.bit_generator).__name__}) at 0x{id(self):X}"

    @property
    def bit_generator(self) -> Any:
        """The NumPy bit generator behind the ``random="numpy"`` stream."""
        return self._np.bit_generator

    def spawn(self, n_children: int) -> list[Generator]:
        """npjax implementation of numpy.random.Generator.spawn."""
        return [Generator(bg) for bg in self._np.bit_generator.spawn(n_children)]

    @streamed
    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.random."""
        return self._draw("random", size, dtype=_float_dtype(dtype, "random"), out=out)

    @streamed
    def standard_normal(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.standard_normal."""
        return self._draw("standard_normal", size, dtype=_float_dtype(dtype, "standard_normal"),
                          out=out)

    @streamed
    def standard_exponential(self, size: Any = None, dtype: Any = np.float64,
                             method: str = "zig", out: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.standard_exponential."""
        dt = _float_dtype(dtype, "standard_exponential")
        if method not in ("zig", "inv"):
            raise ValueError(f"Unknown method: {method}")
        return self._draw("standard_exponential", size, dtype=dt, out=out)

    @streamed
    def standard_gamma(self, shape: Any, size: Any = None, dtype: Any = np.float64,
                       out: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.standard_gamma."""
        dt = _float_dtype(dtype, "standard_gamma")
        return self._draw("standard_gamma", size, ((shape, "shape", S.NON_NEGATIVE, "f"),),
                          dtype=dt, out=out)

    @streamed
    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64,
                 endpoint: bool = False) -> Any:
        """npjax implementation of numpy.random.Generator.integers."""
        return draw_integers(self, low, high, size, dtype, endpoint)

    @streamed
    def bytes(self, length: int) -> bytes:
        """npjax implementation of numpy.random.Generator.bytes."""
        n = operator.index(length)
        return np.asarray(self._run("bytes", (n,), "uint8", (), ())).tobytes()

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None,
               axis: int = 0, shuffle: bool = True) -> Any:
        """npjax implementation of numpy.random.Generator.choice."""
        return self._choice(a, size, replace, p, axis, shuffle)

    def shuffle(self, x: Any, axis: int = 0) -> None:
        """npjax implementation of numpy.random.Generator.shuffle (in place, views too)."""
        self._shuffle(x, axis)

    def permutation(self, x: Any, axis: int = 0) -> Any:
        """npjax implementation of numpy.random.Generator.permutation."""
        return self._permutation(x, axis)

    def permuted(self, x: Any, axis: Any = None, out: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.permuted."""
        data = held_data(x)
        arr = to_jax(x) if data is None else data
        if out is not None:
            if not isinstance(out, ndarray):
                raise TypeError("out must be a numpy array")
            if out._readonly:
                raise ValueError("output array is read-only")
            if out.shape != arr.shape:
                raise ValueError("out must have the same shape as x")
            if not np.can_cast(arr.dtype, out.dtype, "safe"):
                raise TypeError(f"Cannot cast array data from {arr.dtype} to {out.dtype} "
                                "according to the rule 'safe'")
        if axis is not None:
            axis = normalize_axis(axis, arr.ndim)
        if data is not None:  # (object, str; float64 on a TPU): its positions drawn as for
            # any array of its shape, its values taken on the host
            if axis is None:
                where = np.arange(data.size).reshape(data.shape)
            else:
                where = np.broadcast_to(np.arange(data.shape[axis]).reshape(
                    [-1 if i == axis else 1 for i in range(data.ndim)]), data.shape).copy()
            picks = np.asarray(self.permuted(where, axis))
            result = (data.ravel()[picks] if axis is None else
                      np.take_along_axis(data, picks, axis=axis))
            return from_host(result) if out is None else write_out(out, result, "unsafe",
                                                                   "permuted")
        if numpy_mode(self, x, out):
            if axis is None:
                idx = self._np.permuted(np.arange(arr.size).reshape(arr.shape))
                result = jnp.ravel(arr)[jax.device_put(idx)]
            else:
                base = np.arange(arr.shape[axis]).reshape(
                    [-1 if i == axis else 1 for i in range(arr.ndim)])
                idx = self._np.permuted(np.broadcast_to(base, arr.shape).copy(), axis=axis)
                result = jnp.take_along_axis(arr, jax.device_put(idx), axis=axis)
        elif axis is None:
            flat = jnp.ravel(arr)
            result = self._run("permuted", flat.shape, str(flat.dtype), (0,), (flat,))
            result = result.reshape(arr.shape)
        else:
            result = self._run("permuted", arr.shape, str(arr.dtype), (axis,), (arr,))
        if out is None:
            return ndarray._owner(result)
        return write_out(out, result, "unsafe", "permuted")

    @streamed
    def multivariate_normal(self, mean: Any, cov: Any, size: Any = None,
                            check_valid: str = "warn", tol: float = 1e-8, *,
                            method: str = "svd") -> Any:
        """npjax implementation of numpy.random.Generator.multivariate_normal."""
        return self._mvn(mean, cov, size, check_valid, tol, method)

    @streamed
    def multivariate_hypergeometric(self, colors: Any, nsample: int, size: Any = None,
                                    method: str = "marginals") -> Any:
        """npjax implementation of numpy.random.Generator.multivariate_hypergeometric.

        Differences from NumPy: both methods use sequential marginal draws."""
        if method not in ("count", "marginals"):
            raise ValueError('method must be "count" or "marginals".')
        c = np.asarray(to_host(colors))
        if c.ndim != 1:
            raise ValueError("colors must be a one-dimensional sequence of nonnegative "
                             "integers not exceeding 9223372036854775807.")
        if c.size and c.dtype.kind not in "iu":
            raise TypeError("colors must be integers")
        c = c.astype(np.int64)
        if np.any(c < 0):
            raise ValueError("colors must be a one-dimensional sequence of nonnegative "
                             "integers not exceeding 9223372036854775807.")
        n = operator.index(nsample)
        if n < 0:
            raise ValueError("nsample must be nonnegative.")
        total = int(c.sum())
        if n > total:
            raise ValueError("nsample > sum(colors)")
        if method == "count" and total > 1000000:
            raise ValueError("When method is 'count', sum(colors) must not exceed 1000000")
        shape = (() if size is None else size_shape(size)) + c.shape
        return ndarray._owner(self._run("multivariate_hypergeometric", shape, "int64", (),
                                        (jax.device_put(c), n)))


def _float_dtype(dtype: Any, fn: str) -> str:
    dt = np.dtype(dtype)
    if dt == np.float64:
        return "float64"
    if dt == np.float32:
        return "float32"
    raise TypeError(f"Unsupported dtype {dt!r} for {fn}")


def default_rng(seed: Any = None) -> Generator:
    """npjax implementation of numpy.random.default_rng."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, np.random.Generator):
        return Generator(seed.bit_generator)
    if isinstance(seed, np.random.BitGenerator):
        return Generator(seed)
    return Generator(np.random.PCG64(to_host(seed)))
