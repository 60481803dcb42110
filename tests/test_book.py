"""Check the site built from the smoke-executed chapters (``site`` in conftest) in headless
Chromium."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.chromium_probe import chromium

pytestmark = [pytest.mark.slow, pytest.mark.real_data]


def _rendered_dom(page) -> str:
    cmd = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--allow-file-access-from-files",
        "--virtual-time-budget=20000",
        "--dump-dom",
        page.as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
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


def test_no_raw_tex_left_on_any_page(site):
    for page in sorted(site.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        body = re.sub(r"<script.*?</script>", "", html, flags=re.S)
        if 'class="math' not in body:
            continue
        dom = _rendered_dom(page)
        text = re.sub(r"<mjx-container.*?</mjx-container>", "", dom, flags=re.S)
        text = re.sub(r"<(script|style)\b.*?</\1>", "", text, flags=re.S)
        leftovers = re.findall(r"\\\(|\\\[|\$\$", text)
        assert not leftovers, f"{page.name}: untypeset TeX {leftovers[:3]}"
