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

``-m MODULE`` runs a module as ``python -m MODULE`` does; code under the current folder gets npjax.
Policy options (``--mode``, ``--device``, ``--sharding``, ``--fallback``, ``--random``,
``--x64``) are set with ``npjax.set_policy`` before the script starts; like any context-variable
setting they hold in the main thread (threads the script starts see the default policy).

At exit (also after ``sys.exit`` or an uncaught exception) the report of ``npjax.stats()`` is
printed to stderr (``--no-report`` turns it off; ``--report-json FILE`` writes its data).

``--compare`` runs the script twice in subprocesses (under npjax and under NumPy), compares the
printed lines (numbers parsed out and compared with a relative tolerance), the .npy/.npz/.txt/
.csv/.dat files each run wrote (found by modification time under the current folder and the
script's folder, three levels deep) and reports the time each run spent in the script
(interpreter start-up and the import of NumPy/JAX excluded), then npjax's report.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.machinery
import importlib.util
import json
import math
import os
import re
import runpy
import shutil
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
        npjax_dir = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
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
        parent, _, last = target.rpartition(".")
        found = getattr(importlib.import_module(parent), last, None) if parent else None
        if isinstance(found, types.ModuleType):  # a module npjax re-exports (numpy.lib.format)
            return found
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


# the wrappers ``jit="auto"`` puts around the script's functions and loops (frames not shown)
_COMPILE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "_compile")
_AUTOJIT_FILES = tuple(os.path.join(_COMPILE_DIR, f)
                       for f in ("_autojit.py", "_autojit_loop.py", "_jit.py"))


def _trim_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback without this module's frames and autojit's wrapper (the script's own
    frames remain)."""
    frames = []
    hidden = (__file__, runpy.__file__, *_AUTOJIT_FILES)
    while tb is not None:
        if tb.tb_frame.f_code.co_filename not in hidden:
            frames.append(tb)
        tb = tb.tb_next
    trimmed = None
    for old in reversed(frames):
        trimmed = types.TracebackType(trimmed, old.tb_frame, old.tb_lasti, old.tb_lineno)
    return trimmed


# The runner's default of the policy's ``jit`` field (``--jit``, ``NPJAX_JIT`` override it).
RUNNER_JIT = "auto"


def _autojit_on(policy: dict[str, Any] | None) -> bool:
    """Whether the script's functions get ``npjax.autojit`` (before npjax is imported)."""
    if policy and policy.get("jit") is not None:
        return policy["jit"] == "auto"
    return os.environ.get("NPJAX_JIT", RUNNER_JIT).strip() == "auto"


def _policy_error(exc: Exception) -> int:
    print(f"npjax run: {exc}", file=sys.stderr)
    return 2


