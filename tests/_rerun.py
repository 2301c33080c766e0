"""Rerun parity suites in a fresh interpreter under other options (mode, placement)."""

from __future__ import annotations

import os
import subprocess
import sys

import jax
import pytest


def rerun(suites: str, *options: str, timeout: int = 1800) -> str:
    """Run ``pytest`` on ``suites`` (test files separated by spaces) with ``options`` in one
    subprocess, at the rerun Hypothesis profile; fail with its output, else return its stdout.
    One process for several files compiles their common kernels once (a third less CPU time
    than a process each). Skipped on an accelerator: a TPU admits one process, this one."""
    if jax.default_backend() != "cpu":
        pytest.skip(f"a second process cannot open the accelerator: run {suites} with "
                    f"{' '.join(options)} in this process")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NPJAX_", "PYTEST_"))}
    profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")  # "full", "thorough": theirs
    env["HYPOTHESIS_PROFILE"] = "rerun-ci" if profile == "ci" else profile
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", *options, *suites.split()],
                          capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    return done.stdout


def suites_id(suites: str) -> str:
    """A short test id for a group of suites: ``ufuncs+linalg``."""
    return "+".join(path.rsplit("/", 1)[-1].removeprefix("test_").removesuffix(".py")
                    for path in suites.split())
