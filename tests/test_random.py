"""npjax.random: names, the bit-exact "numpy" stream, result kinds of the "jax" stream,
parameter checks, shuffle/permutation/choice semantics."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import npjax
from tests._parity import assert_same, family

# (method, args, kwargs) calls valid for Generator; sizes are appended by the tests.
GEN_CALLS = [
    ("random", (), {}), ("random", (), {"dtype": np.float32}),
    ("standard_normal", (), {}), ("standard_normal", (), {"dtype": np.float32}),
    ("standard_exponential", (), {}), ("standard_exponential", (), {"dtype": np.float32}),
    ("standard_gamma", (2.5,), {}), ("standard_gamma", (0.5,), {"dtype": np.float32}),
    ("normal", (1.0, 2.0), {}), ("uniform", (-1.0, 3.0), {}), ("exponential", (2.0,), {}),
    ("gamma", (2.0, 3.0), {}), ("beta", (0.5, 2.0), {}), ("chisquare", (3.0,), {}),
    ("noncentral_chisquare", (3.0, 1.5), {}), ("f", (3.0, 5.0), {}),
    ("noncentral_f", (3.0, 5.0, 1.0), {}), ("gumbel", (0.5, 2.0), {}),
    ("laplace", (0.5, 2.0), {}), ("logistic", (0.5, 2.0), {}), ("lognormal", (0.1, 0.5), {}),
    ("pareto", (3.0,), {}), ("power", (2.0,), {}), ("rayleigh", (2.0,), {}),
    ("standard_cauchy", (), {}), ("standard_t", (4.0,), {}), ("triangular", (0.0, 1.0, 3.0), {}),
    ("vonmises", (0.5, 2.0), {}), ("wald", (1.0, 2.0), {}), ("weibull", (1.5,), {}),
    ("binomial", (10, 0.3), {}), ("negative_binomial", (5, 0.4), {}), ("poisson", (3.5,), {}),
    ("geometric", (0.3,), {}), ("logseries", (0.6,), {}), ("zipf", (2.5,), {}),
    ("hypergeometric", (7, 5, 4), {}), ("integers", (10,), {}), ("integers", (-5, 5), {}),
    ("integers", (0, 200), {"dtype": np.uint8}), ("integers", (0, 5), {"endpoint": True}),
    ("integers", (0, 2), {"dtype": bool}), ("integers", (3,), {"dtype": int}),
]
ARRAY_CALLS = [  # results are arrays even for size=None
    ("dirichlet", ([1.0, 2.0, 3.0],), {}), ("multinomial", (10, [0.2, 0.3, 0.5]), {}),
    ("multivariate_normal", ([0.0, 1.0], [[2.0, 0.5], [0.5, 1.0]]), {}),
    ("multivariate_hypergeometric", ([3, 4, 5], 6), {}),
    ("permutation", (7,), {}),
]
BROADCAST_CALLS = [  # array parameters broadcast against each other
    ("normal", ([0.0, 10.0, 20.0], [[1.0], [2.0]]), {}),
    ("uniform", ([0.0, 1.0], 2.0), {}), ("poisson", ([1.0, 2.0, 30.0],), {}),
    ("binomial", ([1, 5, 10], [[0.5], [0.1]]), {}), ("gamma", ([1.0, 2.0], [[1.0], [3.0]]), {}),
    ("integers", ([0, 10], [5, 20]), {}), ("standard_gamma", ([0.5, 1.0, 2.0],), {}),
    ("hypergeometric", ([5, 10], [5, 1], [3, 2]), {}), ("zipf", ([1.5, 3.0],), {}),
    ("vonmises", ([0.0, 1.0], [0.5, 1e-9]), {}),
]
LEGACY_CALLS = [
    ("rand", (), {}), ("rand", (2, 3), {}), ("randn", (), {}), ("randn", (4,), {}),
    ("random_sample", (), {}), ("random", (), {}), ("randint", (5,), {}),
    ("randint", (-3, 3), {}), ("randint", (0, 7), {"dtype": np.int32}),
    ("standard_normal", (), {}), ("standard_exponential", (), {}), ("standard_gamma", (2.0,), {}),
    ("normal", (1.0, 2.0), {}), ("uniform", (0.0, 2.0), {}), ("beta", (2.0, 3.0), {}),
    ("binomial", (10, 0.3), {}), ("poisson", (3.0,), {}), ("geometric", (0.3,), {}),
    ("negative_binomial", (5, 0.4), {}), ("logseries", (0.6,), {}), ("zipf", (2.5,), {}),
    ("hypergeometric", (7, 5, 4), {}), ("tomaxint", (), {}), ("random_integers", (5,), {}),
    ("chisquare", (2.0,), {}), ("wald", (1.0, 2.0), {}), ("vonmises", (0.0, 1.0), {}),
    ("triangular", (0.0, 1.0, 3.0), {}), ("weibull", (2.0,), {}), ("pareto", (3.0,), {}),
]
LEGACY_ARRAY_CALLS = [("dirichlet", ([1.0, 2.0],), {}), ("multinomial", (5, [0.5, 0.5]), {}),
                      ("multivariate_normal", ([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]), {}),
                      ("permutation", (6,), {})]
SIZES = [None, 3, (2, 3)]
SEEDS = [0, 12345]
NO_SIZE = {"rand", "randn", "permutation"}


def _sizes(name, args):
    """SIZES, or for array parameters: None and a size that extends their broadcast shape."""
    shapes = [np.shape(a) for a in args]
    if name in [c[0] for c in BROADCAST_CALLS] and any(shapes):
        return [None, (2, *np.broadcast_shapes(*shapes))]
    return SIZES


def _with_size(name, args, kwargs, size):
    if name in NO_SIZE or size is None:
        return args, kwargs
    return args, dict(kwargs, size=size)


def _call(obj, name, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return getattr(obj, name)(*args, **kwargs)


def _same_kind(actual, expected, where=""):
    """Category (array / NumPy scalar / Python value), shape and dtype agree (not values)."""
    if isinstance(expected, np.ndarray):
        assert isinstance(actual, npjax.ndarray) and not actual._scalar, where
        assert actual.shape == expected.shape, f"{actual.shape} != {expected.shape} {where}"
        assert actual.dtype == expected.dtype, f"{actual.dtype} != {expected.dtype} {where}"
    elif isinstance(expected, np.generic):  # an npjax scalar, or NumPy's own (host draws)
        assert (isinstance(actual, npjax.ndarray) and actual._scalar) or type(actual) is type(
            expected), f"{actual!r} {where}"
        assert actual.dtype == expected.dtype, where
    else:
        assert type(actual) is type(expected), f"{type(actual)} != {type(expected)} {where}"


# --- names -----------------------------------------------------------------------------------

def test_module_names():
    missing = [n for n in dir(np.random) if not n.startswith("_") and not hasattr(npjax.random, n)]
    assert missing == []


@pytest.mark.parametrize("cls", ["Generator", "RandomState"])
def test_method_names(cls):
    ours, theirs = getattr(npjax.random, cls), getattr(np.random, cls)
    missing = [n for n in dir(theirs) if not n.startswith("_") and not hasattr(ours, n)]
    assert missing == []


def test_bit_generators_are_numpys():
    for name in ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64", "BitGenerator",
                 "SeedSequence"):
        assert getattr(npjax.random, name) is getattr(np.random, name)


# --- the "numpy" stream is NumPy's, bit for bit ------------------------------------------------

def _exact(actual, expected, where):
    assert_same(actual, expected, where=where)
    if isinstance(expected, np.ndarray | np.generic):
        np.testing.assert_array_equal(np.asarray(actual), expected, strict=True, err_msg=where)


@pytest.mark.parametrize("seed", SEEDS)
def test_numpy_stream_generator(seed):
    npjax.set_policy(random="numpy")
    ours, theirs = npjax.random.default_rng(seed), np.random.default_rng(seed)
    for name, args, kwargs in GEN_CALLS + ARRAY_CALLS + BROADCAST_CALLS:
        for size in _sizes(name, args):
            a, k = _with_size(name, args, kwargs, size)
            _exact(_call(ours, name, a, k), _call(theirs, name, a, k), f"{name}{a}{k}")


@pytest.mark.parametrize("policy", ["auto", "jax", "numpy"])
@pytest.mark.parametrize("seed", SEEDS)
def test_numpy_stream_legacy(seed, policy):
    """The legacy API gives NumPy's streams under every policy (NEP 19 freezes them)."""
    npjax.set_policy(random=policy)
    npjax.random.seed(seed)
    np.random.seed(seed)
    for name, args, kwargs in LEGACY_CALLS + LEGACY_ARRAY_CALLS:
        for size in SIZES:
            a, k = _with_size(name, args, kwargs, size)
            _exact(_call(npjax.random.mtrand._rand, name, a, k),
                   _call(np.random.mtrand._rand, name, a, k),
                   f"{name}{a}{k}")
    state = npjax.random.get_state()
    np.testing.assert_array_equal(state[1], np.random.get_state()[1])
    _exact(npjax.random.randn(3), np.random.randn(3), "after get_state")
    npjax.random.set_state(state)
    np.random.set_state(state)
    _exact(npjax.random.rand(2), np.random.rand(2), "after set_state")


