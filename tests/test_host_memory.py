"""Host-memory protocols (npjax/_core/_host_memory.py): ``__array_interface__``,
``__array_struct__``, ``ctypes``, ``data``, ``__buffer__``. A host array hands out its NumPy
data's own (live) memory; a device array has none and says which copy to make."""

from __future__ import annotations

import array
import ctypes
import struct
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from npjax._calls import _registry_methods
from npjax._core._array_base import HOSTPATH
from tests._parity import DEVICE_FLOAT
from tests.strategies import ALL, arrays

MEMBERS = ("__array_interface__", "__array_struct__", "ctypes", "data")
PyBUF_WRITABLE = 1


@pytest.fixture(autouse=True)
def _host_arrays():
    with npjax.policy(placement="auto", host_threshold=1 << 20):
        yield


def _device(x):
    with npjax.policy(placement="device"):
        return npjax.asarray(x)


@given(arrays(st.sampled_from(ALL), st.sampled_from([(), (3,), (2, 3), (0, 2)])),
       st.sampled_from([(), (slice(None, None, 2),), (Ellipsis, slice(None, None, -1))]))
def test_interface_is_numpys_for_the_same_array(a, index):
    x = npjax.asarray(a.copy())
    assert x._host() is not None
    try:
        want = a[index]
    except IndexError:
        return
    got = x[index]
    if not isinstance(got, npjax.ndarray):  # NumPy's scalar for an element
        return
    ours, theirs = got.__array_interface__, want.__array_interface__
    for key in ("shape", "typestr", "descr", "strides", "version"):
        assert ours[key] == theirs[key], key
    assert ours["data"][0] == got._host().__array_interface__["data"][0]


def test_writes_through_the_pointers_reach_the_array():
    x = npjax.arange(4.0)
    pointer = x.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    pointer[1] = 42.0
    assert x.tolist() == [0.0, 42.0, 2.0, 3.0]
    view = x[::2]
    address = view.__array_interface__["data"][0]
    ctypes.c_double.from_address(address + 8 * 2).value = -1.0  # element 1 of the view
    assert x.tolist() == [0.0, 42.0, -1.0, 3.0] and view.tolist() == [0.0, -1.0]
    mv = x.data
    mv[3] = 7.0
    assert x[3] == 7.0 and mv.format == "d" and mv.shape == (4,)


def test_numpy_wraps_the_memory_without_a_copy():
    x = npjax.arange(6.0).reshape(2, 3)
    wrapped = np.asarray(x)
    x[0, 0] = 5.0
    assert wrapped[0, 0] == 5.0 and np.shares_memory(wrapped, x._host())
    capsule = x.__array_struct__
    assert type(capsule).__name__ == "PyCapsule"
    assert np.array(x, copy=False)[0, 0] == 5.0


def test_read_only_arrays_say_so():
    x = npjax.broadcast_to(npjax.arange(3.0), (2, 3))
    assert x.__array_interface__["data"][1] is True
    assert x.data.readonly
    with pytest.raises(BufferError):
        x.__buffer__(PyBUF_WRITABLE)


def test_buffer_of_a_host_array():
    x = npjax.arange(3, dtype=npjax.int32)
    view = x.__buffer__(PyBUF_WRITABLE)
    assert view.format == "i" and view.tolist() == [0, 1, 2] and not view.readonly
    view[0] = 9
    assert x[0] == 9
    x.__release_buffer__(view)


# memoryview(x) reads the buffer slot: Python's ``__buffer__`` from 3.12, on 3.11 the C base
# class's slot (``_hostpath.c``); the pure-Python build on 3.11 has none.
HAS_BUFFER = sys.version_info >= (3, 12) or HOSTPATH is not None
needs_buffer = pytest.mark.skipif(not HAS_BUFFER, reason="Python 3.11 without the C module")


def _buffer_facts(view: memoryview) -> tuple:
    return (view.format, view.itemsize, view.ndim, view.shape, view.strides, view.readonly,
            view.c_contiguous, view.f_contiguous, view.tobytes())


@needs_buffer
@pytest.mark.parametrize("make", [
    lambda m: m.arange(6.0), lambda m: m.arange(12, dtype=m.int16).reshape(3, 4),
    lambda m: m.arange(12.0).reshape(3, 4)[:, 1::2], lambda m: m.arange(12.0).reshape(3, 4).T,
    lambda m: m.array([True, False]), lambda m: m.arange(3.0) * 1j,
    lambda m: m.broadcast_to(m.arange(3.0), (2, 3)), lambda m: m.array(["ab", "c"]),
    lambda m: m.zeros(2, [("a", "i1"), ("b", "f8")]), lambda m: m.float64(2.5),
    lambda m: m.zeros((0, 3)),
])
def test_memoryview_of_a_host_array_is_numpys(make):
    expected, got = make(np), make(npjax)
    assert _buffer_facts(memoryview(got)) == _buffer_facts(memoryview(expected))
    assert bytes(got) == bytes(expected)


