"""``npjax.ndarray``: a mutable handle on an immutable ``jax.Array``, with NumPy's views.

An *owner* holds ``_value`` (a ``jax.Array``). A *view* holds its root owner in ``_base`` and a
lens (``_views``) that reads its value from the root's and writes a changed value back. The
storage protocol: the constructors here (``ndarray._owner``, ``host_owner``, ``host_view``,
``lens_view``, ``as_class``) alone build an array object and ``_rebind`` alone changes an
owner's storage (``tests/test_storage_protocol.py``); the rest reads and writes values with
``_read`` and ``_write``, so there is never a second copy of the data to keep in sync.
``_layout`` is an uninitialised host NumPy array with the same shape, dtype and strides NumPy
would give this array (views are made by applying the same operation to it); it answers every
question about memory layout exactly as NumPy would: whether ``reshape`` can be a view,
``flags``, ``strides``, ``shares_memory``. Its pages are never touched.

A *host* array (placement, ``_placement/_route.py``) has a NumPy array as its root's ``_value``; its
``_layout`` is then that array or a real NumPy view of it (views are made the same way), so
NumPy itself keeps views aliased, and ``_host()`` hands the data to NumPy. ``_read`` gives a
device copy of it for code that computes with JAX; a host root never becomes a device one.

Members of a family are attached by its module (``install_methods``): element access and
``_write`` by ``_element_access.py``, operators by ``_operators.py``, pickling by
``_interop.py``, conversions (``__array__``, ``__repr__``, ``item``, ``astype``...) by
``_array_conversions.py``, the rest by theirs. This file holds the state, storage, properties
and views, and imports nothing above the core; axis arguments are checked by ``_axes.py``.
"""

from __future__ import annotations

import builtins
import gc
import math
import operator
import sys
import weakref
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from npjax._runtime import _stats
from npjax._core import _views
from npjax._core._array_base import ArrayBase
from npjax._core._flags import Flags
from npjax._core._device_copies import _sent, _to_device
from npjax._pure._dtypes import is_device_dtype
from npjax._pure._orders import order_code
from npjax._pure._axes import (axis_argument, diagonal_axes, integer, normalize_axes,
                              normalize_axis, ravel_is_view, reshape_target)
from npjax._core._executor import (Kernel, Lazy, concrete_if_done, recording, stored_part,
                                   view_source)


builtins_type = builtins.type
# The type of a host array's storage. An array is a host array exactly when its root's
# ``_value`` is a NumPy array; any other storage (a ``jax.Array``, a pending ``Lazy``, a
# tracer) is device storage. This name is npjax's one spelling of that question: code asks
# ``type(value) is HOST_STORAGE`` (``ndarray._host()`` answers it for a whole array), and
# tests/test_one_door.py fails on ``np.ndarray`` or another name used for it.
HOST_STORAGE = np.ndarray
_CONSTRUCTOR: list[Any] = []  # ``ndarray(shape...)``'s storage: ``_placement/_made.constructed``
# sys.getrefcount(self) inside ndarray.resize when only the caller's name refers to the array.
_RESIZE_REFS = 3


_real = Kernel(jax.jit(jnp.real))
_imag = Kernel(jax.jit(jnp.imag))