def run_script(path: str, args: Sequence[str], engine: str = "npjax", *,
               module: bool = False, policy: dict[str, Any] | None = None,
               report: bool = False, report_json: str | None = None) -> int:
    """Run ``path`` as ``__main__`` with ``sys.argv = [path, *args]``; return the exit status.

    ``engine="npjax"`` redirects the script's ``numpy`` imports to npjax; ``"numpy"`` runs it
    unchanged (the baseline of ``--compare``). ``SystemExit`` raised by the script propagates
    (after the report). ``module=True`` runs ``path`` as a module name, as ``python -m``
    does. ``policy``: fields for ``npjax.set_policy`` (npjax engine only). ``report`` prints
    the report of ``npjax.stats()`` to stderr at exit; ``report_json`` writes it as JSON.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    code = None
    if module:
        root = os.getcwd()
        abspath = None
        sys.path[0] = root
        top = path.partition(".")[0]  # a top-level lookup imports nothing (no numpy yet)
        try:
            found = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            found = None
        if found is None:
            print(f"{sys.executable}: No module named {top}", file=sys.stderr)
            return 1
    else:
        try:
            with open(path, "rb") as f:
                source = f.read()
        except OSError as exc:
            print(f"{os.path.basename(sys.executable)}: can't open file "
                  f"{os.path.abspath(path)!r}: [Errno {exc.errno}] {exc.strerror}",
                  file=sys.stderr)
            return 2
        abspath = os.path.abspath(path)
        root = os.path.dirname(abspath)
        try:
            code = compile(source, abspath, "exec", dont_inherit=True)
            if engine == "npjax" and _autojit_on(policy):
                from npjax._tools import _autojit_hook

                code = _autojit_hook.compile_source(source, abspath)
        except (SyntaxError, ValueError) as exc:  # as Python reports a script that cannot compile
            exc.__traceback__ = None
            sys.excepthook(type(exc), exc, None)
            return 1

    import numpy  # noqa: F401  (imported before the clock starts, in both engines)

    hook = None
    finder = None
    stats_module = None
    if engine == "npjax":
        import npjax
        from npjax._runtime import _stats

        if policy:
            try:
                if policy.get("device") is not None:  # an unknown platform: fail up front
                    from npjax._core._normalize import resolve_device

                    resolve_device(policy["device"])
                npjax.set_policy(**policy)
            except (TypeError, ValueError, RuntimeError) as exc:
                return _policy_error(exc)
        if _autojit_on(policy):
            npjax.set_policy(jit="auto")
        hook = ImportHook(_UserCode(root))
        stats_module = _stats
        if npjax.get_policy().jit == "auto":
            from npjax._tools import _autojit_hook

            finder = _autojit_hook.Finder(hook.is_user)

    if module:
        sys.argv[:] = [path, *args]
        sys.path[0] = root
    else:
        main = types.ModuleType("__main__")
        main.__dict__.update(__file__=abspath, __builtins__=builtins, __cached__=None,
                             __loader__=importlib.machinery.SourceFileLoader("__main__",
                                                                             abspath),
                             __spec__=None, __package__=None)
        sys.modules["__main__"] = main
        sys.argv[:] = [path, *args]
        sys.path[0] = root

    timing_file = os.environ.pop(TIMING_ENV, None)
    status = 0
    if stats_module is not None:
        stats_module.user_code = hook.is_user
        stats_module.reset_stats()
    start = time.perf_counter()
    if hook is not None:
        hook.install()
    if finder is not None:
        finder.install()
    try:
        if module:
            runpy.run_module(path, run_name="__main__", alter_sys=True)
        else:
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
        if finder is not None:
            finder.uninstall()
        elapsed = time.perf_counter() - start
        if timing_file:
            with open(timing_file, "w") as f:
                json.dump({"seconds": elapsed}, f)
        if stats_module is not None:
            _finish_report(stats_module, path, report, report_json)
    return status


def _finish_report(stats_module: Any, script: str, report: bool,
                   report_json: str | None) -> None:
    """Print the report to stderr and/or write it as JSON (the script has finished)."""
    if not (report or report_json):
        return
    from npjax._tools import _report

    try:
        sys.stdout.flush()
    except (OSError, ValueError):  # a closed stdout: the report goes to stderr anyway
        pass
    data = stats_module.stats()
    data["script"] = script
    data["advice"] = _report.advice(data)
    if report_json:
        with open(report_json, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
    if report:
        print(_report.format_report(data, title=f"npjax report: {script}"), end="",
              file=sys.stderr)


# --- --compare: run under both and compare printed output -------------------------------------

# A number may end a sentence ("error 1e-08."): a full stop after it counts as text unless a
# digit follows (``1.2.3`` stays text).
_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf)(?!\w|\.\d)")
# Default tolerances (``rtol=None``): float64 results to rtol 1e-9; numbers printed with at
# most 9 significant digits (the most float32 needs, and NumPy's array printing precision) may
# be float32 and are compared to two float32 ulps instead, so a last-digit float32 difference
# is a match.
RTOL = 1e-9
SHORT_DIGITS = 9
SHORT_RTOL = 2.0 ** -22


def _split(line: str) -> tuple[str, list[str]]:
    """A line as (text with numbers replaced by '#', whitespace collapsed; the number tokens)."""
    numbers = _NUMBER.findall(line)
    skeleton = " ".join(_NUMBER.sub("#", line).split())
    return skeleton, numbers


def _is_int(token: str) -> bool:
    return not any(c in token for c in ".eEni")


def _digits(token: str) -> int:
    """Significant digits of a printed number ("0.0012500" has 5)."""
    mantissa = token.lstrip("+-").partition("e")[0].partition("E")[0]
    return len(mantissa.replace(".", "").lstrip("0")) or 1


def _close(a: str, b: str, rtol: float | None, atol: float) -> bool:
    if _is_int(a) != _is_int(b):
        return False
    if _is_int(a):
        return int(a) == int(b)
    if rtol is None:
        short = max(_digits(a), _digits(b)) <= SHORT_DIGITS
        rtol = SHORT_RTOL if short else RTOL
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= atol + rtol * max(abs(x), abs(y))


def compare_lines(ours: str, theirs: str, rtol: float | None = None,
                  atol: float = 1e-12) -> list[tuple[str, str | None, str | None]]:
    """Per line: (status, npjax line, NumPy line); status is 'identical', 'match within
    tolerance' or 'DIFFER' (a missing line is None). ``rtol=None``: by printed digits (RTOL,
    or SHORT_RTOL for numbers with at most SHORT_DIGITS significant digits)."""
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
module = sys.argv[2] == "-m"
sys.exit(runner.run_script(sys.argv[3], sys.argv[4:], "numpy", module=module))
"""

