"""The source side of loop rolling: ``rolled(fn)`` rewrites ``fn``'s ``for`` loops.

Each eligible ``for NAME in range(...)`` (see ``npjax._compile._loops`` for what runs it) becomes::

    def _npjax_bodyK(NAME, x, y):            # the names the loop body binds
        if x is UNBOUND: del x               # (unbound before the loop: still unbound)
        ...the body, instrumented...         # calls via call(), a[k] via getsub/setsub
        return (NAME, x, y)                  # (UNBOUND for a name left unbound)
    _npjax_rK = run_loop(_npjax_bodyK, range, (args...), (NAME, x, y), line, keep)
    NAME, x, y = _npjax_rK                   # (a name returned UNBOUND is deleted)

``keep`` holds the positions of the names the code after the loop may read (``_Live``, a
liveness pass over the whole function; None: all): where none of them needs it, the last
iteration is rolled too.

A loop over anything else, ``for NAME in seq``, calls ``run_loop(body, items, (seq,), ...)``:
over an npjax array it rolls as ``NAME = seq[k]``, over anything else it iterates as written.
Loops are rewritten innermost first; a loop whose body has ``break``/``continue`` of its own,
``return``, ``yield``, ``await``, ``try``, ``del``, ``import``, a nested ``def``/``lambda``/
``class``, an attribute or starred store, an item store inside an unpacking, or a name
declared ``global``/``nonlocal`` is left as written. The function is recompiled only when its
source (``inspect.getsource``) compiles to the very code that runs (bytecode, names,
constants: a file edited since its import runs as imported), with the user's file
name and line numbers, as a closure over the same cells plus the helpers; otherwise (no
source, a lambda, a generator) it is used as it is.

Every other call of the function goes through ``callee`` too, so a function of the user's own
that it calls (``forces(P)``, ``self.step(x)``, a nested ``def``) runs with its loops rewritten
the same way (``_user_code``: not npjax, JAX, NumPy, the standard library or an installed
package). Inside a probe such a call still abandons the roll (its Python side effects).
The code this module makes is noted as rewritten (``_user_code.rewritten``): the watch on
a probe's calls lets it run, and stops any other code of the user's.
"""

from __future__ import annotations

import ast
import threading
import types
from collections.abc import Callable
from typing import Any

from npjax._compile import _user_code as _watch
from npjax._compile._loop_lists import made
from npjax._compile._user_code import user_code
from npjax._compile._loop_index import NoRoll
from npjax._compile import _loop_parse
from npjax._compile._loop_parse import _compiled, _compiles_to, _lambda, _parse  # noqa: F401
from npjax._compile._picked import pick
from npjax._compile._while import run_while
from npjax._compile._loops import (_GUARD, UNBOUND, aug, augitem, call, getsub, items, run_loop,
                                   setsub)

__all__ = ["rolled"]

_PREFIX = "_npjax_"


# --- the source transformation -----------------------------------------------------------


_REFUSED = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal,
            ast.Delete, ast.Try, ast.Lambda, ast.ClassDef, ast.AsyncFunctionDef,
            ast.AsyncFor, ast.AsyncWith, ast.Import, ast.ImportFrom, ast.AnnAssign)
try:
    _REFUSED += (ast.TryStar,)  # type: ignore[attr-defined]
except AttributeError:  # Python 3.10
    pass
_SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Refuse(Exception):
    pass


def _loop_jumps(stmts: list) -> bool:
    """Whether ``break``/``continue`` of this loop occur (not those of nested loops)."""
    for node in stmts:
        for sub in _walk_same_loop(node):
            if isinstance(sub, ast.Break | ast.Continue):
                return True
    return False


def _walk_same_loop(node: ast.AST):
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.For | ast.While):
            yield from (x for s in child.orelse for x in _walk_same_loop(s))
            continue
        yield from _walk_same_loop(child)


