"""The persistent compilation cache: where it lives, turning it off, sharing it, its bound.

The test process runs with the cache off (conftest.py); scripts run in subprocesses with
``NPJAX_CACHE_DIR`` pointing at a temporary directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import npjax
from npjax._runtime import _compile_cache
from npjax._runtime._disk_cache import DiskCache

ROOT = Path(__file__).resolve().parents[1]
_OWN = ("NPJAX_", "JAX_COMPILATION_CACHE", "JAX_PERSISTENT_CACHE", "JAX_ENABLE_COMPILATION")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_OWN)}
    env["NPJAX_PLACEMENT"] = "device"  # the scripts' arrays on the device: XLA compiles
    env.update(extra)
    return env


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300, check=False)


def _run_script(script: str, report: Path, cache: Path) -> dict:
    # ``--jit explicit``: what autojit compiles depends on timings (and on the cache itself)
    done = _run(["-m", "npjax", "run", "--no-report", "--jit", "explicit", "--report-json",
                 str(report), script],
                _env(NPJAX_CACHE_DIR=str(cache)))
    assert done.returncode == 0, done.stderr
    assert "persistent compilation cache" not in done.stderr  # no cache I/O warning
    return json.loads(report.read_text())["compiles"]


def test_second_run_is_served_by_the_cache(tmp_path):
    cache = tmp_path / "xla"
    first = _run_script("examples/heat_equation.py", tmp_path / "1.json", cache)
    second = _run_script("examples/heat_equation.py", tmp_path / "2.json", cache)
    assert first["cache_dir"] == str(cache)
    assert first["count"] > 0 and first["cache_misses"] > 0
    assert any(cache.glob("*-cache"))
    assert second["count"] == first["count"]  # a hit still counts as a compile
    assert second["cache_hits"] >= 0.9 * second["count"]
    assert second["cache_misses"] == second["count"] - second["cache_hits"]


def test_processes_share_the_cache(tmp_path):
    script = tmp_path / "small.py"
    script.write_text("import npjax as np\nx = np.arange(50.0)\n"
                      "print(float(np.sin(x * 2 + 1).sum()), float(np.cumsum(x)[-1]))\n")
    cache = tmp_path / "xla"
    env = _env(NPJAX_CACHE_DIR=str(cache))
    args = ["-W", "error", "-m", "npjax", "run", "--no-report", str(script)]
    procs = [subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert outs[0][0] == outs[1][0]
    assert not list(cache.glob(".tmp-*"))
    warm = _run_script(str(script), tmp_path / "3.json", cache)
    assert warm["cache_hits"] == warm["count"] > 0


def _jax_cache_dir(**env: str) -> list[str]:
    code = ("import npjax, jax; from npjax import _compile_cache as c; "
            "print(jax.config.jax_compilation_cache_dir); print(c.state['reason'])")
    done = _run(["-c", code], _env(**env))
    assert done.returncode == 0, done.stderr
    return done.stdout.split("\n")[:2]


def test_off_leaves_jax_cache_dir_unset():
    assert _jax_cache_dir(NPJAX_CACHE_DIR="off") == ["None", "off: NPJAX_CACHE_DIR"]
    assert _jax_cache_dir(NPJAX_CACHE_DIR="")[0] == "None"


def test_a_cache_configured_for_jax_is_kept(tmp_path):
    mine = str(tmp_path / "jax-own")
    got = _jax_cache_dir(JAX_COMPILATION_CACHE_DIR=mine, NPJAX_CACHE_DIR=str(tmp_path / "x"))
    assert got == [mine, "left to JAX: jax_compilation_cache_dir is set"]


def test_where_the_cache_lives(tmp_path):
    home = os.path.expanduser("~")
    assert _compile_cache.default_dir({}) == os.path.join(home, ".cache", "npjax", "xla")
    xdg = str(tmp_path)
    assert _compile_cache.default_dir({"XDG_CACHE_HOME": xdg}) == str(tmp_path / "npjax" / "xla")
    assert _compile_cache.default_dir({"XDG_CACHE_HOME": "rel"}).startswith(home)
    assert _compile_cache._requested({"NPJAX_CACHE_DIR": "OFF"}) is None
    assert _compile_cache._requested({"NPJAX_CACHE_DIR": str(tmp_path)}) == str(tmp_path)
    assert _compile_cache.MAX_BYTES == 2**30


def test_stats_expose_hits_and_misses():
    comp = npjax.stats()["compiles"]
    assert {"cache_hits", "cache_misses", "cache_dir"} <= comp.keys()
    assert comp["cache_dir"] is None  # the test process runs with the cache off


def test_disk_cache_round_trip(tmp_path):
    store = DiskCache(str(tmp_path / "d"), 2**20)
    assert store.get("k") is None
    store.put("k", b"abc")
    store.put("k", b"other")  # an entry is kept as first written
    assert store.get("k") == b"abc"
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["k-cache"]


def test_disk_cache_trims_least_recently_used(tmp_path):
    store = DiskCache(str(tmp_path), 3000)
    for i, key in enumerate("abc"):
        store.put(key, bytes(1000))
        os.utime(tmp_path / f"{key}-cache", (i, i))  # a oldest, c newest
    store.get("a")  # a hit makes a the newest
    store.put("d", bytes(1000))  # over the bound: trims to 90%, oldest first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-cache", "d-cache"]


def test_disk_cache_write_failure_is_not_an_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    store = DiskCache(str(blocker / "sub"), 2**20)  # cannot be created
    store.put("k", b"abc")
    assert store.get("k") is None
