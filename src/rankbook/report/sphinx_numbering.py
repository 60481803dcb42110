"""A Sphinx extension: number figures, tables, equations and exercises by chapter file.

Enabled in ``book/_config.yml`` (``sphinx.extra_extensions``). After Sphinx assigns its
book-wide numbers (``env.toc_fignumbers``, which the HTML writer, ``{numref}``, ``{eq}`` and
sphinx-exercise all read), this rewrites them by :func:`rankbook.report.numbering.renumber`:
the objects of chapter ``NN_name`` become ``NN.1, NN.2, ...`` ("Exercise 2.3", "Fig. 11.1",
equation "(12.2)"), whatever the chapter's place in the table of contents.
"""

from __future__ import annotations

from typing import Any

from rankbook.report.numbering import renumber

__all__ = ["renumber_by_chapter", "setup"]


def renumber_by_chapter(app: Any, env: Any) -> list[str]:
    """``env-get-updated`` handler: replace the book-wide numbers by the chapter numbers.

    Returns the documents whose numbers changed (Sphinx rewrites them).
    """
    env.toc_fignumbers = renumber(env.toc_fignumbers)
    previous = getattr(env, "rankaudit_fignumbers", {})
    env.rankaudit_fignumbers = env.toc_fignumbers
    return sorted(doc for doc in env.toc_fignumbers if env.toc_fignumbers[doc] != previous.get(doc))


def setup(app: Any) -> dict[str, Any]:
    """Register the handler after Sphinx's own numbering (priority 900 > the default 500)."""
    app.connect("env-get-updated", renumber_by_chapter, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
