"""``python -m npjax run SCRIPT``: run an unmodified NumPy script with npjax as its ``numpy``.

The script runs as ``python SCRIPT`` would run it: it is the ``__main__`` module, ``sys.argv`` is
``[SCRIPT, *ARGS]``, the script's folder is ``sys.path[0]``, ``sys.exit`` codes pass through and an
uncaught exception prints a traceback of the script's own frames (through ``sys.excepthook``) and
exits with status 1.

Only the user's own code sees npjax: a ``builtins.__import__`` wrapper maps ``numpy`` and
``numpy.<sub>`` to ``npjax`` and ``npjax.<sub>`` when the importing module's file is the script or
lives in the script's folder tree (outside site-packages, the interpreter's prefixes and npjax
itself). Installed libraries (SciPy, pandas, matplotlib...) keep the real NumPy.
Differences from ``python SCRIPT``: ``importlib.import_module("numpy")`` in the script is not
redirected (it bypasses ``__import__``); a NumPy submodule that npjax does not provide raises
``ModuleNotFoundError`` naming it rather than silently running on host NumPy; an uncaught
``KeyboardInterrupt`` exits with status 130 instead of by SIGINT; child processes started with
``multiprocessing``'s spawn method re-import the script under plain NumPy.

``--compare`` runs the script twice in subprocesses (under npjax and under NumPy), compares the
printed lines (numbers parsed out and compared with a relative tolerance) and reports the time
each run spent in the script (interpreter start-up and the import of NumPy/JAX excluded).
"""

from __future__ import annotations

import builtins
import importlib
import importlib.machinery
import json
import math
import os
import re
import site
import subprocess
import sys
import sysconfig
import tempfile
import time
import types
from collections.abc import Sequence
from typing import Any

ENGINES = ("npjax", "numpy")
TIMING_ENV = "NPJAX_RUN_TIMING_FILE"  # the child writes its script time here (used by --compare)


# --- which files are "the user's code" ------------------------------------------------------


class _UserCode:
    """Decides, per file name (cached), whether a module belongs to the user's script tree."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        npjax_dir = os.path.dirname(os.path.realpath(__file__))
        candidates = {npjax_dir, sys.prefix, sys.exec_prefix, sys.base_prefix,
                      sys.base_exec_prefix}
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            path = sysconfig.get_paths().get(key)
            if path:
                candidates.add(path)
        try:
            candidates.update(site.getsitepackages())
        except AttributeError:  # some embedded interpreters lack it
            pass
        user_site = site.getusersitepackages() if hasattr(site, "getusersitepackages") else None
        if isinstance(user_site, str):
            candidates.add(user_site)
        excluded = []
        for path in candidates:
            real = os.path.realpath(path)
            # A prefix that contains the script's folder cannot exclude the script itself.
            if real == self.root or self.root.startswith(real + os.sep):
                continue
            excluded.append(real + os.sep)
        if npjax_dir != self.root:
            excluded.append(npjax_dir + os.sep)
        self.excluded = tuple(excluded)
        self._cache: dict[str, bool] = {}

    def __call__(self, filename: Any) -> bool:
        if not isinstance(filename, str):
            return False
        known = self._cache.get(filename)
        if known is None:
            real = os.path.realpath(filename)
            inside = real == self.root or real.startswith(self.root + os.sep)
            parts = real[len(self.root):].split(os.sep)
            known = (inside and not real.startswith(self.excluded)
                     and "site-packages" not in parts and "dist-packages" not in parts)
            self._cache[filename] = known
        return known


# --- the import hook -------------------------------------------------------------------------


def _npjax_module(name: str) -> types.ModuleType:
    """``npjax`` for ``numpy`` and ``npjax.sub`` for ``numpy.sub`` (or a clear error)."""
    target = "npjax" + name[len("numpy"):]
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name is not None and not target.startswith(exc.name):
            raise  # a genuine missing dependency inside npjax: do not hide it
        raise ModuleNotFoundError(
            f"npjax run: the script imports '{name}', which npjax does not provide yet "
            f"(run the script with plain python to use NumPy)", name=name) from None


class ImportHook:
    """A ``builtins.__import__`` wrapper that gives the user's code npjax for ``numpy``."""

    def __init__(self, is_user: _UserCode) -> None:
        self.is_user = is_user
        self.real_import = builtins.__import__

    def __call__(self, name: str, globals: Any = None, locals: Any = None,
                 fromlist: Any = (), level: int = 0) -> Any:
        # C code's PyImport_Import (e.g. NumPy's own lazy ``numpy._core._dtype`` import while
        # the script's frame is the innermost Python frame) passes the caller's globals and a
        # *list* fromlist; the ``import`` statement passes None or a tuple. Only the latter is
        # the user's code asking for numpy.
        if (level == 0 and name[:5] == "numpy" and (len(name) == 5 or name[5] == ".")
                and type(fromlist) is not list
                and globals is not None and self.is_user(globals.get("__file__"))):
            return self._numpy_import(name, fromlist)
        return self.real_import(name, globals, locals, fromlist, level)

    def _numpy_import(self, name: str, fromlist: Any) -> types.ModuleType:
        module = _npjax_module(name)
        if not fromlist:
            return _npjax_module("numpy")  # `import numpy.linalg` binds the top package
        for item in fromlist:
            if item == "*" or hasattr(module, item):
                continue
            try:
                importlib.import_module(f"{module.__name__}.{item}")
            except ModuleNotFoundError:
                raise ImportError(
                    f"cannot import name '{item}' from '{name}': npjax does not provide "
                    f"{name}.{item} yet (run the script with plain python to use NumPy)",
                    name=name) from None
        return module

    def install(self) -> None:
        builtins.__import__ = self

    def uninstall(self) -> None:
        if builtins.__import__ is self:
            builtins.__import__ = self.real_import


