"""The report ``python -m npjax run`` prints at exit: a plain-text table built from
``npjax.stats()`` (where the calls went, what fell back to NumPy, host<->device transfers,
compiles, device waits) and advice lines for slow patterns, as a profiler would give.
"""

from __future__ import annotations

import os
from typing import Any

# Advice thresholds: how often one line of user code must do a thing before it is flagged.
SCALAR_WRITES_AT_ONE_LINE = 50
SMALL_FETCHES_AT_ONE_LINE = 50
SMALL_TRANSFER_BYTES = 64  # "small" = at most this many bytes per transfer on average
UPLOADS_AT_ONE_LINE = 50
COMPILE_SHARE = 0.5  # compiles taking more than this share of the wall time
MANY_COMPILES = 50
SLOW_COMPILE_S = 1.0  # compiles listed by name and line when they take at least this

_DIRECTION = {"host_to_device": "host -> device", "device_to_host": "device -> host",
              "device_to_device": "device -> device"}


def _nbytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover


def short_site(site: str) -> str:
    """``file:line`` with the file relative to the current folder when it lies inside it."""
    name, sep, line = site.rpartition(":")
    if not sep or not os.path.isabs(name):
        return site
    try:
        rel = os.path.relpath(name)
    except ValueError:  # another drive (Windows)
        return site
    return f"{rel if not rel.startswith('..') else name}:{line}"


def _table(header: tuple[str, ...], rows: list[tuple[Any, ...]], indent: str = "  ",
           right: tuple[int, ...] = ()) -> list[str]:
    """Rows as aligned text: columns in ``right`` (by index) are right-aligned."""
    cells = [tuple(str(c) for c in header)] + [tuple(str(c) for c in r) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for r in cells:
        parts = [c.rjust(w) if i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(r, widths))]
        lines.append((indent + "  ".join(parts)).rstrip())
    return lines


def advice(data: dict[str, Any]) -> list[str]:
    """Advice lines for slow patterns found in a ``npjax.stats()`` snapshot."""
    lines = [
        f"{entry['count']} scalar writes (a[i] = v) at {short_site(entry['site'])}: "
        "each one is a separate device update; vectorise the loop (write a slice or "
        "use np.where), or wrap the function in npjax.jit"
        for entry in data.get("scalar_writes", [])
        if entry["count"] >= SCALAR_WRITES_AT_ONE_LINE]
    for entry in data.get("transfer_sites", []):
        count, nbytes = entry["count"], entry["bytes"]
        small = nbytes <= SMALL_TRANSFER_BYTES * count
        site = short_site(entry["site"])
        if entry["direction"] == "device_to_host" and count >= SMALL_FETCHES_AT_ONE_LINE \
                and small:
            lines.append(
                f"{count} small device -> host transfers at {site} (average "
                f"{nbytes / count:.0f} B): each one waits for the device; fetch the values "
                "once (a.tolist(), or one float() of a reduction) outside the loop, or keep "
                "the computation in arrays")
        elif entry["direction"] == "host_to_device" and count >= UPLOADS_AT_ONE_LINE:
            lines.append(
                f"{count} host -> device transfers at {site} ({_nbytes(nbytes)}): a list, "
                "NumPy array, Python number or small host array meets device arrays on every "
                "pass; convert it once with np.asarray before the loop (a small array that "
                "must meet large ones: make it on the device, npjax.policy(placement="
                "'device'))")
    lines.extend(
        f"np.{entry['function']} ran on host NumPy {entry['count']} time(s) at "
        f"{short_site(entry['site'])}: its arrays go to the host and back on every call"
        for entry in data.get("fallback_sites", []))
    comp = data.get("compiles", {})
    wall = data.get("wall_s") or 0.0
    if comp.get("count", 0) >= MANY_COMPILES and wall > 0 \
            and comp.get("seconds", 0.0) > COMPILE_SHARE * wall:
        lines.append(
            f"JAX compiled {comp['count']} times ({comp['seconds']:.2f} s, "
            f"{100 * comp['seconds'] / wall:.0f}% of the wall time): shapes or dtypes that "
            "change on every pass (growing arrays, varying slice lengths) each compile anew")
    return lines


