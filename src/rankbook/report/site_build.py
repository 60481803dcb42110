"""The site build: the instructor's site, its decks and the student edition.

:func:`build_book` builds ``book/_build/html`` strictly from the executed chapters with Jupyter
Book, copies MathJax next to it (:func:`install_mathjax`), writes the course's reveal.js decks
(:mod:`rankbook.report.slides`) and then the student edition (:mod:`rankbook.course.editions`).
:mod:`rankbook.report.pipeline` calls it (``python -m rankbook.report.pipeline build``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from rankaudit._optional import require
from rankbook.course.editions import build_student_edition
from rankbook.course.solutions_page import write_solutions_page
from rankbook.report.slides import build_slides

__all__ = ["build_book", "install_mathjax"]


def install_mathjax(html_dir: Path) -> Path:
    """Copy MathJax 3 (from the ``django-static-mathjax`` wheel) into ``_static/mathjax``."""
    mathjax = require("mathjax", purpose="the site build")  # the django-static-mathjax package

    base = Path(mathjax.__file__).parent
    candidates = [p.parent for p in base.rglob("tex-chtml.js")]
    if not candidates:
        raise FileNotFoundError(f"tex-chtml.js not found under {base}.")
    target = html_dir / "_static" / "mathjax"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(min(candidates, key=lambda p: len(p.parts)), target)
    return target


def build_book(
    book_dir: Path,
    executed: Path,
    *,
    results: Path | None = None,
    student: bool = True,
    log=print,
) -> Path:
    """Build the site in ``book_dir/_build/html`` from the executed notebooks, strictly, then
    the course's reveal.js decks into ``html/slides`` (:mod:`rankbook.report.slides`), from the
    executed notebooks and the results JSON in ``results`` (default: ``executed``'s sibling
    ``results``, as in ``book/_build``).

    The instructor's page of every sheet's solutions (``book_dir/solutions.md``,
    :mod:`rankbook.course.solutions_page`) is written first; with ``student`` (the default) the
    student edition, without solutions, is built after the site into
    ``book_dir/_build/student/_build/html`` from the same executed notebooks
    (:mod:`rankbook.course.editions`).

    ``book_dir/chapters`` must resolve to ``executed`` (in the repository it is a
    symlink to ``_build/executed``).
    """
    chapters = book_dir / "chapters"
    if not chapters.exists():
        raise FileNotFoundError(f"{chapters} is missing; it should point at {executed}.")
    jb = Path(sys.executable).parent / "jupyter-book"
    if not jb.is_file():
        raise FileNotFoundError(f"{jb} not found: is jupyter-book installed in this environment?")
    write_solutions_page(book_dir)
    cmd = [str(jb), "build", str(book_dir), "-W", "-n", "--keep-going"]
    log("  " + " ".join(cmd))
    proc = subprocess.run(cmd)
    if proc.returncode != 0:
        raise RuntimeError(
            f"jupyter-book build failed (exit {proc.returncode}); see the warnings above."
        )
    html = book_dir / "_build" / "html"
    if not (html / "index.html").is_file():
        raise RuntimeError(f"jupyter-book exited 0 but wrote no {html / 'index.html'}.")
    install_mathjax(html)
    for deck in build_slides(html, executed, results):
        log(f"  slides: {deck}")
    log(f"  site: {html / 'index.html'}")
    if student:
        edition = build_student_edition(book_dir, instructor_html=html, log=log)
        log(f"  student edition: {edition / 'index.html'}")
    return html
