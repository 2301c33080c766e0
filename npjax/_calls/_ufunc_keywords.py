"""The loop keywords of a device ufunc call beyond ``dtype=``: ``signature=`` and its older
spelling ``sig=`` (``np.add(a, b, signature=(None, None, 'f4'))``, ``sig='dd->d'``).

A signature is handed to NumPy's own ``ufunc.resolve_dtypes`` as it is (``resolve_loop``),
so the loop it names, and every error NumPy gives for a bad one (a wrong length, an unknown
type code, a cast the ``casting=`` rule forbids, both ``dtype=`` and ``signature=``), are
NumPy's. The host route hands these keywords to NumPy's ufunc itself."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from npjax._pure import _dtypes
from npjax._pure._errors import HostOnly, unsupported


class Signature:
    """A ``signature=`` request where ``_ufuncs.ufunc._call`` holds its ``dtype=``: the
    loop's operand dtypes (or None: NumPy's choice) in a hashable form."""

    __slots__ = ("request",)

    def __init__(self, request: str | tuple) -> None:
        self.request = request

    def __eq__(self, other: object) -> bool:
        return type(other) is Signature and other.request == self.request

    def __hash__(self) -> int:
        return hash(self.request)


def sig_keyword(name: str, extra: dict, signature: Any) -> Any:
    """``signature=`` given as ``sig=`` (NumPy's older spelling) taken from ``extra``, the
    keywords ``_call`` does not name; any other one is unsupported."""
    if "sig" in extra:
        if signature is not None:
            raise TypeError("cannot specify both 'sig' and 'signature'")
        signature = extra.pop("sig")
    if extra:
        raise unsupported(name, next(iter(extra)))
    return signature


def as_signature(signature: Any, dtype: Any) -> Signature:
    """``signature=`` checked as NumPy checks it before any loop is looked up."""
    if dtype is not None:
        raise TypeError("cannot specify both 'signature' and 'dtype'")
    if type(signature) in (tuple, str, bytes):
        return Signature(signature)
    raise TypeError("the signature object to ufunc must be a string or a tuple.")


def resolve_loop(np_ufunc: np.ufunc, keys: tuple, dtype: Any, casting: str) -> tuple:
    """NumPy's loop for operands of dtypes ``keys`` (Python scalar types for Python numbers)
    under ``dtype=`` (or a ``Signature``): (input dtypes, output dtypes). A loop of a dtype the
    device cannot hold (``dtype=object``, ``'OO->O'``) raises ``HostOnly``: NumPy runs it."""
    request = dtype.request if type(dtype) is Signature else _dtypes.canonical_dtype(dtype)
    loop_in, loop_out = _resolve(np_ufunc, keys, request, casting)
    if request is not None and not all(map(_dtypes.is_device_dtype, loop_in + loop_out)):
        raise HostOnly(f"a loop of {loop_in} -> {loop_out} runs on the host only")
    return loop_in, loop_out


@functools.lru_cache(maxsize=8192)
def _resolve(np_ufunc: np.ufunc, keys: tuple, dtype: np.dtype | None,
             casting: str) -> tuple[tuple, tuple]:
    """NumPy's loop dtypes for these operand dtypes: (input dtypes, output dtypes)."""
    nin, nout = np_ufunc.nin, np_ufunc.nout
    sig = dtype  # ``dtype=`` for the outputs, or a ``Signature``'s request as it is
    if isinstance(dtype, np.dtype):
        sig = (None,) * nin + (dtype,) * nout
    kwargs = {} if sig is None else {"signature": sig}
    if casting in ("no", "equiv") and any(isinstance(k, type) for k in keys):
        # resolve_dtypes crashes (segfault) on weak Python scalars with casting='equiv' once
        # JAX is imported: ask the ufunc itself on 0-d samples for its verdict instead.
        samples = [k(0) if isinstance(k, type) else np.zeros((), k) for k in keys]
        with np.errstate(all="ignore"):
            np_ufunc(*samples, casting=casting, **kwargs)
        casting = "unsafe"
    resolved = np_ufunc.resolve_dtypes(keys + (None,) * nout, casting=casting, **kwargs)
    # NumPy has two equal uint64/int64 dtype classes (ulonglong, ulong); JAX accepts scalars
    # of only one of them, so name each dtype by its canonical instance.
    resolved = tuple(np.dtype(d.str) if d.kind in "iu" else d for d in resolved)
    return resolved[:nin], resolved[nin:]
