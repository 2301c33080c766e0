"""Histograms, cov and corrcoef: NumPy's algorithms on npjax arrays.

Histogram edges are NumPy's exactly: the outer edges (``range`` or the data's min/max, read
back to the host as NumPy scalars) go through NumPy's scalar arithmetic and NumPy's own
``linspace`` (a device's multiply-add may round once where NumPy rounds twice: on a GPU, a
float32 edge came out one unit in the last place apart). Counting follows
``numpy/lib/_histograms_impl.py``: for equal bins, the index ``(a - first) / (last - first) *
n`` truncated, then NumPy's one-bin corrections against the edges; for given edges, sorted data
and ``searchsorted`` (cumulative counts or cumulative weights). Weights are accumulated in
float64 and cast to their dtype, as ``bincount`` does. String estimators ('auto', 'fd', ...)
reduce the data on the device and finish on host scalars.

``cov`` and ``corrcoef`` are NumPy's Python code on npjax arrays (``dot`` is ``matmul``).
Histograms of complex data run on host NumPy (a declared fallback).
"""

from __future__ import annotations

import builtins
import functools
import operator
import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime._errstate import _stacklevel
from npjax._calls import _ufuncs
from npjax._library import _histogram_traced
from npjax._pure import _scatter_add
from npjax._library._elementwise_misc import _to_int_x86
from npjax._calls._dispatch import npfunc
from npjax._calls._fallback import call_numpy
from npjax._core._ndarray import ndarray
from npjax._runtime._context import current

__all__ = ["histogram", "histogram_bin_edges", "histogram2d", "histogramdd", "cov", "corrcoef"]

_U = _ufuncs.UFUNCS
_range = range
_INTP = np.dtype(np.intp)
_F64 = np.dtype(np.float64)


def _asarray(x: Any, dtype: Any = None) -> ndarray:
    from npjax._library._creation import asarray

    return asarray(x, dtype=dtype)


def _host(x: Any) -> Any:
    """An npjax scalar/0-d array as the NumPy scalar it stands for (one transfer)."""
    return x._host_scalar() if isinstance(x, ndarray) else x


