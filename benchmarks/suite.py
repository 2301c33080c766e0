"""The npjax benchmark suite: NumPy vs npjax eager, lazy, jit and autojit vs hand-written jax.jit.

Run ``python -m npjax bench [--quick] [--size small|large] [--only k1,k2]`` (or this file).
Every kernel in ``benchmarks/kernels`` is run by every variant in the same process,
interleaved (one call of each variant per round, in an order shuffled per round with a fixed
seed: a variant that always ran right after another paid for what that one left behind, such
as freed memory refaulted or a cold cache), on fresh copies of the same inputs; the
median of the rounds is reported, and the first call (trace + compile for the jitted
variants) separately. Every result is checked against NumPy's (``allclose`` with rtol 1e-7
and an absolute tolerance of 1e-9 times the largest magnitude of NumPy's result; with
``--float32`` the inputs are float32 for every variant, checked at rtol 2e-4, or where
that fails, as close to NumPy's float64 answer as NumPy's own float32 run is, within a
factor 2: ``_float32_spread``). Writes
``bench_<size>.json``, ``bench_<size>.png`` (speed-up over NumPy) and ``bench_<size>.md``
(the table) into ``--out`` (default ``./npjax-bench``; ``--out benchmarks/results`` updates
the committed reference results).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import random
import platform
import statistics
import sys
import time
from typing import Any

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.dirname(HERE) not in sys.path:
    sys.path.insert(0, os.path.dirname(HERE))

import jax  # noqa: E402

import npjax  # noqa: E402
from npjax._compile import _autojit  # noqa: E402
from benchmarks import kernels as kernel_pkg  # noqa: E402

VARIANTS = ("numpy", "npjax_eager", "npjax_lazy", "npjax_jit", "jax_hand", "npjax_autojit",
            "npjax_autojit_steady")
# The steady autojit variant is called before the rounds until autojit settled on its
# signature (compiled and judged faster, or as written for good), or for at most this long.
WARM_S = 3.0
WARM_CALLS = 2000
RTOL = 1e-7
# --float32: every variant gets the kernel's float64 inputs as float32 (complex128 as
# complex64), as a float32 script would hold them; checked against NumPy's float32 run at
# float32's tolerance (the kernels' own float64 constants and default dtypes stay as written)
SINGLE = {"f": numpy.float32, "c": numpy.complex64}
RTOL_FLOAT32 = 2e-4
# Kernel kinds for which the issue sets the lazy-mode target (within 1.5x of npjax.jit).
FUSABLE = ("elementwise", "stencil")


def _block(x: Any) -> Any:
    if isinstance(x, npjax.ndarray):
        if x._host() is None:  # a host array is ready (reading it would copy it to the device)
            jax.block_until_ready(x._read())
    elif isinstance(x, jax.Array):
        jax.block_until_ready(x)
    elif isinstance(x, tuple | list):
        for v in x:
            _block(v)
    return x


def _host(x: Any) -> numpy.ndarray:
    return numpy.asarray(x)


def _fresh(host_args: tuple, convert: Any) -> list:
    return [convert(a.copy()) if isinstance(a, numpy.ndarray) else a for a in host_args]


class Runner:
    """The seven ways of running one kernel; ``call(variant)`` runs one timed call. The
    autojit variants are the kernel under ``npjax.autojit`` with the default policy: as
    written while cold, compiled once its calls have taken as long as a compile is expected
    to (at the second call when an earlier run compiled it: the persistent cache). The cold
    one is timed from its first call, as a script calling the kernel a few tens of times
    sees it; the steady one after ``warm`` (a script calling it many times)."""

    def __init__(self, mod: Any, size: str, float32: bool = False) -> None:
        self.mod = mod
        params = mod.SIZES[size]
        self.params = params
        self.host_args = mod.setup(numpy.random.default_rng(0), **params)
        if float32:
            self.host_args = tuple(
                a.astype(SINGLE[a.dtype.kind]) if isinstance(a, numpy.ndarray)
                and a.dtype.kind in SINGLE and a.dtype.itemsize > 4 else a
                for a in self.host_args)
        statics = tuple(s + 1 for s in mod.STATIC)
        self.jitted = npjax.jit(mod.kernel, static_argnums=(0, *statics))
        self.auto = npjax.autojit(mod.kernel)
        self.steady = npjax.autojit(mod.kernel)  # a wrapper of its own: its own signatures

    def prepare(self, variant: str) -> list:
        if variant == "numpy":
            return _fresh(self.host_args, lambda a: a)
        if variant == "jax_hand":
            return _fresh(self.host_args, lambda a: _block(jax.device_put(a)))
        mode = {"npjax_lazy": "lazy", "npjax_eager": "eager"}.get(variant,
                                                                  npjax.get_policy().mode)
        # npjax.jit gets its inputs in device memory, as the hand-written version does (both
        # placed before the timer; on a CPU backend the default keeps them on the host, and
        # each call would copy them in); lazy: made as a script run with --mode lazy does.
        placement = "device" if variant == "npjax_jit" else npjax.get_policy().placement
        with npjax.policy(mode=mode, placement=placement):
            return _fresh(self.host_args, lambda a: _block(npjax.asarray(a)))

    def call(self, variant: str, args: list) -> tuple[float, Any]:
        mod = self.mod
        t0 = time.perf_counter()
        if variant == "numpy":
            out = mod.kernel(numpy, *args)
        elif variant == "npjax_eager":  # eager even where the default mode is lazy (a GPU)
            with npjax.policy(mode="eager"):
                out = _block(mod.kernel(npjax, *args))
        elif variant == "npjax_lazy":
            with npjax.policy(mode="lazy"):
                out = mod.kernel(npjax, *args)
            out = _block(out)  # reading the result runs the recorded program
        elif variant == "npjax_jit":
            out = _block(self.jitted(npjax, *args))
        elif variant == "npjax_autojit":
            out = _block(self.auto(npjax, *args))
        elif variant == "npjax_autojit_steady":
            out = _block(self.steady(npjax, *args))
        else:
            out = _block(mod.reference(*args))
        return time.perf_counter() - t0, out


def _settled(sigs: list[dict]) -> bool:
    return bool(sigs) and all(s["state"] == "as written" or s["checked"] for s in sigs)


def warm(runner: Runner, max_s: float = WARM_S, max_calls: int = WARM_CALLS) -> tuple[
        float, Any, dict]:
    """Call the steady autojit variant (fresh inputs each call) until autojit settled on its
    signature: compiled and its first compiled calls judged faster than those as written, or
    as written for good (``AutoJit.signatures``); or until its calls took ``max_s`` seconds
    or numbered ``max_calls``. Returns (the first call's time, the last call's result, the
    time to steady state: calls, seconds of calls, the state and why). The process's
    measured compile times are set aside meanwhile: autojit expects the compile time of a
    fresh process, and the cold variant's estimate stays the one it had."""
    saved = list(_autojit._COMPILES)
    _autojit._COMPILES.clear()
    _autojit._median[0] = -1  # (its cached median is of the list set aside)
    try:
        first, out = runner.call("npjax_autojit_steady", runner.prepare("npjax_autojit_steady"))
        calls, total = 1, first
        while not _settled(runner.steady.signatures()) and total < max_s and calls < max_calls:
            t, out = runner.call("npjax_autojit_steady",
                                 runner.prepare("npjax_autojit_steady"))
            calls, total = calls + 1, total + t
    finally:
        _autojit._COMPILES[:] = saved
        _autojit._median[0] = -1
    sigs = runner.steady.signatures()
    states = sorted({s["state"] for s in sigs}) or ["cold"]
    why = "; ".join(sorted({s["why"] for s in sigs if s["why"]}))
    if states == ["cold"]:
        looked = [s for s in sigs if s["calls"]]
        mean = sum(s["cold_s"] for s in looked) / max(sum(s["calls"] for s in looked), 1)
        why = (f"calls of {mean * 1e6:.0f} us, under autojit's {_autojit.MIN_CALL_S * 1e3:g} "
               "ms minimum" if looked and mean < _autojit.MIN_CALL_S
               else f"not settled after {calls} calls ({total:.2f} s)")
    elif not _settled(sigs):  # (compiled, its first compiled calls not yet judged)
        why = (f"not settled after {calls} calls ({total:.2f} s): its first "
               f"{_autojit.HOT_CHECK} compiled calls are judged against those as written")
    why = why.replace(os.path.dirname(HERE) + os.sep, "")  # (the repository's paths)
    return first, out, {"calls": calls, "seconds": total, "state": "/".join(states),
                        "why": why}


