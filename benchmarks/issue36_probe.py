"""Issue 36's protocol, keyword and Array API items, each probed against NumPy.

Every probe is a small function of a module (``numpy`` or ``npjax``); it runs once with NumPy
and once with npjax, under the default placement and again with every array on the device
(``npjax.set_policy(placement="device")``). An outcome is the value (for arrays: the
array type's library, dtype, shape and bytes, so -0.0 and NaN payloads count; for scalars:
the type's library, dtype and bytes; for anything else its ``repr``), or the exception's
class and message, plus the warnings raised. A probe passes when npjax's outcome equals
NumPy's. Prints one Markdown table row per probe (``item | probe | default | device``)::

    python benchmarks/issue36_probe.py [--only SUBSTRING]
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import math
import pickle
import warnings
from typing import Any
from collections.abc import Callable

import numpy

import npjax

Probe = Callable[[Any], Any]


def _norm(x: Any) -> Any:
    """A comparable form of a probe's result, the library it came from left out."""
    if isinstance(x, (numpy.ndarray, npjax.ndarray)):
        lib = "array"
        host = numpy.asarray(x)
        if host.dtype == object:
            return (lib, "object", host.shape, [_norm(v) for v in host.ravel()])
        return (lib, host.dtype.str, host.shape, host.tobytes())
    if isinstance(x, numpy.generic):  # a 0-d npjax array stands for it (docs/differences.md)
        return ("array", x.dtype.str, (), x.tobytes())
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, [_norm(v) for v in x])
    if isinstance(x, float):
        return ("float", x.hex() if not math.isnan(x) else "nan")
    return ("repr", repr(x))


def _kind(x: Any, xp: Any) -> Any:
    """Whether an array result is the probing library's own array type (an npjax array
    from npjax, a NumPy array from NumPy) and the same subclass name; a scalar or plain 0-d
    array is "0-d" (docs/differences.md: npjax gives 0-d arrays where NumPy gives scalars)."""
    if isinstance(x, (tuple, list)):
        return [_kind(v, xp) for v in x]
    if isinstance(x, numpy.generic) or (type(x) in (numpy.ndarray, npjax.ndarray)
                                        and x.ndim == 0):
        return "0-d"  # npjax's 0-d arrays stand for NumPy's scalars and 0-d arrays alike
    if isinstance(x, (numpy.ndarray, npjax.ndarray)):
        return (isinstance(x, xp.ndarray), type(x).__name__.replace("ndarray", ""))
    return None