@jax.jit
def _min_max(a: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jnp.min(a), jnp.max(a)


# --- bin edges ---------------------------------------------------------------------------


def _unsigned_subtract(a: Any, b: Any) -> Any:
    """NumPy's ``_unsigned_subtract`` on host scalars."""
    signed_to_unsigned = {np.byte: np.ubyte, np.short: np.ushort, np.intc: np.uintc,
                          np.int_: np.uint, np.longlong: np.ulonglong}
    dt = np.result_type(a, b)
    try:
        unsigned_dt = signed_to_unsigned[dt.type]
    except KeyError:
        return np.subtract(a, b, dtype=dt)
    return np.subtract(np.asarray(a, dtype=dt), np.asarray(b, dtype=dt), casting="unsafe",
                       dtype=unsigned_dt)


def _ptp(x: ndarray) -> Any:
    lo, hi = jax.device_get(_min_max(x._read()))
    return _unsigned_subtract(hi[()], lo[()])


def _hist_bin_sqrt(x: ndarray, range: Any) -> Any:
    return _ptp(x) / np.sqrt(x.size)


def _hist_bin_sturges(x: ndarray, range: Any) -> Any:
    return _ptp(x) / (np.log2(x.size) + 1.0)


def _hist_bin_rice(x: ndarray, range: Any) -> Any:
    return _ptp(x) / (2.0 * x.size ** (1.0 / 3))


def _hist_bin_scott(x: ndarray, range: Any) -> Any:
    from npjax._library._reductions import std

    return (24.0 * np.pi**0.5 / x.size)**(1.0 / 3.0) * _host(std(x))


def _hist_bin_stone(x: ndarray, range: Any) -> Any:
    n = x.size
    ptp_x = _ptp(x)
    if n <= 1 or ptp_x == 0:
        return 0
    nbins_upper_bound = builtins.max(100, int(np.sqrt(n)))
    counts = _stone_counts(x, range, nbins_upper_bound)

    def jhat(nbins: int) -> Any:
        hh = ptp_x / nbins
        c = counts[nbins - 1]
        if isinstance(c, Exception):
            raise c
        p_k = c[:nbins] / n
        return (2 - (n + 1) * p_k.dot(p_k)) / hh

    nbins = builtins.min(_range(1, nbins_upper_bound + 1), key=jhat)
    if nbins == nbins_upper_bound:
        warnings.warn("The number of bins estimated may be suboptimal.",
                      RuntimeWarning, stacklevel=_stacklevel())
    return ptp_x / nbins


def _stone_counts(x: ndarray, range: Any, upper: int) -> list:
    """``histogram(x, bins=k, range=range)[0]`` for k = 1..upper in one compiled kernel.

    The edges of every k come from NumPy's ``linspace`` of the two range scalars (no data);
    the counting is the equal-bin kernel, mapped over k. A k whose edges NumPy would reject
    ("Too many bins") holds the exception to raise if the estimator reaches it.
    """
    first_edge, last_edge = _get_outer_edges(x, range)
    bin_type = np.result_type(first_edge, last_edge, np.empty(0, x.dtype))
    if bin_type.kind in "iu":
        bin_type = np.result_type(bin_type, float)
    table = np.full((upper, upper + 1), np.inf, dtype=bin_type)
    bad: dict[int, Exception] = {}
    for k in _range(1, upper + 1):
        edges = np.linspace(first_edge, last_edge, k + 1, endpoint=True, dtype=bin_type)
        if np.any(edges[:-1] >= edges[1:]):
            bad[k] = ValueError(f"Too many bins for data range. Cannot create {k} "
                                f"finite-sized bins.")
        table[k - 1, :k + 1] = edges
    norm_denom = _unsigned_subtract(last_edge, first_edge)
    keep = _U["logical_and"](_U["greater_equal"](x, first_edge),
                             _U["less_equal"](x, last_edge))
    sub_dt = np.result_type(np.empty(0, bin_type), first_edge)
    div_dt = np.result_type(np.empty(0, sub_dt), norm_denom)
    counts, overflow = jax.device_get(_stone_kernel(upper, sub_dt, div_dt)(
        x._read(), keep._read(), jnp.asarray(table), jnp.asarray(np.asarray(first_edge)),
        jnp.asarray(np.asarray(norm_denom))))
    for k in _range(1, upper + 1):
        if k not in bad and overflow[k - 1]:
            bad[k] = IndexError("index is out of bounds for the bin edges (overflow in "
                                "the bin width arithmetic)")
    return [bad.get(k, counts[k - 1]) for k in _range(1, upper + 1)]


@functools.lru_cache(maxsize=32)
def _stone_kernel(upper: int, sub_dt: np.dtype, div_dt: np.dtype):
    def kernel(a, keep, table, first, denom):
        ks = jnp.arange(1, upper + 1)
        return jax.lax.map(lambda args: _equal_bin_counts(a, keep, args[1], first, denom,
                                                          args[0], upper, sub_dt, div_dt),
                           (ks, table))
    return jax.jit(kernel)


def _hist_bin_doane(x: ndarray, range: Any) -> Any:
    from npjax._library._reductions import mean, std

    if x.size > 2:
        sg1 = np.sqrt(6.0 * (x.size - 2) / ((x.size + 1.0) * (x.size + 3)))
        sigma = _host(std(x))
        if sigma > 0.0:
            temp = x - mean(x)
            _U["true_divide"](temp, sigma, out=temp)
            _U["power"](temp, 3, out=temp)
            g1 = _host(mean(temp))
            return _ptp(x) / (1.0 + np.log2(x.size) +
                              np.log2(1.0 + np.absolute(g1) / sg1))
    return 0.0


def _hist_bin_fd(x: ndarray, range: Any) -> Any:
    from npjax._library._reductions import percentile

    q = np.asarray(percentile(x, [75, 25])._read())
    iqr = np.subtract(*q)
    return 2.0 * iqr * x.size ** (-1.0 / 3.0)


def _hist_bin_auto(x: ndarray, range: Any) -> Any:
    fd_bw = _hist_bin_fd(x, range)
    sturges_bw = _hist_bin_sturges(x, range)
    sqrt_bw = _hist_bin_sqrt(x, range)
    fd_bw_corrected = builtins.max(fd_bw, sqrt_bw / 2)
    return builtins.min(fd_bw_corrected, sturges_bw)


_hist_bin_selectors = {"stone": _hist_bin_stone, "auto": _hist_bin_auto,
                       "doane": _hist_bin_doane, "fd": _hist_bin_fd, "rice": _hist_bin_rice,
                       "scott": _hist_bin_scott, "sqrt": _hist_bin_sqrt,
                       "sturges": _hist_bin_sturges}


def _ravel_and_check_weights(a: Any, weights: Any) -> tuple:
    a = _asarray(a)
    if a.dtype == np.bool_:
        warnings.warn(f"Converting input from {a.dtype} to {np.uint8} for compatibility.",
                      RuntimeWarning, stacklevel=_stacklevel())
        a = a.astype(np.uint8)
    if weights is not None:
        weights = _asarray(weights)
        if weights.shape != a.shape:
            raise ValueError("weights should have the same shape as a.")
        weights = weights.ravel()
    return a.ravel(), weights


def _get_outer_edges(a: ndarray, range: Any) -> tuple:
    if range is not None:
        first_edge, last_edge = range
        first_edge, last_edge = _host(first_edge), _host(last_edge)
        if first_edge > last_edge:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first_edge) and np.isfinite(last_edge)):
            raise ValueError(f"supplied range of [{first_edge}, {last_edge}] is not finite")
    elif a.size == 0:
        first_edge, last_edge = 0, 1
    else:
        lo, hi = jax.device_get(_min_max(a._read()))
        first_edge, last_edge = lo[()], hi[()]
        if not (np.isfinite(first_edge) and np.isfinite(last_edge)):
            raise ValueError(
                f"autodetected range of [{first_edge}, {last_edge}] is not finite")
    if first_edge == last_edge:
        first_edge = first_edge - 0.5
        last_edge = last_edge + 0.5
    return first_edge, last_edge


