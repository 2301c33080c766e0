"""Lowering rules for backends whose XLA lacks (or mis-compiles) a primitive in some dtype.

JAX lowers each primitive to StableHLO by a rule it keeps per platform; these functions
register npjax's own rule for a primitive on named platforms (the TPU, where the capability
probe found the gaps), for the whole process. Each rule handles only the cases the backend
gets wrong and hands every other case to JAX's own rule, so a program that never meets such
a case lowers as before. The platform list and the dtypes come from
``_capabilities`` (which calls the installers at import); tests install them for the CPU.

- ``install_conversions``: a conversion to or from complex128, or a boolean to a 64-bit
  type, aborts XLA on a TPU ("Unsupported CVT X{64|128} expansion from f64[3,4] to c128");
  they are built from float64 parts instead, flattened to one dimension around
  ``complex(re, im)`` (a 2-D complex128 built in place failed a layout check there).
- ``install_scans``: cumulative sums, products, maxima and minima as a parallel prefix scan
  (XLA's reduce-window form compiled for over 20 s at 2**20 elements on a TPU).
- ``install_bitcasts``: a 64-bit float reinterpreted as a 64-bit integer (or back) goes
  through two 32-bit words (the TPU's 64-bit emulation mis-typed an ``and`` after the direct
  bitcast, so npjax's sort keys of float64 failed to compile).
- ``install_complex128``: a complex128 ``abs`` or division aborts XLA's TPU compiler (the
  process dies: "xprecision_rewriter.cc: Check failed: operand->shape().IsTuple()"), so
  ``abs``, ``mean``, ``/`` and everything built on them did; they are computed from the
  float64 parts (``hypot`` and Smith's division, as NumPy's complex loops compute them).
- ``install_sorts``: a sort along an axis of length 1 with 8-bit keys, or of an empty
  operand, aborts the TPU's runtime (``lexsort`` of one bool, of a 3 x 2 x 0 stack:
  "host_command_buffer_util.cc: Check failed: byte_offset % bytes_per_word == 0"); such a
  sort is its operands as they are.
- ``install_on_host``: a primitive in a dtype the backend cannot compute (64-bit integer
  matrix products on a TPU: "not implemented"; complex128 ones: silently wrong there, by
  1e4 at 64 x 64; complex128 ``tan``/``tanh``/``expm1``/``sign``/``pow``, which abort, and
  transposes and concatenations, which fail a layout check at most shapes) or compiles far
  too slowly (sorts, scans) is computed by NumPy on the host, through
  ``jax.pure_callback``, inside the same program.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from jax import lax

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_C64, _C128 = np.dtype(np.complex64), np.dtype(np.complex128)
_VIA_32 = {"i": np.dtype(np.int32), "u": np.dtype(np.uint32), "f": _F32}


def _lowering_api() -> Any:
    """JAX's lowering registry (``jax._src.interpreters.mlir``), or None in a JAX without it."""
    try:
        from jax._src.interpreters import mlir
    except ImportError:
        return None
    return mlir if hasattr(mlir, "register_lowering") and hasattr(mlir, "lower_fun") else None


def _base_rule(mlir: Any, prim: Any, platform: str) -> Any:
    """The rule JAX itself uses for ``prim`` on ``platform`` (before npjax's)."""
    return mlir._platform_specific_lowerings[platform].get(prim) or mlir._lowerings[prim]


def _register(mlir: Any, prim: Any, platform: str, handles: Callable, replacement: Callable,
              cacheable: bool = True) -> None:
    """On ``platform``, lower ``prim`` as ``replacement`` (a JAX function of the operands and
    the primitive's parameters) where ``handles(ctx.avals_in, ctx.avals_out, params)``, and
    by the rule registered before otherwise (also where ``replacement`` binds ``prim`` itself,
    e.g. for the special values it leaves to JAX's rule). ``cacheable=False``: JAX lowers each
    use of the primitive anew (it otherwise lowers equal uses once and repeats that lowering:
    a host callback's channel ids with it, which a TPU's compiler refuses when the repeated
    sends' operands differ in layout, as ``lstsq``'s three float64 products did)."""
    base = _base_rule(mlir, prim, platform)
    inside: list[bool] = []

    def rule(ctx: Any, *operands: Any, **params: Any) -> Any:
        if inside or not handles(ctx.avals_in, ctx.avals_out, params):
            return base.rule(ctx, *operands, **params)
        fn = mlir.lower_fun(lambda *xs: replacement(*xs, **params),
                            multiple_results=prim.multiple_results)
        inside.append(True)
        try:
            return fn(ctx, *operands)
        finally:
            inside.pop()

    mlir.register_lowering(prim, rule, platform=platform, inline=base.inline,
                           cacheable=cacheable)


