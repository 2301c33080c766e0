"""Per-process counters behind ``npjax.stats()``: calls, fallbacks, transfers, compiles.

Counting is a dictionary increment on the call path; everything else (sorting, formatting)
happens when ``stats()`` is asked for.
"""

from __future__ import annotations

import collections
import copy
from typing import Any

calls: collections.Counter = collections.Counter()  # public name -> calls
fallbacks: collections.Counter = collections.Counter()  # public name -> host NumPy runs
fallback_sites: collections.Counter = collections.Counter()  # (name, "file:line") -> runs
transfers: dict[str, list[int]] = {"host_to_device": [0, 0], "device_to_host": [0, 0]}


def record_fallback(name: str, site: str) -> None:
    fallbacks[name] += 1
    fallback_sites[(name, site)] += 1


def record_transfer(kind: str, nbytes: int) -> None:
    entry = transfers[kind]
    entry[0] += 1
    entry[1] += int(nbytes)


def stats() -> dict[str, Any]:
    """A snapshot of npjax's counters since start-up (or the last ``reset_stats``)."""
    return {
        "calls": dict(calls.most_common()),
        "fallbacks": dict(fallbacks.most_common()),
        "fallback_sites": [{"function": name, "site": site, "count": n}
                           for (name, site), n in fallback_sites.most_common()],
        "transfers": {kind: {"count": c, "bytes": b} for kind, (c, b) in
                      copy.deepcopy(transfers).items()},
    }


def reset_stats() -> None:
    """Zero every counter."""
    calls.clear()
    fallbacks.clear()
    fallback_sites.clear()
    for entry in transfers.values():
        entry[0] = entry[1] = 0