def outcome(fn: Probe, xp: Any) -> Any:
    """The result (or exception) and the warnings of ``fn(xp)``, comparable across libraries."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            got = fn(xp)
            result = ("ok", _norm(got), _kind(got, xp))
        except Exception as exc:  # the outcome compared with NumPy's
            result = ("raise", type(exc).__name__, str(exc))
    return result, sorted({(w.category.__name__, str(w.message)) for w in seen})


# --- probes --------------------------------------------------------------------------------

def _sig(obj: Any) -> Any:
    """The parameters' names, kinds and defaults (annotations left out, as the Array API
    test suite reads them)."""
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError) as exc:
        return f"no signature: {type(exc).__name__}"
    return [(p.name, p.kind.name, repr(p.default)) for p in params]


def _flags_keys(xp: Any) -> Any:
    base = xp.arange(12.0).reshape(3, 4)
    out = []
    for a in (base, base[:, ::2], base.T, base[1]):
        f = a.flags
        keys = ("C_CONTIGUOUS", "F_CONTIGUOUS", "OWNDATA", "WRITEABLE", "ALIGNED",
                "WRITEBACKIFCOPY", "C", "F", "O", "W", "A", "X", "FNC", "FORC", "BEHAVED",
                "CARRAY", "FARRAY", "CONTIGUOUS", "FORTRAN")
        attrs = ("c_contiguous", "f_contiguous", "owndata", "writeable", "aligned",
                 "writebackifcopy", "fnc", "forc", "behaved", "carray", "farray")
        out.append(([f[k] for k in keys], [getattr(f, k) for k in attrs]))
    return out


def _flags_equal(xp: Any) -> Any:
    a = xp.arange(6.0)
    return [a.flags == a.copy().flags, a.flags == a[::2].flags, a.flags != a.copy().flags]


def _class_attribute(xp: Any) -> Any:
    class T:
        array = xp.array
        asarray = xp.asarray

    return T().array([1, 2]), T().asarray([1.5])


def _object_identity(xp: Any) -> Any:
    a = xp.arange(3)
    o = xp.empty(2, dtype=object)
    o[1] = a
    b = xp.array([None, a, "s"], dtype=object)
    return [o[1] is a, b[1] is a, o.dtype.str]


def _foreign_ufunc(name: str) -> Probe:
    def fn(xp: Any) -> Any:
        import scipy.special

        return getattr(scipy.special, name)(xp.arange(3.0) / 4)

    return fn


class _ArrayOf:
    """An object whose ``__array__`` returns an array of the library probing it."""

    def __init__(self, xp: Any) -> None:
        self.xp = xp

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        return self.xp.arange(3.0)


_LINALG_ARGS = {"solve": lambda m, xp: (m, m[0]), "lstsq": lambda m, xp: (m, m[0]),
                "matrix_power": lambda m, xp: (m, 3), "outer": lambda m, xp: (m[0], m[1]),
                "cross": lambda m, xp: (m, m[::-1]), "matmul": lambda m, xp: (m, m),
                "vecdot": lambda m, xp: (m, m), "tensordot": lambda m, xp: (m, m),
                "multi_dot": lambda m, xp: ([m, m, m[0]],),
                "tensorinv": lambda m, xp: (m,), "trace": lambda m, xp: (m,),
                "diagonal": lambda m, xp: (m,)}


def _subclass_linalg(fname: str) -> Probe:
    """``linalg.fname`` of a subclass instance: the classes, dtypes and shapes of the results,
    and their values to 9 decimals (LAPACK's and XLA's rounding differ on the device)."""
    def fn(xp: Any) -> Any:
        class M(xp.ndarray):
            pass

        m = (xp.eye(3) * 2 + 1).view(M)
        args = _LINALG_ARGS.get(fname, lambda m, xp: (m,))(m, xp)
        r = getattr(xp.linalg, fname)(*args)
        return [(_kind(v, xp), numpy.asarray(v).dtype.str, getattr(v, "shape", ()),
                 (numpy.round(numpy.asarray(v), 9) + 0.0).tolist())
                for v in (r if isinstance(r, tuple) else (r,))]

    return fn


def _broadcast_iters(xp: Any) -> Any:
    x, y = xp.arange(3.0), xp.arange(2.0).reshape(2, 1)
    b = xp.broadcast(x, y)
    return [b.iters[0].base is x, b.iters[1].base is y, next(b.iters[0])]


_BIG = 2**64


_SPECIAL = [complex(r, i) for r in (0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan)
            for i in (0.0, -0.0, 1.0, math.inf, -math.inf, math.nan)]


def _part_differs(p: float, q: float) -> bool:
    """The Array API's special cases: NaN is NaN (any sign or payload), infinities and zeros
    with their signs; finite values within 4 ulps (float64 exp/sin... differ in the last bits
    on XLA, a difference README lists)."""
    if math.isnan(p) or math.isnan(q):
        return not (math.isnan(p) and math.isnan(q))
    if p == 0 or q == 0 or math.isinf(p) or math.isinf(q):
        return p != q or math.copysign(1, p) != math.copysign(1, q)
    return abs(p - q) > 4 * float(numpy.spacing(abs(q)))


def _complex_special(fname: str) -> Probe:
    """The inputs (of 42: zeros, ones, infinities and NaNs in each part) where the library's
    complex ``fname`` differs from NumPy's: an empty list for NumPy itself."""
    def fn(xp: Any) -> Any:
        with numpy.errstate(all="ignore"), xp.errstate(all="ignore"):
            want = getattr(numpy, fname)(numpy.array(_SPECIAL))
            got = numpy.asarray(getattr(xp, fname)(xp.asarray(numpy.array(_SPECIAL))))
        return [str(z) for z, g, w in zip(_SPECIAL, got, want)
                if _part_differs(g.real, w.real) or _part_differs(g.imag, w.imag)]

    return fn


def _dlpack_capsule(xp: Any, **kw: Any) -> str:
    cap = xp.arange(3.0).__dlpack__(**kw)
    return repr(cap).split('"')[1]


