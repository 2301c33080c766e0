"""npjax.random: numpy.random on JAX, name for name.

Which stream a draw comes from depends on the API, following NEP 19: NumPy promises that the
legacy ``RandomState`` and the ``np.random.seed/rand/randn/randint/...`` functions keep their
streams forever, and makes no such promise for ``Generator``.

* Legacy API (``RandomState``, the module-level functions): always NumPy's stream (host MT19937,
  results placed on the device), so a script seeded with ``np.random.seed`` prints NumPy's
  numbers.
* ``Generator`` / ``default_rng``: chosen per call by the policy field ``random``
  (``npjax.policy(random=...)``, env ``NPJAX_RANDOM``):

  * ``"jax"`` (default): draws run on the device with ``jax.random``. Each ``Generator`` holds
    a threefry key (``._key``, a ``uint32[2]`` jax.Array) derived from its ``SeedSequence``;
    every draw is one cached jitted call ``(key, *params) -> (next_key, sample)``, so the same
    seed and call sequence give the same numbers on any machine. These are not NumPy's numbers.
  * ``"numpy"``: the object's host NumPy generator (seeded identically) draws, and the result
    is placed on the device; for the same seed and call sequence the numbers are bit-identical
    to NumPy's (results keep NumPy's type: Python float/int for scalars, NumPy-scalar-like
    arrays).

The policy is read on every call (not at construction): an object carries both streams, and
each advances only when used. Results, parameter checks (exception classes) and dtypes follow
NumPy in both modes.

Under ``npjax.jit`` / lazy modes: the only state is the key attribute ``gen._key``. A compiled
wrapper can read it before tracing, pass it in as an argument (the samplers in
``npjax.random._samplers`` are pure ``(key, *params) -> (next_key, sample)`` functions that
trace cleanly), and store the returned key back into ``gen._key`` afterwards.

The bit-generator classes and ``SeedSequence`` are NumPy's own; they seed both streams.
Differences from NumPy: a bit generator shared by two Generators shares the NumPy stream but
each copies the JAX key; ``hypergeometric`` is sampled sequentially.
"""

from numpy.random import (
    MT19937,
    PCG64,
    PCG64DXSM,
    SFC64,
    BitGenerator,
    Philox,
    SeedSequence,
    bit_generator,
)

from npjax.random import _legacy as mtrand
from npjax.random._generator import Generator, default_rng
from npjax.random._legacy import *  # noqa: F403
from npjax.random._legacy import __all__ as _legacy_all

# Why every function here stays hand-written (its declaration, made by
# ``_registry.declare_by_hand`` in npjax/__init__.py).
_BY_HAND = "draws from npjax's random streams (npjax.random), placed by _host_draws.route_draws"

__all__ = ["MT19937", "PCG64", "PCG64DXSM", "SFC64", "BitGenerator", "Generator", "Philox",
           "SeedSequence", "bit_generator", "default_rng", "mtrand", *_legacy_all]
