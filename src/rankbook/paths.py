"""Where rankaudit reads and writes files: the project checkout, or platform folders outside it.

Inside a checkout of the compendium (a folder holding ``pyproject.toml`` and
``src/rankaudit/__init__.py``) data live in ``data/external``, caches in ``data/cache`` and
chapter results in ``book/_build/results``. Outside a checkout (a notebook downloaded from the
site, the library installed on its own) the same paths fall back to the user's platform folders
(:mod:`platformdirs`: ``~/.local/share/rankaudit`` and ``~/.cache/rankaudit`` on Linux).
Environment variables override both: ``RANKAUDIT_DATA_ROOT``, ``RANKAUDIT_CACHE_DIR`` and
``RANKAUDIT_RESULTS_DIR``.

This is the bottom room of the package: it imports nothing from rankaudit.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "cache_root",
    "default_data_root",
    "find_project_root",
    "project_root_or_none",
    "results_dir",
]

_APP = "rankaudit"


def _is_checkout(folder: Path) -> bool:
    return (folder / "pyproject.toml").is_file() and (
        folder / "src" / "rankaudit" / "__init__.py"
    ).is_file()


def find_project_root(start: Path | None = None) -> Path:
    """The nearest ancestor of ``start`` (default: cwd) that is a rankaudit checkout.

    Raises :class:`FileNotFoundError` when there is none.
    """
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if _is_checkout(candidate):
            return candidate
    raise FileNotFoundError(f"No rankaudit checkout above {here}.")


def project_root_or_none(start: Path | None = None) -> Path | None:
    """:func:`find_project_root` from ``start``, then from this file; ``None`` outside a
    checkout."""
    for origin in (start or Path.cwd(), Path(__file__).resolve().parent):
        try:
            return find_project_root(origin)
        except FileNotFoundError:
            continue
    return None


def _platform_dir(kind: str) -> Path:
    import platformdirs

    if kind == "cache":
        return Path(platformdirs.user_cache_dir(_APP))
    return Path(platformdirs.user_data_dir(_APP))


def default_data_root() -> Path:
    """``$RANKAUDIT_DATA_ROOT``, ``<checkout>/data/external``, or ``<user data dir>/external``."""
    env = os.environ.get("RANKAUDIT_DATA_ROOT")
    if env:
        return Path(env)
    root = project_root_or_none()
    return root / "data" / "external" if root else _platform_dir("data") / "external"


def cache_root() -> Path:
    """``$RANKAUDIT_CACHE_DIR``, ``<checkout>/data/cache``, or the user cache dir."""
    env = os.environ.get("RANKAUDIT_CACHE_DIR")
    if env:
        return Path(env)
    root = project_root_or_none()
    return root / "data" / "cache" if root else _platform_dir("cache")


def results_dir() -> Path:
    """Where chapters write results (created if missing).

    ``$RANKAUDIT_RESULTS_DIR``, ``<checkout>/book/_build/results``, or
    ``<user data dir>/results`` outside a checkout.
    """
    env = os.environ.get("RANKAUDIT_RESULTS_DIR")
    if env:
        path = Path(env)
    else:
        root = project_root_or_none()
        path = root / "book" / "_build" / "results" if root else _platform_dir("data") / "results"
    path.mkdir(parents=True, exist_ok=True)
    return path
