"""``npjax.ndarray``: a mutable handle on an immutable ``jax.Array``, with NumPy's views.

An *owner* holds ``_value`` (a ``jax.Array``). A *view* holds its root owner in ``_base`` and a
lens (``_views``) that reads its value from the root's and writes a changed value back. Only
``_read`` and ``_write`` touch storage, so there is never a second copy of the data to keep in
sync. ``_layout`` is an uninitialised host NumPy array with the same shape, dtype and strides
NumPy would give this array (views are made by applying the same operation to it); it answers
every question about memory layout exactly as NumPy would: whether ``reshape`` can be a view,
``flags``, ``strides``, ``shares_memory``. Its pages are never touched.

Methods and operators that are regular (ufunc dunders, reductions) are attached from tables
by ``_methods.py``; this file holds the state and the hand-written parts.
"""

from __future__ import annotations

import operator
from typing import Any

import jax
import numpy as np

from npjax import _views
from npjax._errors import AxisError


class Flags:
    """The subset of ``ndarray.flags`` that has a meaning here."""

    __slots__ = ("_array",)

    def __init__(self, array: ndarray) -> None:
        self._array = array

    @property
    def writeable(self) -> bool:
        return not self._array._readonly

    @writeable.setter
    def writeable(self, value: bool) -> None:
        a = self._array
        if value and a._base is not None and _views.is_readonly(a._lens):
            raise ValueError("cannot set WRITEABLE flag to True of this array")
        a._readonly = not value

    @property
    def owndata(self) -> bool:
        return self._array._base is None

    @property
    def c_contiguous(self) -> bool:
        return bool(self._array._layout_array().flags.c_contiguous)

    @property
    def f_contiguous(self) -> bool:
        return bool(self._array._layout_array().flags.f_contiguous)

    contiguous = c_contiguous

    def __getitem__(self, key: str) -> bool:
        names = {"WRITEABLE": "writeable", "W": "writeable", "OWNDATA": "owndata",
                 "O": "owndata", "C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous",
                 "CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous",
                 "F": "f_contiguous", "FORTRAN": "f_contiguous"}
        return getattr(self, names[key.upper()])

    def __repr__(self) -> str:
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n"
                f"  OWNDATA : {self.owndata}\n  WRITEABLE : {self.writeable}")


