"""Where float64/complex128 values still land on an accelerator whose arrays cannot hold them
(``_capabilities.HOST_DTYPES``: a TPU), found on the CPU: two CPU devices stand for the
accelerator (device 0) and the host's CPU backend (device 1), parity suites run with every
array on the device, and each npjax array of such a dtype on device 0 that a parity body
returns is counted, by the test (``--made``: every such array made, also those a function
then redoes on the host, by its npjax call site, the last three frames).

    HYPOTHESIS_PROFILE=rerun-ci python benchmarks/host_dtype_audit.py tests/test_ufuncs.py ...

Test failures are expected (tests that check where float64 arrays live); the counts are the
result. docs/tpu.md lists what it found. ``--made`` does not suit the ``npjax.jit`` and autojit
files: its counting hook, defined here, outside npjax, is user code to ``npjax.jit``, which then
keeps loops from rolling (their tests fail or unroll hundreds of steps).
"""

from __future__ import annotations

import collections
import os
import sys
import traceback

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax
import numpy as np
import pytest

from npjax._core import _ndarray
from npjax._execution import _lazy_cold
from npjax._pure import _capabilities

HELD = {np.dtype(np.float64), np.dtype(np.complex128)}


def main() -> None:
    home, cold = jax.devices("cpu")
    _capabilities.HOST_DTYPES = {"cpu": frozenset(d.name for d in HELD)}
    _lazy_cold.cold_device = lambda: cold
    sites: collections.Counter = collections.Counter()

    def on_home(value) -> bool:
        return isinstance(value, jax.Array) and not isinstance(value, jax.core.Tracer) \
            and value.dtype in HELD and home in value.devices()

    args = sys.argv[1:]
    if "--made" in args:
        args.remove("--made")
        made = _ndarray.ndarray._owner.__func__

        def owner(cls, value, scalar=False):
            if on_home(value):
                frames = [f for f in traceback.extract_stack()[:-1] if "/npjax/" in f.filename]
                sites[" <- ".join(f"{os.path.basename(f.filename)}:{f.lineno}"
                                  for f in reversed(frames[-3:]))] += 1
            return made(cls, value, scalar)

        _ndarray.ndarray._owner = classmethod(owner)
    else:
        from tests import _parity

        run = _parity._run

        def checked(fn, xp):
            got = run(fn, xp)
            items = got[0] if isinstance(got[0], tuple | list) else (got[0],)
            if any(isinstance(x, _ndarray.ndarray) and x._base is None and on_home(x._value)
                   for x in items):
                sites[os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]] += 1
            return got

        _parity._run = checked
    pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                 "--npjax-placement=device", *args])
    print("\n== float64/complex128 on the accelerator, by site")
    for site, count in sites.most_common(40):
        print(f"{count:6d}  {site}")
    print("total", sum(sites.values()))


if __name__ == "__main__":
    main()