def _check(got: Any, want: numpy.ndarray, rtol: float = RTOL) -> tuple[bool, float]:
    got = _host(got)
    if got.shape != want.shape:
        return False, math.inf
    scale = float(numpy.max(numpy.abs(want))) if want.size else 0.0
    atol = rtol * 1e-2 * max(scale, 1e-300)
    ok = bool(numpy.allclose(got, want, rtol=rtol, atol=atol))
    with numpy.errstate(all="ignore"):
        err = numpy.abs(got.astype(numpy.float64) - want) / numpy.maximum(numpy.abs(want), atol)
    return ok, float(numpy.max(err)) if err.size else 0.0


def _float32_spread(mod: Any, size: str, numpy32: numpy.ndarray) -> tuple[numpy.ndarray, float]:
    """NumPy's result on the kernel's float64 inputs and how far NumPy's own float32 run is
    from it: a chaotic kernel (nbody's close encounters, k-means' label flips) in float32
    differs from run to run of any float32 arithmetic by more than ``RTOL_FLOAT32``; a
    variant whose float32 result is within twice NumPy's float32 distance of the float64
    answer is as accurate as NumPy's float32 run, and passes."""
    args = Runner(mod, size).host_args
    want = _host(mod.kernel(numpy, *_fresh(args, lambda a: a))).astype(numpy.float64)
    return want, _check(numpy32, want, RTOL_FLOAT32)[1]


