"""Calls given or making float64 where the accelerator cannot hold it (``_capabilities
.HOST_DTYPES``: a TPU), compared with NumPy in the two-CPU-device simulation of
``test_lazy_cold`` (device 0 the accelerator, device 1 the host's CPU backend; every array on
the device): value, dtype, flags and exception class as NumPy's, float64 results never on the
accelerator. Found by ``benchmarks/host_dtype_audit.py``."""

from __future__ import annotations

import textwrap

from tests.test_lazy_cold import _two_cpu_devices, pytestmark  # noqa: F401  (the simulation)

SETUP = textwrap.dedent("""
    import warnings
    import jax, numpy as np, npjax
    from npjax._execution import _lazy_cold
    from npjax._pure import _capabilities
    home, cold = jax.devices("cpu")
    _capabilities.HOST_DTYPES = {"cpu": frozenset({"float64", "complex128"})}
    _lazy_cold.cold_device = lambda: cold

    def plain(x):
        if isinstance(x, npjax.ndarray):
            where = "host" if x._host() is not None else \\
                "cold" if sorted(x._read().devices()) == [cold] else "home"
            if x.dtype in (np.float64, np.complex128) and where == "home":
                raise AssertionError("float64 on the accelerator")
            return ("array", x.dtype, x.shape, np.asarray(x).tolist())
        if isinstance(x, np.ndarray):
            return ("array", x.dtype, x.shape, x.tolist())
        if isinstance(x, tuple | list):
            return tuple(plain(v) for v in x)
        return (type(x).__name__ if isinstance(x, np.generic) else "py", np.asarray(x).tolist())

    def outcome(xp, fn):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = plain(fn(xp))
            return got, sorted({str(w.message) for w in caught})
        except Exception as exc:
            return ("raised", type(exc).__name__)
    """)