# Owners that only hold a padded value (``_window_reads``: id -> owner): an array seen as a
# view of one is a new array to the user, as NumPy's result would be (no base, owns its data).
PADDED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class ndarray(ArrayBase):
    """An N-dimensional array that behaves like ``numpy.ndarray`` and computes with JAX."""

    __slots__ = ("__weakref__", "_base", "_cache", "_layout", "_lens", "_mine", "_readonly",
                 "_root_shape", "_scalar", "_value", "_version")
    __array_priority__ = 100.0

    # --- state: set only by the constructors and ``_rebind`` below -------------------------
    # (``_hostpath.c`` reads these slots by name, and builds as ``host_owner``/``host_view``)
    _value: Any  # an owner's storage: jax.Array, pending Lazy, tracer, NumPy array; view: None
    _base: ndarray | None  # a view's root owner; None for an owner
    _lens: tuple | None  # a view's lens from the root (None: a view NumPy made of host data)
    _root_shape: tuple | None  # the root's shape when the view was made
    _layout: Any  # NumPy's layout for this array (np.ndarray), None until asked for
    _cache: Any  # a view: (root version, value); a host owner: its sent device copy
    _scalar: bool  # a NumPy scalar (immutable; views see a copy)
    _mine: bool  # the owner's buffer is its own (donatable)
    _readonly: bool
    _version: int  # moved on by ``_rebind``: views' caches are keyed by the root's

    # --- construction -------------------------------------------------------------------

    def __new__(cls, shape: Any, dtype: Any = float, buffer: Any = None, offset: int = 0,
                strides: Any = None, order: Any = None) -> ndarray:
        """A new array of zeros (NumPy leaves it uninitialised; objects are None), placed as
        any new array, or over ``buffer``'s memory (``_placement/_made.constructed``). A subclass
        instance gets ``__array_finalize__(None)``, as in NumPy; subclasses may define
        ``__new__`` and ``__init__`` of their own (``asarray(x).view(cls)`` works)."""
        self = object.__new__(cls)
        _set_owner(self, _CONSTRUCTOR[0](shape, dtype, buffer, offset, strides, order), False)
        if cls is not ndarray:
            self.__array_finalize__(None)
        return self

    @classmethod
    def _owner(cls, value: jax.Array | np.ndarray, scalar: bool = False) -> ndarray:
        """An owner of ``value``: a ``jax.Array`` (or pending ``Lazy``), or for a host array a
        NumPy array this object then owns."""
        self = object.__new__(cls)  # the hot constructor: every result is made here
        self._value = value
        self._root_shape = None
        self._base = None
        self._lens = ()
        self._layout = value if type(value) is HOST_STORAGE and not scalar else None
        self._cache = None
        self._scalar = scalar
        self._mine = False
        self._version = 0
        self._readonly = False
        return self

    def _host(self) -> np.ndarray | None:
        """The NumPy data of a host array (a view for a view), or None for a device array."""
        base = self._base
        if base is None:
            value = self._value
            return value if type(value) is HOST_STORAGE else None
        return self._layout if type(base._value) is HOST_STORAGE else None

    def _fetch(self) -> np.ndarray:
        """The current value on the host: a host array's data, or a device array's copy."""
        data = self._host()
        return _stats.fetch(self._read()) if data is None else data

    def _view(self, steps: tuple, layout: np.ndarray, readonly: bool = False) -> ndarray:
        """A view of ``self`` through more lens steps; ``layout`` is NumPy's layout for it."""
        src = self
        if src._scalar:  # NumPy scalars are immutable: views see a hidden array copy
            if type(src._value) is HOST_STORAGE:  # host: ``layout`` views a fresh copy
                src = ndarray._owner(layout if layout.base is None else layout.base)
            else:
                src = ndarray._owner(src._value)
                src._layout = self._layout
        root = src if src._base is None else src._base
        # A view NumPy made of a host array has no lens (None): NumPy keeps it aliased.
        return lens_view(root, None if src._lens is None else _views.compose(src._lens, *steps),
                         root._value.shape if src._base is None else src._root_shape, layout,
                         readonly or src._readonly)

    # --- storage: _read and _read_lazy read it, _rebind alone changes it ----------------

    def _read(self) -> jax.Array:
        """The current value as a ``jax.Array`` (pending lazy work is computed first)."""
        base = self._base
        if base is None:
            value = self._value
            if type(value) is Lazy:
                value = self._value = value.get()
            elif type(value) is HOST_STORAGE:
                return _sent(self, value)
            return value
        if type(base._value) is HOST_STORAGE:
            return _to_device(self._layout)
        cache = self._cache
        if cache is not None and cache[0] == base._version:
            value = cache[1]
            return value if type(value) is not Lazy else value.get()
        lens = self._full_lens()
        root = base._read()
        if not lens:  # no cache: it would hold the root's buffer and block its donation
            return root
        dyns = _views.dynamic_args(lens)
        if isinstance(root, jax.core.Tracer):
            # npjax.jit: the part just stored there, or read from the value before that store
            root, stored = view_source(self, root, lens, dyns)
            if stored and root.shape == self._layout.shape:
                self._cache = (base._version, root)
                return root
            if stored:
                root = base._value
        value = _views.getter(lens)(root, dyns)
        if _views.same_trace(value, root):  # (a value traced deeper, e.g. in a loop body that
            self._cache = (base._version, value)  # npjax.jit probes, would outlive it)
        return value

    def _read_lazy(self) -> Any:
        """The current value; in lazy mode possibly a pending ``_lazy.Lazy`` (view reads are
        then recorded too). Only code whose kernels are ``_lazy.Kernel`` may call this."""
        if self._host() is not None or not recording():
            return self._read()
        base = self._base
        if base is None:
            value = self._value
            if type(value) is Lazy and value.value is not None:
                value = self._value = value.value
            return value
        cache = self._cache
        if cache is not None and cache[0] == base._version:
            return concrete_if_done(cache[1])
        lens = self._full_lens()
        root = base._read_lazy()
        if not lens:
            return root
        dyns = _views.dynamic_args(lens)
        # the value a pending store just put in this very part, else a recorded read
        value = stored_part(root, ("view", lens), dyns, self.shape, self.dtype)
        value = Kernel(_views.getter(lens))(root, dyns) if value is None else value
        if _views.same_trace(value, root):  # (as ``_read``: not a value traced deeper)
            self._cache = (base._version, value)
        return value

    def _rebind(self, value: Any, mine: bool | None = None, *, bump: bool = True,
                clear: bool = False) -> None:
        """The one way to change an owner's storage: ``value`` becomes its value (the same
        object after NumPy wrote a host array's memory in place). ``mine``: whether the buffer
        is the array's own (donatable); None leaves it. ``bump``: the version moves on, so
        views read again (not for a value that only replaces one stored under this version:
        ``_store_merge``). ``clear``: a cached device copy goes too (a restored value)."""
        self._value = value
        if mine is not None:
            self._mine = mine
        if bump:
            self._version += 1
        if clear:
            self._cache = None

    def _full_lens(self) -> tuple:
        """The lens from the root's current value (the root's shape may have been set since
        this view was made: ``root.shape = ...`` or ``resize``)."""
        now = self._base._value.shape
        if now == self._root_shape:
            return self._lens
        return _views.compose((_views.Reshape((now, self._root_shape, "C")),), *self._lens)

    def _layout_array(self) -> np.ndarray:
        layout = self._layout
        if layout is None:
            value = self._value
            if type(value) is HOST_STORAGE:  # a host scalar: views of it see a copy
                return value.copy()
            layout = self._layout = np.empty(value.shape, value.dtype)
        return layout

    # --- properties ---------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        if self._base is None:
            return self._value.shape
        return self._layout.shape

    @shape.setter
    def shape(self, new: Any) -> None:
        if self._scalar:
            raise AttributeError("attribute 'shape' of numpy scalars is not writable")
        new_shape = reshape_target(self.size, new)
        data = self._host()
        if data is not None:  # NumPy reshapes its array in place (views keep theirs)
            data.shape = new_shape
            return
        try:
            layout = np.reshape(self._layout_array(), new_shape, copy=False)
        except ValueError:
            raise AttributeError("Incompatible shape for in-place modification. Use "
                                 "`.reshape()` to make a copy with the desired shape.") from None
        if self._base is None:
            # Views made before keep their lens: _full_lens maps the new root shape back.
            self._rebind(self._value.reshape(new_shape), False)
            self._layout = layout
        else:
            reshaped = self.reshape(new_shape)
            self._lens, self._layout, self._cache = reshaped._lens, reshaped._layout, None

    @property
    def dtype(self) -> np.dtype:
        if self._base is None:
            return self._value.dtype
        return self._layout.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        return self._layout_array().strides

    @property
    def base(self) -> Any:
        base = self._base
        if base is None:  # an owner; over a foreign buffer (frombuffer(b)): that, as NumPy's
            value = self._value
            b = value.base if type(value) is HOST_STORAGE else None
            return None if b is None or isinstance(b, np.ndarray) else b
        return None if PADDED.get(id(base)) is base else base

    @property
    def flags(self) -> Flags:
        return Flags(self)

    @property
    def device(self) -> Any:
        if self._host() is not None:  # where it would go: JAX's default device
            return jax.devices()[0]
        return self._read().device

    @property
    def sharding(self) -> Any:
        if self._host() is not None:
            return jax.sharding.SingleDeviceSharding(jax.devices()[0])
        return self._read().sharding

    def devices(self) -> set:
        return self.sharding.device_set

    # --- Python protocol ----------------------------------------------------------------

    def __len__(self) -> int:
        shape = self.shape
        if not shape:
            raise TypeError("len() of unsized object")
        return shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        data = self._host()
        if data is not None:  # NumPy's scalars for a vector
            return iter(data) if self.ndim == 1 else (self[i] for i in range(self.shape[0]))
        if self.ndim == 1:  # one transfer, then NumPy scalars-as-0-d arrays
            return iter([ndarray._owner(v, True) for v in self._read()])
        return (self[i] for i in range(self.shape[0]))

    def __hash__(self) -> int:
        if self.ndim == 0 and self._scalar:
            return hash(self._host_scalar())
        raise TypeError("unhashable type: 'numpy.ndarray'")

    def __copy__(self) -> ndarray:
        return self.copy()

    def __deepcopy__(self, memo: Any) -> ndarray:
        return self.copy()

    # --- elements -----------------------------------------------------------------------

    def _order(self, order: Any) -> str:
        """'C' or 'F': NumPy's memory order for ``order`` in {'C','F','A','K',None}."""
        order = order_code(order, "K")
        if order in ("A", "K"):
            flags = self._layout_array().flags
            return "F" if flags.f_contiguous and not flags.c_contiguous else "C"
        return order

    def _new_owner(self, value: jax.Array, order: str) -> ndarray:
        out = ndarray._owner(value, self._scalar)
        if order == "F" and value.ndim > 1:
            out._layout = np.empty(value.shape, value.dtype, order="F")
        return out

    def copy(self, order: str = "C") -> ndarray:
        """npjax implementation of ``numpy.ndarray.copy``.

        Differences from NumPy: order 'K' gives a C or F layout (never a permuted one).
        """
        order = order_code(order)
        data = self._host()
        if data is not None:
            if order == "C" and not self._scalar:  # the default: no order to work out
                return host_owner(data.copy())
            return ndarray._owner(data.copy(self._order(order)), self._scalar)
        # jax.Array values are immutable, so a copy can share the buffer: the first write to
        # either array makes a new one (writes never donate a buffer another object holds).
        return self._new_owner(self._read_lazy(), self._order(order))

    def resize(self, *new_shape: Any, refcheck: bool = True) -> None:
        """npjax implementation of ``numpy.ndarray.resize`` (in place, zero-filled).

        As NumPy, only an array that owns its data can be resized, and with ``refcheck``
        only when nothing else refers to it. The reference check is NumPy's own rule applied
        to the Python object: every view holds its root, so a live view (or another name for
        the array) makes the count too high and ``ValueError`` is raised, as NumPy does.
        """
        import jax.numpy as jnp

        if len(new_shape) == 1 and not isinstance(new_shape[0], int | np.integer):
            new_shape = new_shape[0]
        if new_shape is None or new_shape == ():
            return
        shape = (new_shape,) if isinstance(new_shape, int | np.integer) else tuple(new_shape)
        shape = tuple(operator.index(n) for n in shape)
        if any(n < 0 for n in shape):
            raise ValueError("negative dimensions not allowed")
        if self._base is not None or self._scalar:
            raise ValueError("cannot resize this array: it does not own its data")
        size = int(np.prod(shape, dtype=np.int64))
        # References: the caller's name, this frame's ``self``, getrefcount's argument.
        if refcheck and size != self.size and sys.getrefcount(self) > _RESIZE_REFS:
            raise ValueError("cannot resize an array that references or is referenced\n"
                             "by another object in this way.\nUse the np.resize function "
                             "to get a new resized copy or\n set refcheck=False to disable "
                             "this check")
        if type(self._value) is HOST_STORAGE:  # NumPy's own resize (references checked above)
            data = self._value
            if data.base is not None:  # (memory npjax.jit aligned: a view of its buffer)
                self._value = data.copy()
                if self._layout is data:
                    self._layout = self._value
            self._value.resize(shape, refcheck=False)
            self._version += 1
            return
        flat = self._value.reshape(-1)
        if size <= flat.size:
            flat = flat[:size]
        else:
            flat = jnp.concatenate([flat, jnp.zeros(size - flat.size, flat.dtype)])
        self._value = flat.reshape(shape)
        self._mine = False
        self._layout = None
        self._version += 1

    def setflags(self, write: Any = None, align: Any = None, uic: Any = None) -> None:
        """npjax implementation of ``numpy.ndarray.setflags`` (only ``write`` has a meaning)."""
        if uic is not None:
            raise ValueError("cannot set WRITEBACKIFCOPY flag to True")
        if write is not None:
            self.flags.writeable = bool(write)

    # --- views --------------------------------------------------------------------------

    def view(self, dtype: Any = None, type: Any = None) -> ndarray:
        """npjax implementation of ``numpy.ndarray.view``: the same data, or the same bytes
        seen as another numeric dtype (a view: writes through it change this array), as
        ``type`` (a subclass of ``npjax.ndarray``; ``type(self)`` by default: NumPy's rules,
        ``__array_finalize__(self)`` called, see ``_subclasses``).

        A host array's view is NumPy's own (every dtype). Differences from NumPy, on the
        device: viewing bytes other than 0 and 1 as bool gives True (NumPy keeps the byte);
        host-only dtypes (structured, strings, datetimes) are not supported there.
        """
        if self._scalar and dtype is None and type is None:  # NumPy scalars: a scalar
            return ndarray._owner(self._value, True)
        if isinstance(dtype, builtins_type) and issubclass(dtype, np.ndarray | ndarray) \
                and type is None:
            dtype, type = None, dtype
        if type is not None and not (isinstance(type, builtins_type)
                                     and issubclass(type, ndarray)):
            if isinstance(type, builtins_type) and issubclass(type, np.ndarray):
                data = self._host()
                if data is not None and not self._scalar and not is_device_dtype(data.dtype):
                    # host-only data (``recarray``, ``chararray``): NumPy's view of its memory
                    return data.view(type) if dtype is None else data.view(dtype, type)
                raise NotImplementedError(
                    f"npjax.ndarray.view: an npjax array cannot be seen as {type.__name__} "
                    "(a NumPy class); np.asarray(a).view(...) views a host copy")
            raise TypeError("Type must be a sub-type of ndarray type")
        if dtype is not None and np.dtype(dtype) != self.dtype:
            out = self._bitcast_view(np.dtype(dtype))
        else:
            out = self._view((), self._layout_array()[...])
        target = builtins_type(self) if type is None else type
        if target is ndarray or out._scalar:
            return out
        from npjax._core._subclasses import as_subclass

        return as_subclass(out, target, self)

    def _bitcast_view(self, new: np.dtype) -> ndarray:
        data = self._host()
        if data is not None and not self._scalar:  # NumPy's own view (any dtype, its errors)
            return host_view(self if self._base is None else self._base, data.view(new))
        if not is_device_dtype(new):
            raise NotImplementedError(f"npjax.ndarray.view: dtype {new}: {jax.default_backend()}"
                                      " holds no such array (np.asarray(a).view() views a copy)")
        new = np.dtype(new.str) if new.kind in "iu" else new
        layout = self._layout_array().view(new)  # NumPy's shape rules and errors
        step = _views.Bitcast((self.dtype, new))
        if self._scalar:  # NumPy scalars: a scalar of the new type
            return ndarray._owner(_views.getter((step,))(self._value, ((),)), True)
        return self._view((step,), layout)

    def transpose(self, *axes: Any) -> ndarray:
        """npjax implementation of ``numpy.ndarray.transpose`` (a view)."""
        if self._scalar and not any(a not in (None, ()) for a in axes):
            return ndarray._owner(self._value, True)  # NumPy scalars: a scalar
        given = len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int | np.integer))
        if given:
            axes = axes[0]
        ndim = self.ndim
        if axes is None or (type(axes) is tuple and not axes and not given):  # (given: ndim)
            perm = tuple(range(ndim))[::-1]
        else:
            if len(axes) != ndim:
                raise ValueError("axes don't match array")
            picked: list[int] = []
            for a in axes:  # NumPy: left to right, a repeat is found before a later bad axis
                ax = normalize_axis(integer(a), ndim)
                if ax in picked:
                    raise ValueError("repeated axis in transpose")
                picked.append(ax)
            perm = tuple(picked)
        layout = self._layout_array().transpose(perm)
        if perm == tuple(range(ndim)):
            return self._view((), layout)
        return self._view((_views.Transpose(perm),), layout)

    @property
    def T(self) -> ndarray:
        if self._scalar:
            return self
        data = self._host()
        if data is not None:  # NumPy's view, as ``__getitem__`` makes them
            root = self if self._base is None else self._base
            view = data.T
            if view.base is root._value:
                return host_view(root, view)
        return self.transpose()

    @property
    def mT(self) -> ndarray:
        if self.ndim < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        return self.swapaxes(-1, -2)

    def swapaxes(self, axis1: int, axis2: int) -> ndarray:
        ndim = self.ndim
        a1, a2 = normalize_axis(axis1, ndim), normalize_axis(axis2, ndim)
        perm = list(range(ndim))
        perm[a1], perm[a2] = perm[a2], perm[a1]
        return self.transpose(perm)

    def reshape(self, *shape: Any, order: str = "C", copy: bool | None = None) -> ndarray:
        """npjax implementation of ``numpy.ndarray.reshape``: a view where NumPy gives one."""
        if len(shape) == 1 and not isinstance(shape[0], int | np.integer):
            shape = shape[0]
        if (order := order_code(order)) == "K":
            raise ValueError("order 'K' is not permitted for reshaping")
        if order == "A":
            order = "F" if self.flags.f_contiguous and not self.flags.c_contiguous else "C"
        new_shape = reshape_target(self.size, shape)
        spec = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
        return self._reshape(new_shape, order, copy, False, tuple(map(operator.index, spec)))

    def _reshape(self, new_shape: tuple, order: str, copy: bool | None, own: bool,
                 spec: tuple | None = None) -> ndarray:
        """Reshape; a needed copy is an owner when ``own`` (ravel, flatten), else a view of
        a hidden owner as in NumPy (``base`` set, ``owndata`` False)."""
        layout = None
        if self._scalar and new_shape == ():
            return ndarray._owner(self._value, True)  # NumPy scalars: a scalar
        if copy is not True:
            try:
                # NumPy's strides differ with the spelling (-1) for empty arrays: pass it on
                layout = np.reshape(self._layout_array(), spec or new_shape, order=order,
                                    copy=False)
            except ValueError:
                if copy is False:
                    raise ValueError("Unable to avoid creating a copy while reshaping.") \
                        from None
        data = self._host()
        if layout is None and data is not None:  # NumPy's copy (a view of it unless ``own``)
            if own:
                return ndarray._owner(data.flatten(order))
            return from_numpy(np.reshape(data, spec or new_shape, order=order), (self,))
        if layout is None:
            value = _views.Reshape((self.shape, new_shape, order)).get(self._read(), ())
            out = ndarray._owner(value)
            if own:
                return out
            # NumPy copies in ``order`` and returns a view of the copy: same strides here.
            out._layout = np.reshape(np.empty(self.shape, self.dtype, order=order), new_shape,
                                     order=order)
            return out._view((), out._layout[...])
        if new_shape == self.shape:
            return self._view((), layout)
        return self._view((_views.Reshape((self.shape, new_shape, order)),), layout)

    def ravel(self, order: str = "C") -> ndarray:
        """npjax implementation of ``numpy.ndarray.ravel``: a view where NumPy gives one
        (NumPy's own ``ravel`` of the layout decides, and gives the view's strides)."""
        order = order_code(order)
        source, mem = self, order
        if order == "K" and self.ndim > 1 and not (self.flags.c_contiguous
                                                    or self.flags.f_contiguous):
            # Memory order: axes by decreasing stride size (NumPy keeps negative strides).
            strides = self.strides
            source = self.transpose(sorted(range(self.ndim), key=lambda i: -abs(strides[i])))
            mem = "C"
        elif order in ("A", "K"):
            mem = self._order(order)
        if not ravel_is_view(self._layout_array(), order):  # NumPy copies: an owner
            return source._reshape((self.size,), mem, True, True)
        layout = np.ravel(self._layout_array(), order=order)  # a view: no data is copied
        if source.shape == (self.size,):
            return source._view((), layout)
        return source._view((_views.Reshape((source.shape, (self.size,), mem)),), layout)

    def flatten(self, order: str = "C") -> ndarray:
        """npjax implementation of ``numpy.ndarray.flatten`` (always a copy)."""
        order = order_code(order)
        return self._reshape((self.size,), self._order(order) if order in "AK" else order,
                             True, True)

    def squeeze(self, axis: Any = None) -> ndarray:
        shape = self.shape
        axis_argument(axis, tuples=True)  # NumPy's C reading: no booleans
        if not shape and axis is not None and not isinstance(axis, tuple | list):
            normalize_axis(axis, 1)  # NumPy accepts an int axis 0 or -1 for a 0-d array
            return self
        if axis is None:
            drop = {i for i, n in enumerate(shape) if n == 1}
        else:
            drop = set(normalize_axes(axis, len(shape)))
            if any(shape[i] != 1 for i in drop):
                raise ValueError("cannot select an axis to squeeze out which has size "
                                 "not equal to one")
        if not drop:
            return self  # NumPy returns the array itself when there is nothing to squeeze
        layout = self._layout_array().squeeze(tuple(sorted(drop)))
        return self._view((_views.Reshape((shape, layout.shape, "C")),), layout)

    def _expand_dims(self, axis: Any) -> ndarray:
        ndim = self.ndim + len(axis if isinstance(axis, tuple | list) else (axis,))
        axes = set(normalize_axes(axis, ndim))
        layout = np.expand_dims(self._layout_array(), tuple(sorted(axes)))
        return self._view((_views.Reshape((self.shape, layout.shape, "C")),), layout)

    @property
    def real(self) -> ndarray:
        if self.dtype.kind != "c":
            return self
        if self._scalar:
            return ndarray._owner(_real(self._value), True)
        return self._view((_views.Real(()),), self._layout_array().real)

    @real.setter
    def real(self, value: Any) -> None:
        self.real[...] = value

    @property
    def imag(self) -> ndarray:
        if self._scalar:
            return ndarray._owner(_imag(self._value), True)
        if self.dtype.kind != "c":  # read-only zeros where the array lives (float64 on a
            xp = np if self._host() is not None else jnp  # TPU: never made on the device)
            out = ndarray._owner(xp.zeros(self.shape, self.dtype))
            out.flags.writeable = False
            return out
        return self._view((_views.Imag(()),), self._layout_array().imag)

    @imag.setter
    def imag(self, value: Any) -> None:
        if self.dtype.kind != "c":
            raise TypeError("array does not have imaginary part to set")
        self.imag[...] = value

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> ndarray:
        a1, a2 = diagonal_axes(self.ndim, axis1, axis2)
        layout = self._layout_array().diagonal(offset, a1, a2)
        return self._view((_views.Diagonal((int(offset), a1, a2)),), layout, readonly=True)

    def _broadcast_to(self, shape: tuple[int, ...]) -> ndarray:
        layout = np.broadcast_to(self._layout_array(), shape)
        if shape == self.shape:
            return self._view((), layout, readonly=True)
        return self._view((_views.BroadcastTo(shape),), layout, readonly=True)


