"""Every verdict word on a page comes from the decision standard (rankaudit.runs.decision).

A chapter's markdown never types a verdict of the standard (it glues it), nor the retired
verdicts that predate it; the page-words modules never build those retired verdicts either.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rankaudit.runs.decision import VERDICTS
from tests.notebook_cells import NOTEBOOKS, chapter_stems

ROOT = Path(__file__).resolve().parents[2]
PAGE_WORDS = ROOT / "src" / "rankbook" / "report" / "page_words"
#: verdicts older pages built with their own predicates.
RETIRED = ("fails the paper's claim", "not resolved at this size", "not distinguishable from")
_CODE = re.compile(r"```\{code-cell\}.*?```", re.S)
_GLUE = re.compile(r"\{glue:[a-z]*\}`[^`]*`")


def typed_verdicts(markdown: str) -> list[str]:
    """Verdict phrases typed in a page's prose (code cells and glue roles left out)."""
    prose = _GLUE.sub(" ", _CODE.sub(" ", markdown)).lower()
    prose = " ".join(prose.split())
    return [v for v in (*VERDICTS, *RETIRED) if v in prose]


def test_the_scan_catches_a_typed_verdict():
    page = "Row A is resolved above zero.\n```{code-cell} ipython3\nx = 1\n```\n"
    assert typed_verdicts(page) == ["resolved above zero"]
    assert typed_verdicts("Row A is {glue:text}`verdict_a`.") == []
    assert typed_verdicts("It fails the paper's\nclaim.") == ["fails the paper's claim"]


@pytest.mark.parametrize("stem", chapter_stems())
def test_no_chapter_types_a_verdict(stem):
    found = typed_verdicts((NOTEBOOKS / f"{stem}.md").read_text(encoding="utf-8"))
    assert not found, f"{stem} types verdicts instead of gluing them: {found}"


def test_no_page_words_module_builds_a_retired_verdict():
    for path in sorted(PAGE_WORDS.glob("ch*.py")):
        text = " ".join(path.read_text(encoding="utf-8").split())
        found = [v for v in RETIRED if v in text]
        assert not found, f"{path.name} builds retired verdicts: {found}"
