"""What produced a results file: the git commit of the checkout and the package versions.

Recorded under ``software`` in every results JSON, so that a number can be traced to the code
and the libraries that computed it. Deterministic for a given checkout and environment (no
timestamps), so two runs with the same parameters still write identical files.
"""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from rankaudit._version import __version__
from rankbook.paths import project_root_or_none

__all__ = ["RECORDED_PACKAGES", "git_state", "software_record"]

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
    }
