"""``npjax.random``'s float64 parameters where the accelerator cannot hold float64 (a TPU,
whose chip turns 1e300 into inf and -0.0 into 0.0): they reach the draw on the host's CPU
backend, never through the accelerator. Simulated with two CPU devices (``test_lazy_cold``):
every float64 value sent to the "accelerator" is recorded, and draws whose answer NumPy
fixes (a zero scale gives the location itself, values the chip would change) are compared
with NumPy's."""

from __future__ import annotations

import textwrap

from tests.test_lazy_cold import _two_cpu_devices, pytestmark  # noqa: F401  (the simulation)

SCRIPT = textwrap.dedent("""
    import jax, numpy as np, npjax
    from npjax._execution import _lazy_cold
    from npjax._pure import _capabilities
    home, cold = jax.devices("cpu")
    _capabilities.HOST_DTYPES = {"cpu": frozenset({"float64", "complex128"})}
    _lazy_cold.cold_device = lambda: cold
    sent = []
    put = jax.device_put
    def recording_put(x, device=None, *args, **kwargs):
        for leaf in jax.tree.leaves(x):
            if np.dtype(getattr(leaf, "dtype", np.int8)) == np.float64 and device in (None, home):
                sent.append(np.asarray(leaf).tolist())
        return put(x, device, *args, **kwargs)
    jax.device_put = recording_put
    loc = np.array([1e300, 3.5e38, 1e-300, 1.0000000000000002, -2.5])  # the chip: inf, inf, 0, 1
    with npjax.policy(placement="device", random="jax"):
        g = npjax.random.default_rng(0)
        drawn = {
            "normal": g.normal(npjax.asarray(loc), 0.0),
            "normal_numpy": g.normal(loc, np.zeros(5)),
            "uniform": g.uniform(loc, loc),
            "multinomial": g.multinomial(5, np.array([0.0, 1.0, 0.0])),
            "choice_p": g.choice(4, 3, p=np.array([0.0, 0.0, 1.0, 0.0])),
            "dirichlet": g.dirichlet(np.array([1e300, 1e300])).shape,
        }
    want = {"normal": loc, "normal_numpy": loc, "uniform": loc,
            "multinomial": np.array([0, 5, 0]), "choice_p": np.array([2, 2, 2]),
            "dirichlet": (2,)}
    for name, got in drawn.items():
        w = want[name]
        if isinstance(w, tuple):
            print(name, got == w)
            continue
        g_ = np.asarray(got)
        print(name, g_.dtype == w.dtype and np.array_equal(g_.view(np.uint8), w.view(np.uint8)))
    print("float64 sent to the accelerator:", sent)
    """)


def test_float64_parameters_never_pass_through_the_accelerator():
    lines = _two_cpu_devices(SCRIPT)
    assert lines == ["normal True", "normal_numpy True", "uniform True", "multinomial True",
                     "choice_p True", "dirichlet True",
                     "float64 sent to the accelerator: []"], lines
