"""NumPy's own tests (from the installed wheel) under npjax: a repeatable measurement.

    python benchmarks/numpy_tests.py [--files F1,F2] [--modes control,auto,device]
        [--test-timeout 20] [--file-timeout 900] [--work DIR] [--write benchmarks/results]

For each test file of ``FILES`` (paths inside the installed ``numpy`` package) two copies are
made in a work folder: ``control/`` (the file as shipped) and ``npjax/`` (its imports rewritten
so that the code under test is npjax, below). pytest then runs each file once per mode, one
process per file and mode, never in parallel:

- ``control``: the shipped file on NumPy itself;
- ``auto``: the rewritten file under npjax's default policy (placement "auto");
- ``device``: the rewritten file with ``npjax.set_policy(placement="device")`` (every array
  npjax makes on the device).

The score of a mode is the share of the control-passing tests that pass under it. Failures
(of control-passing tests) are grouped by exception type and message (numbers, quoted names and
addresses blanked) and the largest groups listed.

Rewriting (``rewrite_imports``, on the syntax tree, so imports inside functions count too):
``import numpy [as np]`` -> npjax; ``import numpy.M as X`` and ``from numpy.M import names`` take
npjax's public submodule ``M`` (testing, linalg, fft, random, lib.stride_tricks, ...) where
npjax has it; ``from numpy[._core...] import names`` takes from npjax each name that is NumPy's
public object of that name and that npjax has. Everything else (NumPy's private modules and
helpers: ``numpy._core._multiarray_tests``, ``numpy.exceptions``, ``ma``) stays NumPy's, as a
user's script would see it; private attributes read through the package name (``np._core.x``,
``np._CopyMode``) and dunders npjax lacks (``np.__config__``) are NumPy's too. NumPy's ufunc
namespace (``np._core.umath``, ``import numpy._core.umath as ncu``) is a shim holding npjax's
ufunc for each public NumPy ufunc npjax has (the tests' lists of ufuncs are then the ufuncs under
test). ``numpy.testing`` is ``npjax.testing``: NumPy's assertions given npjax arrays' data.

Time limits: each test gets ``--test-timeout`` seconds (a ``SIGALRM`` raising
``TestTimeout`` in the test's thread: pytest-timeout is not installed), each file and mode
``--file-timeout`` seconds (``timeout`` kills the process; every test reported before the kill
is kept, the rest of the file counts as "not run"). A test that kills the process with a signal
(NumPy's C test helpers given an npjax array: ``_multiarray_tests.incref_elide`` reads it as a
NumPy array) is recorded as failed and the file runs on without it. Under npjax only the tests
the control run passed are run (the others count for nothing, and some take minutes: a
concatenation of 2**31 arrays). Results stream to ``results_<mode>.jsonl`` in the work folder as
tests finish.

The warnings filter is NumPy's own test configuration (``filterwarnings = error``, as NumPy's
``pytest.ini``), with npjax's ``FallbackWarning`` (a call npjax runs on host NumPy says so) and
JAX's deprecation warnings ignored: a drop-in user sees neither as a change of result.
"""

from __future__ import annotations

import argparse
import ast
import collections
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy

# The fixed subset (16 files): ufuncs, umath, numeric, multiarray, indexing, item selection,
# shape_base (core and lib), function_base (core and lib), einsum, set operations, nan-functions,
# two-dimensional helpers, linalg and fft.
FILES = (
    "_core/tests/test_ufunc.py",
    "_core/tests/test_umath.py",
    "_core/tests/test_numeric.py",
    "_core/tests/test_multiarray.py",
    "_core/tests/test_indexing.py",
    "_core/tests/test_item_selection.py",
    "_core/tests/test_shape_base.py",
    "_core/tests/test_function_base.py",
    "_core/tests/test_einsum.py",
    "lib/tests/test_function_base.py",
    "lib/tests/test_shape_base.py",
    "lib/tests/test_arraysetops.py",
    "lib/tests/test_nanfunctions.py",
    "lib/tests/test_twodim_base.py",
    "linalg/tests/test_linalg.py",
    "fft/tests/test_pocketfft.py",
)
MODES = ("control", "auto", "device")
NUMPY_DIR = Path(numpy.__file__).parent