def _flat_parts(x: Any) -> tuple[Any, Any]:
    """A complex array's real and imaginary parts, each flattened to one dimension."""
    return lax.reshape(lax.real(x), (x.size,)), lax.reshape(lax.imag(x), (x.size,))


def _flat_complex(re: Any, im: Any) -> Any:
    shape = re.shape
    return lax.reshape(lax.complex(lax.reshape(re, (re.size,)), lax.reshape(im, (im.size,))),
                       shape)


def _converted(x: Any, *, new_dtype: Any, **_: Any) -> Any:
    new, src = np.dtype(new_dtype), np.dtype(x.dtype)
    if src == np.bool_ and new.itemsize == 8 and new.kind in _VIA_32:
        return lax.convert_element_type(lax.convert_element_type(x, _VIA_32[new.kind]), new)
    if new == _C128:  # from anything else: float64 parts
        if src.kind == "c":
            re, im = lax.real(x).astype(_F64), lax.imag(x).astype(_F64)
        else:
            re = lax.convert_element_type(x, _F64)
            im = lax.full_like(re, 0)
        return _flat_complex(re, im)
    re, im = lax.real(x), lax.imag(x)  # from complex128: its float64 parts
    if new == np.bool_:
        return (re != 0) | (im != 0)
    if new == _C64:
        return _flat_complex(re.astype(_F32), im.astype(_F32))
    return lax.convert_element_type(re, new)


def _is_wide_conversion(avals_in: Any, avals_out: Any, params: dict) -> bool:
    src, new = np.dtype(avals_in[0].dtype), np.dtype(params["new_dtype"])
    if (src == _C128) != (new == _C128):
        return True
    return src == np.bool_ and new.itemsize == 8 and new.kind in _VIA_32


def _is_complex128(avals_in: Any, avals_out: Any, params: dict) -> bool:
    return np.dtype(avals_in[0].dtype) == _C128


def install_conversions(platforms: tuple[str, ...]) -> bool:
    """Conversions to and from complex128, and booleans to 64-bit types, in more steps."""
    mlir = _lowering_api()
    if mlir is None:
        return False
    for platform in platforms:
        _register(mlir, lax.convert_element_type_p, platform, _is_wide_conversion, _converted)
    return True


def _hypot(a: Any, b: Any) -> Any:
    """|a + bj| from the float parts without overflow: inf where either part is infinite,
    else nan where either is nan (C's ``hypot``, which NumPy's complex ``abs`` calls)."""
    a, b = lax.abs(a), lax.abs(b)
    big, small = lax.max(a, b), lax.min(a, b)
    zero, inf = lax.full_like(a, 0), lax.full_like(a, np.inf)
    ratio = lax.div(small, lax.select(big == zero, lax.full_like(a, 1), big))
    value = lax.mul(big, lax.sqrt(lax.add(lax.full_like(a, 1), lax.mul(ratio, ratio))))
    value = lax.select(lax.ne(a, a) | lax.ne(b, b), lax.full_like(a, np.nan), value)
    return lax.select((a == inf) | (b == inf), inf, value)


def _complex_abs(x: Any, **_: Any) -> Any:
    return _hypot(lax.real(x), lax.imag(x))


def _complex_div(x: Any, y: Any, **_: Any) -> Any:
    """NumPy's complex division (Smith's method, by the larger part of the divisor; a zero
    divisor gives the parts divided by zero)."""
    return _divided(lax.real(x), lax.imag(x), lax.real(y), lax.imag(y))