SCRIPT = SETUP + textwrap.dedent("""
    def flags(r, xp):
        return r, r.flags.c_contiguous, r.flags.f_contiguous, r.flags.owndata, xp.isfortran(r)

    def rng(xp, seed=0):
        return xp.random.default_rng(seed)

    CASES = {
        "round_half": lambda xp: xp.round(2.5),
        "round_neg_zero": lambda xp: xp.round(-0.5, 0),
        "apply_float_of_int": lambda xp: xp.apply_along_axis(
            lambda x: x[0] if x[0] > 1 else 0.5, 1, xp.arange(6).reshape(3, 2)),
        "apply_int_then_float": lambda xp: xp.apply_along_axis(
            lambda x: x[0] if x[0] < 1 else 0.5, 1, xp.arange(6).reshape(3, 2)),
        "apply_half": lambda xp: xp.apply_along_axis(lambda x: x * 0.5, 0,
                                                     xp.arange(6).reshape(3, 2)),
        "apply_empty": lambda xp: xp.apply_along_axis(lambda x: 0.0, 0,
                                                      xp.zeros((0, 3), dtype=int)),
        "vectorize_sum": lambda xp: xp.vectorize(lambda x: x.sum() * 1.5,
                                                 signature="(n)->()")(xp.arange(6).reshape(2, 3)),
        "vectorize_scalar": lambda xp: xp.vectorize(lambda x: x / 2, signature="()->()")(9),
        "vectorize_otypes": lambda xp: xp.vectorize(
            lambda x: x.sum(), signature="(n)->()", otypes=[np.float64])(
                xp.arange(6).reshape(2, 3)),
        "vectorize_two": lambda xp: xp.vectorize(
            lambda x, y: (x * y, x.sum() + 0.5), signature="(n),(n)->(n),()")(
                xp.arange(6).reshape(2, 3), xp.arange(3.0)),
        "choice_empty": lambda xp: rng(xp).choice([], 2),
        "choice_empty_none": lambda xp: rng(xp).choice(xp.asarray([]), 0),
        "choice_float_size": lambda xp: rng(xp).choice(xp.asarray(2.5)),
        "permutation_float_scalar": lambda xp: rng(xp).permutation(np.float64(3.5)),
        "legacy_permutation_scalar": lambda xp: xp.random.RandomState(0).permutation(
            xp.asarray(3.5)),
        "normal_bad_scale": lambda xp: rng(xp).normal(0.0, xp.asarray([1.0, -1.0])),
        "poisson_bad_lam": lambda xp: rng(xp).poisson(xp.asarray([-1.0])),
        "integers_float_bounds": lambda xp: rng(xp).integers(xp.asarray([0.0, 1.0]), 5)
                                                .shape,
    }
    def window_loop(xp):  # windows of a float64 (CPU backend) array, a float64 NumPy scalar
        x = xp.arange(48) * 0.5
        for k in range(1, 12):
            x[:k] -= np.float64(1.5) * x[:k][::-1]
        return x

    def stores(xp):  # 0-d float64 values into int64 arrays: NumPy's conversion
        a, b, c = xp.zeros(3, xp.int64), xp.zeros(3, xp.int64), xp.zeros(4, xp.int8)
        a.fill(xp.array(np.nan))
        b[1] = xp.array(2.75)
        b[b == 0] = xp.array(-1.5)
        c[[0, 2]] = xp.asarray([300.5, -7.25])
        c[1:2] = xp.asarray([1e10])
        return a, b, c

    def numpy_outs(xp):  # NumPy arrays as out= of a float64 call: given back themselves
        o, p, q = np.full(3, 4.0), np.full(3, 5.0), np.zeros(3)
        r = xp.sin(xp.arange(3.0), out=o)
        f, i = xp.modf(xp.arange(3.0) / 2, p, q)
        return (r is o, f is p, i is q), o, p, q

    CASES.update(window_loop=window_loop, stores=stores, numpy_outs=numpy_outs)
    for req in (None, "F", ["F", "W"], ["A", "O"], "E", "C", ["OWNDATA"]):
        CASES[f"require_{req}".replace(" ", "")] = lambda xp, req=req: flags(
            xp.require(xp.ones((2, 3)).T, np.float32, req), xp)
        CASES[f"require_f64_{req}".replace(" ", "")] = lambda xp, req=req: flags(
            xp.require(xp.ones((2, 3)).T, None, req), xp)

    # NumPy's stream (random="numpy"): the same numbers as NumPy's generator
    x_n = np.arange(24.0).reshape(4, 6)
    STREAM = {
        "permuted": lambda xp, g: g.permuted(xp.asarray(x_n)),
        "permuted_axis": lambda xp, g: g.permuted(xp.asarray(x_n), axis=1),
        "permutation": lambda xp, g: g.permutation(xp.asarray(x_n), axis=1),
        "choice": lambda xp, g: g.choice(xp.asarray(x_n[0]), 4),
        "choice_axis": lambda xp, g: g.choice(xp.asarray(x_n), 3, axis=1, replace=False),
        "normal": lambda xp, g: g.normal(xp.asarray([0.0, 10.0]), xp.asarray([1.0, 2.0])),
    }
    with npjax.policy(placement="device"):
        for name, fn in CASES.items():
            want, got = outcome(np, fn), outcome(npjax, fn)
            print(name, got == want, "" if got == want else f"| {got} {want}")
        with npjax.policy(random="numpy"):
            for name, fn in STREAM.items():
                want = outcome(np, lambda xp: fn(xp, rng(np, 5)))
                got = outcome(npjax, lambda xp: fn(xp, rng(npjax, 5)))
                print("stream", name, got == want, "" if got == want else f"| {got} {want}")
        with npjax.policy(random="jax"):  # JAX's stream: a permutation of the values
            out = npjax.zeros((4, 6))
            for axis in (None, 0, 1):
                got = rng(npjax).permuted(npjax.asarray(x_n), axis=axis)
                into = rng(npjax).permuted(npjax.asarray(x_n), axis=axis, out=out)
                print("jax_permuted", axis, into is out, np.array_equal(np.asarray(out), got),
                      got.dtype, np.array_equal(np.sort(np.asarray(got), axis=axis),
                                                np.sort(x_n, axis=axis)))
        x = npjax.arange(3.0)  # (a host array: JAX's value of it lives on the CPU backend)
        j = x.to_jax()
        print("to_jax", sorted(j.devices()) == [cold], j.dtype, np.asarray(j).tolist())
        print("to_device", x.to_device(x.device) is x, x.to_device(cold)._read().devices() ==
              {cold}, np.asarray(x.to_device(cold)).tolist())
        with warnings.catch_warnings(record=True) as caught:  # NumPy's own polyfit, run for
            warnings.simplefilter("always")  # float64: its warning names this line
            npjax.polyfit([1.0, 1.0, 1.0], [1.0, 2.0, 3.0], 2)
        import inspect
        print("rank_warning_line", [w.filename for w in caught] ==
              [inspect.currentframe().f_code.co_filename])
    """)


def test_float64_calls_match_numpy_where_the_accelerator_cannot_hold_float64():
    """``require``'s flags, ``apply_along_axis``/``vectorize(signature=)`` with float64
    results, ``npjax.random``'s checks (NumPy's exception classes, not npjax's ``HostOnly``)
    and draws given float64 data, ``round`` of a float, values stored into int arrays, and
    the windows of a loop over ``x[:k]`` (no ``where=`` without ``out=`` warning);
    ``to_jax``/``to_device`` of a float64 host array (on the CPU backend); NumPy arrays given
    as ``out=`` given back themselves."""
    lines = _two_cpu_devices(SCRIPT)
    assert len(lines) == 21 + 14 + 6 + 3 + 2 + 1, lines
    assert "to_jax True float64 [0.0, 1.0, 2.0]" in lines
    assert "rank_warning_line True" in lines
    assert "to_device True True [0.0, 1.0, 2.0]" in lines
    verdicts = [ln.split()[:3] for ln in lines if ln.startswith("stream")] + [
        ln.split()[:2] for ln in lines
        if not ln.startswith(("stream", "jax_permuted", "to_", "rank_warning"))]
    assert all(v[-1] == "True" for v in verdicts), [ln for ln in lines if "|" in ln]
    for ln in (ln for ln in lines if ln.startswith("jax_permuted")):
        assert ln.split()[2:] == ["True", "True", "float64", "True"], ln