CONFTEST = '''\
"""Written by benchmarks/numpy_tests.py: markers, per-test time limit, streamed results."""
import json, os, signal, sys
import hypothesis
import pytest

hypothesis.settings.register_profile(
    "np.test() profile", deadline=None, print_blob=True, database=None, derandomize=True,
    suppress_health_check=list(hypothesis.HealthCheck))
hypothesis.settings.load_profile("np.test() profile")
os.environ["NUMPY_EXPERIMENTAL_DTYPE_API"] = "1"

_PLACEMENT = os.environ.get("NUMPY_TESTS_PLACEMENT")
if _PLACEMENT:
    import npjax
    npjax.set_policy(placement=_PLACEMENT)

_LIMIT = float(os.environ.get("NUMPY_TESTS_TEST_TIMEOUT", "20"))
_OUT = open(os.environ["NUMPY_TESTS_RESULTS"], "a", buffering=1)


class TestTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise TestTimeout(f"test ran past {_LIMIT:g} s")


def pytest_configure(config):
    for line in ("valgrind_error: x", "leaks_references: x", "slow: x", "slow_pypy: x",
                 "parallel_threads(n): x", "iterations(n): x", "thread_unsafe: x"):
        config.addinivalue_line("markers", line)


def _limited():
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, _LIMIT)
    return old


def _unlimit(old):
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, old)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    old = _limited()
    try:
        yield
    finally:
        _unlimit(old)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    old = _limited()
    try:
        yield
    finally:
        _unlimit(old)


def pytest_collection_modifyitems(config, items):
    done = os.environ.get("NUMPY_TESTS_DONE")  # a rerun after a crash: the rest of the file
    if done:
        with open(done) as f:
            skip = set(f.read().splitlines())
        kept = [item for item in items if item.nodeid not in skip]
        config.hook.pytest_deselected(items=[i for i in items if i.nodeid in skip])
        items[:] = kept


def pytest_unconfigure(config):
    _OUT.close()


def pytest_runtest_logreport(report):
    message = ""
    if report.failed:
        crash = getattr(report.longrepr, "reprcrash", None)
        message = crash.message if crash is not None else str(report.longrepr)[-400:]
    _OUT.write(json.dumps({"id": report.nodeid, "when": report.when,
                           "outcome": report.outcome, "message": message[:600]}) + "\\n")
'''

PYTEST_INI = """\
[pytest]
addopts = -p no:cacheprovider -p no:benchmark -p no:randomly
filterwarnings =
    error
    ignore:Not importing directory
    ignore::UserWarning:cpuinfo
    ignore:divide by zero encountered in log
    ignore:invalid value encountered in log
    ignore:the matrix subclass is not
    ignore:Importing from numpy.matlib is
    ignore::DeprecationWarning:jax.*
    ignore::npjax.FallbackWarning
    ignore::pytest.PytestRemovedIn10Warning
"""


# --- rewriting imports --------------------------------------------------------------------


def _npjax_module(name: str):
    """npjax's public module for NumPy's ``name`` (``numpy.linalg`` -> ``npjax.linalg``)."""
    if any(part.startswith("_") for part in name.split(".")):
        return None
    target = "npjax" + name[len("numpy"):]
    try:
        return importlib.import_module(target)
    except ImportError:
        return None


def _numpy_public(module: str, name: str) -> bool:
    """Whether ``numpy.<module>.<name>`` is NumPy's public ``numpy.<name>``."""
    if name.startswith("_") or not hasattr(numpy, name):
        return False
    try:
        return getattr(importlib.import_module(module), name) is getattr(numpy, name)
    except (ImportError, AttributeError):
        return False


def _from_import(node: ast.ImportFrom, stats: collections.Counter) -> list[str]:
    module = node.module or ""
    target = _npjax_module(module)
    moved, kept = [], []
    for alias in node.names:
        text = alias.name + (f" as {alias.asname}" if alias.asname else "")
        if alias.name == "*":
            (moved if target is not None else kept).append(text)
        elif target is not None and hasattr(target, alias.name):
            moved.append(text)
        elif (module.startswith("numpy._core") and _numpy_public(module, alias.name)
              and hasattr(_npjax_module("numpy"), alias.name)):
            moved.append(("npjax", text))
        else:
            kept.append(text)
            stats[f"{module}.{alias.name}"] += 1
    lines = []
    if target is not None and any(isinstance(m, str) for m in moved):
        names = ", ".join(m for m in moved if isinstance(m, str))
        lines.append(f"from {target.__name__} import {names}")
    top = [m[1] for m in moved if not isinstance(m, str)]
    if top:
        lines.append(f"from npjax import {', '.join(top)}")
    if kept:
        lines.append(f"from {module} import {', '.join(kept)}")
    return lines


