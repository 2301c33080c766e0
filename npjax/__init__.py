"""npjax: run existing NumPy code on JAX. ``import npjax as np``.

NumPy is the specification (values, dtypes, views, in-place mutation, exceptions); JAX is the
engine. See README.md for what is covered and how policies change placement and execution.
"""

import jax as _jax

# NumPy's defaults are 64-bit; JAX's are 32-bit unless this process-wide flag is on. npjax
# turns it on at import (it touches no device). ``npjax.policy(x64=False)`` asks for 32-bit
# defaults instead.
_jax.config.update("jax_enable_x64", True)

# Compiled programs persist on disk between runs (npjax/_compile_cache.py; NPJAX_CACHE_DIR).
from npjax import _compile_cache

_compile_cache.configure()

# ndarray's conversion members (__array__, __repr__, __float__, item, astype...): first, so
# that every array made while the modules below load has them.
from npjax import _array_conversions
# ndarray's element access members (__getitem__, __setitem__, _write, fill).
from npjax import _element_access
from npjax import _scalar_members  # members of NumPy scalars for 0-d device scalars
from npjax import _operators
from npjax._creation import *  # noqa: F403
from npjax._ranges import *  # noqa: F403
from npjax._matrix_builders import *  # noqa: F403
from npjax._memory import *  # noqa: F403
from npjax._reductions import *  # noqa: F403
from npjax._selection import *  # noqa: F403
from npjax._put import *  # noqa: F403
from npjax._differences import *  # noqa: F403
from npjax._binning import *  # noqa: F403
from npjax._sorting import *  # noqa: F403
from npjax._shape_ops import *  # noqa: F403
from npjax._joining import *  # noqa: F403
from npjax._rearranging import *  # noqa: F403
from npjax._products import *  # noqa: F403
from npjax._signal import *  # noqa: F403
from npjax._polynomial import *  # noqa: F403
from npjax._statistics import *  # noqa: F403
from npjax._calculus import *  # noqa: F403
from npjax._elementwise_misc import *  # noqa: F403
from npjax._bits import *  # noqa: F403
from npjax._index_tricks import *  # noqa: F403
from npjax._iterators import *  # noqa: F403
from npjax._functional import *  # noqa: F403
from npjax._errstate import *  # noqa: F403
from npjax._dtype_functions import *  # noqa: F403
from npjax._io import *  # noqa: F403
from npjax._interop import *  # noqa: F403
from npjax import _array_methods  # ndarray.dot, conj, to_device, byteswap, ...
from npjax import _host_memory  # ndarray.__array_interface__, ctypes, data, __buffer__
from npjax._sharding import *  # noqa: F403
from npjax._jit import *  # noqa: F403
from npjax import distributed, fft, linalg, random
from npjax import _ufunc_methods  # installs ufunc.reduce/accumulate/outer/reduceat/at
from npjax._array_api_info import __array_namespace_info__
from npjax._errors import FallbackWarning
from npjax._ndarray import ndarray
from npjax._context import get_policy, policy, reset_policy, set_policy
from npjax._policy import Policy
from npjax._stats import reset_stats, stats
from npjax._ufuncs import UFUNCS as _UFUNCS
from npjax._ufuncs import ufunc

globals().update(_UFUNCS)

# Placement: NumPy runs calls whose operands all live on the host (npjax/_placement.py).
from npjax import _placement

_placement.route_namespace(globals(), __import__("numpy"))
_placement.route_namespace(vars(linalg), __import__("numpy").linalg)
_placement.route_namespace(vars(fft), __import__("numpy").fft)
_placement.route_methods()
_placement.route_ufunc_methods(ufunc)
_placement.route_draws(vars(random))

# Subclasses of npjax.ndarray keep their class as in NumPy (npjax/_subclasses.py): built
# last, from the members as routed above.
from npjax import _subclasses

_subclasses.install()

# Every other public NumPy name: NumPy's own data-free objects, host functions, declared
# fallbacks (npjax/_registry.py says which is which).
from npjax import _registry

_registry.install(globals())
for _sub in (fft, linalg, random):
    _registry.install(vars(_sub), "numpy." + _sub.__name__.rpartition(".")[2])
del _sub
# After install (npjax.lib.scimath is npjax.emath); by module name, since install has bound
# ``lib`` to NumPy's and ``from npjax import lib`` would return that.
lib = __import__("importlib").import_module("npjax.lib")

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
