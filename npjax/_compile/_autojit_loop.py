"""Hot loops at module level under ``python -m npjax run`` (issue 35, point 2).

The runner's hook (``npjax/_tools/_autojit_hook.py``) gives each eligible ``for NAME in
range(...)`` of a script's module-level code (and of its local modules) one call around its
iterable; the loop itself stays as written::

    for i in loop(K, range(1, n), globals()):   # K: the loop's syntax tree, ``register``
        ...the body, as written...

``loop`` returns the range itself (the loop runs as written, no cost) unless the policy's
``jit`` is "auto". Otherwise it hands out the indices in runs, timed between runs
(on-stack replacement, as tiered JITs do): at iterations 2, 4, 8, 16... it estimates the
time the remaining iterations will take as written (from the latest run of iterations).
When that is at least ``PAYS`` times the expected compile (``_autojit.expected_compile_s``)
and ``MIN_LEFT_S``, and the iterations so far took ``SPENT`` times the expected compile,
the remaining iterations run as one call of a *loop function*, compiled by ``npjax.jit``
(which rolls its loop: ``_loop_parse.generated`` hands the roller the syntax tree, as the
function has no source of its own)::

    def _npjax_module_loop(a, b, t, i, _npjax_start, _npjax_stop, _npjax_step):
        for i in range(_npjax_start, _npjax_stop, _npjax_step):
            ...the body...
        return (i, t)            # the names the loop binds

Its parameters are the names the loop binds and the names it reads whose values are data
(arrays, lists, tuples, dicts, numbers, strings); other names (modules, functions, classes)
are read from the module's globals as the loop reads them. The names it returns are written
back into the module's globals. File name and line numbers are the script's, so warnings,
exceptions and ``npjax.JitError`` name the user's lines.

Safety (issue 35, point 3): the loop function must pass ``_autojit_check.check`` (nothing
but arrays and its own locals change: no global or attribute store, no ``print``, I/O,
random draws, objects of the user's classes...), and ``register`` takes only loops whose
body has no ``break``/``continue`` of its own, ``else``, ``global``, ``del``, ``import``,
``try``, nested ``def``/``lambda``/``class``, ``yield``, ``await``, or a call of
``globals``/``locals``/``vars``/``exec``/``eval``. Every name the loop binds must be bound
when it would compile. Anything else, and a loop ``npjax.jit`` cannot trace (a
``JitError``: a value-dependent branch, a loop that stays unrolled past
``_loop_unroll.AUTO_UNROLLED`` iterations), runs its remaining iterations as written: each
iteration runs once, as written or compiled, never both, and a refused loop is never tried
again (``npjax.stats()["autojit"]["refused"]`` names it, file:line).
"""

from __future__ import annotations

import ast
import copy
import itertools
import os
import time
import types
from typing import Any

import numpy as np

from npjax._compile import _autojit, _autojit_check, _loop_unroll, _user_code
from npjax._compile._autojit import _EAGER, _hostify, _untraced, expected_compile_s
from npjax._compile._jit import Jitted
from npjax._compile._loop_parse import generated
from npjax._core._ndarray import ndarray
from npjax._pure._errors import JitError
from npjax._runtime import _context, _stats

__all__ = ["eligible", "loop", "register"]

PAYS = 3.0  # the remaining iterations must take this many expected compiles as written
MIN_LEFT_S = 0.5  # ... and at least this long (a loop's compile: 0.1-0.5 s on a CPU)
SPENT = 0.5  # ... once the iterations run as written took this many expected compiles
# the expected compile before any is measured: a module loop's function is its loop alone,
# which compiles faster than a kernel function (``_autojit.DEFAULT_COMPILE_S``)
FIRST_COMPILE_S = 0.2
MIN_TRIPS = 8  # shorter loops are never looked at
NAME = "<module loop>"

