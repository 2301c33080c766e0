"""NumPy's RuntimeWarnings of reductions and statistics computed on the device.

NumPy warns in two ways here. Plain warnings from its Python code ("Mean of empty slice",
"Degrees of freedom <= 0 for slice", "All-NaN slice encountered"), which the error state does
not govern, and floating-point flags of the loops it runs ("overflow encountered in reduce",
"invalid value encountered in divide"...), which follow ``np.errstate``. Each checked
function lists NumPy's steps as *events*, in NumPy's order: ``("warn", message)`` (a count of
plain warnings) or ``("flags", loop name)`` (flag bits, ``_errstate.report``).

- Conditions that depend only on shapes (an empty slice, ``ddof`` >= the count without a
  ``where`` mask) are issued at the call from the shapes: no device work, no wait.
- Conditions that depend on the data are computed on the device by one small jitted function
  per (check, static parameters), which first asks whether every result is finite (every
  event here comes with a NaN or an infinity in the result) and does the rest only if not.
  The values are then treated as ufunc flags are (``_errstate``): read at the call where the
  result is host memory (CPU: the screen reads the result in place) or where the user watches
  (a "raise"/"call" state, "error" filters, ``catch_warnings``); otherwise deferred to the
  next host read, each warning naming the line of its operation. Under ``npjax.jit`` the
  values become a device check (the call reruns eagerly and warns), or, where the trace
  already watches the operands, its finite watch's look at the result; in lazy mode the check
  goes with the recorded call, made when its program runs, under the warnings filters of the
  recording (``catch_warnings`` around a call silences its warnings as in NumPy).

The flags are inferred from values, per output lane, as for ufuncs: overflow where a sum (or
product, square, difference) is infinite from finite operands, invalid where it is NaN from
operands without NaN, divide where a finite non-zero sum is divided by a zero count.
Differences from NumPy: warnings name the user's line (NumPy names its own Python frames for
"Mean of empty slice" and the divisions in ``_methods.py``); underflow is not inferred; flags
of steps inside ``median``/``percentile`` (their interpolation) and of weighted ``average``
are not reported; nor are those of reductions of masked reads under ``npjax.jit`` (``x[m].sum()``
with a traced mask: ``_masked`` checks the empty selection itself).
"""

from __future__ import annotations

import cmath
import contextlib
import contextvars
import functools
import math
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime import _context, _deferred_checks, _errstate, _fp_screen, _host_reads
from npjax._execution import _lazy
from npjax._pure._boolsums import all_, all_finite, any_, anys, count, fold_many, running_count

EMPTY_MEAN = "Mean of empty slice"
DOF = "Degrees of freedom <= 0 for slice"
ALL_NAN = "All-NaN slice encountered"

_F64, _C128 = np.dtype(np.float64), np.dtype(np.complex128)
_Tracer = jax.core.Tracer
_off: contextvars.ContextVar[bool] = contextvars.ContextVar("npjax_reduction_checks_off",
                                                            default=False)


@contextlib.contextmanager
def unchecked() -> Iterator[None]:
    """No checks inside: for callers that reduce over lanes they later discard (masked reads
    under ``npjax.jit``, ``_masked``, which make their own empty-selection checks)."""
    token = _off.set(True)
    try:
        yield
    finally:
        _off.reset(token)


# --- shape-only conditions ----------------------------------------------------------------

def warn_now(message: str) -> None:
    """A plain RuntimeWarning NumPy issues from the shapes alone, at the user's line."""
    if not _off.get():
        _deferred_checks.issue_events((1,), (("warn", message),))


def flags_now(bits: int, name: str) -> None:
    """Floating-point flags NumPy's loop ``name`` raises whatever the data (0 / 0 of an
    empty slice), as the error state says."""
    if not _off.get():
        _deferred_checks.issue_events((bits,), (("flags", name),))


def divide_name(scalar: bool, dtype: np.dtype) -> str:
    """The loop name of NumPy's division by the count: a NumPy scalar of float64 or
    complex128 divides by scalar math ("scalar divide"), anything else by the ufunc."""
    return "scalar divide" if scalar and dtype in (_F64, _C128) else "divide"


