"""The commonest device call of a two-operand ufunc (``a + b``, ``npjax.add(a, b)``,
``a < 1.5``), in one frame: ``benchmarks/overhead.py``'s "add, device" (issue 33).

``pair_call(uf, a, b, policy)`` runs what ``ufunc._device_call``'s general path runs for
these operands, with nothing to decide again: eager mode, no placement asked for, each
operand an npjax array owning a computed device array (not a view, not pending, not host
memory) or a Python float, and a loop of these operand dtypes seen before (``uf._fast``, one
look-up; in accelerator memory the flags computed with the result, read later, as
there). It answers ``NOT_FAST`` for anything else, and its caller goes on as before:
``ufunc._device_call`` (whose first step this is) and the operator members
(``_operators.device_first``, which come here before NumPy's deferral and the ufunc's
call, none of which has anything to do for such operands).
"""

from __future__ import annotations

from typing import Any

from npjax._core._ndarray import ndarray
from npjax._execution._lazy_cold import held_on_cpu
from npjax._runtime import _host_reads, _stats
from npjax._runtime._deferred_checks import defer_flags, flagging_state

_CONCRETE = _host_reads.CONCRETE

NOT_FAST = object()  # marker: not the common case, the caller's general path runs

_calls = _stats.calls


def pair_call(uf: Any, a: Any, b: Any, policy: Any) -> Any:
    """``uf(a, b)`` (two operands, one result) for the common case above, or ``NOT_FAST``.
    The kernel is called as ``Kernel.now`` calls it (its other steps have nothing to do on
    computed operands), its traced results (a concrete array closed over by ``npjax.jit``)
    finished as ``now`` finishes them; the floating-point check is the ufunc's own."""
    kind_a, kind_b = type(a), type(b)
    x = a._value if kind_a is ndarray and a._base is None else a
    y = b._value if kind_b is ndarray and b._base is None else b
    if not ((type(x) is _CONCRETE and kind_a is ndarray or kind_a is float) and (
            type(y) is _CONCRETE and kind_b is ndarray or kind_b is float)) or \
            policy.lazy or policy.device is not None or policy.sharding is not None:
        return NOT_FAST
    entry = uf._fast.get((float if kind_a is float else x.aval.dtype,
                          float if kind_b is float else y.aval.dtype))
    if entry is None or (kind_a is float and abs(a) > entry[3]) or (
            kind_b is float and abs(b) > entry[3]):
        return NOT_FAST
    _calls[uf.__name__] += 1
    kernel, flagged = entry[0], entry[2]
    if flagged is not None:  # (results in accelerator memory)
        st = flagging_state()
        if st is not None:  # the flags come with the result, read later
            try:
                results, flags = flagged[st["under"] != "ignore"](x, y)
            except (TypeError, IndexError):
                return uf._call(a, b)
            defer_flags(flags, uf.__name__, st)
            r = results[0]
            return ndarray._owner(r, not r.aval.shape)
    try:
        if held_on_cpu():  # (a dtype the accelerator cannot hold: ``now`` decides)
            results = kernel.now((x, y))
        else:
            results = kernel.fn(x, y)
            if type(results[0]) is not _CONCRETE:
                results = kernel.traced(results, (x, y))
    except (TypeError, IndexError):
        return uf._call(a, b)  # shape errors: NumPy's exception
    if entry[1] is not None:  # floating-point error state (_errstate.py)
        entry[1]([x, y], results, True)
    r = results[0]
    return ndarray._owner(r, not r.aval.shape)
