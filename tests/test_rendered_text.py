"""Scan the rendered pages for the patterns that produced sentences that read wrong.

Each pattern caught a real sentence on the rendered book once:

* ``nan-in-table``: a table cell showing ``NaN`` (a "paper lift" column with no paper value);
* ``by-minus``: "improves by -3.1%" (a glued signed number after "by": the sentence must read
  right whatever the sign);
* ``stale-part-name``: "Part III (a)", a part name from an older table of contents;
* ``bold-in-token``: a bold glued value inside a token, "HR@**10**" or "(**31**! orders)";
* ``raw-float-format``: "4.380300e+07 pairs", Python's default ``%e`` for a count;
* ``bool-in-prose``: "invariant: True" in a sentence (say "yes"/"no" or say what holds);
* ``n-of-n``: "only 24 of the 24 points" or "8 of the 8 rows" (say "all 24": words come from
  :func:`rankbook.report.prose.count_phrase`);
* ``p-zero``: "p = 0.000" (a permutation p-value is never 0: "p ≤ 0.001 (1,000 permutations)");
* ``raw-label``: a raw ``fig-``/``eq-`` label in the text, a reference that did not resolve;
* ``e-notation``: "5e-05", "2.2e-16" or "1.2E+04" in a sentence, a caption or a table cell
  (Python's exponent format; a page writes "5 × 10⁻⁵" through
  :func:`rankbook.report.prose.power_of_ten`, a table's cells go through
  :func:`rankbook.report.tables.display_frame`). Code and math are not scanned.

The unit tests at the bottom show each pattern caught on a small HTML string (and its fixed
sentence passing); ``test_no_page_reads_wrong`` runs them over every page of the site built from
the smoke-executed chapters (the ``site`` fixture of ``tests/conftest.py``).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import pytest

from tests.chromium_probe import is_probe_file

_DROP = re.compile(
    r"<(script|style|pre|code|math|svg|mjx-container)\b.*?</\1>"
    r"|<span class=\"math[^\"]*\">.*?</span>"
    r"|<div class=\"math[^\"]*\">.*?</div>",
    flags=re.S | re.I,
)
_CELL = re.compile(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", flags=re.S | re.I)
_PROSE = re.compile(r"<(p|li|dd|figcaption|h[1-6])\b[^>]*>(.*?)</\1>", flags=re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_NUMBER = r"\d"
#: Python's exponent format for a number: "5e-05", "2.2e-16", "1.2E+04", "-3e7".
_E_NOTATION = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][+-]?\d+\b")


@dataclass(frozen=True)
class Finding:
    """One sentence that reads wrong: the rule it breaks and the text around it."""

    rule: str
    excerpt: str


def _text(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub("", fragment)).split())


def _body(page: str) -> str:
    """The page's main content without code, math, scripts and styles."""
    main = re.search(r"<main\b.*?</main>", page, flags=re.S | re.I)
    return _DROP.sub(" ", main.group(0) if main else page)