def empty_mean(result_size: int, scalar: bool, dtype: np.dtype) -> None:
    """``mean`` of empty slices: NumPy's warning, then 0 / 0 in its division."""
    warn_now(EMPTY_MEAN)
    if result_size and dtype.kind in "fc":
        flags_now(8, divide_name(scalar, dtype))


# --- data-dependent conditions ------------------------------------------------------------

def check(events: tuple, body: Callable, static: tuple, args: tuple, result: Any,
          covers: bool = False) -> None:
    """Check ``events`` of one call: ``body(*static, *args, result)`` computes their values
    on the device (``args``: the first operands the kernel was given, in order, None where
    absent: lazy mode replays the check with the kernel's recorded operands). ``covers``:
    every element of ``args[0]`` goes into the result, and a non-finite one makes its lane
    of the result non-finite (sums, products, means, variances)."""
    if _off.get():
        return
    st = _errstate.state()
    flags_on = st["invalid"] != "ignore" or st["over"] != "ignore" or st["divide"] != "ignore"
    if not flags_on and all(kind == "flags" for kind, _ in events):
        return
    if isinstance(result, _Tracer) and _watched(result, args, covers):
        return
    if type(result) is not _lazy.Lazy and not isinstance(result, _Tracer) and \
            _host_reads.on_host(result):  # the hot path: results in host memory (CPU)
        if _host_finite(result):  # the screen: no event without a non-finite result
            return
    _check(events, _Events(body, len(events), static), args, result, st, flags_on)


def _watched(result: Any, args: tuple, covers: bool) -> bool:
    """Under ``npjax.jit``, when the trace's finite watch already checks every float operand:
    every event comes with a non-finite result, so the check is the watch's look at the
    result (no device branch over the operands: it kept XLA from fusing their computation
    into the reduction). The result's look then covers ``args[0]``'s when ``covers``."""
    tr = _context.trace()
    if tr is None or result.dtype.kind not in "fc" or not tr.watch.watches(args):
        return False
    tr.watch.add([result], False, args[:1] if covers else None)
    return True


def _host_finite(result: Any) -> bool:
    """Whether every element of a host-readable result is finite (a 0-d one as a number)."""
    h = np.asarray(result)
    if h.ndim == 0:
        v = h.item()
        return cmath.isfinite(v) if type(v) is complex else math.isfinite(v)
    return _fp_screen._all_finite(result)


def _check(events: tuple, fn: Callable, args: tuple, result: Any, st: dict,
           flags_on: bool) -> None:
    if isinstance(result, _lazy.Lazy):
        if result.value is None:  # recorded: checked when its program runs
            _lazy.defer_check(result, _replayed(events, fn, args, list(warnings.filters)),
                              st)
            return
        result = result.value
        args = jax.tree.map(_lazy.concrete, args)
    if isinstance(result, _Tracer):
        tr = _context.trace()
        if tr is not None:  # npjax.jit: a device check; the call reruns eagerly and warns
            active = [i for i, (kind, _) in enumerate(events) if kind == "warn" or flags_on]
            values = _compiled(fn)(args, result)
            tr.check(jnp.any(values[jnp.asarray(active)] != 0))
        return
    if _deferred_checks._deferrable(result, st):
        _deferred_checks.defer_events(_compiled(fn)(args, result), events, st)
        return
    if _host_reads.on_host(result):
        if _host_finite(result):
            return
    else:
        _host_reads.SYNCS["checks"] += 1
    values = np.asarray(_compiled(fn)(args, result))
    if values.any():
        _deferred_checks.issue_events(values, events, st)


def _replayed(events: tuple, fn: Callable, args: tuple, filters: list) -> Callable:
    """The check lazy mode makes when the recorded call's program runs (its operands and
    results as ``_lazy`` passes them, under the recorded error state and warnings
    ``filters``)."""
    treedef = jax.tree.structure(args)

    def replay(leaves: list, outs: tuple, mask: Any = True) -> None:
        st = _errstate.state()
        flags_on = any(st[k] != "ignore" for k in ("divide", "over", "invalid"))
        # a check's operands are the first operands of the kernel it follows (``check``)
        args_now = jax.tree.unflatten(treedef, leaves[:treedef.num_leaves])
        with warnings.catch_warnings():
            warnings.filters[:] = filters
            _check(events, fn, args_now, outs[0], st, flags_on)

    return replay


