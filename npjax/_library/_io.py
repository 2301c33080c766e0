"""Files: ``load`` (with ``.npz`` archives whose members come back as npjax arrays) and the
``tofile``/``dump``/``dumps`` methods. The other readers and writers (save, savez, savetxt,
loadtxt, genfromtxt, fromfile, fromregex) are NumPy's own functions on host copies, made by the
registry (status ``host``). ``load`` keeps NumPy's ``allow_pickle=False`` default."""

from __future__ import annotations

import collections.abc
import pickle
from typing import Any

import numpy as np

from npjax._calls._fallback import from_host
from npjax._core._ndarray import install_methods, ndarray
from npjax._runtime import _stats

__all__ = ["load"]


class NpzFile(collections.abc.Mapping):
    """NumPy's ``NpzFile`` whose members are read as npjax arrays."""

    def __init__(self, archive: Any) -> None:
        self._archive = archive
        self.files = archive.files

    def __getitem__(self, key: str) -> Any:
        return _loaded(from_host(self._archive[key]))

    def __iter__(self) -> Any:
        return iter(self._archive)

    def __len__(self) -> int:
        return len(self._archive)

    def __enter__(self) -> NpzFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._archive.close()

    def __repr__(self) -> str:
        return repr(self._archive).replace("NpzFile", "npjax NpzFile", 1)


def load(file: Any, mmap_mode: Any = None, allow_pickle: bool = False,
         fix_imports: bool = True, encoding: str = "ASCII", *,
         max_header_size: int = 10000) -> Any:
    """npjax implementation of ``numpy.load``: arrays come back placed as any new array
    (host arrays under the CPU default, device arrays under ``placement="device"``), ``.npz``
    archives as a mapping of npjax arrays. Pickles are refused unless ``allow_pickle=True``.

    Differences from NumPy: ``mmap_mode`` gives a copy (no file mapping).
    """
    result = np.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle,
                     fix_imports=fix_imports, encoding=encoding,
                     max_header_size=max_header_size)
    if isinstance(result, np.lib.npyio.NpzFile):
        return NpzFile(result)
    return _loaded(from_host(result))


def _loaded(result: Any) -> Any:
    """``result``, counted as a call of ``load`` on the device (the report's placement line)
    when it is a device array."""
    if isinstance(result, ndarray) and result._host() is None:
        _stats.calls["load"] += 1
    return result


load._npjax_host = True


def _host(a: ndarray) -> np.ndarray:
    return a._fetch()


def _tofile(self: ndarray, fid: Any, sep: str = "", format: str = "%s") -> None:
    """Write the array to a file as NumPy's ``ndarray.tofile`` does (raw bytes or text)."""
    _host(self).tofile(fid, sep=sep, format=format)


def _dump(self: ndarray, file: Any) -> None:
    """Pickle the array to ``file`` (a path or an open binary file)."""
    if isinstance(file, str | bytes) or hasattr(file, "__fspath__"):
        with open(file, "wb") as f:
            pickle.dump(self, f, protocol=2)
    else:
        pickle.dump(self, file, protocol=2)


def _dumps(self: ndarray) -> bytes:
    """The array's pickle as bytes."""
    return pickle.dumps(self, protocol=2)


install_methods({"tofile": _tofile, "dump": _dump, "dumps": _dumps})
