"""Chapter-numbered exercises, figures and equations, and references to them."""

from __future__ import annotations

import re

import pytest

from rankbook.report.numbering import chapter_number, document_prefix, notebook_numbers, renumber
from tests.conftest import ROOT

CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
PAGES = sorted((ROOT / "book").glob("*.md"))


def test_document_prefix_follows_the_file_number():
    assert chapter_number("chapters/02_random_tie_expectation") == 2
    assert document_prefix("chapters/17_real_recommenders") == (17,)
    assert document_prefix("sheet_session2") == ("S2",)
    assert document_prefix("course_guide") == ()


def test_renumber_numbers_each_kind_per_page_in_page_order():
    sphinx = {
        "chapters/17_x": {"figure": {"f-b": (9,), "f-a": (4,)}, "exercise": {"e": (40,)}},
        "chapters/02_y": {"figure": {"f-c": (12,)}, "displaymath": {"q": (3,), "p": (1,)}},
        "index": {"figure": {"f-d": (2,)}},
    }
    assert renumber(sphinx) == {
        "chapters/17_x": {"figure": {"f-a": (17, 1), "f-b": (17, 2)}, "exercise": {"e": (17, 1)}},
        "chapters/02_y": {"figure": {"f-c": (2, 1)}, "displaymath": {"p": (2, 1), "q": (2, 2)}},
        "index": {"figure": {"f-d": (1,)}},
    }


def test_notebook_numbers_match_the_site_rule():
    cells = [
        {"cell_type": "markdown", "source": "$$\nx\n$$ (eq-a)\n\n```{math}\n:label: eq-b\ny\n```"},
        {
            "cell_type": "code",
            "source": "plot()",
            "metadata": {"mystnb": {"figure": {"name": "fig-a", "caption": "A."}}},
        },
        {"cell_type": "code", "source": "x", "metadata": {"mystnb": {"figure": {"name": "n"}}}},
        {"cell_type": "markdown", "source": "````{exercise} T\n:label: ex-05-1\n\nDo.\n````"},
    ]
    assert notebook_numbers("chapters/05_z", cells) == {
        "eq-a": ("displaymath", "5.1"),
        "eq-b": ("displaymath", "5.2"),
        "fig-a": ("figure", "5.1"),
        "ex-05-1": ("exercise", "5.1"),
    }


def test_the_book_enables_the_numbering_extension():
    config = (ROOT / "book" / "_config.yml").read_text(encoding="utf-8")
    assert "rankbook.report.sphinx_numbering" in config


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_title_carries_its_file_number(path):
    title = re.search(r"^# (.+)$", path.read_text(encoding="utf-8"), flags=re.M)
    assert title and title.group(1).startswith(f"{int(path.name[:2])}. "), title


@pytest.mark.parametrize("path", CHAPTERS + PAGES, ids=lambda p: p.stem)
def test_exercises_are_referred_to_by_label_not_by_number(path):
    import jupytext

    if path.parent.name == "notebooks":
        text = "\n".join(c.source for c in jupytext.read(path).cells if c.cell_type == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", " ", text, flags=re.S)  # code blocks
    bare = re.findall(r"\b[Ee]xercises? \(?\d[\d.]*\b|\b[Ee]xercises? S\d", text)
    assert not bare, f"{path.name}: use {{ref}}`<label>` instead of {bare}"
    for label in re.findall(r"\{ref\}`(?:[^`<]*<)?(ex-\d\d-\d+|s[12]-\d+)>?`", text):
        assert _label_exists(label), f"{path.name}: no exercise labelled {label}"


def _label_exists(label: str) -> bool:
    sources = [*CHAPTERS, ROOT / "book" / "sheet_session1.md", ROOT / "book" / "sheet_session2.md"]
    return any(f":label: {label}\n" in p.read_text(encoding="utf-8") for p in sources)