# What the simulation found after the calls above: subclass instances of a float64 host
# array, byte fields, JAX transforms, ``__array__`` returning an npjax array, ``nditer``.
SCRIPT_MORE = SETUP + textwrap.dedent("""
    import pickle

    class NpSub(np.ndarray):
        def __array_finalize__(self, obj):
            self.info = getattr(obj, "info", "default")

    class NjSub(npjax.ndarray):
        def __array_finalize__(self, obj):
            self.info = getattr(obj, "info", "default")

    SUB = {np: NpSub, npjax: NjSub}

    def kind(xp, r):
        if isinstance(r, tuple | list):
            return tuple(kind(xp, v) for v in r)
        return "sub" if type(r) is SUB[xp] else "base" if type(r) is xp.ndarray else \\
            type(r).__name__

    def with_class(fn):  # the class NumPy gives (the subclass or the base class), and info
        def run(xp):
            s = xp.arange(6.0).reshape(2, 3).view(SUB[xp])
            s.info = "mine"
            r = fn(xp, s)
            return kind(xp, r), getattr(r, "info", None), r, s
        return run

    def filled(r):
        r.fill(0)
        return r

    def field(src, dtype, offset, val):
        def run(xp):
            a = xp.asarray(np.arange(1, 4).astype(src))
            a.setfield(xp.asarray(np.asarray(val, dtype)), dtype, offset)
            got = a.getfield(dtype, offset)
            return a.view(np.uint8) if xp is np else xp.asarray(np.asarray(a).view(np.uint8)), \\
                got  # (npjax's getfield: a read-only copy; NumPy's a view)
        return run

    def like(xp):
        class Like:
            def __array__(self, dtype=None, copy=None):
                return xp.array([1.5, 2.0])
        return Like()

    def asserted(xp):
        xp.testing.assert_allclose(like(xp), [1.5, 2.0])
        xp.testing.assert_allclose(xp.intersect1d(like(xp), like(xp)), like(xp))
        try:
            xp.testing.assert_array_equal(like(xp), [1.5, 3.0])
        except AssertionError:
            return "raised"
        return "passed"

    def iterated(xp):
        a = xp.arange(6).reshape(2, 3)
        with xp.nditer([a, xp.arange(3.0), None]) as it:
            kinds = {kind(xp, v) for v in it}
            it.reset()
            for x, y, z in it:
                z[...] = x * y + 0.5
            made = it.operands[2], it.dtypes
        t = xp.arange(6.0).reshape(2, 3).T
        with xp.nditer(t, op_flags=["readwrite"]) as it:
            for v in it:
                v[...] = v * 2 + 0.25
        b = xp.arange(4, dtype=np.int32)
        with xp.nditer(b, flags=["buffered"], op_dtypes=["float64"], op_flags=["readwrite"],
                       casting="unsafe") as it:
            for v in it:
                v[...] = v * 2.7
        return sorted(kinds), made, t, b, [v for v in xp.nditer(xp.arange(3.0))]

    CASES = {
        "zeros_like": with_class(lambda xp, s: xp.zeros_like(s)),
        "ones_like": with_class(lambda xp, s: xp.ones_like(s)),
        "empty_like": with_class(lambda xp, s: filled(xp.empty_like(s))),
        "full_like": with_class(lambda xp, s: xp.full_like(s, 7, shape=(3,))),
        "full_like_base": with_class(lambda xp, s: xp.full_like(s, 2.5, subok=False)),
        "copy_subok": with_class(lambda xp, s: xp.copy(s, subok=True)),
        "copy": with_class(lambda xp, s: xp.copy(s)),
        "require": with_class(lambda xp, s: xp.require(s)),
        "require_CW": with_class(lambda xp, s: xp.require(s, requirements="CW")),
        "require_E": with_class(lambda xp, s: xp.require(s, requirements="E")),
        "require_dtype": with_class(lambda xp, s: xp.require(s, np.float32)),
        "ufunc_two": with_class(lambda xp, s: xp.add(xp.ones(3), s)),
        "ufunc_out": with_class(lambda xp, s: xp.multiply(s, 2, out=s) is s),
        "pickle": with_class(lambda xp, s: pickle.loads(pickle.dumps(s))),
        "setfield_f8": field(np.float64, np.float64, 0, [1.5, -2.0, 3.25]),
        "setfield_f8_i4": field(np.float64, np.int32, 4, [7, -8, 9]),
        "setfield_i8_f8": field(np.int64, np.float64, 0, [1.5, -2.0, 3.25]),
        "setfield_c16_f8": field(np.complex128, np.float64, 8, [1.5, -2.0, 3.25]),
        "setfield_f8_i1": field(np.float64, np.int8, 3, [-1, 2, 3]),
        "setfield_too_big": field(np.float64, np.float64, 4, [1.0, 2.0, 3.0]),
        "array_method_asarray": lambda xp: xp.asarray(like(xp)),
        "array_method_sin": lambda xp: xp.sin(like(xp)),
        "array_method_add": lambda xp: xp.add(like(xp), 1),
        "array_method_sum": lambda xp: xp.sum(like(xp)),
        "array_method_concatenate": lambda xp: xp.concatenate([like(xp), like(xp)]),
        "array_method_testing": asserted,
        "nditer": iterated,
    }
    with npjax.policy(placement="device"):
        for name, fn in CASES.items():
            want, got = outcome(np, fn), outcome(npjax, fn)
            print(name, got == want, "" if got == want else f"| {got} {want}")
        x = npjax.arange(6.0).reshape(2, 3)  # JAX transforms of a float64 host array
        doubled = jax.jit(lambda a: a * 2)(x)
        grad = jax.grad(lambda a: (a * a).sum().to_jax())(x)
        rows = jax.vmap(lambda r: r.sum())(x)
        print("jax", type(doubled) is npjax.ndarray, plain(doubled) == plain(np.arange(6.0)
              .reshape(2, 3) * 2), plain(grad) == plain(2 * np.arange(6.0).reshape(2, 3)),
              np.asarray(rows).tolist() == [3.0, 12.0])
        item = next(iter(npjax.nditer(npjax.arange(3.0))))
        print("nditer_items", type(item) is npjax.ndarray, item._host() is not None)
    """)