_REFUSED = (ast.Global, ast.Nonlocal, ast.Delete, ast.Import, ast.ImportFrom, ast.Try,
            ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Yield,
            ast.YieldFrom, ast.Await, ast.Return, ast.AsyncFor, ast.AsyncWith, ast.NamedExpr,
            ast.Starred)
try:
    _REFUSED += (ast.TryStar,)  # type: ignore[attr-defined]
except AttributeError:  # Python 3.10
    pass
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SCOPE_NAMES = frozenset(("globals", "locals", "vars", "exec", "eval", "__import__", "dir"))
_DATA = (ndarray, np.ndarray, np.generic, list, tuple, dict, int, float, complex, bool, str,
         type(None))


class _Site:
    """One module-level loop: its syntax tree and what happened to it."""

    __slots__ = ("cache", "filename", "line", "node", "reads", "refused", "stores")

    def __init__(self, node: ast.For, filename: str, reads: list[str],
                 stores: list[str]) -> None:
        self.node, self.filename, self.line = node, filename, node.lineno
        self.reads, self.stores = reads, stores
        self.refused = False
        self.cache: dict[tuple, tuple] = {}  # parameters -> (loop function, Jitted, guards)

    @property
    def site(self) -> str:
        return f"{self.filename}:{self.line}"


_SITES: list[_Site] = []


def _own_level(stmts: list) -> list[ast.AST]:
    """The nodes of ``stmts`` outside nested loops (whose ``break`` is their own)."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(stmts)
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, ast.For | ast.While):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def eligible(node: ast.AST) -> bool:
    """Whether a module-level statement is a loop ``register`` takes."""
    if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name)
            and not node.orelse and isinstance(node.iter, ast.Call)
            and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range"
            and not node.iter.keywords and 1 <= len(node.iter.args) <= 3):
        return False
    if any(isinstance(n, ast.Break | ast.Continue) for n in _own_level(node.body)):
        return False
    for sub in ast.walk(node):
        if isinstance(sub, _REFUSED) or (isinstance(sub, ast.Name)
                                         and sub.id in _SCOPE_NAMES):
            return False
    return True


def register(node: ast.For, filename: str) -> int:
    """Keep the loop's syntax tree (a copy, before the hook changes it); its number."""
    reads, stores = [], [node.target.id]
    todo: list[tuple[ast.AST, bool]] = [(node, False)]
    while todo:
        sub, inner = todo.pop()
        if isinstance(sub, ast.Name):
            # (a comprehension's own names are not the module's: a read at most)
            names = stores if isinstance(sub.ctx, ast.Store) and not inner else reads
            if sub.id not in names:
                names.append(sub.id)
        inner = inner or isinstance(sub, _COMPREHENSIONS)
        todo.extend((child, inner) for child in ast.iter_child_nodes(sub))
    _SITES.append(_Site(copy.deepcopy(node), filename, reads, stores))
    return len(_SITES) - 1


def loop(k: int, it: Any, g: dict) -> Any:
    """The iterable of module-level loop ``k``: ``it`` itself, or its indices in runs
    (``_runs``) chained by ``itertools.chain`` (under ``jit="auto"``, outside any trace)."""
    site = _SITES[k]
    if site.refused or type(it) is not range or len(it) < MIN_TRIPS:
        return it
    ctx = _context.get()
    if ctx.trace is not None or ctx.policy.jit != "auto":
        return it
    return itertools.chain.from_iterable(_runs(site, it, g))


def _runs(site: _Site, r: range, g: dict) -> Any:
    """The runs of 2, 2, 4, 8... indices of ``r`` (``chain`` hands out their items in C:
    about 5% of an empty loop's time, ``yield from`` cost 45%) with a look at the clock
    between runs: the time an iteration of the latest run took (the first ones pay for first
    calls) times the iterations left is what compiling can save."""
    n = len(r)
    t0 = last = time.perf_counter()
    k, upto = 0, 2
    while True:
        yield r[k:upto]
        now = time.perf_counter()
        per, k, last = (now - last) / (upto - k), upto, now
        if k >= n:
            return
        upto = min(2 * k, n)
        compile_s = expected_compile_s() if _autojit._COMPILES else FIRST_COMPILE_S
        if now - t0 >= SPENT * compile_s and \
                per * (n - k) >= max(PAYS * compile_s, MIN_LEFT_S):
            if _compiled(site, r[k:], g, per):
                return
            if site.refused:
                yield r[k:]
                return


