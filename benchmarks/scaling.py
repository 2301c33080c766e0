"""Scaling run: a stencil and a matmul under ``sharding="auto"`` on 1, 2 and 4 devices.

Each device count runs in its own process (``--xla_force_host_platform_device_count=N`` must
be set before JAX starts), so on a CPU machine the "devices" are simulated: they share the
same cores. On a 2-core machine the ratios therefore show the *overhead* of sharding
(partitioned programs, collectives, halo exchanges), not a speed-up. With real accelerators
the same script measures scaling. Every result is checked against NumPy's.

    python benchmarks/scaling.py [--devices 1,2,4] [--n 512] [--repeats 5]

Writes ``benchmarks/results/scaling.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def stencil(xp, u, steps):
    """Jacobi-style 5-point stencil, NumPy style: slices and in-place writes."""
    for _ in range(steps):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def matmul(xp, a, b):
    return (a @ b).sum(axis=0)


def _child(n: int, repeats: int, steps: int) -> dict:
    import jax
    import numpy

    import npjax

    count = len(jax.devices())
    npjax.set_policy(sharding="auto" if count > 1 else None, fallback="raise")
    rng = numpy.random.default_rng(0)
    host_u = rng.random((n, n))
    host_a, host_b = rng.random((n, n)), rng.random((n, n))
    out = {"devices": count, "n": n, "steps": steps}

    def block(x):
        return x._read().block_until_ready()

    def timed(make, run):
        times, result = [], None
        for i in range(repeats + 1):
            args = make()
            for a in args:
                block(a)
            t0 = time.perf_counter()
            result = run(*args)
            block(result)
            if i:  # the first round compiles
                times.append(time.perf_counter() - t0)
        return statistics.median(times), result

    t, got = timed(lambda: [npjax.asarray(host_u)], lambda u: stencil(npjax, u, steps))
    want = stencil(numpy, host_u.copy(), steps)
    out["stencil_s"] = t
    out["stencil_ok"] = bool(numpy.allclose(numpy.asarray(got), want, rtol=1e-12))
    out["stencil_spread"] = len(got.sharding.device_set)
    t, got = timed(lambda: [npjax.asarray(host_a), npjax.asarray(host_b)],
                   lambda a, b: matmul(npjax, a, b))
    out["matmul_s"] = t
    out["matmul_ok"] = bool(numpy.allclose(numpy.asarray(got), matmul(numpy, host_a, host_b),
                                           rtol=1e-10))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="1,2,4")
    parser.add_argument("--n", type=int, default=512)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=os.path.join(HERE, "results", "scaling.json"))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print("RESULT " + json.dumps(_child(args.n, args.repeats, args.steps)), flush=True)
        return 0
    runs = []
    for count in [int(c) for c in args.devices.split(",")]:
        env = dict(os.environ)
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                            f" --xla_force_host_platform_device_count={count}").strip()
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child",
                               "--n", str(args.n), "--steps", str(args.steps), "--repeats",
                               str(args.repeats)], env=env, capture_output=True, text=True,
                              timeout=600)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        if not lines:
            print(proc.stdout[-2000:], proc.stderr[-4000:], file=sys.stderr)
            return 1
        rec = json.loads(lines[-1][len("RESULT "):])
        runs.append(rec)
        print(f"{count} device(s): stencil {rec['stencil_s'] * 1e3:8.2f} ms "
              f"(ok={rec['stencil_ok']}, on {rec['stencil_spread']}), matmul "
              f"{rec['matmul_s'] * 1e3:8.2f} ms (ok={rec['matmul_ok']})", flush=True)
    base = runs[0]
    for rec in runs:
        rec["stencil_ratio"] = rec["stencil_s"] / base["stencil_s"]
        rec["matmul_ratio"] = rec["matmul_s"] / base["matmul_s"]
    import jax

    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "jax": jax.__version__, "platform": platform.platform()},
        "note": ("ratios are time on N devices / time on the first device count; simulated "
                 "CPU devices share the machine's cores, so ratios > 1 measure sharding "
                 "overhead, not scaling"),
        "runs": runs,
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    for rec in runs:
        print(f"{rec['devices']} device(s): stencil x{rec['stencil_ratio']:.2f}, "
              f"matmul x{rec['matmul_ratio']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