def test_subclasses_fields_transforms_array_methods_and_nditer_match_numpy():
    """A float64 subclass instance keeps its class (``*_like``, ``copy(subok=True)``,
    ``require``, a two-operand ufunc, ``out=``, pickling); ``setfield``/``getfield`` of
    float64 bytes; ``jax.jit``/``grad``/``vmap`` of a float64 host array; an object whose
    ``__array__`` returns a float64 npjax array; ``nditer`` over float64 operands (npjax's
    iterator: 0-d npjax arrays, writes back at close)."""
    lines = _two_cpu_devices(SCRIPT_MORE)
    assert len(lines) == 27 + 2, lines
    assert [ln for ln in lines if "|" in ln or ln.split()[1] != "True"] == [], lines
    assert "jax True True True True" in lines
    assert "nditer_items True True" in lines


SCRIPT_VIEW = SETUP + textwrap.dedent("""
    with npjax.policy(placement="device"):
        a = npjax.asarray(np.arange(4, dtype=np.int64))
        halves = a.view(np.int32)
        try:
            a.view(np.float64)
            print("view_float64 no error")
        except NotImplementedError as exc:
            print("view_float64", "float64" in str(exc) and "cpu" in str(exc))
    print("view_int32", a._host() is None, np.asarray(halves).tolist() ==
          np.arange(4, dtype=np.int64).view(np.int32).tolist())
    """)


def test_a_device_arrays_view_as_a_dtype_the_backend_cannot_hold_is_refused():
    """A view shares memory, so a device int64 array seen as float64 (which the simulated
    accelerator cannot hold) raises NotImplementedError naming the dtype and the backend,
    rather than a host copy whose writes would be lost; views as device dtypes work."""
    lines = _two_cpu_devices(SCRIPT_VIEW)
    assert lines == ["view_float64 True", "view_int32 True True"], lines


SCRIPT_INDEX = SETUP + textwrap.dedent("""
    def i8(xp):
        return xp.asarray(np.array([1, -3, 7], np.int8))

    def f4(xp):
        return xp.asarray(np.array([1.5, 2.0, -1.0], np.float32))

    def stored(xp, index):
        a = f4(xp)
        a[index] = 5
        return a

    def at(xp, a, *args):
        xp.add.at(a, *args)
        return a

    CASES = {
        "empty_list": lambda xp: f4(xp)[[]],
        "empty_nested": lambda xp: f4(xp)[[[]]],
        "empty_pair": lambda xp: xp.asarray(np.ones((2, 3), np.float32))[[], []],
        "store_empty": lambda xp: stored(xp, []),
        "at_empty": lambda xp: at(xp, i8(xp), [], 1),
        "at_float_value": lambda xp: at(xp, i8(xp), [0, 0], 1.5),
        "at_float_list": lambda xp: at(xp, i8(xp), [1, 2], [0.5, 2.5]),
        "outer_float_lists": lambda xp: xp.add.outer([1, 2], [3.5, 4]),
        "reduce_float_list": lambda xp: xp.multiply.reduce([1.5, 2.0]),
    }
    with npjax.policy(placement="device"):
        for name, fn in CASES.items():
            want, got = outcome(np, fn), outcome(npjax, fn)
            print(name, got == want, "" if got == want else f"| {got} {want}")
        a = i8(npjax)
        npjax.add.at(a, [0, 0], 1.5)
        print("at_in_place", a._host() is None, np.asarray(a).tolist() == [3, -3, 7])
    """)


