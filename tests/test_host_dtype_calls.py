"""Calls given or making float64 where the accelerator cannot hold it (``_capabilities
.HOST_DTYPES``: a TPU), compared with NumPy in the two-CPU-device simulation of
``test_lazy_cold`` (device 0 the accelerator, device 1 the host's CPU backend; every array on
the device): value, dtype, flags and exception class as NumPy's, float64 results never on the
accelerator. Found by ``benchmarks/host_dtype_audit.py``."""

from __future__ import annotations

import textwrap

from tests.test_lazy_cold import _two_cpu_devices, pytestmark  # noqa: F401  (the simulation)

SCRIPT = textwrap.dedent("""
    import warnings
    import jax, numpy as np, npjax
    from npjax._execution import _lazy_cold
    from npjax._pure import _capabilities
    home, cold = jax.devices("cpu")
    _capabilities.HOST_DTYPES = {"cpu": frozenset({"float64", "complex128"})}
    _lazy_cold.cold_device = lambda: cold

    def plain(x):
        if isinstance(x, npjax.ndarray):
            where = "host" if x._host() is not None else \\
                "cold" if sorted(x._read().devices()) == [cold] else "home"
            if x.dtype in (np.float64, np.complex128) and where == "home":
                raise AssertionError("float64 on the accelerator")
            return ("array", x.dtype, x.shape, np.asarray(x).tolist())
        if isinstance(x, np.ndarray):
            return ("array", x.dtype, x.shape, x.tolist())
        if isinstance(x, tuple | list):
            return tuple(plain(v) for v in x)
        return (type(x).__name__ if isinstance(x, np.generic) else "py", np.asarray(x).tolist())

    def outcome(xp, fn):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = plain(fn(xp))
            return got, sorted({str(w.message) for w in caught})
        except Exception as exc:
            return ("raised", type(exc).__name__)

    def flags(r, xp):
        return r, r.flags.c_contiguous, r.flags.f_contiguous, r.flags.owndata, xp.isfortran(r)

    def rng(xp, seed=0):
        return xp.random.default_rng(seed)

    CASES = {
        "round_half": lambda xp: xp.round(2.5),
        "round_neg_zero": lambda xp: xp.round(-0.5, 0),
        "apply_float_of_int": lambda xp: xp.apply_along_axis(
            lambda x: x[0] if x[0] > 1 else 0.5, 1, xp.arange(6).reshape(3, 2)),
        "apply_int_then_float": lambda xp: xp.apply_along_axis(
            lambda x: x[0] if x[0] < 1 else 0.5, 1, xp.arange(6).reshape(3, 2)),
        "apply_half": lambda xp: xp.apply_along_axis(lambda x: x * 0.5, 0,
                                                     xp.arange(6).reshape(3, 2)),
        "apply_empty": lambda xp: xp.apply_along_axis(lambda x: 0.0, 0,
                                                      xp.zeros((0, 3), dtype=int)),
        "vectorize_sum": lambda xp: xp.vectorize(lambda x: x.sum() * 1.5,
                                                 signature="(n)->()")(xp.arange(6).reshape(2, 3)),
        "vectorize_scalar": lambda xp: xp.vectorize(lambda x: x / 2, signature="()->()")(9),
        "vectorize_otypes": lambda xp: xp.vectorize(
            lambda x: x.sum(), signature="(n)->()", otypes=[np.float64])(
                xp.arange(6).reshape(2, 3)),
        "vectorize_two": lambda xp: xp.vectorize(
            lambda x, y: (x * y, x.sum() + 0.5), signature="(n),(n)->(n),()")(
                xp.arange(6).reshape(2, 3), xp.arange(3.0)),
        "choice_empty": lambda xp: rng(xp).choice([], 2),
        "choice_empty_none": lambda xp: rng(xp).choice(xp.asarray([]), 0),
        "choice_float_size": lambda xp: rng(xp).choice(xp.asarray(2.5)),
        "permutation_float_scalar": lambda xp: rng(xp).permutation(np.float64(3.5)),
        "legacy_permutation_scalar": lambda xp: xp.random.RandomState(0).permutation(
            xp.asarray(3.5)),
        "normal_bad_scale": lambda xp: rng(xp).normal(0.0, xp.asarray([1.0, -1.0])),
        "poisson_bad_lam": lambda xp: rng(xp).poisson(xp.asarray([-1.0])),
        "integers_float_bounds": lambda xp: rng(xp).integers(xp.asarray([0.0, 1.0]), 5)
                                                .shape,
    }
    def window_loop(xp):  # windows of a float64 (CPU backend) array, a float64 NumPy scalar
        x = xp.arange(48) * 0.5
        for k in range(1, 12):
            x[:k] -= np.float64(1.5) * x[:k][::-1]
        return x

    def stores(xp):  # 0-d float64 values into int64 arrays: NumPy's conversion
        a, b, c = xp.zeros(3, xp.int64), xp.zeros(3, xp.int64), xp.zeros(4, xp.int8)
        a.fill(xp.array(np.nan))
        b[1] = xp.array(2.75)
        b[b == 0] = xp.array(-1.5)
        c[[0, 2]] = xp.asarray([300.5, -7.25])
        c[1:2] = xp.asarray([1e10])
        return a, b, c

    def numpy_outs(xp):  # NumPy arrays as out= of a float64 call: given back themselves
        o, p, q = np.full(3, 4.0), np.full(3, 5.0), np.zeros(3)
        r = xp.sin(xp.arange(3.0), out=o)
        f, i = xp.modf(xp.arange(3.0) / 2, p, q)
        return (r is o, f is p, i is q), o, p, q

    CASES.update(window_loop=window_loop, stores=stores, numpy_outs=numpy_outs)
    for req in (None, "F", ["F", "W"], ["A", "O"], "E", "C", ["OWNDATA"]):
        CASES[f"require_{req}".replace(" ", "")] = lambda xp, req=req: flags(
            xp.require(xp.ones((2, 3)).T, np.float32, req), xp)
        CASES[f"require_f64_{req}".replace(" ", "")] = lambda xp, req=req: flags(
            xp.require(xp.ones((2, 3)).T, None, req), xp)

    # NumPy's stream (random="numpy"): the same numbers as NumPy's generator
    x_n = np.arange(24.0).reshape(4, 6)
    STREAM = {
        "permuted": lambda xp, g: g.permuted(xp.asarray(x_n)),
        "permuted_axis": lambda xp, g: g.permuted(xp.asarray(x_n), axis=1),
        "permutation": lambda xp, g: g.permutation(xp.asarray(x_n), axis=1),
        "choice": lambda xp, g: g.choice(xp.asarray(x_n[0]), 4),
        "choice_axis": lambda xp, g: g.choice(xp.asarray(x_n), 3, axis=1, replace=False),
        "normal": lambda xp, g: g.normal(xp.asarray([0.0, 10.0]), xp.asarray([1.0, 2.0])),
    }
    with npjax.policy(placement="device"):
        for name, fn in CASES.items():
            want, got = outcome(np, fn), outcome(npjax, fn)
            print(name, got == want, "" if got == want else f"| {got} {want}")
        with npjax.policy(random="numpy"):
            for name, fn in STREAM.items():
                want = outcome(np, lambda xp: fn(xp, rng(np, 5)))
                got = outcome(npjax, lambda xp: fn(xp, rng(npjax, 5)))
                print("stream", name, got == want, "" if got == want else f"| {got} {want}")
        with npjax.policy(random="jax"):  # JAX's stream: a permutation of the values
            out = npjax.zeros((4, 6))
            for axis in (None, 0, 1):
                got = rng(npjax).permuted(npjax.asarray(x_n), axis=axis)
                into = rng(npjax).permuted(npjax.asarray(x_n), axis=axis, out=out)
                print("jax_permuted", axis, into is out, np.array_equal(np.asarray(out), got),
                      got.dtype, np.array_equal(np.sort(np.asarray(got), axis=axis),
                                                np.sort(x_n, axis=axis)))
        x = npjax.arange(3.0)  # (a host array: JAX's value of it lives on the CPU backend)
        j = x.to_jax()
        print("to_jax", sorted(j.devices()) == [cold], j.dtype, np.asarray(j).tolist())
        print("to_device", x.to_device(x.device) is x, x.to_device(cold)._read().devices() ==
              {cold}, np.asarray(x.to_device(cold)).tolist())
    """)