def _complex_inverse_power(x: Any, *, y: int, **_: Any) -> Any:
    """``x ** y`` for a negative integer ``y``: ``1 / x ** -y``."""
    p = lax.integer_pow(x, -y)
    br, bi = lax.real(p), lax.imag(p)
    return _divided(lax.full_like(br, 1), lax.full_like(br, 0), br, bi)


def _is_complex128_inverse(avals_in: Any, avals_out: Any, params: dict) -> bool:
    return np.dtype(avals_in[0].dtype) == _C128 and params["y"] < 0


def _divided(ar: Any, ai: Any, br: Any, bi: Any) -> Any:
    one, zero = lax.full_like(br, 1), lax.full_like(br, 0)
    by_real = lax.abs(br) >= lax.abs(bi)
    rat_r = lax.div(bi, lax.select(br == zero, one, br))  # (the branch by the real part)
    scl_r = lax.div(one, lax.add(br, lax.mul(bi, rat_r)))
    rat_i = lax.div(br, lax.select(bi == zero, one, bi))  # (by the imaginary part)
    scl_i = lax.div(one, lax.add(bi, lax.mul(br, rat_i)))
    re = lax.select(by_real, lax.mul(lax.add(ar, lax.mul(ai, rat_r)), scl_r),
                    lax.mul(lax.add(lax.mul(ar, rat_i), ai), scl_i))
    im = lax.select(by_real, lax.mul(lax.sub(ai, lax.mul(ar, rat_r)), scl_r),
                    lax.mul(lax.sub(lax.mul(ai, rat_i), ar), scl_i))
    both_zero = (br == zero) & (bi == zero)
    re = lax.select(both_zero, lax.div(ar, lax.abs(br)), re)
    im = lax.select(both_zero, lax.div(ai, lax.abs(br)), im)
    return _flat_complex(re, im)


def install_complex128(platforms: tuple[str, ...]) -> bool:
    """complex128 ``abs``, division and negative integer powers from the float64 parts."""
    mlir = _lowering_api()
    if mlir is None:
        return False
    for platform in platforms:
        _register(mlir, lax.abs_p, platform, _is_complex128, _complex_abs)
        _register(mlir, lax.div_p, platform, _is_complex128, _complex_div)
        _register(mlir, lax.integer_pow_p, platform, _is_complex128_inverse,
                  _complex_inverse_power)
    return True


def _scan_prims() -> dict:
    from jax._src.lax.control_flow import loops
    return {loops.cumsum_p: (lax.add, np.add), loops.cumprod_p: (lax.mul, np.multiply),
            loops.cummax_p: (lax.max, np.maximum), loops.cummin_p: (lax.min, np.minimum)}


def install_scans(platforms: tuple[str, ...]) -> bool:
    """``cumsum``/``cumprod``/``cummax``/``cummin`` as ``lax.associative_scan``."""
    mlir = _lowering_api()
    if mlir is None:
        return False
    for prim, (combine, _) in _scan_prims().items():
        def tree(x: Any, *, axis: int, reverse: bool, combine: Callable = combine) -> Any:
            return lax.associative_scan(combine, x, reverse=reverse, axis=axis)

        for platform in platforms:
            _register(mlir, prim, platform, lambda *_: True, tree)
    return True


def _bitcast(x: Any, *, new_dtype: Any, **_: Any) -> Any:
    new = np.dtype(new_dtype)
    if np.dtype(x.dtype) == _F64:  # float64 -> (u)int64: low word, high word
        w = lax.bitcast_convert_type(x, np.uint32)
        lo, hi = (lax.convert_element_type(w[..., k], new) for k in (0, 1))
        return lax.bitwise_or(lax.shift_left(hi, lax.full_like(hi, 32)), lo)
    u = lax.convert_element_type(x, np.uint64) if x.dtype == np.int64 else x
    lo = lax.convert_element_type(lax.bitwise_and(u, lax.full_like(u, 0xFFFFFFFF)), np.uint32)
    hi = lax.convert_element_type(lax.shift_right_logical(u, lax.full_like(u, 32)), np.uint32)
    return lax.bitcast_convert_type(lax.concatenate([lo[..., None], hi[..., None]], x.ndim),
                                    _F64)


def _is_float64_bitcast(avals_in: Any, avals_out: Any, params: dict) -> bool:
    pair = {np.dtype(avals_in[0].dtype), np.dtype(params["new_dtype"])}
    return _F64 in pair and len(pair & {np.dtype(np.int64), np.dtype(np.uint64)}) == 1


