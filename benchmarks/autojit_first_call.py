"""First calls with ``npjax.autojit`` against without, each in a fresh process (issue 35).

The target: no suite kernel and no bundled example is slower on its first call under autojit
than without it by more than 1.2x, and a second run with the persistent compilation cache
compiles nothing. Each case runs in a process of its own, with ``NPJAX_CACHE_DIR`` an empty
temporary folder (nothing from an earlier run), the two variants alternated:

- a suite kernel (``benchmarks/kernels``, ``--sizes small,large``): its first call, eager
  npjax (``kernel(npjax, ...)``) against ``npjax.autojit(kernel)(npjax, ...)`` on the same
  inputs made as the suite makes them (``--calls N``: its first N calls on fresh inputs, the
  time of the calls added up: a script's first run, where the cost model may compile);
- a bundled example (``examples/*.py``): the script's time under ``python -m npjax run
  --jit explicit`` against ``--jit auto`` (the runner's own timing: the script, not Python's
  or npjax's start-up).

Each pair runs ``--repeats`` times (default 3), and up to ``--confirm`` more times while the
median ratio is over 1.2x (a first call of a millisecond varies 2x from one fresh process to
the next on a shared machine). Reported: the median ratio (autojit / plain) of the wall times
and, for kernels, of the process's CPU time over the calls (less sensitive to other work on
the machine, which only delays the process), with the XLA compiles of each run
(``npjax.stats()``: persistent-cache misses). With ``--second`` each autojit case then runs
again in the folder its first run filled: that run's time and compiles (the target is 0);
``--fill M`` fills it with a run of M calls of the kernel instead (a script whose first run
compiled, run again for ``--calls`` calls). ``--control`` runs both sides without autojit: the
ratios an A/A comparison gives, the spread of the measurement itself. Writes
``autojit_first_call.json`` (``autojit_first_calls_N.json`` with ``--calls N``; ``_control``
added with ``--control``) into ``--out``.

Usage: ``OPENBLAS_NUM_THREADS=1 python benchmarks/autojit_first_call.py [--only k1,ex1]
[--sizes small,large] [--calls N] [--repeats 3] [--confirm N] [--second [--fill M]]
[--control] [--no-examples] [--no-kernels] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLES = os.path.join(ROOT, "examples")
TARGET = 1.2


def _child_kernel(name: str, size: str, variant: str, calls: str = "1") -> dict:
    """In the fresh process: the kernel's first ``calls`` calls (fresh inputs each, made
    before the timer), their time added up."""
    sys.path.insert(0, ROOT)
    import importlib

    import numpy

    import npjax
    from benchmarks.suite import _block

    mod = importlib.import_module(f"benchmarks.kernels.{name}")
    host = mod.setup(numpy.random.default_rng(0), **mod.SIZES[size])
    fn = npjax.autojit(mod.kernel) if variant == "auto" else mod.kernel
    npjax.reset_stats()
    seconds = cpu = 0.0
    for _ in range(int(calls)):
        args = [_block(npjax.asarray(a.copy())) if isinstance(a, numpy.ndarray) else a
                for a in host]
        t0, c0 = time.perf_counter(), time.process_time()
        _block(fn(npjax, *args))
        seconds += time.perf_counter() - t0
        cpu += time.process_time() - c0
    return {**_summary(seconds, npjax.stats()), "cpu_s": cpu}


def _summary(seconds: float, st: dict) -> dict:
    """A run's time, its XLA compiles (``compiles``: persistent-cache misses, the programs
    XLA compiled; a hit counts in ``npjax.stats()``'s count too) and what autojit compiled."""
    comp = st["compiles"]
    return {"seconds": seconds, "compiles": comp["cache_misses"] if comp["cache_dir"] else
            comp["count"], "cache_hits": comp["cache_hits"],
            "autojit_compiled": len(st["autojit"]["compiled"])}


