"""npjax arrays in pandas, matplotlib and SciPy calls (scipy.sparse's operators too), each
against the same call on NumPy arrays (values, dtype, result type), under the default
placement and with every array on the device: ``python benchmarks/third_party.py`` (needs
pandas, matplotlib and SciPy).

``--numpy-subclass`` runs the calls on a stand-in for host arrays as ``numpy.ndarray``
subclass instances (the redesign docs/interop.md weighs): a NumPy subclass whose ufuncs and
functions run NumPy's and return the subclass. It prints each call that does not give NumPy's
result; docs/interop.md quotes the counts."""

from __future__ import annotations

import argparse
import contextlib
import warnings

import numpy as np

import npjax

V = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
K = np.array([0, 1, 0, 1, 1])
Z = np.sin(np.arange(48.0).reshape(6, 8) / 5.0)


def _calls(pd, plt, colors, matplotlib, sp, st, ndi, sig, sparse):
    """name -> fn(xp, v, k, z, m): v, k, z, m the values, keys, a 2-d field and a mask."""
    s = sparse.csr_array(np.eye(6, 8))
    s_matrix = sparse.csr_matrix(np.eye(6, 8))

    def fig():
        return plt.figure().add_subplot()

    def assigned(frame, name, values):
        frame[name] = values
        return frame

    return {
        "Series(x)": lambda xp, v, k, z, m: pd.Series(v),
        "DataFrame({a: x})": lambda xp, v, k, z, m: pd.DataFrame({"a": v, "k": k}),
        "DataFrame(2-d)": lambda xp, v, k, z, m: pd.DataFrame(z),
        "Series.groupby(key)": lambda xp, v, k, z, m: pd.Series(V).groupby(k).sum(),
        "DataFrame.groupby(key)": lambda xp, v, k, z, m: pd.DataFrame({"v": V}).groupby(k)
        .mean(),
        "s.loc[mask]": lambda xp, v, k, z, m: pd.Series(V).loc[m],
        "s[mask]": lambda xp, v, k, z, m: pd.Series(V)[m],
        "df[mask]": lambda xp, v, k, z, m: pd.DataFrame({"v": V})[m],
        "s[mask] = x[mask]": lambda xp, v, k, z, m: assigned(pd.Series(V.copy()), m, v[m]),
        "s.iloc[indices]": lambda xp, v, k, z, m: pd.Series(V).iloc[k],
        "Series + x": lambda xp, v, k, z, m: pd.Series(V) + v,
        "x + Series": lambda xp, v, k, z, m: v + pd.Series(V),
        "x * DataFrame": lambda xp, v, k, z, m: z[:, :2] * pd.DataFrame(np.ones((6, 2))),
        "add(x, Series)": lambda xp, v, k, z, m: xp.add(v, pd.Series(V)),
        "exp(Series)": lambda xp, v, k, z, m: xp.exp(pd.Series(V)),
        "x == Series": lambda xp, v, k, z, m: v == pd.Series(V),
        "s.where(mask)": lambda xp, v, k, z, m: pd.Series(V).where(m),
        "s.isin(x)": lambda xp, v, k, z, m: pd.Series(V).isin(v),
        "Index(x)": lambda xp, v, k, z, m: pd.Index(v),
        "Categorical(x)": lambda xp, v, k, z, m: pd.Categorical(k),
        "cut": lambda xp, v, k, z, m: pd.cut(v, 2, labels=False),
        "qcut": lambda xp, v, k, z, m: pd.qcut(v, 2, labels=False),
        "assign": lambda xp, v, k, z, m: pd.DataFrame({"v": V}).assign(w=v),
        "df['w'] = x": lambda xp, v, k, z, m: assigned(pd.DataFrame({"v": V}), "w", v),
        "isna": lambda xp, v, k, z, m: pd.isna(v),
        "pd.unique(x)": lambda xp, v, k, z, m: pd.unique(k),
        "to_datetime": lambda xp, v, k, z, m: pd.to_datetime(k, unit="s"),
        "concat": lambda xp, v, k, z, m: pd.concat([pd.Series(v), pd.Series(v)]).to_numpy(),
        "set_index(x)": lambda xp, v, k, z, m: pd.DataFrame({"v": V}).set_index(k),
        "where(Series > 2, x, 0)": lambda xp, v, k, z, m: xp.where(pd.Series(V) > 2, v, 0),
        "round(Series)": lambda xp, v, k, z, m: xp.round(pd.Series(V) / 3, 2),
        "cumsum(Series)": lambda xp, v, k, z, m: xp.cumsum(pd.Series(V)),
        "transpose(DataFrame)": lambda xp, v, k, z, m: xp.transpose(pd.DataFrame(z)),
        "LightSource.shade": lambda xp, v, k, z, m: colors.LightSource(315, 45).shade(
            z, cmap=matplotlib.colormaps["viridis"], vert_exag=2),
        "LightSource.hillshade": lambda xp, v, k, z, m: colors.LightSource(315, 45)
        .hillshade(z),
        "Normalize()(x)": lambda xp, v, k, z, m: colors.Normalize()(z),
        "LogNorm()(x)": lambda xp, v, k, z, m: colors.LogNorm()(z + 2),
        "colormap(x)": lambda xp, v, k, z, m: matplotlib.colormaps["viridis"](z),
        "to_rgba_array": lambda xp, v, k, z, m: colors.to_rgba_array(abs(z[:3, :3])),
        "rgb_to_hsv": lambda xp, v, k, z, m: colors.rgb_to_hsv(abs(z[:, :3])),
        "plot": lambda xp, v, k, z, m: fig().plot(v, v)[0].get_xydata(),
        "imshow": lambda xp, v, k, z, m: fig().imshow(z).get_array(),
        "hist": lambda xp, v, k, z, m: fig().hist(v)[0],
        "contour": lambda xp, v, k, z, m: fig().contour(z).levels,
        "scatter": lambda xp, v, k, z, m: fig().scatter(v, v).get_offsets(),
        "fill_between": lambda xp, v, k, z, m: fig().fill_between(v, v, 0).get_paths()[0]
        .vertices,
        "pcolormesh": lambda xp, v, k, z, m: fig().pcolormesh(z).get_array(),
        "errorbar": lambda xp, v, k, z, m: fig().errorbar(v, v, yerr=v * 0.1).lines[0]
        .get_xydata(),
        "bar": lambda xp, v, k, z, m: [r.get_height() for r in fig().bar(v, v)],
        "special.erf": lambda xp, v, k, z, m: sp.erf(z),
        "special.logsumexp": lambda xp, v, k, z, m: sp.logsumexp(z, axis=0),
        "special.softmax": lambda xp, v, k, z, m: sp.softmax(z, axis=1),
        "special.comb": lambda xp, v, k, z, m: sp.comb(v, 2),
        "special.xlogy": lambda xp, v, k, z, m: sp.xlogy(v, v),
        "special.erf(out=)": lambda xp, v, k, z, m: sp.erf(v, out=v * 0),
        "stats.norm.pdf": lambda xp, v, k, z, m: st.norm.pdf(v),
        "stats.zscore": lambda xp, v, k, z, m: st.zscore(v),
        "stats.describe": lambda xp, v, k, z, m: st.describe(v).mean,
        "ndimage.gaussian_filter": lambda xp, v, k, z, m: ndi.gaussian_filter(z, 1),
        "ndimage.label": lambda xp, v, k, z, m: ndi.label(z > 0)[0],
        "signal.convolve": lambda xp, v, k, z, m: sig.convolve(v, v),
        "signal.lfilter": lambda xp, v, k, z, m: sig.lfilter([1, -1], [1], v),
        "x @ sparse": lambda xp, v, k, z, m: z.T @ s,
        "x + sparse": lambda xp, v, k, z, m: z + s,
        "sparse + x": lambda xp, v, k, z, m: s + z,
        "sparse @ x": lambda xp, v, k, z, m: s @ z.T,
        "x - sparse matrix": lambda xp, v, k, z, m: z - s_matrix,
        "x * sparse matrix": lambda xp, v, k, z, m: z.T * s_matrix,
    }