def _assigned(stmts: list) -> list[str]:
    """Names the statements bind, in first-seen order (comprehension variables excluded)."""
    out: dict[str, None] = {}

    def visit(node: ast.AST, in_scope: bool) -> None:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and not in_scope:
            out.setdefault(node.id)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            out.setdefault(node.target.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.setdefault(node.name)
        elif isinstance(node, ast.FunctionDef):
            out.setdefault(node.name)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, in_scope or isinstance(node, _SCOPES))

    for s in stmts:
        visit(s, False)
    return [n for n in out if not n.startswith(_PREFIX)]


def _name(id_: str, store: bool = False) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _helper_call(helper: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=_name(_PREFIX + helper), args=list(args), keywords=[])


def _index_expr(node: ast.expr) -> ast.expr:
    """An index expression as a value (slices as ``slice(...)`` calls)."""
    if isinstance(node, ast.Slice):
        none = ast.Constant(value=None)
        return _helper_call("slice", node.lower or none, node.upper or none, node.step or none)
    if isinstance(node, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.elts):
        return ast.Tuple(elts=[_index_expr(e) for e in node.elts], ctx=ast.Load())
    return node


class _Instrument(ast.NodeTransformer):
    """Calls through ``call``, item reads through ``getsub``, item stores through ``setsub``,
    augmented assignments through ``aug``."""

    def __init__(self, new_temp: Callable[[], str]) -> None:
        self.temp = new_temp

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        if node.name.startswith(_PREFIX):
            return node  # a nested loop's body, instrumented already
        raise _Refuse("a nested def")

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id.startswith(_PREFIX):
            return node
        node.func = _helper_call("call", node.func)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            raise _Refuse("an item store outside an assignment")
        return ast.copy_location(_helper_call("getsub", node.value, _index_expr(node.slice)),
                                 node)

    def visit_List(self, node: ast.List) -> Any:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            return node
        return ast.copy_location(_helper_call("made", node), node)

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        self.generic_visit(node)
        return _picked_numbers(node)

    def visit_ListComp(self, node: ast.ListComp) -> Any:
        self.generic_visit(node)
        return ast.copy_location(_helper_call("made", node), node)

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        self.generic_visit(node)
        if not isinstance(node.ctx, ast.Load):
            raise _Refuse("an attribute store")
        return node

    def visit_Assign(self, node: ast.Assign) -> Any:
        node.value = self.visit(node.value)
        for t in node.targets:
            for sub in ast.walk(t):
                if isinstance(sub, ast.Attribute | ast.Starred) and isinstance(
                        sub.ctx, ast.Store):
                    raise _Refuse("an attribute or starred store")
            if not isinstance(t, ast.Subscript) and any(
                    isinstance(s, ast.Subscript) for s in ast.walk(t)):
                raise _Refuse("an item store inside an unpacking")
        if not any(isinstance(t, ast.Subscript) for t in node.targets):
            node.targets = [self.visit(t) for t in node.targets]
            return node
        tmp = self.temp()
        out: list[ast.stmt] = [ast.Assign(targets=[_name(tmp, True)], value=node.value)]
        for t in node.targets:
            if isinstance(t, ast.Subscript):
                call_ = _helper_call("setsub", self.visit(t.value),
                                     _index_expr(self.visit(t.slice)), _name(tmp))
                out.append(ast.Expr(value=call_))
            else:
                out.append(ast.Assign(targets=[self.visit(t)], value=_name(tmp)))
        out.append(_forget(tmp))
        return [ast.copy_location(s, node) for s in out]

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        op = ast.Constant(value=type(node.op).__name__)
        value = self.visit(node.value)
        if isinstance(node.target, ast.Name):
            new = ast.Assign(targets=[_name(node.target.id, True)],
                             value=_helper_call("aug", op, _name(node.target.id), value))
            return ast.copy_location(new, node)
        if not isinstance(node.target, ast.Subscript):
            raise _Refuse("an augmented attribute store")
        obj, key, cur = self.temp(), self.temp(), self.temp()
        t = node.target
        out = [ast.Assign(targets=[_name(obj, True)], value=self.visit(t.value)),
               ast.Assign(targets=[_name(key, True)], value=_index_expr(self.visit(t.slice))),
               ast.Assign(targets=[_name(cur, True)],
                          value=_helper_call("getsub", _name(obj), _name(key))),
               ast.Assign(targets=[_name(cur, True)],
                          value=_helper_call("augitem", op, _name(cur), value)),
               ast.Expr(value=_helper_call("setsub", _name(obj), _name(key), _name(cur))),
               _forget(obj, key, cur)]
        return [ast.copy_location(s, node) for s in out]


