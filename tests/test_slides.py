"""The session decks: curated reveal.js decks built from the plans and the executed chapters,
rendered offline in Chromium without overflow at 1024x768 and 1280x720."""

from __future__ import annotations

import re
from dataclasses import replace

import nbformat
import pytest

from rankbook.report.deck_content import find_equation, find_figure, resolve_glue
from rankbook.report.deck_plan import PlanError, load_plan
from rankbook.report.slides import ChapterOutputs, render_deck, session_plans
from tests.chromium_probe import probe_viewport
from tests.conftest import ROOT

PLANS = session_plans(ROOT)


def _notebook():
    nb = nbformat.v4.new_notebook()
    glued = nbformat.v4.new_output(
        "display_data",
        data={"application/papermill.record/text/plain": "0.1234"},
        metadata={"scrapbook": {"name": "hr", "mime_prefix": "application/papermill.record/"}},
    )
    figure = nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="})
    caption = "HR@10 = {glue:text}`hr:.2f` ({term}`HR`)"
    code = nbformat.v4.new_code_cell(
        "glue('hr', 0.1234)\nplt.show()",
        metadata={"mystnb": {"figure": {"caption": caption, "name": "fig-x"}}},
    )
    code.outputs = [glued, figure]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 1. The title\n\n## The model\n\n$$\nu = v\n$$\n"),
        nbformat.v4.new_markdown_cell("$$\nc = d \\\\ e = f\n$$ (eq-cd)\n\ntext\n"),
        nbformat.v4.new_markdown_cell("```{math}\n:label: eq-ab\na = b\n```"),
        code,
    ]
    return nb


def test_figures_and_equations_are_found_by_name_and_label():
    nb = _notebook()
    png, caption = find_figure(nb, "fig-x", "01_x")
    assert png == "iVBORw0KGgo=" and caption == "HR@10 = 0.12 (HR)"
    # an unlabelled block before the labelled one is not swallowed into it
    aligned = "\\begin{aligned}\nc = d \\\\ e = f\n\\end{aligned}"
    assert find_equation(nb, "eq-cd", "01_x") == aligned
    assert find_equation(nb, "eq-ab", "01_x") == "a = b"
    with pytest.raises(KeyError, match="eq-zz"):
        find_equation(nb, "eq-zz", "01_x")
    with pytest.raises(KeyError, match="fig-zz"):
        find_figure(nb, "fig-zz", "01_x")


def test_resolve_glue_names_an_unknown_name():
    with pytest.raises(KeyError, match="nope"):
        resolve_glue("{glue:text}`nope:.2f`", {})


def _plan(tmp_path, slides: str):
    text = (
        "stem: session-9-x\nguide_label: session-x\ntitle: T\nquestion: Q?\ngoals: [g]\n"
        "segments:\n  - minutes: [0, 10]\n    chapter: 01_x\n    do: d\n    slides:\n"
        f"{slides}"
        "takeaways: [t]\ntakeaway_notes: n\n"
    )
    path = tmp_path / "session-9-x.yml"
    path.write_text(text, encoding="utf-8")
    return load_plan(path)


def test_a_deck_takes_numbers_from_the_results_and_never_shows_a_placeholder(tmp_path):
    plan = _plan(
        tmp_path,
        "      - {kind: figure, name: fig-x, title: F, notes: n1}\n"
        "      - {kind: equation, label: eq-ab, title: E, notes: n2,"
        " bullets: ['value {r:a.b:.3f}']}\n"
        "      - {kind: table, key: rows, title: T, notes: n3,"
        " columns: {rule: rule, v: value}, formats: {v: .2f}}\n"
        "      - {kind: question, text: 'Why?', notes: n4}\n",
    )
    results = {"a": {"b": 0.12345}, "rows": [{"rule": "expected", "v": 0.5}]}
    deck = render_deck(plan, {"01_x": ChapterOutputs(_notebook(), results)})
    assert "value 0.123" in deck and "<td>0.50</td>" in deck and "{r:" not in deck
    assert deck.count('<aside class="notes">') == deck.count("<section")  # notes everywhere
    assert "Reveal.initialize" in deck and "Chapter 1 · The title" in deck
    missing = _plan(tmp_path, "      - {kind: text, title: X, bullets: ['{r:nope}'], notes: n}\n")
    with pytest.raises(KeyError, match="nope"):
        render_deck(missing, {"01_x": ChapterOutputs(_notebook(), results)})