class ndarray:
    """An N-dimensional array that behaves like ``numpy.ndarray`` and computes with JAX."""

    __slots__ = ("__weakref__", "_base", "_cache", "_layout", "_lens", "_mine", "_readonly",
                 "_scalar", "_value", "_version")
    __array_priority__ = 100.0

    # --- construction -------------------------------------------------------------------

    def __init__(self, shape: Any, dtype: Any = float, buffer: Any = None, offset: int = 0,
                 strides: Any = None, order: Any = None) -> None:
        if buffer is not None or strides is not None or offset:
            raise NotImplementedError(
                "npjax.ndarray: 'buffer', 'offset' and 'strides' are not supported")
        import jax.numpy as jnp

        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        _set_owner(self, jnp.zeros(shape, np.dtype(dtype)), False)

    @classmethod
    def _owner(cls, value: jax.Array, scalar: bool = False) -> ndarray:
        self = object.__new__(cls)
        _set_owner(self, value, scalar)
        return self

    def _view(self, steps: tuple, layout: np.ndarray, readonly: bool = False) -> ndarray:
        """A view of ``self`` through more lens steps; ``layout`` is NumPy's layout for it."""
        view = object.__new__(ndarray)
        root = self if self._base is None else self._base
        view._base = root
        view._lens = _views.compose(self._lens, *steps)
        view._value = None
        view._layout = layout
        view._cache = None
        view._scalar = False
        view._mine = False
        view._version = 0
        view._readonly = readonly or self._readonly
        return view

    # --- storage: the only two places that touch _value ----------------------------------

    def _read(self) -> jax.Array:
        base = self._base
        if base is None:
            return self._value
        cache = self._cache
        if cache is not None and cache[0] == base._version:
            return cache[1]
        value = _views.read(self._lens, base._value) if self._lens else base._value
        self._cache = (base._version, value)
        return value

    def _write(self, new: jax.Array) -> None:
        """Replace this array's value (already of this shape and dtype) everywhere it shows."""
        if self._readonly:
            raise ValueError("assignment destination is read-only")
        from npjax import _indexing

        _indexing.write_through(self, (), new)

    def _layout_array(self) -> np.ndarray:
        layout = self._layout
        if layout is None:
            value = self._value
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
        reshaped = self.reshape(new)
        if reshaped._base is None or reshaped._base is not (self._base or self):
            raise AttributeError("Incompatible shape for in-place modification. "
                                 "Use `.reshape()` to make a copy with the desired shape.")
        if self._base is None:
            self._value = self._value.reshape(reshaped.shape)
            self._layout = None
            self._version += 1
        else:
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
        return int(np.prod(self.shape, dtype=np.int64))

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
    def base(self) -> ndarray | None:
        return self._base

    @property
    def flags(self) -> Flags:
        return Flags(self)

    @property
    def device(self) -> Any:
        return self._read().device

    @property
    def sharding(self) -> Any:
        return self._read().sharding

    def devices(self) -> set:
        return self._read().devices()

    # --- Python protocol ----------------------------------------------------------------

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if copy is False:
            raise ValueError("npjax.ndarray.__array__: a host copy is always needed "
                             "(copy=False is impossible for device arrays)")
        host = np.array(self._read())
        if dtype is not None:
            host = host.astype(dtype, copy=False)
        return host

    def _host_scalar(self) -> Any:
        """The NumPy scalar this 0-d array stands for."""
        return np.asarray(self._read())[()]

    def __repr__(self) -> str:
        if self._scalar:
            return repr(self._host_scalar())
        return repr(np.asarray(self._read()))

    def __str__(self) -> str:
        if self._scalar:
            return str(self._host_scalar())
        return str(np.asarray(self._read()))

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self._host_scalar(), spec)
        return format(np.asarray(self._read()), spec)

    def __len__(self) -> int:
        shape = self.shape
        if not shape:
            raise TypeError("len() of unsized object")
        return shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        if self.ndim == 1:  # one transfer, then NumPy scalars-as-0-d arrays
            return iter([ndarray._owner(v, True) for v in self._read()])
        return (self[i] for i in range(self.shape[0]))

    def _scalar_for_python(self, what: str) -> Any:
        if self.size != 1:
            if self.size == 0 and what == "bool":
                raise ValueError("The truth value of an empty array is ambiguous. "
                                 "Use `array.size > 0` to check that an array is not empty.")
            if what == "bool":
                raise ValueError("The truth value of an array with more than one element is "
                                 "ambiguous. Use a.any() or a.all()")
            raise TypeError("only length-1 arrays can be converted to Python scalars")
        if self.ndim > 0 and what != "bool":
            raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        return np.asarray(self._read()).reshape(())[()]

    def __bool__(self) -> bool:
        return bool(self._scalar_for_python("bool"))

    def __float__(self) -> float:
        return float(self._scalar_for_python("float"))

    def __int__(self) -> int:
        return int(self._scalar_for_python("int"))

    def __complex__(self) -> complex:
        return complex(self._scalar_for_python("complex"))

    def __index__(self) -> int:
        if self.ndim != 0 or self.dtype.kind not in "iub":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return operator.index(self._host_scalar())

    def __hash__(self) -> int:
        if self.ndim == 0 and self._scalar:
            return hash(self._host_scalar())
        raise TypeError("unhashable type: 'numpy.ndarray'")

    def __reduce__(self):
        return (_from_host, (np.asarray(self._read()), self._scalar))

    def __copy__(self) -> ndarray:
        return self.copy()

    def __deepcopy__(self, memo: Any) -> ndarray:
        return self.copy()

    def __jax_array__(self) -> jax.Array:
        return self._read()

    # --- elements -----------------------------------------------------------------------

    def __getitem__(self, index: Any) -> ndarray:
        from npjax import _indexing

        return _indexing.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        from npjax import _indexing

        _indexing.setitem(self, index, value)

    def item(self, *args: Any) -> Any:
        if not args:
            if self.size != 1:
                raise ValueError("can only convert an array of size 1 to a Python scalar")
            return np.asarray(self._read()).item()
        return np.asarray(self._read()).item(*args)

    def tolist(self) -> Any:
        return np.asarray(self._read()).tolist()

    def tobytes(self, order: str = "C") -> bytes:
        return np.asarray(self._read()).tobytes(order)

    def copy(self, order: str = "K") -> ndarray:
        # jax.Array values are immutable, so a copy can share the buffer: the first write to
        # either array makes a new one (writes never donate a buffer another object holds).
        return ndarray._owner(self._read())

    def to_jax(self) -> jax.Array:
        """The current value as a ``jax.Array`` (no copy)."""
        return self._read()

    # --- views --------------------------------------------------------------------------

    def view(self, dtype: Any = None, type: Any = None) -> ndarray:
        if type is not None or (dtype is not None and np.dtype(dtype) != self.dtype):
            raise NotImplementedError("npjax.ndarray.view: reinterpreting the dtype or type "
                                      "is not supported")
        return self._view((), self._layout_array()[...])

    def transpose(self, *axes: Any) -> ndarray:
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int | np.integer)):
            axes = axes[0]
        ndim = self.ndim
        if axes is None or axes == ():
            perm = tuple(range(ndim))[::-1]
        else:
            if len(axes) != ndim:
                raise ValueError("axes don't match array")
            perm = tuple(normalize_axis(operator.index(a), ndim) for a in axes)
            if len(set(perm)) != ndim:
                raise ValueError("repeated axis in transpose")
        layout = self._layout_array().transpose(perm)
        if perm == tuple(range(ndim)):
            return self._view((), layout)
        return self._view((_views.Transpose(perm),), layout)

    @property
    def T(self) -> ndarray:
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
        if len(shape) == 1 and not isinstance(shape[0], int | np.integer):
            shape = shape[0]
        if order not in ("C", "F", "A"):
            raise ValueError(f"order must be one of 'C', 'F', 'A' (got {order!r})")
        if order == "A":
            order = "F" if self.flags.f_contiguous and not self.flags.c_contiguous else "C"
        new_shape = reshape_target(self.size, shape)
        layout = None
        if copy is not True:
            try:
                layout = np.reshape(self._layout_array(), new_shape, order=order, copy=False)
            except ValueError:
                if copy is False:
                    raise
        if layout is None:
            return ndarray._owner(_views.Reshape((self.shape, new_shape, order)).get(
                self._read(), ()))
        if new_shape == self.shape:
            return self._view((), layout)
        return self._view((_views.Reshape((self.shape, new_shape, order)),), layout)

    def ravel(self, order: str = "C") -> ndarray:
        if order == "K":
            order = "C"
        return self.reshape(-1, order=order)

    def flatten(self, order: str = "C") -> ndarray:
        return self.reshape(-1, order="F" if order == "F" else "C", copy=True)

    def squeeze(self, axis: Any = None) -> ndarray:
        shape = self.shape
        if axis is None:
            drop = {i for i, n in enumerate(shape) if n == 1}
        else:
            drop = set(normalize_axes(axis, len(shape)))
            if any(shape[i] != 1 for i in drop):
                raise ValueError("cannot select an axis to squeeze out which has size "
                                 "not equal to one")
        new_shape = tuple(n for i, n in enumerate(shape) if i not in drop)
        return self.reshape(new_shape)

    def _expand_dims(self, axis: Any) -> ndarray:
        ndim = self.ndim + len(axis if isinstance(axis, tuple | list) else (axis,))
        axes = set(normalize_axes(axis, ndim))
        it = iter(self.shape)
        return self.reshape(tuple(1 if i in axes else next(it) for i in range(ndim)))

    @property
    def real(self) -> ndarray:
        if self.dtype.kind != "c":
            return self._view((), self._layout_array()[...])
        return self._view((_views.Real(()),), self._layout_array().real)

    @real.setter
    def real(self, value: Any) -> None:
        self.real[...] = value

    @property
    def imag(self) -> ndarray:
        if self.dtype.kind != "c":
            import jax.numpy as jnp

            out = ndarray._owner(jnp.zeros(self.shape, self.dtype))
            out._readonly = True
            return out
        return self._view((_views.Imag(()),), self._layout_array().imag)

    @imag.setter
    def imag(self, value: Any) -> None:
        if self.dtype.kind != "c":
            raise TypeError("array does not have imaginary part to set")
        self.imag[...] = value

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> ndarray:
        ndim = self.ndim
        if ndim < 2:
            raise ValueError("diag requires an array of at least two dimensions")
        a1, a2 = normalize_axis(axis1, ndim), normalize_axis(axis2, ndim)
        if a1 == a2:
            raise ValueError("axis1 and axis2 cannot be the same")
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


