"""Lazy capability is a declared fact of each ``npfunc`` function (``_registry.NOT_LAZY``).

A lazy-capable function gets pending (``Lazy``) operands in lazy mode and must work on them:
there is no retry on computed values any more, so a body that cannot take pending values
raises here. Each function runs a few calls on pending operands under
``policy(mode="lazy", placement="device")``, compared with the same calls in eager mode.
Every ``npfunc`` function of npjax must have a case below (a new one fails
``test_every_npfunc_function_has_a_case`` until it gets one).
"""

from __future__ import annotations

import ast
import inspect
import pathlib

import jax
import numpy as np
import pytest

import npjax
from npjax._calls import _dispatch, _registry
from npjax._core import _buckets
from npjax._execution import _lazy
from tests._parity import DEVICE_FLOAT

pytestmark = pytest.mark.device_placement

# (float32 where the accelerator holds no float64: float64 arrays are host arrays there)
_A = (np.arange(12, dtype=DEVICE_FLOAT).reshape(3, 4) * 0.5 - 1.0).astype(DEVICE_FLOAT)
_V = np.array([3.0, -1.0, 2.0, 0.5], DEVICE_FLOAT)
_I = np.array([2, 0, 3, 1])                                      # (4,) int
_M = np.array([True, False, True, True])                        # (4,) bool