@functools.lru_cache(maxsize=1024)
def _compiled(fn: Callable) -> Callable:
    """``fn`` behind the screen (all results finite: every value 0), compiled."""
    def screened(args: tuple, result: Any) -> Any:
        n = fn.size
        return jax.lax.cond(_finite_result(result),
                            lambda: jnp.zeros(n, jnp.int32),
                            lambda: jnp.stack([jnp.asarray(v, jnp.int32).reshape(())
                                               for v in fn(args, result)]))
    return jax.jit(screened)


def _finite_result(result: Any) -> Any:
    """Whether every element of a traced result is finite (a float sum for floats,
    ``_boolsums``)."""
    if result.dtype.kind in "fc":
        return all_finite(result)
    return jnp.all(jnp.isfinite(result))


class _Events:
    """A hashable device function of (operands, result) giving one value per event."""

    def __init__(self, body: Callable, size: int, static: tuple) -> None:
        self.body, self.size, self.static = body, size, static

    def __call__(self, args: tuple, result: Any) -> list:
        return self.body(*self.static, *args, result)

    def __hash__(self) -> int:
        return hash((self.body, self.size, self.static))

    def __eq__(self, other: object) -> bool:
        return (type(other) is _Events and other.body is self.body
                and other.size == self.size and other.static == self.static)


# --- flag rules (traced) ------------------------------------------------------------------

def _bits(div: Any = False, over: Any = False, inv: Any = False) -> Any:
    return jnp.where(div, 1, 0) + jnp.where(over, 2, 0) + jnp.where(inv, 8, 0)


def _nan(x: Any) -> Any:
    return jnp.isnan(x) if x.dtype.kind in "fc" else jnp.zeros(x.shape, bool)


def _finite(x: Any) -> Any:
    return jnp.isfinite(x) if x.dtype.kind in "fc" else jnp.ones(x.shape, bool)


# Each check makes its reductions of one shape together, as one (``_boolsums.fold_many``):
# per lane, the elements' facts at once; over the lanes, every lane condition at once.

def _lane_facts(y: Any, valid: Any) -> list:
    """``fold_many`` items giving ``_total_masks`` its (lanes with a NaN, lanes with a
    non-finite element) of ``y`` where ``valid``."""
    return [(_nan(y) & valid, "or"), (~_finite(y) & valid, "or")]


def _total_masks(nan_in: Any, bad_in: Any, total: Any) -> tuple:
    """Lane masks (overflowed, invalid) of a sum or product giving ``total`` from elements
    with a NaN in lanes ``nan_in`` and a non-finite value in lanes ``bad_in``: an infinite
    total from finite elements overflowed; a NaN total from elements without NaN is
    invalid (inf - inf), and, from finite elements, overflowed first."""
    fin_in = ~bad_in
    total = total.reshape(nan_in.shape)
    nan_out = _nan(total) & ~nan_in
    return ((~_finite(total) & ~_nan(total)) | nan_out) & fin_in, nan_out


def _reduce_bits(y: Any, valid: Any, total: Any, axes: tuple) -> Any:
    """Flags of a sum or product of ``y`` (where ``valid``) over ``axes`` giving ``total``."""
    over, inv = anys(list(_total_masks(*fold_many(_lane_facts(y, valid), axes), total)))
    return _bits(over=over, inv=inv)


def _binary_masks(x: Any, y: Any, out: Any, where: Any = True) -> list:
    """Masks (overflowed, invalid) of an elementwise ``out = x op y``."""
    fin = _finite(x) & _finite(y)
    return [jnp.isinf(out) & fin & where, _nan(out) & ~_nan(x) & ~_nan(y) & where]


def _binary_bits(x: Any, y: Any, out: Any, where: Any = True) -> Any:
    """Flags of an elementwise ``out = x op y`` (subtract, multiply)."""
    over, inv = anys(_binary_masks(x, y, out, where))
    return _bits(over=over, inv=inv)