def test_a_p_value_column_prints_as_the_chapters_do(tmp_path):
    """A column formatted ``p:DRAWS:SIDES[:RAW]`` prints each p as the chapter's tables do: the
    Monte Carlo floor as its bound with the draws, an adjusted value computed from a floored p
    as "≤", others in three decimals; the bounds are found on the whole table, before the
    slide takes its rows."""
    plan = _plan(
        tmp_path,
        "      - {kind: table, key: rows, rows: [1, 3], title: T, notes: n,"
        " columns: {v: variant, p: p, h: Holm},"
        " formats: {p: 'p:params.n_boot:2', h: 'p:params.n_boot:2:p'}}\n",
    )
    floor = 2 / 1001
    rows = [
        {"v": "a", "p": floor, "h": 3 * floor},
        {"v": "b", "p": 0.003, "h": 3 * floor},  # its Holm value is the floored row's
        {"v": "c", "p": 0.2, "h": 0.2},
    ]
    results = {"params": {"n_boot": 1000}, "rows": rows}
    deck = render_deck(plan, {"01_x": ChapterOutputs(_notebook(), results)})
    assert "<td>b</td><td>0.003</td><td>≤ 0.006</td>" in deck
    assert "<td>c</td><td>0.200</td><td>0.200</td>" in deck and "<td>a</td>" not in deck


def test_a_mapping_table_shows_keys_by_their_labels_and_refuses_a_label_for_no_key(tmp_path):
    """``labels`` shows a mapping's keys by the words its chapter uses; a label for a key the
    mapping lacks (a renamed results key) is an error naming it, never silently unused."""
    slide = (
        "      - {kind: table, key: share, title: T, notes: n,"
        " columns: {key: reference, value: share}, formats: {value: .2f},"
        " labels: LABELS}\n"
    )
    results = {"share": {"last_click": 0.51, "ref_emb": 0.59}}
    good = _plan(tmp_path, slide.replace("LABELS", "{ref_emb: chosen by embedding}"))
    deck = render_deck(good, {"01_x": ChapterOutputs(_notebook(), results)})
    assert "<td>chosen by embedding</td><td>0.59</td>" in deck
    assert "<td>last_click</td><td>0.51</td>" in deck
    bad = _plan(tmp_path, slide.replace("LABELS", "{ref_txt: chosen by text}"))
    with pytest.raises(KeyError, match="ref_txt"):
        render_deck(bad, {"01_x": ChapterOutputs(_notebook(), results)})


def test_notes_and_takeaways_are_filled_like_the_slides(tmp_path):
    """Speaker notes (hidden on the slide, so a Chromium probe of the slide's text misses them),
    goals and takeaways get the same ``{r:…}`` and ``{glue:text}`` filling as the slide body."""
    plan = _plan(
        tmp_path,
        "      - {kind: text, title: X, bullets: ['glued {glue:text}`hr:.2f`'],"
        " notes: 'share {r:a.b:.0%} here'}\n",
    )
    plan = replace(
        plan,
        goals=("goal {r:01_x/a.b:.1f}",),
        takeaways=("taken {r:01_x/a.b:.2f}",),
        takeaway_notes="closing {r:01_x/a.b:.3f}",
    )
    results = {"a": {"b": 0.12345}}
    deck = render_deck(plan, {"01_x": ChapterOutputs(_notebook(), results)})
    assert '<aside class="notes">share 12% here</aside>' in deck
    assert "glued 0.12" in deck and "goal 0.1" in deck and "taken 0.12" in deck
    assert '<aside class="notes">closing 0.123</aside>' in deck
    assert "{r:" not in deck and "{glue" not in deck
    unknown = _plan(tmp_path, "      - {kind: question, text: 'Why?', notes: 'see {r:nope:.2f}'}\n")
    with pytest.raises(KeyError, match="nope"):
        render_deck(unknown, {"01_x": ChapterOutputs(_notebook(), results)})
    no_chapter = replace(plan, takeaways=("{glue:text}`hr`",))
    with pytest.raises(KeyError, match="glued value"):
        render_deck(no_chapter, {"01_x": ChapterOutputs(_notebook(), results)})


def test_a_plan_slide_without_notes_is_refused(tmp_path):
    with pytest.raises(PlanError, match="notes"):
        _plan(tmp_path, "      - {kind: question, text: 'Why?'}\n")
    with pytest.raises(PlanError, match="kind"):
        _plan(tmp_path, "      - {kind: poem, notes: n}\n")


@pytest.mark.parametrize("plan", PLANS, ids=lambda p: p.stem)
def test_each_session_is_a_curated_ninety_minute_lecture(plan):
    assert plan.minutes == 90, plan.minutes
    slides = [s for seg in plan.segments for s in seg.slides]
    assert 24 <= len(slides) + 2 <= 36, f"{len(slides) + 2} slides"  # title and takeaways too
    asked = [0] + [  # a question's minute: its place among its segment's slides
        seg.start + (seg.end - seg.start) * i / len(seg.slides)
        for seg in plan.segments
        for i, s in enumerate(seg.slides)
        if s.kind == "question"
    ]
    gaps = [b - a for a, b in zip(asked, asked[1:] + [plan.minutes], strict=True)]
    assert max(gaps) <= 15, f"{plan.stem}: no question for the room for {max(gaps)} minutes"
    assert len(plan.goals) >= 3 and plan.takeaways
    for seg in plan.segments:
        for spec in seg.slides:
            chapter = spec.chapter or seg.chapter
            if spec.kind not in ("figure", "equation"):
                continue
            source = (ROOT / "notebooks" / f"{chapter}.md").read_text(encoding="utf-8")
            if spec.kind == "figure":
                assert re.search(rf"name: {re.escape(spec.name)}\s*$", source, re.M), spec.name
            if spec.kind == "equation":
                assert f"({spec.label})" in source or f":label: {spec.label}" in source