def _import(node: ast.Import, stats: collections.Counter) -> list[str]:
    lines = []
    for alias in node.names:
        name = alias.name
        if name == "numpy":
            lines.append(f"import npjax as {alias.asname or 'numpy'}")
            lines.append(f"import numpy as {PRIVATE}")
            lines.append(f"import {SHIM}")
        elif name == "numpy._core.umath" and alias.asname:
            lines.append(f"from {SHIM} import umath as {alias.asname}")
        elif alias.asname and _npjax_module(name) is not None:
            lines.append(f"import npjax{name[len('numpy'):]} as {alias.asname}")
        else:  # ``import numpy._core.umath as ncu``, or ``import numpy.x`` binding ``numpy``
            lines.append(f"import {name}" + (f" as {alias.asname}" if alias.asname else ""))
            stats[name] += 1
    return lines


PRIVATE = "_numpy_private"  # the name private NumPy attributes are read through
SHIM = "_numpy_tests_shim"  # NumPy's ufunc namespace with npjax's ufuncs (``SHIM_SOURCE``)
SHIM_SOURCE = '''"""Written by benchmarks/numpy_tests.py: ``numpy._core.umath`` as the code
under test sees it: npjax's ufunc for each public NumPy ufunc npjax has, NumPy's otherwise."""
import types

import numpy
import npjax

umath = types.ModuleType("umath")
for _k, _v in vars(numpy._core.umath).items():
    _mine = getattr(npjax, _k, None) if (not _k.startswith("_")
                                         and getattr(numpy, _k, None) is _v) else None
    setattr(umath, _k, _v if _mine is None else _mine)
'''


def _private_attributes(source: str, stats: collections.Counter) -> str:
    """``np._core.umath``, ``np.lib._function_base_impl.x`` (NumPy's private modules, read
    through the name bound to the package) read from NumPy: they are NumPy's internals, not
    the code under test (npjax has its own ``_core``)."""
    tree = ast.parse(source)
    roots = {a.asname or a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
             for a in node.names if a.name == "numpy"}
    npjax = _npjax_module("numpy")
    edits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain, base = [], node
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if not isinstance(base, ast.Name) or base.id not in roots:
            continue
        chain.reverse()
        if chain[:2] == ["_core", "umath"]:  # NumPy's ufunc namespace: the shim's
            edits.append((base.lineno, base.col_offset, base.end_col_offset, f"{SHIM}.umath",
                          len("._core.umath")))
            stats[f"{base.id}._core.umath (shim)"] += 1
            continue
        if chain[0].startswith("__") and not hasattr(npjax, chain[0]) \
                and hasattr(numpy, chain[0]):  # ``np.__config__``: NumPy's build
            edits.append((base.lineno, base.col_offset, base.end_col_offset, PRIVATE, 0))
            stats[f"{base.id}.{chain[0]}"] += 1
            continue
        if not any(a.startswith("_") and not a.startswith("__") for a in chain):
            continue
        here, there = npjax, numpy
        for attr in chain:
            here, there = getattr(here, attr, None), getattr(there, attr, None)
            if attr.startswith("_") and not attr.startswith("__"):
                break
        if there is not None and here is not there:
            edits.append((base.lineno, base.col_offset, base.end_col_offset, PRIVATE, 0))
            stats[f"{base.id}.{'.'.join(chain)}"] += 1
    lines = source.splitlines(keepends=True)
    chosen: dict = {}  # one edit per name: the longest (``np._core.umath`` over ``np._core``)
    for edit in edits:
        key = edit[:3]
        if key not in chosen or edit[4] > chosen[key][4]:
            chosen[key] = edit
    for lineno, start, end, name, more in sorted(chosen.values(), reverse=True):
        line = lines[lineno - 1]
        lines[lineno - 1] = line[:start] + name + line[end + more:]
    return "".join(lines)