def test_empty_list_indices_and_ufunc_methods_of_float_operands_match_numpy():
    """An empty list is an intp index (NumPy's float64 of it was taken for a host array the
    accelerator cannot hold: IndexError); a ufunc method whose list or scalar operand is
    float64 runs NumPy's (``HostOnly`` escaped), ``at`` writing into the device array."""
    lines = _two_cpu_devices(SCRIPT_INDEX)
    assert len(lines) == 9 + 1, lines
    assert [ln for ln in lines if "|" in ln or ln.split()[1] != "True"] == [], lines
    assert "at_in_place True True" in lines


SCRIPT_DRAWS = SETUP + textwrap.dedent("""
    with npjax.policy(placement="device", random="jax"):
        g = npjax.random.default_rng(0)
        for name, draw in {"random_small": lambda: g.random(3),
                           "random_large": lambda: g.random(20000),
                           "normal": lambda: g.normal(0.0, 2.0, (4, 5)),
                           "legacy_rand": lambda: npjax.random.rand(3),
                           "then_arithmetic": lambda: g.random(3) * 2.0 + 1.0}.items():
            try:
                x = draw()
                plain(x)
                print(name, x.dtype == np.float64)
            except AssertionError as exc:
                print(name, "|", exc)
    """)


def test_float64_draws_stay_off_the_accelerator():
    """A JAX-stream float64 draw of a NumPy-held key runs on the host's CPU backend and its
    result stays there (it was uncommitted, and the next ``jax.jit`` call, the cut of a
    bucketed draw, took it to the accelerator)."""
    lines = _two_cpu_devices(SCRIPT_DRAWS)
    assert lines == ["random_small True", "random_large True", "normal True",
                     "legacy_rand True", "then_arithmetic True"], lines


SCRIPT_TRACED_ONCE = SETUP + textwrap.dedent("""
    traces = []

    def kernel(a):
        traces.append(a.dtype)  # the user's Python: runs once per trace
        return a * 2.0 + 1.0

    jitted = npjax.jit(kernel)
    with npjax.policy(placement="device"):
        for dtype in (np.float64, np.float32):
            got = jitted(npjax.asarray(np.arange(4.0, dtype=dtype)))
            got = jitted(npjax.asarray(np.arange(4.0, dtype=dtype)))
            plain(got)
            print(np.dtype(dtype).name, len(traces), np.asarray(got).tolist())
            traces.clear()
    """)


def test_a_jit_function_of_float64_is_traced_once():
    """``npjax.jit`` of float64 arrays runs on the host's CPU backend from the one trace that
    found the float64 (a default-device context around the CPU run traced it again: the
    user's Python ran twice)."""
    lines = _two_cpu_devices(SCRIPT_TRACED_ONCE)
    assert lines == ["float64 1 [1.0, 3.0, 5.0, 7.0]", "float32 1 [1.0, 3.0, 5.0, 7.0]"], lines


SCRIPT_WARNINGS = SETUP + textwrap.dedent("""
    CASES = {
        "histogram_of_bools": lambda xp: xp.histogram(xp.asarray([True, False, True]), 4),
        "corrcoef_of_a_constant_row": lambda xp: xp.corrcoef(xp.asarray([0, 0, 0]),
                                                             xp.asarray([1, 2, 3])),
        "mean_of_empty_ints": lambda xp: xp.mean(xp.asarray([[1, 2]])[:0], axis=0),
        "var_ddof_past_n": lambda xp: xp.var(xp.asarray([[1, 2]]), axis=0, ddof=2),
    }
    with npjax.policy(placement="device"):
        for name, fn in CASES.items():
            want, got = repr(outcome(np, fn)), repr(outcome(npjax, fn))  # (nan: by repr)
            counts = []
            for xp in (np, npjax):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    fn(xp)
                counts.append(len(caught))
            print(name, want == got and counts[0] == counts[1], "|" if want != got else "",
                  counts)
    """)


def test_a_host_rerun_does_not_warn_again():
    """A body that gave NumPy's warnings and then stopped (a float64 made on the way) or
    ended with a float64 result is rerun by NumPy on the host: its warnings once, not twice
    (``_runtime/_rerun_warnings``)."""
    lines = _two_cpu_devices(SCRIPT_WARNINGS)
    assert len(lines) == 4 and all(ln.split()[1] == "True" for ln in lines), lines


SCRIPT_MEMORY = SETUP + textwrap.dedent("""
    with npjax.policy(placement="device"):
        a = npjax.asarray(np.arange(3.0))  # float64: a host array there
    wrapped = np.asarray(a)
    print(a._host() is not None, hasattr(a, "__array_struct__"), wrapped.dtype,
          np.shares_memory(wrapped, a._host()))
    """)