@pytest.mark.parametrize("seed", SEEDS)
def test_numpy_stream_sequences(seed):
    npjax.set_policy(random="numpy")
    ours, theirs = npjax.random.default_rng(seed), np.random.default_rng(seed)
    host = np.arange(24.0).reshape(4, 6)
    x = npjax.asarray(host)
    _exact(ours.permutation(x), theirs.permutation(host), "permutation")
    _exact(ours.permutation(x, axis=1), theirs.permutation(host, axis=1), "permutation axis")
    _exact(ours.permuted(x, axis=1), theirs.permuted(host, axis=1), "permuted")
    _exact(ours.permuted(x), theirs.permuted(host), "permuted None")
    _exact(ours.choice(x, 3, axis=1), theirs.choice(host, 3, axis=1), "choice axis")
    _exact(ours.choice(5, 3, replace=False, p=[0.1, 0.2, 0.3, 0.2, 0.2]),
           theirs.choice(5, 3, replace=False, p=[0.1, 0.2, 0.3, 0.2, 0.2]), "choice p")
    _exact(ours.choice([1.5, 2.5]), theirs.choice([1.5, 2.5]), "choice scalar")
    assert ours.bytes(7) == theirs.bytes(7)
    ours.shuffle(x)
    theirs.shuffle(host)
    _exact(x, host, "shuffle")
    view = x[:, 1:4]
    ours.shuffle(view, axis=1)
    theirs.shuffle(host[:, 1:4], axis=1)
    _exact(x, host, "shuffle view")
    npjax.random.seed(seed)
    np.random.seed(seed)
    y, hy = npjax.arange(10), np.arange(10)
    npjax.random.shuffle(y)
    np.random.shuffle(hy)
    _exact(y, hy, "legacy shuffle")
    _exact(npjax.random.choice(10, 4, replace=False), np.random.choice(10, 4, replace=False),
           "legacy choice")
    children, host_children = ours.spawn(2), theirs.spawn(2)
    _exact(children[1].random(3), host_children[1].random(3), "spawn")