def _run_kernel(name: str, size: str, variant: str, cache: str, calls: int) -> dict:
    env = dict(os.environ, NPJAX_CACHE_DIR=cache)
    done = subprocess.run([sys.executable, __file__, "--child", name, size, variant,
                           str(calls)],
                          env=env, capture_output=True, text=True, timeout=900)
    if done.returncode:
        raise RuntimeError(f"{name} {size} {variant}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _run_example(script: str, variant: str, cache: str) -> dict:
    from npjax._tools._runner import TIMING_ENV

    with tempfile.TemporaryDirectory() as tmp:
        timing, report = os.path.join(tmp, "t.json"), os.path.join(tmp, "r.json")
        env = dict(os.environ, NPJAX_CACHE_DIR=cache, **{TIMING_ENV: timing})
        jit = "auto" if variant == "auto" else "explicit"
        done = subprocess.run([sys.executable, "-m", "npjax", "run", "--no-report",
                               "--report-json", report, "--jit", jit, script],
                              env=env, capture_output=True, text=True, timeout=900,
                              cwd=tmp)
        if done.returncode:
            raise RuntimeError(f"{script} {variant}: {done.stderr[-2000:]}")
        with open(timing) as f:
            seconds = json.load(f)["seconds"]
        with open(report) as f:
            st = json.load(f)
    return _summary(seconds, st)


def _cases(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    sys.path.insert(0, ROOT)
    from benchmarks import kernels as kernel_pkg

    only = set(args.only.split(",")) if args.only else None
    cases = []
    if not args.no_kernels:
        for size in args.sizes.split(","):
            cases += [("kernel", name, size) for name in kernel_pkg.MODULES
                      if only is None or name in only]
    if not args.no_examples:
        for file in sorted(os.listdir(EXAMPLES)):
            name = file[:-3]
            if file.endswith(".py") and (only is None or name in only):
                cases.append(("example", name, "-"))
    return cases


def _one(kind: str, name: str, size: str, variant: str, cache: str, calls: int) -> dict:
    if kind == "kernel":
        return _run_kernel(name, size, variant, cache, calls)
    return _run_example(os.path.join(EXAMPLES, f"{name}.py"), variant, cache)


def measure(args: argparse.Namespace) -> list[dict]:
    """Every case, ``repeats`` alternated pairs in fresh processes (module docstring)."""
    rows = []
    for kind, name, size in _cases(args):
        runs: dict[str, list[dict]] = {"plain": [], "auto": []}
        second = None
        rep, ratios = 0, [0.0]
        while rep < args.repeats or (rep < args.repeats + args.confirm and statistics.median(
                ratios) > TARGET):
            order = ("plain", "auto") if rep % 2 == 0 else ("auto", "plain")
            for variant in order:
                with tempfile.TemporaryDirectory() as cache:
                    run_as = "plain" if args.control else variant
                    runs[variant].append(_one(kind, name, size, run_as, cache, args.calls))
                    if args.second and variant == "auto" and second is None:
                        if args.fill and kind == "kernel":  # a longer first run fills it
                            _one(kind, name, size, variant, cache, args.fill)
                        second = _one(kind, name, size, variant, cache, args.calls)
            ratios = [a["seconds"] / p["seconds"] for a, p in zip(runs["auto"], runs["plain"])]
            rep += 1
        cpu = [a["cpu_s"] / max(p["cpu_s"], 1e-9) for a, p in zip(runs["auto"], runs["plain"])
               if "cpu_s" in p]
        row = {"kind": kind, "name": name, "size": size,
               "cpu_ratio": statistics.median(cpu) if cpu else None, "cpu_ratios": cpu,
               "plain_s": [r["seconds"] for r in runs["plain"]],
               "auto_s": [r["seconds"] for r in runs["auto"]],
               "ratio": statistics.median(ratios), "ratios": ratios,
               "compiles_plain": [r["compiles"] for r in runs["plain"]],
               "compiles_auto": [r["compiles"] for r in runs["auto"]],
               "autojit_compiled": [r["autojit_compiled"] for r in runs["auto"]],
               "second_compiles": None if second is None else second["compiles"],
               "second_s": None if second is None else second["seconds"],
               "second_compiled": None if second is None else second["autojit_compiled"],
               "second_cache_hits": None if second is None else second["cache_hits"]}
        rows.append(row)
        flag = " <-- over 1.2x" if row["ratio"] > TARGET else ""
        again = "" if second is None else (
            f"  second run {second['seconds']:.4f} s ("
            f"{second['seconds'] / statistics.median(row['plain_s']):.2f}x plain), compiles "
            f"{second['compiles']} (cache hits {second['cache_hits']}, autojit compiled "
            f"{second['autojit_compiled']})")
        print(f"{kind:7s} {name:16s} {size:5s} plain {statistics.median(row['plain_s']):8.4f} s"
              f"  auto {statistics.median(row['auto_s']):8.4f} s  ratio {row['ratio']:.2f}"
              f"{'' if not cpu else f' (CPU time {statistics.median(cpu):.2f})'}"
              f" ({', '.join(f'{r:.2f}' for r in ratios)})  compiles "
              f"{row['compiles_plain']}/{row['compiles_auto']}"
              f"{again}{flag}", flush=True)
    return rows


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        print(json.dumps(_child_kernel(*sys.argv[2:])))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="kernels and examples, comma-separated")
    parser.add_argument("--sizes", default="small,large")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--confirm", type=int, default=0,
                        help="up to CONFIRM more pairs while a case's median is over 1.2x")
    parser.add_argument("--calls", type=int, default=1,
                        help="time a kernel's first CALLS calls (a first run), not its first")
    parser.add_argument("--no-examples", action="store_true")
    parser.add_argument("--no-kernels", action="store_true")
    parser.add_argument("--second", action="store_true",
                        help="rerun each autojit case on its first run's cache: its compiles")
    parser.add_argument("--control", action="store_true",
                        help="both sides without autojit (an A/A run: the measurement's spread)")
    parser.add_argument("--fill", type=int, default=0,
                        help="with --second: the run that fills the cache calls a kernel FILL "
                             "times (default: as the timed runs, --calls)")
    parser.add_argument("--out", default="npjax-bench")
    args = parser.parse_args()
    rows = measure(args)
    over = [f"{r['name']} ({r['size']})" for r in rows if r["ratio"] > TARGET]
    print(f"over {TARGET}x: {', '.join(over) or 'none'}")
    os.makedirs(args.out, exist_ok=True)
    name = "autojit_first_call" + (f"s_{args.calls}" if args.calls > 1 else "")
    name += "_control" if args.control else ""
    with open(os.path.join(args.out, f"{name}.json"), "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "control": args.control,
                   "calls": args.calls,
                   "cpus": os.cpu_count(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
