"""A chapter's rerun as a folder of its own: the figures as PNG files and one readable HTML page.

A student who reruns a chapter with other parameters (``make chapter NB=... OUT=dir``) gets the
executed notebook and the results JSON from :func:`rankaudit.report.pipeline.run_chapter_into`;
this module adds what a person reads:

* :func:`export_figures` writes every image output of the executed notebook to
  ``figures/<stem>_fig<NN>.png`` (numbered in page order; a MyST figure's ``name`` is kept in
  the file name when the cell has one);
* :func:`render_page` renders the executed notebook to one self-contained HTML page with
  MyST-NB's docutils writer (``mystnb-docutils-html5``): glued numbers, admonitions, figures and
  tables render as on the site, math is rendered to HTML by docutils (no MathJax, no network).
  Roles that only Sphinx resolves (citations, cross-references to other pages, glossary terms,
  downloads) are rewritten to plain text first (:func:`plain_roles`). Nothing is executed.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["export_figures", "plain_roles", "render_page"]

#: The MyST extensions the book enables (``book/_config.yml``), for the same rendering.
MYST_EXTENSIONS = "amsmath,colon_fence,dollarmath,deflist,substitution"

_SPHINX_ROLE = re.compile(r"\{(cite(?::[a-z]+)?|ref|numref|eq|term|doc|download|index)\}`([^`]*)`")

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


def _plain_role(match: re.Match) -> str:
    role, text = match.group(1), match.group(2)
    shown = re.sub(r"\s*<[^<>]*>\s*$", "", text).strip() or text
    if role.startswith("cite"):
        return "[" + ", ".join(key.strip() for key in text.split(",")) + "]"
    if role == "eq":
        return f"({text})"
    return f"*{shown}*"


def plain_roles(markdown: str) -> str:
    """Rewrite the Sphinx-only roles of a MyST text to plain text a single page can show.

    ``{cite}`a,b``` becomes ``[a, b]``, ``{eq}`label``` becomes ``(label)``, and
    ``{ref}`/``{term}`/``{doc}`/``{download}`/``{numref}`/``{index}`` become their shown text
    in italics (``{ref}`the rules <tie-rules>``` becomes ``*the rules*``).
    """
    return _SPHINX_ROLE.sub(_plain_role, markdown)


def _with_plain_roles(nb: dict) -> dict:
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            source = cell.get("source", "")
            cell["source"] = plain_roles("".join(source) if isinstance(source, list) else source)
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/markdown" in data:
                text = data["text/markdown"]
                data["text/markdown"] = plain_roles(
                    "".join(text) if isinstance(text, list) else text
                )
    return nb


def render_page(executed: Path, page: Path) -> Path:
    """Render the executed notebook to the single HTML page ``page`` (offline, no execution).

    Images go to ``<page stem>_files/`` beside the page. Raises :class:`RuntimeError` naming the
    notebook when the renderer fails.
    """
    executed, page = Path(executed).resolve(), Path(page).resolve()
    assets = page.with_name(f"{page.stem}_files")
    nb = _with_plain_roles(json.loads(executed.read_text(encoding="utf-8")))
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
    return page