def run_kernel(mod: Any, size: str, repeats: int, log: Any, slow_s: float = math.inf,
               min_total_s: float = 0.02, max_rounds: int = 50,
               variants: tuple[str, ...] = VARIANTS, float32: bool = False) -> dict:
    """Every variant's first call, then at least ``repeats`` interleaved rounds (more for
    short calls, see below); a variant whose first call took over ``slow_s`` seconds is
    timed in one round only (its ``samples_s`` says so)."""
    runner = Runner(mod, size, float32)
    rtol = RTOL_FLOAT32 if float32 else RTOL
    record: dict[str, Any] = {"name": mod.NAME, "kind": mod.KIND, "params": runner.params,
                              "times": {}, "check": {}}
    expected = None
    spread: tuple[numpy.ndarray, float] | None = None
    firsts: dict[str, float] = {}
    for variant in variants:  # first calls: compile time of the jitted variants
        args = runner.prepare(variant)
        try:
            if variant == "npjax_autojit_steady":  # its first call, then on to steady state
                t, out, record["to_steady"] = warm(runner)
            else:
                t, out = runner.call(variant, args)
        except Exception as exc:  # recorded, the suite goes on
            record["check"][variant] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            log(f"    {variant:12s} FAILED: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        firsts[variant] = t
        log(f"    {variant:12s} first call {t:.2f} s")  # a process abort shows where it was
        last = runner.jitted._last if variant == "npjax_jit" else None
        if last is not None and last[1].eager is not None:  # (it ran eagerly: why)
            record["jit_eager"] = last[1].eager_why
            log(f"    {'':12s} ran eagerly: {last[1].eager_why}")
        if variant == "npjax_autojit_steady":
            w = record["to_steady"]
            log(f"    {'':12s} steady after {w['calls']} calls, {w['seconds']:.2f} s: "
                f"{w['state']}" + (f" ({w['why'][:160]})" if w["why"] else ""))
        if variant == "numpy":
            expected = _host(out).astype(numpy.float64) if _host(out).dtype.kind in "fc" \
                else _host(out)
            record["check"][variant] = {"ok": True, "max_rel_err": 0.0}
        else:
            ok, err = _check(out, expected, rtol)
            record["check"][variant] = {"ok": ok, "max_rel_err": err}
            if not ok and float32:
                spread = spread or _float32_spread(mod, size, expected)
                ok64, err64 = _check(out, spread[0], RTOL_FLOAT32)
                record["check"][variant].update(
                    ok=err64 <= max(2 * spread[1], RTOL_FLOAT32), vs_float64=err64,
                    numpy_float32_vs_float64=spread[1])
    samples: dict[str, list[float]] = {v: [] for v in firsts}
    round_ = 0
    # Interleaved rounds: ``repeats`` of them, then more while some variant has spent less
    # than ``min_total_s`` in all its calls (up to ``max_rounds``): the median of three
    # calls of a few tens of microseconds is mostly noise, and every variant gets the same
    # rounds.
    while round_ < repeats or (round_ < max_rounds and any(
            sum(ts) < min_total_s for v, ts in samples.items() if firsts[v] <= slow_s)):
        order = list(firsts)
        random.Random(round_).shuffle(order)
        for variant in order:
            if round_ and firsts[variant] > slow_s:
                continue
            args = runner.prepare(variant)
            t, _ = runner.call(variant, args)
            samples[variant].append(t)
        round_ += 1
    for variant, ts in samples.items():
        record["times"][variant] = {"median_s": statistics.median(ts), "first_s": firsts[variant],
                                    "samples_s": ts}
    return record


def _machine() -> dict:
    devices = jax.devices()
    return {"node": platform.node(), "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(), "platform": platform.platform(),
            "python": platform.python_version(), "numpy": numpy.__version__,
            "jax": jax.__version__, "jax_backend": jax.default_backend(),
            "devices": [str(d) for d in devices],
            "default_mode": "lazy" if npjax.get_policy().lazy else "eager",
            "device_kind": getattr(devices[0], "device_kind", "?")}


def _geomean(xs: list[float]) -> float:
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else math.nan


def summarize(records: list[dict]) -> dict:
    def ratio(rec: dict, a: str, b: str, field: str = "median_s") -> float:
        t = rec["times"]
        if a not in t or b not in t:
            return math.nan
        return t[a][field] / t[b][field]

    per = {}
    for rec in records:
        per[rec["name"]] = {
            "jit_over_hand": ratio(rec, "npjax_jit", "jax_hand"),
            "jit_compile_over_hand": ratio(rec, "npjax_jit", "jax_hand", "first_s"),
            "numpy_over_jit": ratio(rec, "numpy", "npjax_jit"),
            "eager_over_jit": ratio(rec, "npjax_eager", "npjax_jit"),
            "lazy_over_jit": ratio(rec, "npjax_lazy", "npjax_jit"),
            "numpy_over_autojit": ratio(rec, "numpy", "npjax_autojit"),
            "numpy_over_autojit_steady": ratio(rec, "numpy", "npjax_autojit_steady"),
            "autojit_steady_over_hand": ratio(rec, "npjax_autojit_steady", "jax_hand"),
            "autojit_first_over_eager_first": ratio(rec, "npjax_autojit", "npjax_eager",
                                                    "first_s"),
            "eager_over_lazy": ratio(rec, "npjax_eager", "npjax_lazy"),
            "kind": rec["kind"],
            "numpy_over_eager": ratio(rec, "numpy", "npjax_eager"),
            "all_match_numpy": all(c.get("ok") for c in rec["check"].values()),
        }
    vals = list(per.values())

    def numpy_over(rec: dict, variant: str) -> float:
        return ratio(rec, "numpy", variant)

    return {
        "per_kernel": per,
        "geomean_jit_over_hand": _geomean([v["jit_over_hand"] for v in vals]),
        "geomean_jit_compile_over_hand": _geomean([v["jit_compile_over_hand"] for v in vals]),
        "geomean_numpy_over_jit": _geomean([v["numpy_over_jit"] for v in vals]),
        "geomean_numpy_over_eager": _geomean([v["numpy_over_eager"] for v in vals]),
        "geomean_numpy_over_autojit": _geomean([v["numpy_over_autojit"] for v in vals]),
        "geomean_numpy_over_autojit_steady": _geomean([v["numpy_over_autojit_steady"]
                                                       for v in vals]),
        "geomean_autojit_steady_over_hand": _geomean([v["autojit_steady_over_hand"]
                                                      for v in vals]),
        "kernels_autojit_steady_under_1x_numpy": [k for k, v in per.items()
                                                  if v["numpy_over_autojit_steady"] < 1],
        "kernels_autojit_steady_under_0_5x_numpy": [k for k, v in per.items()
                                                    if v["numpy_over_autojit_steady"] < 0.5],
        "kernels_autojit_first_over_1_2x_eager": [
            k for k, v in per.items() if v["autojit_first_over_eager_first"] > 1.2],
        "geomean_numpy_over_lazy": _geomean([numpy_over(r, "npjax_lazy") for r in records]),
        "geomean_lazy_over_jit_fusable": _geomean([v["lazy_over_jit"] for v in vals
                                                   if v["kind"] in FUSABLE]),
        "kernels_lazy_slower_than_1_5x_jit": [k for k, v in per.items()
                                              if v["kind"] in FUSABLE
                                              and not v["lazy_over_jit"] <= 1.5],
        "kernels_jit_slower_than_2x_hand": [k for k, v in per.items()
                                            if v["jit_over_hand"] > 2],
        "kernels_compile_slower_than_2x_hand": [k for k, v in per.items()
                                                if v["jit_compile_over_hand"] > 2],
        "kernels_not_matching_numpy": [k for k, v in per.items() if not v["all_match_numpy"]],
    }


def _ms(rec: dict, variant: str, field: str = "median_s") -> str:
    t = rec["times"].get(variant)
    return f"{t[field] * 1e3:.2f}" if t else "fail" if variant in rec["check"] else "-"


def table(records: list[dict], summary: dict, machine: dict, size: str,
          placement: str) -> str:
    lines = [f"Machine: {machine['node']} ({machine['processor']}, {machine['cpu_count']} CPUs, "
             f"JAX backend {machine['jax_backend']}: {machine['device_kind']}); size preset "
             f"`{size}`; placement `{placement}`; default mode "
             f"{machine.get('default_mode', 'eager')}; NumPy {machine['numpy']}, "
             f"JAX {machine['jax']}.", "",
             "| kernel | kind | NumPy ms | npjax eager ms | npjax lazy ms | npjax.jit ms | "
             "hand jax.jit ms | lazy / jit | jit / hand | lazy 1st call s | "
             "jit 1st call s | hand 1st call s | matches NumPy |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for rec in records:
        per = summary["per_kernel"][rec["name"]]
        bad = [v for v, c in rec["check"].items() if not c.get("ok")]
        spread = any("vs_float64" in c for c in rec["check"].values())
        lines.append(
            f"| {rec['name']} | {rec['kind']} | {_ms(rec, 'numpy')} | "
            f"{_ms(rec, 'npjax_eager')} | {_ms(rec, 'npjax_lazy')} | {_ms(rec, 'npjax_jit')} | "
            f"{_ms(rec, 'jax_hand')} | {per['lazy_over_jit']:.2f} | "
            f"{per['jit_over_hand']:.2f} | "
            f"{_first(rec, 'npjax_lazy')} | {_first(rec, 'npjax_jit')} | "
            f"{_first(rec, 'jax_hand')} | "
            f"{'yes' if not bad else 'NO: ' + ', '.join(bad)}"
            f"{' (float32 spread)' if spread else ''} |")
    lines += ["", f"Geometric mean npjax.jit / hand jax.jit: "
              f"{summary['geomean_jit_over_hand']:.2f}; first call (compile): "
              f"{summary['geomean_jit_compile_over_hand']:.2f}; speed-up of npjax.jit over "
              f"NumPy: {summary['geomean_numpy_over_jit']:.2f}; of lazy npjax over NumPy: "
              f"{summary['geomean_numpy_over_lazy']:.2f}; of eager npjax over NumPy: "
              f"{summary['geomean_numpy_over_eager']:.2f}. Lazy / npjax.jit on the "
              f"elementwise and stencil kernels (geometric mean): "
              f"{summary['geomean_lazy_over_jit_fusable']:.2f}."]
    uneven = [f"{rec['name']} ({min(t['samples_s']) * 1e3:.2f} against "
              f"{t['median_s'] * 1e3:.2f} ms)" for rec in records
              if (t := rec["times"].get("numpy")) and min(t["samples_s"]) < 0.5 * t["median_s"]]
    if uneven:  # (on the TPU's host NumPy's first rounds ran 10-20x slower than its later)
        lines += ["", "NumPy's fastest call under half its median: " + ", ".join(uneven) + "."]
    return "\n".join(lines + autojit_table(records, summary)) + "\n"


def autojit_table(records: list[dict], summary: dict) -> list[str]:
    """``npjax.autojit``'s rows: cold (the rounds from its first call), steady (after
    ``warm``), the time to steady state and what autojit settled on."""
    if not any("npjax_autojit" in r["times"] or "to_steady" in r for r in records):
        return []
    lines = ["", "`npjax.autojit` (default policy). Cold: timed from its first call, as in a "
             "script calling the kernel a few tens of times. Steady: timed after calls until "
             f"autojit settled on the signature (at most {WARM_S:g} s or {WARM_CALLS} calls).",
             "", "| kernel | cold ms | steady ms | steady: speed-up over NumPy | steady / hand "
             "jax.jit | to steady: calls, s | steady state | 1st call / eager 1st call |",
             "|---|---:|---:|---:|---:|---:|---|---:|"]
    for rec in records:
        per = summary["per_kernel"][rec["name"]]
        w = rec.get("to_steady")
        hot = f"{w['calls']}, {w['seconds']:.2f}" if w else "-"
        state = (w["state"] + (f": {w['why']}" if w["why"] else "")) if w else "-"
        lines.append(
            f"| {rec['name']} | {_ms(rec, 'npjax_autojit')} | "
            f"{_ms(rec, 'npjax_autojit_steady')} | {per['numpy_over_autojit_steady']:.2f} | "
            f"{per['autojit_steady_over_hand']:.2f} | {hot} | {state.replace('|', '/')} | "
            f"{per['autojit_first_over_eager_first']:.2f} |")
    lines += ["", f"Geometric means: cold npjax.autojit "
              f"{summary['geomean_numpy_over_autojit']:.2f}x NumPy's speed; steady "
              f"{summary['geomean_numpy_over_autojit_steady']:.2f}x NumPy's speed and "
              f"{summary['geomean_autojit_steady_over_hand']:.2f}x the time of the hand-written "
              f"jax.jit. Steady under 1x NumPy: "
              f"{', '.join(summary['kernels_autojit_steady_under_1x_numpy']) or 'none'}; under "
              f"0.5x: {', '.join(summary['kernels_autojit_steady_under_0_5x_numpy']) or 'none'}. "
              f"First call over 1.2x eager's: "
              f"{', '.join(summary['kernels_autojit_first_over_1_2x_eager']) or 'none'}."]
    return lines


def _first(rec: dict, variant: str) -> str:
    t = rec["times"].get(variant)
    return f"{t['first_s']:.2f}" if t else "fail" if variant in rec["check"] else "-"


def chart(records: list[dict], path: str, title: str) -> bool:
    """The speed-up chart as a PNG; False where matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        return False

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["name"] for r in records]
    shown = [v for v in VARIANTS if v != "numpy"]
    fig, ax = plt.subplots(figsize=(max(8, len(names) * 0.8), 4.5))
    width = 0.8 / len(shown)
    for i, variant in enumerate(shown):
        ys = []
        for rec in records:
            t = rec["times"]
            ys.append(t["numpy"]["median_s"] / t[variant]["median_s"]
                      if variant in t and "numpy" in t else 0.0)
        ax.bar([j + (i - (len(shown) - 1) / 2) * width for j in range(len(names))], ys,
               width, label=variant)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_ylabel("speed-up over NumPy (median)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m npjax bench",
                                     description="npjax benchmark suite")
    parser.add_argument("--quick", action="store_true", help="3 rounds instead of 7")
    parser.add_argument("--size", choices=("small", "large"), default="small")
    parser.add_argument("--only", default="", help="comma-separated kernel names")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--out", default="npjax-bench",
                        help="folder for the results (default: ./npjax-bench; the committed "
                             "reference results: --out benchmarks/results)")
    parser.add_argument("--slow-s", type=float, default=math.inf,
                        help="time a variant whose first call took longer in one round only")
    parser.add_argument("--placement", choices=("auto", "device", "host"), default=None,
                        help="the npjax variants' placement (default: the policy's)")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help="comma-separated variants to run (numpy always runs: the answer)")
    parser.add_argument("--float32", action="store_true",
                        help="the kernels' float64 inputs as float32 for every variant "
                             f"(NumPy's too), checked at rtol {RTOL_FLOAT32:g}")
    options = parser.parse_args(argv)
    variants = tuple(v for v in VARIANTS if v == "numpy" or v in options.variants.split(","))
    repeats = options.repeats or (3 if options.quick else 7)
    mods = kernel_pkg.load_all()
    if options.only:
        wanted = set(options.only.split(","))
        mods = [m for m in mods if m.NAME in wanted]
    npjax.set_policy(fallback="raise")  # a host NumPy fallback would not be a fair timing
    if options.placement is not None:
        npjax.set_policy(placement=options.placement)
    placement = npjax.get_policy().placement
    machine = _machine()

    try:  # a progress bar when tqdm is installed (``pip install -e ".[bench]"``)
        from tqdm import tqdm
    except ImportError:
        tqdm = None

    def log(msg: str) -> None:
        if tqdm is not None:
            tqdm.write(msg)
        else:
            print(msg, flush=True)

    log(f"npjax bench: {len(mods)} kernels, size {options.size}, {repeats} rounds, "
        f"placement {placement}, {machine['node']} / {machine['jax_backend']} "
        f"({machine['device_kind']})")
    os.makedirs(options.out, exist_ok=True)
    stem = os.path.join(options.out, f"bench_{options.size}"
                        + ("" if options.placement is None else f"_{placement}")
                        + ("_float32" if options.float32 else ""))
    records: list[dict] = []
    summary = summarize(records)
    progress = tqdm(mods, desc="kernels", unit="kernel") if tqdm is not None else mods
    for i, mod in enumerate(progress, 1):
        log(f"[{i}/{len(mods)}] {mod.NAME} {mod.SIZES[options.size]}")
        t0 = time.perf_counter()
        rec = run_kernel(mod, options.size, repeats, log, options.slow_s, variants=variants,
                         float32=options.float32)
        records.append(rec)
        parts = [f"{v}={rec['times'][v]['median_s'] * 1e3:.2f}ms" for v in rec["times"]]
        bad = [v for v, c in rec["check"].items() if not c.get("ok")]
        log(f"    {' '.join(parts)}  ({time.perf_counter() - t0:.1f}s)"
            + (f"  MISMATCH/FAIL: {bad}" if bad else "  all match NumPy"))
        summary = summarize(records)  # written after every kernel: a cut run keeps its results
        data = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                "machine": machine, "size": options.size, "placement": placement,
                "repeats": repeats, "rtol": RTOL_FLOAT32 if options.float32 else RTOL,
                "float32": options.float32, "kernels": records, "summary": summary}
        with open(stem + ".json", "w") as f:
            json.dump(data, f, indent=1, default=str)
    text = table(records, summary, machine, options.size, placement)
    if options.float32:
        text = (f"Inputs float32 (`--float32`), checked at rtol {RTOL_FLOAT32:g} against NumPy's "
                "float32 run; \"(float32 spread)\": a variant off by more was as close to NumPy's "
                "float64 answer as NumPy's float32 run is (within 2x).\n\n" + text)
    with open(stem + ".md", "w") as f:
        f.write(text)
    drawn = chart(records, stem + ".png", f"npjax bench ({options.size}, placement "
                  f"{placement}) on {machine['node']} [{machine['jax_backend']}]")
    log(text)
    log(f"wrote {stem}.json, {stem}.md" + (f", {stem}.png" if drawn else " (no chart: "
                                           "matplotlib is not installed)"))
    return 0 if not summary["kernels_not_matching_numpy"] else 1


if __name__ == "__main__":
    sys.exit(main())