def _set_owner(self: ndarray, value: jax.Array, scalar: bool) -> None:
    self._value = value
    self._base = None
    self._lens = ()
    self._layout = None
    self._cache = None
    self._scalar = scalar
    self._mine = False
    self._version = 0
    self._readonly = False


def _from_host(host: np.ndarray, scalar: bool) -> ndarray:
    from npjax._normalize import to_jax

    return ndarray._owner(to_jax(host), scalar)


def normalize_axis(axis: int, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)
    return axis % ndim if ndim else 0


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """An int or a sequence of ints as non-negative axes (``AxisError``, repeated → ValueError)."""
    if isinstance(axis, tuple | list):
        axes = tuple(normalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
        return axes
    return (normalize_axis(axis, ndim),)


def reshape_target(size: int, shape: Any) -> tuple[int, ...]:
    """The shape ``reshape`` produces, with NumPy's errors for bad requests."""
    shape = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
    shape = tuple(operator.index(n) for n in shape)
    unknown = [i for i, n in enumerate(shape) if n == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    if any(n < -1 for n in shape):
        raise ValueError("negative dimensions not allowed")
    known = int(np.prod([n for n in shape if n != -1], dtype=np.int64))
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape "
                             f"{_shape_text(shape)}")
        shape = tuple(size // known if n == -1 else n for n in shape)
    elif known != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {_shape_text(shape)}")
    return shape


def _shape_text(shape: tuple) -> str:
    return str(shape)
