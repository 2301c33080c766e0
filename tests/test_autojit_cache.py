"""Issue 35's second-run target: a script's second run with the persistent compilation cache
compiles nothing. What autojit compiled in the first run is hot at its second call in the
second (the index beside the cache, ``_autojit._index``), and every program comes from the
cache: XLA compiles nothing (``npjax.stats()``: cache misses). Counted, never timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent("""\
    import numpy as np

    def step(u, v):
        for i in range(1, u.shape[0]):
            u[i] = 0.5 * u[i - 1] + v[i]
        return np.sqrt(u * u + 1.0)

    def main():
        u = np.arange(64) / 63.0
        v = np.cos(u)
        for _ in range(8):
            u = step(u, v)
        print(repr(float(u.sum())))

    main()
    """)

# Both runs: every call looked at (LOOK_S 0), none too short (MIN_CALL_S 0), compiled calls
# never sent back for being slower (HOT_CHECK). The first run also compiles at the second
# call (a compile expected to take no time); the second keeps the expected compile of 0.2 s,
# which calls of microseconds never add up to: it compiles only what the index names.
_PATCH = ("import sys, npjax._compile._autojit as a; a.MIN_CALL_S = a.LOOK_S = 0; "
          "a.HOT_CHECK = 10**9; {extra}"
          "from npjax.__main__ import main; sys.exit(main(sys.argv[1:]))")


def _run(tmp_path: Path, cache: Path, report: str, extra: str = "") -> tuple[str, dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NPJAX_", "JAX_"))}
    env["NPJAX_CACHE_DIR"] = str(cache)
    done = subprocess.run([sys.executable, "-c", _PATCH.format(extra=extra), "run",
                           "--no-report", "--report-json", report, "script.py"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout, json.loads((tmp_path / report).read_text())


def _numpy_result(tmp_path: Path) -> str:
    """The script run by Python and NumPy alone."""
    done = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, check=True)
    return done.stdout.strip()


def test_second_run_with_the_persistent_cache_compiles_nothing(tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT)
    cache = tmp_path / "xla"
    out1, first = _run(tmp_path, cache, "1.json", "a.expected_compile_s = lambda: 0.0; ")
    out2, second = _run(tmp_path, cache, "2.json")
    want = _numpy_result(tmp_path)
    assert out1.strip() == out2.strip() == want
    compiled1 = [(e["function"], e["cold_calls"]) for e in first["autojit"]["compiled"]]
    compiled2 = [(e["function"], e["cold_calls"]) for e in second["autojit"]["compiled"]]
    assert compiled1 == compiled2 == [("step", 1)]  # hot at its second call, both runs
    assert first["compiles"]["cache_misses"] > 0  # the first run compiled it
    assert second["compiles"]["cache_misses"] == 0  # the second compiled nothing
    assert second["compiles"]["cache_hits"] == second["compiles"]["count"] > 0
    assert (cache / "autojit-index.json").exists()


def test_without_the_index_the_second_run_leaves_short_calls_cold(tmp_path):
    """The control: the same second run with an empty cache folder compiles nothing either,
    because nothing is hot (calls of microseconds never add up to a 0.2 s compile)."""
    (tmp_path / "script.py").write_text(SCRIPT)
    out, data = _run(tmp_path, tmp_path / "empty", "r.json")
    assert out.strip() == _numpy_result(tmp_path)
    assert data["autojit"]["compiled"] == []
    assert data["compiles"]["cache_misses"] == 0
    assert [(e["function"], e["calls"]) for e in data["autojit"]["cold"]] == [("step", 8)]
