"""Deferred checks of device results.

Checking a result in accelerator memory at the call waits for the device at every call.
Where the error state only warns (or ignores), the check's flags are computed on the device
instead (no wait) and read all at once when a value is next read on the host
(``flush_deferred``: ``_stats.fetch`` calls it), after ``DEFER_BOUND`` pending checks, or
at exit; each warning is then issued naming the user's line of the operation that raised
it, before any warning of a later operation (``_earlier_first``). The check is made at the
call, as before, where the user watches for it: a "raise", "call", "print" or "log" state,
warnings turned into errors, and ``catch_warnings`` blocks (``pytest.warns`` among them).

A ufunc's fast path computes the flags in its own program (``flagging_state``,
``defer_flags``), others in a program of their own (``_defer``). Results on the host (the
CPU backend) are checked at the call: reading them costs no transfer.
"""

from __future__ import annotations

import atexit
import sys
import threading
from collections.abc import Callable
import warnings
from typing import Any

import jax
import numpy as np

from npjax._runtime import _host_reads
from npjax._runtime import _errstate, _numpy_calls
from npjax._runtime._errstate import _KINDS, _stacklevel, report, state, user_line
from npjax._runtime._fp_flags import _device_flags
from npjax._runtime._host_reads import SYNCS
from npjax._runtime._numpy_calls import _issue_pending, _pending

DEFER_BOUND = 4096
_BASE_FILTERS = warnings.filters  # a catch_warnings block installs another list


class _Deferred(threading.local):
    """This thread's deferred checks: (device values, events, error state, user's line);
    a ufunc's events are ``(("flags", name),)``."""

    def __init__(self) -> None:
        self.items: list[tuple] = []


_deferred = _Deferred()

# Called with True when a first deferred check waits in this process, with False when none
# waits any more: the C host route (``_placement/_fast.py``) stands aside meanwhile, since NumPy's
# warnings from it would come before the earlier operations' deferred ones.
WAITING_HOOKS: list[Callable[[bool], None]] = []
_waiting = [0]  # threads with deferred checks


def _waiting_changed(delta: int) -> None:
    with _waiting_lock:
        before = _waiting[0]
        _waiting[0] += delta
        after = _waiting[0]
    if (before == 0) != (after == 0):
        for hook in WAITING_HOOKS:
            hook(after > 0)


_waiting_lock = threading.Lock()


def _deferrable(result: Any, st: dict) -> bool:
    """Whether the check of ``result`` under the error state ``st`` may wait for the next
    host read: a result in accelerator memory of this process only (a global array over
    several processes is checked at the call by all of them), a state that only warns."""
    if _host_reads.on_host(result) or not getattr(result, "is_fully_addressable", False):
        return False
    return _may_defer(st)


def _may_defer(st: dict) -> bool:
    """Whether the error state ``st`` and the warnings filters allow a check to wait."""
    if any(st[key] not in ("ignore", "warn") for key in ("divide", "over", "under", "invalid")):
        return False
    filters = warnings.filters
    return filters is _BASE_FILTERS and not any(f[0] == "error" for f in filters)


def _user_line() -> tuple | None:
    return user_line(sys._getframe(2))


def _defer(name: str, kind: str, vals: Any, outs: Any, mask: Any, st: dict,
           low: int | None = None, label: str | None = None) -> None:
    """Compute a check's flags on the device; read them at the next host read (reported as
    "... encountered in <label>", ``name`` by default)."""
    flags = _device_flags(name, kind, True, low)(list(vals), list(outs), mask)
    _push(flags, (("flags", label or name),), st, _user_line())


def defer_events(values: Any, events: tuple, st: dict) -> None:
    """Defer a check of several ``events`` (see ``issue_events``) whose ``values`` (one
    device integer each) are read at the next host read."""
    _push(values, events, st, _user_line())


def _push(values: Any, events: tuple, st: dict, where: tuple | None) -> None:
    items = _deferred.items
    if not items:
        _waiting_changed(1)
    items.append((values, events, st, where))
    SYNCS["deferred"] += 1
    if len(items) >= DEFER_BOUND:
        flush_deferred()


def issue_events(values: Any, events: tuple, st: dict | None = None) -> None:
    """Act now, at the user's line, on checked ``events``: ``("flags", name)`` events carry
    NumPy's flag bits and follow the error state ``st`` ("... encountered in <name>");
    ``("warn", message)`` events carry a count of plain RuntimeWarnings (NumPy's "Mean of
    empty slice", "All-NaN slice encountered"...), which the error state does not govern.
    Deferred warnings of earlier operations come first: while some are pending, these wait
    with them where they may (no read of the device), else all are issued now."""
    st = state() if st is None else st
    if _deferred.items:
        if _may_defer(st):
            _push(np.asarray(values), events, st, _user_line())
            return
        flush_deferred()
    for (kind, text), value in zip(events, np.atleast_1d(np.asarray(values))):
        value = int(value)
        if not value:
            continue
        if kind == "warn":
            for _ in range(value):
                warnings.warn(text, RuntimeWarning, stacklevel=_stacklevel())
        else:
            report(value, text, st)


def flush_deferred() -> None:
    """Read this thread's deferred checks (one wait for the device) and issue their
    warnings, each at the line of its operation, in the order the operations ran."""
    if _deferred.items:
        _earlier_first()
        _issue_pending()


def _earlier_first() -> None:
    """Read this thread's deferred checks and put their warnings before the messages now
    pending, which come from a later operation (NumPy issues each at its operation)."""
    items = _deferred.items
    if not items:
        return
    _deferred.items = []
    _waiting_changed(-1)
    SYNCS["deferred_reads"] += 1
    values = jax.device_get([flags for flags, *_ in items])
    earlier = []
    for value, (_, events, st, where) in zip(values, items):
        for (kind, name), v in zip(events, np.atleast_1d(value)):
            flags = int(v)
            if kind == "warn":
                earlier.extend([(name, where)] * flags)
                continue
            for key, bit, text in _KINDS:
                if flags & bit and st[key] == "warn":
                    earlier.append((f"{text} encountered in {name}", where))
    _pending.messages[:0] = earlier


# NumPy's own warnings of a host call, and a check's report at the call, come after the
# warnings of the deferred checks before them.
_numpy_calls.EARLIER[0] = _earlier_first
_errstate.EARLIER[0] = flush_deferred


# (error state, warnings filters, their length and first entry) when ``flagging_state`` last
# said yes: one identity test per call while nothing changes.
_flagging: list = [None, None, -1, None]


def flagging_state() -> dict | None:
    """The error state when a ufunc's flags may be computed with it and wait for the next
    host read (``defer_flags``): some category warns, none does more, plain filters, one
    process. None otherwise (nothing to check, or the check at the call)."""
    st = state()
    filters = warnings.filters
    cached = _flagging
    if st is cached[0] and filters is cached[1] and len(filters) == cached[2] and (
            not filters or filters[0] is cached[3]):
        return st
    if all(st[key] == "ignore" for key in ("divide", "over", "under", "invalid")) or \
            not _may_defer(st) or not _host_reads.single_process():
        return None
    cached[:] = st, filters, len(filters), filters[0] if filters else None
    return st


def defer_flags(flags: Any, name: str, st: dict) -> None:
    """Defer the flag bits ``flags`` (a device integer) of ufunc ``name``'s call."""
    _push(flags, (("flags", name),), st, _user_line())


atexit.register(flush_deferred)
