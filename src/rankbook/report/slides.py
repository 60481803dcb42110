"""Slide decks for the course guide's two sessions, built from the executed chapters.

Each slide is one thing a chapter page already shows, taken from the executed notebook and never
its code: a **figure** (an image output, with the MyST figure caption when the cell has one), an
**equation** (a display-math block of a Markdown cell: a ``{math}`` directive or ``$$ … $$``)
or a **short table** (a DataFrame's HTML output of at most :data:`MAX_TABLE_ROWS` rows and
:data:`MAX_TABLE_COLUMNS` columns). Slides keep the page order and carry the chapter number and
the section heading they come from.

A deck is one HTML file with the figures embedded (``data:`` URIs), a few lines of CSS and
JavaScript for paging (arrow keys, space, Page Up/Down, a click; ``#7`` opens slide 7) and
MathJax 3 loaded from the site's own copy (``../_static/mathjax``, see
:func:`rankbook.report.pipeline.install_mathjax`): it works offline and loads nothing from the
network. :func:`build_slides` writes both decks into ``<site>/slides/``.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MAX_TABLE_COLUMNS",
    "MAX_TABLE_ROWS",
    "SESSIONS",
    "Session",
    "Slide",
    "build_slides",
    "chapter_slides",
    "render_deck",
    "resolve_glue",
]

#: A table is "short" when it has at most this many body rows ...
MAX_TABLE_ROWS = 12
#: ... and at most this many columns (the index included).
MAX_TABLE_COLUMNS = 8


@dataclass(frozen=True)
class Session:
    """One 90-minute session of the course guide: its deck's file stem, title and chapters."""

    stem: str
    title: str
    chapters: tuple[str, ...]


#: The course guide's sessions (``book/course_guide.md``), chapters in the order they are taught.
SESSIONS: tuple[Session, ...] = (
    Session(
        "session-1-ties",
        "Session 1: tie handling in offline evaluation",
        (
            "00_quickstart",
            "01_stable_sort_bias",
            "02_random_tie_expectation",
            "03_tie_breaking_rules",
            "04_evaluator_audit",
            "07_hash_seeds_vs_expectation",
            "13_reporting_checklist",
        ),
    ),
    Session(
        "session-2-contextual",
        "Session 2: contextual features for search ranking",
        (
            "08_session_data",
            "09_heuristic_features",
            "10_intent_aware_features",
            "16_comparing_rankers",
            "11_ablation",
            "12_sequence_models",
        ),
    ),
)


@dataclass(frozen=True)
class Slide:
    """One slide: ``kind`` is ``"figure"``, ``"equation"`` or ``"table"``; ``body`` is HTML."""

    kind: str
    chapter: str
    section: str
    body: str
    caption: str = ""


_HEADING = re.compile(r"^(#{1,3})\s+(.+?)\s*$", re.M)
_MATH_DIRECTIVE = re.compile(r"^```\{math\}[^\n]*\n(.*?)^```", re.S | re.M)
_DOLLARS = re.compile(r"^\$\$\s*\n?(.*?)\n?\$\$", re.S | re.M)
_GLUE = re.compile(r"\{glue:text\}`([^`:]+)(?::([^`]*))?`")
_ROLE = re.compile(r"\{[a-z:]+\}`([^`]*)`")
_ROLE_TARGET = re.compile(r"^(.*?)\s*<[^>]*>$", re.S)
_MYST_LABEL = re.compile(r"^\(([^)]+)\)=\s*$", re.M)
# exercises and solutions (four-backtick fences): their equations are not lecture slides
_NESTED_FENCE = re.compile(
    r"^(`{4,}|:{4,})\{(?:exercise|solution)[^\n]*\n.*?^\1[ \t]*$", re.S | re.M
)
# any three-backtick fence: a comment line in a code block is not a section heading
_FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
_TABLE = re.compile(r"<table\b.*?</table>", re.S)


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _glue_values(cells: Iterable[Mapping]) -> dict[str, str]:
    """Name -> ``text/plain`` of every ``glue`` output (MyST-NB's scrapbook records)."""
    values: dict[str, str] = {}
    for cell in cells:
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            book = output.get("metadata", {}).get("scrapbook")
            if not book:
                continue
            plain = output.get("data", {}).get(book.get("mime_prefix", "") + "text/plain")
            if plain is not None:
                values[book["name"]] = _text(plain)
    return values


def resolve_glue(text: str, values: Mapping[str, str]) -> str:
    """Replace each ``{glue:text}`name:spec``` by the glued value formatted with ``spec``, and
    every other role by its text (``{term}`MRR``` -> ``MRR``; ``{ref}`x <label>``` -> ``x``).

    A glued number is formatted as MyST-NB does (``format(value, spec)``); an unknown name raises
    a ``KeyError`` naming it, so a deck never shows a raw role.
    """
    import ast

    def glue(match: re.Match) -> str:
        name, spec = match.group(1), match.group(2) or ""
        if name not in values:
            raise KeyError(f"glue name {name!r} is used in a caption but was never glued")
        raw = values[name]
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            value = raw
        if isinstance(value, str):
            return value
        return format(value, spec)

    def role(match: re.Match) -> str:
        inner = match.group(1)
        target = _ROLE_TARGET.match(inner)
        return target.group(1) if target else inner

    return _ROLE.sub(role, _GLUE.sub(glue, text))