def install_methods(table: dict[str, Any]) -> None:
    """Attach public functions as ``ndarray`` methods (their first parameter is the array)."""
    for name, fn in table.items():
        setattr(ndarray, name, fn)


def from_numpy(result: Any, inputs: tuple = ()) -> Any:
    """NumPy's result as host npjax arrays (tuples and lists item by item; anything else,
    NumPy's scalars included, as it is: a host computation's scalar is NumPy's own).
    ``inputs``: the npjax arrays NumPy was given (as their data). An array that views an
    input's memory becomes a view of that input's root, so ``base``, ``flags`` and aliasing
    stay NumPy's."""
    kind = type(result)
    if kind is np.ndarray:
        for x in inputs:  # NumPy gave back an operand (``out=``): that very array
            if (x._value if x._base is None else x._layout) is result:
                return x
        base = result.base
        if base is None:
            return ndarray._owner(result)
        root = None
        for x in inputs:
            r = x if x._base is None else x._base
            value = r._value
            if value is base or (type(value) is HOST_STORAGE and value.base is base):
                root = r
                break
        if root is None:
            if type(base) is not np.ndarray or base.base is not None:
                return ndarray._owner(result)  # memory of a non-array object: an owner
            root = ndarray._owner(base)  # a view of a copy NumPy made
        return host_view(root, result)
    if kind is tuple or kind is list:
        return kind(from_numpy(r, inputs) for r in result)
    if isinstance(result, tuple):  # named tuples (unique_all, slogdet...)
        return kind(*(from_numpy(r, inputs) for r in result))
    return result