def scan_html(page: str) -> list[Finding]:
    """Every :class:`Finding` on one rendered HTML page."""
    body = _body(page)
    found: list[Finding] = []

    for cell in _CELL.findall(body):
        if _text(cell) in {"NaN", "nan", "<NA>", "NaT", "None"}:
            found.append(Finding("nan-in-table", _text(cell)))
        if _E_NOTATION.search(_text(cell)):
            found.append(Finding("e-notation", _text(cell)))

    bold = re.sub(r"<(?!/?strong\b)[^>]*>", "", body)  # keep <strong>, drop glue spans etc.
    for match in re.finditer(
        r"(?:[\w@]<strong>\s*[\d.]+[^<]*</strong>"
        r"|<strong>\s*[\d.,]+\s*</strong>[\w!@])",
        bold,
    ):
        found.append(
            Finding("bold-in-token", _text(bold[max(0, match.start() - 20) : match.end() + 20]))
        )

    prose = " ".join(_text(part) for _, part in _PROSE.findall(body))
    rules = {
        "by-minus": rf"\bby\s*[-\u2212\u2013]\s*{_NUMBER}",
        "stale-part-name": r"\bPart\s+[IVX]+\s*\([a-z]\)",
        "raw-float-format": r"\b\d\.\d{6}e[+-]\d{2}\b",
        "bool-in-prose": r"(?<![\w`=.])(?:True|False)(?![\w`(=])",
        "n-of-n": r"\b(\d[\d,]*) of (?:the )?\1\b",
        "p-zero": r"\bp\s*=\s*0\.0+(?!\d*[1-9])",
        "raw-label": r"(?<![\w/#.-])(?:fig|eq)-[a-z0-9][a-z0-9-]*\b",
        "zero-in-e-notation": r"(?<![\d.])0\.0*e[+-]0+\b",
        "plural-hedge": r"\b[A-Za-z]+\((?:s|es)\)",
        "count-without-separator": r"(?<![\d.,:/#-])[1-9]\d{4,}(?= (?:rows|users|queries|sessions|"
        r"items|films|pairs|permutations|sign flips|draws|candidates|ratings|lines|resamples)\b)",
    }
    for rule, pattern in rules.items():
        for match in re.finditer(pattern, prose):
            found.append(Finding(rule, prose[max(0, match.start() - 40) : match.end() + 40]))
    for match in _E_NOTATION.finditer(prose):
        found.append(Finding("e-notation", prose[max(0, match.start() - 40) : match.end() + 40]))
    return found


@pytest.mark.slow
@pytest.mark.real_data
def test_no_page_reads_wrong(site):
    pages = [page for page in sorted(site.rglob("*.html")) if not is_probe_file(page)]
    assert len(pages) > 5
    report = []
    for page in pages:
        if page.parent.name.startswith("_"):  # genindex, search and other generated pages
            continue
        for finding in scan_html(page.read_text(encoding="utf-8")):
            report.append(f"{page.relative_to(site)}: {finding.rule}: ...{finding.excerpt}...")
    assert not report, "sentences that read wrong:\n" + "\n".join(report)


# --- each pattern, caught on a small page ------------------------------------------------------


def _page(body: str) -> str:
    style = "<style>p { color: red }</style>"
    return f"<html><head>{style}</head><body><main>{body}</main></body></html>"


