"""Files and text: npjax arrays written and read as NumPy writes and reads them."""

from __future__ import annotations

import io
import os
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import npjax
from tests import strategies as s
from tests._parity import assert_same

IO_DTYPES = [np.bool_, np.int8, np.int64, np.uint16, np.float32, np.float64, np.complex128]


@given(data=st.data(), dtype=st.sampled_from(IO_DTYPES))
def test_save_load_round_trip(tmp_path_factory, data, dtype):
    host = data.draw(s.arrays(np.dtype(dtype), s.shapes(max_dims=3, max_side=4)))
    path = str(tmp_path_factory.mktemp("npy") / "a.npy")
    npjax.save(path, npjax.asarray(host))
    raw = np.load(path)
    assert raw.dtype == host.dtype and raw.shape == host.shape
    np.testing.assert_array_equal(raw, host)
    back = npjax.load(path)
    assert isinstance(back, npjax.ndarray)
    assert_same(back, np.load(path))


def test_savez_archives_give_npjax_members(tmp_path):
    a = npjax.arange(6.0).reshape(2, 3)
    for save in (npjax.savez, npjax.savez_compressed):
        path = str(tmp_path / f"{save.__name__}.npz")
        save(path, a, row=a[1], flag=npjax.asarray(True))
        with npjax.load(path) as archive:
            assert sorted(archive.files) == ["arr_0", "flag", "row"]
            assert_same(archive["row"], np.arange(6.0).reshape(2, 3)[1])
            assert_same(archive["arr_0"], np.arange(6.0).reshape(2, 3))
            assert_same(archive["flag"], np.asarray(True))


def test_load_refuses_pickles_by_default(tmp_path):
    path = str(tmp_path / "objects.npy")
    np.save(path, np.array([1, None], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="allow_pickle"):
        npjax.load(path)
    got = npjax.load(path, allow_pickle=True)
    assert type(got) is npjax.ndarray and got.dtype == object


def test_text_round_trip_matches_numpy(tmp_path):
    values = np.array([[1.5, -2.0, np.inf], [np.nan, 0.0, 1e-300]])
    for xp in (np, npjax):
        xp.savetxt(str(tmp_path / f"{xp.__name__}.txt"), xp.asarray(values), fmt="%.17g",
                   delimiter=",", header="a,b,c")
    with open(tmp_path / "numpy.txt") as f1, open(tmp_path / "npjax.txt") as f2:
        assert f1.read() == f2.read()
    path = str(tmp_path / "numpy.txt")
    assert_same(npjax.loadtxt(path, delimiter=","), np.loadtxt(path, delimiter=","))
    assert_same(npjax.genfromtxt(path, delimiter=","), np.genfromtxt(path, delimiter=","))
    text = io.StringIO("1 2\n3 4\n")
    assert_same(npjax.loadtxt(text, dtype=np.int32), np.array([[1, 2], [3, 4]], np.int32))


def test_tofile_fromfile(tmp_path):
    a = npjax.arange(5, dtype=np.int16)
    path = str(tmp_path / "raw.bin")
    a.tofile(path)
    assert os.path.getsize(path) == 10
    assert_same(npjax.fromfile(path, dtype=np.int16), np.arange(5, dtype=np.int16))
    a.tofile(str(tmp_path / "raw.txt"), sep=",")
    with open(tmp_path / "raw.txt") as f:
        assert f.read() == "0,1,2,3,4"


def test_pickle_dump_dumps(tmp_path):
    a = npjax.arange(4.0)[1:]
    assert_same(pickle.loads(a.dumps()), np.arange(4.0)[1:])
    path = str(tmp_path / "a.pkl")
    a.dump(path)
    with open(path, "rb") as f:
        assert_same(pickle.load(f), np.arange(4.0)[1:])


def test_printing_is_numpys():
    host = np.array([[1.0, 2.5], [np.nan, -np.inf]])
    a = npjax.asarray(host)
    assert npjax.array2string(a) == np.array2string(host)
    assert npjax.array_repr(a) == np.array_repr(host)
    assert npjax.array_str(a) == np.array_str(host)
    assert repr(a) == repr(host)
    with npjax.printoptions(precision=2, suppress=True):
        assert repr(npjax.asarray([1.23456])) == repr(np.array([1.23456]))
        assert npjax.get_printoptions()["precision"] == 2
    assert npjax.array2string(a, separator=";") == np.array2string(host, separator=";")
