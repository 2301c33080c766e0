"""Lenses: how a view reads from and writes into its root owner's value.

A view holds its root owner and a lens, a tuple of steps. Each step maps a value to a smaller
or rearranged value (``get``) and can put a changed one back (``set``). Lenses compose by
concatenation, so a view of a view still points at the root. A whole lens is compiled once per
*structure* (the static part of its steps): positions of contiguous boxes are runtime values,
so ``a[i]`` in a loop over ``i`` reuses one compiled kernel.

Pure JAX: this module knows nothing about npjax arrays or policies.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


class Step:
    """One lens step. ``static`` is hashable and decides the compiled code; ``dynamic`` is
    runtime data (integer positions) passed to the compiled code."""

    __slots__ = ("dynamic", "static")
    readonly = False

    def __init__(self, static: tuple, dynamic: tuple = ()) -> None:
        self.static = static
        self.dynamic = dynamic

    def __hash__(self) -> int:
        return hash((type(self), self.static))

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.static == other.static  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self.static}{self.dynamic or ''}"

    def get(self, x: jax.Array, dyn: tuple) -> jax.Array:
        raise NotImplementedError

    def set(self, x: jax.Array, dyn: tuple, new: jax.Array) -> jax.Array:
        raise NotImplementedError


class Box(Step):
    """A contiguous block: ``static`` = block sizes, ``dynamic`` = start of each axis.

    Starts that are ints (not traced) and keep the block inside the array read as a static
    slice and write at 32-bit constant offsets (``_inside``); traced starts, or a block
    that XLA's clamping moves, as dynamic slices."""

    def get(self, x, dyn):
        starts = _inside(x.shape, dyn, self.static)
        if starts is not None:
            return lax.slice(x, starts, tuple(b + n for b, n in zip(starts, self.static)))
        return lax.dynamic_slice(x, dyn, self.static)

    def set(self, x, dyn, new):
        starts = _inside(x.shape, dyn, new.shape)
        if starts is not None and max(x.shape, default=0) < 2**31:
            dyn = tuple(np.int32(b) for b in starts)
        return lax.dynamic_update_slice(x, new.astype(x.dtype), dyn)


def _inside(shape: tuple, dyn: Any, sizes: tuple) -> tuple | None:
    """``dyn`` as Python ints when each is an int and the block of ``sizes`` starting there
    lies inside ``shape`` (so XLA's clamping of a dynamic slice would not move it)."""
    if len(dyn) != len(shape) or len(sizes) != len(shape):
        return None
    starts = []
    for b, n, d in zip(dyn, sizes, shape):
        if type(b) is not int and not isinstance(b, np.integer):
            return None
        b = int(b)
        if b < 0 or b + n > d:
            return None
        starts.append(b)
    return tuple(starts)


class Strided(Step):
    """Slices with steps: ``static`` = ((start, stop, step), ...) resolved for the shape."""

    def _index(self):
        return tuple(slice(b, e if e >= 0 else None, s) for b, e, s in self.static)

    def get(self, x, dyn):
        return x[self._index()]

    def set(self, x, dyn, new):
        return x.at[self._index()].set(new.astype(x.dtype))


class Reshape(Step):
    """``static`` = (old shape, new shape, order)."""

    def get(self, x, dyn):
        return jnp.reshape(x, self.static[1], order=self.static[2])

    def set(self, x, dyn, new):
        return jnp.reshape(new, self.static[0], order=self.static[2])


class Transpose(Step):
    """``static`` = axes permutation."""

    def get(self, x, dyn):
        return jnp.transpose(x, self.static)

    def set(self, x, dyn, new):
        inverse = [0] * len(self.static)
        for i, a in enumerate(self.static):
            inverse[a] = i
        return jnp.transpose(new, inverse)


class Real(Step):
    def get(self, x, dyn):
        return jnp.real(x)

    def set(self, x, dyn, new):
        return lax.complex(new.astype(jnp.real(x).dtype), jnp.imag(x)).astype(x.dtype)


