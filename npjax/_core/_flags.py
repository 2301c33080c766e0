"""``ndarray.flags``: NumPy's flags of an npjax array, every key and attribute NumPy's
``flagsobj`` has, equal to NumPy's for the same layout (``a.flags == a.copy().flags``).

Contiguity comes from the array's NumPy layout (a host array's own data, or the stand-in
layout of a device array); ``owndata`` from ``base``; ``writeable`` and ``aligned`` from a host
array's data (NumPy's own flags and errors), or the device array's read-only mark and True.
"""

from __future__ import annotations

from typing import Any

from npjax._core import _views

# NumPy's flag bits (``flags.num``)
_C, _F, _OWN, _ALIGNED, _WRITE, _WBIC = 0x1, 0x2, 0x4, 0x100, 0x400, 0x2000

_KEYS = {"C": "c_contiguous", "C_CONTIGUOUS": "c_contiguous", "CONTIGUOUS": "c_contiguous",
         "F": "f_contiguous", "F_CONTIGUOUS": "f_contiguous", "FORTRAN": "f_contiguous",
         "O": "owndata", "OWNDATA": "owndata", "W": "writeable", "WRITEABLE": "writeable",
         "A": "aligned", "ALIGNED": "aligned", "X": "writebackifcopy",
         "WRITEBACKIFCOPY": "writebackifcopy", "B": "behaved", "BEHAVED": "behaved",
         "CA": "carray", "CARRAY": "carray", "FA": "farray", "FARRAY": "farray",
         "FNC": "fnc", "FORC": "forc"}
_SETTABLE = ("writeable", "aligned", "writebackifcopy")


class Flags:
    """``ndarray.flags`` of an npjax array."""

    __slots__ = ("_array",)

    def __init__(self, array: Any) -> None:
        self._array = array

    @property
    def writeable(self) -> bool:
        a = self._array
        if a._scalar:  # NumPy's scalars are immutable
            return False
        data = a._host()
        return data.flags.writeable if data is not None else not a._readonly

    @writeable.setter
    def writeable(self, value: bool) -> None:
        a = self._array
        data = a._host()
        if data is not None:  # NumPy's own flag and errors
            if not a._scalar:
                data.flags.writeable = value
            a._readonly = not data.flags.writeable
            return
        if value and a._base is not None and (_views.is_readonly(a._lens)
                                              or a._base._readonly):
            raise ValueError("cannot set WRITEABLE flag to True of this array")
        a._readonly = not value

    @property
    def aligned(self) -> bool:
        data = self._array._host()
        return bool(data.flags.aligned) if data is not None else True

    @aligned.setter
    def aligned(self, value: bool) -> None:
        data = self._array._host()
        if data is None:
            if not value:
                raise ValueError("npjax: device arrays are always aligned")
            return
        data.flags.aligned = value  # NumPy's errors

    @property
    def writebackifcopy(self) -> bool:
        return False

    @writebackifcopy.setter
    def writebackifcopy(self, value: bool) -> None:
        if value:
            raise ValueError("cannot set WRITEBACKIFCOPY flag to True")

    @property
    def owndata(self) -> bool:
        return self._array.base is None

    @property
    def c_contiguous(self) -> bool:
        return bool(self._array._layout_array().flags.c_contiguous)

    @property
    def f_contiguous(self) -> bool:
        return bool(self._array._layout_array().flags.f_contiguous)

    contiguous = c_contiguous
    fortran = f_contiguous

    @property
    def behaved(self) -> bool:
        return self.aligned and self.writeable

    @property
    def carray(self) -> bool:
        return self.behaved and self.c_contiguous

    @property
    def farray(self) -> bool:
        # NumPy's own test: any of aligned, writeable, F-contiguous, and not C-contiguous
        return (self.aligned or self.writeable or self.f_contiguous) and not self.c_contiguous

    @property
    def fnc(self) -> bool:
        return self.f_contiguous and not self.c_contiguous

    @property
    def forc(self) -> bool:
        return self.f_contiguous or self.c_contiguous

    @property
    def num(self) -> int:
        return (_C * self.c_contiguous | _F * self.f_contiguous | _OWN * self.owndata
                | _ALIGNED * self.aligned | _WRITE * self.writeable)

    def __getitem__(self, key: str) -> bool:
        name = _KEYS.get(key) if isinstance(key, str) else None
        if name is None:
            raise KeyError("Unknown flag")
        return getattr(self, name)

    def __setitem__(self, key: str, value: bool) -> None:
        name = _KEYS.get(key) if isinstance(key, str) else None
        if name not in _SETTABLE:
            raise KeyError("Unknown flag")
        setattr(self, name, value)

    def __eq__(self, other: object) -> bool:
        num = getattr(other, "num", None)
        if not isinstance(num, int) or not (isinstance(other, Flags)
                                            or type(other).__name__ == "flagsobj"):
            return False
        return self.num == num

    __hash__ = None  # type: ignore[assignment]  (NumPy's flags are unhashable too)

    def __repr__(self) -> str:
        return "".join(f"  {name} : {getattr(self, name.lower())}\n" for name in (
            "C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "WRITEABLE", "ALIGNED",
            "WRITEBACKIFCOPY"))