def _autojit_lines(auto: dict[str, Any], top: int) -> list[str]:
    """The autojit section: what was compiled (compile time, time saved as estimated from
    the cold calls) and what runs as written, why, with file:line."""
    done, refused = auto.get("compiled", []), auto.get("refused", [])
    cold = auto.get("cold", [])
    if not done and not refused and not cold:
        return []
    out = [""]
    if done:
        compile_s = sum(e["compile_s"] for e in done)
        saved = sum(e["saved_s"] for e in done)
        out.append(f"Compiled automatically (autojit): {len(done)} function(s), compiles "
                   f"{compile_s:.3f} s, estimated time saved {saved:.3f} s (compiled calls "
                   "against the mean of the calls run as written)")
        out += _table(("function", "signatures", "cold calls", "compiled calls", "compile s",
                       "saved s", "site"),
                      [(e["function"], e["signatures"], e["cold_calls"], e["hot_calls"],
                        f"{e['compile_s']:.3f}", f"{e['saved_s']:.3f}", short_site(e["site"]))
                       for e in done[:top]], right=(1, 2, 3, 4, 5))
    else:
        out.append("Compiled automatically (autojit): nothing")
    if refused:
        out.append(f"Not compiled (run as written): {len(refused)} function(s) or "
                   "signature(s)")
        out += _table(("function", "calls", "site", "why"),
                      [(e["function"], e["count"], short_site(e["site"]), e["reason"])
                       for e in refused[:top]], right=(1,))
    if cold:
        out.append(f"Left as written (cold: a compile would not have paid): {len(cold)} "
                   "function(s)")
        out += _table(("function", "calls", "seconds", "site", "why"),
                      [(e["function"], e["calls"], f"{e['seconds']:.3f}", short_site(e["site"]),
                        e["reason"]) for e in cold[:top]], right=(1, 2))
    return out


