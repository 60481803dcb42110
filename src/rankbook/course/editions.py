"""The student edition of the site: the same executed chapters, built without solutions.

:func:`build_student_edition` runs a second ``jupyter-book build`` of the book folder with two
overrides written into ``book/_build/student``: a configuration that sets sphinx-exercise's
``hide_solutions`` (every ``solution`` block is left out of the pages) and names the edition in
the title, and a table of contents without the instructor's solutions page
(:mod:`rankbook.course.solutions_page`). Notebooks are not executed (the book's
``execute_notebooks: "off"``): the build reuses the executed chapters. The site is written to
``book/_build/student/_build/html``, with the MathJax copy and the slides of the instructor's
site.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from rankbook.course.solutions_page import SOLUTIONS_FILE

__all__ = ["STUDENT_DIR", "build_student_edition", "student_config", "student_toc"]

#: Where the student edition is built, relative to the book folder.
STUDENT_DIR = Path("_build") / "student"


def student_config(config: dict[str, Any]) -> dict[str, Any]:
    """The book's ``_config.yml`` with solutions hidden and the edition named in the title."""
    out = {**config, "title": f"{config.get('title', 'The book')} (student edition)"}
    sphinx = dict(out.get("sphinx") or {})
    sphinx["config"] = {**(sphinx.get("config") or {}), "hide_solutions": True}
    out["sphinx"] = sphinx
    return out


def _without(entries: list[Any], stem: str) -> list[Any]:
    kept = []
    for entry in entries:
        if isinstance(entry, dict) and entry.get("file") == stem:
            continue
        if isinstance(entry, dict):
            entry = {
                key: _without(value, stem) if key in ("chapters", "sections", "parts") else value
                for key, value in entry.items()
            }
        kept.append(entry)
    return kept


def student_toc(toc: dict[str, Any]) -> dict[str, Any]:
    """The book's ``_toc.yml`` without the instructor's solutions page."""
    stem = Path(SOLUTIONS_FILE).stem
    out = dict(toc)
    for key in ("parts", "chapters", "sections"):
        if key in out:
            out[key] = _without(out[key], stem)
    return out


def build_student_edition(
    book_dir: Path, *, instructor_html: Path | None = None, log=print
) -> Path:
    """Build the student edition of ``book_dir`` strictly; return its ``html`` folder.

    ``instructor_html`` (the instructor's built site), when given, lends its MathJax copy and
    its slides folder.
    """
    import yaml  # jupyter-book's own dependency

    book_dir = Path(book_dir)
    out = book_dir / STUDENT_DIR
    out.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((book_dir / "_config.yml").read_text(encoding="utf-8"))
    toc = yaml.safe_load((book_dir / "_toc.yml").read_text(encoding="utf-8"))
    (out / "_config.yml").write_text(yaml.safe_dump(student_config(config)), encoding="utf-8")
    (out / "_toc.yml").write_text(yaml.safe_dump(student_toc(toc)), encoding="utf-8")
    jb = Path(sys.executable).parent / "jupyter-book"
    cmd = [
        str(jb), "build", str(book_dir), "--config", str(out / "_config.yml"),
        "--toc", str(out / "_toc.yml"), "--path-output", str(out), "-W", "-n", "--keep-going",
    ]  # fmt: skip
    log("  " + " ".join(cmd))
    proc = subprocess.run(cmd)
    html = out / "_build" / "html"
    if proc.returncode != 0 or not (html / "index.html").is_file():
        raise RuntimeError(
            f"the student edition's build failed (exit {proc.returncode}); see the warnings above."
        )
    if instructor_html is not None:
        for name in (Path("_static") / "mathjax", Path("slides")):
            source = Path(instructor_html) / name
            if source.is_dir():
                shutil.copytree(source, html / name, dirs_exist_ok=True)
    return html