def install_bitcasts(platforms: tuple[str, ...]) -> bool:
    """float64 <-> (u)int64 bitcasts through two 32-bit words."""
    mlir = _lowering_api()
    if mlir is None:
        return False
    for platform in platforms:
        _register(mlir, lax.bitcast_convert_type_p, platform, _is_float64_bitcast, _bitcast)
    return True


def _is_trivial_sort(avals_in: Any, avals_out: Any, params: dict) -> bool:
    return avals_in[0].shape[params["dimension"]] <= 1 or avals_in[0].size == 0


def install_sorts(platforms: tuple[str, ...]) -> bool:
    """A sort along an axis of length 0 or 1, or of no elements, is its operands as they
    are."""
    mlir = _lowering_api()
    if mlir is None:
        return False
    for platform in platforms:
        _register(mlir, lax.sort_p, platform, _is_trivial_sort, lambda *ops, **_: list(ops))
    return True


def _np_dot_general(lhs: np.ndarray, rhs: np.ndarray, *, dimension_numbers: Any,
                    out_dtype: np.dtype, **_: Any) -> np.ndarray:
    """``lax.dot_general`` by ``numpy.einsum``: batch dimensions, then the free ones."""
    (lc, rc), (lb, rb) = dimension_numbers
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    ls = [next(letters) for _ in range(lhs.ndim)]
    rs = [next(letters) for _ in range(rhs.ndim)]
    for i, j in (*zip(lc, rc), *zip(lb, rb)):
        rs[j] = ls[i]
    batch = [ls[i] for i in lb]
    free = ([c for i, c in enumerate(ls) if i not in lc and i not in lb]
            + [c for j, c in enumerate(rs) if j not in rc and j not in rb])
    spec = f"{''.join(ls)},{''.join(rs)}->{''.join(batch + free)}"
    return np.einsum(spec, lhs.astype(out_dtype), rhs.astype(out_dtype))


def _np_sort(*ops: np.ndarray, dimension: int, num_keys: int, **_: Any) -> list:
    """``lax.sort``: stable, by the first ``num_keys`` operands (complex ones by real part,
    then imaginary), NaN last and ``-0.0 == 0.0`` as XLA's sort orders floats."""
    last = [np.moveaxis(o, dimension, -1) for o in ops]
    keys = [p for k in last[:num_keys] for p in ((k.real, k.imag) if k.dtype.kind == "c"
                                                  else (k,))]
    perm = np.lexsort(keys[::-1], axis=-1)
    return [np.moveaxis(np.take_along_axis(o, perm, axis=-1), -1, dimension) for o in last]


def _np_scan(np_ufunc: Any) -> Callable:
    def scan(x: np.ndarray, *, axis: int, reverse: bool, out_dtype: np.dtype,
             **_: Any) -> np.ndarray:
        y = np.flip(x, axis) if reverse else x
        r = np_ufunc.accumulate(y, axis=axis, dtype=out_dtype)
        return np.flip(r, axis) if reverse else r
    return scan


def _joined(re: np.ndarray, im: np.ndarray, shape: tuple) -> np.ndarray:
    """complex128 from flat parts (``re + 1j * im`` would turn an imaginary -0.0 into 0.0)."""
    z = np.empty(shape, _C128)
    z.real, z.imag = re.reshape(shape), im.reshape(shape)
    return z


def _np_plain(np_fn: Callable) -> Callable:
    return lambda *xs, out_dtype, **_: np_fn(*xs)


# complex128 primitives the TPU's compiler aborts or fails on (_capabilities.TABLE): NumPy's
COMPLEX_ON_HOST: dict = {
    lax.tan_p: _np_plain(np.tan), lax.tanh_p: _np_plain(np.tanh),
    lax.expm1_p: _np_plain(np.expm1), lax.sign_p: _np_plain(np.sign),
    lax.pow_p: _np_plain(np.power),
    lax.transpose_p: lambda x, *, permutation, **_: np.transpose(x, permutation),
    lax.concatenate_p: lambda *xs, dimension, **_: np.concatenate(xs, axis=dimension)}