# Files a script saves with np.save / np.savez / np.savetxt (and similar text tables).
SAVED_SUFFIXES = (".npy", ".npz", ".txt", ".csv", ".dat")
_SKIP_DIRS = {"__pycache__", "site-packages", "dist-packages", "node_modules"}
_MAX_DEPTH = 3
_MAX_FILES = 20000


def _snapshot(roots: Sequence[str]) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of the saved-array files under ``roots`` (a few levels deep, hidden
    and package folders skipped, at most _MAX_FILES entries looked at)."""
    found: dict[str, tuple[int, int]] = {}
    seen = 0
    for root in dict.fromkeys(os.path.realpath(r) for r in roots):
        base_depth = root.rstrip(os.sep).count(os.sep)
        for folder, dirs, files in os.walk(root):
            depth = folder.rstrip(os.sep).count(os.sep) - base_depth
            dirs[:] = [] if depth >= _MAX_DEPTH else [
                d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS]
            for name in files:
                seen += 1
                if seen > _MAX_FILES:
                    return found
                if name.endswith(SAVED_SUFFIXES):
                    path = os.path.join(folder, name)
                    try:
                        st = os.stat(path)
                    except OSError:
                        continue
                    found[path] = (st.st_mtime_ns, st.st_size)
    return found


def _written(before: dict[str, tuple[int, int]],
             after: dict[str, tuple[int, int]]) -> list[str]:
    return sorted(p for p, sig in after.items() if before.get(p) != sig)


def _child(engine: str, script: str, args: Sequence[str], module: bool = False,
           options: Sequence[str] = ()) -> tuple[int, str, str, float, float]:
    """Run the script in a subprocess; (exit status, stdout, stderr, script s, process s)."""
    fd, timing = tempfile.mkstemp(prefix="npjax-run-", suffix=".json")
    os.close(fd)
    env = dict(os.environ, **{TIMING_ENV: timing})
    env.setdefault("PYTHONIOENCODING", "utf-8")
    target = ["-m", script] if module else [script]
    if engine == "npjax":
        command = [sys.executable, "-m", "npjax", "run", *options, *target, *args]
    else:  # plain NumPy: load this file alone, so the baseline process never imports JAX
        command = [sys.executable, "-c", _NUMPY_CHILD, __file__,
                   "-m" if module else "-f", script, *args]
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


def _load_arrays(path: str) -> dict[str, Any]:
    """The arrays in a .npy (key '') or .npz (its keys) file, loaded with real NumPy."""
    import numpy

    with numpy.load(path, allow_pickle=False) as loaded:
        return {k: loaded[k] for k in loaded.files}


def _load_npy(path: str) -> dict[str, Any]:
    import numpy

    return {"": numpy.load(path, allow_pickle=False)}


def _dtype_rtol(dtype: Any) -> float:
    """The default relative tolerance for a float dtype: RTOL, or two ulps when wider."""
    import numpy

    return max(RTOL, 2 * float(numpy.finfo(dtype).eps))


def compare_arrays(ours: Any, theirs: Any, rtol: float | None, atol: float
                   ) -> tuple[str, str]:
    """(status, detail) for two NumPy arrays: 'identical', 'match within tolerance' or
    'DIFFER'; integers, booleans and strings must be equal, floats close (NaN == NaN).
    ``rtol=None``: by dtype (two ulps of float32/float16, RTOL for float64)."""
    import numpy

    desc = f"{theirs.dtype} {theirs.shape}"
    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return "DIFFER", f"npjax {ours.dtype} {ours.shape}, NumPy {desc}"
    if numpy.array_equal(ours, theirs, equal_nan=ours.dtype.kind in "fc"):
        return "identical", desc
    if ours.dtype.kind not in "fc":
        bad = int(numpy.count_nonzero(ours != theirs))
        return "DIFFER", f"{desc}: {bad} elements differ"
    if rtol is None:
        rtol = _dtype_rtol(ours.dtype)
    close = numpy.isclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True)
    with numpy.errstate(all="ignore"):
        diff = numpy.abs(ours.astype(complex if ours.dtype.kind == "c" else float)
                         - theirs)
        finite = numpy.isfinite(diff)
        worst = float(diff[finite].max()) if finite.any() else math.nan
    if close.all():
        return "match within tolerance", f"{desc}: max abs diff {worst:.3g}"
    return "DIFFER", (f"{desc}: {int(close.size - close.sum())} elements differ beyond "
                      f"rtol={rtol:g}, atol={atol:g} (max abs diff {worst:.3g})")


def compare_saved(ours_dir: str, ours: Sequence[str], theirs: Sequence[str],
                  rtol: float | None, atol: float) -> list[tuple[str, str, str]]:
    """(status, name, detail) per saved file: npjax's copies (under ``ours_dir``, by
    relative name ``ours``) against the files NumPy's run wrote (absolute ``theirs``)."""
    theirs_by_name = {_display(p): p for p in theirs}
    rows = []
    for name in sorted(set(ours) | set(theirs_by_name)):
        if name not in theirs_by_name:
            rows.append(("DIFFER", name, "written only under npjax"))
            continue
        if name not in ours:
            rows.append(("DIFFER", name, "written only under NumPy"))
            continue
        mine, base = os.path.join(ours_dir, str(ours.index(name))), theirs_by_name[name]
        if name.endswith((".npy", ".npz")):
            load = _load_npy if name.endswith(".npy") else _load_arrays
            try:
                a, b = load(mine), load(base)
            except (OSError, ValueError) as exc:
                rows.append(("DIFFER", name, f"cannot load: {exc}"))
                continue
            if sorted(a) != sorted(b):
                rows.append(("DIFFER", name, f"arrays {sorted(a)} vs {sorted(b)}"))
                continue
            for key in sorted(a):
                status, detail = compare_arrays(a[key], b[key], rtol, atol)
                rows.append((status, f"{name}[{key}]" if key else name, detail))
        else:
            with open(mine, encoding="utf-8", errors="replace") as f:
                text_a = f.read()
            with open(base, encoding="utf-8", errors="replace") as f:
                text_b = f.read()
            lines = compare_lines(text_a, text_b, rtol, atol)
            bad = [i + 1 for i, (st, _, _) in enumerate(lines) if st == "DIFFER"]
            if bad:
                rows.append(("DIFFER", name, f"{len(bad)} of {len(lines)} lines differ "
                                             f"(first: line {bad[0]})"))
            else:
                worst = ("identical" if all(st == "identical" for st, _, _ in lines)
                         else "match within tolerance")
                rows.append((worst, name, f"{len(lines)} lines"))
    return rows