def test_numpy_stream_out():
    npjax.set_policy(random="numpy")
    ours, theirs = npjax.random.default_rng(3), np.random.default_rng(3)
    out, host_out = npjax.zeros((2, 3)), np.zeros((2, 3))
    assert ours.standard_normal(out=out) is out
    theirs.standard_normal(out=host_out)
    _exact(out, host_out, "out=")


# --- the "jax" stream: same kinds as NumPy, reproducible ---------------------------------------

def test_jax_stream_reproducible():
    npjax.set_policy(random="jax")

    def draws(gen):
        return [np.asarray(gen.normal(size=5)), np.asarray(gen.integers(0, 100, 5)),
                np.asarray(gen.poisson(4.0, 5)), gen.random()]

    first, second = draws(npjax.random.default_rng(7)), draws(npjax.random.default_rng(7))
    other = draws(npjax.random.default_rng(8))
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])
    gen = npjax.random.default_rng(7)
    assert not np.array_equal(np.asarray(gen.normal(size=5)), np.asarray(gen.normal(size=5)))
    npjax.random.seed(5)
    a = np.asarray(npjax.random.rand(4))
    state = npjax.random.get_state()
    b = np.asarray(npjax.random.rand(4))
    npjax.random.set_state(state)
    np.testing.assert_array_equal(np.asarray(npjax.random.rand(4)), b)
    npjax.random.seed(5)
    np.testing.assert_array_equal(np.asarray(npjax.random.rand(4)), a)
    children = npjax.random.default_rng(7).spawn(2)
    assert not np.array_equal(np.asarray(children[0].random(4)),
                              np.asarray(children[1].random(4)))
    assert isinstance(npjax.random.default_rng(np.random.PCG64(3)), npjax.random.Generator)


