"""The course's slide decks: reveal.js presentations built from the session plans and the
executed chapters.

Each session has a plan, ``book/decks/<stem>.yml`` (:mod:`rankbook.report.deck_plan`): its
title and learning goals, then minute by minute the segments of the lecture, each with its
curated slides (a point in bullets, a chapter's figure by its MyST name, a chapter's equation by
its label, a table of the chapter's results JSON, a question for the room), and the takeaways.
Numbers on a slide come from the results JSON (``{r:key:.4f}``), words the chapter glued from its
page (``{glue:text}`name```), figures and equations from the executed notebook
(:mod:`rankbook.report.deck_content`); every slide carries speaker notes (reveal.js's
``<aside class="notes">``; press ``s`` for the speaker view). Notes, goals and takeaways are
filled the same way as the slides, so no placeholder reaches the speaker view.

A deck is ``<site>/slides/<stem>.html``. reveal.js 5 is vendored with this package
(``rankbook/report/revealjs``, MIT) and copied to ``<site>/slides/revealjs``; MathJax is the
site's own copy (``../_static/mathjax``, :func:`rankbook.report.pipeline.install_mathjax`), so a
deck works offline. The slide is 1280 x 720 CSS pixels with no margin: reveal.js scales it to
the window (1.0 at 1280 x 720, 0.8 at 1024 x 768).
"""

from __future__ import annotations

import html
import json
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rankbook.paths import find_project_root
from rankbook.report.deck_content import (
    fill_numbers,
    find_equation,
    find_figure,
    glue_values,
    resolve_glue,
    results_table,
    results_value,
)
from rankbook.report.deck_plan import SessionPlan, SlideSpec, load_plan
from rankbook.report.tables import p_column

__all__ = [
    "SLIDE_HEIGHT",
    "SLIDE_WIDTH",
    "ChapterOutputs",
    "build_slides",
    "chapter_title",
    "plan_dir",
    "render_deck",
    "resolve_glue",
    "session_plans",
]

#: The slide's size in CSS pixels; reveal.js scales it to the window.
SLIDE_WIDTH = 1280
SLIDE_HEIGHT = 720

_ASSETS = Path(__file__).with_name("revealjs")
_THEME = Path(__file__).with_name("slides_theme.css")


def plan_dir(root: Path | None = None) -> Path:
    """The folder of the session plans, ``book/decks``."""
    return (root or find_project_root()) / "book" / "decks"


def session_plans(root: Path | None = None) -> tuple[SessionPlan, ...]:
    """Every session plan (``book/decks/session-*.yml``), in session order."""
    paths = sorted(plan_dir(root).glob("session-*.yml"))
    if not paths:
        raise FileNotFoundError(f"no session plans in {plan_dir(root)}")
    return tuple(load_plan(p) for p in paths)


def __getattr__(name: str) -> Any:
    if name == "SESSIONS":  # the plans, read when asked for (the Makefile and tests use it)
        return session_plans()
    raise AttributeError(name)


@dataclass(frozen=True)
class ChapterOutputs:
    """What a deck takes from one executed chapter: its notebook and its results JSON."""

    notebook: Mapping[str, Any]
    results: Mapping[str, Any]


def chapter_title(notebook: Mapping) -> str:
    """The chapter's ``#`` title (glue resolved), without its leading number."""
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "markdown":
            source = "".join(cell.get("source", ""))
            found = re.search(r"^#\s+(.+?)\s*$", source, re.M)
            if found:
                title = resolve_glue(found.group(1), glue_values(notebook.get("cells", [])))
                return re.sub(r"^\d+\.\s*", "", title)
    return ""


def _inline(text: str) -> str:
    """Plan text as HTML: ``code`` unquoted to <code>-free text, **bold**, ``$…$`` math."""
    text = html.escape(text, quote=False)
    text = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)
    text = re.sub(r"`([^`]*)`", r'<span class="name">\1</span>', text)
    return re.sub(r"\$([^$]+)\$", r"\\(\1\\)", text)


def _notes(text: str) -> str:
    return f'<aside class="notes">{_inline(text)}</aside>'


class _Filler:
    """Fills plan text for one deck: ``{r:…}`` placeholders from the results (``chapter``'s, or
    the chapter the placeholder names) and ``{glue:text}`` roles from ``chapter``'s notebook.
    The results map and each chapter's glued values are read once, not once per line."""

    def __init__(self, outputs: Mapping[str, ChapterOutputs]) -> None:
        self.results = {stem: out.results for stem, out in outputs.items()}
        self.glued = {
            stem: glue_values(out.notebook.get("cells", [])) for stem, out in outputs.items()
        }

    def __call__(self, text: str, chapter: str) -> str:
        text = fill_numbers(text, self.results, chapter)
        if chapter in self.glued:
            return resolve_glue(text, self.glued[chapter])
        if "{glue:" in text:
            raise KeyError(f"{text!r}: a glued value needs the chapter the slide belongs to")
        return text


