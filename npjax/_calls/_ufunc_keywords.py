"""The loop keywords of a device ufunc call beyond ``dtype=``: ``signature=`` and its older
spelling ``sig=`` (``np.add(a, b, signature=(None, None, 'f4'))``, ``sig='dd->d'``).

A signature is handed to NumPy's own ``ufunc.resolve_dtypes`` as it is (``_ufuncs._resolve``),
so the loop it names, and every error NumPy gives for a bad one (a wrong length, an unknown
type code, a cast the ``casting=`` rule forbids, both ``dtype=`` and ``signature=``), are
NumPy's. The host route hands these keywords to NumPy's ufunc itself."""

from __future__ import annotations

from typing import Any

from npjax._pure import _dtypes
from npjax._pure._errors import unsupported


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
    if type(signature) is tuple or type(signature) is str:
        return Signature(signature)
    raise TypeError("the signature object to ufunc must be a string or a tuple.")


def loop_request(dtype: Any) -> Any:
    """What ``_ufuncs._resolve`` takes: a ``Signature``'s request, or ``dtype=`` as a dtype."""
    if type(dtype) is Signature:
        return dtype.request
    return _dtypes.canonical_dtype(dtype)
