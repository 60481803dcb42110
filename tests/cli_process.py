"""The ``rankaudit`` command line in a child process, as a user runs it: one helper for the
tests that need its exit code, stdout and stderr (``python -m rankaudit ARGS``, this checkout's
``src`` first on the path, a timeout so that a hang fails instead of stalling the suite)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

__all__ = ["run_cli"]


def run_cli(
    *args: object, cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """``python -m rankaudit ARGS`` in ``cwd``; the finished process (never raises on a code)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "-m", "rankaudit", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
    )
