"""README's facts that can drift, checked against the code: its length, the test command CI
runs, the number of benchmark kernels, the coverage percentage, the runner's option names, the
policy table, the CPU speed table and the host overhead table (against the committed results
it quotes)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import re

import pytest

from npjax.__main__ import _parser
from npjax._runtime import _policy
from npjax._tools import _coverage

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
TEST_COMMAND = 'python -m pip install -e ".[test]" && python -m pytest -q -n 2 -p no:cacheprovider'


def _section(title: str) -> str:
    """The text of README's section ``## title`` (to the next ``## ``)."""
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.M | re.S)
    assert found, f"README has no section '## {title}'"
    return found.group(1)


def test_readme_is_short():
    assert len(README.splitlines()) <= 250


def test_ci_test_command_is_the_first_indented_pytest_line():
    """``.ci/run`` runs the first line matching ``^    (.*pytest.*)$``."""
    commands = re.findall(r"^    (.*pytest.*)$", README, re.M)
    assert commands and commands[0] == TEST_COMMAND


def test_set_up_has_the_two_commands():
    lines = re.findall(r"^    (\S.*)$", _section("Set up"), re.M)
    assert lines == ["python -m pip install -e . && python -m npjax run --compare "
                     "examples/heat_equation.py", TEST_COMMAND]


def test_tpu_section_is_there():
    assert "`docs/tpu.md`" in _section("On a TPU")


def test_kernel_count():
    kernels = sorted(p.stem for p in (ROOT / "benchmarks" / "kernels").glob("*.py")
                     if p.stem != "__init__")
    counts = {int(n) for n in re.findall(r"(\d+) NumPy-style kernels", README)}
    assert counts == {len(kernels)}


def test_coverage_percentage():
    share = f"{100 * _coverage.summary()['native_share']:.1f}%"
    assert share in _coverage.render()  # what `python -m npjax coverage` prints
    quoted = re.findall(r"(\d+(?:\.\d+)?)% of the\s+callables that work on array data", README)
    assert quoted == [share[:-1]]


def _options(parser: argparse.ArgumentParser) -> set[str]:
    found = {s for a in parser._actions for s in a.option_strings}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _options(sub)
    return found


def test_option_names_exist():
    """Every ``--option`` README names is one of the command line's (run, bench, coverage),
    and every policy option of ``run`` is named."""
    known = _options(_parser())
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", README))
    assert named - known == set()
    run = _parser()._subparsers._group_actions[0].choices["run"]
    policy_flags = {s for a in run._actions if a.dest in ("mode", "device", "sharding",
                                                          "fallback", "random", "x64")
                    for s in a.option_strings}
    assert policy_flags - named == set()


def _tables(text: str) -> list[list[list[str]]]:
    """The Markdown tables in ``text``: per table its rows (without the header) as cells."""
    tables, current = [], None
    for line in text.splitlines():
        if line.startswith("|"):
            if current is None:
                current = []
                tables.append(current)
            if not line.startswith("|---"):
                current.append([c.strip() for c in line.strip().strip("|").split("|")])
        else:
            current = None
    return [t[1:] for t in tables]


def _table_rows(text: str) -> list[list[str]]:
    return _tables(text)[0]


def test_policy_table_matches_the_policy():
    rows = {r[0].strip("`"): r for r in _table_rows(_section("Policies"))}
    assert set(rows) == {f.name for f in dataclasses.fields(_policy.Policy)}
    for field, choices in _policy._CHOICES.items():
        listed = re.findall(r'"([a-z]+)"', rows[field][1])
        assert listed == list(choices), field
        assert listed[0] == getattr(_policy.Policy(), field), f"{field}: default first"
    assert rows["x64"][1].startswith(str(_policy.Policy().x64))
    assert rows["shard_threshold"][1] == str(_policy.Policy().shard_threshold)


def test_random_table_names_every_policy_value():
    rows = _table_rows(_section("Random numbers"))
    assert [re.search(r'"(\w+)"', r[0]).group(1) for r in rows] == list(
        _policy._CHOICES["random"])
    assert "(default)" in rows[0][0] and _policy.Policy().random == "auto"


# The speed tables' columns, in order, as benchmarks/suite.py names the variants.
VARIANTS = ("numpy", "npjax_eager", "npjax_lazy", "npjax_jit", "jax_hand")


def _expected_row(kernel: dict) -> list[str]:
    cells = []
    for variant in VARIANTS:
        seconds = kernel["times"].get(variant, {}).get("median_s")
        ok = kernel["check"].get(variant, {}).get("ok", True)
        if not ok or seconds is None or seconds != seconds:
            cells.append("fail")
        else:
            ms = seconds * 1e3
            cells.append(f"{ms:.1f}" if ms >= 100 else f"{ms:.2f}")
    return cells


@pytest.mark.parametrize("table,path", [(0, "benchmarks/results/bench_small.json"),
                                        (1, "benchmarks/results/gpu/bench_large_auto.json")])
def test_speed_tables_match_the_committed_results(table, path):
    data = json.loads((ROOT / path).read_text())
    rows = {r[0]: r[1:] for r in _tables(_section("Speed"))[table]}
    assert list(rows) == [k["name"] for k in data["kernels"]]
    for kernel in data["kernels"]:
        assert rows[kernel["name"]] == _expected_row(kernel), kernel["name"]
    assert data["date"][:10] in " ".join(_section("Speed").split())


def test_cpu_speed_summary_matches_the_committed_results():
    data = json.loads((ROOT / "benchmarks" / "results" / "bench_small.json").read_text())
    assert f"{len(data['kernels'])} NumPy-style kernels" in README
    geo = data["summary"]
    text = " ".join(README.split())
    assert f"default {geo['geomean_numpy_over_eager']:.2f}x NumPy" in text
    assert f"`npjax.jit` {geo['geomean_numpy_over_jit']:.2f}x NumPy" in text
    assert f"{geo['geomean_jit_over_hand']:.2f}x the time of" in text


def test_overhead_table_matches_the_committed_results():
    """The host-operation ratios README quotes, per build, are those of the committed runs of
    ``benchmarks/overhead.py`` (``overhead.json``: C; ``overhead_pure_python.json``)."""
    rows = {r[0]: r[1:] for r in _tables(_section("Where work runs: placement"))[0]}
    ops = [op.strip().strip("`") for op in re.search(
        r"^\| build \|(.*)\|$", _section("Where work runs: placement"), re.M).group(1).split("|")]
    for build, name in (("C", "overhead.json"), ("Python", "overhead_pure_python.json")):
        data = json.loads((ROOT / "benchmarks" / "results" / name).read_text())
        ratios = {r["check"]: r["ratio"] for r in data["ratios"]}
        assert (data["build"] == "pure Python") == (build == "Python")
        assert rows[build] == [f"{ratios[f'{op}, host: npjax / NumPy']:.2f}x" for op in ops]


@pytest.mark.parametrize("path", re.findall(r"`((?:docs|benchmarks|examples)/[\w./-]+?)`",
                                            README))
def test_named_files_exist(path):
    if "*" in path or path.endswith("NAME.py"):
        pytest.skip("a pattern")
    assert (ROOT / path.rstrip(".")).exists(), path