def host_owner(data: np.ndarray) -> ndarray:
    """``ndarray._owner(data)`` for a NumPy array that is not a scalar's: the constructor of
    the host route's hot paths (no method binding, no checks)."""
    self = _new_object(ndarray)
    self._value = self._layout = data
    self._root_shape = self._base = self._cache = None
    self._lens = ()
    self._scalar = self._mine = self._readonly = False
    self._version = 0
    return self


_new_object = object.__new__


def lens_view(root: ndarray, lens: tuple | None, root_shape: tuple | None, layout: Any,
              readonly: bool) -> ndarray:
    """A view of the owner ``root`` through ``lens`` (its full lens from the root's value of
    shape ``root_shape``; None: a view NumPy made of host data), ``layout`` NumPy's for it."""
    view = _new_object(ndarray)
    view._base = root
    view._lens = lens
    view._root_shape = root_shape
    view._value = view._cache = None
    view._layout = layout
    view._scalar = view._mine = False
    view._version = 0
    view._readonly = readonly
    return view


def as_class(x: ndarray, cls: type) -> ndarray:
    """The storage of ``x`` (a new result nothing else holds) in a new object of ``cls``, a
    subclass: the same storage, not its own buffer, and a 0-d array for a scalar (NumPy gives
    subclasses 0-d arrays, never scalars)."""
    new = _new_object(cls)
    for name in _STATE:
        setattr(new, name, getattr(x, name))
    new._mine = False
    if new._scalar:
        new._scalar = False
        if type(new._value) is HOST_STORAGE:
            new._layout = new._value
    return new