class HostStandIn(np.ndarray):
    """A host array as a NumPy subclass would be: NumPy's memory, npjax's protocols (here
    NumPy's own functions, results of this class)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = [_plain(i) for i in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(_plain(o) for o in kwargs["out"])
        return _mine(getattr(ufunc, method)(*inputs, **kwargs))

    def __array_function__(self, func, types, args, kwargs):
        return _mine(func(*_plain(args), **_plain(kwargs)))


def _plain(x):
    if isinstance(x, HostStandIn):
        return x.view(np.ndarray)
    if type(x) in (list, tuple):
        return type(x)(_plain(i) for i in x)
    if type(x) is dict:
        return {k: _plain(v) for k, v in x.items()}
    return x


def _mine(r):
    if type(r) is tuple:
        return tuple(_mine(x) for x in r)
    return r.view(HostStandIn) if type(r) is np.ndarray else r


def _compare(pd, got, want) -> str:
    if isinstance(want, pd.Series):
        pd.testing.assert_series_equal(got, want)
    elif isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want)
    elif isinstance(want, pd.Index):
        pd.testing.assert_index_equal(got, want)
    else:
        g, w = np.asarray(got), np.asarray(want)
        np.testing.assert_array_equal(g, w)
        if g.dtype != w.dtype:
            raise AssertionError(f"dtype {g.dtype}, NumPy's {w.dtype}")
        if isinstance(want, np.ndarray) and not hasattr(got, "__array_function__"):
            raise AssertionError(f"a {type(got).__name__}, NumPy's an array")
    return "ok"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numpy-subclass", action="store_true",
                        help="run the calls on a numpy.ndarray subclass stand-in")
    options = parser.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    import scipy.ndimage as ndi
    import scipy.sparse as sparse
    import scipy.signal as sig
    import scipy.special as sp
    import scipy.stats as st
    from matplotlib import colors

    calls = _calls(pd, plt, colors, matplotlib, sp, st, ndi, sig, sparse)
    placements = ("numpy subclass",) if options.numpy_subclass else ("auto", "device")
    for placement in placements:
        failed = 0
        for name, call in calls.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = call(np, V, K, Z, K == 1)
                under = npjax.policy(placement="device") if placement == "device" else \
                    contextlib.nullcontext()
                try:
                    with under:
                        if options.numpy_subclass:
                            args = [x.view(HostStandIn) for x in (V, K, Z, K == 1)]
                        else:
                            args = [npjax.asarray(x) for x in (V, K, Z, K == 1)]
                        got = call(npjax, *args)
                    outcome = _compare(pd, got, want)
                except Exception as exc:  # each failure is reported
                    outcome = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
            plt.close("all")
            if outcome != "ok":
                failed += 1
                print(f"{placement:8} {name:24} {outcome}")
        print(f"{placement}: {len(calls) - failed} of {len(calls)} calls give NumPy's result")


if __name__ == "__main__":
    main()
