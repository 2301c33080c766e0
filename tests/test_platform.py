"""The default backend's platform is told without starting JAX's backend where only a TPU
is in question (``_pure/_platform.py``): a TPU's runtime takes about 7 s to start, and a
script whose arrays all stay on the host must not pay it. CI has no TPU: a subprocess
stands a TPU machine in (``tpu_expected``) and runs a small float64 script."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import jax
import numpy as np
import pytest

import npjax
from npjax._pure import _platform

SCRIPT = textwrap.dedent("""
    import numpy
    import npjax as np
    from jax._src import xla_bridge
    from npjax._pure import _dtypes, _platform
    _platform.tpu_expected = lambda: True
    x = np.linspace(0.0, 1.0, 200).reshape(20, 10)
    labels = np.arange(20) % 3
    y = (np.sin(x) @ x.T).sum(axis=1) / (labels + 1)
    xn = numpy.linspace(0.0, 1.0, 200).reshape(20, 10)
    want = (numpy.sin(xn) @ xn.T).sum(axis=1) / (numpy.arange(20) % 3 + 1)
    print(numpy.array_equal(numpy.asarray(y), want), y.dtype)
    print("float64 held by the device:", _dtypes.is_device_dtype(numpy.dtype("float64")))
    print("backend started:", xla_bridge.backends_are_initialized())
    """)


def test_a_host_only_script_on_a_tpu_machine_never_starts_the_backend():
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(npjax.__file__)))
    env.pop("JAX_PLATFORMS", None)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.splitlines() == ["True float64", "float64 held by the device: False",
                                       "backend started: False"], out.stdout


def test_a_started_backend_answers_for_itself():
    jax.devices()  # started
    assert _platform.default_platform({"tpu"}) == jax.default_backend()
    assert _platform.default_platform({"cpu", "tpu"}) == jax.default_backend()


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="asks a CPU machine")
def test_this_machine_is_no_tpu_and_float64_is_a_device_dtype_here():
    assert not _platform.tpu_expected()
    assert np.dtype("float64").name not in npjax._pure._dtypes.backend_host_dtypes()


@pytest.mark.parametrize("jit_env, want", [(None, "auto"), ("explicit", "explicit")])
def test_a_tpu_machine_compiles_hot_functions_by_default(jit_env, want):
    """Where the default backend will be a TPU (``JAX_PLATFORMS=tpu`` tells it here, no
    backend started), ``jit`` defaults to "auto" and the sampler runs from the import;
    ``NPJAX_JIT`` still decides."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(npjax.__file__)),
               JAX_PLATFORMS="tpu")
    env.pop("NPJAX_JIT", None)
    if jit_env is not None:
        env["NPJAX_JIT"] = jit_env
    script = textwrap.dedent("""
        import threading
        import npjax
        from jax._src import xla_bridge
        print(npjax.get_policy().jit, npjax.reset_policy().jit,
              "npjax-autojit-sampler" in [t.name for t in threading.enumerate()],
              xla_bridge.backends_are_initialized())
        """)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == [want, want, str(want == "auto"), "False"], out.stdout