def host_view(root: ndarray, data: np.ndarray) -> ndarray:
    """A view NumPy made (``data``) of the host array ``root``: NumPy keeps it aliased and
    checks writes to it, so it has no lens (None) and no flags of its own."""
    view = _new_object(ndarray)  # (the hot view constructor: a[1:-1] of a host array)
    view._base = root
    view._lens = view._root_shape = view._value = view._cache = None
    view._layout = data
    view._scalar = view._mine = view._readonly = False
    view._version = 0
    return view


def detach_views(root: ndarray) -> None:
    """Give views of ``root`` a hidden owner of the current value (NumPy's views keep the old
    buffer when ``__setstate__`` gives the array a new one)."""
    views = [] if root._base is not None else [
        v for v in gc.get_referrers(root) if isinstance(v, ndarray) and v._base is root]
    if views:
        old = ndarray._owner(root._read())
        old._layout, old._readonly = root._layout, root._readonly
        for v in views:
            v._base, v._cache = old, None


def _set_owner(self: ndarray, value: jax.Array, scalar: bool) -> None:
    """Make ``self`` (an object ``__init__`` or ``__setstate__`` fills) an owner of ``value``."""
    made = ndarray._owner(value, scalar)
    for name in _STATE:
        setattr(self, name, getattr(made, name))


_STATE = tuple(name for name in ndarray.__slots__ if name != "__weakref__")
