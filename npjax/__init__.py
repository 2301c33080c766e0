"""npjax: run existing NumPy code on JAX. ``import npjax as np``.

NumPy is the specification (values, dtypes, views, in-place mutation, exceptions); JAX is the
engine. See README.md and docs/ for what is covered and how policies change placement and execution.
"""

import jax as _jax

# NumPy's defaults are 64-bit; JAX's are 32-bit unless this process-wide flag is on. npjax
# turns it on at import (it touches no device). ``npjax.policy(x64=False)`` asks for 32-bit
# defaults instead.
_jax.config.update("jax_enable_x64", True)

# Compiled programs persist on disk between runs (npjax/_runtime/_compile_cache.py;
# NPJAX_CACHE_DIR).
from npjax._runtime import _compile_cache

_compile_cache.configure()

# ndarray's conversion members (__array__, __repr__, __float__, item, astype...): first, so
# that every array made while the modules below load has them.
from npjax._core import _array_conversions
# ndarray's element access members (__getitem__, __setitem__, _write, fill).
from npjax._placement import _element_access
from npjax._core import _scalar_members  # members of NumPy scalars for 0-d device scalars
from npjax._calls import _operators
from npjax._library._creation import *  # noqa: F403
from npjax._library._ranges import *  # noqa: F403
from npjax._library._matrix_builders import *  # noqa: F403
from npjax._library._memory import *  # noqa: F403
from npjax._library._reductions import *  # noqa: F403
from npjax._library._selection import *  # noqa: F403
from npjax._library._put import *  # noqa: F403
from npjax._library._differences import *  # noqa: F403
from npjax._library._binning import *  # noqa: F403
from npjax._library._sorting import *  # noqa: F403
from npjax._library._shape_ops import *  # noqa: F403
from npjax._library._joining import *  # noqa: F403
from npjax._library._rearranging import *  # noqa: F403
from npjax._library._products import *  # noqa: F403
from npjax._library._signal import *  # noqa: F403
from npjax._library._polynomial import *  # noqa: F403
from npjax._library._statistics import *  # noqa: F403
from npjax._library._calculus import *  # noqa: F403
from npjax._library._elementwise_misc import *  # noqa: F403
from npjax._library._bits import *  # noqa: F403
from npjax._library._index_tricks import *  # noqa: F403
from npjax._library._iterators import *  # noqa: F403
from npjax._library._functional import *  # noqa: F403
from npjax._runtime._errstate import *  # noqa: F403
from npjax._library._dtype_functions import *  # noqa: F403
from npjax._library._io import *  # noqa: F403
from npjax._calls._interop import *  # noqa: F403
from npjax._library import _array_methods  # ndarray.dot, conj, to_device, byteswap, ...
from npjax._core import _host_memory  # ndarray.__array_interface__, ctypes, data, __buffer__
from npjax._core._sharding import *  # noqa: F403
from npjax._compile._jit import *  # noqa: F403
from npjax._compile._autojit import autojit
from npjax._compile import _autojit_sampler  # jit="auto" under a plain import
from npjax import distributed, fft, linalg, random
from npjax._library import _ufunc_methods  # installs ufunc.reduce/accumulate/outer/reduceat/at
from npjax._library._array_api_info import __array_namespace_info__
from npjax._pure._errors import FallbackWarning
from npjax._core._ndarray import ndarray
from npjax._runtime._context import get_policy, policy, reset_policy, set_policy
from npjax._runtime._policy import Policy
from npjax._runtime._stats import reset_stats, stats
from npjax._calls._ufuncs import UFUNCS as _UFUNCS
from npjax._calls._ufuncs import ufunc

globals().update(_UFUNCS)

# Placement: NumPy runs calls whose operands all live on the host (npjax/_placement/_route.py).
from npjax._placement import _host_paths, _route

_route.route_namespace(globals(), __import__("numpy"))
_route.route_namespace(vars(linalg), __import__("numpy").linalg)
_route.route_namespace(vars(fft), __import__("numpy").fft)
_host_paths.route_methods()
from npjax._calls import _ufunc_routes

_ufunc_routes.route_ufunc_methods(ufunc)

# Random draws are placed like other results (npjax/_placement/_host_draws.py).
from npjax._placement import _host_draws

_host_draws.route_draws(vars(random))
# Their declarations, with npjax.random's reason (every other hand-written function declares
# itself where it is defined, or is declared as it is routed above).
from npjax._calls._registry import declare_by_hand as _declare_by_hand

_declare_by_hand(vars(random), "numpy.random")
del _declare_by_hand

# Subclasses of npjax.ndarray keep their class as in NumPy (npjax/_core/_subclasses.py): built
# last, from the members as routed above.
from npjax._core import _subclasses

_subclasses.install()

# The host route's commonest operations in C where npjax/_core/_hostpath.c is built
# (npjax/_placement/_fast.py): after every member is in place.
from npjax._placement import _fast

_fast.enable()

# Every other public NumPy name: NumPy's own data-free objects, host functions, declared
# fallbacks (npjax/_calls/_registry.py says which is which).
from npjax._calls import _registry

_registry.install(globals())
for _sub in (fft, linalg, random):
    _registry.install(vars(_sub), "numpy." + _sub.__name__.rpartition(".")[2])
del _sub
# Function and method calls of the host route in C (npjax/_placement/_fast_calls.py): after every
# public function is in place.
from npjax._placement import _fast_calls

_fast_calls.enable({"npjax": globals(), "npjax.linalg": vars(linalg),
                    "npjax.fft": vars(fft)})
# After install (npjax.lib.scimath is npjax.emath); by module name, since install has bound
# ``lib`` to NumPy's and ``from npjax import lib`` would return that.
lib = __import__("importlib").import_module("npjax.lib")
# NumPy's assertions given NumPy's data (they test isinstance(x, numpy.ndarray)): npjax/testing.py
testing = __import__("importlib").import_module("npjax.testing")

__array_api_version__ = "2024.12"
# NumPy scripts print and compare ``np.__version__``: npjax answers as the NumPy it follows
# (npjax's own version is the installed distribution's, ``importlib.metadata.version``).
__version__ = __import__("numpy").__version__
# NumPy's public names and npjax's own, from the registry (_registry.OWN lists the latter).
__all__ = _registry.npjax_all()


def __getattr__(name: str):
    return _registry.lazy_fallback("numpy", name)


def __dir__() -> list[str]:
    return __all__