PROBES: list[tuple[str, str, Probe]] = [
    # --- item 2: protocols and introspection
    ("2", "ufunc.resolve_dtypes", lambda xp: xp.add.resolve_dtypes(
        (numpy.dtype("f4"), numpy.dtype("f8"), None))),
    ("2", "resolve_dtypes (int8, Python int)", lambda xp: xp.multiply.resolve_dtypes(
        (numpy.dtype("i1"), int, None))),
    ("2", "inspect.signature(exp)", lambda xp: _sig(xp.exp)),
    ("2", "inspect.signature(add)", lambda xp: _sig(xp.add)),
    ("2", "inspect.signature(matmul)", lambda xp: _sig(xp.matmul)),
    ("2", "pickle ufunc by name", lambda xp: [pickle.loads(pickle.dumps(u)) is u
                                              for u in (xp.add, xp.exp, xp.divmod)]),
    ("2", "flags equality", _flags_equal),
    ("2", "flags: every key and attribute", _flags_keys),
    ("2", "scipy.special.erf (foreign ufunc)", _foreign_ufunc("erf")),
    ("2", "scipy.special.gamma (foreign ufunc)", _foreign_ufunc("gamma")),
    ("2", "numpy.add (a numpy.ufunc) of npjax arrays",
     lambda xp: numpy.add(xp.arange(3.0), xp.arange(3.0))),
    ("2", "np.array as a class attribute", _class_attribute),
    ("2", "object arrays store the very objects", _object_identity),
    ("2", "out=... (0-d result)", lambda xp: xp.add(xp.float64(1.0), 2.0, out=...)),
    ("2", "out=... (reduce)", lambda xp: xp.add.reduce(xp.arange(3.0), out=...)),
    ("2", "memoryview", lambda xp: (lambda m: [m.format, m.shape, m.strides, m.tolist(),
                                               m.readonly])(memoryview(xp.arange(6.0)
                                                                       .reshape(2, 3)))),
    ("2", "__array__ returning the library's array",
     lambda xp: [xp.asarray(_ArrayOf(xp)), xp.add(_ArrayOf(xp), 1)]),
    ("2", "flat[True] / flat[False]", lambda xp: [xp.arange(4.0).flat[True],
                                                  xp.arange(4.0).flat[False]]),
    ("2", "broadcast.iters[i].base", _broadcast_iters),
] + [("2", f"subclass through linalg.{f}", _subclass_linalg(f))
     for f in ("inv", "solve", "det", "slogdet", "norm", "cond", "matrix_rank", "eig", "eigh",
               "eigvals", "svd", "svdvals", "lstsq", "pinv", "qr", "cholesky", "matrix_power",
               "tensorinv", "outer", "cross", "matmul", "vecdot", "tensordot", "multi_dot",
               "trace", "diagonal")] + [
    # --- item 4: device keywords
    ("4", "add(signature=(None, None, 'f4'))", lambda xp: xp.add(
        xp.arange(3.0), 1.5, signature=(None, None, "f4"))),
    ("4", "add(sig='ff->f')", lambda xp: xp.add(xp.arange(3.0), 1.5, sig="ff->f")),
    ("4", "add(dtype='f4')", lambda xp: xp.add(xp.arange(3.0), 1.5, dtype="f4")),
    ("4", "add(signature='ii->i') unsafe", lambda xp: xp.add(xp.arange(3.0), 1.5,
                                                              signature="ii->i")),
    ("4", "einsum order='F'", lambda xp: (lambda r: (r, r.flags.f_contiguous))(
        xp.einsum("ij,jk->ik", xp.ones((2, 3)), xp.ones((3, 4)), order="F"))),
    ("4", "> 32 dimensions", lambda xp: (xp.ones((1,) * 40) * 2).sum(axis=(0, 39))),
    ("4", "> 64 dimensions (NumPy's limit)", lambda xp: xp.ones((1,) * 70)),
    ("4", "int64 array + 2**64 (NEP 50)", lambda xp: xp.arange(3) + _BIG),
    ("4", "int8 array + 300 (NEP 50)", lambda xp: xp.arange(3, dtype=xp.int8) + 300),
    ("4", "uint64 array * 2**63", lambda xp: xp.arange(3, dtype=xp.uint64) * 2**63),
    ("4", "array([2**64]) (object)", lambda xp: xp.array([_BIG])),
    ("4", "asarray(2**64, dtype=int64)", lambda xp: xp.asarray(_BIG, dtype=xp.int64)),
    ("4", "full(3, 2**70)", lambda xp: xp.full(3, 2**70)),
    # --- item 6: device math in NumPy's bits
    ("6", "cross signed zeros", lambda xp: xp.cross(
        xp.asarray([[0.0, -0.0, 1.0], [-0.0, 2.0, -1.0]]),
        xp.asarray([[1.0, 0.0, -0.0], [0.0, -0.0, 3.0]]))),
    ("6", "cross signed zeros (2-vectors)", lambda xp: xp.cross(
        xp.asarray([[-0.0, 1.0]]), xp.asarray([[1.0, 0.0]]))),
    # --- item 7: the Array API failures
    ("7", "inspect.signature(arange)", lambda xp: _sig(xp.arange)),
    ("7", "inspect.signature(vecdot)", lambda xp: _sig(xp.vecdot)),
    ("7", "inspect.signature(ndarray.__dlpack__)",
     lambda xp: _sig(xp.arange(3.0).__dlpack__)),
    ("7", "__dlpack__(max_version=(0, 0))", lambda xp: _dlpack_capsule(
        xp, max_version=(0, 0))),
    ("7", "__dlpack__(max_version=(1, 0))", lambda xp: _dlpack_capsule(
        xp, max_version=(1, 0))),
    ("7", "from_dlpack(device='cpu')", lambda xp: xp.from_dlpack(
        numpy.arange(3.0), device="cpu")),
    ("7", "from_dlpack(copy=True)", lambda xp: xp.from_dlpack(numpy.arange(3.0), copy=True)),
    ("7", "sign(-0.0)", lambda xp: xp.sign(xp.asarray([-0.0, 0.0, -1.5, math.nan]))),
    ("7", "sign(complex -0.0)", lambda xp: xp.sign(xp.asarray([complex(-0.0, 0.0),
                                                                complex(0.0, -0.0)]))),
    ("7", "vecdot(axis=0)", lambda xp: xp.vecdot(xp.arange(6.0).reshape(3, 2),
                                                 xp.ones((3, 2)), axis=0)),
    ("7", "vecdot(axis=-2) complex", lambda xp: xp.vecdot(
        xp.asarray([[1j, 2.0], [3.0, -1j]]), xp.asarray([[1.0, 1j], [2j, 1.0]]), axis=-2)),
] + [("7", f"complex special values: {f}", _complex_special(f))
     for f in ("exp", "log", "sqrt", "sinh", "cosh", "tanh", "sin", "cos", "tan", "expm1",
               "log1p", "arcsinh", "arccosh", "arctanh", "arcsin", "arccos", "arctan",
               "log2", "log10", "square", "reciprocal")]


