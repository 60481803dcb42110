"""Every verdict word on a page comes from the decision standard (rankaudit.runs.decision).

A chapter's markdown never types a verdict of the standard (it glues it), nor the retired
verdicts that predate it; the words cells never build those retired verdicts either.
No module of the compendium and no chapter cell types a verdict's threshold (a level such as
0.05, a normal quantile such as 1.96 or 2.58, a bound on ``|z|``) or a bare verdict word: the
thresholds are the decision modules' (``ALPHA``, ``Z_AGREE``, ``interval_z``, ``family_z``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from rankaudit.runs.decision import ALPHA, SWAP_VERDICTS, VERDICTS
from tests.notebook_cells import NOTEBOOKS, chapter_stems, code_cells
from tests.words_cells import words_cells

ROOT = Path(__file__).resolve().parents[2]
#: verdicts older pages built with their own predicates.
RETIRED = ("fails the paper's claim", "not resolved at this size", "not distinguishable from")
_CODE = re.compile(r"```\{code-cell\}.*?```", re.S)
_GLUE = re.compile(r"\{glue:[a-z]*\}`[^`]*`")


def typed_verdicts(markdown: str) -> list[str]:
    """Verdict phrases typed in a page's prose (code cells and glue roles left out)."""
    prose = _GLUE.sub(" ", _CODE.sub(" ", markdown)).lower()
    prose = " ".join(prose.split())
    return [v for v in (*VERDICTS, *RETIRED) if v in prose]


def test_the_scan_catches_a_typed_verdict():
    page = "Row A is resolved above zero.\n```{code-cell} ipython3\nx = 1\n```\n"
    assert typed_verdicts(page) == ["resolved above zero"]
    assert typed_verdicts("Row A is {glue:text}`verdict_a`.") == []
    assert typed_verdicts("It fails the paper's\nclaim.") == ["fails the paper's claim"]


@pytest.mark.parametrize("stem", chapter_stems())
def test_no_chapter_types_a_verdict(stem):
    found = typed_verdicts((NOTEBOOKS / f"{stem}.md").read_text(encoding="utf-8"))
    assert not found, f"{stem} types verdicts instead of gluing them: {found}"


@pytest.mark.parametrize("stem", chapter_stems())
def test_no_words_cell_builds_a_retired_verdict(stem):
    text = " ".join(" ".join(c.source for c in words_cells(stem)).split())
    found = [v for v in RETIRED if v in text]
    assert not found, f"{stem}'s words cells build retired verdicts: {found}"


# --- typed thresholds: a verdict predicate must read its threshold from the decision modules ---

SRC_RANKBOOK = ROOT / "src" / "rankbook"
#: the modules that hold the thresholds (the library's one, and the page's size words).
DECISION_MODULES = (SRC_RANKBOOK / "report" / "decision.py",)
#: levels and normal quantiles of the standard (0.05, 0.01, 0.95, 1.96, 2.58, ...) typed as such.
_LEVEL = r"(?:0\.05|0\.01|0\.95|0\.99|0\.975|0\.995)"
_QUANTILE = r"(?:1\.96\d*|2\.57\d*|2\.58)"
_OP = r"(?:<=|>=|<|>)"
_TYPED = (
    # a p-value, a level or a z compared with a typed level or quantile
    re.compile(rf"{_OP}\s*-?(?:{_LEVEL}|{_QUANTILE})(?![\d.])"),
    re.compile(rf"(?<![\w.]){_LEVEL}\s*{_OP}"),
    # a typed normal quantile anywhere in code (use interval_z, family_z or Z_AGREE)
    re.compile(rf"(?<![\w.]){_QUANTILE}(?![\d.])"),
    # |z| against any typed number (use expectation_verdict)
    re.compile(rf"abs\(\s*\w*z\w*\s*\)\s*{_OP}\s*\d"),
    # a default level typed in a signature (use ALPHA, or 1 - ALPHA)
    re.compile(rf"\b(?:alpha|level)\s*(?::\s*float\s*)?=\s*{_LEVEL}(?![\d.])"),
    # a verdict word as a bare literal (a verdict comes from the decision module)
    re.compile(
        "['\"](?:"
        + "|".join(
            re.escape(w)
            for w in (*VERDICTS, *SWAP_VERDICTS, "resolved", "contradicts", "significant")
        )
        + ")['\"]"
    ),
)


