"""A chapter's rerun as a folder of its own: the figures as PNG files and one readable HTML page.

A student who reruns a chapter with other parameters (``make chapter NB=... OUT=dir``) gets the
executed notebook and the results JSON from :func:`rankbook.report.pipeline.run_chapter_into`;
this module adds what a person reads:

* :func:`export_figures` writes every image output of the executed notebook to
  ``figures/<stem>_fig<NN>.png`` (numbered in page order; a MyST figure's ``name`` is kept in
  the file name when the cell has one);
* :func:`render_page` renders the executed notebook to one self-contained HTML page with
  MyST-NB's docutils writer (``mystnb-docutils-html5``): glued numbers, admonitions, figures and
  tables render as on the site, math is rendered to HTML by docutils (no MathJax, no network).
  Roles that only Sphinx resolves are rewritten first (:func:`plain_roles`): a reference to a
  figure, an equation, an exercise or a chapter reads as on the site ("Fig. 2.1", "(2.1)",
  "Exercise 2.1", "2. The random-tie expectation"; numbers by
  :func:`rankbook.report.numbering.notebook_numbers`, over every chapter of the book),
  citations as ``[key]`` and glossary terms and downloads as their text. The chapter's
  sphinx-exercise blocks become numbered boxes, each solution folded in a ``<details>`` element
  (closed, as the site's dropdown) (:func:`exercises_as_boxes`). Figures and wide tables are held
  to the page's width by a style sheet (:data:`PAGE_CSS`). Nothing is executed.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from rankaudit._optional import require
from rankbook.report.numbering import notebook_numbers

__all__ = [
    "PAGE_CSS",
    "book_labels",
    "exercises_as_boxes",
    "export_figures",
    "plain_roles",
    "render_page",
]

#: The MyST extensions the book enables (``book/_config.yml``), for the same rendering.
MYST_EXTENSIONS = "amsmath,colon_fence,dollarmath,deflist,substitution"

_SPHINX_ROLE = re.compile(r"\{(cite(?::[a-z]+)?|ref|numref|eq|term|doc|download|index)\}`([^`]*)`")

#: How the site words a numbered object (Sphinx's ``numfig_format`` and sphinx-exercise's).
_SHOWN = {
    "figure": "Fig. {}",
    "table": "Table {}",
    "displaymath": "({})",
    "exercise": "Exercise {}",
}

#: Holds figures and wide tables to the page's width.
PAGE_CSS = """<style type="text/css">
img { max-width: 100%; height: auto; }
table { display: block; max-width: 100%; overflow-x: auto; }
div.math, pre { max-width: 100%; overflow-x: auto; }
aside.exercise, details.solution { border-left: 3px solid #4a6fa5; padding: 0 0.8em; }
details.solution > summary { cursor: pointer; font-weight: bold; }
span.eqno { float: right; }
</style>
"""

_CHAPTER_HEAD = re.compile(r"^\(([A-Za-z0-9_-]+)\)=\s*\n#\s+(.+)$", flags=re.M)
_BLOCK = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{(?P<kind>exercise|solution)\}(?P<arg>[^\n]*)\n(?P<body>.*?)"
    r"^(?P=fence)[ \t]*$",
    flags=re.S | re.M,
)

_IMAGE_KINDS = {"image/png": ".png", "image/jpeg": ".jpg", "image/svg+xml": ".svg"}


def _figure_name(cell: dict) -> str | None:
    meta = cell.get("metadata", {})
    name = meta.get("mystnb", {}).get("figure", {}).get("name")
    if name is None:
        return None
    return re.sub(r"[^A-Za-z0-9_-]+", "-", str(name)).strip("-") or None


def export_figures(executed: Path, folder: Path) -> list[Path]:
    """Write every image output of the executed notebook ``executed`` into ``folder``.

    Returns the files written, in page order. A notebook without images writes nothing (and
    does not create ``folder``).
    """
    executed = Path(executed)
    nb = json.loads(executed.read_text(encoding="utf-8"))
    stem = executed.stem
    written: list[Path] = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        label = _figure_name(cell)
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for kind, suffix in _IMAGE_KINDS.items():
                if kind not in data:
                    continue
                payload = data[kind]
                if isinstance(payload, list):
                    payload = "".join(payload)
                number = len(written) + 1
                name = f"{stem}_fig{number:02d}" + (f"_{label}" if label else "") + suffix
                folder.mkdir(parents=True, exist_ok=True)
                path = folder / name
                if kind == "image/svg+xml":
                    path.write_text(payload, encoding="utf-8")
                else:
                    path.write_bytes(base64.b64decode(payload))
                written.append(path)
                break
    return written


def _target(text: str) -> tuple[str | None, str]:
    """``(shown text or None, label)`` of a role's ``text <label>`` or ``label``."""
    match = re.fullmatch(r"\s*(.*?)\s*<([^<>]*)>\s*", text, flags=re.S)
    return (match.group(1) or None, match.group(2).strip()) if match else (None, text.strip())


def _resolved(role: str, text: str, labels: Mapping[str, tuple[str, str]]) -> str | None:
    shown, label = _target(text)
    if label not in labels:
        return None
    kind, number = labels[label]
    if kind == "chapter":
        return f"*{shown or number}*"
    if role == "numref" and shown:
        return shown.replace("%s", number).replace("{number}", number)
    if role == "ref" and shown:
        return f"*{shown}*"
    return _SHOWN.get(kind, "{}").format(number)


def plain_roles(markdown: str, labels: Mapping[str, tuple[str, str]] | None = None) -> str:
    """Rewrite the Sphinx-only roles of a MyST text to plain text a single page can show.

    With ``labels`` (label to ``(kind, number)``, :func:`book_labels`), ``{numref}``, ``{eq}``
    and ``{ref}`` to a known figure, equation, exercise or chapter read as on the site:
    ``{numref}`fig-x``` becomes ``Fig. 2.1``, ``{eq}`eq-hr``` ``(2.1)``, ``{ref}`ex-02-1```
    ``Exercise 2.1`` and ``{ref}`random-tie-expectation``` the chapter's numbered title in
    italics. Otherwise ``{cite}`a,b``` becomes ``[a, b]``, ``{eq}`label``` ``(label)``, and
    ``{ref}``/``{term}``/``{doc}``/``{download}``/``{numref}``/``{index}`` their shown text in
    italics (``{ref}`the rules <tie-rules>``` becomes ``*the rules*``).
    """
    known = labels or {}

    def one(match: re.Match) -> str:
        role, text = match.group(1), match.group(2)
        if role in {"ref", "numref", "eq"}:
            resolved = _resolved(role, text, known)
            if resolved is not None:
                return resolved
        shown = re.sub(r"\s*<[^<>]*>\s*$", "", text).strip() or text
        if role.startswith("cite"):
            return "[" + ", ".join(key.strip() for key in text.split(",")) + "]"
        if role == "eq":
            return f"({text})"
        return f"*{shown}*"

    return _SPHINX_ROLE.sub(one, markdown)


def _body_without_options(body: str) -> str:
    lines = body.split("\n")
    while lines and re.match(r"^:[\w-]+:", lines[0]):
        lines.pop(0)
    return "\n".join(lines).strip("\n")


def exercises_as_boxes(markdown: str, labels: Mapping[str, tuple[str, str]]) -> str:
    """The sphinx-exercise blocks of a MyST text as plain MyST a single page renders.

    ``{exercise} Title`` with ``:label: ex-02-1`` becomes an admonition titled
    ``Exercise 2.1 · Title`` (the number from ``labels``); ``{solution} ex-02-1`` becomes a
    closed ``<details>`` element, ``Solution to Exercise 2.1``, around the solution's text.
    """

    def box(match: re.Match) -> str:
        fence, kind = match.group("fence"), match.group("kind")
        arg, body = match.group("arg").strip(), match.group("body")
        label = re.search(r"^:label:\s*(\S+)", body, flags=re.M)
        text = exercises_as_boxes(_body_without_options(body), labels)
        if kind == "exercise":
            number = labels.get(label.group(1), ("", ""))[1] if label else ""
            title = " · ".join(part for part in (f"Exercise {number}".strip(), arg) if part)
            return f"{fence}{{admonition}} {title}\n:class: exercise\n\n{text}\n{fence}"
        number = labels.get(arg, ("", ""))[1]
        summary = f"Solution to Exercise {number}" if number else "Solution"
        return f'<details class="solution"><summary>{summary}</summary>\n\n{text}\n\n</details>'

    return _BLOCK.sub(box, markdown)


def book_labels(
    notebooks: Path | None, executed: Mapping | None = None
) -> dict[str, tuple[str, str]]:
    """Label to ``(kind, number)`` over the book's chapters, numbered as the site numbers them.

    Reads every chapter source ``notebooks/NN_*.md`` (a chapter's label maps to
    ``("chapter", its numbered title)``); ``executed``, ``{"stem": ..., "cells": [...]}`` of one
    executed notebook, adds (and overrides) that chapter's own entries. ``notebooks=None`` gives
    the executed notebook's labels only.
    """
    labels: dict[str, tuple[str, str]] = {}
    sources = sorted(Path(notebooks).glob("[0-9][0-9]_*.md")) if notebooks else []
    if sources:
        jupytext = require("jupytext", purpose="the rerun page")
        for path in sources:
            nb = jupytext.read(path)
            labels.update(notebook_numbers(f"chapters/{path.stem}", nb.cells))
            for cell in nb.cells:
                if cell.cell_type == "markdown":
                    for label, title in _CHAPTER_HEAD.findall(cell.source):
                        labels[label] = ("chapter", title.strip())
    if executed is not None:
        labels.update(notebook_numbers(f"chapters/{executed['stem']}", executed["cells"]))
    return labels


def _with_plain_roles(nb: dict, labels: Mapping[str, tuple[str, str]]) -> dict:
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            source = cell.get("source", "")
            text = "".join(source) if isinstance(source, list) else source
            cell["source"] = plain_roles(exercises_as_boxes(text, labels), labels)
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/markdown" in data:
                text = data["text/markdown"]
                data["text/markdown"] = plain_roles(
                    "".join(text) if isinstance(text, list) else text, labels
                )
    return nb


def render_page(executed: Path, page: Path, notebooks: Path | None = None) -> Path:
    """Render the executed notebook to the single HTML page ``page`` (offline, no execution).

    ``notebooks``, the folder of the chapter sources, resolves references to other chapters'
    figures, equations, exercises and titles (:func:`book_labels`); without it only the page's
    own resolve. Images go to ``<page stem>_files/`` beside the page. Raises
    :class:`RuntimeError` naming the notebook when the renderer fails.
    """
    executed, page = Path(executed).resolve(), Path(page).resolve()
    assets = page.with_name(f"{page.stem}_files")
    nb = json.loads(executed.read_text(encoding="utf-8"))
    labels = book_labels(notebooks, {"stem": executed.stem, "cells": nb.get("cells", [])})
    nb = _with_plain_roles(nb, labels)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / executed.name
        source.write_text(json.dumps(nb), encoding="utf-8")
        cmd = [
            sys.executable,
            "-c",
            "from myst_nb.docutils_ import cli_html5; cli_html5()",
            "--nb-execution-mode=off",
            f"--nb-output-folder={assets.name}",
            "--nb-render-markdown-format=myst",
            f"--myst-enable-extensions={MYST_EXTENSIONS}",
            "--myst-all-links-external=true",
            "--nb-output-stderr=remove",
            "--math-output=HTML",
            "--report=4",
            "--halt=5",
            "--no-section-numbering",
            f"--title={executed.stem}",
            str(source),
            str(page),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=page.parent)
    if proc.returncode != 0 or not page.is_file():
        raise RuntimeError(
            f"could not render {executed} to HTML (exit {proc.returncode}): {proc.stderr[-2000:]}"
        )
    processed = assets / "processed.ipynb"
    if processed.is_file():
        processed.unlink()
    html = page.read_text(encoding="utf-8").replace("</head>", PAGE_CSS + "</head>", 1)
    for label, (kind, number) in labels.items():  # the equation numbers the text refers to
        if kind == "displaymath":
            opening = f'<div class="formula" id="{label}">'
            html = html.replace(opening, f'{opening}<span class="eqno">({number})</span>')
    page.write_text(html, encoding="utf-8")
    return page
