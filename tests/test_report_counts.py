"""The report's placement line counts every kind of device work (functions, indexing with
device arrays, grids, loads, random draws), so it agrees with its compile and transfer lines:
device work that compiled a program is never reported as "0 on the device"."""

from __future__ import annotations

import re
import time

import numpy as np

import npjax
from npjax._tools import _report
from tests._parity import DEVICE_FLOAT as F


def _placement_line(data):
    text = _report.format_report(data)
    found = re.search(r"Placement: (\d+) call\(s\) ran on host arrays \(NumPy\), (\d+) on "
                      r"the device", text)
    assert found, text
    return int(found.group(1)), int(found.group(2))


def test_device_indexing_grids_loads_and_draws_are_counted(tmp_path):
    path, text = tmp_path / "a.npy", tmp_path / "a.txt"
    np.save(path, np.arange(6.0, dtype=F))
    np.savetxt(text, np.arange(3.0))
    with npjax.policy(placement="device", random="jax"):
        a = npjax.arange(10.0, dtype=F)  # (float32 where float64 is a host dtype: a TPU)
        idx = npjax.asarray([1, 2, 5])
        npjax.reset_stats()
        b = a[idx]           # a gather on the device
        a[idx] = 0.0         # a scatter on the device
        g = npjax.mgrid[0:3, 0:2]
        loaded = npjax.load(path) + npjax.loadtxt(text).sum()
        r = npjax.random.default_rng(0).random(4)
        total = float(b.sum() + g.sum() + loaded.sum() + r.sum())
    data = npjax.stats()
    calls = data["calls"]
    for name in ("ndarray.__getitem__", "ndarray.__setitem__", "mgrid", "load", "loadtxt",
                 "random.random"):
        assert calls.get(name, 0) >= 1, (name, calls)
    host, device = _placement_line(data)
    assert (host, device) == (data["placement"]["host"], data["placement"]["device"])
    assert device >= 5 and np.isfinite(total)


def test_host_work_is_not_counted_as_device_work():
    """Host arrays indexed by NumPy, and "auto" draws from NumPy's generator, run on the
    host: nothing compiles, nothing is counted on the device."""
    npjax.set_policy(placement="auto")  # (whatever --npjax-placement the run was given)
    npjax.reset_stats()
    a = npjax.arange(10.0)
    a[[1, 2]] = 0.0
    b = a[a > 3]
    r = npjax.random.default_rng(0).random(4)
    assert b._host() is not None and r._host() is not None
    data = npjax.stats()
    assert data["compiles"]["count"] == 0
    assert data["placement"]["device"] == 0, data["calls"]
    assert data["placement"]["host_calls"].get("random.random") == 1
    assert _placement_line(data) == (data["placement"]["host"], 0)


def test_compiles_imply_device_calls():
    """Whatever ran on the device here, a compile is never reported next to no device call."""
    with npjax.policy(placement="device", random="jax"):
        npjax.reset_stats()
        x = npjax.random.default_rng(1).standard_normal(16)
        y = x[npjax.asarray([0, 3])]
        float(y.sum())
    data = npjax.stats()
    if data["compiles"]["count"]:
        assert data["placement"]["device"] > 0, data


def test_the_slowest_compiles_are_named_with_the_users_line(monkeypatch):
    npjax.reset_stats()
    with npjax.policy(placement="device"):
        # a length no earlier run compiled (the persistent cache would serve it, uncounted)
        x = npjax.arange(float(17 + time.time_ns() % 1_000_003), dtype=F)
        float((x * 3 - 1).sum())
    slowest = npjax.stats()["compiles"]["slowest"]
    assert slowest and all(e["site"].startswith(__file__) for e in slowest)
    assert [e["seconds"] for e in slowest] == sorted((e["seconds"] for e in slowest),
                                                     reverse=True)
    monkeypatch.setattr(_report, "SLOW_COMPILE_S", 0.0)
    text = _report.format_report(npjax.stats())
    assert "slowest compiles" in text and "test_report_counts.py:" in text
