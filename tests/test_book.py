"""Check the site built from the smoke-executed chapters (``site`` in conftest) in headless
Chromium."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from tests.chromium_probe import in_parallel, is_probe_file, run_chromium
from tests.page_probes import site_pages
from tests.raw_tex import raw_tex_leftovers

pytestmark = [pytest.mark.slow, pytest.mark.real_data]


def _rendered_dom(page) -> str:
    proc = run_chromium(["--dump-dom", page.as_uri()], timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_index_renders_with_parts(site):
    dom = _rendered_dom(site / "index.html")
    for part in (
        "Part I: Ties",
        "Part II: Dataset audits",
        "Part III: Contextual ranking",
        "Part IV: Reporting",
    ):
        assert part in dom
    assert "How to rerun and extend this book" in dom


def test_chapter_renders_figure_and_typeset_math(site):
    page = site / "chapters" / "00_quickstart.html"
    dom = _rendered_dom(page)
    assert re.search(r'<img[^>]+src="[^"]*_images/[^"]+\.png"', dom), "no figure on the page"
    assert "<figcaption" in dom, "figure has no caption"
    assert "<mjx-container" in dom, "MathJax did not typeset the math"
    assert "How this page was built" in dom
    assert "MovieLens 100K" in dom
    link = re.search(r'href="([^"]*_downloads/[^"]*00_quickstart\.json)"', dom)
    assert link, "the page does not link its results JSON"
    assert (page.parent / link.group(1)).resolve().is_file(), "the linked results JSON is missing"


def _every_built_page(site):
    """The instructor site (its decks included) and the student edition beside it."""
    student = site.parent / "student" / "_build" / "html"
    roots = [site, *([student] if student.is_dir() else [])]
    return [
        p
        for root in roots
        for p in sorted(root.rglob("*.html"))
        if "_static" not in p.parts and not is_probe_file(p)
    ]


#: an element MathJax typesets, with the TeX the build gave it
_MATH = re.compile(r'<(span|div) class="math[^"]*"[^>]*>(.*?)</\1>', re.S)


def _math_sources(page_html: str) -> set[str]:
    return {tex for _, tex in _MATH.findall(page_html)}


def test_no_raw_tex_left_on_any_page(site, fit_probes):
    """Every page, the course guide, sheets and decks included: TeX parsed as math must be
    typeset (Chromium's DOM after MathJax), and no TeX may be left as plain text. The reading
    pages' DOMs come from the projector-fit run of each page (``fit_probes``: one Chromium run
    per page serves both tests); the decks are rendered here. A student-edition page is the
    instructor's page less its solutions: when every math element it has is one of its
    instructor page's (typeset there without a leftover) and no TeX is left outside its math
    elements, MathJax, given the same TeX, typesets it the same; every other student page, and
    the first with math (so that the student site's own MathJax is seen to load), is rendered
    in Chromium as well. A page byte-identical to another (a deck in both editions) is checked
    once."""
    pages = _every_built_page(site)
    assert any(p.name == "course_guide.html" for p in pages)
    reading = list(site_pages(site))
    typeset = dict(zip(reading, (dom for _, dom in fit_probes(reading)), strict=True))
    student_root = site.parent / "student" / "_build" / "html"
    first_student = next(
        (p for p in pages if student_root in p.parents and 'class="math' in p.read_text("utf-8")),
        None,
    )

    def same_as_instructor(page, html) -> bool:
        if student_root not in page.parents:
            return False
        twin = site / page.relative_to(student_root)
        if twin not in typeset or raw_tex_leftovers(typeset[twin]):
            return False
        twin_math = _math_sources(twin.read_text(encoding="utf-8"))
        outside = raw_tex_leftovers(_MATH.sub(" ", html))
        return not outside and _math_sources(html) <= twin_math

    def leftovers_of(page):
        html = page.read_text(encoding="utf-8")
        body = re.sub(r"<script.*?</script>", "", html, flags=re.S)
        leftovers = raw_tex_leftovers(html)
        if leftovers or 'class="math' in body:  # math for MathJax (pages, decks): typeset it
            if page in typeset:
                return raw_tex_leftovers(typeset[page])
            if page != first_student and same_as_instructor(page, html):
                return []
            leftovers = raw_tex_leftovers(_rendered_dom(page))
        return leftovers

    # a page whose bytes equal another's (a deck in both editions) is checked once; the first
    # student page with math always is, rendered
    first_of: dict[str, Path] = {}
    for page in pages:
        first_of.setdefault(hashlib.sha256(page.read_bytes()).hexdigest(), page)
    unique = list(first_of.values())
    if first_student is not None and first_student not in unique:
        unique.append(first_student)
    for page, leftovers in zip(unique, in_parallel(leftovers_of, unique), strict=True):
        assert not leftovers, f"{page}: untypeset TeX {leftovers[:3]}"
