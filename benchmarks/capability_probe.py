"""What a JAX backend computes, and how exactly: the probe behind npjax's capability table.

Runs, on the default JAX backend, (1) the operation families that backends differ on (LU and
the other LAPACK-style decompositions, FFTs, scans, sorts, scatters, reductions, elementwise
math, float64 range) for each dtype at sizes a script uses, recording the compile time, the
run time and the largest relative difference from NumPy; (2) every npjax ufunc and every
``npfunc`` function (the cases of ``tests/test_lazy_capable.py``) on each dtype with every
array on the device, recording which raise an error NumPy does not raise; (3) the same on
arrays of one element of bool, int8, uint8, int16 and float16 (keys ``edge:...``); (4)
``sort``, ``argsort`` and ``lexsort`` of every dtype and shape, empty and one-element ones
too (keys ``sort:...``).

A case can abort the process (XLA on a TPU has done so for complex128) or compile for
minutes, so a driver runs the cases in a worker process and starts a new one after an abort
or a case that outlives ``--case-timeout``; each result is one line of
``OUT/capability_probe.jsonl`` (status ``ok``, ``differs``, ``error``, ``abort``, ``timeout``).
``npjax/_pure/_capabilities.py`` holds the table read off these results; rerun this on a new
backend or JAX version and update it.

    python benchmarks/capability_probe.py --out DIR [--only REGEX] [--total SECONDS]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DTYPES = ("float32", "float64", "complex64", "complex128")


# ----------------------------------------------------------------------------------------
# Part 1: operation families x dtypes, raw JAX against NumPy
# ----------------------------------------------------------------------------------------

def _families():
    """(key, build) pairs; build() -> (jax function, args as NumPy arrays, NumPy function)."""
    import numpy as np
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl

    rng = np.random.default_rng(0)

    def mat(n, dt, spd=False):
        a = rng.standard_normal((n, n))
        if np.dtype(dt).kind == "c":
            a = a + 1j * rng.standard_normal((n, n))
        if spd:
            a = a @ a.conj().T + n * np.eye(n)
        else:
            a = a + n * np.eye(n)
        return a.astype(dt)

    def vec(n, dt, lo=-3.0, hi=3.0):
        x = rng.uniform(lo, hi, n)
        if np.dtype(dt).kind == "c":
            x = x + 1j * rng.uniform(lo, hi, n)
        return x.astype(dt)

    out = []

    def add(key, build):
        out.append((key, build))

    for dt in DTYPES:
        n = 128
        add(f"linalg.lu/{dt}", lambda dt=dt, n=n: (
            lambda a: jsl.lu_factor(a)[0], [mat(n, dt)],
            None))
        add(f"linalg.solve/{dt}", lambda dt=dt, n=n: (
            jnp.linalg.solve, [mat(n, dt), vec(n, dt)], np.linalg.solve))
        add(f"linalg.inv/{dt}", lambda dt=dt, n=n: (jnp.linalg.inv, [mat(n, dt)], np.linalg.inv))
        add(f"linalg.det/{dt}", lambda dt=dt, n=n: (
            jnp.linalg.det, [mat(16, dt)], np.linalg.det))
        add(f"linalg.slogdet/{dt}", lambda dt=dt, n=n: (
            lambda a: jnp.linalg.slogdet(a)[1], [mat(n, dt)], lambda a: np.linalg.slogdet(a)[1]))
        add(f"linalg.cholesky/{dt}", lambda dt=dt, n=n: (
            jnp.linalg.cholesky, [mat(n, dt, spd=True)], np.linalg.cholesky))
        add(f"linalg.triangular_solve/{dt}", lambda dt=dt, n=n: (
            lambda a, b: jsl.solve_triangular(a, b, lower=True),
            [np.tril(mat(n, dt)), vec(n, dt)],
            lambda a, b: np.linalg.solve(a, b)))
        add(f"linalg.qr/{dt}", lambda dt=dt, n=n: (
            lambda a: jnp.abs(jnp.linalg.qr(a)[1]), [mat(n, dt)],
            lambda a: np.abs(np.linalg.qr(a)[1])))
        add(f"linalg.svd/{dt}", lambda dt=dt, n=n: (
            lambda a: jnp.linalg.svd(a, compute_uv=False), [mat(n, dt)],
            lambda a: np.linalg.svd(a, compute_uv=False)))
        add(f"linalg.svd_uv/{dt}", lambda dt=dt, n=n: (
            lambda a: jnp.linalg.svd(a)[1], [mat(n, dt)], lambda a: np.linalg.svd(a)[1]))
        add(f"linalg.eigh/{dt}", lambda dt=dt, n=n: (
            lambda a: jnp.linalg.eigh(a)[0], [mat(n, dt, spd=True)],
            lambda a: np.linalg.eigh(a)[0]))
        add(f"linalg.eigvalsh_384/{dt}", lambda dt=dt: (
            jnp.linalg.eigvalsh, [mat(384, dt, spd=True)], np.linalg.eigvalsh))
        add(f"linalg.eig/{dt}", lambda dt=dt: (
            lambda a: jnp.sort(jnp.abs(jnp.linalg.eigvals(a))), [mat(32, dt)],
            lambda a: np.sort(np.abs(np.linalg.eigvals(a)))))
        add(f"linalg.lstsq/{dt}", lambda dt=dt, n=n: (
            lambda a, b: jnp.linalg.lstsq(a, b)[0], [mat(n, dt)[:, :64], vec(n, dt)],
            lambda a, b: np.linalg.lstsq(a, b)[0]))
        add(f"linalg.pinv/{dt}", lambda dt=dt, n=n: (
            jnp.linalg.pinv, [mat(64, dt)], np.linalg.pinv))
        add(f"matmul/{dt}", lambda dt=dt: (
            jnp.matmul, [mat(256, dt), mat(256, dt)], np.matmul))
        add(f"matmul_highest/{dt}", lambda dt=dt: (
            lambda a, b: jnp.matmul(a, b, precision="highest"),
            [mat(256, dt), mat(256, dt)], np.matmul))
        # FFTs
        for name, real_only in (("fft", False), ("ifft", False), ("rfft", True),
                                ("irfft", False), ("fft2", False)):
            if real_only and dt.startswith("complex"):
                continue
            shape = (64, 64) if name == "fft2" else (4096,)
            add(f"fft.{name}/{dt}", lambda dt=dt, name=name, shape=shape: (
                getattr(jnp.fft, name), [vec(int(np.prod(shape)), dt).reshape(shape)],
                getattr(np.fft, name)))
        add(f"fft.fft_2e20/{dt}", lambda dt=dt: (jnp.fft.fft, [vec(2**20, dt)], np.fft.fft))

    big = 2**20
    for dt in ("int32", "int64", "float32", "float64", "complex128"):
        small = dt.startswith("int")

        def data(dt=dt, small=small):
            if small:
                return rng.integers(-100, 100, big).astype(dt)
            return vec(big, dt, 0.5, 1.5)

        add(f"cumsum/{dt}", lambda data=data: (jnp.cumsum, [data()], np.cumsum))
        add(f"cumprod/{dt}", lambda data=data: (
            lambda x: jnp.cumprod(x[:64]), [data()], lambda x: np.cumprod(x[:64])))
        add(f"sum/{dt}", lambda data=data: (jnp.sum, [data()], np.sum))
        add(f"prod/{dt}", lambda data=data: (
            lambda x: jnp.prod(x[:64]), [data()], lambda x: np.prod(x[:64])))
        if not dt.startswith("complex"):
            add(f"max/{dt}", lambda data=data: (jnp.max, [data()], np.max))
            add(f"sort/{dt}", lambda data=data: (jnp.sort, [data()], np.sort))
            add(f"argsort/{dt}", lambda data=data: (
                lambda x: jnp.argsort(x, stable=True), [data()],
                lambda x: np.argsort(x, kind="stable")))
            add(f"searchsorted/{dt}", lambda data=data: (
                lambda x: jnp.searchsorted(jnp.sort(x), x[:1000]), [data()],
                lambda x: np.searchsorted(np.sort(x), x[:1000])))
        add(f"scatter_add/{dt}", lambda data=data, dt=dt: (
            lambda x, i: jnp.zeros(1000, dt).at[i].add(x), [data(), rng.integers(0, 1000, big)],
            lambda x, i: np.bincount(i, x.real, 1000).astype(dt)
            + (1j * np.bincount(i, x.imag, 1000) if dt.startswith("complex") else 0)))

    ew64 = {
        "float64": ["exp", "log", "sin", "cos", "tanh", "cbrt", "arctan2", "power", "sqrt",
                    "divide", "hypot", "log1p", "expm1", "arcsin", "floor_divide", "remainder"],
        "int64": ["multiply", "floor_divide", "remainder", "right_shift", "left_shift",
                  "power", "bitwise_xor"],
        "complex128": ["multiply", "divide", "absolute", "exp", "log", "sqrt", "power",
                       "angle", "sin", "tanh", "reciprocal"],
        "complex64": ["multiply", "divide", "absolute", "exp", "sqrt", "power"],
        "float32": ["exp", "log", "sin", "tanh", "cbrt", "arctan2", "hypot", "power"],
    }
    binary = {"arctan2", "power", "divide", "hypot", "floor_divide", "remainder", "right_shift",
              "left_shift", "multiply", "bitwise_xor"}
    for dt, names in ew64.items():
        for name in names:
            def build(dt=dt, name=name):
                if dt == "int64":
                    x = rng.integers(1, 2**20, big, dtype=np.int64)
                    y = rng.integers(1, 30, big, dtype=np.int64)
                else:
                    x, y = vec(big, dt, 0.1, 0.9), vec(big, dt, 0.1, 0.9)
                args = [x, y] if name in binary else [x]
                return getattr(jnp, name), args, getattr(np, name)
            add(f"ew.{name}/{dt}", build)

    # float64's range on emulating backends: tiny, huge and subnormal values
    add("range.mul_huge/float64", lambda: (
        lambda x: x * 1e200, [np.array([1e100, 1e150, -3e107])], lambda x: x * 1e200))
    add("range.mul_tiny/float64", lambda: (
        lambda x: x * 1e-200, [np.array([1e-100, 1e-150, -3e-107])], lambda x: x * 1e-200))
    add("range.subnormal/float64", lambda: (
        lambda x: x / 1e10, [np.array([1e-300, 2.5e-310, 1e-308])], lambda x: x / 1e10))
    add("range.exp700/float64", lambda: (
        jnp.exp, [np.array([700.0, -700.0, 500.0])], np.exp))
    add("range.int64_big/int64", lambda: (
        lambda x: x * 3 + 1, [np.array([2**61, -(2**61), 2**40 + 7])], lambda x: x * 3 + 1))
    add("range.f32_subnormal/float32", lambda: (
        lambda x: x / np.float32(1e3), [np.array([1e-38, 3e-39], np.float32)],
        lambda x: x / np.float32(1e3)))

    def mandel_build(dt):
        import jax
        c = (vec(1 << 16, "float64", -2, 1) + 1j * vec(1 << 16, "float64", -1.5, 1.5)).astype(dt)

        def jfn(c):
            def body(_, s):
                z, k = s
                m = jnp.abs(z) <= 2
                return jnp.where(m, z * z + c, z), k + m
            return jax.lax.fori_loop(0, 50, body, (jnp.zeros_like(c), jnp.zeros(c.shape, int)))[1]

        def nfn(c):
            z, k = np.zeros_like(c), np.zeros(c.shape, int)
            with np.errstate(all="ignore"):
                for _ in range(50):
                    m = np.abs(z) <= 2
                    z = np.where(m, z * z + c, z)
                    k += m
            return k
        return jfn, [c], nfn

    for dt in ("complex64", "complex128"):
        add(f"mandelbrot_loop/{dt}", lambda dt=dt: mandel_build(dt))
    add("contour_sum/complex128", lambda: (
        lambda t: jnp.sum(jnp.exp(1j * t) ** 3 / (jnp.exp(1j * t) - 0.5)),
        [np.linspace(0, 2 * np.pi, 4096)],
        lambda t: np.sum(np.exp(1j * t) ** 3 / (np.exp(1j * t) - 0.5))))
    add("int_power_complex/complex128", lambda: (
        lambda z: z ** 5, [vec(4096, "complex128")], lambda z: z ** 5))
    return out


def _rel_diff(got, ref) -> float:
    import numpy as np
    got, ref = np.asarray(got), np.asarray(ref)
    if got.shape != ref.shape:
        return float("inf")
    if (ref.dtype.kind in "biu" and got.dtype.kind in "biu") or ref.dtype.kind not in "biufc":
        return float(np.any(got != ref))  # (exact; strings and objects too)
    with np.errstate(all="ignore"):
        g, r = got.astype(np.complex128), ref.astype(np.complex128)
        same = (g == r) | (np.isnan(g) & np.isnan(r))
        # relative to each element, but entries far below the array's largest (an exact
        # zero of NumPy's against a round-off residue) relative to 1e-6 of that
        finite = np.abs(r)[np.isfinite(r)]
        floor = 1e-6 * finite.max() if finite.size else 0.0
        d = np.abs(g - r) / np.maximum(np.abs(r), max(floor, np.finfo(np.float64).tiny))
        d = np.where(same, 0.0, d)
    return float(np.nanmax(d)) if d.size else 0.0


def _run_family(build):
    import jax
    import numpy as np
    jfn, args, nfn = build()
    jit = jax.jit(jfn)
    t0 = time.perf_counter()
    compiled = jit.lower(*args).compile()
    t1 = time.perf_counter()
    got = jax.block_until_ready(compiled(*args))
    t2 = time.perf_counter()
    got = jax.block_until_ready(compiled(*args))
    t3 = time.perf_counter()
    rec = {"compile_s": round(t1 - t0, 3), "run_ms": round((t3 - t2) * 1e3, 3),
           "first_ms": round((t2 - t1) * 1e3, 3)}
    if nfn is not None:
        t4 = time.perf_counter()
        with np.errstate(all="ignore"):
            ref = nfn(*args)
        rec["numpy_ms"] = round((time.perf_counter() - t4) * 1e3, 3)
        rec["rel_diff"] = _rel_diff(got, ref)
        rec["dtype"] = str(np.asarray(got).dtype)
    return rec


# ----------------------------------------------------------------------------------------
# Part 2: npjax's own functions and ufuncs on each dtype, every array on the device
# ----------------------------------------------------------------------------------------

_NPJAX_DTYPES = ("bool", "int64", "float32", "float64", "complex128")


def _npjax_cases():
    import numpy as np
    import npjax
    sys.path.insert(0, str(ROOT))
    from tests.test_lazy_capable import CASES

    out = []
    for name in sorted(dir(npjax)):
        if isinstance(getattr(np, name, None), np.ufunc) and hasattr(npjax, name):
            out += [(f"npjax:ufunc.{name}/{dt}", (name, dt)) for dt in _NPJAX_DTYPES]
    for name in ("solve", "inv", "det", "slogdet", "cholesky", "qr", "svd", "eigh", "eigvalsh",
                 "eig", "eigvals", "lstsq", "pinv", "matrix_rank", "norm", "cond",
                 "matrix_power", "tensorsolve", "tensorinv", "multi_dot"):
        out += [(f"npjax:linalg.{name}/{dt}", (name, dt)) for dt in _NPJAX_DTYPES]
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "fftn",
                 "ifftn", "rfftn", "irfftn", "rfft2", "irfft2"):
        out += [(f"npjax:fft.{name}/{dt}", (name, dt)) for dt in _NPJAX_DTYPES]
    for name in sorted(CASES):
        for dt in _NPJAX_DTYPES:
            for k, call in enumerate(CASES[name]):
                out.append((f"npjax:{name}#{k}/{dt}", (call, dt)))
    return out


# Part 3: the same ufuncs and functions on one-element arrays of the narrow dtypes (a TPU's
# runtime aborted on a sort of one 8-bit key: part 4)
_EDGE_DTYPES = ("bool", "int8", "uint8", "int16", "float16")


def _edge_cases():
    return [("edge:" + key.split(":", 1)[1].rsplit("/", 1)[0] + f"/{dt}", (spec[0], dt))
            for key, spec in _npjax_cases() if key.endswith("/float32")
            for dt in _EDGE_DTYPES]


# Part 4: sort, argsort and lexsort (a list of keys and a stacked array) of every dtype and
# of several shapes, empty and one-element ones too (keys ``sort:...``; the TPU's runtime
# aborted on a lexsort along an axis of length 1 with 8-bit keys)
_SORT_DTYPES = ("bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "uint64",
                "float16", "float32", "float64", "complex64", "complex128")
_SORT_SHAPES = ((5,), (3, 5), (0,), (2, 0), (1,), (3, 1))


def _sort_cases():
    return [(f"sort:{fn}/{dt}/{'x'.join(map(str, shape))}", (fn, dt, n, shape))
            for dt in _SORT_DTYPES for shape in _SORT_SHAPES
            for fn, n in (("sort", 1), ("argsort", 1), ("lexsort", 1), ("lexsort", 3),
                          ("stacked", 3))]


def _sort_run(spec):
    import numpy as np
    import npjax

    fn, dtype, nkeys, shape = spec
    rng = np.random.default_rng(0)
    keys = [(rng.standard_normal(shape) * 3).astype(dtype) for _ in range(nkeys)]
    with npjax.policy(placement="device"):
        if fn == "lexsort":
            got = npjax.lexsort([npjax.asarray(k) for k in keys], axis=-1)
            want = np.lexsort(keys, axis=-1)
        elif fn == "stacked":
            got = npjax.lexsort(npjax.asarray(np.stack(keys)), axis=0)
            want = np.lexsort(np.stack(keys), axis=0)
        else:
            got = getattr(npjax, fn)(npjax.asarray(keys[0]), axis=-1)
            want = getattr(np, fn)(keys[0], axis=-1)
    same = np.array_equal(np.asarray(got), want, equal_nan=fn == "sort")
    return {"status": "ok" if same else "differs"}


def _npjax_run(key, spec):
    import numpy as np
    import npjax
    from tests.test_lazy_capable import _A, _I, _M, _V

    family = key.split(":", 1)[1].split(".", 1)[0]
    family = family if family in ("ufunc", "linalg", "fft") else "npjax"
    a_np, v_np = _A.astype(spec[1]), _V.astype(spec[1])
    if key.startswith("edge:"):  # one element each (the index: 0, in bounds)
        a_np, v_np, _I, _M = a_np[:1, :1], v_np[:1], _I[1:2], _M[:1]
    sq = (np.arange(16.0).reshape(4, 4) % 5 + np.eye(4) * 4).astype(spec[1])

    def call(xp):
        if family == "npjax":
            fn, _ = spec
            # (copies: a case writing into its operands, as place does, must not see the
            # writes of NumPy's run)
            return fn(xp, *(xp.asarray(x.copy()) for x in (a_np, v_np, _I, _M)))
        name = spec[0]
        if family == "ufunc":
            uf = getattr(xp, name)
            ops = [xp.asarray(v_np), xp.asarray(v_np[::-1])][:uf.nin]
            return uf(*ops)
        if family == "linalg":
            mod, m = xp.linalg, xp.asarray(sq)
            if name in ("solve", "lstsq"):
                return getattr(mod, name)(m, xp.asarray(sq[0]))
            if name == "matrix_power":
                return mod.matrix_power(m, 3)
            if name == "multi_dot":
                return mod.multi_dot([m, m, m])
            if name == "tensorsolve":
                return mod.tensorsolve(m, xp.asarray(sq[0]))
            if name in ("cholesky", "eigh", "eigvalsh"):
                m = m @ m.T.conj() + xp.eye(4)
            return getattr(mod, name)(m)
        return getattr(xp.fft, name)(xp.asarray(a_np))

    def flat(r):
        if isinstance(r, tuple | list):
            return [x for y in r for x in flat(y)]
        return [np.asarray(r)]

    try:
        with np.errstate(all="ignore"):
            expected = flat(call(np))
    except Exception as exc:
        expected = exc
    import warnings
    with warnings.catch_warnings(), npjax.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        with npjax.policy(placement="device", fallback="allow"):
            try:
                got = flat(call(npjax))
            except Exception as exc:
                got = exc
    if isinstance(expected, Exception) or isinstance(got, Exception):
        if isinstance(got, Exception) and not isinstance(expected, Exception):
            return {"status": "error", "msg": f"{type(got).__name__}: {str(got)[:300]}"}
        if isinstance(expected, Exception) and isinstance(got, Exception):
            same = isinstance(got, type(expected)) or isinstance(expected, type(got))
            return {"status": "ok" if same else "error",
                    "msg": f"{type(got).__name__}: {str(got)[:200]} (NumPy "
                           f"{type(expected).__name__})"}
        return {"status": "differs", "msg": f"NumPy raised {type(expected).__name__}"}
    if len(got) != len(expected):
        return {"status": "differs", "msg": "result count"}
    worst, over = 0.0, False
    for g, e in zip(got, expected):
        if g.dtype != e.dtype or g.shape != e.shape:
            return {"status": "differs", "msg": f"{g.dtype}{g.shape} vs {e.dtype}{e.shape}"}
        diff = _rel_diff(g, e)
        worst = max(worst, diff)  # (the tolerance of the result's dtype)
        over |= diff > {"float16": 1e-2, "float32": 1e-5, "complex64": 1e-5}.get(e.dtype.name,
                                                                                1e-12)
    return {"status": "differs" if over else "ok", "rel_diff": worst}


# ----------------------------------------------------------------------------------------
# Driver and worker
# ----------------------------------------------------------------------------------------

def _cases(only: str | None):
    cases = [(k, ("family", b)) for k, b in _families()] + \
            [(k, ("npjax", s)) for k, s in _npjax_cases() + _edge_cases()] + \
            [(k, ("sort", s)) for k, s in _sort_cases()]
    if only:
        cases = [c for c in cases if re.search(only, c[0])]
    return cases


def _done(path: Path) -> dict:
    done = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if "status" in rec:
                done[rec["key"]] = rec
    return done


def worker(path: Path, only: str | None) -> None:
    import jax
    jax.config.update("jax_enable_x64", True)
    done = _done(path)
    with path.open("a") as f:
        for key, (part, spec) in _cases(only):
            if key in done:
                continue
            f.write(json.dumps({"key": key, "phase": "start", "t": time.time()}) + "\n")
            f.flush()
            t0 = time.perf_counter()
            try:
                rec = (_run_family(spec) if part == "family" else _sort_run(spec)
                       if part == "sort" else _npjax_run(key, spec))
                rec.setdefault("status", "ok")
                single = key.endswith(("/float32", "/complex64"))
                if part == "family" and rec.get("rel_diff", 0) > (1e-4 if single else 1e-9):
                    rec["status"] = "differs"
            except Exception as exc:
                rec = {"status": "error", "msg": f"{type(exc).__name__}: {str(exc)[:400]}"}
            rec.update(key=key, wall_s=round(time.perf_counter() - t0, 3))
            f.write(json.dumps(rec) + "\n")
            f.flush()


def driver(out: Path, only: str | None, case_timeout: float, total: float) -> int:
    path = out / "capability_probe.jsonl"
    deadline = time.time() + total
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    while time.time() < deadline:
        proc = subprocess.Popen([sys.executable, __file__, "--worker", "--out", str(out)]
                                + (["--only", only] if only else []), env=env)
        status = None
        while proc.poll() is None:
            time.sleep(0.5)
            last = _last_start(path)
            if last and time.time() - last[1] > case_timeout:
                proc.kill()
                proc.wait()
                status = ("timeout", last[0])
                break
            if time.time() > deadline:
                proc.kill()
                proc.wait()
                print("probe: out of time", flush=True)
                return 1
        if status is None and proc.returncode == 0:
            break
        last = _last_start(path)
        if last is None:
            print(f"probe: worker failed before any case ({proc.returncode})", flush=True)
            return 1
        kind = status[0] if status else f"abort (exit {proc.returncode})"
        with path.open("a") as f:
            f.write(json.dumps({"key": last[0], "status": kind.split()[0], "msg": kind}) + "\n")
        print(f"probe: {last[0]}: {kind}", flush=True)
    done = _done(path)
    counts: dict[str, int] = {}
    for rec in done.values():
        counts[rec["status"]] = counts.get(rec["status"], 0) + 1
    print("probe:", len(done), "cases", counts, flush=True)
    return 0


def _last_start(path: Path):
    """(key, start time) of the last case started and not finished, else None."""
    if not path.exists():
        return None
    last = None
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec.get("phase") == "start":
            last = (rec["key"], rec["t"])
        elif last and rec.get("key") == last[0]:
            last = None
    return last


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="probe_out")
    p.add_argument("--only", default=None, help="a regular expression over the case keys")
    p.add_argument("--case-timeout", type=float, default=40.0)
    p.add_argument("--total", type=float, default=500.0)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.worker:
        worker(out / "capability_probe.jsonl", args.only)
        return 0
    return driver(out, args.only, args.case_timeout, args.total)


if __name__ == "__main__":
    sys.exit(main())