@needs_buffer
def test_buffer_users_see_the_arrays_memory():
    x = npjax.arange(4.0)
    view = memoryview(x).cast("B")
    view[:8] = struct.pack("d", 7.5)
    assert x[0] == 7.5
    assert array.array("d", x).tolist() == [7.5, 1.0, 2.0, 3.0]
    assert struct.unpack_from("dd", x, 8) == (1.0, 2.0)
    assert np.frombuffer(x, np.float64).tolist() == [7.5, 1.0, 2.0, 3.0]
    with pytest.raises(TypeError):  # read-only: as NumPy's
        memoryview(npjax.broadcast_to(npjax.arange(3.0), (2, 3)))[0, 0] = 1.0


@needs_buffer
def test_buffer_of_a_device_array_raises():
    d = _device(np.arange(3.0, dtype=DEVICE_FLOAT))
    with pytest.raises(BufferError, match="device"):
        memoryview(d)
    assert np.asarray(d).tolist() == [0.0, 1.0, 2.0]  # NumPy goes on to __array__


def test_no_buffer_where_numpy_reads_the_format_back_as_another_dtype():
    """NumPy converts from the buffer first: ``'V8'``'s format (``8x``) reads back as a
    structured dtype of no fields, so such arrays export none and ``np.asarray`` is exact."""
    x = npjax.asarray(np.zeros(3, "V8"))
    with pytest.raises(BufferError, match="V8"):
        x.__buffer__(0)
    assert np.asarray(x).dtype == np.dtype("V8")
    for dtype in ("f8", ">i4", "U3", "M8[D]", [("a", "i1"), ("b", "f8")]):
        assert np.asarray(npjax.asarray(np.zeros(2, dtype))).dtype == np.dtype(dtype)


@pytest.mark.skipif(HAS_BUFFER, reason="Python 3.11 without the C module only")
def test_memoryview_needs_python_312_or_the_c_module():
    with pytest.raises(TypeError):
        memoryview(npjax.arange(3.0))


@pytest.mark.parametrize("name", MEMBERS)
def test_device_arrays_have_no_host_memory(name):
    d = _device(np.arange(3.0, dtype=DEVICE_FLOAT))
    assert d._host() is None
    assert not hasattr(d, name)
    with pytest.raises(AttributeError, match=r"np\.asarray\(a\)"):
        getattr(d, name)
    with pytest.raises(BufferError, match="device"):
        d.__buffer__(0)


def test_numpy_conversion_of_device_arrays_is_unchanged():
    d = _device(np.arange(3.0, dtype=DEVICE_FLOAT))
    copy = np.asarray(d)
    copy[0] = 9.0
    assert d[0] == 0.0 and copy.flags.writeable
    with pytest.raises(ValueError):
        np.asarray(d, copy=False)
    assert np.asarray(d, dtype=np.float32).dtype == np.float32


def test_registry_lists_them_as_host_members():
    records = {r.name: r for r in _registry_methods.records()}
    for name in MEMBERS:
        assert records[name].status == "host" and hasattr(npjax.ndarray, name)
    assert _registry_methods.EXCLUDED == {}


def test_base_of_an_array_over_a_foreign_buffer_is_that_buffer():
    """As NumPy's: ``frombuffer(b).base is b``; an array over a memoryview has it as base."""
    b = b"12345678"
    assert npjax.frombuffer(b).base is b and np.frombuffer(b).base is b
    raw = bytearray(16)
    got = npjax.array(memoryview(raw), copy=None)
    want = np.array(memoryview(raw), copy=None)
    assert type(got.base) is type(want.base) is memoryview
    assert got.base.obj is raw and want.base.obj is raw
    assert npjax.arange(3).base is None and npjax.asarray([1, 2]).base is None
    assert npjax.arange(6).reshape(2, 3).base is not None


@pytest.mark.skipif(sys.version_info >= (3, 12) or HOSTPATH is None,
                    reason="the C base class's buffer slot (Python 3.11)")
def test_memoryview_obj_is_the_array_and_releases_its_export():
    x = npjax.arange(4.0)
    view = memoryview(x)
    assert view.obj is x  # as memoryview(numpy_array).obj is the array
    got = npjax.array(view, copy=None)
    ok = got.base.obj is x and np.shares_memory(np.asarray(got), x._host())
    assert ok  # (outside the assert: pytest's rewriting would keep got.base alive)
    del got
    view.release()
    refs = sys.getrefcount(x._host())
    for _ in range(100):
        bytes(memoryview(x))
    after = sys.getrefcount(x._host())
    assert after == refs
    x.resize(6, refcheck=False)  # no export left: NumPy resizes its memory
    assert x.shape == (6,)
