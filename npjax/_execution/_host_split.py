"""A program holding a dtype the accelerator cannot hold, split where it can be.

Where float64 is a host dtype (a TPU: ``_capabilities.HOST_DTYPES``), a program holding a
float64 value anywhere runs on the host's CPU backend (``_lazy_cold``), its inputs fetched
from the accelerator. Often only its end needs float64: NumPy's mean of a boolean mask is
float64, the float32 chain before it is not. So the part of the program that holds no such
value and reads nothing that does runs first, on the accelerator, and only the values the
rest reads cross to the host:

- a lazy program, by recorded call (``device_part``, ``first_values``: ``_lazy._run``);
- an ``npjax.jit`` program, by top-level equation of its trace (``split_jit``: ``_jit``).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import jax.extend.core as jax_core

from npjax._execution import _lazy_cold

__all__ = ["Split", "device_part", "first_values", "jit_runner", "split_jit"]


def device_part(spec: list, inputs: list) -> frozenset:
    """Of a lazy program that holds a value of ``held_on_cpu``, the calls (positions in
    ``spec``) that hold none and read no value of a call that does; empty where every call
    holds one. One trace a call, once per program structure (``_lazy._compile``)."""
    held, late, avals = _lazy_cold.held_on_cpu(), [], []
    try:
        for k, treedef, refs, _ in spec:
            args = [inputs[r] if type(r) is int else avals[r[0]][r[1]] for r in refs]
            closed = jax.make_jaxpr(functools.partial(_flat, k.fn, treedef))(*args)
            avals.append([jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                          for a in closed.out_avals])
            late.append(any(type(r) is not int and late[r[0]] for r in refs)
                        or _lazy_cold.holds(closed.jaxpr, held))
    except Exception:  # (the whole program runs on the CPU backend, as before)
        return frozenset()
    if not any(late):
        return frozenset()
    crossing = {r for (_, _, refs, _), x in zip(spec, late) if x for r in refs
                if type(r) is not int and not late[r[0]]}
    if _pays(sum(_nbytes(avals[i][j]) for i, j in crossing), inputs, held):
        return frozenset(i for i, x in enumerate(late) if not x)
    return frozenset()


def _nbytes(x: Any) -> int:
    return math.prod(x.shape) * x.dtype.itemsize if hasattr(x, "dtype") else 0


def _pays(crossing: int, inputs: list, held: frozenset) -> bool:
    """Whether a split sends fewer bytes to the host than the whole program would: its
    accelerator inputs (a small program's intermediates can outweigh them)."""
    return crossing < sum(_nbytes(x) for x in inputs
                          if isinstance(x, jax.Array) and x.dtype not in held)


def _flat(fn: Any, treedef: Any, *leaves: Any) -> list:
    return jax.tree.leaves(fn(*jax.tree.unflatten(treedef, leaves)))


def first_values(part: frozenset, program: list, outputs: list, lazy: type) -> list:
    """The pending values the calls at ``part`` (``device_part``) make that are wanted or
    read by the other calls: computed first, on the accelerator."""
    at = {id(c): i for i, c in enumerate(program)}
    first = {id(z): z for z in outputs if at[id(z.call)] in part}
    for i, c in enumerate(program):
        if i not in part:
            for leaf in c.leaves:
                if type(leaf) is lazy and leaf.value is None and at[id(leaf.call)] in part:
                    first[id(leaf)] = leaf
    return list(first.values())


class Split:
    """An ``npjax.jit`` program in two: ``first`` on the accelerator, ``rest`` on the CPU
    backend (``_lazy_cold.run_now``); called as the program is."""

    def __init__(self, first: Any, first_in: list, rest: Any, rest_in: list, outs: list,
                 out_tree: Any) -> None:
        self.first, self.first_in, self.rest, self.rest_in = first, first_in, rest, rest_in
        self.outs, self.out_tree = outs, out_tree  # outs: (0 input, 1 first, 2 rest, 3
        # literal), index or value

    def __call__(self, consts: list, *args: Any) -> Any:
        values = [*consts, *jax.tree.leaves(args)]
        a = self.first(*[values[i] for i in self.first_in])
        b = _lazy_cold.run_now(self.rest, tuple(values[i] if src == 0 else a[i]
                                                for src, i in self.rest_in))
        parts = (values, a, b)
        out = [x if src == 3 else parts[src][x] for src, x in self.outs]
        return jax.tree.unflatten(self.out_tree, out)


def jit_runner(jitted: Any, args: tuple, options: dict) -> Any:
    """How the ``npjax.jit`` program ``jitted`` runs on ``args`` where the accelerator cannot
    hold a dtype: None where it holds none (as compiled), else split (``split_jit``) or whole
    on the CPU backend; called as the program is."""
    if not _lazy_cold.traces_host_dtype(jitted, args):
        return None
    return split_jit(jitted, args, options) or functools.partial(_on_cpu, jitted)


def _on_cpu(jitted: Any, *args: Any) -> Any:
    return _lazy_cold.run_now(jitted, args)


def split_jit(jitted: Any, args: tuple, options: dict) -> Any:
    """``jitted`` (an ``npjax.jit`` program holding a value of ``held_on_cpu``) as a
    ``Split`` called with its constants, its parts compiled with ``options`` (npjax.jit's
    compiler options), or None where it has no part to run on the accelerator (or effects,
    which stay in one program)."""
    traced = jitted.trace(*args)
    closed = traced.jaxpr
    jaxpr = closed.jaxpr
    if jaxpr.effects:
        return None
    held = _lazy_cold.held_on_cpu()
    late: set = set()
    first, rest = [], []
    for eqn in jaxpr.eqns:
        if any(_is_var(v) and v in late for v in eqn.invars) or _lazy_cold.eqn_holds(eqn, held):
            rest.append(eqn)
            late.update(eqn.outvars)
        else:
            first.append(eqn)
    if not first or not rest:
        return None
    inputs = [*jaxpr.constvars, *jaxpr.invars]
    where = {v: i for i, v in enumerate(inputs)}
    made = {v for eqn in first for v in eqn.outvars}
    rest_reads = _reads(rest, [])
    first_out = _unique([v for v in (*rest_reads, *jaxpr.outvars) if _is_var(v) and v in made])
    if not first_out or not _pays(
            sum(_nbytes(v.aval) for v in rest_reads if v in made),
            [*closed.consts, *jax.tree.leaves(args)], held):
        return None
    first_in = [v for v in _reads(first, first_out) if v in where]
    rest_out = _unique([v for v in jaxpr.outvars if _is_var(v) and v in late])
    at_first = {v: i for i, v in enumerate(first_out)}
    rest_in = [v for v in _reads(rest, rest_out) if v in where or v in at_first]
    outs = []
    for v in jaxpr.outvars:
        if not _is_var(v):
            outs.append((3, v.val))
        elif v in late:
            outs.append((2, rest_out.index(v)))
        elif v in at_first:
            outs.append((1, at_first[v]))
        else:
            outs.append((0, where[v]))
    return functools.partial(Split(
        _jitted(first_in, first_out, first, options), [where[v] for v in first_in],
        _jitted(rest_in, rest_out, rest, options),
        [(1, at_first[v]) if v in at_first else (0, where[v]) for v in rest_in],
        outs, traced.out_tree), list(closed.consts))


def _jitted(invars: list, outvars: list, eqns: list, options: dict) -> Any:
    info = jax_core.DebugInfo("npjax.jit (split)", None, tuple(f"in{i}" for i in range(
        len(invars))), tuple(f"out{i}" for i in range(len(outvars))))
    return jax.jit(jax_core.jaxpr_as_fun(jax_core.ClosedJaxpr(
        jax_core.Jaxpr([], invars, outvars, eqns, debug_info=info), [])),
        compiler_options=options)


def _is_var(v: Any) -> bool:
    return not isinstance(v, jax_core.Literal)


def _reads(eqns: list, outvars: list) -> list:
    """The variables ``eqns`` and ``outvars`` read that ``eqns`` do not make, in order."""
    made: set = set()
    found: dict = {}  # (an ordered set)
    for eqn in eqns:
        found.update((v, None) for v in eqn.invars if _is_var(v) and v not in made)
        made.update(eqn.outvars)
    found.update((v, None) for v in outvars if _is_var(v) and v not in made)
    return list(found)


def _unique(vs: list) -> list:
    return list(dict.fromkeys(vs))