# --- what the code after a loop can read (liveness) ---------------------------------------


# Names and attributes that reach a frame's local variables: where the function names one,
# every name is live everywhere (``inspect.stack``/``inspect.trace`` by their module's name).
_FRAME_NAMES = frozenset(("locals", "vars", "dir", "eval", "exec", "breakpoint"))
_FRAME_ATTRS = frozenset(("_getframe", "currentframe", "getframeinfo", "getouterframes",
                          "f_locals", "f_back", "tb_frame", "gi_frame", "cr_frame"))


def _reaches_frames(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):  # (``from sys import _getframe`` too)
        return node.id in _FRAME_NAMES or node.id in _FRAME_ATTRS
    if isinstance(node, ast.Attribute):
        return node.attr in _FRAME_ATTRS or node.attr in ("stack", "trace") and \
            isinstance(node.value, ast.Name) and node.value.id == "inspect"
    return False


def _reads(node: ast.AST) -> set[str]:
    """Names an expression or statement reads (``del`` and ``x += 1`` count)."""
    out = {n.id for n in ast.walk(node)
           if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
    out.update(n.target.id for n in ast.walk(node)
               if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name))
    return out


def _bound(target: ast.expr) -> set[str]:
    """Names an assignment target certainly binds (plain names and their unpackings)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Starred):
        return _bound(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return set().union(*(_bound(e) for e in target.elts)) if target.elts else set()
    return set()


class _Live:
    """A backward pass over a function's statements: for each ``for`` loop, the names that
    may be read after it ends (its ``else`` clause, later statements, the next iterations of
    enclosing loops, nested functions and generator expressions, which may run at any
    time). Conservative: ``try`` and ``match`` kill nothing and read everything they name
    (and the loops inside them keep every name)."""

    def __init__(self, fdef: ast.FunctionDef) -> None:
        self.after: dict[int, frozenset[str]] = {}  # id(For node) -> live names at its end
        self.always: set[str] = set()  # names nested scopes read or declare nonlocal
        for node in ast.walk(fdef):
            if node is not fdef and isinstance(node, ast.FunctionDef | ast.Lambda |
                                               ast.ClassDef | ast.AsyncFunctionDef |
                                               ast.GeneratorExp):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Name):
                        self.always.add(sub.id)
                    elif isinstance(sub, ast.Nonlocal):
                        self.always.update(sub.names)
        self.opaque = any(_reaches_frames(n) for n in ast.walk(fdef))
        if not self.opaque:
            self.block(fdef.body, set(), None, None)

    def at_end(self, node: ast.For) -> frozenset[str] | None:
        """The names that may be read after ``node`` (None: any name)."""
        got = self.after.get(id(node))
        return None if got is None or self.opaque else got | self.always

    def block(self, stmts: list, out: set, brk: set | None, cont: set | None) -> set:
        for s in reversed(stmts):
            out = self.stmt(s, out, brk, cont)
        return out

    def stmt(self, s: ast.stmt, out: set, brk: set | None, cont: set | None) -> set:
        if isinstance(s, ast.Assign):
            kill = set().union(*(_bound(t) for t in s.targets))
            return (out - kill) | _reads(s)
        if isinstance(s, ast.AnnAssign) and s.value is not None:
            return (out - _bound(s.target)) | _reads(s)
        if isinstance(s, ast.Return):
            return _reads(s)
        if isinstance(s, ast.Break):
            return set(brk if brk is not None else out)
        if isinstance(s, ast.Continue):
            return set(cont if cont is not None else out)
        if isinstance(s, ast.If):
            return _reads(s.test) | self.block(s.body, out, brk, cont) | \
                self.block(s.orelse, out, brk, cont)
        if isinstance(s, ast.For | ast.While):
            return self.loop(s, out, brk, cont)
        if isinstance(s, ast.With):  # a context manager may end the body anywhere (an
            cur = set(out)  # exception it suppresses): after each statement, what follows
            for b in reversed(s.body):  # the with statement is live too
                cur = self.stmt(b, cur, brk, cont) | out
            return cur | _reads(ast.Tuple(elts=[i.context_expr for i in s.items] + [
                i.optional_vars for i in s.items if i.optional_vars is not None],
                ctx=ast.Load()))
        if isinstance(s, ast.Expr | ast.AugAssign | ast.AnnAssign | ast.Pass | ast.Delete |
                      ast.Raise | ast.Assert | ast.Import | ast.ImportFrom | ast.Global |
                      ast.Nonlocal | ast.FunctionDef | ast.ClassDef):
            return out | _reads(s)  # (a raise leaves the function: no try around it here)
        # try, with, match, async statements: anything may be read, nothing surely bound
        return out | _reads(s) | (brk or set()) | (cont or set())

    def loop(self, s: ast.For | ast.While, out: set, brk: set | None, cont: set | None) -> set:
        end = self.block(s.orelse, out, brk, cont)  # (a break there: the enclosing loop's)
        head = set(end)
        while True:  # the names live where an iteration starts: a fixed point
            body = self.block(s.body, head, out, head)
            if isinstance(s, ast.While):
                new = end | body | _reads(s.test)
            else:
                new = end | (body - _bound(s.target)) | (_reads(s.target) - _bound(s.target))
            if new == head:
                break
            head = new
        self.after[id(s)] = frozenset(end)
        if isinstance(s, ast.For):
            return head | _reads(s.iter)
        return head


class _Loops(ast.NodeTransformer):
    """Rewrites eligible ``for NAME in ...`` loops, innermost first."""

    def __init__(self, declared: set[str], live: _Live) -> None:
        self.declared = declared  # global/nonlocal names of the function
        self.live = live
        self.count = 0
        self.temps = 0

    def temp(self) -> str:
        self.temps += 1
        return f"{_PREFIX}t{self.temps}"

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        return node  # nested functions keep their loops

    visit_Lambda = visit_ClassDef = visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore

    def visit_For(self, node: ast.For) -> Any:
        try:
            names = self._eligible(node)
        except _Refuse:
            names = None
        if names is not None:
            keep = self._kept(node, names)
        self.generic_visit(node)
        if names is None:
            return node
        try:
            return self._rewrite(node, names, keep)
        except _Refuse:
            return node

    def visit_While(self, node: ast.While) -> Any:
        """``while TEST: BODY`` as ``run_while(test, body, names)`` (``_while``): as written
        until the test is a traced value, then one ``lax.while_loop``."""
        try:
            if node.orelse or _loop_jumps(node.body) or any(
                    isinstance(sub, (*_REFUSED, ast.NamedExpr)) or (
                        isinstance(sub, ast.FunctionDef) and not sub.name.startswith(_PREFIX))
                    for sub in ast.walk(ast.Module(body=[*node.body, ast.Expr(node.test)],
                                                   type_ignores=[]))):
                raise _Refuse("while")
            names = _assigned(node.body)
            if set(names) & self.declared:
                raise _Refuse("a global or nonlocal name")
            live = self.live.at_end(node)
            keep = None if live is None else tuple(j for j, n in enumerate(names) if n in live)
        except _Refuse:
            names = None
        self.generic_visit(node)
        if names is None:
            return node
        try:
            return self._rewrite_while(node, names, keep)
        except _Refuse:
            return node

    def _rewrite_while(self, node: ast.While, names: list[str],
                       keep: tuple[int, ...] | None) -> list[ast.stmt]:
        k = self.count
        self.count += 1
        flat: list[ast.stmt] = []
        for s in node.body:
            got = _Instrument(self.temp).visit(s)
            flat.extend(got if isinstance(got, list) else [got])
        test = _Instrument(self.temp).visit(node.test)

        def fdef(name: str, body: list) -> ast.FunctionDef:
            unbind = [ast.If(test=ast.Compare(left=_name(n), ops=[ast.Is()], comparators=[
                _name(_PREFIX + "UNBOUND")]), body=[ast.Delete(targets=[
                    ast.Name(id=n, ctx=ast.Del())])], orelse=[]) for n in names]
            return ast.FunctionDef(name=name, args=ast.arguments(
                posonlyargs=[], args=[ast.arg(arg=n) for n in names], kwonlyargs=[],
                kw_defaults=[], defaults=[]), body=unbind + body, decorator_list=[],
                returns=None, type_comment=None)
        outs = [f"{_PREFIX}o{j}" for j in range(len(names))]
        ret = ast.Return(value=ast.Tuple(elts=[_name(o) for o in outs], ctx=ast.Load()))
        body = fdef(f"{_PREFIX}wbody{k}", flat + [_load_or_unbound(n, o) for n, o in
                                                 zip(names, outs)] + [ret])
        cond = fdef(f"{_PREFIX}wtest{k}", [ast.Return(value=test)])
        ins = [f"{_PREFIX}i{k}_{j}" for j in range(len(names))]
        res = f"{_PREFIX}r{k}"
        loop = ast.Assign(targets=[_name(res, True)], value=_helper_call(
            "while", _name(cond.name), _name(body.name),
            ast.Tuple(elts=[_name(i) for i in ins], ctx=ast.Load()),
            ast.Constant(value=node.lineno), ast.Constant(value=keep),
            ast.Constant(value=tuple(names))))
        out = [body, cond] + [_load_or_unbound(n, i) for n, i in zip(names, ins)] + [loop]
        for j, n in enumerate(names):
            got = ast.Subscript(value=_name(res), slice=ast.Constant(value=j), ctx=ast.Load())
            out.append(ast.If(test=ast.Compare(left=got, ops=[ast.Is()], comparators=[
                _name(_PREFIX + "UNBOUND")]), body=[_unbind(n)], orelse=[
                    ast.Assign(targets=[_name(n, True)], value=got)]))
        return [ast.copy_location(s, node) for s in out]

    def _eligible(self, node: ast.For) -> list[str]:
        """The names the loop carries (its variable first), or _Refuse."""
        it = node.iter
        if not isinstance(node.target, ast.Name):
            raise _Refuse("the loop variable is not a name")
        if _range_call(it) and not (1 <= len(it.args) <= 3 and not it.keywords and not any(
                isinstance(a, ast.Starred) for a in it.args)):
            raise _Refuse("not a plain call of range")
        for s in node.body:
            for sub in ast.walk(s):
                if isinstance(sub, _REFUSED) or (isinstance(sub, ast.FunctionDef) and
                                                 not sub.name.startswith(_PREFIX)):
                    raise _Refuse(type(sub).__name__)
                if isinstance(sub, ast.Name) and sub.id in ("super", "__class__", "locals",
                                                            "vars", "exec", "eval"):
                    raise _Refuse(sub.id)
        if _loop_jumps(node.body):
            raise _Refuse("break or continue")
        target = node.target.id
        names = [target] + [n for n in _assigned(node.body) if n != target]
        if set(names) & self.declared:
            raise _Refuse("a global or nonlocal name")
        return names

    def _kept(self, node: ast.For, names: list[str]) -> tuple[int, ...] | None:
        """The positions in ``names`` whose values the code after the loop may read (None:
        all): the loop variable only where the body rebinds it or the loop is over a
        sequence (of a range, ``run_loop`` knows the last value without the body)."""
        live = self.live.at_end(node)
        if live is None:
            return None
        target = names[0]
        keep = tuple(j for j, n in enumerate(names) if j and n in live)
        if target in live and (not _range_call(node.iter) or target in _assigned(node.body)):
            keep = (0,) + keep
        return keep

    def _rewrite(self, node: ast.For, names: list[str],
                 keep: tuple[int, ...] | None) -> list[ast.stmt]:
        it = node.iter
        k = self.count
        self.count += 1
        body = [_Instrument(self.temp).visit(s) for s in node.body]
        flat: list[ast.stmt] = []
        for s in body:
            flat.extend(s if isinstance(s, list) else [s])
        prologue = [ast.If(test=ast.Compare(left=_name(n), ops=[ast.Is()],
                                            comparators=[_name(_PREFIX + "UNBOUND")]),
                           body=[ast.Delete(targets=[_name(n, False)])], orelse=[])
                    for n in names[1:]]
        for p in prologue:
            p.body[0].targets[0].ctx = ast.Del()
        outs = [f"{_PREFIX}o{j}" for j in range(len(names))]
        epilogue = [_load_or_unbound(n, o) for n, o in zip(names, outs)]
        ret = ast.Return(value=ast.Tuple(elts=[_name(o) for o in outs], ctx=ast.Load()))
        fname = f"{_PREFIX}body{k}"
        fdef = ast.FunctionDef(
            name=fname, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names],
                                           kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=prologue + flat + epilogue + [ret], decorator_list=[], returns=None,
            type_comment=None)
        ins = [f"{_PREFIX}i{k}_{j}" for j in range(len(names))]
        before = [_load_or_unbound(n, i) for n, i in zip(names, ins)]
        res = f"{_PREFIX}r{k}"
        rng, args = (it.func, list(it.args)) if _range_call(it) else (
            _name(_PREFIX + "items"), [it])  # ``for x in seq``: ``run_loop`` looks at seq
        loop = ast.Assign(targets=[_name(res, True)], value=_helper_call(
            "loop", _name(fname), rng, ast.Tuple(elts=args, ctx=ast.Load()),
            ast.Tuple(elts=[_name(i) for i in ins], ctx=ast.Load()),
            ast.Constant(value=node.lineno), ast.Constant(value=keep)))
        after = []
        for j, n in enumerate(names):
            got = ast.Subscript(value=_name(res), slice=ast.Constant(value=j), ctx=ast.Load())
            unbound = ast.Compare(left=got, ops=[ast.Is()],
                                  comparators=[_name(_PREFIX + "UNBOUND")])
            after.append(ast.If(test=unbound, body=[_unbind(n)], orelse=[
                ast.Assign(targets=[_name(n, True)], value=ast.Subscript(
                    value=_name(res), slice=ast.Constant(value=j), ctx=ast.Load()))]))
        out = [fdef] + before + [loop] + after + list(node.orelse)
        return [ast.copy_location(s, node) for s in out]


class _Calls(ast.NodeTransformer):
    """Routes the calls outside rewritten loop bodies through ``callee`` (nested functions
    are rewritten when they are called)."""

    def __init__(self) -> None:
        self.count = 0

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        return node

    visit_Lambda = visit_ClassDef = visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        self.generic_visit(node)
        new = _picked_numbers(node)
        self.count += new is not node  # (a function with nothing else to rewrite too)
        return new

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id.startswith(_PREFIX):
            return node  # a helper, or a call routed already
        if isinstance(node.func, ast.Call) and isinstance(node.func.func, ast.Name) and \
                node.func.func.id == _PREFIX + "call":
            return node
        self.count += 1
        node.func = _helper_call("call", node.func)
        return node


def _picked_numbers(node: ast.IfExp) -> ast.expr:
    """``YES if COND else NO`` between two int (or two float) literals as ``pick(COND, YES,
    NO)`` (``_picked``: a select where the condition is traced); anything else as written."""
    yes, no = node.body, node.orelse
    if isinstance(yes, ast.Constant) and isinstance(no, ast.Constant) and \
            type(yes.value) is type(no.value) and type(yes.value) in (int, float):
        return ast.copy_location(_helper_call("pick", node.test, yes, no), node)
    return node


def _forget(*temps: str) -> ast.stmt:
    """``t1 = t2 = None``: a temporary holds no array after its statement (reference counts
    of list items, ``npjax._compile._loop_lists``)."""
    return ast.Assign(targets=[_name(t, True) for t in temps], value=ast.Constant(value=None))


def _range_call(it: ast.expr) -> bool:
    return isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"


def _load_or_unbound(name: str, into: str) -> ast.stmt:
    unbound = ast.Assign(targets=[_name(into, True)], value=_name(_PREFIX + "UNBOUND"))
    return ast.Try(body=[ast.Assign(targets=[_name(into, True)], value=_name(name))],
                   handlers=[ast.ExceptHandler(type=_name(_PREFIX + "NameError"), name=None,
                                               body=[unbound])],
                   orelse=[], finalbody=[])


def _unbind(name: str) -> ast.stmt:
    return ast.Try(body=[ast.Delete(targets=[ast.Name(id=name, ctx=ast.Del())])],
                   handlers=[ast.ExceptHandler(type=_name(_PREFIX + "NameError"), name=None,
                                               body=[ast.Pass()])],
                   orelse=[], finalbody=[])


def callee(f: Any) -> Any:
    """The callee of a call in a rewritten function: a function of the user's own with its
    loops rewritten too; inside a loop body's trace, with its whole body instrumented as a
    loop body is (``pure``), or the roll is abandoned (``call``)."""
    f = _watch.unwrapped(f)  # (npjax.autojit's wrapper: inside a trace, the function)
    fn = f.__func__ if type(f) is types.MethodType else f
    if type(fn) is not types.FunctionType or not user_code(fn.__code__):
        return call(f)
    if not _GUARD.get():
        new = rolled(fn)
    elif (new := pure(fn)) is None:
        raise NoRoll(f"the body calls {fn.__qualname__}, a function of your own that has an "
                     "attribute store, try, with, global, nonlocal, a nested def or lambda, "
                     "or no source to read (Python side effects a trace cannot undo)")
    return new if type(f) is not types.MethodType else types.MethodType(new, f.__self__)


_HELPERS = {"loop": run_loop, "call": callee, "getsub": getsub, "setsub": setsub, "aug": aug,
            "augitem": augitem, "items": items, "slice": slice, "UNBOUND": UNBOUND,
            "NameError": NameError, "made": made, "while": run_while, "pick": pick}
assert tuple(_HELPERS) == _loop_parse.HELPERS
_CACHE: dict[int, tuple] = {}  # id(code) -> (code, its rewrite or None)
# One rewrite at a time: CPython's conversion of syntax trees to code is not thread-safe
# (concurrent compile() of trees raised "AST constructor recursion depth mismatch").
_COMPILING = threading.Lock()


def _declared(fdef: ast.FunctionDef) -> set[str]:
    out: set[str] = set()
    for sub in ast.walk(fdef):
        if isinstance(sub, ast.Global | ast.Nonlocal):
            out.update(sub.names)
    return out


def _transformed_code(fn: Callable) -> types.CodeType | None:
    fdef = _parse(fn)
    if fdef is None:
        return None
    if not _compiles_to(fn, fdef):  # the source must be the code that runs
        return None
    loops = _Loops(_declared(fdef), _Live(fdef))
    fdef.body = [loops.visit(s) for s in fdef.body]
    flat: list[ast.stmt] = []
    for s in fdef.body:
        flat.extend(s if isinstance(s, list) else [s])
    fdef.body = flat
    calls = _Calls()
    fdef.body = [calls.visit(s) for s in fdef.body]
    if not loops.count and not calls.count:
        return None
    return _compiled(fn, fdef)


_PURE_REFUSED = tuple(t for t in _REFUSED if t is not ast.Return) + (ast.With, ast.FunctionDef)
_PURE_NAMES = frozenset(("super", "__class__", "locals", "vars", "exec", "eval", "globals",
                         "setattr", "delattr", "__import__"))
_PURE: dict[int, tuple] = {}  # (as _CACHE)


def _pure_code(fn: Callable) -> types.CodeType | None:
    fdef = _parse(fn)
    if fdef is None:
        return None
    for sub in ast.walk(ast.Module(body=fdef.body, type_ignores=[])):
        if isinstance(sub, _PURE_REFUSED) or (
                isinstance(sub, ast.Name) and sub.id in _PURE_NAMES):
            return None
    if not _compiles_to(fn, fdef):  # the source must be the code that runs
        return None
    loops = _Loops(set(), _Live(fdef))
    body: list[ast.stmt] = []
    try:
        for stmt in fdef.body:
            got = loops.visit(stmt)
            for s in got if isinstance(got, list) else [got]:
                got = _Instrument(loops.temp).visit(s)
                body.extend(got if isinstance(got, list) else [got])
    except _Refuse:
        return None
    fdef.body = body
    return _compiled(fn, fdef)


def rolled(fn: Callable) -> Callable:
    """``fn`` with its ``for`` loops routed through ``run_loop`` (``fn``
    itself when it has none that qualify, or its source cannot be read)."""
    if type(fn) is not types.FunctionType:
        return fn
    new = _cached(_CACHE, _transformed_code, fn)
    return fn if new is None else _function(fn, new) or fn


def pure(fn: types.FunctionType) -> Callable | None:
    """``fn`` rewritten as a loop body is (calls through ``callee``, items through
    ``getsub``/``setsub``, ``x op= y`` through ``aug``, its own loops through ``run_loop``), so
    that a probe sees every effect it has; None where its source has what a body may not
    have (an attribute store, ``global``, ``try``, ``with``, a nested ``def`` or ``lambda``...)."""
    new = _cached(_PURE, _pure_code, fn)
    return None if new is None else _function(fn, new)


def _cached(cache: dict, make: Callable, fn: types.FunctionType) -> types.CodeType | None:
    """``make(fn)``, once per code object (one rewrite at a time, ``_COMPILING``). Keyed by
    the object itself (its id, the entry holding it): code objects compare equal across
    files (``==`` leaves out the file name), and equal code from another file, whose source
    reads back otherwise, must not share its rewrite or its refusal."""
    code = fn.__code__
    got = cache.get(id(code))
    if got is None or got[0] is not code:
        with _COMPILING:
            got = cache.get(id(code))
            if got is None or got[0] is not code:
                if len(cache) > 256:
                    cache.clear()
                got = cache[id(code)] = (code, make(fn))
                _watch.rewritten(got[1])  # (code the watch lets a body's trace run)
    return got[1]


def _function(fn: types.FunctionType, code: types.CodeType) -> Callable | None:
    """A function of ``code`` over ``fn``'s globals, defaults and cells plus the helpers."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    for h, v in _HELPERS.items():
        cells[_PREFIX + h] = types.CellType(v)
    try:
        closure = tuple(cells[n] for n in code.co_freevars)
    except KeyError:
        return None
    out = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    out.__kwdefaults__ = fn.__kwdefaults__
    return out
