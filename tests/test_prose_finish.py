"""The finish of the prose a reader sees on every chapter and book page.

* A count of four or more digits carries thousands separators ("22,146 rows", not "22146
  rows"): no bare 4+-digit integer in the prose of ``notebooks/*.md`` and ``book/*.md``
  (code, math, roles, inline code, labels, options and years left out), and a glued integer is
  shown through ``:,`` (``{glue:text}`n_rows:,```), never bare.
* No plural hedge "system(s)" or "(es)": the number of the noun follows the count
  (:func:`rankbook.report.prose.plural_phrase`).
* A largest difference of exactly zero reads "exactly equal", never "at most 0.0e+00"
  (:func:`rankbook.report.prose.difference_phrase`, tested in ``tests/report/test_prose.py``):
  no page types "differ by at most" beside a glued number.
* No number glued in Python's exponent format (``{glue:text}`tol:.0e``` reads "1e-09"): a small
  number a page shows is a word of its page words, written by
  :func:`rankbook.report.prose.power_of_ten` ("10⁻⁹", "3.8 × 10⁻¹⁴"), or a plain decimal.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "notebooks").glob("*.md")) + sorted((ROOT / "book").glob("*.md"))

_FENCE = re.compile(r"^\s*(`{3,}|:{3,})(.*)$")
_CODE_INFO = ("{code-cell}", "{code}", "{code-block}", "{math}", "{raw}")
_REMOVE = [
    (re.compile(r"\A---\n.*?\n---\n", re.S), " "),  # front matter
    (re.compile(r"\$\$.*?\$\$", re.S), " "),
    (re.compile(r"\$[^$\n]+\$"), " "),
    (re.compile(r"\{[\w:-]+\}`[^`]*`"), " "),  # roles: glue, cite, ref, term, numref
    (re.compile(r"`[^`]*`"), " "),  # inline code
    (re.compile(r"\]\([^)]*\)"), "]"),  # link targets
    (re.compile(r"<[^<>\n]*>"), " "),  # html tags and autolinks
]
#: A bare integer of four or more digits: not part of a word, a decimal, a path or a grouped number.
_BARE = re.compile(r"(?<![\w.,/@#:'-])\d{4,}(?!\w|,\d|\.\d)")
_HEDGE = re.compile(r"\b[A-Za-z]+\((?:s|es)\)")


def reader_prose(markdown: str) -> str:
    """The text of a MyST page a reader reads as prose: admonitions, exercises, solutions,
    figure captions and tables kept; code cells, code blocks, math, roles, inline code,
    directive options, labels and front matter left out."""
    front = re.match(r"\A---\n.*?\n---\n", markdown, re.S)
    lines, stack = [], []
    for line in markdown[front.end() if front else 0 :].split("\n"):
        fence = _FENCE.match(line)
        if fence:
            mark, info = fence.group(1), fence.group(2).strip()
            if stack and mark == stack[-1][0] and not info:
                stack.pop()
                continue
            if not (stack and stack[-1][1]):
                is_code = not info.startswith("{") or info.startswith(_CODE_INFO)
                stack.append((mark, is_code))
                if not is_code:
                    lines.append(re.sub(r"^\{[\w-]+\}", " ", info))  # a directive's title
                continue
        if stack and stack[-1][1]:
            continue
        if re.match(r"^\s*:[\w-]+:", line) or re.match(r"^\s*\([\w-]+\)=\s*$", line):
            continue
        lines.append(line)
    text = "\n".join(lines)
    for pattern, repl in _REMOVE:
        text = pattern.sub(repl, text)
    return text


def bare_integers(text: str) -> list[str]:
    """Bare 4+-digit integers in ``text`` that are not years (1900-2099)."""
    return [
        text[max(0, m.start() - 50) : m.end() + 20].replace("\n", " ")
        for m in _BARE.finditer(text)
        if not 1900 <= int(m.group(0)) <= 2099
    ]


def test_reader_prose_keeps_text_and_drops_code():
    page = (
        "---\nkernelspec: x\n---\n(label-1234)=\n# Title\n\nWe ran 22146 rows.\n\n"
        "```{code-cell} ipython3\nn = 12345\n```\n\n````{exercise} Rerun\n:label: ex-1\n"
        "Run `-p n_rows 20000` on 5000 rows, $x = 1000$.\n````\n\n```bash\nrun 9999\n```\n"
        "```{admonition} Note\n:class: tip\nAbout 1,000 users since 2016.\n```\n"
    )
    found = bare_integers(reader_prose(page))
    assert len(found) == 2 and "22146" in found[0] and "5000" in found[1]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_bare_four_digit_integer_in_prose(path):
    found = bare_integers(reader_prose(path.read_text(encoding="utf-8")))
    assert not found, f"{path.name}: write counts with separators:\n" + "\n".join(found)


def glued_integer_names(stem: str) -> set[str]:
    """Names a chapter glues as integer counts: ``name=len(...)``, ``name=int(...)`` and
    ``name=params["..."]`` of an integer parameter, read from its ``glue_many`` calls."""
    text = (ROOT / "notebooks" / f"{stem}.md").read_text(encoding="utf-8")
    return set(re.findall(r"\b(n_[a-z0-9_]+)\s*=\s*(?:len|int)\(", text))


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md")))
def test_glued_counts_show_separators(path):
    names = glued_integer_names(path.stem)
    text = path.read_text(encoding="utf-8")
    bare = sorted(
        {m.group(1) for m in re.finditer(r"\{glue:text\}`([\w]+)`", text) if m.group(1) in names}
    )
    assert not bare, f"{path.name}: show these counts as {{glue:text}}`name:,`: {bare}"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_plural_hedge(path):
    found = _HEDGE.findall(reader_prose(path.read_text(encoding="utf-8")))
    assert not found, f"{path.name}: pick the number from the count (plural_phrase): {found}"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_typed_at_most_beside_a_glued_difference(path):
    text = re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))
    found = re.findall(r"differs? (?:from [^{.]{0,60})?by at most \{glue:text\}`[^`]*e`", text)
    assert not found, f"{path.name}: use difference_phrase, which says 'exactly equal' at 0"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_difference_glued_in_bare_e_notation(path):
    """A largest difference (``*gap*``, ``*diff*``, ``*dev*``, ``*change*``, ``*err*``) shown as
    ``:.1e`` reads "0.0e+00" when it is exactly zero: its words come from ``gap_phrase`` or
    ``difference_phrase`` instead."""
    found = re.findall(
        r"\{glue:text\}`[a-z0-9_]*(?:gap|diff|dev|change|err)[a-z0-9_]*:\.\d+e`",
        path.read_text(encoding="utf-8"),
    )
    assert not found, f"{path.name}: {found}"


#: A glue role whose format spec ends in ``e``/``E``: Python's exponent format on the page.
_EXPONENT_SPEC = re.compile(r"\{glue(?::text)?\}`[\w.-]+:[^`]*[eE]`")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_number_glued_in_exponent_format(path):
    found = _EXPONENT_SPEC.findall(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name}: write it with power_of_ten (a page word): {found}"


def test_scans_catch_their_patterns():
    assert _EXPONENT_SPEC.findall("a tolerance of {glue:text}`exact_tol:.0e`, and") == [
        "{glue:text}`exact_tol:.0e`"
    ]
    assert _EXPONENT_SPEC.findall("{glue:text}`n_rows:,` rows, {glue:text}`exact_tol_text`") == []
    assert _HEDGE.findall(reader_prose("the 3 system(s) with it")) == ["system(s)"]
    assert _HEDGE.findall(reader_prose("the 3 systems with it, `f(s)`")) == []
    found = bare_integers("22146 rows, 22,146 rows, 0.12345, in 2016, ex-1234")
    assert len(found) == 1 and found[0].startswith("22146 rows")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_chapter_is_named_chapter_n(path):
    """Prose names a chapter "Chapter 7" (capital, no leading zero), as the references do."""
    text = reader_prose(path.read_text(encoding="utf-8"))
    found = re.findall(r"\bchapters? \d+\b|\bChapters? 0\d\b", text)
    assert not found, f"{path.name}: write 'Chapter N': {found}"