# --- running a script as __main__ --------------------------------------------------------------


def _trim_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback without this module's frames (the script's own frames remain)."""
    frames = []
    while tb is not None:
        if tb.tb_frame.f_code.co_filename != __file__:
            frames.append(tb)
        tb = tb.tb_next
    trimmed = None
    for old in reversed(frames):
        trimmed = types.TracebackType(trimmed, old.tb_frame, old.tb_lasti, old.tb_lineno)
    return trimmed


def run_script(path: str, args: Sequence[str], engine: str = "npjax") -> int:
    """Run ``path`` as ``__main__`` with ``sys.argv = [path, *args]``; return the exit status.

    ``engine="npjax"`` redirects the script's ``numpy`` imports to npjax; ``"numpy"`` runs it
    unchanged (the baseline of ``--compare``). ``SystemExit`` raised by the script propagates.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError as exc:
        print(f"{os.path.basename(sys.executable)}: can't open file "
              f"{os.path.abspath(path)!r}: [Errno {exc.errno}] {exc.strerror}", file=sys.stderr)
        return 2
    abspath = os.path.abspath(path)
    try:
        code = compile(source, abspath, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:  # as Python reports a script that cannot compile
        exc.__traceback__ = None
        sys.excepthook(type(exc), exc, None)
        return 1

    import numpy  # noqa: F401  (imported before the clock starts, in both engines)

    hook = None
    if engine == "npjax":
        import npjax  # noqa: F401

        hook = ImportHook(_UserCode(os.path.dirname(abspath)))

    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=abspath, __builtins__=builtins, __cached__=None,
                         __loader__=importlib.machinery.SourceFileLoader("__main__", abspath),
                         __spec__=None, __package__=None)
    sys.modules["__main__"] = main
    sys.argv[:] = [path, *args]
    sys.path[0] = os.path.dirname(abspath)

    timing_file = os.environ.pop(TIMING_ENV, None)
    status = 0
    start = time.perf_counter()
    if hook is not None:
        hook.install()
    try:
        exec(code, main.__dict__)
    except SystemExit:
        raise
    except BaseException as exc:  # reported as Python reports it, then exit status 1
        status = 130 if isinstance(exc, KeyboardInterrupt) else 1
        exc.__traceback__ = _trim_traceback(exc.__traceback__)
        sys.excepthook(type(exc), exc, exc.__traceback__)
    finally:
        if hook is not None:
            hook.uninstall()
        if timing_file:
            with open(timing_file, "w") as f:
                json.dump({"seconds": time.perf_counter() - start}, f)
    return status


# --- --compare: run under both and compare printed output -------------------------------------

_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf)(?![\w.])")


def _split(line: str) -> tuple[str, list[str]]:
    """A line as (text with numbers replaced by '#', whitespace collapsed; the number tokens)."""
    numbers = _NUMBER.findall(line)
    skeleton = " ".join(_NUMBER.sub("#", line).split())
    return skeleton, numbers


def _is_int(token: str) -> bool:
    return not any(c in token for c in ".eEni")


def _close(a: str, b: str, rtol: float, atol: float) -> bool:
    if _is_int(a) != _is_int(b):
        return False
    if _is_int(a):
        return int(a) == int(b)
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= atol + rtol * max(abs(x), abs(y))


