"""The execution context: what this thread or task is doing, held in one ContextVar.

It holds the policy in force and, while ``npjax.jit`` traces a function, that trace (its
device-side checks, the writes it made, the traced -0.0 that rounds products) and the call
being traced. Each thread and each asyncio task has its own context, so a trace in one thread
never sees another thread's calls, and ``with npjax.policy(...)`` changes only the code it
wraps. No other execution state lives in module globals (lazy mode's pending graph is the one
exception: it is process-wide and locked, see ``_lazy.py``).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from collections.abc import Iterator
from typing import Any, NamedTuple

from npjax._runtime._policy import DEFAULT_POLICY, Policy


class Context(NamedTuple):
    """One thread's or task's execution state (immutable: a change sets a new one)."""

    policy: Policy
    trace: Any = None    # the running ``npjax.jit`` trace (``_jit.Trace``), or None
    host: int = -1       # the largest result NumPy computes here (-1: none); see ``_with``


def _with(ctx: Context, **fields: Any) -> Context:
    """``ctx`` with some fields changed and ``host`` derived again: the policy's host limit,
    or -1 while ``npjax.jit`` traces (the hot paths read this one field)."""
    new = ctx._replace(**fields)
    return new._replace(host=new.policy.host_limit if new.trace is None else -1)


_var: contextvars.ContextVar[Context] = contextvars.ContextVar(
    "npjax_context", default=_with(Context(DEFAULT_POLICY)))  # noqa: B039 (immutable)

get = _var.get


def trace() -> Any:
    """The ``npjax.jit`` trace running in this context, or None."""
    return _var.get().trace


def replace(**fields: Any) -> contextvars.Token:
    """Set a context with some fields changed; returns the token that restores the old one."""
    return _var.set(_with(_var.get(), **fields))


def restore(token: contextvars.Token) -> None:
    _var.reset(token)


@contextlib.contextmanager
def using(**fields: Any) -> Iterator[Context]:
    """Run the block with some context fields changed."""
    token = replace(**fields)
    try:
        yield _var.get()
    finally:
        _var.reset(token)


# --- the public policy functions ---------------------------------------------------------


def get_policy() -> Policy:
    """Return the policy in force in this thread or task."""
    return _var.get().policy


current = get_policy  # the name the call path reads it by

# called with no arguments where a policy comes to say jit="auto" (the sampler under a plain
# import, ``npjax._compile._autojit_sampler``, registers itself)
on_jit_auto: list = []


def _jit_auto(policy: Policy) -> None:
    if policy.jit == "auto":
        for hook in on_jit_auto:
            hook()


def set_policy(**fields: Any) -> Policy:
    """Change fields of the current policy (for this context and the code it starts)."""
    ctx = _var.get()
    new = dataclasses.replace(ctx.policy, **fields)
    _var.set(_with(ctx, policy=new))
    _jit_auto(new)
    return new


def reset_policy() -> Policy:
    """Return to the defaults (built-in values overridden by ``NPJAX_*`` variables)."""
    _var.set(_with(_var.get(), policy=DEFAULT_POLICY))
    _jit_auto(DEFAULT_POLICY)
    return DEFAULT_POLICY


def policy(**fields: Any) -> _PolicyBlock:
    """Context manager: run the block with some policy fields changed."""
    return _PolicyBlock(fields)


class _PolicyBlock(contextlib.ContextDecorator):
    """``policy(**fields)``: entering sets the context with the changed policy (and gives
    that policy), leaving restores the one before. A block entered again with the same
    fields on the same context gets the same (immutable) context: a loop that calls a
    function under ``with npjax.policy(mode="eager")`` pays two dictionary reads, not a
    policy's validation and two tuple copies each time."""

    __slots__ = ("fields", "token")

    def __init__(self, fields: dict) -> None:
        self.fields = fields
        self.token: contextvars.Token | None = None

    def _recreate_cm(self) -> _PolicyBlock:  # (used as a decorator: one block per call)
        return _PolicyBlock(self.fields)

    def __enter__(self) -> Policy:
        ctx = _var.get()
        new = _changed(ctx, self.fields)
        self.token = _var.set(new)
        if new.policy.jit == "auto":
            _jit_auto(new.policy)
        return new.policy

    def __exit__(self, *exc: Any) -> None:
        _var.reset(self.token)


_CHANGED: dict[tuple, tuple] = {}  # (id(context), fields) -> (context, changed context)


def _changed(ctx: Context, fields: dict) -> Context:
    """``ctx`` with its policy's ``fields`` changed (remembered for contexts outside a trace:
    a kept trace context would keep the trace alive)."""
    try:
        key = (id(ctx), *fields.items())
        hit = _CHANGED.get(key)
    except TypeError:  # a field value that is not hashable
        return _with(ctx, policy=dataclasses.replace(ctx.policy, **fields))
    if hit is not None and hit[0] is ctx:
        return hit[1]
    new = _with(ctx, policy=dataclasses.replace(ctx.policy, **fields))
    if ctx.trace is None:
        if len(_CHANGED) >= 256:
            _CHANGED.clear()
        _CHANGED[key] = (ctx, new)
    return new
