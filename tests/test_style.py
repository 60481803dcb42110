"""House style, checked: ruff (pycodestyle, pyflakes, isort, bugbear, pyupgrade, numpy rules)
at 100 columns over every folder of code, with no rule switched off."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_no_lint_rule_is_ignored():
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert not lint.get("ignore"), f"ruff rules switched off: {lint.get('ignore')}"
    assert (
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["line-length"] == 100
    )


def test_ruff_is_clean_in_every_folder():
    ruff = Path(sys.executable).parent / "ruff"
    if not ruff.is_file():
        ruff = shutil.which("ruff")
    if not ruff:
        pytest.fail("ruff is not installed (it is in the test extra and the lock file)")
    proc = subprocess.run(
        [str(ruff), "check", "src", "tests", "benchmarks", ".ci"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]


MAX_MODULE_LINES = 400


def test_no_module_is_over_400_lines():
    """Small modules with one job: a module that grows past this is split, not waved through."""
    long = {
        str(p.relative_to(ROOT)): n
        for p in sorted((ROOT / "src").rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"