def _caption_html(text: str) -> str:
    """A MyST caption as HTML text: literals unquoted, ``$…$`` as MathJax's ``\\(…\\)``."""
    text = html.escape(re.sub(r"`([^`]*)`", r"\1", text).replace("**", ""))
    return re.sub(r"\$([^$]+)\$", r"\\(\1\\)", text)


def _table_size(table: str) -> tuple[int, int]:
    body = table.split("<tbody", 1)[-1]
    rows = body.count("<tr")
    first = re.search(r"<tr\b.*?</tr>", body, re.S) or re.search(r"<tr\b.*?</tr>", table, re.S)
    columns = len(re.findall(r"<t[hd]\b", first.group(0))) if first else 0
    return rows, columns


def chapter_slides(notebook: Mapping, chapter: str) -> list[Slide]:
    """The slides of one executed chapter (a notebook as a JSON mapping), in page order."""
    cells = notebook.get("cells", [])
    values = _glue_values(cells)
    section = ""
    slides: list[Slide] = []
    for cell in cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell.get("cell_type") == "markdown":
            source = _NESTED_FENCE.sub("", _text(cell.get("source", "")))
            masked = _FENCE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source)
            blocks = [(m.start(), "h", m.group(2)) for m in _HEADING.finditer(masked)]
            blocks += [(m.start(), "m", m.group(1)) for m in _MATH_DIRECTIVE.finditer(source)]
            blocks += [(m.start(), "m", m.group(1)) for m in _DOLLARS.finditer(source)]
            for _, what, text in sorted(blocks):
                if what == "h":
                    section = resolve_glue(text, values)
                    continue
                tex = "\n".join(
                    line for line in text.splitlines() if not line.lstrip().startswith(":")
                ).strip()
                if "\\\\" in tex and "\\begin" not in tex:  # several lines: align them
                    tex = f"\\begin{{aligned}}\n{tex}\n\\end{{aligned}}"
                if tex:
                    slides.append(
                        Slide("equation", chapter, section, f"\\[\n{html.escape(tex)}\n\\]")
                    )
            continue
        if cell.get("cell_type") != "code" or tags & {"remove-cell", "remove-output"}:
            continue
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
        caption = _caption_html(resolve_glue(str(figure.get("caption", "")), values).strip())
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if output.get("metadata", {}).get("scrapbook"):
                continue
            if "image/png" in data:
                png = _text(data["image/png"]).replace("\n", "")
                base64.b64decode(png, validate=True)  # a corrupt payload fails the build here
                body = f'<img alt="figure" src="data:image/png;base64,{png}">'
                slides.append(Slide("figure", chapter, section, body, caption))
            elif "text/html" in data:
                for table in _TABLE.findall(_text(data["text/html"])):
                    rows, columns = _table_size(table)
                    if 0 < rows <= MAX_TABLE_ROWS and 0 < columns <= MAX_TABLE_COLUMNS:
                        slides.append(Slide("table", chapter, section, table))
    return slides


def _chapter_title(notebook: Mapping) -> str:
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "markdown":
            found = re.search(r"^#\s+(.+?)\s*$", _text(cell.get("source", "")), re.M)
            if found:
                return resolve_glue(found.group(1), _glue_values(notebook.get("cells", [])))
    return ""


_CSS = """
html, body { margin: 0; height: 100%; background: #fff; color: #1a1a1a;
  font-family: "Helvetica Neue", Arial, sans-serif; }
.slide { display: none; box-sizing: border-box; width: 100vw; height: 100vh;
  padding: 3vh 4vw 6vh; flex-direction: column; }
.slide.current { display: flex; }
.slide h2 { margin: 0 0 1.5vh; font-size: 3.4vh; font-weight: 600; }
.slide h1 { margin: auto 0 2vh; font-size: 6vh; }
.slide .sub { font-size: 3vh; color: #555; margin-bottom: auto; }
.slide .content { flex: 1; min-height: 0; display: flex; align-items: center;
  justify-content: center; overflow: auto; }
.slide img { max-width: 100%; max-height: 100%; object-fit: contain; }
.slide.equation .content { font-size: 4.2vh; }
.slide table { border-collapse: collapse; font-size: 2.4vh; }
.slide th, .slide td { border-bottom: 1px solid #ccc; padding: 0.5vh 1vw; text-align: right; }
.slide thead th { border-bottom: 2px solid #333; }
.slide .caption { font-size: 1.9vh; color: #444; margin-top: 1vh; max-height: 12vh;
  overflow: auto; }
.slide footer { position: absolute; bottom: 1.5vh; left: 4vw; right: 4vw; font-size: 1.6vh;
  color: #777; display: flex; justify-content: space-between; }
ol.chapters { font-size: 2.8vh; }
@media print { .slide { display: flex; page-break-after: always; } }
"""