def _code_only(source: str) -> str:
    """The code of a module or a cell without docstrings and comments (``ast.unparse``)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                body[0] = ast.Pass()
    return ast.unparse(tree)


def typed_thresholds(source: str) -> list[str]:
    """The verdict thresholds (and bare verdict literals) typed in Python ``source``."""
    code = _code_only(source)
    return [m.group(0) for pattern in _TYPED for m in pattern.finditer(code)]


def test_the_threshold_scan_catches_a_typed_threshold():
    assert typed_thresholds("ok = p_holm <= 0.05\n") == ["<= 0.05"]
    assert typed_thresholds("ok = abs(z) < 2.0\n") == ["abs(z) < 2"]
    assert typed_thresholds("z = 1.96 * se\n") == ["1.96"]
    assert typed_thresholds("def f(p, alpha=0.05):\n    return p\n") == ["alpha=0.05"]
    assert typed_thresholds("w = 'resolved' if ok else 'x'\n") == ["'resolved'"]
    assert typed_thresholds('keep = status != "same order"\n') == ["'same order'"]
    assert typed_thresholds('"""p <= 0.05 in a docstring"""\n# abs(z) < 2\nx = ALPHA\n') == []
    assert typed_thresholds("lr = 0.05\nok = p <= ALPHA\ngrid = (0.05, 0.15)\n") == []


def _rankbook_modules() -> list[Path]:
    return sorted(p for p in SRC_RANKBOOK.rglob("*.py") if p not in DECISION_MODULES)


@pytest.mark.parametrize("path", _rankbook_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_rankbook_module_types_a_verdict_threshold(path):
    found = typed_thresholds(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name} types thresholds instead of the decision module's: {found}"


@pytest.mark.parametrize("stem", chapter_stems())
def test_no_chapter_cell_types_a_verdict_threshold(stem):
    """Every code cell but the parameters cell (plain literals for papermill; its ``alpha`` is
    held to ``ALPHA`` by the next test)."""
    found = []
    for cell in code_cells(NOTEBOOKS / f"{stem}.md"):
        if "parameters" in cell.tags:
            continue
        lines = [
            "" if line.lstrip().startswith(("%", "!")) else line
            for line in cell.source.splitlines()
        ]
        found += [f"cell {cell.number}: {t}" for t in typed_thresholds("\n".join(lines))]
    assert not found, f"{stem} types thresholds instead of the decision module's: {found}"


@pytest.mark.parametrize("stem", chapter_stems())
def test_a_chapters_default_level_is_the_decision_modules(stem):
    for cell in code_cells(NOTEBOOKS / f"{stem}.md"):
        if "parameters" not in cell.tags:
            continue
        for node in ast.parse(cell.source).body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
                "alpha"
            ]:
                assert ast.literal_eval(node.value) == ALPHA, f"{stem}: alpha is not ALPHA"


# --- a count phrase and its verb: the verb agrees with the count (count_phrase(..., verb=)) ---

#: plural verbs a page might type after a glued count ("3 of 6 families agree"): each breaks
#: at a count of one ("1 of 6 families agree"), so the verb belongs in the glued clause.
PLURAL_VERBS = frozenset(
    "are were have agree exceed move cover stay remain lie show include exclude differ reach "
    "need fail hold change fall rise lose gain match depart keep give".split()
)
_ROLE_THEN_WORD = re.compile(r"\{glue:text\}`([A-Za-z0-9_]+)`\s+([A-Za-z]+)")


def _is_count_without_verb(node: ast.AST) -> bool:
    """``count_phrase(...)`` without ``verb=`` (also under ``.capitalize()`` and the like)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    return (
        isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == "count_phrase"
        and not any(k.arg == "verb" for k in node.keywords)
    )


