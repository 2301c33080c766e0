"""Rerun a parity suite in a fresh interpreter under other options (mode, placement)."""

from __future__ import annotations

import os
import subprocess
import sys


def rerun(suite: str, *options: str, timeout: int = 1200) -> None:
    """Run ``pytest suite`` (``suite`` may end in ``@I/N``: that shard of it) with
    ``options`` in a subprocess, at the rerun Hypothesis profile; fail with its output."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NPJAX_", "PYTEST_"))}
    profile = os.environ.get("HYPOTHESIS_PROFILE", "ci")  # "full", "thorough": theirs
    env["HYPOTHESIS_PROFILE"] = "rerun-ci" if profile == "ci" else profile
    path, _, shard = suite.partition("@")
    if shard:
        options += (f"--npjax-shard={shard}",)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", *options, path],
                          capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
