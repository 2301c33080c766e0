"""The program ``npjax.jit`` builds for one call, lowered without running it (a debug hook).

``lower(jitted, args, kwargs, platforms=("tpu",))`` traces the function as a call with these
arguments would, and lowers the traced program for the named platforms: JAX lowers for a
platform this machine lacks, with npjax's lowering rules for it (``_pure._lowerings``) and
``lax.platform_dependent`` branches resolved, so the StableHLO a TPU would compile can be
read on a CPU (``.as_text()``; ``.compile()`` where that platform's compiler is present,
e.g. ``sharding=`` a compile-only TPU device of ``jax.experimental.topologies``). Nothing
runs and no argument changes; the function's cache is not touched.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from npjax._compile import _jit_inputs as _inputs
from npjax._execution import _lazy

__all__ = ["lower"]


def _abstract(x: Any, sharding: Any) -> Any:
    if x is None or sharding is None:
        return x
    return jax.ShapeDtypeStruct(np.shape(x), x.dtype, sharding=sharding)


def lower(jitted: Any, args: tuple, kwargs: dict | None = None,
          platforms: tuple[str, ...] | None = None, sharding: Any = None,
          compiler_options: dict | None = None) -> Any:
    """``jax.stages.Lowered`` of the program ``jitted(*args, **kwargs)`` would compile
    (the error state in force decides its checks, as in a call); ``sharding``: the inputs'
    placement, when the program is to be compiled for a device other than theirs;
    ``compiler_options``: XLA's options for its compile (None: npjax.jit's own)."""
    from npjax._compile import _jit

    kwargs = kwargs or {}
    inputs = _inputs.Inputs()
    arg_specs = inputs.walk_args(args, jitted._static_argnums)
    kw_specs = tuple((k, ("S", _inputs.static_key(v)) if k in jitted._static_argnames
                      else inputs.walk(v)) for k, v in kwargs.items())
    roots = inputs.roots
    root_vals, _ = _inputs.send(roots)
    dyns = np.asarray(inputs.dyns, np.int64) if inputs.dyns else None
    fn = jax.jit(jitted._traced_fn(_jit._Entry(), arg_specs, kw_specs),
                 compiler_options=_jit._NO_CONSTANT_FOLDING if compiler_options is None
                 else compiler_options)
    jitted._calling.now = (args, kwargs, roots)
    try:
        traced = fn.trace([_abstract(v, sharding) for v in root_vals],
                          _abstract(dyns, sharding), _abstract(_lazy.neg_zero(), sharding))
        return traced.lower(lowering_platforms=platforms)
    finally:
        jitted._calling.now = None