def test_float64_host_arrays_give_numpy_their_memory():
    """A float64 host array where the accelerator cannot hold float64 hands NumPy its C array
    interface as any numeric host array does (it was withheld, as for str or datetime)."""
    assert _two_cpu_devices(SCRIPT_MEMORY) == ["True True float64 True"]


SCRIPT_LAZY = SETUP + textwrap.dedent("""
    x = np.random.default_rng(0).random(1000).astype(np.float32)
    with npjax.policy(placement="device"):
        a = npjax.asarray(x)
    npjax.reset_stats()
    with npjax.policy(placement="device", mode="lazy"):
        s = npjax.sqrt(a * a + 2 * a + 1).sum()
        m = npjax.mean(a * 3, axis=0)
        print("flushes", npjax.stats()["lazy"]["flushes"])
    """)


def test_lazy_results_are_not_computed_to_ask_where_they_live():
    """Asking whether a body's result is a float64 on the accelerator (``on_accelerator``)
    read an attribute of a pending ``Lazy`` result, which computed it: every lazy reduction
    flushed the recorded graph."""
    assert _two_cpu_devices(SCRIPT_LAZY) == ["flushes 0"]


SCRIPT_UFUNC_METHODS = SETUP + textwrap.dedent("""
    CASES = {
        "divide_reduce": lambda xp: xp.divide.reduce(xp.asarray([[8, 2], [4, 0]]), axis=0),
        "divide_accumulate": lambda xp: xp.divide.accumulate(xp.asarray([[8, 2], [4, 0]])),
        "hypot_reduce": lambda xp: xp.hypot.reduce(xp.asarray([[3, 2], [4, 1]]), axis=0),
        "heaviside_reduce": lambda xp: xp.heaviside.reduce(xp.asarray([[1, 0], [0, 0]])),
        "divide_outer": lambda xp: xp.divide.outer(xp.asarray([1, 2]), xp.asarray([4, 0])),
    }
    with npjax.policy(placement="device"):
        for name, fn in CASES.items():
            want, got = repr(outcome(np, fn)), repr(outcome(npjax, fn))
            print(name, want == got, "|" if want != got else "")
    """)


def test_ufunc_methods_of_int_arrays_with_float64_results_stay_off_the_accelerator():
    """``divide.reduce`` of ints (and other ufunc methods whose loop is float64) computed
    the float64 result on the accelerator; NumPy's now, its warnings once."""
    lines = _two_cpu_devices(SCRIPT_UFUNC_METHODS)
    assert len(lines) == 5 and all(ln.split()[1] == "True" for ln in lines), lines


SCRIPT_WEAK_DEFAULT = SETUP + textwrap.dedent("""
    x = np.linspace(-1, 1, 8).astype(np.float32)
    with npjax.policy(placement="device"):
        a = npjax.asarray(x)
        npjax.reset_stats()
        got = npjax.select([a > 0, a < -0.5], [a, a * 2], 0.25)
        fetched = npjax.stats()["transfers"]["device_to_host"]["count"]
        want = np.select([x > 0, x < -0.5], [x, x * 2], 0.25)
        print(got.dtype == want.dtype, got._host() is None, np.asarray(got).tolist() ==
              want.tolist(), "fetched", fetched)
    """)


def test_a_python_float_default_of_select_stays_on_the_device():
    """``select``'s Python float default, cast to the float32 result where NumPy casts it
    (as NumPy's float64 first, a host array on a TPU, the call ran on the host)."""
    assert _two_cpu_devices(SCRIPT_WEAK_DEFAULT) == ["True True True fetched 0"]


SCRIPT_AUTOJIT_KINDS = SETUP + textwrap.dedent("""
    from npjax._compile import _autojit
    _autojit.MIN_CALL_S, _autojit.LOOK_S, _autojit.HOT_CHECK = 0.0, 0.0, 10**9
    _autojit.expected_compile_s = lambda: 0.0
    _autojit._index = _autojit._Index()
    _autojit._index.keys = {}

    def parts(a):
        return (a * 2).sum(), a * 2

    f = npjax.autojit(parts)
    for placement in ("auto", "device"):
        with npjax.policy(placement=placement):
            for call in range(4):  # as written, then compiled
                a = npjax.asarray(np.arange(4.0))  # float64: a host array there
                got, want = f(a), parts(a)
                print(placement, call, [type(x).__name__ for x in got] ==
                      [type(x).__name__ for x in want],
                      [getattr(x, "_host", lambda: 0)() is not None for x in got] ==
                      [getattr(x, "_host", lambda: 0)() is not None for x in want])
    print("compiled", [s["state"] for s in f.signatures()])
    """)


def test_autojit_of_float64_host_arrays_gives_the_kinds_as_written():
    """A compiled call of float64 host arrays gives host arrays and NumPy scalars, as the call
    as written does there (it gave device arrays of the CPU backend)."""
    lines = _two_cpu_devices(SCRIPT_AUTOJIT_KINDS)
    assert lines[-1].startswith("compiled") and "compiled'" in lines[-1], lines
    assert all(ln.endswith("True True") for ln in lines[:-1]), lines