def rewrite_imports(source: str, stats: collections.Counter) -> str:
    """``source`` with its NumPy imports taken from npjax where npjax has the name."""
    source = _private_attributes(source, stats)
    lines = source.splitlines(keepends=True)
    edits = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                node.module == "numpy" or node.module.startswith("numpy.")):
            new = _from_import(node, stats)
        elif isinstance(node, ast.Import) and any(
                a.name == "numpy" or a.name.startswith("numpy.") for a in node.names):
            new = _import(node, stats)
        else:
            continue
        edits.append((node.lineno, node.end_lineno, node.col_offset, new))
    for start, end, col, new in sorted(edits, reverse=True):
        first = lines[start - 1]
        prefix = first[:col]
        if prefix.strip():  # ``if x: import numpy``: keep the statement on its line
            body = "; ".join(new)
            lines[start - 1:end] = [prefix + body + "\n"]
        else:
            lines[start - 1:end] = [prefix + text + "\n" for text in new]
    return "".join(lines)


def prepare(work: Path, files: list[str]) -> dict[str, Path]:
    """The two copies of ``files`` (control and npjax) under ``work``: their paths by mode."""
    stats: collections.Counter = collections.Counter()
    roots = {}
    for kind in ("control", "npjax"):
        root = work / kind
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        (root / "conftest.py").write_text(CONFTEST)
        (root / "pytest.ini").write_text(PYTEST_INI)
        if kind == "npjax":
            (root / f"{SHIM}.py").write_text(SHIM_SOURCE)
        for rel in files:
            source = (NUMPY_DIR / rel).read_text()
            dest = root / rel.replace("/tests/", "__").replace("/", "__")
            dest.write_text(source if kind == "control" else rewrite_imports(source, stats))
        roots[kind] = root
    (work / "kept_numpy_imports.json").write_text(json.dumps(dict(stats.most_common()),
                                                             indent=1))
    return roots


# --- running ------------------------------------------------------------------------------


def run_file(root: Path, rel: str, mode: str, work: Path, test_timeout: float,
             file_timeout: float) -> dict:
    name = rel.replace("/tests/", "__").replace("/", "__")
    results = work / f"results_{mode}.jsonl"
    env = dict(os.environ, NUMPY_TESTS_RESULTS=str(results),
               NUMPY_TESTS_TEST_TIMEOUT=str(test_timeout), NPJAX_CACHE_DIR="off")
    env.pop("NUMPY_TESTS_PLACEMENT", None)
    if mode == "device":
        env["NUMPY_TESTS_PLACEMENT"] = "device"
    control = outcomes(work / "results_control.jsonl")
    if mode != "control" and control:  # tests NumPy itself does not pass do not count: not run
        skip = work / f"skip_{mode}.txt"
        skip.write_text("\n".join(t for t, o in control.items() if o[0] != "passed") + "\n")
        env["NUMPY_TESTS_DONE"] = str(skip)
    start = time.perf_counter()
    crashed = []
    while True:  # a test that crashes the process (a signal) is recorded, the rest run on
        left = file_timeout - (time.perf_counter() - start)
        proc = subprocess.run(
            ["timeout", "-s", "KILL", str(max(int(left), 1)), sys.executable, "-m", "pytest",
             "-q", "--no-header", "-rN", "--tb=no", "-p", "no:faulthandler", name],
            cwd=root, env=env, capture_output=True, text=True)
        if proc.returncode >= 0 or proc.returncode == -9 or len(crashed) >= 20:
            break
        seen = outcomes(results, keep_open=True)
        open_tests = [t for t, o in seen.items() if t.startswith(name) and o[0] == "open"]
        if not open_tests:
            break
        crashed.append(open_tests[-1])
        with open(results, "a") as f:
            f.write(json.dumps({"id": open_tests[-1], "when": "call", "outcome": "failed",
                                "message": f"Crashed: the process died of signal "
                                           f"{-proc.returncode}"}) + "\n")
        done = work / f"done_{mode}.txt"
        done.write_text("\n".join([*outcomes(results), *(t for t, o in control.items()
                                                          if o[0] != "passed")]) + "\n")
        env["NUMPY_TESTS_DONE"] = str(done)
    took = time.perf_counter() - start
    tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or [""]
    return {"file": rel, "mode": mode, "rc": proc.returncode, "seconds": round(took, 1),
            "killed": proc.returncode in (124, 137, -9), "crashed": crashed,
            "summary": tail[0][:200]}


