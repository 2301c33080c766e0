"""``python -m npjax run``: the script gets npjax, libraries keep NumPy, and it behaves as
``python SCRIPT`` does (argv, ``__name__``, exit codes, tracebacks); ``--compare`` reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from npjax._tools import _runner
from npjax.__main__ import main
from tests._parity import DEVICE_FLOAT


def _write(path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return str(path)


def _run(*args: str, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "npjax", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=120, check=False)


SCRIPT = """\
    import sys
    import numpy as np
    from numpy import zeros
    import numpy
    import beside
    import outside
    from pkg.sub import mod

    print("np", type(np.zeros(2)).__module__)
    print("from", type(zeros(2)).__module__)
    print("numpy", numpy.__name__)
    print("beside", beside.np_name())
    print("site-packages", mod.np_name())
    print("outside", outside.np_name())
    print("argv", sys.argv)
    print("name", __name__)
    print("file", __file__)
    print("path0", sys.path[0])
    try:
        from numpy import no_such_function_here
    except ImportError as exc:
        print("missing", type(exc).__name__, "npjax does not provide" in str(exc))
    x = np.arange(6.0)
    x[1:-1] = x[1:-1] + 0.25 * (x[2:] - 2 * x[1:-1] + x[:-2])
    print("values", x)
    if len(sys.argv) > 1 and sys.argv[1] == "raise":
        def inner():
            raise ValueError("boom from script")
        inner()
    if len(sys.argv) > 1:
        sys.exit(int(sys.argv[1]))
"""


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A script, a module beside it, a 'site-packages' folder inside the tree, and a library
    folder outside the tree (on PYTHONPATH); the modules report which numpy they got."""
    root = tmp_path_factory.mktemp("runner")
    lib = "import numpy as np\n\ndef np_name():\n    return np.__name__\n"
    script = _write(root / "proj" / "script.py", SCRIPT)
    _write(root / "proj" / "beside.py", lib)
    _write(root / "proj" / ".venv" / "site-packages" / "pkg" / "__init__.py", "")
    _write(root / "proj" / ".venv" / "site-packages" / "pkg" / "sub" / "__init__.py", "")
    _write(root / "proj" / ".venv" / "site-packages" / "pkg" / "sub" / "mod.py", lib)
    _write(root / "lib" / "outside.py", lib)
    paths = [str(root / "lib"), str(root / "proj" / ".venv" / "site-packages")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    return script, env


def _lines(stdout: str) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in stdout.splitlines())


def test_script_gets_npjax_libraries_keep_numpy(tree):
    script, env = tree
    done = _run("run", script, env=env)
    assert done.returncode == 0, done.stderr
    out = _lines(done.stdout)
    assert out["np"] == "npjax._core._ndarray"
    assert out["from"] == "npjax._core._ndarray"
    assert out["numpy"] == "npjax"
    assert out["beside"] == "npjax"
    assert out["site-packages"] == "numpy"
    assert out["outside"] == "numpy"
    assert out["argv"] == repr([script])
    assert out["name"] == "__main__"
    assert out["file"] == script
    assert out["path0"] == os.path.dirname(script)
    assert out["missing"] == "ImportError True"
    assert out["values"] == "[0. 1. 2. 3. 4. 5.]"


def test_argv_and_exit_code(tree):
    script, env = tree
    done = _run("run", script, "7", "--compare", "-x", env=env)
    assert done.returncode == 7, done.stderr
    assert _lines(done.stdout)["argv"] == repr([script, "7", "--compare", "-x"])


def test_traceback_shows_only_the_script(tree):
    script, env = tree
    done = _run("run", script, "raise", env=env)
    assert done.returncode == 1
    err, report = done.stderr.split("=== npjax report: ")  # the report follows the traceback
    assert "Wall time:" in report
    assert err.startswith("Traceback (most recent call last):")
    assert f'File "{script}", line' in err and "in inner" in err
    assert err.rstrip().endswith("ValueError: boom from script")
    assert "_runner.py" not in err and "runpy" not in err and "__main__.py" not in err


