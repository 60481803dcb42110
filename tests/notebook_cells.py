"""The code cells of the book's MyST notebooks, parsed, for the structural tests of the chapters.

Two rules of the book are checked on the source of every chapter, not on one rendered page:

- no hand-built words (``tests/report/test_no_hand_words.py``): a conditional expression whose
  branch is a string (``"agrees" if ok else "does not agree"``) chooses a word in a cell; a
  ``glue``/``glue_many`` argument that is a string literal, an f-string, a concatenation, a
  ``%``/``.format`` template or a ``.join`` builds a sentence in a cell. Words come from the
  prose and decision functions, called in a chapter's words cells (``tests/words_cells.py``).
- plumbing out of sight (``tests/test_visible_cells.py``): no visible code cell calls ``glue``
  or ``glue_many``.

A cell is HIDDEN when it carries the tag ``remove-cell`` or ``remove-input`` (its code is not on
the page). ``hide-input`` and ``hide-cell`` put the code behind a click, on the page: those cells
count as visible.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "HIDING_TAGS",
    "MYST_HEADER",
    "CodeCell",
    "Finding",
    "chapter_stems",
    "code_cells",
    "glue_calls",
    "hand_words",
    "html_outputs",
    "visible_glue",
]

#: The front matter of a jupytext MyST notebook, for the synthetic pages of the tests.
MYST_HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"

#: tags that keep a cell's code off the page (``hide-*`` only folds it: still visible).
HIDING_TAGS = frozenset({"remove-cell", "remove-input"})

_GLUE = frozenset({"glue", "glue_many", "glue_words"})


@dataclass(frozen=True)
class CodeCell:
    """One code cell: its 1-based number among the notebook's code cells, tags and source."""

    number: int
    tags: tuple[str, ...]
    source: str

    @property
    def hidden(self) -> bool:
        return bool(HIDING_TAGS & set(self.tags))


@dataclass(frozen=True)
class Finding:
    """A rule broken at ``line`` (1-based, within the cell) of code cell ``cell``."""

    cell: int
    line: int
    what: str

    def __str__(self) -> str:
        return f"code cell {self.cell}, line {self.line}: {self.what}"


def chapter_stems() -> list[str]:
    """The stems of the book's notebooks, sorted."""
    return sorted(p.stem for p in NOTEBOOKS.glob("*.md"))


def code_cells(notebook: str | Path) -> list[CodeCell]:
    """The code cells of a MyST notebook (a path, or the notebook text itself)."""
    import jupytext

    if isinstance(notebook, Path):
        nb = jupytext.read(notebook)
    else:
        nb = jupytext.reads(notebook, fmt="md:myst")
    cells = [c for c in nb.cells if c.cell_type == "code"]
    return [
        CodeCell(i, tuple(c.metadata.get("tags", [])), c.source) for i, c in enumerate(cells, 1)
    ]


def _parse(cell: CodeCell) -> ast.Module:
    """The cell's AST; IPython magics (``%``, ``!`` lines) are blanked, keeping line numbers."""
    lines = [
        "" if line.lstrip().startswith(("%", "!")) else line for line in cell.source.splitlines()
    ]
    return ast.parse("\n".join(lines))


def _is_text(node: ast.AST) -> bool:
    """A string built in place: a literal, an f-string, a concatenation or ``%`` template with a
    string side, a ``.join`` or a ``"...".format(...)`` call."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _is_text(node.left) or _is_text(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "join":
            return True
        if node.func.attr == "format" and _is_text(node.func.value):
            return True
    if isinstance(node, ast.IfExp):
        return _is_text(node.body) or _is_text(node.orelse)
    return False


def glue_calls(tree: ast.AST) -> Iterator[ast.Call]:
    """Every call of ``glue``/``glue_many`` (a bare name or an attribute, e.g. ``report.glue``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = (
                f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            )
            if name in _GLUE:
                yield node


def _glued_values(call: ast.Call) -> list[ast.AST]:
    """The value arguments of a glue call: ``glue(name, value)`` -> value; ``glue_many(**kw)`` ->
    every keyword value (``**mapping`` is a mapping, judged by what builds it)."""
    f = call.func
    name = f.id if isinstance(f, ast.Name) else f.attr  # type: ignore[union-attr]
    values = [kw.value for kw in call.keywords if kw.arg not in (None, "name", "display")]
    if name == "glue":
        values += call.args[1:2]
    else:
        values += list(call.args)
    for kw in call.keywords:  # glue_many(**{"a": "text"}) is a literal mapping of words
        if kw.arg is None and isinstance(kw.value, ast.Dict):
            values += [v for v in kw.value.values if v is not None]
    return values


def _text_names(trees: list[ast.Module]) -> set[str]:
    """Names the notebook binds to a string built in place (``note = f"they are {w}"``)."""
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if _is_text(node.value):
                    names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def hand_words(cells: list[CodeCell]) -> list[Finding]:
    """Every hand-built word in the code cells: a conditional expression with a string branch,
    and a glued value that is a string built in place (or a name bound to one)."""
    trees = [_parse(c) for c in cells]
    text_names = _text_names(trees)
    found: list[Finding] = []
    for cell, tree in zip(cells, trees, strict=True):
        for node in ast.walk(tree):
            if isinstance(node, ast.IfExp):
                for branch in (node.body, node.orelse):
                    if isinstance(branch, ast.JoinedStr) or (
                        isinstance(branch, ast.Constant) and isinstance(branch.value, str)
                    ):
                        found.append(
                            Finding(cell.number, node.lineno, "a conditional chooses a string")
                        )
                        break
        for call in glue_calls(tree):
            for value in _glued_values(call):
                if _is_text(value):
                    what = "glues a string built in the cell"
                elif isinstance(value, ast.Name) and value.id in text_names:
                    what = f"glues {value.id!r}, a string built in the notebook"
                else:
                    continue
                found.append(Finding(cell.number, value.lineno, what))
    return sorted(set(found), key=lambda f: (f.cell, f.line, f.what))


def visible_glue(cells: list[CodeCell]) -> list[Finding]:
    """Every ``glue``/``glue_many`` call in a cell that is not hidden (see :data:`HIDING_TAGS`)."""
    found = []
    for cell in cells:
        if cell.hidden:
            continue
        for call in glue_calls(_parse(cell)):
            found.append(Finding(cell.number, call.lineno, "glue call in a visible cell"))
    return sorted(set(found), key=lambda f: (f.cell, f.line))


def html_outputs(notebook: dict) -> Iterator[str]:
    """The ``text/html`` of every output of an executed notebook (a list of lines joined)."""
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html", "")
            yield "".join(html) if isinstance(html, list) else html