def _get_bin_edges(a: ndarray, bins: Any, range: Any, weights: Any) -> tuple:
    n_equal_bins = None
    bin_edges = None
    if isinstance(bins, str):
        bin_name = bins
        if bin_name not in _hist_bin_selectors:
            raise ValueError(f"{bin_name!r} is not a valid estimator for `bins`")
        if weights is not None:
            raise TypeError("Automated estimation of the number of "
                            "bins is not supported for weighted data")
        first_edge, last_edge = _get_outer_edges(a, range)
        if range is not None:
            keep = _U["logical_and"](_U["greater_equal"](a, first_edge),
                                     _U["less_equal"](a, last_edge))
            if not bool(keep.all()):
                a = a[keep]
        if a.size == 0:
            n_equal_bins = 1
        else:
            width = _hist_bin_selectors[bin_name](a, (first_edge, last_edge))
            if width:
                if a.dtype.kind in "iu" and width < 1:
                    width = 1
                delta = _unsigned_subtract(last_edge, first_edge)
                n_equal_bins = int(np.ceil(delta / width))
            else:
                n_equal_bins = 1
    elif np.ndim(bins) == 0:
        try:
            n_equal_bins = operator.index(bins)
        except TypeError as e:
            raise TypeError("`bins` must be an integer, a string, or an array") from e
        if n_equal_bins < 1:
            raise ValueError("`bins` must be positive, when an integer")
        if range is None and a.size and _histogram_traced.traced(a):  # npjax.jit
            edges, first, denom, sub_dt, div_dt = _histogram_traced.outer_edges(
                a, n_equal_bins)
            return ndarray._owner(edges), (first, denom, n_equal_bins, sub_dt, div_dt)
        first_edge, last_edge = _get_outer_edges(a, range)
    elif np.ndim(bins) == 1:
        bin_edges = _asarray(bins)
        bad = _U["greater"](bin_edges[:-1], bin_edges[1:]).any()
        if _histogram_traced.traced(bad):  # npjax.jit: checked on the device
            _histogram_traced.check(bad._read())
        elif bool(bad):
            raise ValueError("`bins` must increase monotonically, when an array")
    else:
        raise ValueError("`bins` must be 1d, when an array")

    if n_equal_bins is not None:
        bin_type = np.result_type(first_edge, last_edge, np.empty(0, a.dtype))
        if bin_type.kind in "iu":
            bin_type = np.result_type(bin_type, float)
        # NumPy's own linspace: the edges decide the counts, so they must be NumPy's to the
        # last bit (a GPU contracts linspace's multiply-add into one rounding).
        edges = np.linspace(first_edge, last_edge, n_equal_bins + 1, endpoint=True,
                            dtype=bin_type)
        bin_edges = _asarray(edges)
        if (edges[:-1] >= edges[1:]).any():  # (on the host: a constant under npjax.jit)
            raise ValueError(f"Too many bins for data range. Cannot create {n_equal_bins} "
                             f"finite-sized bins.")
        return bin_edges, (first_edge, last_edge, n_equal_bins)
    return bin_edges, None