class Imag(Step):
    def get(self, x, dyn):
        return jnp.imag(x)

    def set(self, x, dyn, new):
        return lax.complex(jnp.real(x), new.astype(jnp.real(x).dtype)).astype(x.dtype)


class Diagonal(Step):
    """Read-only, as NumPy's ``diagonal``: ``static`` = (offset, axis1, axis2)."""

    readonly = True

    def get(self, x, dyn):
        offset, a1, a2 = self.static
        return jnp.diagonal(x, offset, a1, a2)


class BroadcastTo(Step):
    """Read-only, as NumPy's ``broadcast_to``: ``static`` = target shape."""

    readonly = True

    def get(self, x, dyn):
        return jnp.broadcast_to(x, self.static)


class Bitcast(Step):
    """The same bytes seen as another dtype (``ndarray.view(dtype)``): ``static`` = (dtype of
    the array, dtype of the view). A different item size changes the length of the last axis
    (NumPy allows it only where that axis is contiguous; the layout checks that first)."""

    def get(self, x, dyn):
        return _recast(x, self.static[1])

    def set(self, x, dyn, new):
        return _recast(new.astype(self.static[1]), self.static[0])


def _recast(x: jax.Array, dtype: Any) -> jax.Array:
    """The bytes of ``x`` along its last axis read as ``dtype`` (0-d stays 0-d). Bytes other
    than 0 and 1 read as bool are True (NumPy keeps the byte itself)."""
    dtype = np.dtype(dtype)
    b = to_bytes(x.reshape(1) if x.ndim == 0 else x)
    b = b.reshape(b.shape[:-2] + (b.shape[-2] * b.shape[-1] // dtype.itemsize, dtype.itemsize))
    out = (b[..., 0] != 0) if dtype == np.bool_ else from_bytes(b, dtype)
    return out.reshape(()) if x.ndim == 0 else out


def to_bytes(x: jax.Array) -> jax.Array:
    """The little-endian bytes of each element: shape ``x.shape + (itemsize,)``, uint8."""
    if x.dtype.kind == "c":
        return jnp.concatenate([to_bytes(jnp.real(x)), to_bytes(jnp.imag(x))], axis=-1)
    if x.dtype == np.bool_:
        return x.astype(jnp.uint8)[..., None]
    if x.dtype.itemsize == 1:
        return lax.bitcast_convert_type(x, jnp.uint8)[..., None]
    return lax.bitcast_convert_type(x, jnp.uint8)


def from_bytes(b: jax.Array, dtype: Any) -> jax.Array:
    """Inverse of ``to_bytes`` (``b``'s last axis has ``dtype.itemsize`` bytes)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        half = dtype.itemsize // 2
        part = np.dtype(f"f{half}")
        return lax.complex(from_bytes(b[..., :half], part), from_bytes(b[..., half:], part))
    if dtype.itemsize == 1:
        return lax.bitcast_convert_type(b[..., 0], dtype)
    return lax.bitcast_convert_type(b, dtype)


Lens = tuple  # tuple[Step, ...]


def dynamic_args(lens: Lens) -> tuple:
    return tuple(step.dynamic for step in lens)


def apply_get(lens: Lens, root: jax.Array, dyns: tuple) -> jax.Array:
    for step, dyn in zip(lens, dyns):
        root = step.get(root, dyn)
    return root


def fit(new: jax.Array, shape: tuple, dtype: Any) -> jax.Array:
    """``new`` cast to ``dtype`` and broadcast to ``shape``, dropping extra leading 1s as
    NumPy's assignment does (shapes were checked on the host)."""
    new = jnp.asarray(new)
    extra = new.ndim - len(shape)
    if extra > 0:
        new = new.reshape(new.shape[extra:])
    if new.dtype != dtype:
        if jnp.issubdtype(new.dtype, jnp.complexfloating) and not jnp.issubdtype(
                dtype, jnp.complexfloating) and dtype != np.bool_:  # (to bool: nonzero)
            new = jnp.real(new)
        new = new.astype(dtype)
    return jnp.broadcast_to(new, shape)


def settled(x: jax.Array) -> jax.Array:
    """End of an update kernel: the new value behind an optimisation barrier.

    When an update is inlined into a larger program (npjax.jit, lazy mode) and its result has
    several users, XLA's CPU backend can duplicate the in-place dynamic-update-slice fusion
    into each user; the copies then update one shared buffer in turn, and a later copy reads
    what an earlier one wrote (``v = a[::2]; v += 1; a[1:] = a[:-1] * .5`` returned with a
    reshaped view of ``a`` gave a wrong element). The barrier gives the update one user.
    Not on a TPU: there it kept XLA from folding the update into its users (``Z[...] = 0``
    then a masked store: a full array written, copied and updated in every loop iteration,
    where ``jnp.zeros(..).at[..].set`` is one pad).
    """
    return lax.platform_dependent(x, tpu=lambda x: x, default=lax.optimization_barrier)


def apply_set(lens: Lens, root: jax.Array, dyns: tuple, new: jax.Array) -> jax.Array:
    """Put ``new`` through the lens into ``root``, returning the new root value."""
    if not lens:
        return fit(new, root.shape, root.dtype)
    step, rest = lens[0], lens[1:]
    if not rest and type(step) is Box:  # (no read of the old box: nothing else holds root)
        return step.set(root, dyns[0], fit(new, step.static, root.dtype))
    inner = step.get(root, dyns[0])
    return step.set(root, dyns[0], apply_set(rest, inner, dyns[1:], new))


def concrete(dyns: Any) -> bool:
    """Whether every position in ``dyns`` (a tuple, or a tuple of tuples) is an int."""
    for d in dyns:
        if type(d) is tuple:
            if not concrete(d):
                return False
        elif type(d) is not int and not isinstance(d, np.integer):
            return False
    return True


class Positional:
    """A compiled kernel ``(root, positions, *rest)`` of one lens structure, the positions
    runtime values (one program for every position). Called inside a larger trace (a traced
    root: npjax.jit, a lazy program, the user's jax.jit) with int positions, it is traced in
    place instead: its positions constants there, so a box reads as a static slice and
    writes at 32-bit constant offsets, where a nested call would compute 64-bit offsets at
    run time (normalising negative ones), which a TPU emulates in 32-bit words."""

    __slots__ = ("__name__", "__weakref__", "fn", "jitted")

    def __init__(self, fn: Any, **jit_options: Any) -> None:
        self.fn = fn
        self.jitted = jax.jit(fn, **jit_options)
        self.__name__ = getattr(fn, "__name__", "kernel")

    def __call__(self, root: Any, dyns: Any, *rest: Any) -> Any:
        if isinstance(root, jax.core.Tracer) and concrete(dyns):
            return self.fn(root, dyns, *rest)
        return self.jitted(root, dyns, *rest)


@functools.lru_cache(maxsize=2048)
def getter(lens: Lens):
    """Compiled ``(root, dyns) -> view value`` for one lens structure (``Positional``)."""
    def get(root, dyns):
        return apply_get(lens, root, dyns)

    return Positional(get)


def is_readonly(lens: Lens) -> bool:
    return any(step.readonly for step in lens)


def compose(lens: Lens, *steps: Any) -> Lens:
    """Append steps, merging consecutive reshapes (a reshape of a reshape is one reshape)."""
    out = list(lens)
    for step in steps:
        last = out[-1] if out else None
        if (isinstance(step, Reshape) and isinstance(last, Reshape)
                and last.static[2] == step.static[2]):
            out.pop()
            old = last.static[0]
            if old != step.static[1]:
                out.append(Reshape((old, step.static[1], step.static[2])))
            continue
        out.append(step)
    return tuple(out)


def same_trace(value: Any, root: Any) -> bool:
    """Whether ``value``, computed from ``root``, lives as long as ``root`` does: both
    computed, or traced by the same trace (a view caches only such values)."""
    if not isinstance(value, jax.core.Tracer):
        return True
    return isinstance(root, jax.core.Tracer) and value._trace is root._trace
