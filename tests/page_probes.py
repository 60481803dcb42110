"""What the site tests measure in every page: the projector-fit script and the pages it runs on.

:data:`FIT_PROBE` runs inside a page in headless Chromium (``tests/chromium_probe.py``) and
reports, for the text column, every table, display equation and figure that reaches past its
right edge (``overflow``), the tables scrolled on purpose (``scrolled``), how many of each it
measured (``counted``) and each table's name. ``tests/test_projector_fit.py`` reads the
measurements; ``tests/test_book.py`` reads the typeset DOM Chromium printed after the same run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tests.chromium_probe import is_probe_file

__all__ = ["FIT_PROBE", "site_pages"]

FIT_PROBE = """
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
var bad = [], scrolled = [], counted = {table: 0, equation: 0, figure: 0};
col.querySelectorAll('table').forEach(function (t) {
  var r = t.getBoundingClientRect();
  if (!r.width) { return; }
  counted.table += 1;
  var wide = r.right > right || t.scrollWidth > t.clientWidth + 1;
  for (var p = t; !wide && p && p !== col; p = p.parentElement) {
    wide = p.scrollWidth > p.clientWidth + 1 && getComputedStyle(p).overflowX !== 'visible';
  }
  if (!wide) { return; }
  var s = getComputedStyle(t).overflowX;
  var wrap = (s === 'auto' || s === 'scroll') ? t : scroller(t);
  if (wrap && wrap.getBoundingClientRect().right <= right) {
    scrolled.push(['table', t.scrollWidth - t.clientWidth, name(t)]);
    return;
  }
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
var tables = Array.prototype.map.call(col.querySelectorAll('table'), name);
report({width: Math.round(box.width), overflow: bad, scrolled: scrolled, counted: counted,
        tables: tables});
"""


def site_pages(site: Path) -> Iterator[Path]:
    """The site's reading pages (chapters, parts, sheets, guides), in name order: no decks,
    assets, index or search page, nor a probe's copy."""
    skip = {"genindex.html", "search.html"}
    for page in sorted(site.rglob("*.html")):
        rel = page.relative_to(site)
        if rel.parts[0] in {"_static", "_sources", "_images", "_downloads", "slides"}:
            continue
        if page.name in skip or is_probe_file(page):
            continue
        yield page
