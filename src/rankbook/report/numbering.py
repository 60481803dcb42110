"""Chapter-numbered figures, tables, equations and exercises ("Exercise 2.3", "(12.1)").

The book's chapters are the files ``NN_name`` (00 to 18), but the table of contents does not
list them in file order (chapter 17 sits in Part II), so Sphinx's own section numbering cannot
give the numbers the files carry. The rule instead, for every document:

* a chapter ``chapters/NN_name`` numbers each kind of numbered object (``figure``, ``table``,
  ``displaymath``, ``exercise``, ...) ``NN.1, NN.2, ...`` in page order, with ``NN`` the file's
  number without its leading zero (``02_random_tie_expectation`` gives ``2.1, 2.2``);
* a session's exercise sheet ``sheet_sessionS`` numbers ``SS.1, SS.2, ...`` (``S1.3``);
* any other page numbers ``1, 2, ...``, page by page.

:func:`renumber` applies the rule to Sphinx's table (``env.toc_fignumbers``: document, kind,
node id to a number tuple); :mod:`rankbook.report.sphinx_numbering` is the Sphinx extension that
calls it, and :func:`notebook_numbers` gives the same numbers for one executed chapter, for the
single rerun page (:mod:`rankbook.report.standalone`) which Sphinx does not build.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = [
    "CHAPTER_STEM",
    "chapter_number",
    "document_prefix",
    "notebook_numbers",
    "renumber",
]

#: A chapter's file stem: two digits, an underscore, a name.
CHAPTER_STEM = re.compile(r"(?:^|/)(\d{2})_[A-Za-z0-9_]+$")
_SHEET = re.compile(r"(?:^|/)sheet_session(\d+)$")


def chapter_number(docname: str) -> int | None:
    """The chapter number of ``chapters/NN_name`` (``NN`` as an integer), else ``None``."""
    match = CHAPTER_STEM.search(docname)
    return int(match.group(1)) if match else None


def document_prefix(docname: str) -> tuple[int | str, ...]:
    """The number prefix of a document: ``(NN,)`` for a chapter, ``("SS",)`` for session S's
    sheet, ``()`` for any other page."""
    number = chapter_number(docname)
    if number is not None:
        return (number,)
    sheet = _SHEET.search(docname)
    return (f"S{int(sheet.group(1))}",) if sheet else ()


def renumber(
    fignumbers: Mapping[str, Mapping[str, Mapping[str, tuple]]],
) -> dict[str, dict[str, dict[str, tuple]]]:
    """Sphinx's numbers rewritten by the module's rule, keeping each page's order.

    ``fignumbers`` maps a document to a kind to a node id to the number Sphinx gave it (a tuple
    that sorts in page order within a document). Returns the same shape with each document's
    objects of one kind numbered ``prefix + (1,), prefix + (2,), ...`` in that order.
    """
    out: dict[str, dict[str, dict[str, tuple]]] = {}
    for docname, kinds in fignumbers.items():
        prefix = document_prefix(docname)
        out[docname] = {}
        for kind, numbers in kinds.items():
            ordered = sorted(numbers, key=lambda node_id: tuple(numbers[node_id]))
            out[docname][kind] = {
                node_id: (*prefix, i) for i, node_id in enumerate(ordered, start=1)
            }
    return out


_DOLLAR_LABEL = re.compile(r"\$\$\s*\(([A-Za-z0-9_:.-]+)\)\s*$", flags=re.M)
_DIRECTIVE = re.compile(r"^(`{3,}|:{3,})\{(math|exercise|figure|table|list-table)\}", flags=re.M)
_LABEL_OPTION = re.compile(r"^:(?:label|name):\s*(\S+)\s*$", flags=re.M)


def notebook_numbers(docname: str, cells: Iterable[Mapping]) -> dict[str, tuple[str, str]]:
    """Label to ``(kind, number)`` for one notebook page, numbered as the site numbers it.

    ``cells`` are the notebook's cells (nbformat dicts) in page order. In Markdown cells,
    labelled equations (``$$ ... $$ (label)`` or a ``{math}`` directive with ``:label:``) are
    kind ``displaymath``, labelled ``{exercise}``/``{figure}`` directives kinds ``exercise`` and
    ``figure``; a code cell with a captioned MyST-NB figure (``mystnb.figure.name``) is kind
    ``figure``. The number is the :func:`document_prefix` and the position within the kind,
    joined by ``"."`` (``"2.3"``).
    """
    prefix = document_prefix(docname)
    found: list[tuple[str, str]] = []
    for cell in cells:
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        if cell.get("cell_type") == "code":
            figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
            if figure.get("name") and figure.get("caption"):
                found.append(("figure", str(figure["name"])))
            continue
        if cell.get("cell_type") != "markdown":
            continue
        events: list[tuple[int, str, str]] = []
        for match in _DOLLAR_LABEL.finditer(text):
            events.append((match.start(), "displaymath", match.group(1)))
        for match in _DIRECTIVE.finditer(text):
            kind = {"math": "displaymath", "list-table": "table"}.get(match.group(2))
            head = text[match.end() :].split("\n\n", 1)[0]
            label = _LABEL_OPTION.search(head)
            if label:
                events.append((match.start(), kind or match.group(2), label.group(1)))
        found.extend((kind, label) for _, kind, label in sorted(events))
    counters: dict[str, int] = {}
    numbers: dict[str, tuple[str, str]] = {}
    for kind, label in found:
        counters[kind] = counters.get(kind, 0) + 1
        numbers[label] = (kind, ".".join(map(str, (*prefix, counters[kind]))))
    return numbers
