"""Two processes on 127.0.0.1 (two CPU devices each, gloo collectives) run one NumPy-style
script through ``npjax.distributed``; both must print NumPy's answers.

This file is also the worker: ``python tests/test_distributed.py PORT PROCESS_ID``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import numpy
import pytest

import npjax

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 150


def script(xp):
    """The NumPy-style program: setitem into a sharded array, a stencil loop, reductions, a
    matmul."""
    a = xp.zeros((8, 12))
    a[2:5, 3:9] = 1.5
    a[0] = xp.arange(12.0)
    a[[1, 6, 6], [0, 11, 4]] = xp.asarray([-1.0, 2.0, 3.0])
    a[a > 10] = -0.5
    u = xp.linspace(0.0, 1.0, 32) ** 2
    for _ in range(5):
        u[1:-1] = u[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
    b = xp.asarray(numpy.arange(96.0).reshape(12, 8) / 7)
    m = a @ b
    return {"a": a, "u": u, "sum": a.sum(), "colsum": a.sum(axis=0), "rowmax": m.max(axis=1),
            "m": m, "argmax": u.argmax(), "i": xp.arange(40).reshape(5, 8) * 3 % 7}


def _worker(port: int, pid: int) -> None:
    npjax.distributed.initialize(f"127.0.0.1:{port}", 2, pid)
    import jax

    npjax.set_policy(shard_threshold=16, fallback="raise")
    ours = script(npjax)
    ref = script(numpy)
    report = {"pid": pid, "devices": len(jax.devices()), "local": len(jax.local_devices()),
              "process_count": npjax.distributed.process_count(),
              "spread": len(ours["a"].sharding.device_set), "ok": {}}
    for key, want in ref.items():
        got = numpy.asarray(ours[key])
        want = numpy.asarray(want)
        report["ok"][key] = bool(got.shape == want.shape and got.dtype == want.dtype and
                                 numpy.allclose(got, want, rtol=1e-12, atol=1e-12))
    report["str"] = str(ours["i"]) == str(ref["i"])
    print("RESULT " + json.dumps(report), flush=True)
    npjax.distributed.shutdown()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes():
    env = dict(os.environ)
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    port = _free_port()
    procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), str(port), str(i)],
                              env=env, cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for i in range(2)]
    outputs = []
    try:
        deadline = time.monotonic() + TIMEOUT
        for p in procs:
            out, _ = p.communicate(timeout=max(1.0, deadline - time.monotonic()))
            outputs.append(out)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the two processes did not finish within {TIMEOUT} s")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for i, out in enumerate(outputs):
        lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
        assert lines, f"process {i} failed (rc={procs[i].returncode}):\n{out[-4000:]}"
        report = json.loads(lines[-1][len("RESULT "):])
        assert report["pid"] == i
        assert report["devices"] == 4 and report["local"] == 2, report
        assert report["process_count"] == 2 and report["spread"] == 4, report
        assert all(report["ok"].values()), report
        assert report["str"], report
        assert procs[i].returncode == 0, out[-4000:]


def test_not_initialized():
    assert not npjax.distributed.is_initialized()
    assert npjax.distributed.process_count() == 1
    assert npjax.distributed.process_index() == 0


if __name__ == "__main__":
    _worker(int(sys.argv[1]), int(sys.argv[2]))


def test_a_backend_restart_forgets_where_arrays_live(monkeypatch):
    """``on_host`` caches whether every array is host memory (one CPU process); a restart
    into several processes must drop that fact, not only the device list."""
    import jax

    from npjax._runtime import _host_reads

    x = jax.numpy.zeros(2)
    assert _host_reads.on_host(x)
    monkeypatch.setattr(jax, "process_count", lambda: 2)  # as after jax.distributed starts
    _host_reads.forget_backends()
    try:
        assert _host_reads.on_host(x)  # CPU memory, but now decided per array
        assert _host_reads._host_only is False
    finally:
        _host_reads.forget_backends()
