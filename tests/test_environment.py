"""environment.yml (conda) and requirements/lock.txt (pip) pin the same packages."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def _pins(lines):
    pins = {}
    for line in lines:
        match = re.match(r"^\s*(?:-\s+)?([A-Za-z0-9_.\-\[\]]+)==([^\s#]+)\s*$", line)
        if match:
            pins[match.group(1).lower().replace("_", "-")] = match.group(2)
    return pins


def test_lock_and_environment_pin_the_same_versions():
    lock = _pins((ROOT / "requirements" / "lock.txt").read_text().splitlines())
    env = _pins((ROOT / "environment.yml").read_text().splitlines())
    assert len(lock) > 50
    assert lock == env, {
        k: (lock.get(k), env.get(k))
        for k in set(lock) ^ set(env) | {k for k in lock if k in env and lock[k] != env[k]}
    }


def test_core_pins_are_the_ones_that_resolve_offline():
    lock = _pins((ROOT / "requirements" / "lock.txt").read_text().splitlines())
    assert lock["torch"] == "2.13.0"
    assert lock["jupyter-book"] == "1.0.4.post1"
    for name in ("numpy", "pandas", "seaborn", "jupytext", "papermill", "lightgbm"):
        assert name in lock
