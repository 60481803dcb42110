"""What produced a results file: the git commit, the package versions and the machine.

Recorded under ``software`` in every results JSON, so that a number can be traced to the code,
the libraries and the processor that computed it (LightGBM's and torch's last digits move with
the CPU and the thread counts, so those are recorded beside the versions). Deterministic for a
given checkout, environment and machine (no timestamps), so two runs with the same parameters
still write identical files.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from rankaudit._version import __version__
from rankbook.paths import project_root_or_none

__all__ = ["RECORDED_PACKAGES", "cpu_model", "git_state", "hardware_record", "software_record"]

#: Distributions whose versions a results file records (those absent are recorded as absent).
RECORDED_PACKAGES = (
    "numpy",
    "pandas",
    "numba",
    "scipy",
    "scikit-learn",
    "pyarrow",
    "lightgbm",
    "torch",
    "cornac",
    "implicit",
    "papermill",
    "jupyter-book",
)


def git_state(root: Path | None = None) -> dict[str, Any]:
    """``{"commit": <40 hex> or None, "dirty": bool or None}`` of the checkout at ``root``.

    ``dirty`` is True when tracked files differ from the commit (untracked files are ignored).
    Outside a git checkout, or without git, both are None.
    """
    root = root or project_root_or_none()
    if root is None or not (root / ".git").exists():
        return {"commit": None, "dirty": None}
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit or None, "dirty": bool(status.strip())}


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def software_record() -> dict[str, Any]:
    """The ``software`` entry of a results file: rankaudit, Python, git and package versions."""
    return {
        "rankaudit": __version__,
        "python": platform.python_version(),
        "git": git_state(),
        "packages": [{"name": n, "version": _version(n)} for n in RECORDED_PACKAGES],
        "hardware": hardware_record(),
    }


def cpu_model() -> str | None:
    """The processor's model name (``/proc/cpuinfo`` on Linux, else the platform's word)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip() or None
    except OSError:
        pass
    return platform.processor() or None


def _blas_threads() -> int | None:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    counts = [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]
    return max(counts) if counts else None


def hardware_record() -> dict[str, Any]:
    """The ``hardware`` entry: CPU model, architecture, logical CPUs and the thread counts of
    NumPy's BLAS, Numba, LightGBM (the rankers' setting) and torch; the last two are ``None``
    when the chapter did not load them (read from the loaded modules, so recording them never
    imports LightGBM or torch)."""
    import numba

    torch = sys.modules.get("torch")
    lambdamart = sys.modules.get("rankbook.ranking.lambdamart")
    # torch first: the first call into Numba's threading layer (its OpenMP backend) sets the
    # process's OpenMP thread count, which torch then reports; put back what the chapter set
    torch_threads = int(torch.get_num_threads()) if torch is not None else None
    numba_threads = int(numba.get_num_threads())
    if torch is not None and torch.get_num_threads() != torch_threads:
        torch.set_num_threads(torch_threads)
    return {
        "cpu_model": cpu_model(),
        "machine": platform.machine() or None,
        "logical_cpus": os.cpu_count(),
        "threads": {
            "numpy_blas": _blas_threads(),
            "numba": numba_threads,
            "lightgbm": (
                int(lambdamart.LambdaMARTConfig().num_threads) if lambdamart is not None else None
            ),
            "torch": torch_threads,
        },
    }
