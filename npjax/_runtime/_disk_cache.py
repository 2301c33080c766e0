"""The on-disk store behind npjax's persistent compilation cache.

JAX's own bounded store (``jax_compilation_cache_max_size``) rescans the whole directory and
reads a timestamp file per entry on every write, and writes in place under a file lock. npjax
keeps thousands of small programs, so that scan would soon cost more than the compiles it
saves. This store writes each entry to a temporary file and renames it into place (atomic:
a process sharing the directory sees a whole entry or none, with no lock), marks use by
touching the file's modification time, and counts the directory once per process, at its
first write, then trims the least recently used entries only when the bound is passed.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import tempfile
import time

from jax._src.compilation_cache_interface import CacheInterface

_SUFFIX = "-cache"  # the same file names as JAX's own store
_TMP = ".tmp-"
_TRIM_TO = 0.9  # trim to 90% of the bound, so trims are rare
_STALE_TMP_S = 3600.0  # a temporary file this old was left by a process that died

write_errors = [0]  # writes that failed (full disk, permissions): the entry is skipped


class DiskCache(CacheInterface):
    """Entries ``<key>-cache`` in ``path``; at most about ``max_bytes`` bytes (-1: no bound)."""

    def __init__(self, path: str, max_bytes: int) -> None:
        self._path = pathlib.Path(path)
        self.max_bytes = max_bytes
        self._size: int | None = None  # bytes of entries on disk, counted at the first write

    def get(self, key: str) -> bytes | None:
        """The entry's bytes, or None; a hit marks the entry as recently used."""
        file = self._path / (key + _SUFFIX)
        try:
            data = file.read_bytes()
        except OSError:  # absent, or trimmed by another process meanwhile
            return None
        with contextlib.suppress(OSError):
            os.utime(file)
        return data

    def put(self, key: str, value: bytes) -> None:
        """Store ``value`` under ``key`` (kept as it is when present), then trim if needed."""
        file = self._path / (key + _SUFFIX)
        if file.exists():
            return
        try:
            self._path.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self._path, prefix=_TMP)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(value)
                os.replace(tmp, file)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            write_errors[0] += 1
            return
        if self.max_bytes < 0:
            return
        if self._size is None:
            self._size = self.trim(self.max_bytes)
        else:
            self._size += len(value)
            if self._size > self.max_bytes:
                self._size = self.trim(int(self.max_bytes * _TRIM_TO))

    def trim(self, target: int) -> int:
        """Delete the least recently used entries until at most ``target`` bytes remain, and
        temporary files left by dead processes; returns the bytes that remain."""
        entries = []
        now = time.time()
        with os.scandir(self._path) as it:
            for entry in it:
                try:
                    stat = entry.stat()
                except OSError:
                    continue
                if entry.name.endswith(_SUFFIX):
                    entries.append((stat.st_mtime, stat.st_size, entry.path))
                elif entry.name.startswith(_TMP) and now - stat.st_mtime > _STALE_TMP_S:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
        total = sum(size for _, size, _ in entries)
        if total > target:
            for _, size, path in sorted(entries):
                with contextlib.suppress(OSError):
                    os.unlink(path)
                total -= size
                if total <= target:
                    break
        return total
