"""Where a bundled example's time goes under npjax: cProfile of ``python -m npjax run``'s
script run in this process, sorted by cumulative time (for a device machine, where the
script's time is far from NumPy's and the runner's report does not say why).

    python benchmarks/profile_script.py examples/option_pricing.py [--top 40] [--random numpy]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("script")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--random", default=None, help="the policy's random field, as the runner's")
    options = ap.parse_args()
    t = time.perf_counter()
    from npjax._tools import _runner
    print(f"import npjax: {time.perf_counter() - t:.2f} s")
    policy = {"random": options.random} if options.random else None
    profile = cProfile.Profile()
    t = time.perf_counter()
    profile.enable()
    _runner.run_script(options.script, [], policy=policy)
    profile.disable()
    print(f"script: {time.perf_counter() - t:.2f} s")
    pstats.Stats(profile).sort_stats("cumulative").print_stats(options.top)


if __name__ == "__main__":
    main()