def _valid(x: Any, mask: Any) -> Any:
    return jnp.ones(x.shape, bool) if mask is None else jnp.broadcast_to(mask, x.shape)


def _sum(y: Any, valid: Any, axes: tuple, dtype: Any, keepdims: bool = False) -> Any:
    y = y.astype(dtype)
    return jnp.sum(jnp.where(valid, y, jnp.zeros((), y.dtype)), axis=axes, keepdims=keepdims)


# --- the checked functions ------------------------------------------------------------------

def _fold_body(axes, op, nan_fill, x, mask, init, result):
    valid = _valid(x, mask)
    if nan_fill is not None:
        valid = valid & ~_nan(x)
    total = result.reshape(tuple(n for i, n in enumerate(x.shape) if i not in axes))
    if init is not None:  # the initial value is one more element of every lane
        x = x.astype(result.dtype)
        pad = jnp.broadcast_to(jnp.asarray(init, x.dtype),
                               tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
        x = jnp.concatenate([x, pad], axis=axes[0]) if axes else x
        valid = jnp.concatenate([valid, jnp.ones(pad.shape, bool)], axis=axes[0]) \
            if axes else valid
    return [_reduce_bits(x, valid, total, axes)]


def fold(axes: tuple, op: str, nan_fill: Any, x: Any, mask: Any, init: Any,
         result: Any) -> None:
    """``sum``/``prod``/``nansum``/``nanprod``/``add.reduce``: "... encountered in reduce"."""
    if result.dtype.kind not in "fc" or x.size == 0:
        return
    check((("flags", "reduce"),), _fold_body, (axes, op, nan_fill), (x, mask, init), result,
          mask is None and nan_fill is None)


def _mean_body(axes, sum_dt, div, x, mask, result):
    valid = _valid(x, mask)
    total = _sum(x, valid, axes, sum_dt)
    facts = _lane_facts(x.astype(sum_dt), valid)
    if mask is None:
        over, inv = anys(list(_total_masks(*fold_many(facts, axes), total)))
        return [_bits(over=over, inv=inv)]
    some, nan_in, bad_in = fold_many([(valid, "or"), *facts], axes)
    empty, over, inv = anys([~some, *_total_masks(nan_in, bad_in, total)])
    return [empty, _bits(over=over, inv=inv), jnp.where(empty, 8, 0)]


def mean(axes: tuple, sum_dt: np.dtype, x: Any, mask: Any, result: Any, scalar: bool) -> None:
    """``mean`` (and ``average`` without weights): the empty-slice warning and flags."""
    count = math.prod(x.shape[i] for i in axes)
    if mask is None and count == 0:
        empty_mean(result.size, scalar, np.dtype(sum_dt))
        return
    if sum_dt.kind not in "fc":
        return
    div = divide_name(scalar, np.dtype(sum_dt))
    events = (("flags", "reduce"),) if mask is None else (
        ("warn", EMPTY_MEAN), ("flags", "reduce"), ("flags", div))
    check(events, _mean_body, (axes, sum_dt, div), (x, mask), result, mask is None)


def _var_body(axes, ddof, comp_dt, masked, x, mask, mean, result):
    valid = _valid(x, mask)
    xc = x.astype(comp_dt)
    cnt, nan_in, bad_in = fold_many([(valid, "count"), *_lane_facts(xc, valid)], axes,
                                    keepdims=True)
    lane: dict = {}  # lane masks, all counted by one reduction at the end
    if masked:
        lane["dof"] = ddof >= cnt
    if mean is None:
        s = _sum(xc, valid, axes, comp_dt, keepdims=True)
        lane["s_over"], lane["s_inv"] = _total_masks(nan_in, bad_in, s)
        lane["empty"] = cnt == 0
        mu = s / cnt.astype(s.dtype)
    else:
        mu = jnp.asarray(mean).astype(comp_dt)
    d = xc - mu
    full = dict(zip(("d_over", "d_inv"), _binary_masks(xc, mu, d)))
    if d.dtype.kind == "c":
        re, im = jnp.real(d), jnp.imag(d)
        re2, im2 = re * re, im * im
        full["sq_over"] = (jnp.isinf(re2) & jnp.isfinite(re)) | (jnp.isinf(im2) &
                                                                jnp.isfinite(im))
        sq = re2 + im2
        full["add_over"], full["add_inv"] = _binary_masks(re2, im2, sq)
    else:
        sq = d * d
        full["sq_over"] = jnp.isinf(sq) & _finite(d)
    t = _sum(sq, valid, axes, sq.dtype, keepdims=True)
    *per_lane, nan_t, bad_t = fold_many([*((m, "or") for m in full.values()),
                                         *_lane_facts(sq, valid)], axes, keepdims=True)
    lane.update(zip(full, per_lane))
    lane["t_over"], lane["t_inv"] = _total_masks(nan_t, bad_t, t)
    zero = jnp.maximum(cnt - ddof, 0) == 0
    lane["z_div"] = zero & jnp.isfinite(t) & (t != 0)
    lane["z_inv"] = zero & (t == 0)
    a = dict(zip(lane, anys(list(lane.values()))))
    values = [a["dof"]] if masked else []
    if mean is None:
        values += [_bits(over=a["s_over"], inv=a["s_inv"]), _bits(inv=a["empty"])]
    values.append(_bits(over=a["d_over"], inv=a["d_inv"]))
    values.append(_bits(over=a["sq_over"]))
    if d.dtype.kind == "c":
        values.append(_bits(over=a["add_over"], inv=a["add_inv"]))
    values.append(_bits(over=a["t_over"], inv=a["t_inv"]))
    values.append(_bits(div=a["z_div"], inv=a["z_inv"]))
    return values


def var(axes: tuple, ddof: Any, comp_dt: np.dtype, x: Any, mask: Any, mean: Any,
        result: Any, scalar: bool) -> None:
    """``var``/``std``: NumPy's steps (mean, subtract, square, sum, divide by the degrees of
    freedom), the "Degrees of freedom" warning first."""
    count = math.prod(x.shape[i] for i in axes)
    masked = mask is not None
    if not masked and ddof >= count:
        warn_now(DOF)
    real = np.dtype(comp_dt.char.lower()) if comp_dt.kind == "c" else comp_dt
    div = divide_name(scalar, real)
    if not masked and count == 0:  # every step on empty slices: only the 0 / 0 divisions
        if mean is None:
            flags_now(8, "divide")
        if result.size:
            flags_now(8, div)
        return
    if comp_dt.kind not in "fc":
        return
    events = ((("warn", DOF),) if masked else ()) + (
        (("flags", "reduce"), ("flags", "divide")) if mean is None else ()) + (
        ("flags", "subtract"), ("flags", "square")) + (
        (("flags", "add"),) if comp_dt.kind == "c" else ()) + (
        ("flags", "reduce"), ("flags", div))
    check(events, _var_body, (axes, ddof, comp_dt, masked), (x, mask, mean), result,
          not masked)


def _nanmean_body(axes, sum_dt, x, mask, result):
    valid = _valid(x, mask) & ~_nan(x)
    total = _sum(x, valid, axes, sum_dt)
    some, nan_in, bad_in = fold_many([(valid, "or"), *_lane_facts(x.astype(sum_dt), valid)],
                                     axes)
    over, inv, empty = anys([*_total_masks(nan_in, bad_in, total), ~some])
    return [_bits(over=over, inv=inv), empty]


def nanmean(axes: tuple, sum_dt: np.dtype, x: Any, mask: Any, result: Any) -> None:
    """``nanmean`` of floats: sum flags, then "Mean of empty slice" for a slice of NaNs."""
    if x.size == 0:
        if result.size and math.prod(x.shape[i] for i in axes) == 0:
            warn_now(EMPTY_MEAN)
        return
    check((("flags", "reduce"), ("warn", EMPTY_MEAN)),
          _nanmean_body, (axes, sum_dt), (x, mask), result)


def _nanvar_body(axes, ddof, comp_dt, x, mask, mean, result):
    m = _valid(x, mask)
    nan = _nan(x)
    arr = jnp.where(nan, jnp.zeros((), x.dtype), x).astype(comp_dt)
    cnt = count(m & ~nan, axes, keepdims=True)
    values = []
    if mean is None:
        s = _sum(arr, m, axes, comp_dt, keepdims=True)
        values.append(_reduce_bits(arr, m, s, axes))
        mu = s / cnt.astype(s.dtype)
    else:
        mu = jnp.asarray(mean).astype(comp_dt)
    d = arr - mu
    values.append(_binary_bits(arr, mu, d, m))
    d = jnp.where(nan, jnp.zeros((), d.dtype), d)
    sq = d * jnp.conj(d) if d.dtype.kind == "c" else d * d
    values.append(_binary_bits(d, d, sq, m))
    sq = jnp.real(sq)
    values.append(_reduce_bits(sq, m, _sum(sq, m, axes, sq.dtype, keepdims=True), axes))
    values.append(any_(cnt - ddof <= 0))
    return values


def nanvar(axes: tuple, ddof: Any, comp_dt: np.dtype, x: Any, mask: Any, mean: Any,
           result: Any) -> None:
    """``nanvar``/``nanstd`` of floats: NumPy's steps, then "Degrees of freedom <= 0 for
    slice." (its full stop) where too few numbers are left."""
    if x.size == 0:
        if result.size:
            warn_now(DOF + ".")
        return
    events = ((("flags", "reduce"),) if mean is None else ()) + (
        ("flags", "subtract"), ("flags", "multiply"), ("flags", "reduce"), ("warn", DOF + "."))
    check(events, _nanvar_body, (axes, ddof, comp_dt), (x, mask, mean), result)


def _nan_result_body(x, result):
    return [any_(_nan(result))]


def nan_result(result: Any) -> None:
    """``nanmin``/``nanmax``: NumPy warns once when its result holds a NaN."""
    if result.dtype.kind in "fc" and result.size:
        check((("warn", ALL_NAN),), _nan_result_body, (), (None,), result)


def _all_nan_body(axes, x, result):
    return [count(all_(_nan(x), axis=axes))]


def all_nan_slices(axes: tuple, x: Any, result: Any) -> None:
    """``nanmedian``/``nanpercentile``/``nanquantile``: one warning per all-NaN slice."""
    if x.dtype.kind in "fc" and x.size:
        check((("warn", ALL_NAN),), _all_nan_body, (axes,), (x,), result)


def _accumulate_body(axis, nan_fill, initial, x, result):
    if axis is None:
        x, result, axis = x.reshape(-1), result.reshape(-1), 0
    if initial:  # the leading identity of cumulative_sum/prod(include_initial=True)
        result = jax.lax.slice_in_dim(result, 1, result.shape[axis], axis=axis)
    nan = _nan(x)
    valid = ~nan if nan_fill is not None else jnp.ones(x.shape, bool)
    fin_before = running_count(~_finite(x) & valid, axis) == 0
    nan_before = running_count(nan & valid, axis) > 0
    nan_out = _nan(result) & ~nan_before
    over = any_((jnp.isinf(result) | nan_out) & fin_before)
    return [_bits(over=over, inv=any_(nan_out))]


def accumulate(axis: int | None, nan_fill: Any, initial: bool, x: Any, result: Any) -> None:
    """``cumsum``/``cumprod`` and their nan- and Array API forms: "... in accumulate"."""
    if result.dtype.kind in "fc" and x.size:
        check((("flags", "accumulate"),), _accumulate_body, (axis, nan_fill, bool(initial)),
              (x,), result)


def _ptp_body(axes, x, result):
    hi, lo = jnp.max(x, axis=axes), jnp.min(x, axis=axes)
    return [_binary_bits(hi, lo, result.reshape(hi.shape))]


def ptp(axes: tuple, x: Any, result: Any) -> None:
    """``ptp``: NumPy's ``maximum - minimum`` ("... encountered in subtract")."""
    if result.dtype.kind == "f" and x.size:
        check((("flags", "subtract"),), _ptp_body, (axes,), (x,), result)
