"""The index page's promise: no result number is typed into a chapter's prose.

Every decimal number or comma-grouped count in a chapter's prose (code cells, exercises and
solutions, math, inline code and glue roles removed) must be either a figure quoted from one of
the two papers (it occurs in their text, ``../shared/papers/``) or a stated constant of a method
listed below with its reason. A measured number typed into a sentence fails the test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "papers"

#: Typed numbers that are not results: stated constants of a method, per chapter, with reasons.
CONSTANTS = {
    "02_random_tie_expectation": {"0.95": "the probability of the Šidák bound, a stated level"},
    "05_movielens_audit": {
        "0.02": "a density of the illustration's grid, set in the code cell",
        "0.4": "a density of the illustration's grid, set in the code cell",
    },
    "11_ablation": {"0.05": "the significance level, a stated threshold"},
    "13_reporting_checklist": {"0.001": "the checklist's stated NDCG@10 tolerance"},
    "16_comparing_rankers": {
        "2.5": "the percentile of a 95% interval's lower end",
        "97.5": "the percentile of a 95% interval's upper end",
    },
}

_NUMBER = re.compile(r"(?<![\w.@/-])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)(?![\w.]*\w)")
_REMOVE = [
    (re.compile(r"\A---\n.*?\n---\n", re.S), " "),  # front matter
    (re.compile(r"(`{3,})\{code-cell\}.*?\n\1", re.S), " "),
    (re.compile(r"(`{3,})\{(?:exercise|solution)\}.*?\n\1", re.S), " "),
    (re.compile(r"(`{3,}).*?\n\1", re.S), " "),  # other fenced blocks (math, bash, figures)
    (re.compile(r"\$\$.*?\$\$", re.S), " "),
    (re.compile(r"\$[^$\n]+\$"), " "),
    (re.compile(r"\{[\w:-]+\}`[^`]*`"), " "),  # roles: glue, cite, ref, term, numref
    (re.compile(r"`[^`]*`"), " "),
    (re.compile(r"\]\([^)]*\)"), "]"),  # link targets
]


def prose(markdown: str) -> str:
    """The prose of a MyST chapter, without what may legitimately hold typed numbers."""
    for pattern, repl in _REMOVE:
        markdown = pattern.sub(repl, markdown)
    return markdown


def typed_numbers(markdown: str, allowed_text: str, constants: dict[str, str]) -> list[str]:
    """Numbers in the prose that are neither in ``allowed_text`` nor in ``constants``."""
    return [
        n for n in _NUMBER.findall(prose(markdown)) if n not in allowed_text and n not in constants
    ]


def test_typed_numbers_finds_a_typed_result_and_spares_glue_and_quotes():
    page = (
        "Weighted overlap falls from 0.8474 (paper) to 0.8715 here, "
        "{glue:text}`weighted_io:.4f` glued, `0.123` in code, $0.5$ in math.\n"
        "```{code-cell} ipython3\nx = 0.77\n```\n"
    )
    assert typed_numbers(page, "falls from 0.8474 to 0.1702", {}) == ["0.8715"]
    assert typed_numbers(page, "", {"0.8474": "q", "0.8715": "c"}) == []


@pytest.mark.skipif(not PAPERS.is_dir(), reason="the papers' text is not next to the project")
@pytest.mark.parametrize("chapter", sorted(p.stem for p in (ROOT / "notebooks").glob("*.md")))
def test_no_result_number_is_typed_into_chapter_prose(chapter):
    papers = " ".join(p.read_text(encoding="utf-8") for p in PAPERS.glob("*.txt"))
    text = (ROOT / "notebooks" / f"{chapter}.md").read_text(encoding="utf-8")
    found = typed_numbers(text, papers, CONSTANTS.get(chapter, {}))
    assert not found, f"{chapter}: typed numbers in prose (glue them or quote the paper): {found}"