def format_report(data: dict[str, Any], top: int = 10, title: str = "npjax report") -> str:
    """The report as text, from a ``npjax.stats()`` snapshot."""
    out = [f"=== {title} " + "=" * max(3, 66 - len(title)),
           f"Wall time: {data.get('wall_s', 0.0):.3f} s"]

    calls = data.get("calls", {})
    total = sum(calls.values())
    out.append("")
    if calls:
        shown = list(calls.items())[:top]
        out.append(f"npjax calls: {total} in all, {len(calls)} functions"
                   + (f" (top {len(shown)})" if len(calls) > len(shown) else ""))
        out += _table(("function", "calls"), shown, right=(1,))
    else:
        out.append("npjax calls: none counted")

    placed = data.get("placement")
    if placed is not None:
        out.append("")
        out.append(f"Placement: {placed['host']} call(s) ran on host arrays (NumPy), "
                   f"{placed['device']} on the device (functions, operators, indexing, "
                   "grids, loads and random draws)")

    sites = data.get("fallback_sites", [])
    out.append("")
    if sites:
        n = sum(e["count"] for e in sites)
        out.append(f"Fallbacks to host NumPy: {n} call(s)")
        out += _table(("function", "count", "site"),
                      [(e["function"], e["count"], short_site(e["site"])) for e in sites],
                      right=(1,))
    else:
        out.append("Fallbacks to host NumPy: none")

    routes = data.get("host_routes", [])
    if routes:
        out.append("")
        out.append(f"Host routes (work this backend's XLA cannot do, run by NumPy on the host):"
                   f" {sum(e['count'] for e in routes)} run(s)")
        out += _table(("family", "dtype", "runs", "reason"),
                      [(e["family"], e["dtype"], e["count"], e["reason"]) for e in routes],
                      right=(2,))

    cold = data.get("lazy", {}).get("cold_on_cpu", 0)
    if cold:
        out.append("")
        out.append(f"Lazy programs run the first time on the CPU backend (this accelerator "
                   f"compiles their 64-bit work slowly): {cold}")
    held_runs = data.get("lazy", {}).get("host_dtype_on_cpu", 0)
    if held_runs:
        out.append("")
        out.append(f"Runs on the CPU backend (float64/complex128 work this accelerator cannot "
                   f"hold exactly): {held_runs}")

    eager = data.get("jit_eager", [])
    if eager:
        out.append("")
        out.append(f"npjax.jit functions run eagerly (fallback=\"eager\"): "
                   f"{sum(e['count'] for e in eager)} call(s); the line that could not trace:")
        out += _table(("function", "count", "site", "why"),
                      [(e["function"], e["count"], short_site(e["site"]), e.get("why", ""))
                       for e in eager], right=(1,))

    out += _autojit_lines(data.get("autojit", {}), top)

    transfers = data.get("transfers", {})
    out.append("")
    out.append("Host <-> device transfers:")
    out += _table(("direction", "count", "bytes"),
                  [(_DIRECTION.get(k, k), v["count"], _nbytes(v["bytes"]))
                   for k, v in transfers.items()], right=(1, 2))
    tsites = data.get("transfer_sites", [])[:top]
    if tsites:
        out.append("  top sites:")
        out += _table(("direction", "count", "bytes", "site"),
                      [(_DIRECTION.get(e["direction"], e["direction"]), e["count"],
                        _nbytes(e["bytes"]), short_site(e["site"])) for e in tsites],
                      indent="    ", right=(1, 2))

    comp = data.get("compiles", {})
    out.append("")
    out.append(f"Compiles: {comp.get('count', 0)} XLA compiles, {comp.get('seconds', 0.0):.3f} s "
               f"(tracing {comp.get('trace_s', 0.0):.3f} s, lowering "
               f"{comp.get('lower_s', 0.0):.3f} s, XLA {comp.get('backend_s', 0.0):.3f} s)")
    cache = comp.get("cache", {})
    lookups = cache.get("compile_requests_use_cache", 0)
    if lookups:
        hits = cache.get("cache_hits", 0)
        where = f" in {comp['cache_dir']}" if comp.get("cache_dir") else ""
        out.append(f"  persistent compilation cache: {hits} hits of {lookups} lookups "
                   f"({hits / max(comp.get('count', 0), 1):.0%} of compiles){where}")
    else:
        out.append("  persistent compilation cache: not used")
    by_function = list(comp.get("by_function", {}).items())[:top]
    if by_function:
        out += _table(("compiled function", "compiles"), by_function, indent="    ",
                      right=(1,))
    slow = [e for e in comp.get("slowest", []) if e["seconds"] >= SLOW_COMPILE_S][:top]
    if slow:
        out.append(f"  slowest compiles (at least {SLOW_COMPILE_S:g} s):")
        out += _table(("seconds", "compiled function", "site"),
                      [(f"{e['seconds']:.2f}", e["function"], short_site(e["site"]))
                       for e in slow], indent="    ", right=(0,))

    wait = data.get("device_wait", {})
    out.append("")
    out.append(f"Waiting on device results: {wait.get('seconds', 0.0):.3f} s in "
               f"{wait.get('count', 0)} device -> host fetches (computing + copying)")
    syncs = data.get("syncs", {})
    if syncs.get("checks") or syncs.get("deferred_checks"):
        out.append(f"Floating-point checks: {syncs.get('checks', 0)} waited for the device at "
                   f"the call; {syncs.get('deferred_checks', 0)} deferred, read in "
                   f"{syncs.get('deferred_reads', 0)} waits")

    writes = list(data.get("scalar_writes", []))[:top]
    if writes:
        out.append("")
        out.append("Scalar writes (a[i] = v) by site:")
        out += _table(("count", "site"), [(e["count"], short_site(e["site"])) for e in writes],
                      right=(0,))

    tips = advice(data)
    out.append("")
    if tips:
        out.append("Advice:")
        out += [f"  - {tip}" for tip in tips]
    else:
        out.append("Advice: none (no slow pattern found)")
    out.append("=" * 80)
    return "\n".join(out) + "\n"