@contextlib.contextmanager
def _placement(name: str):
    """The placement named: ``default`` (the policy as it is) or ``device``."""
    if name == "default":
        yield
        return
    before = npjax.get_policy()
    npjax.set_policy(placement="device")
    try:
        yield
    finally:
        npjax.set_policy(placement=before.placement)


def run(only: str | None = None) -> list[tuple[str, str, str, str]]:
    """(item, probe, default status, device status) for each probe."""
    rows = []
    for item, name, fn in PROBES:
        if only and only not in name:
            continue
        want = outcome(fn, numpy)
        if want[0][:2] == ("raise", "ModuleNotFoundError"):  # scipy not installed
            rows.append((item, name, "skipped: " + want[0][2], "skipped"))
            continue
        status = []
        for placement in ("default", "device"):
            with _placement(placement):
                got = outcome(fn, npjax)
            if got == want:
                status.append("pass")
            elif got[0] == want[0]:
                status.append("FAIL (warnings: " + repr(got[1]) + ")")
            else:
                status.append("FAIL: " + _brief(got[0]) + " != NumPy's " + _brief(want[0]))
        rows.append((item, name, *status))
    return rows


def _brief(result: Any) -> str:
    text = repr(result)
    return text if len(text) < 160 else text[:157] + "..."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="probes whose name contains this")
    args = parser.parse_args()
    print("| item | probe | default | device |")
    print("|---|---|---|---|")
    for row in run(args.only):
        print("| " + " | ".join(s.replace("|", "\\|") for s in row) + " |")


if __name__ == "__main__":
    main()
