"""The instructor's page: every sheet's solutions on one printable page.

:func:`solutions_markdown` copies each sheet's ``solution`` blocks (:func:`parse_sheet`), in
session and exercise order, under the exercise's number and title with a link back to it; no
solution is retyped. :func:`write_solutions_page` writes it to ``book/solutions.md`` (ignored by
git) before the site is built (:func:`rankbook.report.pipeline.build_book`); the page is in the
instructor's site only: the student edition's table of contents leaves it out
(:mod:`rankbook.course.editions`).
"""

from __future__ import annotations

from pathlib import Path

from rankbook.course.sheets import parse_sheet, sheet_paths, sheet_title

__all__ = ["SOLUTIONS_FILE", "SOLUTIONS_LABEL", "solutions_markdown", "write_solutions_page"]

#: The page's file in the book folder and its label.
SOLUTIONS_FILE = "solutions.md"
SOLUTIONS_LABEL = "sheet-solutions"


def _number(label: str) -> str:
    """``s1-2`` -> ``S1.2``."""
    return label.upper().replace("-", ".")


def solutions_markdown(sheets: list[Path]) -> str:
    """The MyST source of the solutions page for the given sheets."""
    parts = [
        f"({SOLUTIONS_LABEL})=",
        "# Solutions to the exercise sheets (instructor edition)",
        "",
        "Every sheet's solutions, in session order, copied from the sheets' solution blocks when "
        "the site is built (`rankbook.course.solutions_page`). This page is in the instructor's "
        "site only; the student edition (`book/_build/student`) has neither this page nor the "
        "sheets' folded solutions. Print it from the browser (the page's download button, "
        "then PDF). `python -m rankbook.course grade SHEET FOLDER` checks a student's reruns "
        "against a sheet.",
    ]
    for sheet in sheets:
        text = sheet.read_text(encoding="utf-8")
        parts += ["", f"## {sheet_title(text)}"]
        for item in parse_sheet(text):
            if not item.solution:
                raise ValueError(f"{sheet.name}: exercise {item.label} has no solution block")
            parts += [
                "",
                f"### {_number(item.label)} {item.title.split(' · ')[0]}",
                "",
                f"Exercise: {{ref}}`{item.label}`.",
                "",
                item.solution,
            ]
    return "\n".join(parts) + "\n"


def write_solutions_page(book: Path) -> Path:
    """Write ``book/solutions.md`` from the book's sheets; return its path."""
    path = Path(book) / SOLUTIONS_FILE
    path.write_text(solutions_markdown(sheet_paths(book)), encoding="utf-8")
    return path
