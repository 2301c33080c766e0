"""Benchmark kernels: one module per kernel.

Each module defines NAME, KIND, SIZES (preset -> keyword arguments of ``setup``), STATIC
(positions of static arguments of ``kernel``, counted without the ``np`` parameter),
``setup(rng, **size)`` -> host NumPy arguments, ``kernel(np, *args)`` written in plain NumPy
style against the module passed as ``np`` (NumPy or npjax; it may mutate its arguments and
returns the result), and ``reference(*args)``: the same computation written by hand in
idiomatic ``jax.jit`` code (statics passed the same way).
"""

import importlib
import pkgutil

MODULES = sorted(m.name for m in pkgutil.iter_modules(__path__))


def load_all() -> list:
    return [importlib.import_module(f"{__name__}.{name}") for name in MODULES]
