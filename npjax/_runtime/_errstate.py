"""Floating-point error state: errstate, seterr, geterr, seterrcall, geterrcall.

npjax has no error state of its own: these names *are* NumPy's (``npjax.errstate is
numpy.errstate``), so ``with np.errstate(...)`` from either library controls both, per thread
and per asyncio task as in NumPy. npjax ufuncs (and the operators, which are ufunc calls)
honour it as NumPy's loops do: for each of divide / over / under / invalid, "ignore" is
silent, "warn" warns ``RuntimeWarning: divide by zero encountered in divide`` at the user's
line, "raise" raises ``FloatingPointError``, "call" calls the ``seterrcall`` function with
(kind, flags), "print" writes to stderr and "log" calls ``.write`` on the ``seterrcall``
object. NumPy's default is warn for divide/over/invalid and ignore for under.

How the flags are found. XLA has no floating-point status flags, so npjax infers them from
the values, after the kernel, at the operation (so warnings and errors appear where NumPy
raises them; nothing is deferred):

1. Screen (every float ufunc call whose categories are not all "ignore"): are all float
   outputs finite (and, when "under" is not ignored, none tiny)? The answer needs the result
   on the host: on the CPU backend the result buffer is read in place (no copy) and
   screened by ``np.isfinite`` (a dot product for large arrays); on an accelerator a small
   reduction kernel runs and one boolean is transferred (a device sync per float ufunc call).
   Measured cost on CPU (2-core VM, 100-element float64 ``add``): about +3.5 µs per call
   (kernel 5.5 -> 8.9 µs), so ``npjax.add`` goes from about 8.5 to 13 µs
   (``benchmarks/overhead.py``: 1.16x -> 1.6-1.9x raw ``jax.numpy``); under
   ``np.errstate(all="ignore")`` the check is one context-variable read (about +0.3 µs).
   Ufuncs with integer or boolean outputs (comparisons, bitwise, integer arithmetic) pay
   nothing, except integer ``//``, ``%``, ``divmod``, ``fmod`` and ``reciprocal``, which look
   at the divisor (free for a Python-scalar divisor).
2. Only when the screen finds a non-finite output, the flags are computed from inputs and
   outputs: invalid = a NaN output where no input is NaN; divide = an infinite output from
   finite inputs at a pole of the function (x/0, log(0), log1p(-1), arctanh(±1), 0**-n);
   overflow = any other infinite output from finite inputs; underflow = a zero or subnormal
   output from nonzero finite inputs of multiply/divide/exp/exp2/power/square/ldexp. Integer
   division by zero gives 0 and "divide by zero"; ``MIN // -1`` gives MIN and "overflow".
   ``np.errstate(all="ignore")`` skips both steps.

Differences from NumPy:
- Underflow is inferred (an exactly representable subnormal product is flagged, which NumPy
  does not); XLA on CPU flushes subnormals to zero anyway.
- Reductions and statistics (``sum`` overflowing, ``mean`` of an empty slice, ``nanmean``
  of NaNs...) are checked by ``_reduction_checks`` with the same deferral (``defer_events``).
- Not covered: NumPy-scalar integer overflow (``np.int8(127) + 1`` warns in NumPy): NumPy's
  value without the warning.
  Casts (``astype``, writes, ``out=`` of another dtype) are checked by ``_casts``.
- gufuncs (``matmul``...) decide per call, not per element: invalid when an output is NaN and
  no input is; overflow when an output is infinite and every input finite.

Where each part lives (one job each):
- ``_errstate``: the error state (NumPy's names, ``state``) and acting on flags (``report``).
- ``_numpy_calls``: NumPy computations run for npjax on the host, their warnings issued at the
  user's line (``call_numpy_ufunc``, ``run_loops``, ``call_numpy_function``).
- ``_host_reads``: whether a value reads on the host without a transfer (``on_host``) and the
  count of device reads made by checks (``SYNCS``).
- ``_fp_flags``: the rules: NumPy's flag bits from a call's inputs and outputs.
- ``_fp_screen``: the check at the call: the screen of results (step 1), then the flags.
- ``_deferred_checks``: checks of results in accelerator memory, read at the next host read.
- ``_finite_watch``: the check of traced results under ``npjax.jit`` (``FiniteWatch``).
- ``_ufunc_checks``: the check after a ufunc call or a division ``reduce`` (``checker``).
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from typing import Any

import numpy as np

errstate = np.errstate
seterr = np.seterr
geterr = np.geterr
seterrcall = np.seterrcall
geterrcall = np.geterrcall

__all__: list[str] = ["errstate", "geterr", "geterrcall", "seterr", "seterrcall"]

try:  # NumPy's context variable: one ``get`` per call instead of building a dict
    from numpy._core._ufunc_config import _extobj_contextvar, _get_extobj_dict
except ImportError:  # pragma: no cover - other NumPy layouts
    _extobj_contextvar = None

_cache: tuple = (None, None)  # (NumPy's extobj, its state as a dict); replaced atomically


def state() -> dict:
    """The error state in force here: divide/over/under/invalid modes and ``call``."""
    global _cache
    if _extobj_contextvar is None:  # pragma: no cover
        return {**np.geterr(), "call": np.geterrcall()}
    obj = _extobj_contextvar.get()
    cached = _cache
    if cached[0] is obj:
        return cached[1]
    d = _get_extobj_dict()
    _cache = (obj, d)
    return d


_KINDS = (("divide", 1, "divide by zero"), ("over", 2, "overflow"),
          ("under", 4, "underflow"), ("invalid", 8, "invalid value"))
# The package's folder: frames whose file is under it are npjax's, not the user's.
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _stacklevel() -> int:
    """The warnings stacklevel of the first caller outside npjax (NumPy warns at that line)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level



