"""NumPy's rerun of a call whose device body already ran: its warnings are not given twice.

On an accelerator that cannot hold float64 (a TPU) a function's body may stop part-way
(``HostOnly``: a float64 operand made on the way, bin edges of a histogram) or end with a
float64 result made by ``jax.numpy`` directly (``_lazy_cold.on_accelerator``); NumPy then
runs the call again on the host, for NumPy's values. The body may already have given some of
the call's warnings (NumPy's, as the parity suites check them: ``histogram`` of bools,
``corrcoef`` of a constant row). ``body()`` notes the warnings shown while a body runs, and
within ``rerun(given)`` a warning equal to one of those (message and category) is not shown
again; the rest of NumPy's are. Warnings pass their filters as always (an "error" filter
still raises, the registries still count them): only showing them is affected, through a
wrapper of ``warnings._showwarnmsg`` (what Python calls to show a warning that passed its
filters), set at the first ``body()`` and passing every other thread's warnings through.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Iterator
from typing import Any

__all__ = ["body", "rerun"]

_state = threading.local()  # ``given``: a body's list being noted; ``drop``: a rerun's
_shown: list = []  # the wrapped ``warnings._showwarnmsg``


def _show(msg: Any) -> None:
    key = (str(msg.message), msg.category)
    drop = getattr(_state, "drop", None)
    if drop is not None and key in drop:
        drop.remove(key)  # given by the body already
        return
    given = getattr(_state, "given", None)
    if given is not None:
        given.append(key)
    _shown[0](msg)


@contextlib.contextmanager
def body() -> Iterator[list]:
    """Note the warnings shown while the block runs (a device body): the list given."""
    if warnings._showwarnmsg is not _show:
        _shown[:] = [warnings._showwarnmsg]
        warnings._showwarnmsg = _show
    outer = getattr(_state, "given", None)
    given = _state.given = []
    try:
        yield given
    finally:
        _state.given = outer
        if outer is not None:  # (a body inside a body: the outer one gave them too)
            outer.extend(given)


@contextlib.contextmanager
def rerun(given: list) -> Iterator[None]:
    """Run the block (NumPy's rerun) without showing again the warnings ``given``."""
    outer = getattr(_state, "drop", None)
    _state.drop = list(given)
    try:
        yield
    finally:
        _state.drop = outer