SCRIPT_MADE = SETUP + textwrap.dedent("""
    from npjax._core import _ndarray
    made = []  # float64/complex128 arrays made on the accelerator, whatever became of them
    owner = _ndarray.ndarray._owner.__func__

    def counted(cls, value, scalar=False):
        if isinstance(value, jax.Array) and value.dtype in (np.float64, np.complex128) \\
                and home in value.devices():
            made.append(value.dtype)
        return owner(cls, value, scalar)

    _ndarray.ndarray._owner = classmethod(counted)
    i8 = np.array([[1, 25, -37], [140, 5, 6]])
    CASES = {
        "gradient_of_ints": lambda xp, a: xp.gradient(a),
        "gradient_of_ints_axis": lambda xp, a: xp.gradient(a, axis=1),
        "round_of_ints_to_tens": lambda xp, a: xp.round(a, -1),
        "around_of_ints_to_hundreds": lambda xp, a: xp.around(a, -2),
        "round_of_a_complex": lambda xp, a: xp.round(2.5 + 1.25j, 1),
        "round_of_a_list": lambda xp, a: xp.round([1.25, 2.5], 1),
        "round_method_of_ints": lambda xp, a: a.round(-1),
        "round_method_of_a_column": lambda xp, a: a[:, 1].round(-2),
        "poly_of_int_roots": lambda xp, a: xp.poly(a[0]),
        "poly1d_of_int_roots": lambda xp, a: xp.poly1d(a[0], True).coeffs,
        "polyval_at_floats": lambda xp, a: xp.polyval(a[0], [0.5, 2.0]),
        "isreal_of_a_list": lambda xp, a: xp.isreal([1.5, 2.0]),
        "imag_of_a_float_list": lambda xp, a: (xp.asarray([1.5]).imag,
                                              xp.asarray([1.5]).imag.flags.writeable),
        "divide_reduce_of_ints": lambda xp, a: xp.divide.reduce(a, axis=0),
        "divide_accumulate_of_ints": lambda xp, a: xp.divide.accumulate(a, axis=1),
        "clip_of_ints_to_floats": lambda xp, a: xp.clip(a, 0.5, 10),
        "bincount_with_weights": lambda xp, a: xp.bincount(xp.abs(a).ravel(),
                                                           weights=xp.abs(a).ravel()),
        "diff_of_floats_after_ints": lambda xp, a: xp.diff(a[0].astype(xp.float32),
                                                           prepend=a[1]),
        "histogram2d_of_floats_and_ints": lambda xp, a: xp.histogram2d(
            a[0].astype(xp.float32), a[1], bins=2),
    }
    for name, fn in CASES.items():
        with npjax.policy(placement="device"):
            a = npjax.asarray(i8)
            made.clear()
            want, got = repr(outcome(np, lambda xp: fn(xp, i8))), repr(outcome(npjax,
                                                                      lambda xp: fn(xp, a)))
        print(name, want == got, len(made))
    """)


def test_float64_results_are_left_to_numpy_before_any_device_work():
    """Functions whose result (or working dtype) is float64 for int operands made that
    float64 on the accelerator and then gave it up for NumPy's rerun on the host: wasted
    device work, emulated there. They now hand the call to NumPy before making anything."""
    lines = _two_cpu_devices(SCRIPT_MADE)
    assert len(lines) == 19 and all(ln.endswith(" True 0") for ln in lines), lines


