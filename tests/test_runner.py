"""``python -m npjax run``: the script gets npjax, libraries keep NumPy, and it behaves as
``python SCRIPT`` does (argv, ``__name__``, exit codes, tracebacks); ``--compare`` reports."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from npjax import _runner
from npjax.__main__ import main


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
    assert out["np"] == "npjax._ndarray"
    assert out["from"] == "npjax._ndarray"
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
    err = done.stderr
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
    assert main(["coverage"]) == 2
    assert "not implemented yet: see issue 3" in capsys.readouterr().err


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
    assert "npjax: npjax._ndarray" in out and "NumPy: numpy" in out


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
])
def test_compare_lines(ours, theirs, status):
    assert _runner.compare_lines(ours, theirs) == [(status, ours, theirs)]


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
