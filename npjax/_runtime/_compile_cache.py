"""The persistent XLA compilation cache npjax turns on at import.

Compiled programs are kept on disk, so a script's second and later runs load them instead of
compiling again. Where: ``$XDG_CACHE_HOME/npjax/xla`` (or ``~/.cache/npjax/xla``);
``NPJAX_CACHE_DIR=/path`` moves it and ``NPJAX_CACHE_DIR=off`` (or empty) turns it off. The
variable is read once, at import, like the other ``NPJAX_*`` variables. npjax only fills in a
default: a cache directory configured for JAX itself (``JAX_COMPILATION_CACHE_DIR`` or
``jax.config`` before import) is left as it is, with all of JAX's other cache settings.

The store is npjax's ``_disk_cache.DiskCache``, bounded by ``MAX_BYTES`` (least recently used
entries go first; ``JAX_COMPILATION_CACHE_MAX_SIZE`` overrides the bound, -1 for none), safe
for processes that share it. It is installed through JAX's internal hook; a JAX without that
hook gets no cache. Configuring touches no device and no file: the directory is created at
the first write.
"""

from __future__ import annotations

import os

import jax

MAX_BYTES = 2**30  # 1 GiB
_OFF = ("", "off", "0", "false", "no", "none")

# What import decided: the directory in use (None: npjax set none) and why.
state: dict[str, str | None] = {"dir": None, "reason": "not configured"}


def default_dir(environ: os._Environ | dict = os.environ) -> str:
    """The XDG cache directory for npjax's compiled programs."""
    base = environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # XDG: a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "npjax", "xla")


def _requested(environ: os._Environ | dict) -> str | None:
    """The directory ``NPJAX_CACHE_DIR`` asks for (the default when unset); None for off."""
    raw = environ.get("NPJAX_CACHE_DIR")
    if raw is None:
        return default_dir(environ)
    if raw.strip().lower() in _OFF:
        return None
    return os.path.abspath(os.path.expanduser(raw.strip()))


def _writable(path: str) -> bool:
    """Whether ``path`` exists as a writable directory or could be created."""
    while not os.path.exists(path):
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent
    return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)


def configure(environ: os._Environ | dict | None = None) -> str | None:
    """Point JAX's persistent compilation cache at npjax's directory unless the user
    configured one for JAX or turned it off; returns the directory in use (None: none set)."""
    environ = os.environ if environ is None else environ
    if jax.config.jax_compilation_cache_dir is not None:
        state.update(dir=None, reason="left to JAX: jax_compilation_cache_dir is set")
        return None
    if not jax.config.jax_enable_compilation_cache:
        state.update(dir=None, reason="off: jax_enable_compilation_cache is False")
        return None
    path = _requested(environ)
    if path is None:
        state.update(dir=None, reason="off: NPJAX_CACHE_DIR")
        return None
    if not _writable(path):
        state.update(dir=None, reason=f"off: {path} is not writable")
        return None
    raw = environ.get("JAX_COMPILATION_CACHE_MAX_SIZE", "").strip()
    max_bytes = int(raw) if raw.lstrip("-").isdigit() else MAX_BYTES
    if max_bytes == 0:  # JAX's meaning of 0: no caching
        state.update(dir=None, reason="off: JAX_COMPILATION_CACHE_MAX_SIZE=0")
        return None
    if not _install(path, max_bytes):
        state.update(dir=None, reason="off: this JAX has no hook for npjax's store")
        return None
    if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in environ:
        # npjax's kernels are small and compile in milliseconds: keep them all
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_compilation_cache_dir", path)
    state.update(dir=path, reason="on")
    return path


def _install(path: str, max_bytes: int) -> bool:
    """Make npjax's store JAX's persistent cache (JAX creates its own at the first compile
    unless one is there); False when this JAX lacks the hook or already has a store."""
    try:
        from jax._src import compilation_cache

        from npjax._runtime._disk_cache import DiskCache
    except ImportError:
        return False
    if getattr(compilation_cache, "_cache", False) is not None:
        return False
    compilation_cache._cache = DiskCache(path, max_bytes)
    return True