def _source(chapter: str, titles: Mapping[str, str], minutes: str) -> str:
    where = f"Chapter {int(chapter[:2])} · {titles[chapter]}" if chapter else "Wrap-up"
    return f'<p class="source">{html.escape(where)}<span>{html.escape(minutes)}</span></p>'


def _slide_body(
    spec: SlideSpec,
    chapter: str,
    outputs: Mapping[str, ChapterOutputs],
    where: str,
    filler: _Filler,
) -> tuple[str, str]:
    """The slide's HTML and any text for its notes from the chapter (a figure's caption)."""

    def fill(text: str) -> str:
        return _inline(filler(text, chapter))

    bullets = "".join(f"<li>{fill(b)}</li>" for b in spec.bullets)
    bullets = f"<ul>{bullets}</ul>" if bullets else ""
    title = f"<h2>{fill(spec.title)}</h2>" if spec.title else ""
    if spec.kind == "text":
        return title + bullets, ""
    if spec.kind == "question":
        kicker = '<p class="kicker">Question for the room</p>'
        return f'{kicker}<p class="question">{fill(spec.text)}</p>', ""
    if chapter not in outputs:
        raise KeyError(f"{where}: chapter {chapter} was not given to the deck")
    notebook = outputs[chapter].notebook
    if spec.kind == "figure":
        png, caption = find_figure(notebook, spec.name, chapter)
        image = (
            f'<img class="r-stretch" alt="{html.escape(spec.name)}" '
            f'src="data:image/png;base64,{png}">'
        )
        return f"{title}{image}{bullets}", "Caption on the page: " + caption.replace("**", "")
    if spec.kind == "equation":
        tex = find_equation(notebook, spec.label, chapter)
        return f'{title}<div class="equation">\\[\n{html.escape(tex)}\n\\]</div>{bullets}', ""
    value = results_value(outputs[chapter].results, spec.key, chapter)
    formats = dict(spec.formats)
    if isinstance(value, list):
        value, formats = _p_values_as_text(value, formats, outputs[chapter].results, chapter)
    if spec.rows is not None and isinstance(value, list):
        value = value[spec.rows[0] : spec.rows[1]]
    table = results_table(value, spec.columns, formats, where, dict(spec.labels))
    return f"{title}{table}{bullets}", ""


def _p_values_as_text(
    records: list, formats: dict[str, str], results: Mapping, chapter: str
) -> tuple[list, dict[str, str]]:
    """Columns whose format is ``p:DRAWS[:SIDES[:RAW]]`` printed as the chapter prints
    p-values (:func:`rankbook.report.tables.p_column`): ``DRAWS`` the results path of the number
    of resamples (``params.n_boot``), ``SIDES`` 1 or 2, ``RAW`` the field of the unadjusted p
    for an adjusted column (a value computed from a p at the floor is a bound, "≤"). Done on
    the whole table before the slide takes its rows, so the bounds see the whole family."""
    out = [dict(r) for r in records]
    for column, spec in list(formats.items()):
        if not spec.startswith("p:"):
            continue
        parts = spec.split(":")[1:]
        draws = parts[0]
        sides = parts[1] if len(parts) > 1 else "1"
        raw_field = parts[2] if len(parts) > 2 else ""
        n_perm = int(results_value(results, draws, chapter))
        raw = [r[raw_field] for r in records] if raw_field else None
        cells = p_column(
            [r[column] for r in records], n_perm=n_perm, unit="resamples", sides=int(sides), raw=raw
        )
        for row, cell in zip(out, cells, strict=True):
            row[column] = cell
        del formats[column]
    return out, formats