@npfunc
def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None,
                        weights: Any = None) -> ndarray:
    """npjax implementation of ``numpy.histogram_bin_edges`` (NumPy's edges exactly)."""
    a, weights = _ravel_and_check_weights(a, weights)
    if a.dtype.kind == "c":
        return _complex_fallback("histogram_bin_edges", np.histogram_bin_edges, a, bins,
                                 range, weights)
    bin_edges, _ = _get_bin_edges(a, bins, range, weights)
    return bin_edges


def _complex_fallback(name: str, fn: Any, *args: Any) -> Any:
    return call_numpy(name, fn, args, {}, current(), "complex data")


# --- counting kernels --------------------------------------------------------------------


def _equal_bin_index(a, keep, edges, first, denom, n, sub_dt, div_dt):
    """NumPy's equal-bin index: arithmetic, truncation, one-bin corrections (``n`` may be
    traced; dropped values get index ``len(edges) - 1``, a spare bin)."""
    tmp = a.astype(edges.dtype)
    f = (tmp.astype(sub_dt) - first.astype(sub_dt)).astype(div_dt) / denom.astype(div_dt)
    f = f * jnp.asarray(n).astype(div_dt)
    idx = jnp.where(keep, f, 0).astype(_INTP)
    idx = jnp.where(idx == n, idx - 1, idx)
    idx = jnp.where(tmp < edges[idx], idx - 1, idx)
    inc = (tmp >= edges[idx + 1]) & (idx != n - 1)
    idx = jnp.where(inc, idx + 1, idx)
    bad = jnp.any(keep & (~jnp.isfinite(f) | (idx < 0) | (idx >= n)))
    return jnp.where(keep & ~bad, idx, edges.shape[0] - 1), bad


def _equal_bin_counts(a, keep, edges, first, denom, n, size, sub_dt, div_dt):
    idx, bad = _equal_bin_index(a, keep, edges, first, denom, n, sub_dt, div_dt)
    return _scatter_add.add_at(jnp.zeros(size + 1, _INTP), idx, 1)[:size], bad


def _check_indices(bad: Any) -> None:
    """NumPy's equal-bin indexing fails (IndexError) when the bin arithmetic overflows
    (e.g. float16 data spanning more than the float16 range)."""
    if bool(bad):
        raise IndexError("index is out of bounds for the bin edges (overflow in the bin "
                         "width arithmetic)")


@functools.lru_cache(maxsize=256)
def _uniform_kernel(n: int, sub_dt: np.dtype, div_dt: np.dtype, weighted: bool,
                    ntype: np.dtype):
    """NumPy's equal-bin fast path: index from arithmetic, one-bin corrections, bincount."""
    def kernel(a, keep, edges, first, denom, w):
        if not weighted:
            return _equal_bin_counts(a, keep, edges, first, denom, n, n, sub_dt, div_dt)
        idx, bad = _equal_bin_index(a, keep, edges, first, denom, n, sub_dt, div_dt)
        return _accumulate(idx, w, n, ntype), bad

    return jax.jit(kernel)


