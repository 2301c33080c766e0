"""npjax's accurate float32 lowering rules (``npjax/_pure/_accurate.py``) against NumPy, in
ulps, over a dense sweep of float32 bit patterns (every exponent, subnormals, edge values).

``python benchmarks/accurate_ulps.py [--cpu-rules] [--stride N] [NAMES]``: with
``--cpu-rules`` the TPU's rules are registered for the CPU (this measures the formulas; XLA's
CPU arithmetic is IEEE); on a TPU run it without (the rules are the platform's own there).
``--compile-tpu`` instead compiles each rule for a compile-only TPU v5e at 2**20 elements
(libtpu on the PYTHONPATH, JAX_PLATFORMS=cpu) and prints the seconds (``--baseline``: XLA's
own lowering, for comparison).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

_UNARY = ("log", "log2", "log10", "log1p", "exp", "exp2", "expm1", "tanh", "sinh", "cosh",
          "arcsinh", "arccosh", "arctanh")
_BINARY = ("fmod", "remainder", "logaddexp", "logaddexp2", "power")
_COMPLEX = ("log", "log1p", "arcsin", "arccos", "arcsinh", "arccosh", "arctanh", "arctan",
            "tanh", "tan", "exp")


def sweep(stride: int) -> np.ndarray:
    """float32 values: every ``stride``-th bit pattern of each sign, and edge values."""
    pos = np.arange(0, 0x7F800001, stride, dtype=np.int64).astype(np.uint32).view(np.float32)
    edges = np.array([0.0, 1e-45, 1.1754942e-38, 1.1754944e-38, 1e-30, 2.0 ** -25, 1e-7,
                      0.5, 0.625, 1.0, 1.0000001, 0.99999994, 2.0, 3.0, 10.0, 88.0, 88.72283,
                      88.72284, 89.41598, 89.416, 127.9, 128.0, 3.4028235e38, np.inf],
                     np.float32)
    out = np.concatenate([pos, edges, -pos, -edges, [np.nan, -1.0]]).astype(np.float32)
    return out


def ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in float32 ulps (bit patterns ordered as values); NaN == NaN; inf where
    exactly one is NaN."""
    g = got.view(np.int32).astype(np.int64)
    w = want.view(np.int32).astype(np.int64)
    g = np.where(g < 0, -(2**31) - g, g)
    w = np.where(w < 0, -(2**31) - w, w)
    d = np.abs(g - w).astype(np.float64)
    d = np.where(np.isnan(got) & np.isnan(want), 0, d)
    return np.where(np.isnan(got) != np.isnan(want), np.inf, d)


def _subnormal(v: np.ndarray) -> np.ndarray:
    a = np.abs(v)
    return (a > 0) & (a < np.finfo(np.float32).tiny)


def _measure(name: str, jnp_fn, np_fn, args: tuple) -> tuple[float, float, object]:
    """(largest difference, share of elements that differ, the worst case): ulps for real
    results, |got - want| / |want| for complex ones; elements with a subnormal operand or
    result left out (XLA's CPU and the TPU flush them; the table counts them apart)."""
    import jax
    got = np.asarray(jax.jit(jnp_fn)(*args))
    with np.errstate(all="ignore"):
        want = np_fn(*args)
    if got.dtype.kind == "c":
        want = want.astype(np.complex64)
        with np.errstate(all="ignore"):
            d = np.abs(got.astype(np.complex128) - want) / np.abs(want.astype(np.complex128))
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        d = np.where(same, 0, np.nan_to_num(d, nan=np.inf))
        flushed = _subnormal(want.real) | _subnormal(want.imag)
    else:
        d = ulps(got, want.astype(np.float32))
        flushed = _subnormal(want)
    for a in args:
        a = np.broadcast_to(a, d.shape)
        flushed |= (_subnormal(a.real) | _subnormal(a.imag)) if a.dtype.kind == "c" \
            else _subnormal(a)
    d = np.where(flushed, 0, d)
    i = int(np.argmax(d))
    where = tuple(np.asarray(a).ravel()[i] for a in args)
    return float(d.max()), float((d > 0).mean()), (where, got.ravel()[i], want.ravel()[i],
                                                   f"{flushed.mean():.2%} left out")