def _refuse(site: _Site, why: str, where: str | None = None) -> None:
    site.refused = True
    _stats.autojit_refused[(NAME, where or site.site, why)] += 1


def _passed(v: Any) -> bool:
    return isinstance(v, _DATA)


def _function(site: _Site, params: tuple[str, ...], g: dict) -> types.FunctionType:
    node = site.node
    extra = ("_npjax_start", "_npjax_stop", "_npjax_step")
    rng = ast.Call(func=ast.Name(id="range", ctx=ast.Load()),
                   args=[ast.Name(id=e, ctx=ast.Load()) for e in extra], keywords=[])
    body = ast.For(target=ast.Name(id=node.target.id, ctx=ast.Store()), iter=rng,
                   body=node.body, orelse=[], type_comment=None)
    ret = ast.Return(value=ast.Tuple(elts=[ast.Name(id=s, ctx=ast.Load())
                                           for s in site.stores], ctx=ast.Load()))
    fdef = ast.FunctionDef(
        name="_npjax_module_loop",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params + extra],
                           kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[body, ret], decorator_list=[], returns=None, type_comment=None)
    for made in (fdef, body, rng, ret, *ast.walk(rng), *ast.walk(ret), body.target):
        ast.copy_location(made, node)
        made.end_lineno, made.end_col_offset = node.lineno, node.col_offset
    for a in fdef.args.args:
        ast.copy_location(a, node)
    ast.fix_missing_locations(fdef)
    return generated(fdef, site.filename, g)


def _compiled(site: _Site, rest: range, g: dict, per: float) -> bool:
    """Run the iterations ``rest`` as one compiled call; False (with ``site.refused``, the
    module unchanged) where it cannot."""
    missing = [s for s in site.stores if s not in g]
    if missing:
        _refuse(site, f"the loop binds {missing[0]}, unbound when it would compile")
        return False
    params = tuple(sorted(set(site.stores) | {r for r in site.reads
                                              if r in g and _passed(g[r])}))
    entry = site.cache.get(params)
    if entry is not None and entry[2] is not None and not entry[2].hold():
        entry = None
    if entry is None:
        fn = _function(site, params, g)
        try:
            guards = _autojit_check.check(fn)
        except _autojit_check.Refused as exc:  # (named at the loop, with where it saw it)
            _refuse(site, exc.why if exc.site.startswith(f"{site.site}")
                    else f"{exc.why} ({os.path.basename(exc.site)})")
            return False
        if guards.arrays:  # (autojit's functions freeze them while tracing; a loop does not)
            _refuse(site, f"reads the NumPy array {guards.arrays[0][1]} of a global or closure "
                    "variable (a compiled loop would keep its value)")
            return False
        entry = site.cache[params] = (fn, Jitted(fn, (), (), "raise"), guards)
    fn, jitted, _ = entry
    args = [g[p] for p in params] + [rest.start, rest.stop, rest.step]
    for j, (name, value) in enumerate(zip(params, args)):
        if type(value) is ndarray and value._base is not None and value._lens is None:
            # a view NumPy made of a host array (``np.linspace``'s result): npjax.jit would
            # run the call as written; a loop that only reads its elements reads a copy
            if name in site.stores or not _read_only(site.node, name):
                _refuse(site, f"{name} is a view NumPy made, which the loop may write")
                return False
            args[j] = value.copy()
    host = all(type(a) is not ndarray or a._host() is not None for a in args)
    limit = _loop_unroll.UNROLL_LIMIT.set(_loop_unroll.AUTO_UNROLLED)
    compiles, hits = _stats.compiles["count"], _stats.cache_events["cache_hits"]
    t0 = time.perf_counter()
    try:
        result = jitted(*args)
    except JitError as exc:  # npjax cannot trace it: nothing changed
        _refuse(site, _reason(exc), _where(exc, site.site))
        return False
    except Exception as exc:
        frames = _user_code._frames(exc)
        if any(code is _EAGER for code, _ in frames):  # npjax.jit's run as written raised it
            _bind_raised(fn, site, exc, g)
            site.refused = True
            raise
        if _user_code._from_handler(frames):
            raise  # a signal handler's: at once, as without npjax
        _refuse(site, f"raises {type(exc).__name__} while traced", _where(exc, site.site))
        return False  # (as written, it raises at its iteration)
    finally:
        _loop_unroll.UNROLL_LIMIT.reset(limit)
    elapsed = time.perf_counter() - t0
    if _stats.compiles["count"] > compiles and _stats.cache_events["cache_hits"] == hits:
        _autojit._COMPILES.append(elapsed)  # (what the next expected compile learns from;
        # a program the persistent cache held was not compiled)
    ctx = _context.get()
    for name, value in zip(site.stores, result):
        g[name] = _hostify(value, ctx) if host else value
    last = jitted._last
    if last is not None and last[1].eager is not None:  # npjax.jit ran it as written
        _refuse(site, _untraced(last[1]), last[1].eager)
        return True
    rec = _stats.autojit_compiled.setdefault((NAME, site.site), {
        "signatures": 0, "compile_s": 0.0, "cold_calls": 0, "cold_s": 0.0, "hot_calls": 0,
        "saved_s": 0.0})
    rec["signatures"] += 1
    rec["compile_s"] += elapsed
    rec["hot_calls"] += 1
    rec["saved_s"] += per * len(rest) - elapsed
    return True