def _accumulate(idx: jax.Array, w: jax.Array, n: int, ntype: np.dtype) -> jax.Array:
    """``bincount(idx, w).astype(ntype)``: float64 sums (per part for complex weights)."""
    if ntype.kind == "c":
        re = jnp.zeros(n + 1, _F64).at[idx].add(jnp.real(w).astype(_F64))[:n]
        im = jnp.zeros(n + 1, _F64).at[idx].add(jnp.imag(w).astype(_F64))[:n]
        return jax.lax.complex(re, im).astype(ntype)
    s = jnp.zeros(n + 1, _F64).at[idx].add(w.astype(_F64))[:n]
    if ntype.kind in "iu":
        return _to_int_x86(s, ntype)
    return s.astype(ntype)


@functools.lru_cache(maxsize=64)
def _sorted_counts_kernel():
    def kernel(a, edges):
        sa = jnp.sort(a)
        return jnp.concatenate((jnp.searchsorted(sa, edges[:-1], side="left"),
                                jnp.searchsorted(sa, edges[-1:], side="right")))
    return jax.jit(kernel)


@npfunc
def histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None,
              weights: Any = None) -> tuple:
    """npjax implementation of ``numpy.histogram`` (NumPy's edges and binning rule).

    Differences from NumPy: weighted sums may differ in the last bits (summation order);
    integer weights that overflow follow x86-64 NumPy's float-to-int cast.
    """
    from npjax._library._creation import zeros
    from npjax._library._joining import concatenate
    from npjax._library._differences import difference as diff

    a, weights = _ravel_and_check_weights(a, weights)
    if a.dtype.kind == "c" or (isinstance(bins, ndarray | np.ndarray | list | tuple)
                               and _asarray(bins).dtype.kind == "c"):
        return _complex_fallback("histogram", np.histogram, a, bins, range, density, weights)
    bin_edges, uniform_bins = _get_bin_edges(a, bins, range, weights)
    ntype = _INTP if weights is None else weights.dtype

    if uniform_bins is not None and len(uniform_bins) == 5:  # traced data, no range
        first, denom, n_equal_bins, sub_dt, div_dt = uniform_bins  # (every value kept)
        kern = _uniform_kernel(n_equal_bins, sub_dt, div_dt, weights is not None, ntype)
        counts, bad = kern(a._read(), jnp.ones(a.shape, bool), bin_edges._read(), first,
                           denom, None if weights is None else weights._read())
        _histogram_traced.check(bad)
        n = ndarray._owner(counts)
    elif uniform_bins is not None:
        first_edge, last_edge, n_equal_bins = uniform_bins
        norm_denom = _unsigned_subtract(last_edge, first_edge)
        keep = _U["logical_and"](_U["greater_equal"](a, first_edge),
                                 _U["less_equal"](a, last_edge))
        sub_dt = np.result_type(np.empty(0, bin_edges.dtype), first_edge)
        div_dt = np.result_type(np.empty(0, sub_dt), norm_denom)
        kern = _uniform_kernel(n_equal_bins, sub_dt, div_dt, weights is not None, ntype)
        counts, bad = kern(a._read(), keep._read(), bin_edges._read(),
                           jnp.asarray(np.asarray(first_edge)),
                           jnp.asarray(np.asarray(norm_denom)),
                           None if weights is None else weights._read())
        if _histogram_traced.traced(a) or _histogram_traced.traced(keep):
            _histogram_traced.check(bad)  # npjax.jit: checked on the device
        else:
            _check_indices(bad)
        n = ndarray._owner(counts)
    elif weights is None:
        cum = _sorted_counts_kernel()(*_common(a, bin_edges))
        cum_n = zeros(bin_edges.shape, ntype)
        cum_n += ndarray._owner(cum)
        n = diff(cum_n)
    else:
        from npjax._library._reductions import cumsum
        from npjax._library._sorting import argsort, searchsorted

        sorting_index = argsort(a, kind="stable")
        sa = a[sorting_index]
        sw = weights[sorting_index]
        cw = concatenate((zeros(1, dtype=ntype), cumsum(sw)))
        bin_index = concatenate((searchsorted(sa, bin_edges[:-1], "left"),
                                 searchsorted(sa, bin_edges[-1:], "right")))
        cum_n = zeros(bin_edges.shape, ntype)
        cum_n += cw[bin_index]
        n = diff(cum_n)

    if density:
        db = _asarray(diff(bin_edges)).astype(float)
        return n / db / n.sum(), bin_edges
    return n, bin_edges


