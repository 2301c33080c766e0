"""Facts about public callables that users and tests rely on and the call path does not read:
whether the result shares memory with the first argument (NumPy's view rule), and why a
function cannot trace under ``npjax.jit``. ``_registry.classify`` puts them into each
``Spec``; ``tests/test_specs.py`` checks every entry against NumPy (views) and against
``npjax.jit`` (traces), and that the tables name exactly the functions it calls.
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