# name -> calls of (xp, a, v, i, m): a, v, i, m are _A, _V, _I, _M as npjax arrays (pending
# ones in lazy mode).
CASES: dict[str, list] = {
    "all": [lambda xp, a, v, i, m: xp.all(m), lambda xp, a, v, i, m: xp.all(a, axis=0)],
    "any": [lambda xp, a, v, i, m: xp.any(m), lambda xp, a, v, i, m: xp.any(a, axis=1)],
    "amax": [lambda xp, a, v, i, m: xp.amax(a, axis=0)],
    "amin": [lambda xp, a, v, i, m: xp.amin(a, axis=1)],
    "max": [lambda xp, a, v, i, m: xp.max(a), lambda xp, a, v, i, m: xp.max(a, axis=0)],
    "min": [lambda xp, a, v, i, m: xp.min(v), lambda xp, a, v, i, m: xp.min(a, axis=1)],
    "nanmax": [lambda xp, a, v, i, m: xp.nanmax(a, axis=0)],
    "nanmin": [lambda xp, a, v, i, m: xp.nanmin(v)],
    "argmax": [lambda xp, a, v, i, m: xp.argmax(a), lambda xp, a, v, i, m: xp.argmax(a, 1)],
    "argmin": [lambda xp, a, v, i, m: xp.argmin(v)],
    "nanargmax": [lambda xp, a, v, i, m: xp.nanargmax(a, axis=0)],
    "nanargmin": [lambda xp, a, v, i, m: xp.nanargmin(v)],
    "sum": [lambda xp, a, v, i, m: xp.sum(a), lambda xp, a, v, i, m: xp.sum(a, axis=0),
            lambda xp, a, v, i, m: xp.sum(i, dtype=np.float32)],
    "prod": [lambda xp, a, v, i, m: xp.prod(v), lambda xp, a, v, i, m: xp.prod(a, axis=1)],
    "nansum": [lambda xp, a, v, i, m: xp.nansum(a, axis=1)],
    "nanprod": [lambda xp, a, v, i, m: xp.nanprod(v)],
    "mean": [lambda xp, a, v, i, m: xp.mean(a), lambda xp, a, v, i, m: xp.mean(i, axis=0)],
    "nanmean": [lambda xp, a, v, i, m: xp.nanmean(a, axis=0)],
    "var": [lambda xp, a, v, i, m: xp.var(a, axis=0, ddof=1)],
    "std": [lambda xp, a, v, i, m: xp.std(v)],
    "nanvar": [lambda xp, a, v, i, m: xp.nanvar(a)],
    "nanstd": [lambda xp, a, v, i, m: xp.nanstd(a, axis=1)],
    "median": [lambda xp, a, v, i, m: xp.median(v), lambda xp, a, v, i, m: xp.median(a, 0)],
    "nanmedian": [lambda xp, a, v, i, m: xp.nanmedian(a, axis=1)],
    "percentile": [lambda xp, a, v, i, m: xp.percentile(v, 30.0)],
    "nanpercentile": [lambda xp, a, v, i, m: xp.nanpercentile(a, [10.0, 90.0], axis=0)],
    "quantile": [lambda xp, a, v, i, m: xp.quantile(a, 0.25, axis=1)],
    "nanquantile": [lambda xp, a, v, i, m: xp.nanquantile(v, 0.5)],
    "average": [lambda xp, a, v, i, m: xp.average(a, axis=1, weights=v),
                lambda xp, a, v, i, m: xp.average(v),
                lambda xp, a, v, i, m: xp.average(a, axis=0, weights=[1.0, 2.0, 3.0],
                                                  returned=True)],
    "ptp": [lambda xp, a, v, i, m: xp.ptp(a, axis=0)],
    "count_nonzero": [lambda xp, a, v, i, m: xp.count_nonzero(a),
                      lambda xp, a, v, i, m: xp.count_nonzero(m, axis=0)],
    "cumsum": [lambda xp, a, v, i, m: xp.cumsum(a, axis=1)],
    "cumprod": [lambda xp, a, v, i, m: xp.cumprod(v)],
    "nancumsum": [lambda xp, a, v, i, m: xp.nancumsum(v)],
    "nancumprod": [lambda xp, a, v, i, m: xp.nancumprod(a, axis=0)],
    "cumulative_sum": [lambda xp, a, v, i, m: xp.cumulative_sum(v, include_initial=True)],
    "cumulative_prod": [lambda xp, a, v, i, m: xp.cumulative_prod(a, axis=1)],
    "trace": [lambda xp, a, v, i, m: xp.trace(a), lambda xp, a, v, i, m: xp.trace(a, 1)],
    "sort": [lambda xp, a, v, i, m: xp.sort(v), lambda xp, a, v, i, m: xp.sort(a, axis=0)],
    "argsort": [lambda xp, a, v, i, m: xp.argsort(v)],
    "partition": [lambda xp, a, v, i, m: xp.partition(v, 1)],
    "argpartition": [lambda xp, a, v, i, m: xp.argpartition(v, 2)],
    "lexsort": [lambda xp, a, v, i, m: xp.lexsort((v, i))],
    "searchsorted": [lambda xp, a, v, i, m: xp.searchsorted(xp.sort(v), v),
                     lambda xp, a, v, i, m: xp.searchsorted(v, 1.0, sorter=xp.argsort(v)),
                     lambda xp, a, v, i, m: xp.searchsorted(i, v, side="right"),
                     lambda xp, a, v, i, m: xp.searchsorted(v, a)],
    "unique": [lambda xp, a, v, i, m: xp.unique(i),
               lambda xp, a, v, i, m: xp.unique(a, return_counts=True)],
    "unique_values": [lambda xp, a, v, i, m: xp.unique_values(i % 3)],
    "unique_counts": [lambda xp, a, v, i, m: list(xp.unique_counts(a > 0))],
    "unique_inverse": [lambda xp, a, v, i, m: list(xp.unique_inverse(a))],
    "unique_all": [lambda xp, a, v, i, m: list(xp.unique_all(i % 2))],
    "intersect1d": [lambda xp, a, v, i, m: xp.intersect1d(v, a),
                    lambda xp, a, v, i, m: list(xp.intersect1d(i, i % 3, return_indices=True))],
    "union1d": [lambda xp, a, v, i, m: xp.union1d(v, i)],
    "setdiff1d": [lambda xp, a, v, i, m: xp.setdiff1d(a, v),
                  lambda xp, a, v, i, m: xp.setdiff1d(i, [1, 3], assume_unique=True)],
    "setxor1d": [lambda xp, a, v, i, m: xp.setxor1d(v, a)],
    # the in-place writers: the target after the write (pending targets and operands; a copy
    # where two calls of one name write the same operand: results are read after all calls)
    "put": [lambda xp, a, v, i, m: (xp.put(v, i[:2], [9.0, 8.0]), v)[1],
            lambda xp, a, v, i, m: (xp.put(a, [13, -1], v[:2], mode="wrap"), a)[1]],
    "putmask": [lambda xp, a, v, i, m: (xp.putmask(v, m, v * 2), v)[1],
                lambda xp, a, v, i, m: (xp.putmask(a[1:], a[1:] > 1, 7.5), a)[1]],
    "place": [lambda xp, a, v, i, m: (xp.place(i, m, [5, 6]), i)[1],
              lambda xp, a, v, i, m: (xp.place(a, a > 0, v), a)[1]],
    "put_along_axis": [
        lambda xp, a, v, i, m: (xp.put_along_axis(a, i[:3, None] % 4, -2.0, 1), a)[1],
        lambda xp, a, v, i, m: (xp.put_along_axis(v, i[:2], v[2:], None), v)[1]],
    "fill_diagonal": [lambda xp, a, v, i, m: (xp.fill_diagonal(a, v[:3]), a.copy())[1],
                      lambda xp, a, v, i, m: (xp.fill_diagonal(a.T, 4.0, wrap=True), a)[1]],
    "copyto": [lambda xp, a, v, i, m: (xp.copyto(a, v), a.copy())[1],
               lambda xp, a, v, i, m: (xp.copyto(v, i, where=m), v)[1],
               lambda xp, a, v, i, m: (xp.copyto(a[:, 1], i[:3] * 0.5), a)[1]],
    "isin": [lambda xp, a, v, i, m: xp.isin(a, v),
             lambda xp, a, v, i, m: xp.isin(i, [1, 3], invert=True, kind="table")],
    "bincount": [lambda xp, a, v, i, m: xp.bincount(i),
                 lambda xp, a, v, i, m: xp.bincount(i, weights=v, minlength=6)],
    "histogram": [lambda xp, a, v, i, m: list(xp.histogram(a, bins=3)),
                  lambda xp, a, v, i, m: list(xp.histogram(v, bins=[-1.0, 0.0, 4.0], weights=i,
                                                            density=True))],
    "histogram_bin_edges": [lambda xp, a, v, i, m: xp.histogram_bin_edges(a, bins="auto")],
    "histogramdd": [lambda xp, a, v, i, m: [xp.histogramdd(a[:, :2], bins=2)[0],
                                            *xp.histogramdd(a[:, :2], bins=2)[1]]],
    "histogram2d": [lambda xp, a, v, i, m: list(xp.histogram2d(v, i, bins=2, weights=v))],
    "nonzero": [lambda xp, a, v, i, m: xp.nonzero(m)],
    "where": [lambda xp, a, v, i, m: xp.where(m, v, i),
              lambda xp, a, v, i, m: xp.where(a > 0, a, 0.5),
              lambda xp, a, v, i, m: xp.where(m)],
    "clip": [lambda xp, a, v, i, m: xp.clip(a, -0.5, 1.5),
             lambda xp, a, v, i, m: xp.clip(v, None, i),
             lambda xp, a, v, i, m: xp.clip(i, min=1),
             lambda xp, a, v, i, m: xp.clip(v, 0.0, 2.0, out=xp.zeros_like(v))],
    "argwhere": [lambda xp, a, v, i, m: xp.argwhere(a > 0)],
    "flatnonzero": [lambda xp, a, v, i, m: xp.flatnonzero(v)],
    "extract": [lambda xp, a, v, i, m: xp.extract(m, v)],
    "compress": [lambda xp, a, v, i, m: xp.compress(m, v),
                 lambda xp, a, v, i, m: xp.compress(m, a, axis=1),
                 lambda xp, a, v, i, m: xp.compress([True, False, True], a, axis=0)],
    "take": [lambda xp, a, v, i, m: xp.take(v, i),
             lambda xp, a, v, i, m: xp.take(a, i, axis=1, mode="clip"),
             lambda xp, a, v, i, m: xp.take(a, 1),
             lambda xp, a, v, i, m: xp.take(a, [0, 2], axis=0, mode="wrap")],
    "choose": [lambda xp, a, v, i, m: xp.choose(i % 3, a),
               lambda xp, a, v, i, m: xp.choose(i % 2, [v, 0.0], mode="wrap")],
    "repeat": [lambda xp, a, v, i, m: xp.repeat(v, 2), lambda xp, a, v, i, m: xp.repeat(v, i),
               lambda xp, a, v, i, m: xp.repeat(a, 2, axis=0),
               lambda xp, a, v, i, m: xp.repeat(a, [1, 2, 0], axis=0)],
    "roll": [lambda xp, a, v, i, m: xp.roll(a, 1, axis=1), lambda xp, a, v, i, m: xp.roll(v, -1)],
    "tile": [lambda xp, a, v, i, m: xp.tile(v, 2)],
    "resize": [lambda xp, a, v, i, m: xp.resize(v, (3, 3)),
               lambda xp, a, v, i, m: xp.resize(a, (0,))],
    "delete": [lambda xp, a, v, i, m: xp.delete(v, 1), lambda xp, a, v, i, m: xp.delete(a, [0], 1)],
    "insert": [lambda xp, a, v, i, m: xp.insert(v, 1, 9.0),
               lambda xp, a, v, i, m: xp.insert(a, [1], v, axis=0)],
    "append": [lambda xp, a, v, i, m: xp.append(v, i)],
    "trim_zeros": [lambda xp, a, v, i, m: xp.trim_zeros(i)],
    "pad": [lambda xp, a, v, i, m: xp.pad(v, 2), lambda xp, a, v, i, m: xp.pad(a, 1, "edge")],
    "tril": [lambda xp, a, v, i, m: xp.tril(a), lambda xp, a, v, i, m: xp.tril(v)],
    "triu": [lambda xp, a, v, i, m: xp.triu(a, 1)],
    "diagflat": [lambda xp, a, v, i, m: xp.diagflat(v)],
    "vander": [lambda xp, a, v, i, m: xp.vander(v, 3), lambda xp, a, v, i, m: xp.vander(i)],
    "i0": [lambda xp, a, v, i, m: xp.i0(v)],
    "sinc": [lambda xp, a, v, i, m: xp.sinc(a), lambda xp, a, v, i, m: xp.sinc(m)],
    "convolve": [lambda xp, a, v, i, m: xp.convolve(v, i)],
    "correlate": [lambda xp, a, v, i, m: xp.correlate(v, v, "full")],
    "reshape": [lambda xp, a, v, i, m: xp.reshape(a, (4, 3))],
    "ravel": [lambda xp, a, v, i, m: xp.ravel(a)],
    "transpose": [lambda xp, a, v, i, m: xp.transpose(a)],
    "permute_dims": [lambda xp, a, v, i, m: xp.permute_dims(a, (1, 0))],
    "matrix_transpose": [lambda xp, a, v, i, m: xp.matrix_transpose(a)],
    "swapaxes": [lambda xp, a, v, i, m: xp.swapaxes(a, 0, 1)],
    "moveaxis": [lambda xp, a, v, i, m: xp.moveaxis(a, 0, 1)],
    "rollaxis": [lambda xp, a, v, i, m: xp.rollaxis(a, 1)],
    "squeeze": [lambda xp, a, v, i, m: xp.squeeze(xp.expand_dims(v, 0))],
    "expand_dims": [lambda xp, a, v, i, m: xp.expand_dims(a, 1)],
    "diagonal": [lambda xp, a, v, i, m: xp.diagonal(a, 1)],
    "broadcast_to": [lambda xp, a, v, i, m: xp.broadcast_to(v, (3, 4))],
    "broadcast_arrays": [lambda xp, a, v, i, m: xp.broadcast_arrays(a, v)],
    "atleast_1d": [lambda xp, a, v, i, m: xp.atleast_1d(v)],
    "atleast_2d": [lambda xp, a, v, i, m: xp.atleast_2d(v)],
    "atleast_3d": [lambda xp, a, v, i, m: xp.atleast_3d(a)],
    "flip": [lambda xp, a, v, i, m: xp.flip(a, 1)],
    "fliplr": [lambda xp, a, v, i, m: xp.fliplr(a)],
    "flipud": [lambda xp, a, v, i, m: xp.flipud(a)],
    "rot90": [lambda xp, a, v, i, m: xp.rot90(a)],
    "concatenate": [lambda xp, a, v, i, m: xp.concatenate((v, i))],
    "concat": [lambda xp, a, v, i, m: xp.concat((a, a), axis=1)],
    "stack": [lambda xp, a, v, i, m: xp.stack((v, v))],
    "unstack": [lambda xp, a, v, i, m: xp.unstack(a)],
    "hstack": [lambda xp, a, v, i, m: xp.hstack((v, i))],
    "vstack": [lambda xp, a, v, i, m: xp.vstack((a, v))],
    "dstack": [lambda xp, a, v, i, m: xp.dstack((v, v))],
    "column_stack": [lambda xp, a, v, i, m: xp.column_stack((v, i))],
    "block": [lambda xp, a, v, i, m: xp.block([[v], [v]])],
    "split": [lambda xp, a, v, i, m: xp.split(v, 2)],
    "array_split": [lambda xp, a, v, i, m: xp.array_split(a, 2, axis=1)],
    "hsplit": [lambda xp, a, v, i, m: xp.hsplit(a, 2)],
    "vsplit": [lambda xp, a, v, i, m: xp.vsplit(a, 3)],
    "dsplit": [lambda xp, a, v, i, m: xp.dsplit(xp.atleast_3d(a), 1)],
    "sliding_window_view": [
        lambda xp, a, v, i, m: npjax.lib.stride_tricks.sliding_window_view(v, 2)],
    "as_strided": [lambda xp, a, v, i, m: npjax.lib.stride_tricks.as_strided(
        v, (2, 2), (v.itemsize, v.itemsize))],
    "zeros": [lambda xp, a, v, i, m: xp.zeros((2, 3))],
    "ones": [lambda xp, a, v, i, m: xp.ones(3, np.int32)],
    "empty": [lambda xp, a, v, i, m: xp.empty(0)],
    "full": [lambda xp, a, v, i, m: xp.full((2,), 7.5)],
    "zeros_like": [lambda xp, a, v, i, m: xp.zeros_like(a)],
    "ones_like": [lambda xp, a, v, i, m: xp.ones_like(v, dtype=np.float32)],
    "empty_like": [lambda xp, a, v, i, m: xp.empty_like(a).shape],
    "full_like": [lambda xp, a, v, i, m: xp.full_like(i, 3)],
    "eye": [lambda xp, a, v, i, m: xp.eye(3, k=1)],
    "identity": [lambda xp, a, v, i, m: xp.identity(2)],
    "tri": [lambda xp, a, v, i, m: xp.tri(3, 4)],
    "indices": [lambda xp, a, v, i, m: xp.indices((2, 3))],
    "linspace": [lambda xp, a, v, i, m: xp.linspace(-1, 1, 6),
                 lambda xp, a, v, i, m: xp.linspace(0.0, v, 3)],
    "logspace": [lambda xp, a, v, i, m: xp.logspace(0, 2, 3)],
    "geomspace": [lambda xp, a, v, i, m: xp.geomspace(1, 1000, 4)],
    "bartlett": [lambda xp, a, v, i, m: xp.bartlett(5), lambda xp, a, v, i, m: xp.bartlett(1)],
    "blackman": [lambda xp, a, v, i, m: xp.blackman(6), lambda xp, a, v, i, m: xp.blackman(0)],
    "hamming": [lambda xp, a, v, i, m: xp.hamming(7)],
    "hanning": [lambda xp, a, v, i, m: xp.hanning(4)],
    "kaiser": [lambda xp, a, v, i, m: xp.kaiser(6, 2.5), lambda xp, a, v, i, m: xp.kaiser(1, 3)],
    "diag_indices": [lambda xp, a, v, i, m: xp.diag_indices(3)],
    "diag_indices_from": [lambda xp, a, v, i, m: xp.diag_indices_from(a[:, :3])],
    "tril_indices": [lambda xp, a, v, i, m: xp.tril_indices(3, 1, 4)],
    "triu_indices": [lambda xp, a, v, i, m: xp.triu_indices(4, -1)],
    "tril_indices_from": [lambda xp, a, v, i, m: xp.tril_indices_from(a)],
    "triu_indices_from": [lambda xp, a, v, i, m: xp.triu_indices_from(a, k=1)],
    "mask_indices": [lambda xp, a, v, i, m: xp.mask_indices(3, xp.triu, 1)],
    "real": [lambda xp, a, v, i, m: xp.real(v), lambda xp, a, v, i, m: xp.real(v * 1j)],
    "imag": [lambda xp, a, v, i, m: xp.imag(a), lambda xp, a, v, i, m: xp.imag(v + 2j)],
    "angle": [lambda xp, a, v, i, m: xp.angle(v), lambda xp, a, v, i, m: xp.angle(v + 1j, True)],
    "iscomplex": [lambda xp, a, v, i, m: xp.iscomplex(v),
                  lambda xp, a, v, i, m: xp.iscomplex(a * 1j)],
    "iscomplexobj": [lambda xp, a, v, i, m: xp.iscomplexobj(i)],
    "isreal": [lambda xp, a, v, i, m: xp.isreal(a), lambda xp, a, v, i, m: xp.isreal(v - 1j)],
    "isrealobj": [lambda xp, a, v, i, m: xp.isrealobj(v)],
    "isneginf": [lambda xp, a, v, i, m: xp.isneginf(v * np.inf)],
    "isposinf": [lambda xp, a, v, i, m: xp.isposinf(v * np.inf),
                 lambda xp, a, v, i, m: xp.isposinf(i)],
    "fix": [lambda xp, a, v, i, m: xp.fix(a), lambda xp, a, v, i, m: xp.fix(i)],
    "round": [lambda xp, a, v, i, m: xp.round(a * 0.37, 1), lambda xp, a, v, i, m: xp.round(i, -1)],
    "around": [lambda xp, a, v, i, m: xp.around(v + 0.5)],
    "isclose": [lambda xp, a, v, i, m: xp.isclose(v, i), lambda xp, a, v, i, m: xp.isclose(a, 0.5)],
    "allclose": [lambda xp, a, v, i, m: xp.allclose(v, v + 1e-9)],
    "array_equal": [lambda xp, a, v, i, m: xp.array_equal(v, i),
                    lambda xp, a, v, i, m: xp.array_equal(v, v, equal_nan=True)],
    "array_equiv": [lambda xp, a, v, i, m: xp.array_equiv(a, a[0])],
    "real_if_close": [lambda xp, a, v, i, m: xp.real_if_close(v + 0j)],
    "nan_to_num": [lambda xp, a, v, i, m: xp.nan_to_num(v * np.inf)],
    "sort_complex": [lambda xp, a, v, i, m: xp.sort_complex(v)],
    "isfortran": [lambda xp, a, v, i, m: xp.isfortran(a.T)],
    "diff": [lambda xp, a, v, i, m: xp.diff(a), lambda xp, a, v, i, m: xp.diff(v, 2, prepend=i)],
    "ediff1d": [lambda xp, a, v, i, m: xp.ediff1d(a, to_begin=v)],
    "dot": [lambda xp, a, v, i, m: xp.dot(a, v), lambda xp, a, v, i, m: xp.dot(v, i)],
    "vdot": [lambda xp, a, v, i, m: xp.vdot(v, i)],
    "inner": [lambda xp, a, v, i, m: xp.inner(a, v), lambda xp, a, v, i, m: xp.inner(v, 2.0)],
    "outer": [lambda xp, a, v, i, m: xp.outer(v, i)],
    "tensordot": [lambda xp, a, v, i, m: xp.tensordot(a, v, 1)],
    "kron": [lambda xp, a, v, i, m: xp.kron(v, i), lambda xp, a, v, i, m: xp.kron(a, 2)],
    "cross": [lambda xp, a, v, i, m: xp.cross(a[:, :3], v[:3])],
    "einsum": [lambda xp, a, v, i, m: xp.einsum("ij,j->i", a, v),
               lambda xp, a, v, i, m: xp.einsum("ij->ji", a)],
    "einsum_path": [lambda xp, a, v, i, m: xp.einsum_path("ij,j->i", a, v)],
    "poly": [lambda xp, a, v, i, m: xp.poly(v), lambda xp, a, v, i, m: xp.poly(a[:, :3])],
    "roots": [lambda xp, a, v, i, m: xp.roots(v)],
    "polyint": [lambda xp, a, v, i, m: xp.polyint(v, 2), lambda xp, a, v, i, m: xp.polyint(i)],
    "polyder": [lambda xp, a, v, i, m: xp.polyder(v), lambda xp, a, v, i, m: xp.polyder(i, 2)],
    "polyfit": [lambda xp, a, v, i, m: xp.polyfit(i, v, 1)],
    "polyval": [lambda xp, a, v, i, m: xp.polyval(v, a), lambda xp, a, v, i, m: xp.polyval(i, 2)],
    "polyadd": [lambda xp, a, v, i, m: xp.polyadd(v, i[:2])],
    "polysub": [lambda xp, a, v, i, m: xp.polysub(v[:3], i)],
    "polymul": [lambda xp, a, v, i, m: xp.polymul(v, i)],
    "polydiv": [lambda xp, a, v, i, m: xp.polydiv(v, i[:2] + 1)],
    "gradient": [lambda xp, a, v, i, m: xp.gradient(v), lambda xp, a, v, i, m: xp.gradient(a, 2.0)],
    "trapezoid": [lambda xp, a, v, i, m: xp.trapezoid(a),
                  lambda xp, a, v, i, m: xp.trapezoid(v, i)],
    "interp": [lambda xp, a, v, i, m: xp.interp(v, [0.0, 1.0, 2.0], [1.0, 3.0, 2.0])],
    "unwrap": [lambda xp, a, v, i, m: xp.unwrap(v * 3.0),
               lambda xp, a, v, i, m: xp.unwrap(a, axis=0)],
    "digitize": [lambda xp, a, v, i, m: xp.digitize(v, [-1.0, 0.0, 2.0]),
                 lambda xp, a, v, i, m: xp.digitize(a, xp.sort(v), right=True)],
    "packbits": [lambda xp, a, v, i, m: xp.packbits(m),
                 lambda xp, a, v, i, m: xp.packbits(a > 0, axis=1, bitorder="little")],
    "unpackbits": [lambda xp, a, v, i, m: xp.unpackbits(i.astype(np.uint8)),
                   lambda xp, a, v, i, m: xp.unpackbits(xp.packbits(m), count=3)],
    "ravel_multi_index": [lambda xp, a, v, i, m: xp.ravel_multi_index((i, i), (4, 5)),
                          lambda xp, a, v, i, m: xp.ravel_multi_index((i, i + 3), (4, 5),
                                                                      mode="clip")],
    "unravel_index": [lambda xp, a, v, i, m: xp.unravel_index(i, (2, 2)),
                      lambda xp, a, v, i, m: xp.unravel_index(i * 3, (3, 4), order="F")],
    "select": [lambda xp, a, v, i, m: xp.select([m, v > 0], [v, i], -1.0),
               lambda xp, a, v, i, m: xp.select([a > 0], [a])],
    "cov": [lambda xp, a, v, i, m: xp.cov(a), lambda xp, a, v, i, m: xp.cov(v, i, bias=True),
            lambda xp, a, v, i, m: xp.cov(a, fweights=i, aweights=v * v)],
    "corrcoef": [lambda xp, a, v, i, m: xp.corrcoef(a), lambda xp, a, v, i, m: xp.corrcoef(v, i)],
    "take_along_axis": [lambda xp, a, v, i, m: xp.take_along_axis(v, i, axis=0),
                        lambda xp, a, v, i, m: xp.take_along_axis(a, i % 3, None)],
}