def _common(a: ndarray, edges: ndarray) -> tuple:
    """Data and edges in their common dtype (what ``searchsorted`` compares in)."""
    dt = np.result_type(a.dtype, edges.dtype)
    av, ev = a._read(), edges._read()
    return av.astype(dt), ev.astype(dt)


# --- histogramdd / histogram2d -----------------------------------------------------------


def histogramdd(sample: Any, bins: Any = 10, range: Any = None, density: Any = None,
                weights: Any = None) -> tuple:
    """npjax implementation of ``numpy.histogramdd``."""
    from npjax._library._shape_ops import atleast_2d
    from npjax._library._binning import _bincount as bincount
    from npjax._library._differences import difference as diff
    from npjax._library._sorting import searchsorted

    if isinstance(sample, np.ndarray):
        sample = _asarray(sample)
    try:
        if not isinstance(sample, ndarray):
            raise AttributeError
        N, D = sample.shape
    except (AttributeError, ValueError):
        sample = atleast_2d(sample).T
        N, D = sample.shape
    if sample.dtype.kind == "c":
        return _complex_fallback("histogramdd", np.histogramdd, sample, bins, range,
                                 density, weights)
    nbin = np.empty(D, np.intp)
    edges: list = D * [None]
    dedges: list = D * [None]
    if weights is not None:
        weights = _asarray(weights)
    try:
        M = len(bins)
        if M != D:
            raise ValueError("The dimension of bins must be equal to the dimension of the "
                             "sample x.")
    except TypeError:
        bins = D * [bins]
    if range is None:
        range = (None,) * D
    elif len(range) != D:
        raise ValueError("range argument must have one entry per dimension")

    for i in _range(D):
        if np.ndim(bins[i]) == 0:
            if bins[i] < 1:
                raise ValueError(f"`bins[{i}]` must be positive, when an integer")
            smin, smax = _get_outer_edges(sample[:, i], range[i])
            try:
                n = operator.index(bins[i])
            except TypeError as e:
                raise TypeError(f"`bins[{i}]` must be an integer, when a scalar") from e
            edges[i] = _asarray(np.linspace(smin, smax, n + 1))  # NumPy's edges, as above
        elif np.ndim(bins[i]) == 1:
            edges[i] = _asarray(bins[i])
            if bool(_U["greater"](edges[i][:-1], edges[i][1:]).any()):
                raise ValueError(
                    f"`bins[{i}]` must be monotonically increasing, when an array")
        else:
            raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
        nbin[i] = len(edges[i]) + 1
        dedges[i] = diff(edges[i])

    xy = None
    stride = 1
    for i in reversed(_range(D)):
        col = sample[:, i]
        idx = searchsorted(edges[i], col, side="right")
        on_edge = _U["equal"](col, edges[i][-1])
        idx = idx - on_edge.astype(_INTP)
        term = idx * stride if stride != 1 else idx
        xy = term if xy is None else xy + term
        stride *= int(nbin[i])
    if xy is None:
        xy = _asarray(np.zeros(0, np.intp))
    hist = bincount(xy, weights, minlength=int(nbin.prod()))
    hist = hist.reshape(tuple(int(v) for v in nbin))
    hist = hist.astype(float, casting="safe")
    core = D * (slice(1, -1),)
    hist = hist[core]
    if density:
        s = hist.sum()
        for i in _range(D):
            shape = np.ones(D, int)
            shape[i] = nbin[i] - 2
            hist = hist / dedges[i].reshape(tuple(int(v) for v in shape))
        hist /= s
    return hist, edges


_histogramdd = histogramdd  # the raw body, named as NumPy's (histogram2d calls it: one door)
histogramdd = npfunc(_histogramdd)