_JS = """
(function () {
  var slides = Array.prototype.slice.call(document.querySelectorAll('section.slide'));
  var current = 0;
  function show(i) {
    current = Math.max(0, Math.min(slides.length - 1, i));
    slides.forEach(function (s, j) { s.classList.toggle('current', j === current); });
    var hash = '#' + (current + 1);
    if (location.hash !== hash) { history.replaceState(null, '', hash); }
  }
  document.addEventListener('keydown', function (e) {
    if (['ArrowRight', 'ArrowDown', 'PageDown', ' '].indexOf(e.key) >= 0) { show(current + 1); }
    else if (['ArrowLeft', 'ArrowUp', 'PageUp', 'Backspace'].indexOf(e.key) >= 0) {
      show(current - 1);
    }
    else if (e.key === 'Home') { show(0); }
    else if (e.key === 'End') { show(slides.length - 1); }
    else { return; }
    e.preventDefault();
  });
  document.addEventListener('click', function (e) {
    if (e.target.closest('a, .content')) { return; }
    show(e.clientX < window.innerWidth / 3 ? current - 1 : current + 1);
  });
  show((parseInt(location.hash.slice(1), 10) || 1) - 1);
})();
"""


def _section(inner: str, kind: str, footer: str = "") -> str:
    foot = f"<footer><span>{html.escape(footer)}</span><span></span></footer>" if footer else ""
    return f'<section class="slide {kind}" data-kind="{kind}">{inner}{foot}</section>'


def render_deck(
    session: Session, chapters: Sequence[tuple[str, str, list[Slide]]], mathjax: str
) -> str:
    """One self-contained HTML deck: a title slide, then per chapter a title slide and its slides.

    ``chapters`` holds ``(stem, title, slides)``; ``mathjax`` is the (relative) URL of
    ``tex-chtml.js``.
    """
    parts = []
    listing = "".join(
        f"<li>{html.escape(stem[:2])} · {html.escape(title)}</li>" for stem, title, _ in chapters
    )
    parts.append(
        _section(
            f"<h1>{html.escape(session.title)}</h1>"
            f'<div class="sub">rankaudit · slides built from the executed chapters'
            f'<ol class="chapters">{listing}</ol></div>',
            "title",
        )
    )
    for stem, title, slides in chapters:
        number = stem[:2]
        parts.append(
            _section(
                f"<h1>Chapter {html.escape(number)}</h1>"
                f'<div class="sub">{html.escape(title)}</div>',
                "chapter",
            )
        )
        for slide in slides:
            caption = f'<div class="caption">{slide.caption}</div>' if slide.caption else ""
            heading = html.escape(slide.section or title)
            parts.append(
                _section(
                    f'<h2>{heading}</h2><div class="content">{slide.body}</div>{caption}',
                    slide.kind,
                    f"Chapter {number} · {title}",
                )
            )
    config = (
        "window.MathJax = {tex: {inlineMath: [['\\\\(', '\\\\)']], "
        "tags: 'none'}, options: {processHtmlClass: 'slide'}};"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(session.title)}</title>\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<style>{_CSS}</style>\n<script>{config}</script>\n"
        f'<script defer src="{html.escape(mathjax)}"></script>\n</head>\n<body>\n'
        + "\n".join(parts)
        + f"\n<script>{_JS}</script>\n</body>\n</html>\n"
    )


def build_slides(
    html_dir: Path, executed: Path, sessions: Sequence[Session] = SESSIONS
) -> list[Path]:
    """Write ``<html_dir>/slides/<session>.html`` for each session from ``executed/*.ipynb``.

    A chapter of a session that has not been executed raises a ``FileNotFoundError`` naming it
    (the decks are built from the executed chapters only, never from sources). MathJax is taken
    from ``<html_dir>/_static/mathjax`` (the site build copies it there first).
    """
    html_dir, executed = Path(html_dir), Path(executed)
    mathjax = html_dir / "_static" / "mathjax" / "tex-chtml.js"
    if not mathjax.is_file():
        raise FileNotFoundError(f"{mathjax} is missing: install MathJax into the site first")
    folder = html_dir / "slides"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for session in sessions:
        chapters = []
        for stem in session.chapters:
            path = executed / f"{stem}.ipynb"
            if not path.is_file():
                raise FileNotFoundError(
                    f"slides for {session.stem}: chapter {stem} has not been executed ({path})"
                )
            notebook = json.loads(path.read_text(encoding="utf-8"))
            chapters.append((stem, _chapter_title(notebook), chapter_slides(notebook, stem)))
        deck = folder / f"{session.stem}.html"
        deck.write_text(
            render_deck(session, chapters, "../_static/mathjax/tex-chtml.js"), encoding="utf-8"
        )
        written.append(deck)
    return written