def test_jax_stream_out_and_dtype():
    npjax.set_policy(random="jax")
    gen = npjax.random.default_rng(0)
    out = npjax.zeros((3, 2), dtype=np.float32)
    assert gen.random(out=out, dtype=np.float32) is out
    assert out.dtype == np.float32 and float(out.min()) >= 0 and float(out.max()) < 1
    with pytest.raises(TypeError):
        gen.random(out=npjax.zeros(3, dtype=np.float32))
    with pytest.raises(TypeError):
        gen.random(dtype=np.int64)
    with pytest.raises(ValueError):
        gen.standard_normal(size=4, out=npjax.zeros(3))


# --- parameter checks: NumPy's exception classes ------------------------------------------------

BAD_GEN = [
    ("normal", (0.0, -1.0)), ("normal", (0.0, -0.0)), ("normal", (0.0, [1.0, -1.0])),
    ("normal", (0.0, np.nan)), ("exponential", (-2.0,)), ("gamma", (-1.0,)),
    ("gamma", (1.0, -1.0)), ("beta", (0.0, 1.0)), ("beta", (1.0, [1.0, 0.0])),
    ("chisquare", (0.0,)), ("f", (1.0, 0.0)), ("noncentral_chisquare", (1.0, -1.0)),
    ("noncentral_f", (1.0, 1.0, -1.0)), ("pareto", (0.0,)), ("power", (-1.0,)),
    ("rayleigh", (-1.0,)), ("standard_t", (0.0,)), ("standard_gamma", (-0.5,)),
    ("triangular", (2.0, 1.0, 3.0)), ("triangular", (0.0, 4.0, 3.0)),
    ("triangular", (1.0, 1.0, 1.0)), ("vonmises", (0.0, -1.0)), ("wald", (0.0, 1.0)),
    ("wald", (1.0, -1.0)), ("weibull", (-1.0,)), ("binomial", (-1, 0.5)),
    ("binomial", (5, 1.5)), ("binomial", (5, np.nan)), ("binomial", ([5, 5], [0.5, -0.1])),
    ("negative_binomial", (0, 0.5)), ("negative_binomial", (1, 0.0)),
    ("negative_binomial", (np.nan, 0.5)), ("poisson", (-1.0,)), ("poisson", (1e20,)),
    ("poisson", ([1.0, np.nan],)), ("geometric", (0.0,)), ("geometric", (1.5,)),
    ("logseries", (1.0,)), ("logseries", (-0.1,)), ("zipf", (1.0,)), ("zipf", ([2.0, 0.5],)),
    ("hypergeometric", (-1, 5, 2)), ("hypergeometric", (2, 3, 10)),
    ("hypergeometric", (2, 3, -1)), ("integers", (5, 5)), ("integers", (-1, 5),),
    ("integers", (0, 300)), ("uniform", (0.0, np.inf)), ("uniform", ([0.0], [np.inf])),
    ("dirichlet", ([1.0, -1.0],)), ("dirichlet", ([1.0, np.nan],)),
    ("dirichlet", ([[1.0, 1.0]],)), ("multinomial", (5, [0.7, 0.7, 0.1])),
    ("multinomial", (-1, [0.5, 0.5])), ("multinomial", (5, [1.5, -0.5])),
    ("multivariate_normal", ([0.0], [[1.0, 0.0], [0.0, 1.0]])),
    ("multivariate_normal", ([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], None, "raise")),
    ("multivariate_hypergeometric", ([2, 3], 10)), ("multivariate_hypergeometric", ([2, -3], 1)),
    ("choice", (0,)), ("choice", (5, 6, False)), ("choice", (3, None, True, [0.5, 0.6, 0.1])),
    ("choice", (3, None, True, [0.5, 0.5])), ("choice", (3, None, True, [1.5, -0.5, 0.0])),
    ("choice", ([], 2)), ("choice", (3, 2, False, [1.0, 0.0, 0.0])),
    ("permutation", (np.float64(3.5),)), ("normal", (0.0, 1.0, -1)),
    ("normal", ([0.0, 1.0], 1.0, 3)), ("random", (2.5,)),
]
BAD_LEGACY = [("randint", (5, 5)), ("randint", (0, 2**40), {"dtype": np.int32}),
              ("poisson", (1e10,)), ("negative_binomial", (5, 0.0)), ("dirichlet", ([0.0, 1.0],)),
              ("hypergeometric", (2, 3, 0)), ("choice", ([[1, 2]],)), ("normal", (0.0, -1.0)),
              ("logseries", (1.0,)), ("multinomial", (5, [[0.5, 0.5]]))]