def test_float64_calls_match_numpy_where_the_accelerator_cannot_hold_float64():
    """``require``'s flags, ``apply_along_axis``/``vectorize(signature=)`` with float64
    results, ``npjax.random``'s checks (NumPy's exception classes, not npjax's ``HostOnly``)
    and draws given float64 data, ``round`` of a float, values stored into int arrays, and
    the windows of a loop over ``x[:k]`` (no ``where=`` without ``out=`` warning);
    ``to_jax``/``to_device`` of a float64 host array (on the CPU backend); NumPy arrays given
    as ``out=`` given back themselves."""
    lines = _two_cpu_devices(SCRIPT)
    assert len(lines) == 21 + 14 + 6 + 3 + 2, lines
    assert "to_jax True float64 [0.0, 1.0, 2.0]" in lines
    assert "to_device True True [0.0, 1.0, 2.0]" in lines
    verdicts = [ln.split()[:3] for ln in lines if ln.startswith("stream")] + [
        ln.split()[:2] for ln in lines if not ln.startswith(("stream", "jax_permuted", "to_"))]
    assert all(v[-1] == "True" for v in verdicts), [ln for ln in lines if "|" in ln]
    for ln in (ln for ln in lines if ln.startswith("jax_permuted")):
        assert ln.split()[2:] == ["True", "True", "float64", "True"], ln
