"""The calls that crashed or compiled for a minute on a TPU, through npjax, against NumPy.

Each case runs twice under the default policy (first call: compile included), and once in
NumPy; one line per case with both times and the largest relative difference. Cases run in
order of risk, the ones that once aborted the process last, and each line is printed as it
ends, so a cut run keeps what it measured.

    python benchmarks/tpu_smoke.py [--only REGEX]
"""

from __future__ import annotations

import re
import sys
import time

import numpy

import npjax


def _cases(np):  # np: numpy or npjax
    rng = numpy.random.default_rng(0)
    a1024 = rng.standard_normal((1024, 1024)) + 1024 * numpy.eye(1024)
    a512 = rng.standard_normal((512, 512)) + 512 * numpy.eye(512)
    b1024 = rng.standard_normal(1024)
    sig = rng.standard_normal(2**20)
    t = numpy.linspace(0, 2 * numpy.pi, 4096)
    x = numpy.linspace(-2, 1, 256)
    y = numpy.linspace(-1.5, 1.5, 256)
    ia = rng.integers(-2**20, 2**20, (256, 256))
    c64 = a512[:64, :64] + 1j * a512[64:128, :64].T

    def mandel():
        c = np.asarray(x)[None, :] + 1j * np.asarray(y)[:, None]
        z = np.zeros_like(c)
        k = np.zeros(c.shape, dtype=int)
        for _ in range(30):
            m = np.abs(z) <= 2
            z[m] = z[m] ** 2 + c[m]
            k += m
        return k

    return [
        ("solve float64 1024", lambda: np.linalg.solve(np.asarray(a1024), np.asarray(b1024))),
        ("inv float64 512", lambda: np.linalg.inv(np.asarray(a512))),
        ("lstsq float64 1024x64", lambda: np.linalg.lstsq(np.asarray(a1024[:, :64]),
                                                         np.asarray(b1024))[0]),
        ("fft float64 2^20", lambda: np.fft.fft(np.asarray(sig))),
        ("rfft/irfft float64 64x65536", lambda: np.fft.irfft(
            np.fft.rfft(np.asarray(sig).reshape(16, 65536)), n=65536)),
        ("sort float64 2^20", lambda: np.sort(np.asarray(sig))),
        ("median float64 2^20", lambda: np.median(np.asarray(sig))),
        ("percentile float32 1024x1024", lambda: np.percentile(
            np.asarray(sig.astype(np.float32).reshape(1024, 1024)), [5, 50, 95], axis=1)),
        ("unique float64 2^16", lambda: np.unique(np.asarray(sig[:2**16].round(2)))),
        ("searchsorted float64 4096", lambda: np.searchsorted(
            np.sort(np.asarray(sig[:4096])), np.asarray(sig[-100:]))),
        ("matmul int64 256", lambda: np.asarray(ia) @ np.asarray(ia.T)),
        ("matmul int32 256", lambda: np.asarray(ia.astype(np.int32) // 2**12)
            @ np.asarray(ia.T.astype(np.int32) // 2**12)),
        ("contour integral complex128", lambda: np.sum(
            np.exp(1j * np.asarray(t)) ** 3 / (np.exp(1j * np.asarray(t)) - 0.5))),
        ("eigvalsh float64 384", lambda: np.linalg.eigvalsh(
            np.asarray(a512[:384, :384] @ a512[:384, :384].T))),
        ("cumsum int64 2^20", lambda: np.cumsum(np.arange(2**20))),
        ("cumsum float64 2^20", lambda: np.cumsum(np.asarray(sig))),
        ("cumsum int32 2^20", lambda: np.cumsum(np.arange(2**20, dtype=np.int32))),
        ("cumsum float32 2^20", lambda: np.cumsum(np.asarray(sig.astype(np.float32)))),
        ("fft2 float64 256x256", lambda: np.fft.fft2(np.asarray(a512[:256, :256]))),
        ("astype complex128 512x512", lambda: np.asarray(a512).astype(complex)),
        ("complex128 to complex64 64x64", lambda: np.asarray(c64).astype(np.complex64)),
        ("solve complex128 64", lambda: np.linalg.solve(np.asarray(c64), np.asarray(c64[0]))),
        ("cholesky complex128 64", lambda: np.linalg.cholesky(
            np.asarray(c64) @ np.asarray(c64).conj().T)),
        ("eigvals float32 64", lambda: np.linalg.eigvals(
            np.asarray(a512[:64, :64].astype(np.float32)))),
        ("mandelbrot complex128 masks", mandel),
    ]


def _diff(got, want) -> float:
    got, want = numpy.asarray(got), numpy.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return float("inf")
    if want.dtype.kind in "biu":
        return float(numpy.any(got != want))
    scale = numpy.maximum(numpy.abs(want).max(initial=0), numpy.finfo(numpy.float64).tiny)
    return float(numpy.abs(got - want).max(initial=0) / scale)


def main(argv: list[str]) -> int:
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    ours, theirs = _cases(npjax), _cases(numpy)
    for (name, fn), (_, ref) in zip(ours, theirs):
        if only and not re.search(only, name):
            continue
        t0 = time.perf_counter()
        want = ref()
        t_np = time.perf_counter() - t0
        try:
            t0 = time.perf_counter()
            got = numpy.asarray(fn())
            first = time.perf_counter() - t0
            t0 = time.perf_counter()
            got = numpy.asarray(fn())
            again = time.perf_counter() - t0
            line = (f"first {first:7.2f} s  again {again * 1e3:9.1f} ms  NumPy "
                    f"{t_np * 1e3:8.1f} ms  max rel diff {_diff(got, want):.1e}")
        except Exception as exc:  # the line says what went wrong; the next case runs
            line = f"{type(exc).__name__}: {str(exc)[:200]}"
        print(f"{name:32s} {line}", flush=True)
    routes = npjax.stats()["host_routes"]
    print("host routes:", [(r["family"], r["dtype"], r["count"]) for r in routes])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
