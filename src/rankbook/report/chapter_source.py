"""A chapter's source as the pipeline reads it: the chapters in book order, their declared and
smoke parameters, and papermill-style typing of ``-p key value`` strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rankaudit._optional import require

__all__ = [
    "chapter_names",
    "check_parameter_names",
    "declared_parameters",
    "parse_cli_value",
    "PRESETS",
    "preset_parameters",
    "read_source",
    "smoke_parameters",
]

#: Named parameter sets a chapter may declare in its front matter (``rankaudit.<name>_parameters``):
#: ``smoke`` for the tests, ``class`` for a laptop-sized run in a class (under 30 s on two cores).
PRESETS = ("smoke", "class")


def chapter_names(notebooks: Path) -> list[str]:
    """Chapter stems, in book order (``NN_`` prefix)."""
    return sorted(p.stem for p in notebooks.glob("[0-9][0-9]_*.md"))


def read_source(notebooks: Path, name: str):
    """The jupytext notebook of chapter ``name`` in ``notebooks``; FileNotFoundError naming the
    chapters there when it does not exist."""
    jupytext = require("jupytext", purpose="the book pipeline")

    path = notebooks / f"{name}.md"
    if not path.is_file():
        known = ", ".join(chapter_names(notebooks))
        raise FileNotFoundError(f"No chapter {name!r} ({path}); chapters: {known}.")
    return jupytext.read(path)


def smoke_parameters(notebooks: Path, name: str) -> dict[str, Any]:
    """The small parameters a chapter declares for tests (front matter
    ``rankaudit.smoke_parameters``)."""
    nb = read_source(notebooks, name)
    return dict(nb.metadata.get("rankaudit", {}).get("smoke_parameters", {}) or {})


def preset_parameters(notebooks: Path, name: str, preset: str) -> dict[str, Any]:
    """The parameters of a named preset (front matter ``rankaudit.<preset>_parameters``).

    A chapter that does not declare the preset raises a ValueError naming the chapters that do
    not apply to it, so ``--preset class`` on a chapter without a class size fails loudly
    instead of silently running the defaults.
    """
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    nb = read_source(notebooks, name)
    found = nb.metadata.get("rankaudit", {}).get(f"{preset}_parameters")
    if found is None:
        raise ValueError(
            f"Chapter {name} declares no {preset!r} preset (front matter "
            f"rankaudit.{preset}_parameters); run it at its defaults or with -p"
        )
    return dict(found)


def declared_parameters(notebooks: Path, name: str) -> list[str]:
    """Names assigned in a chapter's cell tagged ``parameters`` (what ``-p`` may set)."""
    import ast

    nb = read_source(notebooks, name)
    names: list[str] = []
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    names.append(node.id)
    return sorted(set(names))


def check_parameter_names(notebooks: Path, name: str, parameters: Mapping[str, Any]) -> None:
    """Raise a ValueError naming every parameter the chapter does not declare.

    papermill would inject an unknown name as a new variable that nothing reads, so a typo
    (``-p sede 5``) would silently run the chapter at its defaults.
    """
    known = declared_parameters(notebooks, name)
    unknown = sorted(set(parameters) - set(known))
    if unknown:
        raise ValueError(
            f"Chapter {name} has no parameter {', '.join(map(repr, unknown))}; its parameters "
            f"are: {', '.join(known) or '(none)'}"
        )


def parse_cli_value(text: str) -> Any:
    """Type a ``-p key value`` string the way papermill's CLI does (int, float, bool, None, str)."""
    if text in ("True", "true"):
        return True
    if text in ("False", "false"):
        return False
    if text in ("None", "none", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
