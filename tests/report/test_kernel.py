"""Reruns print no "Kernel is running over TCP without encryption" line
(:mod:`rankbook.report.kernel`)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rankbook.report.kernel import kernel_manager_class, uses_ipc
from tests.conftest import ROOT


def test_ipc_everywhere_but_windows():
    assert uses_ipc("posix") and not uses_ipc("nt")
    assert kernel_manager_class("nt") is None
    assert kernel_manager_class("posix")().transport == "ipc"


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="Windows kernels run over TCP")
def test_a_rerun_prints_no_kernel_warning(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "rankbook.report.pipeline", "run", "00_quickstart", "--smoke",
           "--out", str(tmp_path / "q")]  # fmt: skip
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    output = proc.stdout + proc.stderr
    assert "00_quickstart: executed" in output  # the run's own output was captured
    assert "without encryption" not in output
