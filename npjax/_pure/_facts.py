"""Facts about public callables that users and tests rely on: whether the result shares
memory with the first argument (NumPy's view rule), why a function cannot trace under
``npjax.jit``, and which ``npfunc`` bodies are not lazy-capable (``NOT_LAZY``, the one fact
the call path acts on). Each callable's ``Declaration`` (``_declared``) reads them once at
import and the registry's rows are read from it; ``tests/test_specs.py`` checks every entry
against NumPy (views) and against ``npjax.jit`` (traces), and that the tables name exactly
the functions it calls.
"""

from __future__ import annotations

# name (NumPy's module path after "numpy.") -> "always": the result is a view of the first
# argument whatever it is; "may": a view when NumPy's is one (contiguous input, no cast, no
# copy asked for), a new array otherwise.
VIEWS = {
    **dict.fromkeys((
        "transpose", "swapaxes", "moveaxis", "rollaxis", "permute_dims", "matrix_transpose",
        "squeeze", "expand_dims", "diagonal", "broadcast_to", "broadcast_arrays",
        "atleast_1d", "atleast_2d", "atleast_3d", "flip", "fliplr", "flipud", "rot90",
        "split", "array_split", "hsplit", "vsplit", "dsplit", "unstack", "trim_zeros",
        "linalg.matrix_transpose", "linalg.diagonal", "lib.stride_tricks.as_strided",
        "lib.stride_tricks.sliding_window_view"), "always"),
    **dict.fromkeys((
        "reshape", "ravel", "real", "imag", "asarray", "asanyarray", "ascontiguousarray",
        "asfortranarray", "require", "array"), "may"),
    # ndarray's own (``_registry_methods``)
    **dict.fromkeys(("ndarray.view", "ndarray.T", "ndarray.mT", "ndarray.transpose",
                     "ndarray.swapaxes", "ndarray.squeeze", "ndarray.diagonal"), "always"),
    **dict.fromkeys(("ndarray.reshape", "ndarray.ravel", "ndarray.real", "ndarray.imag"),
                    "may"),
}

_SHAPE = "the result's shape depends on the values"
_BOUNDS = "index bounds are checked on the host (mode='raise')"
_EDGES = "bin edges come from the data's range, read on the host"
_BOOL = "returns a Python bool, read on the host"

# name -> why it cannot trace under ``npjax.jit`` with traced array arguments (JitError;
# ``fallback="eager"`` runs the call eagerly). Every other native function traces, as far as
# the parity suites run under ``--npjax-jit`` show.
NOT_TRACEABLE = {
    **dict.fromkeys((
        "nonzero", "argwhere", "flatnonzero", "unique", "unique_all", "unique_counts",
        "unique_inverse", "unique_values", "intersect1d", "union1d", "setdiff1d", "setxor1d",
        "compress", "extract", "trim_zeros", "repeat", "delete", "insert", "piecewise"),
        _SHAPE),
    "bincount": "the result's length is the largest value",
    "roots": "the result's length depends on the leading zeros of the coefficients",
    **dict.fromkeys(("histogram2d", "histogramdd"), _EDGES),
    "digitize": "the bins' monotonic order is checked on the host",
    **dict.fromkeys(("take", "put", "choose"), _BOUNDS),
    **dict.fromkeys(("array_equal", "allclose"), _BOOL),
    "polyfit": "the rank warning reads the rank on the host",
}

# ``npfunc`` functions that are not lazy-capable: in lazy mode their bodies run eagerly on
# computed operands (``_dispatch.npfunc``); every other npfunc body gets pending operands.
# Each was found by running the parity suites and tests/test_lazy_capable.py under lazy mode
# with pending operands; the reason is what the body did with them.
_RAW_JAX = "its body passes an array operand to a jax function (TypeError on a pending value)"
NOT_LAZY = {
    "append": _RAW_JAX, "argpartition": _RAW_JAX, "argsort": _RAW_JAX, "delete": _RAW_JAX,
    "i0": _RAW_JAX, "insert": _RAW_JAX, "pad": _RAW_JAX, "partition": _RAW_JAX,
    "roll": _RAW_JAX, "sort": _RAW_JAX, "tril": _RAW_JAX, "triu": _RAW_JAX,
    "repeat": _RAW_JAX + " with an axis",
    "searchsorted": _RAW_JAX + " for some operands (side='right', 2-d values)",
    "average": _RAW_JAX + " with weights",
    "compress": "data-dependent length: counts the selected elements (_buckets)",
    "nonzero": "data-dependent length: counts the selected elements (_buckets)",
    "argwhere": "data-dependent length: counts the selected elements (_buckets)",
    "unique": "data-dependent length, and its sort passes the operand to a jax function",
    "linspace": "its kernels' outputs, pending, reach a jax function (TypeError)",
    "diff": "reads its operands computed (to_jax in the body: n=0 gives the operand back)",
    "ediff1d": "reads its operands computed (to_jax in the body, in NumPy's order of checks)",
    "poly": "reads its operand computed (eigenvalues, a sort of the roots)",
    "roots": "reads its operand computed (the nonzero span of the coefficients, on the host)",
    "polyfit": "reads its operands computed (least squares, its rank on the host)",
    "polyval": "reads its operands computed (Horner's loop in one jax function)",
    "interp": "reads its operands computed (the search and blend in one jax function)",
    "digitize": "reads its operands computed (the bins' monotonicity on the host)",
    "packbits": "reads its operand computed (to_jax in the body, then its dtype checked)",
    "unpackbits": "reads its operand computed (to_jax in the body, then its dtype checked)",
    "ravel_multi_index": "reads its operands computed (out-of-bounds entries raise)",
    "unravel_index": "reads its operand computed (out-of-bounds indices raise)",
    "take_along_axis": "reads its indices computed (out-of-bounds entries raise)",
    "take": "reads its operands computed (to_jax in the body; out-of-bounds indices raise)",
    "unique_values": "data-dependent length (calls unique, which reads its operand computed)",
    "unique_counts": "data-dependent length (calls unique, which reads its operand computed)",
    "unique_inverse": "data-dependent length (calls unique, which reads its operand computed)",
    "unique_all": "data-dependent length (calls unique, which reads its operand computed)",
    "intersect1d": "data-dependent length: reads its operands computed (to_jax in the body)",
    "union1d": "data-dependent length: reads its operands computed (to_jax in the body)",
    "setdiff1d": "data-dependent length: reads its operands computed (to_jax in the body)",
    "setxor1d": "data-dependent length: reads its operands computed (to_jax in the body)",
    "isin": "reads its operands computed (to_jax in the body; kind='table' reads the range)",
    "bincount": "data-dependent length: its largest entry read on the host",
    "histogram": "data-dependent edges: the data's range read on the host (NumPy's edges)",
    "histogram_bin_edges": "data-dependent edges: the data's range read on the host",
    "histogramdd": "data-dependent edges: the data's range read on the host (NumPy's edges)",
    "histogram2d": "data-dependent edges: the data's range read on the host (NumPy's edges)",
}
