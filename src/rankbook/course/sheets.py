"""The exercise sheets (``book/sheet_session*.md``) and the solution blocks of every page.

A sheet exercise is a sphinx-exercise ``exercise`` block with a ``:label:`` (``s1-2``), what to
run (a rerun command ``python src/rankbook/course/student.py rerun NN_name -p key value ... --out
~/rerun/s1-2``, or a Python block) and a ``**Read:**`` line naming the results keys to read; a
key may be followed by the fields to read inside it, in parentheses: ``table1`` (``lift_pct``).
Its ``solution`` block follows it. :func:`parse_sheet` reads the exercises of a sheet and
:func:`solution_blocks` the solutions of any MyST page (a sheet or a chapter), with the Python
code each holds.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "RERUN",
    "SheetItem",
    "SolutionBlock",
    "parse_sheet",
    "sheet_paths",
    "sheet_title",
    "solution_blocks",
]

_BLOCK = re.compile(
    r"^(?P<fence>`{3,})\{(?P<kind>exercise|solution)\}(?P<arg>[^\n]*)\n(?P<body>.*?)^(?P=fence)\s*$",
    flags=re.S | re.M,
)
#: A sheet's rerun command: the student route (``src/rankbook/course/student.py rerun``).
RERUN = re.compile(
    r"python src/rankbook/course/student\.py rerun (\S+)((?: -p \S+ \S+)*) --out (\S+)"
)
_READ = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`(?:\s*\(([^()]*)\))?")
_CODE = re.compile(r"^```(bash|python|console|powershell)\n(.*?)^```\s*$", flags=re.S | re.M)


@dataclass
class SheetItem:
    """One exercise of a sheet: its label, title, runs, Python blocks and the keys it names.

    ``runs`` holds ``(chapter, {parameter: value as written}, out folder as written)``.
    """

    label: str
    title: str = ""
    runs: list[tuple[str, dict[str, str], str]] = field(default_factory=list)
    python: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    fields: dict[str, list[str]] = field(default_factory=dict)
    solved: bool = False
    solution: str = ""


@dataclass(frozen=True)
class SolutionBlock:
    """A ``solution`` block of a page: the exercise it solves, its body and its Python code."""

    page: str
    label: str
    body: str
    python: tuple[str, ...]


def _options_stripped(body: str) -> str:
    lines = body.splitlines()
    while lines and (lines[0].startswith(":") or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines).strip()


def parse_sheet(text: str) -> list[SheetItem]:
    """The exercises of a sheet page, in page order."""
    items: dict[str, SheetItem] = {}
    for block in _BLOCK.finditer(text):
        body = block.group("body")
        if block.group("kind") == "solution":
            label = block.group("arg").strip()
            if label in items:
                items[label].solved = ":class: dropdown" in body
                items[label].solution = _options_stripped(body)
            continue
        label = re.search(r"^:label:\s*(\S+)", body, flags=re.M)
        item = SheetItem(label.group(1) if label else "", block.group("arg").strip())
        for lang, code in _CODE.findall(body):
            if lang == "python":
                item.python.append(code)
            for nb, args, out in RERUN.findall(code):
                pairs = shlex.split(args)
                params = {pairs[i + 1]: pairs[i + 2] for i in range(0, len(pairs), 3)}
                item.runs.append((nb, params, out))
        read = re.search(r"\*\*Read:\*\*(.*?)(?:\n\n|\Z)", body, flags=re.S)
        if read:
            for key, inside in _READ.findall(read.group(1)):
                item.keys.append(key)
                item.fields[key] = re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", inside)
        items[item.label] = item
    return list(items.values())


def solution_blocks(text: str, page: str = "") -> list[SolutionBlock]:
    """Every ``solution`` block of a MyST page, with the ``python`` code blocks inside it."""
    found = []
    for block in _BLOCK.finditer(text):
        if block.group("kind") != "solution":
            continue
        body = _options_stripped(block.group("body"))
        code = tuple(c for lang, c in _CODE.findall(body) if lang == "python")
        found.append(SolutionBlock(page, block.group("arg").strip(), body, code))
    return found


def sheet_paths(book: Path) -> list[Path]:
    """The sheets of the book folder, in session order (``sheet_session1.md``, ...)."""
    paths = sorted(Path(book).glob("sheet_session*.md"))
    if not paths:
        raise FileNotFoundError(f"no sheet_session*.md in {book}")
    return paths


def sheet_title(text: str) -> str:
    """The sheet's ``#`` heading."""
    match = re.search(r"^# (.+)$", text, flags=re.M)
    if match is None:
        raise ValueError("the sheet has no '# ' title")
    return match.group(1).strip()