def measure_all(stride: int, names: list[str]) -> list[tuple]:
    import jax.numpy as jnp
    x = sweep(stride)
    rng = np.random.default_rng(0)
    rows = [(name, "float32", *_measure(name, getattr(jnp, name), getattr(np, name), (x,)))
            for name in _UNARY if not names or name in names]
    n = 400_000
    bits = rng.integers(0, 0x7F800000, (2, n)).astype(np.uint32).view(np.float32)
    signs = np.where(rng.random((2, n)) < 0.5, -1, 1).astype(np.float32)
    a, b = bits * signs
    a[:64], b[:64] = -3.4028235e38, -4.1200732e16
    b[64:128] = np.float32(0.1) * (1 + np.arange(64, dtype=np.float32))
    for name in _BINARY:
        if not names or name in names:
            if name.startswith("logaddexp"):
                a2 = rng.uniform(-100, 100, n).astype(np.float32)
                b2 = (a2 + rng.uniform(-30, 30, n)).astype(np.float32)
                args = (a2, b2)
            elif name == "power":  # results mostly in range: |y log x| up to 80
                a2 = np.exp(rng.uniform(-20, 20, n)).astype(np.float32)
                b2 = rng.uniform(-4, 4, n).astype(np.float32)
                b2[: n // 4] = np.round(b2[: n // 4] * 8)  # integer exponents too
                args = (a2, b2)
            else:
                args = (a, b)
            rows.append((name, "float32", *_measure(name, getattr(jnp, name),
                                                    getattr(np, name), args)))
    re = rng.standard_normal(n) * np.exp(rng.uniform(-20, 20, n))
    im = rng.standard_normal(n) * np.exp(rng.uniform(-20, 20, n))
    z = (re + 1j * im).astype(np.complex64)
    z[:3] = [1 + 1j, 0.6 + 0.8j, -0.5 + 1e-3j]
    rows += [(name, "complex64", *_measure(name, getattr(jnp, name), getattr(np, name), (z,)))
             for name in _COMPLEX if not names or name in names]
    return rows


def compile_seconds(rules: bool = True) -> list[tuple[str, float]]:
    """Seconds to compile each rule's primitive for a compile-only TPU v5e, 2**20 float32
    (``rules=False``: XLA's own lowering, npjax not imported)."""
    for k, v in {"TPU_ACCELERATOR_TYPE": "v5litepod-1", "TPU_WORKER_HOSTNAMES": "localhost",
                 "TPU_SKIP_MDS_QUERY": "1"}.items():
        os.environ.setdefault(k, v)
    import jax
    import jax.numpy as jnp
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    jax.config.update("jax_enable_compilation_cache", False)  # (its writes were timed too)
    if rules:
        import npjax  # noqa: F401  (installs the rules for "tpu")
    topo = topologies.get_topology_desc("v5e:1x1", "tpu", chips_per_host_bounds=(1, 1, 1),
                                        num_slices=1, wrap=(False, False, False))
    sharding = SingleDeviceSharding(topo.devices[0])
    out = []
    cases = [(name, getattr(jnp, name), 1, np.float32) for name in _UNARY]
    cases += [(name, getattr(jnp, name), 2, np.float32) for name in _BINARY]
    cases += [(f"{name} complex64", getattr(jnp, name), 1, np.complex64) for name in _COMPLEX]
    cases += [("power complex64", jnp.power, 2, np.complex64),
              ("log float16", jnp.log, 1, np.float16)]
    warm = jax.ShapeDtypeStruct((2**20,), np.float32, sharding=sharding)
    jax.jit(jnp.sqrt).trace(warm).lower(lowering_platforms=("tpu",)).compile()
    for name, fn, arity, dt in cases:
        spec = jax.ShapeDtypeStruct((2**20,), dt, sharding=sharding)
        lowered = jax.jit(fn).trace(*([spec] * arity)).lower(lowering_platforms=("tpu",))
        t = time.perf_counter()
        lowered.compile()
        out.append((name, time.perf_counter() - t))
    return out


def main(argv: list[str]) -> None:
    if "--compile-tpu" in argv:
        mine = compile_seconds("--baseline" not in argv)
        print("| function | compile s (compile-only v5e, 2**20) |\n|---|---:|")
        for name, s in mine:
            print(f"| {name} | {s:.2f} |")
        return
    stride = 1021
    if "--stride" in argv:
        stride = int(argv[argv.index("--stride") + 1])
    if "--cpu-rules" in argv:
        from npjax._pure import _accurate
        assert _accurate.install_accurate(("cpu",))
    else:
        import jax

        import npjax  # noqa: F401  (registers the rules for the platforms that take them)
        print(f"platform: {jax.default_backend()}\n")
    names = [a for a in argv if not a.startswith("--") and not a.isdigit()]
    print("| function | dtype | max ulps (complex: relative) | share differing | worst "
          "(input, got, want, share with a subnormal left out) |")
    print("|---|---|---:|---:|---|")
    for name, dt, worst, share, at in measure_all(stride, names):
        print(f"| {name} | {dt} | {worst:g} | {share:.2%} | {at} |")


if __name__ == "__main__":
    main(sys.argv[1:])
