"""``_Streams``: what ``Generator`` and ``RandomState`` share. The device draw (one compiled
call per kernel, small elementwise draws bucketed), the distributions both APIs have, the
permutation helpers, and ``draw_integers``."""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from npjax._pure._capabilities import route
from npjax._pure._impl import linalg as _linalg_kernels
from npjax._runtime._errstate import _stacklevel
from npjax._pure._axes import normalize_axis
from npjax._core._out import write_out
from npjax._core._host_only import host_only
from npjax._core._ndarray import ndarray
from npjax._core._normalize import place, to_jax
from npjax._execution._lazy_cold import call
from npjax._runtime import _stats
from npjax._runtime._context import current
from npjax.random import _samplers as S
from npjax.random._bridge import (_check_out_flags, from_host, held_data, numpy_mode, streamed,
                                  to_host)
from npjax.random._params import _broadcast_size, _device_arg, _scalar_value, as_param, size_shape

_F64 = "float64"
_BUCKET_MAX = 1 << 14

@functools.lru_cache(maxsize=512)
def _cutter(bucket: int, shape: tuple) -> Callable:
    n = math.prod(shape)
    return jax.jit(lambda flat: lax.slice(flat, (0,), (n,)).reshape(shape))


class _Streams:
    """What ``Generator`` and ``RandomState`` share: the two streams and the device draw.

    ``_np`` is the host NumPy generator (used under ``random="numpy"``); ``_key`` is the JAX
    key (a ``uint32[2]`` jax.Array, used under ``random="jax"``), replaced after every draw.
    """

    _legacy = False
    _np: Any
    _key: jax.Array

    # --- the device draw ------------------------------------------------------------------

    def _run(self, name: str, shape: tuple, dtype: str, static: tuple, args: tuple,
             elementwise: bool = False) -> jax.Array:
        """One compiled draw; the key advances. Small elementwise draws with scalar
        parameters are drawn at a power-of-two length (>= 16) and cut to ``shape``, so that
        they share a few compiled kernels instead of compiling one per shape."""
        _stats.calls["random." + name] += 1  # a device draw (the report's placement line)
        key = self._key
        policy = current()
        if policy.device is not None:
            key = place(key, policy)
        n = math.prod(shape)
        if elementwise and n <= _BUCKET_MAX and not any(isinstance(a, jax.Array) for a in args):
            bucket = max(16, 1 << (n - 1).bit_length())
            self._key, flat = call(S.kernel(name, (bucket,), dtype, static), (key, *args))
            return _cutter(bucket, shape)(flat)
        # (float64 draws run on the CPU backend where the accelerator cannot hold float64)
        self._key, value = call(S.kernel(name, shape, dtype, static), (key, *args))
        return value

    def _draw(self, name: str, size: Any, params: tuple = (), *, dtype: str = _F64,
              pytype: type = float, static: tuple = (), out: Any = None) -> Any:
        """Check ``params`` ((value, name, constraint, kind), ...) as NumPy and draw."""
        arrays = [as_param(v, kind) for v, _, _, kind in params]
        scalar = all(a.ndim == 0 for a in arrays)
        if out is not None:
            _check_out_flags(out)
            if out.dtype != np.dtype(dtype):
                raise TypeError(f"Supplied output array has the wrong type. Expected "
                                f"{np.dtype(dtype)}, got {out.dtype}")
            if size is not None and size_shape(size) != out.shape:
                raise ValueError("size must match out.shape when used together")
        if scalar:
            values = [_scalar_value(a, kind) for a, (_, _, _, kind) in zip(arrays, params)]
            for v, (_, pname, cons, _) in zip(values, params):
                if cons != S.NONE:
                    S.check_scalar(float(v), pname, cons)
            if size is None and out is None:
                return pytype(self._run(name, (), dtype, static, tuple(values), True))
            shape = out.shape if out is not None else size_shape(size)
            args = tuple(values)
        else:
            for a, (_, pname, cons, _) in zip(arrays, params):
                if cons != S.NONE:
                    S.check_array(a, pname, cons)
            shapes = [a.shape for a in arrays]
            if out is not None:
                shape = _broadcast_size(out.shape, shapes)
            else:
                shape = _broadcast_size(size, shapes)
            args = tuple(_device_arg(a) for a in arrays)
        value = self._run(name, shape, dtype, static, args, True)
        if out is not None:
            return write_out(out, value, "no", name)
        return ndarray._owner(value)

    def _cons(self, name: str, default: int) -> int:
        return _LEGACY_CONS.get(name, default) if self._legacy else default

    # --- distributions shared by Generator and RandomState --------------------------------

    @streamed
    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.normal."""
        return self._draw("normal", size, ((loc, "loc", S.NONE, "f"),
                                           (scale, "scale", S.NON_NEGATIVE, "f")))

    @streamed
    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.uniform."""
        lo, hi = as_param(low), as_param(high)
        span = (jnp if isinstance(lo, jax.Array) or isinstance(hi, jax.Array) else np)
        with np.errstate(all="ignore"):
            rng = span.subtract(hi, lo)
            if not bool(span.all(span.isfinite(rng) | span.isnan(rng))):
                raise OverflowError("Range exceeds valid bounds")
        return self._draw("uniform", size, ((lo, "low", S.NONE, "f"),
                                            (hi, "high", S.NONE, "f")))

    @streamed
    def exponential(self, scale: Any = 1.0, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.exponential."""
        return self._draw("exponential", size, ((scale, "scale", S.NON_NEGATIVE, "f"),))

    @streamed
    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.gamma."""
        return self._draw("gamma", size, ((shape, "shape", S.NON_NEGATIVE, "f"),
                                          (scale, "scale", S.NON_NEGATIVE, "f")))

    @streamed
    def beta(self, a: Any, b: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.beta."""
        return self._draw("beta", size, ((a, "a", S.POSITIVE, "f"), (b, "b", S.POSITIVE, "f")))

    @streamed
    def chisquare(self, df: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.chisquare."""
        return self._draw("chisquare", size, ((df, "df", S.POSITIVE, "f"),))

    @streamed
    def noncentral_chisquare(self, df: Any, nonc: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.noncentral_chisquare."""
        return self._draw("noncentral_chisquare", size, ((df, "df", S.POSITIVE, "f"),
                                                         (nonc, "nonc", S.NON_NEGATIVE, "f")))

    @streamed
    def f(self, dfnum: Any, dfden: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.f."""
        return self._draw("f", size, ((dfnum, "dfnum", S.POSITIVE, "f"),
                                      (dfden, "dfden", S.POSITIVE, "f")))

    @streamed
    def noncentral_f(self, dfnum: Any, dfden: Any, nonc: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.noncentral_f."""
        return self._draw("noncentral_f", size, ((dfnum, "dfnum", S.POSITIVE, "f"),
                                                 (dfden, "dfden", S.POSITIVE, "f"),
                                                 (nonc, "nonc", S.NON_NEGATIVE, "f")))

    @streamed
    def gumbel(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.gumbel."""
        return self._draw("gumbel", size, ((loc, "loc", S.NONE, "f"),
                                           (scale, "scale", S.NON_NEGATIVE, "f")))

    @streamed
    def laplace(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.laplace."""
        return self._draw("laplace", size, ((loc, "loc", S.NONE, "f"),
                                            (scale, "scale", S.NON_NEGATIVE, "f")))

    @streamed
    def logistic(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.logistic."""
        return self._draw("logistic", size, ((loc, "loc", S.NONE, "f"),
                                             (scale, "scale", S.NON_NEGATIVE, "f")))

    @streamed
    def lognormal(self, mean: Any = 0.0, sigma: Any = 1.0, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.lognormal."""
        return self._draw("lognormal", size, ((mean, "mean", S.NONE, "f"),
                                              (sigma, "sigma", S.NON_NEGATIVE, "f")))

    @streamed
    def pareto(self, a: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.pareto."""
        return self._draw("pareto", size, ((a, "a", S.POSITIVE, "f"),))

    @streamed
    def power(self, a: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.power."""
        return self._draw("power", size, ((a, "a", S.POSITIVE, "f"),))

    @streamed
    def rayleigh(self, scale: Any = 1.0, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.rayleigh."""
        return self._draw("rayleigh", size, ((scale, "scale", S.NON_NEGATIVE, "f"),))

    @streamed
    def standard_cauchy(self, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.standard_cauchy."""
        return self._draw("standard_cauchy", size)

    @streamed
    def standard_t(self, df: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.standard_t."""
        return self._draw("standard_t", size, ((df, "df", S.POSITIVE, "f"),))

    @streamed
    def triangular(self, left: Any, mode: Any, right: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.triangular."""
        lo, mo, hi = as_param(left), as_param(mode), as_param(right)
        xp = jnp if any(isinstance(v, jax.Array) for v in (lo, mo, hi)) else np
        if bool(xp.any(xp.greater(lo, mo))):
            raise ValueError("left > mode")
        if bool(xp.any(xp.greater(mo, hi))):
            raise ValueError("mode > right")
        if bool(xp.any(xp.equal(lo, hi))):
            raise ValueError("left == right")
        return self._draw("triangular", size, ((lo, "left", S.NONE, "f"),
                                               (mo, "mode", S.NONE, "f"),
                                               (hi, "right", S.NONE, "f")))

    @streamed
    def vonmises(self, mu: Any, kappa: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.vonmises."""
        return self._draw("vonmises", size, ((mu, "mu", S.NONE, "f"),
                                             (kappa, "kappa", S.NON_NEGATIVE, "f")))

    @streamed
    def wald(self, mean: Any, scale: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.wald."""
        return self._draw("wald", size, ((mean, "mean", S.POSITIVE, "f"),
                                         (scale, "scale", S.POSITIVE, "f")))

    @streamed
    def weibull(self, a: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.weibull."""
        return self._draw("weibull", size, ((a, "a", S.NON_NEGATIVE, "f"),))

    @streamed
    def binomial(self, n: Any, p: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.binomial."""
        return self._draw("binomial", size, ((n, "n", S.NON_NEGATIVE, "i"),
                                             (p, "p", S.BOUNDED_0_1, "f")),
                          dtype="int64", pytype=int)

    @streamed
    def negative_binomial(self, n: Any, p: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.negative_binomial."""
        return self._draw("negative_binomial", size, (
            (n, "n", self._cons("nb_n", S.POSITIVE_NOT_NAN), "f"),
            (p, "p", self._cons("nb_p", S.BOUNDED_GT_0_1), "f")), dtype="int64", pytype=int)

    @streamed
    def poisson(self, lam: Any = 1.0, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.poisson."""
        return self._draw("poisson", size, ((lam, "lam", self._cons("poisson", S.POISSON),
                                             "f"),), dtype="int64", pytype=int)

    @streamed
    def geometric(self, p: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.geometric."""
        return self._draw("geometric", size, ((p, "p", S.BOUNDED_GT_0_1, "f"),),
                          dtype="int64", pytype=int)

    @streamed
    def logseries(self, p: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.logseries."""
        return self._draw("logseries", size, ((p, "p", self._cons("logseries",
                                                                  S.BOUNDED_LT_0_1), "f"),),
                          dtype="int64", pytype=int)

    @streamed
    def zipf(self, a: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.zipf."""
        return self._draw("zipf", size, ((a, "a", S.GT_1, "f"),), dtype="int64", pytype=int)

    @streamed
    def hypergeometric(self, ngood: Any, nbad: Any, nsample: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.hypergeometric.

        Differences from NumPy: sequential sampling, time grows with ``min(nsample,
        ngood + nbad - nsample)``."""
        g, b, n = as_param(ngood, "i"), as_param(nbad, "i"), as_param(nsample, "i")
        for value, pname in ((g, "ngood"), (b, "nbad"), (n, "nsample")):
            cons = S.GTE_1 if (self._legacy and pname == "nsample") else S.NON_NEGATIVE
            if value.ndim == 0:
                S.check_scalar(float(value), pname, cons)
            else:
                S.check_array(value, pname, cons)
        xp = jnp if any(isinstance(v, jax.Array) for v in (g, b, n)) else np
        if not self._legacy and bool(xp.any((g >= 10**9) | (b >= 10**9))):
            raise ValueError("both ngood and nbad must be less than 1000000000")
        if bool(xp.any(xp.less(xp.add(g, b), n))):
            raise ValueError("ngood + nbad < nsample")
        return self._draw("hypergeometric", size, ((g, "ngood", S.NONE, "i"),
                                                   (b, "nbad", S.NONE, "i"),
                                                   (n, "nsample", S.NONE, "i")),
                          dtype="int64", pytype=int)

    @streamed
    def dirichlet(self, alpha: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.dirichlet."""
        arr = as_param(alpha)
        if arr.ndim != 1:
            raise ValueError("object of too small depth for desired array" if arr.ndim == 0
                             else "alpha must be 1-dimensional")
        xp = jnp if isinstance(arr, jax.Array) else np
        if self._legacy:
            if bool(xp.any(xp.less_equal(arr, 0))):
                raise ValueError("alpha <= 0")
        else:
            if bool(xp.any(xp.less(arr, 0))):
                raise ValueError("alpha < 0")
        shape = (() if size is None else size_shape(size)) + arr.shape
        return ndarray._owner(self._run("dirichlet", shape, _F64, (), (_device_arg(arr),)))

    @streamed
    def multinomial(self, n: Any, pvals: Any, size: Any = None) -> Any:
        """npjax implementation of numpy.random.Generator.multinomial."""
        p = as_param(pvals)
        if isinstance(p, jax.Array):
            p = np.asarray(p)
        if p.ndim == 0:
            raise ValueError("pvals must have at least 1 dimension")
        if self._legacy and p.ndim != 1:
            raise ValueError("pvals must be a 1-d sequence")
        if np.any(p < 0) or np.any(p > 1) or np.any(np.isnan(p)):
            raise ValueError("pvals < 0, pvals > 1 or pvals contains NaNs")
        if np.any(np.sum(p[..., :-1], axis=-1) > 1.0 + 1e-12):
            raise ValueError("sum(pvals[:-1]) > 1.0")
        nn = as_param(n, "i")
        if bool(np.any(np.asarray(nn) < 0)):
            raise ValueError("n < 0")
        batch = np.broadcast_shapes(np.shape(nn), p.shape[:-1])
        if size is not None:
            size = size_shape(size)
            try:
                ok = np.broadcast_shapes(size, batch) == size
            except ValueError:
                ok = False
            if not ok:
                raise ValueError(f"Output size {size} is not compatible with broadcast "
                                 f"dimensions of inputs {batch}.")
            batch = size
        shape = tuple(batch) + p.shape[-1:]
        return ndarray._owner(self._run("multinomial", shape, "int64", (),
                                        (_device_arg(nn), _device_arg(p))))

    def _mvn(self, mean: Any, cov: Any, size: Any, check_valid: str, tol: float,
             method: str) -> Any:
        m, c = as_param(mean), as_param(cov)
        m, c = jnp.asarray(m), jnp.asarray(c)
        if m.ndim != 1:
            raise ValueError("mean must be 1 dimensional")
        if c.ndim != 2 or c.shape[0] != c.shape[1]:
            raise ValueError("cov must be 2 dimensional and square")
        if m.shape[0] != c.shape[0]:
            raise ValueError("mean and cov must have same length")
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError("method must be one of {'eigh', 'svd', 'cholesky'}")
        factor, psd = _mvn_factor(c, float(tol), method, check_valid != "ignore")
        if check_valid != "ignore" and method != "cholesky" and not bool(psd):
            if check_valid == "warn":
                import warnings
                warnings.warn("covariance is not symmetric positive-semidefinite.",
                              RuntimeWarning, stacklevel=_stacklevel())
            else:
                raise ValueError("covariance is not symmetric positive-semidefinite.")
        shape = (() if size is None else size_shape(size)) + m.shape
        return ndarray._owner(self._run("multivariate_normal", shape, _F64, (), (m, factor)))

    # --- shared permutation helpers -------------------------------------------------------

    def _index_perm(self, n: int, like: Any = None) -> Any:
        """A permutation of ``range(n)`` from the current stream (host NumPy or device) for
        permuting ``like``."""
        if numpy_mode(self, like, size=n):
            return jax.device_put(self._np.permutation(n))
        return self._run("permutation_index", (n,), "int64", (), ())

    def _shuffle(self, x: Any, axis: int) -> None:
        if isinstance(x, ndarray) and host_only(x):  # object, str...: its NumPy data in place
            x = x._host()
        if isinstance(x, ndarray):
            if x.ndim == 0:
                raise TypeError("len() of unsized object")
            axis = normalize_axis(axis, x.ndim)
            if x._readonly:
                raise ValueError("assignment destination is read-only")
            idx = self._index_perm(x.shape[axis], x)
            x._write(jnp.take(x._read(), idx, axis=axis))
            return
        if isinstance(x, np.ndarray) or hasattr(x, "__setitem__"):
            if numpy_mode(self, x):
                self._np.shuffle(x) if self._legacy else self._np.shuffle(x, axis=axis)
                return
            if isinstance(x, np.ndarray):
                if x.ndim == 0:
                    raise TypeError("len() of unsized object")
                axis = normalize_axis(axis, x.ndim)
                idx = np.asarray(self._index_perm(x.shape[axis], x))
                x[...] = np.take(x, idx, axis=axis)
                return
            if axis != 0:
                raise NotImplementedError("Axis argument is only supported on ndarray objects")
            idx = np.asarray(self._index_perm(len(x), x))
            items = [x[int(i)] for i in idx]
            for i, item in enumerate(items):
                x[i] = item
            return
        raise TypeError(f"'{type(x).__name__}' object does not support item assignment")

    def _permutation(self, x: Any, axis: int) -> Any:
        if isinstance(x, int | np.integer):
            if numpy_mode(self, size=max(int(x), 0)):
                return from_host(self._np.permutation(x))
            n = max(int(x), 0)
            return ndarray._owner(self._run("permutation_index", (n,), "int64", (), ()))
        data = held_data(x)
        if data is not None:  # object, str...: NumPy's take of its data by a drawn permutation
            if not self._legacy:
                axis = normalize_axis(axis, data.ndim)
            if data.ndim < 1:
                raise IndexError("x must be an integer or at least 1-dimensional")
            axis = normalize_axis(axis, data.ndim)
            idx = np.asarray(self._index_perm(data.shape[axis], x))
            return from_host(np.take(data, idx, axis=axis))
        arr = to_jax(x)
        if not self._legacy:
            axis = normalize_axis(axis, arr.ndim)
        if arr.ndim < 1:
            raise IndexError("x must be an integer or at least 1-dimensional")
        axis = normalize_axis(axis, arr.ndim)
        idx = self._index_perm(arr.shape[axis], x)
        return ndarray._owner(jnp.take(arr, idx, axis=axis))

    def _choice(self, a: Any, size: Any, replace: bool, p: Any, axis: int,
                shuffle: bool) -> Any:
        if numpy_mode(self, a, p, size=size):
            host = to_host(a)
            if self._legacy:
                result = self._np.choice(host, size, replace, to_host(p))
            else:
                result = self._np.choice(host, size, replace, to_host(p), axis, shuffle)
            return from_host(result)
        data = held_data(a)
        if data is not None and data.ndim:  # object, str...: NumPy's take of drawn positions
            if self._legacy and data.ndim != 1:
                raise ValueError("a must be 1-dimensional")
            at = normalize_axis(axis, data.ndim)
            if data.shape[at] == 0 and (size is None or math.prod(size_shape(size)) != 0):
                raise ValueError("a cannot be empty unless no samples are taken")
            picks = self._choice(data.shape[at], size, replace, p, 0, shuffle)
            return from_host(np.take(data, np.asarray(picks), axis=at))
        arr = None
        if data is not None:  # (a 0-d one: a population size, read as NumPy reads it)
            a = data[()]
        elif isinstance(a, ndarray | jax.Array):
            arr = to_jax(a)
        else:
            host = np.asarray(a)
            if host.ndim:
                arr = to_jax(host)
        if arr is None or arr.ndim == 0:
            try:
                pop_size = operator.index((a if arr is None else np.asarray(arr)).item()
                                          if hasattr(a, "item") or arr is not None else a)
            except TypeError:  # (2.5: NumPy's error)
                raise ValueError(f"a must be a sequence or an integer, not {type(a)}"
                                 ) from None
            if pop_size <= 0 and (size is None or math.prod(size_shape(size)) != 0):
                raise ValueError("a must be a positive integer unless no samples are taken")
            arr = None
        else:
            if self._legacy and arr.ndim != 1:
                raise ValueError("a must be 1-dimensional")
            axis = normalize_axis(axis, arr.ndim)
            pop_size = arr.shape[axis]
            if pop_size == 0 and (size is None or math.prod(size_shape(size)) != 0):
                raise ValueError("a cannot be empty unless no samples are taken")
        pp = None
        if p is not None:
            pp = as_param(p)
            if isinstance(pp, jax.Array):
                pp = np.asarray(pp)
            raw = np.asarray(p) if not isinstance(p, ndarray) else np.asarray(p)
            atol = max(np.sqrt(np.finfo(np.float64).eps),
                       np.sqrt(np.finfo(raw.dtype).eps) if raw.dtype.kind == "f" else 0)
            if pp.ndim != 1:
                raise ValueError("p must be 1-dimensional")
            if pp.size != pop_size:
                raise ValueError("a and p must have same size")
            if np.any(np.isnan(pp)):
                raise ValueError("Probabilities contain NaN")
            if np.any(pp < 0):
                raise ValueError("probabilities are not non-negative")
            if abs(float(np.sum(pp)) - 1.0) > atol:
                raise ValueError("probabilities do not sum to 1")
        shape = () if size is None else size_shape(size)
        count = math.prod(shape)
        if not replace:
            if count > pop_size:
                raise ValueError("Cannot take a larger sample than population when "
                                 "replace is False")
            if pp is not None and np.count_nonzero(pp > 0) < count:
                raise ValueError("Fewer non-zero entries in p than size")
        if pp is not None:
            idx = self._run("choice_p", shape, "int64", (bool(replace),), (_device_arg(pp),))
        elif replace:
            idx = self._run("choice_uniform", shape, "int64", (), (pop_size,), True)
        else:
            idx = self._run("choice_noreplace", shape, "int64", (pop_size,), ())
        if arr is None:
            return int(idx) if size is None else ndarray._owner(idx)
        result = jnp.take(arr, idx, axis=axis)
        return ndarray._owner(result, size is None and result.ndim == 0)


_LEGACY_CONS = {"nb_n": S.POSITIVE, "nb_p": S.BOUNDED_0_1, "poisson": S.LEGACY_POISSON,
                "logseries": S.BOUNDED_LT_0_1}


@functools.lru_cache(maxsize=64)
def _mvn_kernel(method: str, check: bool) -> Callable:
    def factor(cov, tol):
        if method == "cholesky":
            low = route("cholesky", cov.dtype, jnp.linalg.cholesky,
                        lambda c: _linalg_kernels._np_cholesky(c)[0], cov)
            return low.T, True
        if method == "eigh":
            s, u = route("eigh", cov.dtype, jnp.linalg.eigh, np.linalg.eigh, cov)
            psd = jnp.all(s >= -tol)
            s = jnp.maximum(s, 0)
            return (u * jnp.sqrt(s)).T, psd
        u, s, vh = route("svd", cov.dtype, jnp.linalg.svd, np.linalg.svd, cov)
        psd = jnp.allclose(jnp.dot(vh.T * s, vh), cov, rtol=tol, atol=tol)
        return jnp.sqrt(s)[:, None] * vh, psd

    return jax.jit(factor)


def _mvn_factor(cov: jax.Array, tol: float, method: str, check: bool) -> tuple:
    return _mvn_kernel(method, check)(cov, tol)


# --- Generator -------------------------------------------------------------------------------

def _integer_dtype(dtype: Any) -> np.dtype:
    dt = np.dtype(dtype)
    if dt.kind not in "iub":
        raise TypeError(f"Unsupported dtype {dt!r} for integers")
    return dt


def draw_integers(self: _Streams, low: Any, high: Any, size: Any, dtype: Any,
                  endpoint: bool) -> Any:
    """Integers in ``[low, high)`` (``[low, high]`` when ``endpoint``) with NumPy's checks."""
    dt = _integer_dtype(dtype)
    if high is None:
        low, high = 0, low
    lo, hi = _int_bound(low), _int_bound(high)
    info = (0, 1) if dt.kind == "b" else (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
    name = "bool" if dt.kind == "b" else str(dt)
    scalar = lo.ndim == 0 and hi.ndim == 0
    if scalar:
        lo_v, hi_v = int(lo.item()), int(hi.item())
        hi_incl = hi_v if endpoint else hi_v - 1
        if lo_v < info[0]:
            raise ValueError(f"low is out of bounds for {name}")
        if hi_incl > info[1]:
            raise ValueError(f"high is out of bounds for {name}")
        if lo_v > hi_incl:
            raise ValueError("low > high" if endpoint else "low >= high")
        wide = np.uint64 if dt.kind == "u" else np.int64
        static = ("general",)
        if dt.kind == "b":
            args = (lo_v, hi_incl)
        elif hi_incl < np.iinfo(wide).max:
            args, static = (wide(lo_v), wide(hi_incl + 1)), ("range",)
        else:
            args = (wide(lo_v), wide(hi_incl))
    else:
        xp = jnp if isinstance(lo, jax.Array) or isinstance(hi, jax.Array) else np
        lo_w = lo.astype(np.float64) if lo.dtype.kind == "f" else lo
        hi_w = hi.astype(np.float64) if hi.dtype.kind == "f" else hi
        if bool(xp.any(lo_w < info[0])):
            raise ValueError(f"low is out of bounds for {name}")
        hi_incl = hi_w if endpoint else hi_w - 1
        if bool(xp.any(hi_incl > info[1])):
            raise ValueError(f"high is out of bounds for {name}")
        if bool(xp.any(lo_w > hi_incl)):
            raise ValueError("low > high" if endpoint else "low >= high")
        wide = np.uint64 if dt.kind == "u" else np.int64
        static = ("general",)
        args = (_device_arg(xp.asarray(lo_w).astype(wide)),
                _device_arg(xp.asarray(hi_incl).astype(wide)))
    shapes = [np.shape(a) for a in args]
    shape = _broadcast_size(size, shapes) if not scalar else (
        () if size is None else size_shape(size))
    value = self._run("integers", shape, dt.str, static, args, True)
    if size is None and scalar:
        if dtype is int or dtype is bool:
            return dtype(value)
        return ndarray._owner(value, True)
    return ndarray._owner(value)


def _int_bound(x: Any) -> Any:
    if isinstance(x, ndarray) and (held := held_data(x)) is not None:
        x = held  # (read as NumPy's data below: float64 on a TPU...)
    if isinstance(x, ndarray | jax.Array):
        return x._read() if isinstance(x, ndarray) else x
    arr = np.asarray(x)
    if arr.dtype.kind not in "iubf":
        raise TypeError(f"Unsupported bound type {arr.dtype}")
    if arr.ndim == 0 and arr.dtype.kind == "f":
        return np.asarray(int(arr))
    return arr