@pytest.mark.parametrize(
    ("rule", "bad", "good"),
    [
        (
            "nan-in-table",
            "<table><tr><th>paper lift</th></tr><tr><td>NaN</td></tr></table>",
            "<table><tr><th>paper lift</th></tr><tr><td>n/a</td></tr></table>",
        ),
        (
            "by-minus",
            "<p>The variant improves MRR by -3.1%.</p>",
            "<p>The variant changes MRR by 3.1% (a drop).</p>",
        ),
        (
            "by-minus",
            "<p>Recall rises by \u22120.4 points.</p>",
            "<p>Recall moves by 0.4 points, down.</p>",
        ),
        (
            "stale-part-name",
            "<p>The features of Part III (a) are reused.</p>",
            "<p>The features of Part III are reused.</p>",
        ),
        (
            "bold-in-token",
            "<p>We report HR@<strong>10</strong> for every row.</p>",
            "<p>We report <strong>HR@10</strong> for every row.</p>",
        ),
        (
            "bold-in-token",
            '<p>We report HR@<strong><span class="pasted-text">10</span></strong> here.</p>',
            '<p>We report <strong>HR@<span class="pasted-text">10</span></strong> here.</p>',
        ),
        (
            "bold-in-token",
            "<p>Enumeration is impossible (<strong>31</strong>! orders).</p>",
            "<p>Enumeration is impossible (<strong>31!</strong> orders).</p>",
        ),
        (
            "raw-float-format",
            "<p>The run compares 4.380300e+07 pairs.</p>",
            "<p>The run compares 43,803,000 pairs; the error is 2.2 × 10⁻¹⁶.</p>",
        ),
        (
            "n-of-n",
            "<p>Only 24 of the 24 points have a CI that excludes zero.</p>",
            "<p>All 24 points have a CI that excludes zero; 5 of 8 rows do.</p>",
        ),
        (
            "n-of-n",
            "<p>8 of 8 feature rows exclude zero.</p>",
            "<p>None of the 8 feature rows exclude zero; 18 of 180 do.</p>",
        ),
        (
            "p-zero",
            "<p>The oracle's lift is 13% (p = 0.000).</p>",
            "<p>The oracle's lift is 13% (p ≤ 0.0002 (5,000 permutations)); p = 0.042.</p>",
        ),
        (
            "raw-label",
            "<p>As the figure fig-ablation-lifts shows, and eq-fwer.</p>",
            "<p>As Figure 3 shows, and equation (2).</p>",
        ),
        (
            "zero-in-e-notation",
            "<p>The two layouts differ by at most 0.0e+00.</p>",
            "<p>The two layouts are exactly equal; the other gap is 2.2 × 10⁻¹⁶.</p>",
        ),
        (
            "plural-hedge",
            "<p>The 2 system(s) with it: bpr and als.</p>",
            "<p>The 2 systems with it: bpr and als.</p>",
        ),
        (
            "count-without-separator",
            "<p>The table holds 20000 rows in 620000 lines.</p>",
            "<p>The table holds 20,000 rows in 620,000 lines, from 2016.</p>",
        ),
        (
            "e-notation",
            "<p>A move below 5e-05 changes no fourth decimal (tolerance 1e-09).</p>",
            "<p>A move below 5 × 10⁻⁵ changes no fourth decimal (tolerance 10⁻⁹), in 2016.</p>",
        ),
        (
            "e-notation",
            "<figure><figcaption>Expected collisions 1.2E+04 of an ideal hash.</figcaption>"
            "</figure>",
            "<figure><figcaption>Expected collisions 1.2 × 10⁴ of an ideal hash."
            "</figcaption></figure>",
        ),
        (
            "e-notation",
            "<table><tr><th>expected</th></tr><tr><td>2.710505e-08</td></tr></table>",
            "<table><tr><th>expected</th></tr><tr><td>2.7 × 10⁻⁸</td></tr></table>",
        ),
        (
            "bool-in-prose",
            "<p>Row-order invariant: True for the expected rule.</p>",
            "<p>Row-order invariant: yes, for the expected rule; "
            "<code>ignore_ties=False</code>.</p>",
        ),
    ],
)
def test_each_pattern_is_caught_and_its_fix_passes(rule, bad, good):
    assert rule in {f.rule for f in scan_html(_page(bad))}
    assert scan_html(_page(good)) == []


def test_code_math_and_styles_are_not_scanned():
    page = _page(
        "<pre>invariant: True, by -1, 4.380300e+07</pre>"
        "<p>Call <code>evaluate(stable=True, atol=1e-12)</code>; "
        '<span class="math notranslate nohighlight">\\(x = -1\\)</span>.</p>'
        "<script>var by = -1; var x = True;</script>"
    )
    assert scan_html(page) == []


def test_a_finding_names_its_rule_and_shows_the_sentence():
    (finding,) = scan_html(_page("<p>The lift changes by -2.0% on MovieLens.</p>"))
    assert finding.rule == "by-minus"
    assert "by -2.0% on MovieLens" in finding.excerpt


@pytest.mark.slow
@pytest.mark.real_data
def test_the_general_index_lists_the_glossary(site):
    index = (site / "genindex.html").read_text(encoding="utf-8")
    entries = set(re.findall(r'href="glossary\.html#term-([^"]+)"', index))
    for term in ("MLR", "SERP", "tie-block", "stable-sort", "Holm-procedure", "sign-flip-test"):
        assert term in entries, f"the general index has no entry for {term}"