def render_deck(
    plan: SessionPlan,
    outputs: Mapping[str, ChapterOutputs],
    *,
    assets: str = "revealjs",
    mathjax: str = "../_static/mathjax/tex-chtml.js",
) -> str:
    """The reveal.js HTML of one session: a title slide with the question and the learning
    goals, every segment's curated slides, then the takeaways.

    ``outputs`` maps each of the plan's chapters to its executed notebook and results;
    ``assets`` and ``mathjax`` are the URLs of the reveal.js folder and of ``tex-chtml.js``.
    """
    titles = {stem: chapter_title(out.notebook) for stem, out in outputs.items()}
    missing = [stem for stem in plan.chapters if stem not in outputs]
    if missing:
        raise KeyError(f"{plan.stem}: chapters {missing} were not given to the deck")
    fill = _Filler(outputs)
    goals = "".join(f"<li>{_inline(fill(g, ''))}</li>" for g in plan.goals)
    sections = [
        f'<section data-kind="title"><h1>{_inline(plan.title)}</h1>'
        f'<p class="question-line">{_inline(plan.question)}</p>'
        f'<h3>Learning goals</h3><ul class="goals">{goals}</ul>'
        f"{_notes('Read the question aloud; the goals are what the sheet checks.')}</section>"
    ]
    for number, segment in enumerate(plan.segments, 1):
        minutes = f"min {segment.start}–{segment.end}"
        for i, spec in enumerate(segment.slides, 1):
            chapter = spec.chapter or segment.chapter
            where = f"{plan.stem} segment {number} slide {i}"
            body, more = _slide_body(spec, chapter, outputs, where, fill)
            notes = f"{fill(spec.notes, chapter)} {more}".strip()
            sections.append(
                f'<section data-kind="{spec.kind}" data-minute="{segment.start}">'
                f"{body}{_source(chapter, titles, minutes)}{_notes(notes)}</section>"
            )
    takeaways = "".join(f"<li>{_inline(fill(t, ''))}</li>" for t in plan.takeaways)
    takeaway_notes = fill(plan.takeaway_notes, "")
    sections.append(
        f'<section data-kind="takeaway" data-minute="{plan.minutes}"><h2>Takeaways</h2>'
        f"<ul>{takeaways}</ul>{_notes(takeaway_notes)}</section>"
    )
    theme = _THEME.read_text(encoding="utf-8")
    config = json.dumps(
        {
            "width": SLIDE_WIDTH,
            "height": SLIDE_HEIGHT,
            "margin": 0,
            "center": False,
            "hash": True,
            "slideNumber": "c/t",
            "controls": False,
            "transition": "none",
            "viewDistance": 100,
        }
    )
    mathjax_config = (
        "window.MathJax = {tex: {inlineMath: [['\\\\(', '\\\\)']], tags: 'none'}, "
        "startup: {pageReady: function () { return MathJax.startup.defaultPageReady()"
        ".then(function () { if (window.Reveal && Reveal.isReady()) { Reveal.layout(); } }); }}};"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(plan.title)}</title>\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<link rel="stylesheet" href="{assets}/reset.css">\n'
        f'<link rel="stylesheet" href="{assets}/reveal.css">\n'
        f"<style>{theme}</style>\n<script>{mathjax_config}</script>\n"
        f'<script defer src="{html.escape(mathjax)}"></script>\n</head>\n<body>\n'
        '<div class="reveal"><div class="slides">\n' + "\n".join(sections) + "\n</div></div>\n"
        f'<script src="{assets}/reveal.js"></script>\n'
        f'<script src="{assets}/plugin/notes.js"></script>\n'
        f"<script>Reveal.initialize(Object.assign({config}, "
        "{plugins: [RevealNotes]}));</script>\n"
        "</body>\n</html>\n"
    )


def build_slides(
    html_dir: Path,
    executed: Path,
    results: Path | None = None,
    plans: Sequence[SessionPlan] | None = None,
) -> list[Path]:
    """Write ``<html_dir>/slides/<stem>.html`` for each session plan, from ``executed/*.ipynb``
    and the results JSON in ``results`` (default: ``executed``'s sibling ``results``).

    A chapter a plan uses that has not been executed raises a ``FileNotFoundError`` naming it
    (decks are built from executed chapters only). MathJax must already be in
    ``<html_dir>/_static/mathjax`` (the site build copies it there first).
    """
    html_dir, executed = Path(html_dir), Path(executed)
    results = Path(results) if results is not None else executed.parent / "results"
    plans = session_plans() if plans is None else plans
    mathjax = html_dir / "_static" / "mathjax" / "tex-chtml.js"
    if not mathjax.is_file():
        raise FileNotFoundError(f"{mathjax} is missing: install MathJax into the site first")
    folder = html_dir / "slides"
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / "revealjs").exists():
        shutil.rmtree(folder / "revealjs")
    shutil.copytree(_ASSETS, folder / "revealjs")
    written = []
    for plan in plans:
        outputs = {}
        for stem in plan.chapters:
            notebook, record = executed / f"{stem}.ipynb", results / f"{stem}.json"
            for path in (notebook, record):
                if not path.is_file():
                    raise FileNotFoundError(
                        f"slides for {plan.stem}: chapter {stem} has not been executed ({path})"
                    )
            outputs[stem] = ChapterOutputs(
                json.loads(notebook.read_text(encoding="utf-8")),
                json.loads(record.read_text(encoding="utf-8")),
            )
        deck = folder / f"{plan.stem}.html"
        deck.write_text(render_deck(plan, outputs), encoding="utf-8")
        written.append(deck)
    return written
