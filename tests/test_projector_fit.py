"""Every page of the built site fits a 1280 x 800 projector: measured in headless Chromium.

On each page, no table, display equation or figure may reach past the right edge of the text
column (``article.bd-article``). A table may instead sit inside an element the layout makes
horizontally scrollable on purpose (``overflow-x: auto | scroll``) whose own box fits the
column. A display equation gets no such exemption: a scrolled equation is a clipped equation on
a projector. Elements hidden on load (closed dropdowns) have no box and are not measured.
"""

from __future__ import annotations

import pytest

from tests.chromium_probe import probe

pytestmark = [pytest.mark.slow, pytest.mark.real_data]

_FIT_PROBE = """
var col = document.querySelector('article.bd-article') || document.querySelector('main');
var box = col.getBoundingClientRect();
var right = box.right + 1, left = box.left - 1;
function scroller(el) {
  for (var p = el.parentElement; p && p !== col; p = p.parentElement) {
    var o = getComputedStyle(p).overflowX;
    if (o === 'auto' || o === 'scroll') { return p; }
  }
  return null;
}
function name(el) {
  var text = (el.textContent || el.getAttribute('src') || '').replace(/\\s+/g, ' ').trim();
  return el.tagName.toLowerCase() + ': ' + text.slice(0, 70);
}
var bad = [], counted = {table: 0, equation: 0, figure: 0};
col.querySelectorAll('table').forEach(function (t) {
  var r = t.getBoundingClientRect();
  if (!r.width) { return; }
  counted.table += 1;
  if (r.right <= right) { return; }
  var s = scroller(t);
  if (s && s.getBoundingClientRect().right <= right) { return; }
  bad.push(['table', Math.round(r.right - box.right), name(t)]);
});
col.querySelectorAll('mjx-container[display="true"]').forEach(function (m) {
  var inner = m.querySelector('mjx-math') || m;
  var r = inner.getBoundingClientRect();
  if (!r.width) { return; }
  counted.equation += 1;
  if (r.right > right || r.left < left) {
    bad.push(['equation', Math.round(r.right - box.right), name(m)]);
  }
});
col.querySelectorAll('img, figure, svg').forEach(function (f) {
  if (f.closest('mjx-container')) { return; }
  var r = f.getBoundingClientRect();
  if (!r.width) { return; }
  counted.figure += 1;
  if (r.right > right || r.left < left) {
    bad.push(['figure', Math.round(r.right - box.right), name(f)]);
  }
});
report({width: Math.round(box.width), overflow: bad, counted: counted});
"""


def _pages(site):
    skip = {"genindex.html", "search.html"}
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site)
        if rel.parts[0] in {"_static", "_sources", "_images", "_downloads", "slides"}:
            continue
        if page.name in skip or "__probe__" in page.name:
            continue
        yield page


def test_every_page_fits_a_1280_projector(site):
    problems, measured = {}, {"table": 0, "equation": 0, "figure": 0}
    pages = list(_pages(site))
    assert len(pages) > 20
    for page in pages:
        seen = probe(page, _FIT_PROBE, width=1280, height=800)
        for kind, n in seen["counted"].items():
            measured[kind] += n
        if seen["overflow"]:
            problems[str(page.relative_to(site))] = seen["overflow"]
    assert measured["table"] and measured["equation"] and measured["figure"], measured
    assert not problems, problems


def test_the_fit_probe_sees_an_overflowing_equation(site, tmp_path):
    page = site / "notation.html"
    wide = page.with_name("__wide_probe_fixture.html")
    eq = (
        '<div class="math notranslate nohighlight">\\\\['
        + " + ".join(["x_{i}"] * 200)
        + "\\\\]</div>"
    )
    text = page.read_text(encoding="utf-8").replace("</article>", eq + "</article>", 1)
    wide.write_text(text, encoding="utf-8")
    try:
        seen = probe(wide, _FIT_PROBE, width=1280, height=800)
    finally:
        wide.unlink()
    assert [kind for kind, *_ in seen["overflow"]] == ["equation"], seen