def host_primitives() -> dict:
    """Primitive -> (its capability family, NumPy's version of it)."""
    prims: dict = {lax.dot_general_p: ("dot_general", _np_dot_general),
                   lax.sort_p: ("sort", _np_sort)}
    prims.update({prim: (prim.name, fn) for prim, fn in COMPLEX_ON_HOST.items()})
    for prim, (_, ufunc) in _scan_prims().items():
        prims[prim] = (prim.name, _np_scan(ufunc))
    return prims


def host_call(numpy_fn: Callable, shapes: Any, *args: Any) -> Any:
    """``jax.pure_callback(numpy_fn, shapes, *args)`` in which no empty array crosses: a
    TPU's runtime aborted on a host transfer of no elements ("HostCommand byte_offset -1",
    a sort of a 2 x 0 stack, a ``searchsorted`` of no values). ``numpy_fn`` gets new empty
    arrays in their place; the program makes the empty results; with none other, no
    callback at all."""
    import jax

    outs, tree = jax.tree.flatten(shapes)
    specs = [(x.size, x.shape, np.dtype(x.dtype)) for x in args]

    def run(*host: np.ndarray) -> list:
        sent = iter(host)
        xs = [next(sent) if size else np.empty(shape, dtype) for size, shape, dtype in specs]
        return [g for g, s in zip(jax.tree.leaves(numpy_fn(*xs)), outs) if s.size]

    back = [s for s in outs if s.size]
    got = iter(jax.pure_callback(run, back, *(x for x in args if x.size),
                                 vmap_method="sequential") if back else ())
    return tree.unflatten([next(got) if s.size else lax.full(s.shape, 0, s.dtype)
                           for s in outs])


def install_on_host(platform: str, on_host: Callable[[str, Any], bool],
                    counted: Callable[[str, Any], None]) -> bool:
    """On ``platform``, each primitive of ``host_primitives`` whose first operand's dtype
    ``on_host(family, dtype)`` names is computed by NumPy through ``host_call``
    (``counted(family, dtype)`` at each host run)."""
    mlir = _lowering_api()
    if mlir is None:
        return False
    import jax

    for prim, (family, numpy_fn) in host_primitives().items():
        def handles(avals_in: Any, avals_out: Any, params: dict, family: str = family) -> bool:
            return on_host(family, avals_in[0].dtype)

        def on_numpy(*xs: Any, prim: Any = prim, family: str = family,
                     numpy_fn: Callable = numpy_fn, **params: Any) -> Any:
            dtype = np.dtype(xs[0].dtype)
            shapes = jax.eval_shape(lambda *a, prim=prim: prim.bind(*a, **params), *xs)
            many = isinstance(shapes, list | tuple)
            outs = list(shapes) if many else [shapes]
            out_dtype = outs[0].dtype
            # complex128 crosses as its float64 parts, flat: a TPU's transfer of a 2-D
            # complex128 result failed its layout check (a concatenation's, 10 x 5)
            wide = [np.dtype(x.dtype) == _C128 for x in xs]
            sent = [p for x, w in zip(xs, wide) for p in (_flat_parts(x) if w else (x,))]
            back = [q for s in outs for q in (
                (jax.ShapeDtypeStruct((s.size,), _F64),) * 2 if s.dtype == _C128 else (s,))]

            def run(*host: np.ndarray) -> Any:
                counted(family, dtype)
                parts = iter(np.asarray(h) for h in host)
                args = [_joined(next(parts), next(parts), x.shape) if w else next(parts)
                        for x, w in zip(xs, wide)]
                got = numpy_fn(*args, out_dtype=out_dtype, **params)
                fit = []
                for g, s in zip(got if many else [got], outs):
                    g = np.asarray(g, s.dtype).reshape(s.shape)
                    fit += [g.real.ravel(), g.imag.ravel()] if s.dtype == _C128 else [g]
                return fit

            got = iter(host_call(run, back, *sent))
            results = [_flat_complex(next(got), next(got)).reshape(s.shape)
                       if s.dtype == _C128 else next(got) for s in outs]
            return results if many else results[0]

        _register(mlir, prim, platform, handles, on_numpy, cacheable=False)
    return True