def _guide_table(guide: str, anchor: str) -> list[list[str]]:
    """The rows of the first table after ``(anchor)=`` in the course guide, as cells."""
    after = guide.split(f"({anchor})=", 1)[1]
    lines = after.split("\n| min |", 1)[1].split("\n\n", 1)[0].splitlines()
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines[2:]]


def test_the_course_guide_tables_are_well_formed_and_agree_with_the_plans():
    guide = (ROOT / "book" / "course_guide.md").read_text(encoding="utf-8")
    for plan in PLANS:
        assert f"slides/{plan.stem}.html" in guide, f"the guide does not link {plan.stem}"
        rows = _guide_table(guide, plan.guide_label)
        for row in rows:  # a broken row (a TeX command split by a line break) fails here
            assert len(row) == 4, f"{plan.stem}: a row with {len(row)} cells: {row}"
            assert "".join(row).count("$") % 2 == 0, f"{plan.stem}: unbalanced $ in {row}"
        spans = [row[0].replace("–", "-") for row in rows]
        assert spans == [f"{s.start}-{s.end}" for s in plan.segments], spans


def test_a_broken_guide_row_is_caught():
    broken = (
        "(session-x)=\n\n| min | a | b | c |\n| --- | --- | --- | --- |\n"
        "| 0–5 | $\\lvert\nvert$ | x | y |\n"
    )
    rows = _guide_table(broken, "session-x")
    assert any(len(row) != 4 or "".join(row).count("$") % 2 for row in rows)


_DECK_PROBE = """
var out = {slides: [], scale: Reveal.getScale(), resources:
  performance.getEntriesByType('resource').map(function (e) { return e.name; })};
Reveal.getSlides().forEach(function (s, i) {
  Reveal.slide(i);
  Reveal.layout();
  var box = s.getBoundingClientRect(), bad = [], small = [];
  s.querySelectorAll('*').forEach(function (e) {
    if (e.closest('aside.notes')) { return; }
    if (e.parentElement && e.parentElement.closest('mjx-container')) { return; }
    var r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    if (r.width === 0 && r.height === 0) { return; }
    if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 ||
        r.bottom > box.bottom + 1) { bad.push('outside ' + e.tagName); }
    if (e.scrollWidth > e.clientWidth + 1 && cs.overflowX !== 'visible') { bad.push('clip-x'); }
    if (e.scrollHeight > e.clientHeight + 1 && cs.overflowY !== 'visible') { bad.push('clip-y'); }
    var text = Array.prototype.some.call(e.childNodes, function (n) {
      return n.nodeType === 3 && n.textContent.trim(); });
    if (text) { small.push(parseFloat(cs.fontSize) * Reveal.getScale()); }
  });
  out.slides.push({i: i, kind: s.dataset.kind, bad: bad.slice(0, 3),
    smallest: Math.min.apply(null, small.concat([1000])),
    notes: (s.querySelector('aside.notes') || {textContent: ''}).textContent.trim().length,
    errors: s.querySelectorAll('mjx-merror, [data-mjx-error]').length,
    images: Array.prototype.every.call(s.querySelectorAll('img'), function (m) {
      return m.complete && m.naturalWidth > 0; }),
    raw: /\\\\\\(|\\\\\\[|\\{r:|\\{glue/.test(s.innerText)});
});
report(out);
"""


@pytest.mark.slow
@pytest.mark.real_data
@pytest.mark.parametrize("size", [(1024, 768), (1280, 720)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("plan", PLANS, ids=lambda p: p.stem)
def test_deck_fits_every_slide_offline_in_chromium(site, plan, size):
    deck = site / "slides" / f"{plan.stem}.html"
    assert deck.is_file(), "the site build did not write the deck"
    text = deck.read_text(encoding="utf-8")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", text), "a remote asset"
    seen = probe_viewport(deck, _DECK_PROBE, width=size[0], height=size[1])
    remote = [r for r in seen["resources"] if not r.startswith(("file:", "data:"))]
    assert not remote, f"the deck loaded network resources: {remote[:5]}"
    assert len(seen["slides"]) == 2 + sum(len(s.slides) for s in plan.segments)
    for slide in seen["slides"]:
        where = f"{plan.stem} slide {slide['i'] + 1} ({slide['kind']}) at {size}"
        assert not slide["bad"], f"{where}: content overflows or is clipped: {slide['bad']}"
        assert not slide["errors"] and not slide["raw"], f"{where}: raw TeX or a math error"
        assert slide["images"], f"{where}: an image did not load"
        assert slide["notes"] > 0, f"{where}: no speaker notes"
        if size == (1280, 720):
            assert slide["smallest"] >= 23.95, f"{where}: text at {slide['smallest']:.1f} px"
