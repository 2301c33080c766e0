"""Command line: ``python -m npjax run [OPTIONS] SCRIPT [ARGS...]`` (or ``-m MODULE``),
``coverage``, ``bench``."""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from collections.abc import Sequence


# Where ``bench`` writes by default: a folder in the current directory, outside the tracked
# tree of a checkout (.gitignore lists it), so a run never modifies the committed results.
BENCH_OUT = "npjax-bench"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m npjax", description="Run NumPy code on JAX with npjax.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = sub.add_parser(
        "run", help="run an unmodified NumPy script with npjax as its numpy",
        description="Run SCRIPT as `python SCRIPT ARGS...` would, with the script's own "
                    "`import numpy` resolved to npjax (installed libraries keep NumPy).")
    run.add_argument("-m", dest="module", metavar="MODULE", default=None,
                     help="run library module MODULE as a script (as `python -m MODULE`); "
                          "the current folder's code gets npjax")
    run.add_argument("--mode", choices=("auto", "eager", "lazy"), default=None,
                     help="policy mode: eager (each call runs at once), lazy (device work "
                          "fused) or auto (lazy on an accelerator; the default)")
    run.add_argument("--device", default=None,
                     help="where arrays live: a platform name (cpu, gpu, tpu)")
    run.add_argument("--sharding", choices=("auto",), default=None,
                     help="spread arrays over the devices (auto)")
    run.add_argument("--fallback", choices=("warn", "raise", "allow"), default=None,
                     help="what a call that runs on host NumPy does (default: warn)")
    run.add_argument("--random", choices=("auto", "jax", "numpy"), default=None,
                     help="the stream of np.random.default_rng / Generator: auto (the "
                          "default: NumPy's generator for draws placed on the host, JAX keys "
                          "for draws placed on the device), jax (JAX keys for every draw) or "
                          "numpy (NumPy's numbers for every draw); the legacy np.random.seed/"
                          "rand/RandomState always give NumPy's numbers")
    run.add_argument("--jit", choices=("explicit", "auto"), default=None,
                     help="auto (the default under run): the functions of the script's own "
                          "files run as written until hot, then compile with npjax.jit when "
                          "that is expected to pay (npjax.autojit); explicit: only what the "
                          "script compiles itself")
    run.add_argument("--x64", action=argparse.BooleanOptionalAction, default=None,
                     help="NumPy's 64-bit defaults (float64/int64; the default) or 32-bit")
    run.add_argument("--report", action=argparse.BooleanOptionalAction, default=True,
                     help="print the report (calls, fallbacks, transfers, compiles, "
                          "advice) to stderr at exit (default: on)")
    run.add_argument("--report-json", metavar="FILE", default=None,
                     help="also write the report's data (npjax.stats()) as JSON to FILE")
    run.add_argument("--compare", action="store_true",
                     help="also run the script under NumPy; compare printed output, saved "
                          ".npy/.npz/.txt/.csv files and times (exit status 0 when they "
                          "match, 1 when not)")
    run.add_argument("--rtol", type=float, default=None,
                     help="relative tolerance for floats under --compare (default: 1e-9; "
                          "2.4e-7, two float32 ulps, for printed numbers with at most 9 "
                          "significant digits and for float32 arrays in saved files)")
    run.add_argument("--atol", type=float, default=1e-12,
                     help="absolute tolerance for floats under --compare (1e-12)")
    run.add_argument("script", metavar="SCRIPT", nargs="?", default=None,
                     help="the Python file to run (not with -m)")
    run.add_argument("args", metavar="ARGS", nargs=argparse.REMAINDER,
                     help="arguments passed to the script as sys.argv[1:]")

    coverage = sub.add_parser("coverage", help="how npjax provides each public NumPy name")
    coverage.add_argument("--markdown", action="store_true", help="print Markdown")
    coverage.add_argument("--write", metavar="PATH", help="write the Markdown table to PATH")
    bench = sub.add_parser("bench", help="run the benchmark suite (benchmarks/suite.py)")
    bench.add_argument("--quick", action="store_true", help="fewer repeats")
    bench.add_argument("--size", choices=("small", "large"), default="small",
                       help="problem size preset (small)")
    bench.add_argument("--only", default="", help="comma-separated kernel names")
    bench.add_argument("--overhead", action="store_true",
                       help="run the per-call overhead benchmark (benchmarks/overhead.py)")
    bench.add_argument("--out", metavar="DIR", default=BENCH_OUT,
                       help=f"folder for the results (default: ./{BENCH_OUT}, made if "
                            "missing; the committed reference results are updated only "
                            "with --out benchmarks/results)")
    return parser


def _bench(options: argparse.Namespace) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    name = "overhead.py" if options.overhead else "suite.py"
    script = os.path.join(os.path.dirname(here), "benchmarks", name)
    if not os.path.isfile(script):
        print(f"npjax bench: benchmarks/{name} is only in a source checkout", file=sys.stderr)
        return 2
    args = (["--quick"] if options.quick else []) + ["--out", options.out]
    if not options.overhead:
        args += ["--size", options.size] + (["--only", options.only] if options.only else [])
    sys.argv[:] = [script, *args]
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m npjax``; returns the exit status."""
    options = _parser().parse_args(argv)
    if options.command == "coverage":
        from npjax._tools import _coverage

        text = _coverage.render(markdown=options.markdown or bool(options.write))
        if options.write:
            with open(options.write, "w", encoding="utf-8") as f:
                f.write(text)
        else:
            print(text, end="")
        return 0
    if options.command == "bench":
        return _bench(options)
    return _run(options)


_POLICY_FLAGS = ("mode", "device", "sharding", "fallback", "random", "x64", "jit")


def _run(options: argparse.Namespace) -> int:
    from npjax._tools import _runner

    args = list(options.args)
    if options.module is not None:
        if options.script is not None:  # `run -m mod a b`: the first ARG landed in SCRIPT
            args.insert(0, options.script)
        target, module = options.module, True
    elif options.script is None:
        print("python -m npjax run: error: give SCRIPT or -m MODULE", file=sys.stderr)
        return 2
    else:
        target, module = options.script, False
    policy = {k: getattr(options, k) for k in _POLICY_FLAGS if getattr(options, k) is not None}
    if options.compare:
        flags = []
        for key, value in policy.items():
            if key == "x64":
                flags.append("--x64" if value else "--no-x64")
            else:
                flags += [f"--{key}", str(value)]
        return _runner.compare(target, args, options.rtol, options.atol, module=module,
                               options=flags, report=options.report,
                               report_json=options.report_json)
    return _runner.run_script(target, args, module=module, policy=policy,
                              report=options.report, report_json=options.report_json)


if __name__ == "__main__":
    sys.exit(main())
