"""The two session decks: built from executed chapters, no code, rendered offline in Chromium."""

from __future__ import annotations

import re

import nbformat
import pytest

from rankbook.report.slides import SESSIONS, chapter_slides, resolve_glue
from tests.chromium_probe import probe


def _notebook():
    nb = nbformat.v4.new_notebook()
    glued = nbformat.v4.new_output(
        "display_data",
        data={"application/papermill.record/text/plain": "0.1234"},
        metadata={"scrapbook": {"name": "hr", "mime_prefix": "application/papermill.record/"}},
    )
    figure = nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="})
    small = (
        "<table><thead><tr><th></th><th>a</th></tr></thead>"
        "<tbody><tr><th>0</th><td>1</td></tr></tbody></table>"
    )
    wide_row = "".join(f"<td>{i}</td>" for i in range(12))
    wide = f"<table><tbody><tr>{wide_row}</tr></tbody></table>"
    code = nbformat.v4.new_code_cell(
        "glue('hr', 0.1234)\nplt.show()",
        metadata={"mystnb": {"figure": {"caption": "HR@10 = {glue:text}`hr:.2f` ({term}`HR`)"}}},
    )
    code.outputs = [glued, figure]
    table_cell = nbformat.v4.new_code_cell("df")
    table_cell.outputs = [
        nbformat.v4.new_output(
            "execute_result", data={"text/html": small + wide}, execution_count=1
        )
    ]
    hidden = nbformat.v4.new_code_cell("df", metadata={"tags": ["remove-cell"]})
    hidden.outputs = [nbformat.v4.new_output("display_data", data={"text/html": small})]
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            "# The title\n\n## The model\n\n```{math}\n:label: eq-x\na = b\n```"
        ),
        nbformat.v4.new_markdown_cell("```bash\n# not a heading\n```\n\n$$\nc = d \\\\ e = f\n$$"),
        code,
        table_cell,
        hidden,
        nbformat.v4.new_markdown_cell("````{solution} ex-1\n$$\nz = 1\n$$\n````"),
    ]
    return nb


def test_chapter_slides_are_figures_equations_and_short_tables_only():
    slides = chapter_slides(_notebook(), "01_x")
    assert [s.kind for s in slides] == ["equation", "equation", "figure", "table"]
    assert slides[0].section == "The model" and slides[1].section == "The model"
    assert "a = b" in slides[0].body and ":label:" not in slides[0].body
    assert "\\begin{aligned}" in slides[1].body  # a multi-line equation is aligned
    assert slides[2].caption == "HR@10 = 0.12 (HR)"
    assert "glue(" not in "".join(s.body + s.caption for s in slides)  # never code
    assert all("z = 1" not in s.body for s in slides)  # solutions are not slides


def test_resolve_glue_names_an_unknown_name():
    with pytest.raises(KeyError, match="nope"):
        resolve_glue("{glue:text}`nope:.2f`", {})


def test_sessions_follow_the_course_guide():
    from tests.conftest import ROOT

    guide = (ROOT / "book" / "course_guide.md").read_text(encoding="utf-8")
    for session in SESSIONS:
        assert f"slides/{session.stem}.html" in guide, f"the guide does not link {session.stem}"
        for stem in session.chapters:
            assert (ROOT / "notebooks" / f"{stem}.md").is_file(), stem


_DECK_PROBE = """
var slides = document.querySelectorAll('section.slide');
var kinds = {};
slides.forEach(function (s) { kinds[s.dataset.kind] = (kinds[s.dataset.kind] || 0) + 1; });
var shown = Array.prototype.filter.call(slides, function (s) {
  return s.getBoundingClientRect().height > 0; });
var imgs = Array.prototype.filter.call(document.images, function (i) {
  return i.complete && i.naturalWidth > 0; });
report({
  slides: slides.length, kinds: kinds, shown: shown.length,
  typeset: document.querySelectorAll('mjx-container').length,
  images_loaded: imgs.length, images: document.images.length,
  code: document.querySelectorAll('pre, code, .highlight').length,
  resources: performance.getEntriesByType('resource').map(function (e) { return e.name; }),
  urls: Array.prototype.map.call(
    document.querySelectorAll('script[src], link[href], img[src], iframe[src], source[src]'),
    function (e) { return e.src || e.href; })
});
"""


@pytest.mark.slow
@pytest.mark.real_data
@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: s.stem)
def test_deck_renders_offline_in_chromium(site, session):
    deck = site / "slides" / f"{session.stem}.html"
    assert deck.is_file(), "the site build did not write the deck"
    text = deck.read_text(encoding="utf-8")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", text), "a remote asset"
    seen = probe(deck, _DECK_PROBE)
    assert seen["shown"] == 1, "exactly one slide is on screen at a time"
    assert seen["slides"] > 2 * len(session.chapters), seen["kinds"]
    assert seen["kinds"].get("figure", 0) >= len(session.chapters) // 2, seen["kinds"]
    assert seen["kinds"].get("table", 0) >= 1 and seen["kinds"].get("equation", 0) >= 1
    assert seen["images"] == seen["kinds"]["figure"] == seen["images_loaded"]
    assert seen["typeset"] >= seen["kinds"]["equation"], "MathJax did not typeset the equations"
    assert seen["code"] == 0, "a slide shows code"
    loaded = seen["resources"] + seen["urls"]
    remote = [r for r in loaded if not r.startswith(("file:", "data:"))]
    assert not remote, f"the deck loaded network resources: {remote[:5]}"
    assert any(u.startswith("file:") and u.endswith("tex-chtml.js") for u in seen["urls"])
