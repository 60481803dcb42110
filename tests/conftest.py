"""Shared fixtures: the project paths, the chapters executed once at smoke parameters, the site."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from rankaudit.measures.rules import RULES, TieRule
from rankbook.report.pipeline import (
    ChapterFailed,
    Paths,
    build_book,
    chapter_names,
    run_chapter,
)
from tests.perturbed_results import perturb_file, seed_from_env

ROOT = Path(__file__).resolve().parents[1]

#: A throwaway tie rule a user could register (ties in reverse input order), for the tests that
#: check a registered rule reaches every dispatch: the kernels, the run API and the command line.
REVERSED = TieRule(
    "reverse_input",
    "input position descending",
    "key",
    "score descending, ties in reverse input order",
    rows=True,
    runs=True,
    key=lambda ctx: np.negative(ctx.position()),
    input_dependent=True,
)


@pytest.fixture
def reversed_rule(monkeypatch: pytest.MonkeyPatch) -> str:
    """``reverse_input`` registered for one test (removed after it); its name."""
    monkeypatch.setitem(RULES, REVERSED.name, REVERSED)
    return REVERSED.name


@dataclass
class SmokeBook:
    paths: Paths
    failures: dict[str, str] = field(default_factory=dict)


@pytest.fixture(scope="session")
def smoke_book(tmp_path_factory: pytest.TempPathFactory) -> SmokeBook:
    """Every chapter executed once, at its smoke parameters, into a temporary build tree.

    With ``RANKBOOK_PERTURB_RESULTS=<seed>`` set, every float of each chapter's own numbers in
    its results file is then moved by a random ±5% (``tests/perturbed_results.py``; the
    unmoved file is kept in ``results/unperturbed/``), so that every test reading the results
    shows it holds wherever a run's numbers fall. The files are moved once every chapter has
    run, not after each: a chapter may read an earlier chapter's results (chapter 12 reads
    chapter 11's), and it must execute on what that chapter computed.
    """
    seed = seed_from_env()
    tmp = tmp_path_factory.mktemp("smoke_book")
    book = tmp / "book"
    shutil.copytree(
        ROOT / "book", book, ignore=shutil.ignore_patterns("_build", "chapters"), symlinks=False
    )
    paths = Paths(ROOT, ROOT / "notebooks", book, book / "chapters", tmp / "results")
    result = SmokeBook(paths)
    for name in chapter_names(paths.notebooks):
        try:
            run_chapter(name, paths=paths, smoke=True, log=lambda *_: None)
        except ChapterFailed as err:
            result.failures[name] = str(err)
    if seed is not None:
        for name in chapter_names(paths.notebooks):
            if name not in result.failures:
                perturb_file(paths.results / f"{name}.json", seed)
    return result


@pytest.fixture(scope="session")
def site(smoke_book: SmokeBook) -> Path:
    """The site built strictly, once, from the smoke-executed chapters (its ``_build/html``)."""
    assert not smoke_book.failures, f"chapters failed: {sorted(smoke_book.failures)}"
    paths = smoke_book.paths
    return build_book(paths.book, paths.executed, results=paths.results, log=lambda *_: None)
