"""Command line: ``python -m npjax run [--compare] SCRIPT [ARGS...]``, ``coverage``, ``bench``."""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from collections.abc import Sequence


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m npjax", description="Run NumPy code on JAX with npjax.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = sub.add_parser(
        "run", help="run an unmodified NumPy script with npjax as its numpy",
        description="Run SCRIPT as `python SCRIPT ARGS...` would, with the script's own "
                    "`import numpy` resolved to npjax (installed libraries keep NumPy).")
    run.add_argument("--compare", action="store_true",
                     help="also run the script under NumPy; compare printed output and times "
                          "(exit status 0 when they match, 1 when not)")
    run.add_argument("--rtol", type=float, default=1e-9,
                     help="relative tolerance for printed floats under --compare (1e-9)")
    run.add_argument("--atol", type=float, default=1e-12,
                     help="absolute tolerance for printed floats under --compare (1e-12)")
    run.add_argument("script", metavar="SCRIPT", help="the Python file to run")
    run.add_argument("args", metavar="ARGS", nargs=argparse.REMAINDER,
                     help="arguments passed to the script as sys.argv[1:]")

    sub.add_parser("coverage", help="which NumPy names npjax covers (not implemented yet)")
    bench = sub.add_parser("bench", help="run the benchmarks (so far: benchmarks/overhead.py)")
    bench.add_argument("--quick", action="store_true", help="fewer repeats")
    return parser


def _bench(args: Sequence[str]) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(os.path.dirname(here), "benchmarks", "overhead.py")
    if not os.path.isfile(script):
        print("npjax bench: not implemented yet: see issue 6 (the benchmark suite); "
              "benchmarks/overhead.py is only in a source checkout", file=sys.stderr)
        return 2
    print("npjax bench: only the per-call overhead benchmark exists so far (the suite is "
          "issue 6); running benchmarks/overhead.py", file=sys.stderr)
    sys.argv[:] = [script, *args]
    runpy.run_path(script, run_name="__main__")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m npjax``; returns the exit status."""
    options = _parser().parse_args(argv)
    if options.command == "coverage":
        print("npjax coverage: not implemented yet: see issue 3", file=sys.stderr)
        return 2
    if options.command == "bench":
        return _bench(["--quick"] if options.quick else [])
    from npjax import _runner

    if options.compare:
        return _runner.compare(options.script, options.args, options.rtol, options.atol)
    return _runner.run_script(options.script, options.args)


if __name__ == "__main__":
    sys.exit(main())