def _read_only(node: ast.For, name: str) -> bool:
    """Whether every use of ``name`` in the loop is an operand of an arithmetic or
    comparison operator, itself or a subscript of it (``b[i] * 2``): never a call's
    argument, an attribute's object, a name bound to it or to a view of it, or a store."""
    parents: dict[int, ast.AST] = {}
    for sub in ast.walk(node):
        for child in ast.iter_child_nodes(sub):
            parents[id(child)] = sub
    for sub in ast.walk(node):
        if not (isinstance(sub, ast.Name) and sub.id == name):
            continue
        up = parents.get(id(sub))
        if isinstance(up, ast.Subscript) and up.value is sub and isinstance(up.ctx, ast.Load):
            sub, up = up, parents.get(id(up))  # (b[i] + 1: its view read, never kept)
        if isinstance(up, ast.BinOp | ast.UnaryOp | ast.Compare):
            continue
        return False
    return True


def _bind_raised(fn: types.FunctionType, site: _Site, exc: BaseException, g: dict) -> None:
    """The loop function ran as written and raised: the module's names as that run left
    them (its frame's locals), as the loop as written leaves them."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is fn.__code__:
            local = tb.tb_frame.f_locals
            for name in site.stores:
                if name in local:
                    g[name] = local[name]
            return
        tb = tb.tb_next


def _where(exc: BaseException, default: str) -> str:
    text = str(exc)
    if "): " in text:
        site = text.split("): ", 1)[1].split(": ", 1)[0]
        if ":" in site:
            return site
    return default


def _reason(exc: JitError) -> str:
    """The reason of npjax.jit's refusal, without its ``npjax.jit(name): file:line:``."""
    text = str(exc)
    found = text.rsplit("[", 1)
    if len(found) == 2 and found[1].endswith("]"):
        return f"cannot trace: {found[1].rstrip(']')[:200]}"
    if "): " in text:
        text = text.split("): ", 1)[1]
        head, _, rest = text.partition(": ")
        text = rest if ":" in head and rest else text
    return f"cannot trace: {text[:240]}"
