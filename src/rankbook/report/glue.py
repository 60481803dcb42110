"""``glue`` for chapters: MyST-NB's glue with numpy scalars turned into Python numbers.

MyST-NB stores a glued value's ``text/plain`` repr and formats it later with the format spec
in ``{glue:text}`name:.4f```. Under numpy 2 the repr of ``np.float64(0.25)`` is the string
``"np.float64(0.25)"``, which cannot be formatted as a number and fails a strict build. This
wrapper converts numpy scalars (and 0-d arrays) to ``int``/``float``/``bool`` first.
"""

from __future__ import annotations

from typing import Any

from rankaudit._optional import require
from rankaudit.scalars import plain

__all__ = ["glue", "glue_many", "glue_words", "plain"]


def glue(name: str, value: Any, display: bool = False) -> None:
    """Glue ``value`` under ``name`` for ``{glue:text}`` / ``{glue:}`` roles (hidden by default)."""
    myst_glue = require("myst_nb", purpose="rankbook.report.glue").glue

    myst_glue(name, plain(value), display=display)


def glue_many(**values: Any) -> None:
    """Glue every ``name=value`` pair, hidden: one call for a paragraph's numbers.

    ``glue_many(n_rows=1000, hr=0.25)`` is ``glue("n_rows", 1000)`` then ``glue("hr", 0.25)``.
    """
    if not values:
        raise ValueError("glue_many needs at least one name=value pair")
    for name, value in values.items():
        glue(name, value)


def glue_words(**words: str) -> None:
    """Glue the words of the paragraph that follows, each a ``str`` computed by the prose and
    decision functions (:mod:`rankbook.report.prose`, :mod:`rankaudit.runs.decision`).

    A chapter calls it in a hidden cell tagged ``words`` right before the paragraph that uses the
    words; that cell reads only ``results`` (the values the page records in its results file),
    so the words are a function of the results file alone, and the tests re-run the cell on that
    file (see CONTRIBUTING.md, "A sentence and its words").
    """
    if not words:
        raise ValueError("glue_words needs at least one name=word pair")
    for name, word in words.items():
        if not isinstance(word, str):
            raise ValueError(
                f"glue_words: {name}= must be a str computed by a prose or decision function, "
                f"got {type(word).__name__}"
            )
        glue(name, word)
