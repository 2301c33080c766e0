"""One trace of a rolled loop's body (``npjax._compile._loops``): the guard that checks its
calls and stores, the watch on the user's code it may run implicitly (``_user_code``; its
probes only), and the record of the arrays it writes (``_Probe``), restored afterwards."""

from __future__ import annotations

import contextvars
from typing import Any

import jax

from npjax._compile import _user_code as _watch
from npjax._core._ndarray import ndarray
from npjax._runtime import _finite_watch

__all__ = ["_GUARD", "_Probe", "_enter_body", "_leave_body", "_reset", "_state"]

_Tracer = jax.core.Tracer

# depth of probes running in this context: calls and stores are checked while > 0
_GUARD: contextvars.ContextVar[int] = contextvars.ContextVar("npjax_loop_guard", default=0)


class _Probe:
    """Records the roots a body writes, and restores them."""

    def __init__(self, inner: Any, parent: Any) -> None:
        self.inner = inner  # the probe's JAX trace: roots made by the body are its own
        self.parent = parent  # the probe of an enclosing rolled loop, if any
        self.saved: dict[int, tuple] = {}

    def __call__(self, root: ndarray) -> None:
        value = root._value
        if isinstance(value, _Tracer) and value._trace is self.inner:
            return  # an array the body made (no enclosing body sees it either)
        if self.parent is not None:
            self.parent(root)
        if id(root) in self.saved:
            return
        self.saved[id(root)] = (root, value, root._mine, root._layout)

    def restore(self) -> None:
        for root, value, mine, layout in self.saved.values():
            root._rebind(value, mine, clear=True)
            root._layout = layout


def _state(tr: Any) -> tuple:
    return (tr.checks, tr.watch, len(tr.writes), set(tr._seen), tr.loop_probe)


def _reset(tr: Any, state: tuple) -> None:
    tr.checks, tr.watch = state[0], state[1]
    del tr.writes[state[2]:]
    tr._seen = state[3]
    tr.loop_probe = state[4]


def _enter_body(tr: Any, inner: Any, state: tuple, watch: bool = True) -> tuple:
    """Set up ``tr`` for one trace of the loop body in ``inner`` (the loop's trace): a fresh
    probe of its writes, fresh error-state checks, the guard raised. Returns (probe, guard
    token); the caller resets the guard with the token when the body has run (``_leave_body``).
    ``watch``: no code of the user's runs implicitly (``_user_code``; a probe). The traces
    that roll a probed body run it as the last probe ran it, with the same inputs (a Python
    path that would differ there abandons the roll), so they are not watched: the watch
    makes a trace of Python code 2x slower."""
    _watch.enter(watch)
    probe = _Probe(inner, state[4])
    tr.loop_probe = probe
    tr.checks, tr.watch = [], _finite_watch.FiniteWatch()
    return probe, _GUARD.set(_GUARD.get() + 1)


def _leave_body(token: Any) -> None:
    """A trace of the loop body ends (``_enter_body`` gave ``token``)."""
    _GUARD.reset(token)
    _watch.leave()
