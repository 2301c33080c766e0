"""Each script in examples/ prints the same output under npjax as under NumPy
(``python -m npjax run --compare``: identical lines, or numbers within rtol 1e-9)."""

from __future__ import annotations

import pathlib

import pytest

import npjax
from npjax import _runner

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"

# What each example needs from npjax beyond creation, ufuncs and indexing (functions, then
# ndarray methods). An example whose needs are not all there yet is a strict xfail: it starts
# to count (and must pass) as soon as the other parts of npjax land.
NEEDS = {
    "heat_equation.py": ((), ()),
    "kmeans.py": (("stack", "concatenate"), ("copy", "sum", "argmin", "min", "astype")),
    "nbody.py": (("stack",), ("sum", "max")),
}
# Shorter runs than the scripts' defaults keep this file quick; same code paths.
ARGS = {"heat_equation.py": ["100"], "nbody.py": ["40"]}


def _missing(name: str) -> list[str]:
    functions, methods = NEEDS[name]
    return ([f for f in functions if not hasattr(npjax, f)]
            + [f"ndarray.{m}" for m in methods if not hasattr(npjax.ndarray, m)])


def _param(name: str):
    missing = _missing(name)
    marks = [pytest.mark.xfail(strict=True, reason=f"npjax lacks {', '.join(missing)} so far")
             ] if missing else []
    return pytest.param(name, marks=marks, id=name)


def test_every_example_is_listed():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(NEEDS)


@pytest.mark.parametrize("name", [_param(name) for name in sorted(NEEDS)])
def test_example_matches_numpy(name, capsys):
    status = _runner.compare(str(EXAMPLES / name), ARGS.get(name, []))
    out = capsys.readouterr().out
    assert "Result: MATCH" in out, out
    assert status == 0
    assert "exit status 0" in out
