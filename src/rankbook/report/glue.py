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

__all__ = ["glue", "glue_many", "plain"]


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