def _raise_parity(fn_ours, fn_numpy, where):
    try:
        expected, np_exc = fn_numpy(), None
    except Exception as exc:
        expected, np_exc = None, exc
    try:
        actual, our_exc = fn_ours(), None
    except Exception as exc:
        actual, our_exc = None, exc
    if np_exc is None:
        assert our_exc is None, f"npjax raised {our_exc!r}, NumPy returned {expected!r} {where}"
        return
    assert our_exc is not None, f"NumPy raised {np_exc!r}, npjax returned {actual!r} {where}"
    assert family(our_exc) is family(np_exc), f"{np_exc!r} vs {our_exc!r} {where}"


@pytest.mark.parametrize("policy", ["auto", "jax", "numpy"])
def test_bad_parameters(policy):
    npjax.set_policy(random=policy)
    ours, theirs = npjax.random.default_rng(0), np.random.default_rng(0)
    for name, args, *kw in BAD_GEN:
        kwargs = kw[0] if kw else {}
        _raise_parity(lambda n=name, a=args, k=kwargs: _call(ours, n, a, k),
                      lambda n=name, a=args, k=kwargs: _call(theirs, n, a, k), f"{name}{args}")
    r_ours, r_theirs = npjax.random.RandomState(0), np.random.RandomState(0)
    for name, args, *kw in BAD_LEGACY:
        kwargs = kw[0] if kw else {}
        _raise_parity(lambda n=name, a=args, k=kwargs: _call(r_ours, n, a, k),
                      lambda n=name, a=args, k=kwargs: _call(r_theirs, n, a, k),
                      f"legacy {name}{args}")


@pytest.mark.parametrize("policy", ["jax", "numpy"])
@pytest.mark.parametrize("a", [2.5, np.float64(2.5), np.array(2.5)])
def test_choice_of_a_float_population(policy, a):
    npjax.set_policy(random=policy)
    _raise_parity(lambda: npjax.random.default_rng(0).choice(a),
                  lambda: np.random.default_rng(0).choice(a), f"choice({a!r})")


def test_bad_parameters_on_device():
    npjax.set_policy(random="jax")
    gen = npjax.random.default_rng(0)
    with pytest.raises(ValueError):
        gen.normal(0.0, npjax.asarray([1.0, -1.0]))
    with pytest.raises(ValueError):
        gen.poisson(npjax.asarray([-1.0]))
    assert gen.normal(npjax.asarray([0.0, 1.0]), 1.0).shape == (2,)


def test_bad_seeds():
    for seed in (-1, 1.5, "x"):
        _raise_parity(lambda s=seed: npjax.random.default_rng(s),
                      lambda s=seed: np.random.default_rng(s), f"seed {seed!r}")
        _raise_parity(lambda s=seed: npjax.random.RandomState(s),
                      lambda s=seed: np.random.RandomState(s), f"seed {seed!r}")


# --- sequences ---------------------------------------------------------------------------------

@pytest.mark.parametrize("policy", ["jax", "numpy"])
def test_shuffle_in_place(policy):
    npjax.set_policy(random=policy)
    gen = npjax.random.default_rng(4)
    x = npjax.arange(20).reshape(4, 5)
    before = np.asarray(x).copy()
    gen.shuffle(x)
    after = np.asarray(x)
    assert sorted(map(tuple, after)) == sorted(map(tuple, before))  # rows moved whole
    base = npjax.arange(30)
    view = base[5:25:2]
    npjax.random.shuffle(view)
    got = np.asarray(base)
    np.testing.assert_array_equal(got[:5], np.arange(5))
    np.testing.assert_array_equal(got[6:25:2], np.arange(6, 25, 2))
    np.testing.assert_array_equal(np.sort(got[5:25:2]), np.arange(5, 25, 2))
    cols = npjax.arange(12).reshape(3, 4)
    gen.shuffle(cols, axis=1)
    np.testing.assert_array_equal(np.sort(np.asarray(cols), axis=1),
                                  np.arange(12).reshape(3, 4))
    items = [1, 2, 3, 4, 5]
    gen.shuffle(items)
    assert sorted(items) == [1, 2, 3, 4, 5]
    with pytest.raises(TypeError):
        gen.shuffle(npjax.asarray(3))
    frozen = npjax.arange(4)
    frozen.flags.writeable = False
    with pytest.raises(ValueError):
        gen.shuffle(frozen)


