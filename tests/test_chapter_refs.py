"""Running text refers to a chapter as "Chapter 7", not by its full title.

A bare ``{ref}`hash-seeds``` renders the chapter's whole title ("7. Hash seeds versus the exact
expectation") in the middle of a sentence. Every reference to a chapter's label in a chapter, a
book page or the compendium's code therefore shows its own text, ``Chapter N``, with ``N`` the
number of the file that defines the label (``07_hash_seeds...`` is Chapter 7, the number its
title and its figures carry, :mod:`rankbook.report.numbering`). The one exception is the table
of chapters on a part page, a listing whose first cell is the chapter's title on purpose.
Section, figure, exercise and appendix references (notation, glossary, decide, deviations,
rerun, the part pages) keep their names.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
BOOK = ROOT / "book"

_TITLE_LABEL = re.compile(r"^\(([\w-]+)\)=\s*\n#\s", re.M)
_REF = re.compile(r"\{ref\}`([^`]*)`")
_CODE_CELL = re.compile(r"(`{3,})\{code-cell\}.*?\n\1", re.S)
_PART_LISTING = re.compile(r"^\| \{ref\}`[\w-]+` \|")


def chapter_labels() -> dict[str, int]:
    """Each chapter's title label and its number, read from ``notebooks/NN_name.md``."""
    labels = {}
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.md")):
        match = _TITLE_LABEL.search(path.read_text(encoding="utf-8"))
        assert match, f"{path.name}: no (label)= before its title"
        labels[match.group(1)] = int(path.name[:2])
    return labels


def ref_findings(text: str, labels: dict[str, int], *, part_page: bool = False) -> list[str]:
    """Every reference to a chapter label in ``text`` that does not read "Chapter N"."""
    text = _CODE_CELL.sub(" ", text)
    findings = []
    for match in _REF.finditer(text):
        body = match.group(1)
        target = re.search(r"<([^<>]+)>\s*$", body)
        label = target.group(1) if target else body.strip()
        if label not in labels:
            continue
        line_start = text.rfind("\n", 0, match.start()) + 1
        line = text[line_start : text.find("\n", match.end()) % (len(text) + 1)]
        if part_page and not target and _PART_LISTING.match(line):
            continue
        shown = body[: target.start()] if target else ""
        number = re.fullmatch(r"\s*Chapter (\d+)\s*", shown)
        if number is None:
            findings.append(f"{match.group(0)} shows no 'Chapter N': {line.strip()[:120]}")
        elif int(number.group(1)) != labels[label]:
            findings.append(f"{match.group(0)} is Chapter {labels[label]}: {line.strip()[:120]}")
        elif re.search(r"[Cc]hapters?\s+$", text[max(0, match.start() - 12) : match.start()]):
            findings.append(f"{match.group(0)} follows the word 'chapter': {line.strip()[:120]}")
    return findings


PAGES = sorted(NOTEBOOKS.glob("*.md")) + sorted(BOOK.glob("*.md"))


def test_every_chapter_file_has_a_title_label():
    labels = chapter_labels()
    assert len(labels) == len(list(NOTEBOOKS.glob("[0-9][0-9]_*.md")))
    assert labels["random-tie-expectation"] == 2
    assert labels["real-recommenders"] == 17


@pytest.mark.parametrize("path", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_chapter_refs_read_chapter_n(path):
    text = path.read_text(encoding="utf-8")
    found = ref_findings(text, chapter_labels(), part_page=path.name.startswith("part"))
    assert not found, f"{path.name}:\n" + "\n".join(found)


def code_strings(source: str) -> list[str]:
    """The string literals of a module (f-string parts included), docstrings left out."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            docstrings.add(id(body[0].value))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_compendium_code_writes_chapter_refs_as_chapter_n():
    labels = chapter_labels()
    found = []
    for path in sorted((ROOT / "src" / "rankbook").rglob("*.py")):
        for text in code_strings(path.read_text("utf-8")):
            found += [f"{path.name}: {f}" for f in ref_findings(text, labels)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("as in {ref}`hash-seeds`.", "shows no"),
        ("as in chapter {ref}`hash-seeds`.", "shows no"),
        ("as in {ref}`the seeds <hash-seeds>`.", "shows no"),
        ("as in {ref}`Chapter 6 <hash-seeds>`.", "is Chapter 7"),
        ("as in chapter {ref}`Chapter 7 <hash-seeds>`.", "follows the word"),
    ],
)
def test_a_wrong_chapter_ref_is_caught(text, problem):
    found = ref_findings(text, {"hash-seeds": 7})
    assert len(found) == 1 and problem in found[0]


def test_right_refs_and_other_labels_pass():
    labels = {"hash-seeds": 7}
    good = (
        "See {ref}`Chapter 7 <hash-seeds>`, {ref}`ex-07-1`, {ref}`notation` and "
        "{ref}`how this book decides <how-this-book-decides>`."
    )
    assert ref_findings(good, labels) == []
    listing = "| {ref}`hash-seeds` | Is one hash seed enough? |"
    assert ref_findings(listing, labels, part_page=True) == []
    assert ref_findings(listing, labels) != []