def outcomes(path: Path, keep_open: bool = False) -> dict[str, tuple[str, str]]:
    """Test id -> (outcome, message) from a results file (a failure in any phase fails);
    with ``keep_open``, a test whose setup passed and nothing else came is "open" (the test
    that was running when the process died)."""
    found: dict[str, tuple[str, str]] = {}
    if not path.exists():
        return found
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        old = found.get(rec["id"])
        if rec["outcome"] == "failed":
            if old is None or old[0] != "failed":
                found[rec["id"]] = ("failed", rec["message"])
        elif rec["outcome"] == "skipped":
            if old is None or old[0] == "passed":
                found[rec["id"]] = ("skipped", "")
        elif rec["when"] == "call" and (old is None or old[0] not in ("failed", "skipped")):
            found[rec["id"]] = ("passed", "")
        elif keep_open and rec["when"] == "setup" and old is None:
            found[rec["id"]] = ("open", "")
    return found


_NUMS = re.compile(r"0x[0-9a-f]+|[-+]?\d+(\.\d+)?(e[-+]?\d+)?", re.I)
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def cause(message: str) -> str:
    """A failure message reduced to its cause: first line, numbers and quoted names blanked."""
    first = message.strip().splitlines()[0] if message.strip() else "(no message)"
    if first.startswith("AssertionError") or first.startswith("assert "):
        return "AssertionError (values/dtypes/shape differ)" if "Arrays are not" in message \
            or "Items are not equal" in message or "Not equal" in message \
            else "AssertionError: " + _NUMS.sub("#", first[15:80])
    return _NUMS.sub("#", _QUOTED.sub("'…'", first))[:140]


def summarise(work: Path, modes: list[str], runs: list[dict], top: int = 25) -> dict:
    """Per mode: the control-passing tests that pass, as a share of all of them ("percent"),
    of those collected under npjax ("of_collected": a test that exists only for NumPy, as one
    parametrized over a NumPy-private ufunc the npjax file's lists do not hold, left out) and
    of those that ran before a file's time limit ("of_reached"); failures grouped by cause."""
    control = outcomes(work / "results_control.jsonl")
    passing = {k for k, (o, _) in control.items() if o == "passed"}
    summary = {"control_passed": len(passing), "control_total": len(control), "modes": {}}
    for mode in modes:
        if mode == "control":
            continue
        killed = {r["file"].replace("/tests/", "__").replace("/", "__") for r in runs
                  if r["mode"] == mode and r["killed"]}
        got = outcomes(work / f"results_{mode}.jsonl")
        ok = {k for k in passing if got.get(k, ("",))[0] == "passed"}
        groups: collections.Counter = collections.Counter()
        by_file: collections.Counter = collections.Counter()
        examples: dict[str, str] = {}
        uncollected = unreached = 0
        files_seen = {t.split("::")[0] for t in got}
        for test in sorted(passing - ok):
            outcome, message = got.get(test, ("not run", ""))
            if outcome == "not run":
                if test.split("::")[0] in killed:
                    key = "not run (file time limit)"
                    unreached += 1
                elif test.split("::")[0] not in files_seen:
                    key = "the file did not collect under npjax (an error at import)"
                else:
                    key = "not collected under npjax"
                    uncollected += 1
            else:
                key = "skipped under npjax" if outcome == "skipped" else cause(message)
            groups[key] += 1
            by_file[test.split("::")[0]] += 1
            examples.setdefault(key, test)
        pct = lambda n, d: round(100 * n / max(d, 1), 1)  # noqa: E731
        per_file: dict = {}
        for test in passing:
            row = per_file.setdefault(test.split("::")[0], [0, 0])
            row[0] += 1
            row[1] += test in ok
        summary["modes"][mode] = {
            "passed": len(ok), "percent": pct(len(ok), len(passing)),
            "of_collected": pct(len(ok), len(passing) - uncollected),
            "of_reached": pct(len(ok), len(passing) - uncollected - unreached),
            "not_collected": uncollected, "not_reached": unreached,
            "failed": len(passing) - len(ok), "by_file": dict(by_file.most_common()),
            "per_file": dict(sorted(per_file.items())),
            "causes": [(k, n, examples[k]) for k, n in groups.most_common(top)]}
    return summary


