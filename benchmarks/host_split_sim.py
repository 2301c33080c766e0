"""What the suite's kernels send to the host where float64 is a host dtype, found on the CPU.

The host-dtype simulation of ``host_dtype_audit.py``: two CPU devices stand for the
accelerator (device 0) and the host's CPU backend (device 1), float64/complex128 are made
host dtypes, every array is placed on the device. Each kernel of ``benchmarks/kernels`` runs
with its small preset's inputs as float32 (``suite.py --float32``: the chip's own type)
under lazy mode and under ``npjax.jit``, three calls each; the last call's bytes fetched to
the host (the result is not fetched) and programs run on the host's CPU backend
(``stats()["lazy"]["host_dtype_on_cpu"]``) are printed as a table. A program holding
float64 (NumPy's float64 results of float32 work: a mask's mean, a Python float's array)
runs its part that needs none on the accelerator first (``_execution/_host_split.py``); what
crosses is what that part hands on.

    python benchmarks/host_split_sim.py [KERNEL ...]
"""

from __future__ import annotations

import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import jax  # noqa: E402
import numpy  # noqa: E402

from npjax._execution import _lazy_cold  # noqa: E402
from npjax._pure import _capabilities  # noqa: E402


def main() -> None:
    home, cold = jax.devices("cpu")
    _capabilities.HOST_DTYPES = {"cpu": frozenset({"float64", "complex128"})}
    _lazy_cold.cold_device = lambda: cold
    import npjax
    from benchmarks import kernels
    from benchmarks.suite import Runner
    from npjax._runtime import _stats

    names = sys.argv[1:] or kernels.MODULES
    print("| kernel | inputs, bytes | lazy: bytes to the host | lazy: programs on the host | "
          "npjax.jit: bytes to the host | npjax.jit: programs on the host |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in names:
        mod = __import__(f"benchmarks.kernels.{name}", fromlist=["kernel"])
        runner = Runner(mod, "small", float32=True)
        size = sum(a.nbytes for a in runner.host_args if isinstance(a, numpy.ndarray))
        row = [name, str(size)]
        for mode in ("lazy", "jit"):
            fn = (npjax.jit(mod.kernel, static_argnums=(0, *(i + 1 for i in mod.STATIC)))
                  if mode == "jit" else mod.kernel)
            try:
                with npjax.policy(placement="device", mode="lazy"):
                    for _ in range(3):
                        args = [npjax.asarray(a.copy()) if isinstance(a, numpy.ndarray)
                                else a for a in runner.host_args]
                        sent = _stats.transfers["device_to_host"][1]
                        held = _stats.lazy["host_dtype_on_cpu"]
                        out = fn(npjax, *args)
                        jax.block_until_ready([x._read() for x in jax.tree.leaves(out)
                                               if isinstance(x, npjax.ndarray)])
                        sent = _stats.transfers["device_to_host"][1] - sent
                        held = _stats.lazy["host_dtype_on_cpu"] - held
                row += [str(sent), str(held)]
            except Exception as exc:  # (the table says which kernel did not run, and why)
                row += [f"{type(exc).__name__}", "-"]
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