def test_missing_script_syntax_error_and_placeholders(tmp_path, capsys):
    # In-process: these paths return before the script would run.
    assert main(["run", str(tmp_path / "nope.py"), "a"]) == 2
    assert "can't open file" in capsys.readouterr().err
    bad = tmp_path / "bad.py"
    bad.write_text("x = (1,\n")
    assert main(["run", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.rstrip().endswith("SyntaxError: '(' was never closed")
    assert f'File "{bad}", line 1' in err and "Traceback" not in err
    assert main(["run"]) == 2
    assert "give SCRIPT or -m MODULE" in capsys.readouterr().err
    # A policy value the library rejects: a clear message and status 2, nothing runs.
    good = tmp_path / "good.py"
    good.write_text("print('never runs')\n")
    assert _runner.run_script(str(good), [], policy={"mode": "sideways"}) == 2
    assert "npjax run: npjax.policy: mode='sideways'" in capsys.readouterr().err


def test_compare_reports_match(tmp_path):
    same = _write(tmp_path / "same.py", """\
        import numpy as np
        x = np.sin(np.arange(5.0) * 0.3)
        print("values", x)
        print("last", float(x[4]), x.dtype, x[4])
        """)
    done = _run("run", "--compare", same)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Result: MATCH" in done.stdout
    assert "script time" in done.stdout and "NumPy" in done.stdout


def test_compare_reports_differ(tmp_path, capsys):
    differ = _write(tmp_path / "differ.py", """\
        import numpy as np
        print("same", np.arange(3))
        print(type(np.zeros(2)).__module__)
        """)
    assert _runner.compare(differ, []) == 1
    out = capsys.readouterr().out
    assert "Result: DIFFER (1 identical, 1 DIFFER)" in out
    assert "npjax: npjax._core._ndarray" in out and "NumPy: numpy" in out


@pytest.mark.parametrize(("ours", "theirs", "status"), [
    ("a 1.5 b", "a 1.5 b", "identical"),
    ("x = 0.30000000000000004", "x = 0.3", "match within tolerance"),
    ("[1.        2.0000001]", "[1.  2.0000001]", "match within tolerance"),
    ("t 1e-300 nan -inf", "t 1.0000000000001e-300 nan -inf", "match within tolerance"),
    ("x = 0.3001", "x = 0.3", "DIFFER"),
    ("n 3", "n 3.0", "DIFFER"),
    ("n 3", "n 4", "DIFFER"),
    ("np.float64(1.0)", "1.0", "DIFFER"),
    ("nan", "inf", "DIFFER"),
    ("[1. 2.]", "[1. 2. 3.]", "DIFFER"),
    ("error 1e-08.", "error 1.0000000000001e-08.", "match within tolerance"),
    ("ends 2.5.", "ends 2.5000000000001.", "match within tolerance"),
    ("error 1e-08.", "error 2e-08.", "DIFFER"),
    ("version 1.2.3", "version 1.2.4", "DIFFER"),
    ("f32 0.1", "f32 0.099999994", "match within tolerance"),
    ("[0.33333334 1.2345679 ]", "[0.33333331 1.2345678 ]", "match within tolerance"),
    ("f32 1.0000001e-20", "f32 1e-20", "match within tolerance"),
    ("f32 0.1234", "f32 0.1235", "DIFFER"),
    ("f64 0.30000000000000004", "f64 0.30000001", "DIFFER"),
])
def test_compare_lines(ours, theirs, status):
    assert _runner.compare_lines(ours, theirs) == [(status, ours, theirs)]


def test_compare_lines_explicit_rtol_ignores_digits():
    assert _runner.compare_lines("f32 0.1", "f32 0.099999994", rtol=1e-9)[0][0] == "DIFFER"


def test_compare_lines_missing_line():
    assert _runner.compare_lines("a\nb", "a") == [("identical", "a", "a"),
                                                 ("DIFFER", "b", None)]


def test_user_code_decision(tmp_path):
    is_user = _runner._UserCode(str(tmp_path))
    assert is_user(str(tmp_path / "script.py"))
    assert is_user(str(tmp_path / "pkg" / "mod.py"))
    assert not is_user(str(tmp_path / "env" / "site-packages" / "lib.py"))
    assert not is_user(str(tmp_path.parent / "other.py"))
    assert not is_user(_runner.__file__)
    assert not is_user(None)


def test_module_mode(tmp_path):
    _write(tmp_path / "tool" / "__init__.py", "")
    _write(tmp_path / "tool" / "cli.py", """\
        import sys
        import numpy as np
        from numpy.linalg import norm
        print("np", np.__name__, type(np.ones(2)).__module__)
        print("name", __name__)
        print("argv", sys.argv[1:], sys.argv[0].endswith("cli.py"))
        print("norm", norm(np.array([3.0, 4.0])))
        sys.exit(3)
        """)
    done = _run("run", "--no-report", "-m", "tool.cli", "a", "--b", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    out = _lines(done.stdout)
    assert out["np"] == "npjax npjax._core._ndarray"
    assert out["name"] == "__main__"
    assert out["argv"] == "['a', '--b'] True"
    assert out["norm"] == "5.0"
    assert "npjax report" not in done.stderr


# A NumPy function that npjax runs on host NumPy (a fallback) today: the first of these that
# is still a fallback, with a call that uses it. (np.emath's results are complex or real
# depending on the data, so it stays on the host; update this table if that changes.)
FALLBACK_CANDIDATES = {
    "emath.sqrt": "np.emath.sqrt(np.array([-4.0, 4.0]))",
    "emath.log": "np.emath.log(np.array([-1.0, 1.0]))",
    "emath.arcsin": "np.emath.arcsin(np.array([2.0, 0.5]))",
}


def _fallback_name() -> str:
    import functools

    import npjax

    for name in FALLBACK_CANDIDATES:
        fn = functools.reduce(lambda obj, part: getattr(obj, part, None), name.split("."),
                              npjax)
        if getattr(fn, "_npjax_fallback", False):
            return name
    pytest.fail("none of FALLBACK_CANDIDATES is a fallback any more: add one that is")


REPORT_SCRIPT = """\
    import numpy as np

    a = np.zeros(120)
    for i in range(120):
        a[i] = i * 0.5
    total = 0.0
    for i in range(80):
        total += float(a[i])
    r = {call}
    print("total", total, a.sum())
"""


def test_report_counts_host_and_device_calls(tmp_path):
    script = _write(tmp_path / "mixed.py", """\
        import numpy as np

        small = np.arange(10.0) * 2
        big = np.ones(100_000) + 1
        print(float(small.sum() + big.sum()))
    """)
    data_file = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NPJAX_")}
    done = _run("run", "--report-json", str(data_file), script, cwd=tmp_path,
                env={**env, "NPJAX_HOST_THRESHOLD": "1000"})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "200090.0\n", done.stdout
    placed = json.loads(data_file.read_text())["placement"]
    assert placed["host_calls"]["__mul__"] == 1 and placed["device"] >= 2
    assert "Placement: " in done.stderr and "ran on host arrays (NumPy)" in done.stderr


def test_report_fallback_writes_and_transfers(tmp_path):

    name = _fallback_name()
    script = _write(tmp_path / "slow.py", REPORT_SCRIPT.format(call=FALLBACK_CANDIDATES[name]))
    data_file = tmp_path / "report.json"
    # The device's costs are what the advice is about: every array on the device.
    done = _run("run", "--fallback", "warn", "--report-json", str(data_file), script,
                cwd=tmp_path, env={**os.environ, "NPJAX_PLACEMENT": "device"})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "total 1580.0 3570.0\n", done.stdout
    err = done.stderr
    assert "FallbackWarning" in err
    assert err.index("FallbackWarning") < err.index("=== npjax report: ")
    assert "Wall time:" in err and "npjax calls:" in err
    assert "Fallbacks to host NumPy: 1 call(s)" in err
    assert "slow.py:9" in err  # the fallback's site, relative to the current folder
    assert "scalar writes (a[i] = v) at slow.py:5" in err
    assert "wrap the function in npjax.jit" in err
    assert "80 small device -> host transfers at slow.py:8" in err
    assert f"np.{name} ran on host NumPy 1 time(s) at slow.py:9" in err
    assert "Compiles:" in err and "Waiting on device results:" in err

    data = json.loads(data_file.read_text())
    assert data["script"] == script
    assert data["fallbacks"] == {name: 1}
    assert data["fallback_sites"] == [{"function": name, "site": f"{script}:9", "count": 1}]
    assert data["scalar_writes"] == [{"site": f"{script}:5", "count": 120}]
    assert data["calls"]["zeros"] == 1 and data["calls"]["sum"] == 1
    d2h = {e["site"]: e for e in data["transfer_sites"] if e["direction"] == "device_to_host"}
    assert d2h[f"{script}:8"]["count"] == 80 and d2h[f"{script}:8"]["bytes"] == 640
    assert data["transfers"]["device_to_host"]["count"] >= 81
    assert data["compiles"]["count"] >= 1 and data["compiles"]["seconds"] > 0
    assert data["device_wait"]["count"] >= 81
    assert len(data["advice"]) == 3
    assert data["wall_s"] > 0


def test_policy_flags_reach_the_script(tmp_path):
    script = _write(tmp_path / "policy.py", """\
        import numpy as np
        p = np.get_policy()
        print(p.mode, p.fallback, p.random, p.x64, np.ones(2).dtype)
        """)
    done = _run("run", "--no-report", "--fallback", "allow", "--random", "numpy", "--no-x64",
                "--mode", "eager", script)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "eager allow numpy False float32\n"
    assert done.stderr == ""


def test_compare_saved_arrays(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    script = _write(tmp_path / "saver.py", """\
        import numpy as np
        shift = 0 if type(np.zeros(1)).__module__ == "numpy" else 1
        np.save("same.npy", np.arange(4.0) / 3)
        np.savez("pair.npz", a=np.arange(3), b=np.arange(3) + shift)
        np.savetxt("table.txt", np.eye(2) * (1 + shift))
        np.save("sub/deep.npy", np.ones(2)) if False else None
        print("done")
        """)
    assert _runner.compare(script, []) == 1
    out = capsys.readouterr().out
    assert "| same.npy  (float64 (4,))" in out and "identical              | same.npy" in out
    assert "identical              | pair.npz[a]" in out
    assert "DIFFER                 | pair.npz[b]  (int64 (3,): 3 elements differ)" in out
    assert "DIFFER                 | table.txt  (2 of 2 lines differ" in out
    assert "Result: DIFFER (1 identical; saved: 2 identical, 2 DIFFER)" in out


@pytest.mark.parametrize(("ours", "theirs", "status"), [
    ([1.0, 2.0], [1.0, 2.0], "identical"),
    ([1.0, float("nan")], [1.0, float("nan")], "identical"),
    ([1.0, 2.0 + 1e-15], [1.0, 2.0], "match within tolerance"),
    ([1.0, 2.1], [1.0, 2.0], "DIFFER"),
    ([1, 2], [1, 3], "DIFFER"),
    ([1.0, 2.0], [1.0, 2.0, 3.0], "DIFFER"),
])
def test_compare_arrays(ours, theirs, status):
    import numpy

    assert _runner.compare_arrays(numpy.array(ours), numpy.array(theirs), 1e-9, 1e-12)[0] \
        == status


def test_compare_arrays_tolerance_by_dtype():
    import numpy

    a = numpy.array([0.1, 1.0, 3.0], numpy.float32)
    b = numpy.nextafter(a, numpy.float32(2))
    assert _runner.compare_arrays(a, b, None, 1e-12)[0] == "match within tolerance"
    assert _runner.compare_arrays(a, b, 1e-9, 1e-12)[0] == "DIFFER"
    x = numpy.array([0.1, 1.0])
    assert _runner.compare_arrays(x, x * (1 + 1e-7), None, 1e-12)[0] == "DIFFER"


def test_compare_writes_report_json(tmp_path):
    script = _write(tmp_path / "small.py", """\
        import numpy as np
        print("mean", np.arange(4.0).mean())
        """)
    report = tmp_path / "report.json"
    done = _run("run", "--compare", "--report-json", str(report), script)
    assert done.returncode == 0, done.stdout + done.stderr

    data = json.loads(report.read_text())
    assert data["script"] == script and "calls" in data


def test_numpy_lib_imports_resolve_to_npjax(tmp_path):
    script = _write(tmp_path / "windows.py", """\
        import numpy as np
        import numpy.lib.stride_tricks
        import numpy.lib.format
        from numpy.lib.stride_tricks import sliding_window_view
        from numpy.lib import stride_tricks, NumpyVersion
        v = sliding_window_view(np.arange(5), 3)
        print(type(v).__module__, numpy.lib.stride_tricks.as_strided.__module__,
              stride_tricks.__name__, numpy.lib.format.__name__)
        print(np.__version__ == __import__("importlib").import_module("numpy").__version__,
              NumpyVersion(np.__version__) >= "2.0.0", v.sum())
        """)
    done = _run("run", "--no-report", script)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("npjax._core._ndarray npjax npjax.lib.stride_tricks numpy.lib.format\n"
                           "True True 18\n")


def test_compare_arrays_dtype_differs():
    import numpy

    status, detail = _runner.compare_arrays(numpy.zeros(2, numpy.float32), numpy.zeros(2),
                                            1e-9, 1e-12)
    assert status == "DIFFER" and "float32" in detail and "float64" in detail


@pytest.mark.device_placement
def test_stats_in_process():
    import npjax

    npjax.reset_stats()
    x = npjax.asarray(np.array([1.0, 2.0, 3.0], DEVICE_FLOAT)); line = sys._getframe().f_lineno  # noqa: E702
    y = npjax.sin(x) + x
    npjax.sum(y)
    float(y[0])
    s = npjax.stats()
    assert s["calls"]["sin"] == 1 and s["calls"]["add"] == 1 and s["calls"]["sum"] == 1
    sites = {(e["direction"], e["site"]): e for e in s["transfer_sites"]}
    assert sites[("host_to_device", f"{__file__}:{line}")]["bytes"] == x.nbytes
    assert sites[("device_to_host", f"{__file__}:{line + 3}")]["count"] == 1
    assert s["transfers"]["device_to_host"] == {"count": 1, "bytes": x.itemsize}
    npjax.reset_stats()
    s = npjax.stats()
    assert s["calls"] == {} and s["transfer_sites"] == [] and s["compiles"]["count"] == 0
    assert s["transfers"]["host_to_device"] == {"count": 0, "bytes": 0}


def test_report_text_from_data():
    from npjax._tools import _report

    data = {"wall_s": 2.0, "calls": {"add": 5, "sum": 1},
            "fallback_sites": [{"function": "histogram", "site": "/x/s.py:3", "count": 2}],
            "transfers": {"host_to_device": {"count": 1, "bytes": 2048},
                          "device_to_host": {"count": 0, "bytes": 0}},
            "transfer_sites": [{"direction": "host_to_device", "site": "/x/s.py:4",
                                "count": 60, "bytes": 2048}],
            "scalar_writes": [{"site": "/x/s.py:9", "count": 10}],
            "device_wait": {"count": 0, "seconds": 0.0},
            "compiles": {"count": 60, "seconds": 1.5, "backend_s": 1.0, "trace_s": 0.2,
                         "lower_s": 0.3, "by_function": {"jit(body)": 60}, "cache": {}}}
    text = _report.format_report(data)
    assert "Wall time: 2.000 s" in text
    assert "  add           5" in text
    assert "histogram      2  /x/s.py:3" in text
    assert "host -> device      1  2.0 KiB" in text
    assert "persistent compilation cache: not used" in text
    tips = _report.advice(data)
    assert len(tips) == 3  # 60 uploads at one line, the fallback, compiles > 50% of wall time
    assert tips[0].startswith("60 host -> device transfers at /x/s.py:4")
    assert tips[2].startswith("JAX compiled 60 times (1.50 s, 75% of the wall time)")


def test_seeded_legacy_script_prints_numpys_numbers(tmp_path):
    """NEP 19: the legacy np.random streams are NumPy's under the default policy."""
    script = _write(tmp_path / "legacy.py", "import numpy as np\nnp.random.seed(0)\n"
                    "print(np.random.rand(3))\nprint(np.random.RandomState(1).randint(0, 9, 4))\n")
    ours = _run("run", "--no-report", script)
    theirs = subprocess.run([sys.executable, script], capture_output=True, text=True)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout


def test_bench_writes_to_out_not_the_committed_results(monkeypatch, tmp_path):
    """``bench`` writes where ``--out`` says, by default ./npjax-bench (ignored by git), never
    into benchmarks/results unless asked."""
    import runpy

    from npjax import __main__ as entry

    seen = []
    monkeypatch.setattr(runpy, "run_path", lambda path, run_name: seen.append(
        (os.path.basename(path), list(sys.argv[1:]))))
    assert entry.main(["bench", "--quick", "--only", "chain"]) == 0
    assert entry.main(["bench", "--overhead", "--out", str(tmp_path)]) == 0
    assert seen == [("suite.py", ["--quick", "--out", "npjax-bench", "--size", "small",
                                  "--only", "chain"]),
                    ("overhead.py", ["--out", str(tmp_path)])]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, ".gitignore")) as f:
        ignored = f.read().split()
    assert "npjax-bench/" in ignored and "examples-output/" in ignored


def test_random_choices_and_help():
    from npjax.__main__ import _parser

    run = _parser()._subparsers._group_actions[0].choices["run"]
    action = next(a for a in run._actions if a.dest == "random")
    assert action.choices == ("auto", "jax", "numpy")
    assert "fast" not in action.help