def markdown(summary: dict, runs: list[dict], command: str) -> str:
    out = ["# NumPy's own tests under npjax", "",
           f"`{command}` (benchmarks/numpy_tests.py says how it works), NumPy "
           f"{numpy.__version__}, {time.strftime('%Y-%m-%d')}.", "",
           f"Control (NumPy itself): {summary['control_passed']} of "
           f"{summary['control_total']} tests pass.", "",
           "| mode | control-passing tests that pass | % | % of those collected under npjax "
           "| not collected | not reached (time limit) | % of those reached |",
           "|---|---|---|---|---|---|---|"]
    for mode, m in summary["modes"].items():
        out.append(f"| {mode} | {m['passed']} of {summary['control_passed']} | "
                   f"{m['percent']}% | {m['of_collected']}% | {m['not_collected']} | "
                   f"{m['not_reached']} | {m['of_reached']}% |")
    modes = list(summary["modes"])
    if modes:
        out += ["", "## By file (control-passing tests that pass)", "",
                "| file | control passes | " + " | ".join(modes) + " |",
                "|---|---|" + "---|" * len(modes)]
        for name, (total, _) in summary["modes"][modes[0]]["per_file"].items():
            cells = []
            for mode in modes:
                passed = summary["modes"][mode]["per_file"].get(name, [0, 0])[1]
                cells.append(f"{passed} ({round(100 * passed / max(total, 1), 1)}%)")
            out.append(f"| {name} | {total} | " + " | ".join(cells) + " |")
    for mode, m in summary["modes"].items():
        out += ["", f"## Failures under `{mode}` by cause (top {len(m['causes'])})", "",
                "| tests | cause | example |", "|---|---|---|"]
        for key, n, example in m["causes"]:
            out.append(f"| {n} | `{key.replace('|', '/')}` | `{example}` |")
        out += ["", "By file: " + ", ".join(f"{f} {n}" for f, n in m["by_file"].items())]
    out += ["", "## Runs", "", "| file | mode | seconds | killed | pytest's last line |",
            "|---|---|---|---|---|"]
    for r in runs:
        out.append(f"| {r['file']} | {r['mode']} | {r['seconds']} | {r['killed']} | "
                   f"{r['summary'].replace('|', '/')} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", default=",".join(FILES))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--test-timeout", type=float, default=20.0)
    parser.add_argument("--file-timeout", type=float, default=900.0)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "npjax-numpy-tests"))
    parser.add_argument("--summarise-only", action="store_true",
                        help="report the results already in --work")
    parser.add_argument("--write", default=None, help="folder for numpy_tests.md/.json")
    args = parser.parse_args(argv)
    files = [f for f in args.files.split(",") if f]
    modes = [m for m in args.modes.split(",") if m]
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    runs = []
    if not args.summarise_only:
        roots = prepare(work, FILES if set(files) <= set(FILES) else files)
        for mode in modes:
            (work / f"results_{mode}.jsonl").unlink(missing_ok=True)
        for mode in modes:  # a mode at a time: a later call can add another mode's runs
            for rel in files:
                root = roots["control" if mode == "control" else "npjax"]
                r = run_file(root, rel, mode, work, args.test_timeout, args.file_timeout)
                runs.append(r)
                print(json.dumps(r), flush=True)
        done = {(r["file"], r["mode"]) for r in runs}
        if (work / "runs.json").exists():
            runs = [r for r in json.loads((work / "runs.json").read_text())
                    if (r["file"], r["mode"]) not in done] + runs
        (work / "runs.json").write_text(json.dumps(runs, indent=1))
    elif (work / "runs.json").exists():
        runs = json.loads((work / "runs.json").read_text())
    summary = summarise(work, modes, runs)
    command = "python benchmarks/numpy_tests.py " + " ".join(argv or sys.argv[1:])
    text = markdown(summary, runs, command.strip())
    print(text)
    if args.write:
        Path(args.write).mkdir(parents=True, exist_ok=True)
        (Path(args.write) / "numpy_tests.md").write_text(text)
        (Path(args.write) / "numpy_tests.json").write_text(json.dumps(
            {"summary": summary, "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