SCRIPT_COUNTS = SETUP + textwrap.dedent("""
    from npjax._runtime import _stats
    gen = np.random.default_rng(3)
    x = (gen.standard_normal((4, 6)) * [[1.0], [1e30], [3e-37], [7.0]]).astype(np.float32)
    x[3, 2], x[3, 4] = -0.0, np.inf
    xn = x.copy()
    xn[0, 1] = xn[2, 5] = np.nan
    mask = gen.random((4, 6)) < 0.7
    tiny = np.array([2e-38, 1.5e-38, 0.0, 0.0, 0.0, 0.0, 0.0], np.float32)  # (mean subnormal)
    z = (x[:3] + 1j * x[:3][::-1]).astype(np.complex64)
    z[0, 0] = complex(np.inf, np.nan)
    CASES = {
        "mean": lambda xp, a: xp.mean(a),
        "mean_axis0": lambda xp, a: a.mean(axis=0),
        "mean_keepdims": lambda xp, a: xp.mean(a, axis=1, keepdims=True),
        "mean_where": lambda xp, a: xp.mean(a, axis=1, where=mask),
        "mean_float16": lambda xp, a: xp.mean(a.astype(xp.float16), axis=0),
        "mean_subnormal": lambda xp, a: xp.mean(xp.asarray(tiny)),
        "var": lambda xp, a: xp.var(a[[0, 2, 3]]),
        "var_ddof": lambda xp, a: xp.var(a[:3], axis=1, ddof=1),
        "var_negative_ddof": lambda xp, a: xp.var(a[:3], axis=0, ddof=-2),
        "std_where": lambda xp, a: xp.std(a, axis=0, where=mask),
        "nanmean": lambda xp, a: xp.nanmean(xp.asarray(xn), axis=1),
        "nanvar": lambda xp, a: xp.nanvar(xp.asarray(xn), axis=0, ddof=1),
        "nanstd": lambda xp, a: xp.nanstd(xp.asarray(xn)),
        "median": lambda xp, a: xp.median(a[:3], axis=1),
        "complex_mean": lambda xp, a: xp.mean(xp.asarray(z)),
        "complex_mean_axis": lambda xp, a: xp.asarray(z).mean(axis=0),
        "complex_var": lambda xp, a: xp.var(xp.asarray(z)[1:], axis=1),
        "mean_out": lambda xp, a: xp.mean(a, axis=0, out=xp.zeros(6, xp.float32)),
    }
    for mode in ("eager", "lazy"):
        for name, fn in CASES.items():
            with npjax.policy(placement="device", mode=mode), np.errstate(all="ignore"):
                a = npjax.asarray(x)
                before = _stats.lazy["host_dtype_on_cpu"]
                want = repr(outcome(np, lambda xp: xp.asarray(fn(xp, x))))
                got = repr(outcome(npjax, lambda xp: xp.asarray(fn(xp, a))))
                print(mode, name, want == got, _stats.lazy["host_dtype_on_cpu"] - before,
                      "" if want == got else want + " " + got)
    """)


def test_float32_means_divide_by_their_count_on_the_accelerator():
    """NumPy divides a float32 (complex64) sum by its count in float64: on an accelerator
    without float64 that division sent the whole reduction to the host's CPU backend (a
    float32 ``mean`` of 8M values on the TPU: its array fetched every call). It is now
    an integer long division on the device (``_quotient``), NumPy's bits."""
    lines = _two_cpu_devices(SCRIPT_COUNTS)
    assert len(lines) == 36 and all(" True 0" in ln for ln in lines), lines


SCRIPT_SPLIT = SETUP + textwrap.dedent("""
    from npjax._runtime import _stats
    gen = np.random.default_rng(4)
    f = gen.standard_normal((300, 400)).astype(np.float32)
    i8, u16, i32 = (f * 20).astype(np.int8), (abs(f) * 9000).astype(np.uint16), \
        (f * 1e6).astype(np.int32)
    CASES = {
        "bool_mean": lambda xp, a: (a > 0.5).mean(),
        "bool_mean_axis": lambda xp, a: xp.mean(a < 0, axis=0),
        "bool_mean_keepdims": lambda xp, a: (a < 1).mean(axis=1, keepdims=True),
        "int8_mean": lambda xp, a: xp.asarray(i8).mean(axis=1),
        "uint16_mean": lambda xp, a: xp.asarray(u16[:10]).mean(),
        "int32_mean": lambda xp, a: xp.asarray(i32).mean(axis=0),  # (as before: all sent)
        # a float32 chain, then the float64 mean of a mask: the chain stays on the device
        "chain_then_fraction": lambda xp, a: xp.stack(
            [xp.maximum(xp.exp(a * 0.2) - 1.0, 0.0).mean(), (a * a <= 1.0).mean()]),
    }
    for mode in ("eager", "lazy", "jit"):
        for name, fn in CASES.items():
            with npjax.policy(placement="device", mode="lazy" if mode == "lazy" else "eager"):
                a = npjax.asarray(f)
                run = npjax.jit(lambda a, fn=fn: fn(npjax, a)) if mode == "jit" else (
                    lambda a, fn=fn: fn(npjax, a))
                sent = _stats.transfers["device_to_host"][1]
                want = repr(outcome(np, lambda xp: xp.asarray(fn(xp, f))))
                got = repr(outcome(npjax, lambda xp: xp.asarray(run(a))))
                sent = _stats.transfers["device_to_host"][1] - sent
                print(mode, name, want == got, sent < f.size, "" if want == got else want + got)
    """)


def test_float64_means_of_masks_send_only_their_counts_to_the_host():
    """A boolean (or small int) array's mean is float64 in NumPy: where float64 is a host
    dtype the whole array went to the host's CPU backend for it, and in lazy mode every
    recorded call before it too (a float32 chain: its inputs). The sum is now counted on the
    accelerator (exact: NumPy's float64 sum of such values is the integer sum), and a lazy
    or ``npjax.jit`` program runs its part that needs no host dtype there first
    (``_host_split``): the host gets the counts."""
    lines = _two_cpu_devices(SCRIPT_SPLIT)
    assert len(lines) == 21, lines
    assert all(" True " in ln for ln in lines), lines
    big = [ln for ln in lines if not ln.split()[3] == "True"]
    assert [ln.split()[1] for ln in big] == ["int32_mean", "int32_mean"], lines
