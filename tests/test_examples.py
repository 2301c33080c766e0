"""Each script in examples/ gives the same results under npjax as under NumPy
(``python -m npjax run --compare``: printed lines identical or numbers within rtol 1e-9, and
the arrays it saves with np.save/np.savez/np.savetxt equal or within the same tolerance)."""

from __future__ import annotations

import functools
import pathlib
import re

import pytest

import npjax
from npjax._tools import _runner

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"

# What each example needs from npjax beyond creation, ufuncs and indexing (functions, dotted
# for submodules, then ndarray methods). An example whose needs are not all there is a strict
# xfail: it starts to count (and must pass) as soon as the other parts of npjax land.
NEEDS = {
    "heat_equation.py": ((), ()),
    "kmeans.py": (("stack", "concatenate"), ("copy", "sum", "argmin", "min", "astype")),
    "nbody.py": (("stack",), ("sum", "max")),
    "mandelbrot.py": (("linspace", "where", "bincount", "log1p", "save"),
                      ("sum", "mean", "ravel")),
    "linear_regression.py": (("vander", "linalg.lstsq", "savez", "savetxt", "linspace"),
                             ("sum", "mean", "max")),
    "option_pricing.py": (("random.default_rng", "cumsum", "maximum", "cov"),
                          ("mean", "std")),
}
# Shorter runs than the scripts' defaults keep this file quick; same code paths.
ARGS = {"heat_equation.py": ["100"], "nbody.py": ["40"], "mandelbrot.py": ["40", "30"],
        "linear_regression.py": ["60"], "option_pricing.py": ["2000"]}
# Policy flags for the npjax run (none: under the default random="auto" a CPU run draws
# option_pricing's numbers from NumPy's own generator, so they match).
OPTIONS: dict[str, list[str]] = {}
# Files each example must save (and --compare must find and compare).
# (into examples-output/ under the current folder, the examples' default for $EXAMPLES_OUT)
OUT = "examples-output/"
SAVED = {"mandelbrot.py": [OUT + "mandelbrot_counts.npy"],
         "linear_regression.py": [OUT + "regression.npz[coef]", OUT + "regression.npz[design]",
                                  OUT + "regression.npz[fitted]", OUT + "regression_coef.txt"]}


def _has(name: str) -> bool:
    return functools.reduce(lambda obj, part: getattr(obj, part, None), name.split("."),
                            npjax) is not None


def _missing(name: str) -> list[str]:
    functions, methods = NEEDS[name]
    return ([f for f in functions if not _has(f)]
            + [f"ndarray.{m}" for m in methods if not hasattr(npjax.ndarray, m)])


def _param(name: str):
    missing = _missing(name)
    marks = [pytest.mark.xfail(strict=True, reason=f"npjax lacks {', '.join(missing)} so far")
             ] if missing else []
    return pytest.param(name, marks=marks, id=name)


def test_every_example_is_listed():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(NEEDS)


def test_examples_are_plain_numpy():
    for path in EXAMPLES.glob("*.py"):
        text = path.read_text()
        assert "import numpy as np" in text and "npjax" not in text, path.name


@pytest.mark.parametrize("name", [_param(name) for name in sorted(NEEDS)])
def test_example_matches_numpy(name, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the files the example saves land here
    status = _runner.compare(str(EXAMPLES / name), ARGS.get(name, []),
                             options=OPTIONS.get(name, []))
    out = capsys.readouterr().out
    assert "Result: MATCH" in out, out
    assert status == 0
    assert out.count("exit status 0") == 2
    assert "=== npjax report" in out and "Wall time:" in out
    for saved in SAVED.get(name, []):
        assert f"| {saved}  (" in out, out
    assert sorted(p.name for p in tmp_path.iterdir()) == (["examples-output"] if name in SAVED
                                                          else []), "writes outside its folder"
    # The report's placement line agrees with its compile line: device work is counted.
    placed = re.search(r"Placement: \d+ call\(s\) ran on host arrays \(NumPy\), (\d+) on", out)
    compiled = re.search(r"Compiles: (\d+) XLA compiles", out)
    assert placed and compiled, out
    assert int(placed.group(1)) > 0 or int(compiled.group(1)) == 0, out
