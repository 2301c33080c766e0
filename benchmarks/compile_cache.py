"""What the persistent compilation cache saves on the bundled examples.

Each script in ``examples/`` runs three times under ``python -m npjax run``, each in a fresh
process: with the cache off (``NPJAX_CACHE_DIR=off``), then twice with a new empty cache
directory (the first run fills it, the second loads from it). For each run: XLA compiles
(a program loaded from the cache still counts as one), persistent-cache hits, compile seconds
(trace + lower + XLA, from the report) and the process's wall time (start-up included).
Target (issue 16): the second run's compiles are at least 90% cache hits. Results go to
``benchmarks/results/compile_cache.json`` and ``.md``.

Usage: ``python benchmarks/compile_cache.py``.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def run(script: Path, cache: str, report: Path) -> dict:
    """One run of ``script``: its compile counts from the report and its wall time."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NPJAX_", "JAX_"))}
    env["NPJAX_CACHE_DIR"] = cache
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    start = time.perf_counter()
    # in the report's folder: the files the examples save stay out of the repository
    subprocess.run([sys.executable, "-m", "npjax", "run", "--no-report", "--report-json",
                    str(report), str(script)], cwd=report.parent, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    comp = json.loads(report.read_text())["compiles"]
    return {"compiles": comp["count"], "hits": comp["cache_hits"],
            "compile_s": round(comp["seconds"], 3), "wall_s": round(wall, 2)}


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for script in sorted((ROOT / "examples").glob("*.py")):
            cache = os.path.join(tmp, script.stem)
            report = Path(tmp) / "report.json"
            row = {"example": script.name, "off": run(script, "off", report)}
            row["first"] = run(script, cache, report)
            row["second"] = run(script, cache, report)
            rows.append(row)
            print(json.dumps(row), flush=True)
    machine = f"{platform.node()} ({platform.machine()}, {os.cpu_count()} CPUs)"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "compile_cache.json").write_text(json.dumps({"machine": machine, "rows": rows},
                                                           indent=1) + "\n")
    lines = [f"Machine: {machine}", "",
             "| example | compiles | cache off: compile s / wall s | 1st run: hits, compile s / "
             "wall s | 2nd run: hits (share), compile s / wall s |",
             "|---|---:|---:|---:|---:|"]
    for r in rows:
        off, first, second = r["off"], r["first"], r["second"]
        share = second["hits"] / max(second["compiles"], 1)
        lines.append(f"| {r['example']} | {first['compiles']} | {off['compile_s']} / "
                     f"{off['wall_s']} | {first['hits']}, {first['compile_s']} / "
                     f"{first['wall_s']} | {second['hits']} ({share:.0%}), "
                     f"{second['compile_s']} / {second['wall_s']} |")
    (RESULTS / "compile_cache.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