def test_permutation_choice_permuted_jax():
    gen = npjax.random.default_rng(9)
    p = gen.permutation(10)
    assert p.dtype == np.int64 and sorted(np.asarray(p)) == list(range(10))
    x = npjax.arange(12.0).reshape(3, 4)
    px = gen.permutation(x, axis=1)
    np.testing.assert_array_equal(np.sort(np.asarray(px), axis=1), np.asarray(x))
    np.testing.assert_array_equal(np.asarray(x), np.arange(12.0).reshape(3, 4))  # not mutated
    pr = gen.permuted(x, axis=1)
    np.testing.assert_array_equal(np.sort(np.asarray(pr), axis=1), np.asarray(x))
    out = npjax.zeros((3, 4))
    assert gen.permuted(x, axis=0, out=out) is out
    np.testing.assert_array_equal(np.sort(np.asarray(out), axis=0), np.asarray(x))
    c = gen.choice(5, 5, replace=False)
    assert sorted(np.asarray(c)) == list(range(5))
    c = gen.choice(npjax.asarray([10, 20, 30]), size=(2, 2), p=[0.0, 1.0, 0.0])
    np.testing.assert_array_equal(np.asarray(c), np.full((2, 2), 20))
    c = gen.choice(x, 2, axis=1, replace=False)
    assert c.shape == (3, 2)
    s = gen.choice(npjax.asarray([1.5, 2.5]))
    assert (type(s) is np.float64 or s._scalar) and s.dtype == np.float64
    assert isinstance(gen.choice(4), int)
    assert len(gen.bytes(5)) == 5


def test_integers_edges():
    gen = npjax.random.default_rng(2)
    full = np.asarray(gen.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, 1000,
                                   endpoint=True))
    assert full.dtype == np.int64 and full.min() < 0 < full.max()
    top = np.asarray(gen.integers(2**64 - 3, 2**64 - 1, 200, dtype=np.uint64, endpoint=True))
    assert set(top.tolist()) == {2**64 - 3, 2**64 - 2, 2**64 - 1}
    b = np.asarray(gen.integers(0, 2, 500, dtype=bool))
    assert b.dtype == bool and b.any() and not b.all()
    assert set(np.asarray(gen.integers(3, 4, 50)).tolist()) == {3}


# --- the default, random="auto": NumPy's generator where the draw is placed on the host --------

def test_auto_is_the_default():
    assert npjax.get_policy().random == "auto"
    with pytest.raises(ValueError):
        npjax.set_policy(random="fast")


def test_auto_host_draws_are_numpys():
    """On the host route (small draws; every size in eager mode on a CPU backend) "auto"
    draws from NumPy's own generator: NumPy's numbers, host arrays, no compile."""
    import npjax._runtime._stats as stats

    npjax.set_policy(placement="auto")  # (whatever --npjax-placement the run was given)
    stats.reset_stats()
    ours, theirs = npjax.random.default_rng(42), np.random.default_rng(42)
    for name, args in (("standard_normal", ((3, 4),)), ("random", (5,)),
                       ("integers", (0, 10, 6)), ("normal", (1.0, 2.0, 3))):
        got, want = getattr(ours, name)(*args), getattr(theirs, name)(*args)
        assert got._host() is not None, name
        np.testing.assert_array_equal(np.asarray(got), want, strict=True, err_msg=name)
    _exact(ours.random(), theirs.random(), "scalar")
    _exact(ours.permutation(7), theirs.permutation(7), "permutation")
    _exact(ours.choice(9, 4), theirs.choice(9, 4), "choice")
    out, host_out = npjax.zeros(4), np.zeros(4)
    assert ours.standard_normal(out=out) is out
    theirs.standard_normal(out=host_out)
    _exact(out, host_out, "out=")
    assert stats.stats()["compiles"]["count"] == 0
    assert stats.stats()["transfers"]["host_to_device"]["count"] == 0


def test_auto_device_draws_use_jax_keys():
    """Draws placed on the device (placement="device", or a device operand) take the JAX key
    stream under "auto", as under "jax"."""
    with npjax.policy(placement="device"):
        auto = np.asarray(npjax.random.default_rng(3).standard_normal(8))
        with npjax.policy(random="jax"):
            jax_stream = np.asarray(npjax.random.default_rng(3).standard_normal(8))
    np.testing.assert_array_equal(auto, jax_stream)
    assert not np.array_equal(auto, np.random.default_rng(3).standard_normal(8))
    with npjax.policy(placement="device"):
        loc = npjax.zeros(4)
    got = np.asarray(npjax.random.default_rng(3).normal(loc, 1.0))
    with npjax.policy(random="jax"):
        want = np.asarray(npjax.random.default_rng(3).normal(loc, 1.0))
    np.testing.assert_array_equal(got, want)
