"""Work done once per test run and shared by every pytest worker (pytest-xdist, ``make test``).

``make test`` runs pytest in two worker processes (``-n 2``). A session fixture runs once per
worker, so without help each worker would execute all 19 chapters and build the site itself.
Here the workers share one folder per run (the parent of each worker's ``basetemp``, or the
``basetemp`` itself without xdist) and split the work through claim files:

- a unit of work (a chapter, or chapters that must run in order) is *claimed* by creating
  ``<unit>.claim`` with ``O_CREAT | O_EXCL`` (exactly one process succeeds) holding the
  claimer's process id; the claimer does the work and then writes ``<unit>.done`` (empty) or
  ``<unit>.failed`` (the error message);
- a process that needs a unit it did not claim waits for its ``.done`` or ``.failed`` file. The
  wait is bounded: it fails at once, naming the unit, when the claimer's process has died
  without finishing, and after ``timeout`` seconds in any case (never a hang).

Without xdist the one process claims everything, in order, as before.

Public API: :func:`shared_folder`, :func:`claim`, :func:`finish`, :func:`wait_for`,
:func:`once`, :class:`SharedWorkFailed`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

__all__ = ["SharedWorkFailed", "claim", "finish", "once", "shared_folder", "wait_for"]


class SharedWorkFailed(RuntimeError):
    """Shared work failed in the process that claimed it, or that process died."""


def shared_folder(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """``name`` inside the folder every worker of this run sees (created if missing)."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def claim(folder: Path, unit: str) -> bool:
    """True for exactly one process: the one that creates ``unit.claim`` first."""
    try:
        fd = os.open(folder / f"{unit}.claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as handle:
        handle.write(str(os.getpid()))
    return True


def finish(folder: Path, unit: str, error: str | None = None) -> None:
    """Mark a claimed unit done, or failed with ``error`` (written atomically)."""
    final = folder / (f"{unit}.failed" if error is not None else f"{unit}.done")
    partial = folder / f"{unit}.partial"
    partial.write_text(error or "", encoding="utf-8")
    partial.replace(final)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def wait_for(folder: Path, units: Iterable[str], *, timeout: float = 3600.0) -> dict[str, str]:
    """Wait until every unit is done or failed; the failed ones' messages by unit.

    Raises :class:`SharedWorkFailed` when a unit's claimer died before finishing it, or after
    ``timeout`` seconds.
    """
    pending = list(units)
    failures: dict[str, str] = {}
    deadline = time.monotonic() + timeout
    delay = 0.05
    while pending:
        still: list[str] = []
        for unit in pending:
            if (folder / f"{unit}.done").exists():
                continue
            failed = folder / f"{unit}.failed"
            if failed.exists():
                failures[unit] = failed.read_text(encoding="utf-8")
                continue
            claimed = folder / f"{unit}.claim"
            owner = claimed.read_text(encoding="utf-8").strip() if claimed.exists() else ""
            if owner.isdigit() and not _alive(int(owner)) and not _finished(folder, unit):
                raise SharedWorkFailed(f"{unit}: its process {owner} ended without finishing it")
            still.append(unit)
        pending = still
        if pending:
            if time.monotonic() > deadline:
                raise SharedWorkFailed(f"still waiting after {timeout:.0f} s for {pending}")
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
    return failures


def _finished(folder: Path, unit: str) -> bool:
    return (folder / f"{unit}.done").exists() or (folder / f"{unit}.failed").exists()


def once(folder: Path, unit: str, work: Callable[[], object]) -> None:
    """Run ``work`` in the one process that claims ``unit``; every process returns once it is
    done. The claimer marks the unit failed when ``work`` raises (and re-raises), so that no
    other process waits on it; the others raise :class:`SharedWorkFailed` with its message."""
    if claim(folder, unit):
        try:
            work()
        except BaseException as err:
            finish(folder, unit, f"{type(err).__name__}: {err}")
            raise
        finish(folder, unit)
    failures = wait_for(folder, [unit])
    if failures:
        raise SharedWorkFailed(f"{unit} failed in another worker: {failures[unit]}")
