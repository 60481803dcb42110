"""Every solution's code runs from a clean kernel.

The ``python`` blocks inside the ``solution`` blocks of every chapter and sheet
(:func:`rankbook.course.sheets.solution_blocks`) each run in a fresh Python process, with
nothing of the chapter's state: a solution must import and build what it uses.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rankbook.course.sheets import solution_blocks
from tests.conftest import ROOT

PAGES = sorted((ROOT / "notebooks").glob("*.md")) + sorted((ROOT / "book").glob("sheet_*.md"))
#: solutions that rebuild a page's own log at its default size (a minute or more of encoding on
#: a CPU): marked ``page_sized``, run by ``make bench``, deselected by ``make test``
PAGE_SIZED = {"ex-10-2"}
BLOCKS = [
    (f"{block.page}:{block.label}:{i}", code)
    for page in PAGES
    for block in solution_blocks(page.read_text(encoding="utf-8"), page.stem)
    for i, code in enumerate(block.python)
]


def run_clean(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (the chapters' working folder, this checkout's src)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "MPLBACKEND": "Agg"}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT / "notebooks", capture_output=True, text=True,
        env=env, timeout=900,
    )  # fmt: skip


def test_solution_code_blocks_are_found():
    assert len(BLOCKS) >= 8, [name for name, _ in BLOCKS]
    labels = {name.split(":")[1] for name, _ in BLOCKS}
    assert {"ex-01-2", "ex-10-2"} <= labels


def test_a_solution_that_needs_the_chapter_state_fails():
    """The runner can fail: code that reads a chapter's variable raises in a clean process."""
    proc = run_clean("t = sizes\n")
    assert proc.returncode != 0 and "NameError" in proc.stderr


def _page_sized(name: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.page_sized] if name.split(":")[1] in PAGE_SIZED else []


@pytest.mark.slow
@pytest.mark.real_data
@pytest.mark.parametrize(
    "code",
    [
        pytest.param(code, id=name, marks=_page_sized(name))
        for name, code in BLOCKS
    ],
)
def test_every_solution_runs_from_a_clean_kernel(code):
    proc = run_clean(code)
    assert proc.returncode == 0, proc.stderr[-3000:]