@npfunc
def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, density: Any = None,
                weights: Any = None) -> tuple:
    """npjax implementation of ``numpy.histogram2d``."""
    if len(x) != len(y):
        raise ValueError("x and y must have the same length.")
    try:
        N = len(bins)
    except TypeError:
        N = 1
    if N not in {1, 2}:
        xedges = yedges = _asarray(bins)
        bins = [xedges, yedges]
    hist, edges = _histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


# --- cov / corrcoef ----------------------------------------------------------------------


@npfunc
def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
        fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> ndarray:
    """npjax implementation of ``numpy.cov`` (NumPy's formula; ``dot`` is ``matmul``).

    Differences from NumPy: the matrix product may differ in the last bits (BLAS order).
    """
    return _cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype)


def _cov(m: Any, y: Any, rowvar: bool, bias: bool, ddof: Any, fweights: Any, aweights: Any,
         dtype: Any) -> ndarray:
    """``cov``'s body, for ``corrcoef`` (one pass through the door)."""
    from npjax._library._creation import array
    from npjax._library._joining import concatenate
    from npjax._library._elementwise_misc import _round
    from npjax._library._reductions import average, cumsum

    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = _asarray(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None:
        y = _asarray(y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    if dtype is None:
        if y is None:
            dtype = np.result_type(m.dtype, np.float64)
        else:
            dtype = np.result_type(m.dtype, y.dtype, np.float64)
    X = array(m, ndmin=2, dtype=dtype)
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return array([]).reshape(0, 0)
    if y is not None:
        y = array(y, copy=None, ndmin=2, dtype=dtype)
        if not rowvar and y.shape[0] != 1:
            y = y.T
        X = concatenate((X, y), axis=0)
    if ddof is None:
        ddof = 1 if bias == 0 else 0

    w = None
    if fweights is not None:
        fweights = _asarray(fweights, dtype=float)
        if not bool(_U["equal"](fweights, _round(fweights, 0, None)).all()):
            raise TypeError("fweights must be integer")
        if fweights.ndim > 1:
            raise RuntimeError("cannot handle multidimensional fweights")
        if fweights.shape[0] != X.shape[1]:
            raise RuntimeError("incompatible numbers of samples and fweights")
        if bool(_U["less"](fweights, 0).any()):
            raise ValueError("fweights cannot be negative")
        w = fweights
    if aweights is not None:
        aweights = _asarray(aweights, dtype=float)
        if aweights.ndim > 1:
            raise RuntimeError("cannot handle multidimensional aweights")
        if aweights.shape[0] != X.shape[1]:
            raise RuntimeError("incompatible numbers of samples and aweights")
        if bool(_U["less"](aweights, 0).any()):
            raise ValueError("aweights cannot be negative")
        if w is None:
            w = aweights
        else:
            w *= aweights

    avg, w_sum = average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        fact = X.shape[1] - ddof
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - ddof
    else:
        prod = w * aweights  # Python's sum(): a sequential fold, as a cumulative sum
        total = cumsum(prod)[-1] if prod.size else 0
        fact = w_sum - ddof * total / w_sum
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=_stacklevel())
        fact = 0.0
    X -= avg[:, None]
    X_T = X.T if w is None else (X * w).T
    c = _U["matmul"](X, _U["conjugate"](X_T))
    c *= _U["true_divide"](1, fact)
    return c.squeeze()


@npfunc
def corrcoef(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> Any:
    """npjax implementation of ``numpy.corrcoef``."""
    from npjax._library._matrix_builders import diag
    from npjax._library._elementwise_misc import _iscomplexobj as iscomplexobj
    from npjax._library._selection import _clip

    c = _cov(x, y, rowvar, False, None, None, None, dtype)
    try:
        d = diag(c)
    except ValueError:
        return c / c
    stddev = _U["sqrt"](d.real)
    c /= stddev[:, None]
    c /= stddev[None, :]
    _clip(c.real, -1, 1, out=c.real)  # (the raw body: no second pass of the door)
    if iscomplexobj(c):
        _clip(c.imag, -1, 1, out=c.imag)
    return c


for _name in __all__:  # public functions report NumPy-style as members of npjax
    globals()[_name].__module__ = "npjax"
del _name