def _npfuncs() -> dict:
    """npjax's own npfunc functions (tests may make more)."""
    return {name: f for name, f in _dispatch.FUNCTIONS.items()
            if f.__wrapped__.__module__.startswith("npjax")}


def _host(result):
    if isinstance(result, tuple | list):
        return [_host(r) for r in result]
    if isinstance(result, npjax.ndarray | np.generic):
        return np.asarray(result)
    return result


def _check(expected, actual):
    if isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected)
        for e, a in zip(expected, actual):
            _check(e, a)
    elif isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray)
        assert (actual.dtype, actual.shape) == (expected.dtype, expected.shape)
        np.testing.assert_array_equal(actual, expected)
    else:
        assert actual == expected


def test_every_npfunc_function_has_a_case():
    missing = sorted(set(_npfuncs()) - set(CASES))
    assert not missing, f"add lazy-mode cases for: {missing}"


@pytest.mark.parametrize("memory", ["host", "accelerator"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_pending_operands_give_eager_results(name, memory, monkeypatch):
    """Under lazy mode each call gets pending operands (made by a recorded kernel) and must
    give the eager result, whether the function is declared lazy-capable or not; also where
    device arrays are not in host memory, as on an accelerator (``argwhere``'s body gave its
    pending operand to a jax function there, on a TPU)."""
    if memory == "accelerator":
        monkeypatch.setattr(_buckets, "in_host_memory", lambda x: isinstance(x, np.ndarray))
    operands = [_A, _V, _I, _M]
    with npjax.policy(placement="device"):
        eager_ops = [npjax.asarray(x) for x in operands]
        expected = [_host(case(npjax, *eager_ops)) for case in CASES[name]]
    with npjax.policy(mode="lazy", placement="device"):
        pending = [npjax.asarray(x) + np.zeros((), x.dtype) if x.dtype != bool
                   else npjax.logical_and(npjax.asarray(x), True) for x in operands]
        assert all(type(p._value) is _lazy.Lazy and p._value.value is None for p in pending)
        results = [case(npjax, *pending) for case in CASES[name]]
    for e, r in zip(expected, results):
        _check(e, _host(r))


def test_lazy_capability_is_declared():
    """Every npfunc function carries the flag; ``_registry.NOT_LAZY`` names only real npfunc
    functions, each with its reason."""
    functions = _npfuncs()
    assert all(f.lazy is (name not in _registry.NOT_LAZY) for name, f in functions.items())
    assert set(_registry.NOT_LAZY) <= set(functions)
    assert all(_registry.NOT_LAZY.values())


def test_lazy_capable_bodies_get_pending_operands():
    """A lazy-capable body sees ``Lazy`` operands (nothing computed to call it); a body
    declared not lazy-capable sees computed ones."""
    seen = {}
    for name in ("sum", "sort"):
        body = _dispatch.FUNCTIONS[name].__wrapped__

        def spy(a, *args, _body=body, _name=name, **kwargs):
            seen[_name] = type(a)
            return _body(a, *args, **kwargs)

        spy.__annotations__ = {"a": _dispatch.ArrayIn}
        probe = _dispatch.npfunc(spy, name=name)
        _dispatch.FUNCTIONS[name] = getattr(npjax, name)  # leave the table as it was
        with npjax.policy(mode="lazy", placement="device"):
            probe(npjax.asarray(_V) + 0.0)
    assert seen["sum"] is _lazy.Lazy and issubclass(seen["sort"], jax.Array)


def test_no_retry_in_the_call_path():
    """``npfunc`` decides up front whether a body gets pending operands: no ``except
    Exception`` around the body (which reran it on computed values, and ran a user's error
    twice)."""
    source = inspect.getsource(_dispatch.npfunc)
    tree = ast.parse(source.replace("\n    ", "\n") if source.startswith(" ") else source)
    broad = [h for h in ast.walk(tree) if isinstance(h, ast.ExceptHandler)
             and (h.type is None or (isinstance(h.type, ast.Name)
                                     and h.type.id in ("Exception", "BaseException")))]
    assert not broad, "npfunc's call path catches Exception"
    text = pathlib.Path(_dispatch.__file__).read_text()
    assert "except Exception" not in text.split("def _same(")[0]


def test_a_users_error_runs_the_body_once():
    """In lazy mode an error raised by a body propagates as raised, the body run once."""
    calls = []

    @_dispatch.npfunc(name="_lazy_capable_probe")
    def probe(a: _dispatch.ArrayIn) -> object:
        calls.append(type(a))
        raise ValueError("user error")

    with npjax.policy(mode="lazy", placement="device"):
        x = npjax.asarray(_V) + 0.0
        with pytest.raises(ValueError, match="user error"):
            probe(x)
    assert calls == [_lazy.Lazy]