def count_keys(source: str) -> set[str]:
    """The words a words module or words cell builds as a bare count phrase (no verb): the keys
    of dict displays, of ``out["key"] = ...`` and of ``glue_words(key=...)`` whose value is
    ``count_phrase(...)`` without ``verb``."""
    keys = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "glue_words":
            keys |= {k.arg for k in node.keywords if k.arg and _is_count_without_verb(k.value)}
        elif isinstance(node, ast.Dict):
            pairs = zip(node.keys, node.values, strict=True)
            keys |= {k.value for k, v in pairs if isinstance(k, ast.Constant) and
                     _is_count_without_verb(v)}
        elif isinstance(node, ast.Assign) and _is_count_without_verb(node.value):
            for t in node.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant):
                    keys.add(t.slice.value)
    return keys


def typed_verbs_in_module(source: str) -> list[str]:
    """f-strings of a words module that put a typed plural verb right after a bare count
    phrase: ``f"{count_phrase(k, n, 'points')} have ..."``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.JoinedStr):
            continue
        parts = node.values
        for a, b in zip(parts, parts[1:], strict=False):
            if (
                isinstance(a, ast.FormattedValue)
                and _is_count_without_verb(a.value)
                and isinstance(b, ast.Constant)
                and (b.value.split() or [""])[0] in PLURAL_VERBS
            ):
                found.append(b.value.split()[0])
    return found


def typed_verbs_after_counts(markdown: str, keys: set[str]) -> list[str]:
    """``{glue:text}`key` verb`` in a page's prose where ``key`` is a bare count phrase and
    ``verb`` a typed plural verb."""
    prose = _CODE.sub(" ", markdown)
    return [
        f"{m.group(1)} {m.group(2)}"
        for m in _ROLE_THEN_WORD.finditer(prose)
        if m.group(1) in keys and m.group(2) in PLURAL_VERBS
    ]


def test_the_verb_scan_catches_a_typed_verb_after_a_count():
    module = (
        "def words(r):\n"
        "    out = {'n_ok': count_phrase(1, 6, 'families'),\n"
        "           'n_is': count_phrase(1, 6, 'families', verb=('is', 'are')),\n"
        "           'cap': count_phrase(1, 6, 'rows').capitalize()}\n"
        "    out['late'] = count_phrase(1, 2)\n"
        "    out['head'] = f\"{count_phrase(1, 6, 'points')} have a CI\"\n"
        "    return out\n"
    )
    assert count_keys(module) == {"n_ok", "cap", "late"}
    cell = (
        "glue_words(n_ok=count_phrase(1, 6, 'rows'),\n"
        "           n_is=count_phrase(1, 6, 'r', verb=('is', 'are')))"
    )
    assert count_keys(cell) == {"n_ok"}
    assert typed_verbs_in_module(module) == ["have"]
    page = (
        "By it {glue:text}`n_ok` agree, {glue:text}`n_is` sensitive; {glue:text}`cap` of the\n"
        "rows; {glue:text}`late`\nare decided.\n```{code-cell} ipython3\n"
        "x = '{glue:text}`n_ok` agree'\n```\n"
    )
    assert typed_verbs_after_counts(page, count_keys(module)) == ["n_ok agree", "late are"]


@pytest.mark.parametrize("stem", chapter_stems())
def test_no_typed_plural_verb_after_a_glued_count(stem):
    """A count phrase followed by a verb is one glued clause whose verb agrees with the count
    (``count_phrase(k, n, noun, verb=(singular, plural))``), in the page and in its words."""
    source = "\n\n".join(c.source for c in words_cells(stem))
    if not source:
        pytest.skip(f"{stem} computes no words")
    markdown = (NOTEBOOKS / f"{stem}.md").read_text(encoding="utf-8")
    found = typed_verbs_after_counts(markdown, count_keys(source))
    found += [f"(words cells) {v}" for v in typed_verbs_in_module(source)]
    assert not found, f"{stem}: a typed verb after a glued count breaks at one: {found}"