def compare_lines(ours: str, theirs: str, rtol: float = 1e-9,
                  atol: float = 1e-12) -> list[tuple[str, str | None, str | None]]:
    """Per line: (status, npjax line, NumPy line); status is 'identical', 'match within
    tolerance' or 'DIFFER' (a missing line is None)."""
    a_lines, b_lines = ours.splitlines(), theirs.splitlines()
    result = []
    for i in range(max(len(a_lines), len(b_lines))):
        a = a_lines[i] if i < len(a_lines) else None
        b = b_lines[i] if i < len(b_lines) else None
        if a == b:
            status = "identical"
        elif a is None or b is None:
            status = "DIFFER"
        else:
            (sa, na), (sb, nb) = _split(a), _split(b)
            ok = sa == sb and len(na) == len(nb) and all(
                _close(x, y, rtol, atol) for x, y in zip(na, nb))
            status = "match within tolerance" if ok else "DIFFER"
        result.append((status, a, b))
    return result


_NUMPY_CHILD = """\
import importlib.util, sys
spec = importlib.util.spec_from_file_location("_npjax_runner", sys.argv[1])
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)
sys.exit(runner.run_script(sys.argv[2], sys.argv[3:], "numpy"))
"""


def _child(engine: str, script: str, args: Sequence[str]) -> tuple[int, str, str, float, float]:
    """Run the script in a subprocess; (exit status, stdout, stderr, script s, process s)."""
    fd, timing = tempfile.mkstemp(prefix="npjax-run-", suffix=".json")
    os.close(fd)
    env = dict(os.environ, **{TIMING_ENV: timing})
    env.setdefault("PYTHONIOENCODING", "utf-8")
    if engine == "npjax":
        command = [sys.executable, "-m", "npjax", "run", script, *args]
    else:  # plain NumPy: load this file alone, so the baseline process never imports JAX
        command = [sys.executable, "-c", _NUMPY_CHILD, __file__, script, *args]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True,
                              encoding="utf-8", errors="replace", check=False)
        process_s = time.perf_counter() - start
        try:
            with open(timing) as f:
                script_s = float(json.load(f)["seconds"])
        except (OSError, ValueError, KeyError):
            script_s = math.nan
    finally:
        os.unlink(timing)
    return done.returncode, done.stdout, done.stderr, script_s, process_s


def _tail(text: str, n: int = 15) -> list[str]:
    lines = text.rstrip("\n").splitlines()
    return (["..."] if len(lines) > n else []) + lines[-n:]


def compare(script: str, args: Sequence[str], rtol: float = 1e-9, atol: float = 1e-12,
            max_lines: int = 60) -> int:
    """Run ``script`` under npjax and under NumPy, print the comparison; 0 if outputs match."""
    ours = _child("npjax", script, args)
    theirs = _child("numpy", script, args)
    out = sys.stdout
    print(f"npjax run --compare {script} {' '.join(args)}".rstrip(), file=out)
    width = 22
    for label, (code, _, err, script_s, process_s) in (("npjax", ours), ("NumPy", theirs)):
        print(f"  {label:<6} script time {script_s:9.3f} s   (process {process_s:6.2f} s)   "
              f"exit status {code}", file=out)
        if err.strip():
            print(f"  {label} stderr:", file=out)
            for line in _tail(err):
                print(f"    {line}", file=out)
    rows = compare_lines(ours[1], theirs[1], rtol, atol)
    print(f"Printed output ({len(rows)} lines; numbers compared with rtol={rtol:g}, "
          f"atol={atol:g}):", file=out)
    counts = {"identical": 0, "match within tolerance": 0, "DIFFER": 0}
    hidden = 0
    for i, (status, a, b) in enumerate(rows):
        counts[status] += 1
        if i >= max_lines and status == "identical":
            hidden += 1
            continue
        if status == "identical":
            print(f"  {status:<{width}} | {a}", file=out)
        else:
            print(f"  {status:<{width}} | npjax: {'<missing>' if a is None else a}", file=out)
            print(f"  {'':<{width}} | NumPy: {'<missing>' if b is None else b}", file=out)
    if hidden:
        print(f"  ... and {hidden} more identical lines after line {max_lines}", file=out)
    same_exit = ours[0] == theirs[0]
    ok = counts["DIFFER"] == 0 and same_exit
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    if not same_exit:
        summary += f"; exit status differs (npjax {ours[0]}, NumPy {theirs[0]})"
    ratio = ours[3] / theirs[3] if theirs[3] > 0 else math.nan
    print(f"Time in script: npjax {ours[3]:.3f} s, NumPy {theirs[3]:.3f} s "
          f"(npjax/NumPy = {ratio:.2f}x; npjax's includes JAX compilation)", file=out)
    print(f"Result: {'MATCH' if ok else 'DIFFER'} ({summary or 'no output'})", file=out)
    return 0 if ok else 1
