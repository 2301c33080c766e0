"""npjax: run existing NumPy code on JAX. ``import npjax as np``.

NumPy is the specification (values, dtypes, views, in-place mutation, exceptions); JAX is the
engine. See README.md for what is covered and how policies change placement and execution.
"""

import jax as _jax

# NumPy's defaults are 64-bit; JAX's are 32-bit unless this process-wide flag is on. npjax
# turns it on at import (it touches no device). ``npjax.policy(x64=False)`` asks for 32-bit
# defaults instead.
_jax.config.update("jax_enable_x64", True)

from numpy import (
    bool,
    bool_,
    byte,
    cdouble,
    complex64,
    complex128,
    complexfloating,
    csingle,
    double,
    dtype,
    e,
    euler_gamma,
    finfo,
    float16,
    float32,
    float64,
    floating,
    generic,
    half,
    iinfo,
    inexact,
    inf,
    int8,
    int16,
    int32,
    int64,
    int_,
    intc,
    integer,
    intp,
    long,
    longlong,
    nan,
    newaxis,
    number,
    pi,
    short,
    signedinteger,
    single,
    ubyte,
    uint,
    uint8,
    uint16,
    uint32,
    uint64,
    uintc,
    uintp,
    ulong,
    ulonglong,
    unsignedinteger,
    ushort,
)
from numpy.exceptions import AxisError, ComplexWarning

from npjax import _operators
from npjax._creation import *  # noqa: F403
from npjax._memory import *  # noqa: F403
from npjax._reductions import *  # noqa: F403
from npjax._selection import *  # noqa: F403
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
from npjax._functional import *  # noqa: F403
from npjax._errstate import *  # noqa: F403
from npjax._jit import *  # noqa: F403
from npjax import fft, linalg, random
from npjax import _ufunc_methods  # installs ufunc.reduce/accumulate/outer/reduceat/at
from npjax._errors import FallbackWarning
from npjax._ndarray import ndarray
from npjax._policy import Policy, get_policy, policy, reset_policy, set_policy
from npjax._stats import reset_stats, stats
from npjax._ufuncs import UFUNCS as _UFUNCS
from npjax._ufuncs import ufunc

globals().update(_UFUNCS)
