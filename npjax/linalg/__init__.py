"""npjax.linalg: numpy.linalg on JAX.

Every function follows NumPy 2's ``numpy.linalg``: the same result types (NumPy's own
``EigResult``, ``EighResult``, ``SVDResult``, ``QRResult``, ``SlogdetResult``), dtypes (integer
and boolean inputs give float64, float32 stays float32, complex stays complex, ``eig`` is real
when every eigenvalue is), batching over leading dimensions and ``LinAlgError`` (NumPy's own
class) where NumPy raises it. As NumPy does, every float type is computed in double precision
and the result cast back, so float32 results are NumPy's to the last bit or two.

Differences from NumPy:
- Data-dependent errors (singular ``inv``/``solve``/``tensorinv``/``tensorsolve``/negative
  ``matrix_power``, non-positive-definite ``cholesky``, NaN input to SVD-based functions and
  to ``eig``/``eigvals``) cost one device-to-host transfer of a flag per call. ``eig``/
  ``eigvals`` of real input read one more flag (are all eigenvalues real), ``lstsq`` reads its
  rank, ``matrix_rank`` of a 0-d/1-d input reads one boolean.
- LAPACK's non-convergence of ``eig``/``eigh`` (which practically never happens for finite
  input) is not detected; ``eigh``/``eigvalsh`` of input holding NaN give JAX's values (NumPy
  gives LAPACK's arbitrary ones). Singular vectors and eigenvectors are unique only up to
  sign/phase; JAX's LAPACK calls usually agree with NumPy's, GPU solvers may not.
- ``qr(mode='raw')`` of empty input and the deprecated modes are computed as NumPy does, but
  ``qr``'s Householder signs come from the backend (CPU: LAPACK, as NumPy).
"""

from __future__ import annotations

from numpy.linalg import LinAlgError

from npjax.linalg._decompositions import (cholesky, eig, eigh, eigvals, eigvalsh, qr, svd,
                                          svdvals)
from npjax.linalg._norms import (cond, det, matrix_norm, matrix_rank, norm, slogdet,
                                 vector_norm)
from npjax.linalg._shared import (cross, diagonal, matmul, matrix_transpose, multi_dot, outer,
                                  tensordot, trace, vecdot)
from npjax.linalg._solvers import (inv, lstsq, matrix_power, pinv, solve, tensorinv,
                                   tensorsolve)

# Why every function here stays hand-written (its declaration, made when npjax routes this
# namespace: ``_route.route_namespace``).
_BY_HAND = ("NumPy's linalg checks (square and stacked matrices, LinAlgError) in its own body; "
            "not yet moved onto npfunc tags")

__all__ = [
    "matrix_power", "solve", "tensorsolve", "tensorinv", "inv", "cholesky", "eigvals",
    "eigvalsh", "pinv", "slogdet", "det", "svd", "svdvals", "eig", "eigh", "lstsq", "norm",
    "qr", "cond", "matrix_rank", "LinAlgError", "multi_dot", "trace", "diagonal", "cross",
    "outer", "tensordot", "matmul", "matrix_transpose", "matrix_norm", "vector_norm", "vecdot",
]