# Set by ``_deferred_checks``: issues the warnings of deferred checks (earlier operations).
EARLIER: list = [None]


class _At(threading.local):
    """The user's line (file, line, module globals) that ``report`` warns at while a check
    recorded there is made later (lazy mode); None: the caller's line."""

    where: tuple | None = None


AT = _At()


def user_line(frame: Any) -> tuple | None:
    """(file, line, module globals) of the first frame from ``frame`` outward outside npjax."""
    while frame is not None and frame.f_code.co_filename.startswith(PACKAGE_DIR):
        frame = frame.f_back
    return None if frame is None else (frame.f_code.co_filename, frame.f_lineno,
                                       frame.f_globals)


def _warn(msg: str) -> None:
    where = AT.where
    if where is None:
        warnings.warn(msg, RuntimeWarning, stacklevel=_stacklevel())
        return
    filename, lineno, module_globals = where
    warnings.warn_explicit(msg, RuntimeWarning, filename, lineno,
                           module_globals.get("__name__", "<string>"),
                           module_globals.setdefault("__warningregistry__", {}))


def report(flags: int, name: str, st: dict | None = None) -> None:
    """Act on ``flags`` (NumPy's bits: divide 1, over 2, under 4, invalid 8) for ``name``,
    after the warnings of earlier operations' deferred checks."""
    st = state() if st is None else st
    if EARLIER[0] is not None:
        EARLIER[0]()
    for key, bit, text in _KINDS:
        if not flags & bit:
            continue
        mode = st[key]
        if mode == "ignore":
            continue
        msg = f"{text} encountered in {name}"
        if mode == "warn":
            _warn(msg)
        elif mode == "raise":
            raise FloatingPointError(msg)
        elif mode == "call":
            func = st.get("call")
            if func is None:
                raise NameError(f"python callback specified for {text} (in  {name}) but no "
                                "function found.")
            func(text, flags)
        elif mode == "print":
            print(f"Warning: {msg}", file=sys.stderr)
        elif mode == "log":
            log = st.get("call")
            if log is None:
                raise NameError(f"log specified for {text} (in {name}) but no object with "
                                "write method found.")
            log.write(f"Warning: {msg}\n")