def _display(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def compare(script: str, args: Sequence[str], rtol: float | None = None, atol: float = 1e-12,
            max_lines: int = 60, *, module: bool = False, options: Sequence[str] = (),
            report: bool = True, report_json: str | None = None) -> int:
    """Run ``script`` under npjax and under NumPy, print the comparison; 0 if outputs match.

    Compared: the exit status, the printed lines, and the .npy/.npz/.txt/.csv/.dat files the
    runs wrote (found by modification time under the current folder and the script's folder;
    npjax's are copied aside before NumPy's run overwrites them). ``options`` are passed to
    the npjax run (policy flags); ``report`` prints npjax's report after the comparison;
    ``report_json`` receives its data as JSON. ``rtol=None``: tolerances by printed digits
    and by dtype (``compare_lines``, ``compare_arrays``).
    """
    roots = [os.getcwd()] if module else [os.getcwd(), os.path.dirname(os.path.abspath(script))]
    keep = tempfile.mkdtemp(prefix="npjax-compare-")
    try:
        fd, report_file = tempfile.mkstemp(prefix="npjax-report-", suffix=".json",
                                           dir=keep)
        os.close(fd)
        before = _snapshot(roots)
        ours = _child("npjax", script, args, module,
                      [*options, "--no-report", "--report-json", report_file])
        ours_saved = [_display(p) for p in _written(before, _snapshot(roots))]
        for i, name in enumerate(ours_saved):
            shutil.copyfile(name, os.path.join(keep, str(i)))
        before = _snapshot(roots)
        theirs = _child("numpy", script, args, module)
        theirs_saved = _written(before, _snapshot(roots))
        saved = compare_saved(keep, ours_saved, theirs_saved, rtol, atol)
        try:
            with open(report_file, encoding="utf-8") as f:
                report_data = json.load(f)
        except (OSError, ValueError):
            report_data = None
        if report_json and report_data is not None:
            shutil.copyfile(report_file, report_json)
    finally:
        shutil.rmtree(keep, ignore_errors=True)
    return _print_comparison(script, args, ours, theirs, saved, report_data if report else None,
                             rtol, atol, max_lines)


def _print_comparison(script: str, args: Sequence[str], ours: tuple, theirs: tuple,
                      saved: list[tuple[str, str, str]], report_data: dict | None,
                      rtol: float | None, atol: float, max_lines: int) -> int:
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
    tolerance = (f"rtol={rtol:g}" if rtol is not None else
                 f"rtol={RTOL:g} ({SHORT_RTOL:.2g} with <= {SHORT_DIGITS} digits)")
    print(f"Printed output ({len(rows)} lines; numbers compared with {tolerance}, "
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
    saved_counts = {"identical": 0, "match within tolerance": 0, "DIFFER": 0}
    if saved:
        by = f"rtol={rtol:g}" if rtol is not None else "rtol by dtype"
        print(f"Saved files ({len(saved)} arrays/tables; floats compared with {by}, "
              f"atol={atol:g}):", file=out)
        for status, name, detail in saved:
            saved_counts[status] += 1
            print(f"  {status:<{width}} | {name}  ({detail})", file=out)
    same_exit = ours[0] == theirs[0]
    ok = counts["DIFFER"] == 0 and saved_counts["DIFFER"] == 0 and same_exit
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    if saved:
        summary += "; saved: " + ", ".join(f"{n} {k}" for k, n in saved_counts.items() if n)
    if not same_exit:
        summary += f"; exit status differs (npjax {ours[0]}, NumPy {theirs[0]})"
    ratio = ours[3] / theirs[3] if theirs[3] > 0 else math.nan
    if report_data is not None:
        from npjax._tools import _report

        print(_report.format_report(report_data, title=f"npjax report: {script}"), end="",
              file=out)
    print(f"Time in script: npjax {ours[3]:.3f} s, NumPy {theirs[3]:.3f} s "
          f"(npjax/NumPy = {ratio:.2f}x; npjax's includes JAX compilation)", file=out)
    print(f"Result: {'MATCH' if ok else 'DIFFER'} ({summary or 'no output'})", file=out)
    return 0 if ok else 1
