"""Every computed word of a page flips when a results value it depends on moves.

For each chapter of :data:`rankbook.report.page_words.PAGE_WORDS`, the chapter is executed at
its smoke parameters (the ``smoke_book`` fixture), its words are recomputed from its results file
and must be what the executed page glued under the same names (so the page shows these words,
not hand-typed ones), then every
value listed in :data:`~rankbook.report.page_words.DEPENDS` is perturbed in turn, and some word
must change. The perturbations are generic (sign, scale, complement, shifts), not chosen per
chapter; a perturbation the words function refuses as invalid input is skipped. Flags are
negated, names (str) and missing values (None) replaced.

Every str value a chapter glues (read from the executed page's scrapbook records) must be one of
its page words, unless it is a plain identifier (one token without spaces) that is itself a
string value of its results file, such as a model or preset name.
"""

from __future__ import annotations

import ast
import copy
import json
import re

import pytest

from rankaudit.runs.decision import VERDICTS
from rankbook.report.page_words import DEPENDS, PAGE_WORDS
from rankbook.report.pipeline import chapter_names
from tests.conftest import ROOT

CHAPTERS = chapter_names(ROOT / "notebooks")


def _node(results, path):
    """The dict holding the value at ``path``; ``key`` None is the results dict itself (a
    top-level value: ``(None, None, "n_sensitive")``); ``index`` a tuple walks further down
    (``("checklist", ("permutation_test", "facts"), "is_invariant")``)."""
    key, index, _ = path
    node = results if key is None else results[key]
    for step in index if isinstance(index, tuple) else () if index is None else (index,):
        node = node[step]
    return node


def _candidates(v):
    """Generic moves of a value: a number is moved by sign, scale, complement, shifts and
    relative steps of 5% and 1% (and, in a list of records, to its neighbours' values, see
    :func:`_neighbours`); a flag is negated; a name (str) or a missing value (None) is
    replaced by another one (a name also by the other names of its record, see
    :func:`_perturbed`); a verdict of :data:`rankaudit.runs.decision.VERDICTS` also by each
    other verdict (a words function may refuse anything else as not a verdict)."""
    if isinstance(v, bool):
        return [not v]
    if v in VERDICTS:  # a verdict of the decision standard moves to each other verdict
        return [w for w in VERDICTS if w != v] + [v + "-moved", None]
    if v is None or isinstance(v, str):
        return ["another" if v is None else v + "-moved", None]
    v = float(v)
    steps = [-v, 10 * v, v / 10, 0.0, 1.0 - v, v + 1, v - 1, v + 0.5, v - 0.5, v + 0.05, v - 0.05]
    return steps + [v * 0.95, v * 1.05, v * 0.99, v * 1.01]  # relative moves of 5% and 1%


def _neighbours(results, path) -> list[float]:
    """The same field of the records before and after this one, when the value sits in a list
    of records: a value moved to its neighbour's (e.g. one tie rule's NDCG@10 to the next
    rule's), a move of the size the data actually show."""
    key, index, field = path
    steps = index if isinstance(index, tuple) else () if index is None else (index,)
    if not steps or not isinstance(steps[-1], int):
        return []
    parent = _node(results, (key, steps[:-1] or None, field))
    j = steps[-1]
    out = []
    for k in (j - 1, j + 1):
        if 0 <= k < len(parent) and isinstance(parent[k], dict):
            v = parent[k].get(field)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out.append(float(v))
    return out


def _perturbed(results, path):
    """Copies of ``results`` with the value at ``path`` moved to each generic candidate. A field
    pair ``(low, high)`` is an interval: it moves as a whole (its midpoint to each candidate)."""
    field = path[2]
    node = _node(results, path)
    if isinstance(field, tuple):
        lo, hi = (float(node[f]) for f in field)
        mid, half = (lo + hi) / 2, (hi - lo) / 2
        values = [{field[0]: c - half, field[1]: c + half} for c in _candidates(mid)]
    else:
        values = [{field: c} for c in _candidates(node[field]) + _neighbours(results, path)]
        if isinstance(node[field], str):  # a name moved to another name of the same record
            values += [{field: v} for k, v in node.items() if k != field and isinstance(v, str)]
    for update in values:
        out = copy.deepcopy(results)
        _node(out, path).update(update)
        yield out


def glued_values(notebook: dict) -> dict[str, str]:
    """``{name: text/plain repr}`` of every value a notebook glued (MyST-NB's scrapbook records)."""
    out = {}
    for cell in notebook["cells"]:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:
                out[name] = o["data"].get(o["metadata"]["scrapbook"]["mime_prefix"] + "text/plain")
    return out


def flips(words, results, path) -> bool:
    """True when some generic perturbation of the value at ``path`` changes the words."""
    base = words(results)
    for moved_results in _perturbed(results, path):
        try:
            moved = words(moved_results)
        except ValueError:
            continue
        if moved != base:
            return True
    return False


def test_flip_moves_flags_names_and_top_level_values():
    results = {"same": True, "name": "bpr", "none": None}

    def reads(r):
        return {"w": f"{r['same']} {r['name']} {r['none']}"}

    for field in ("same", "name", "none"):
        assert flips(reads, results, (None, None, field))
    # a name moved to another name of its record: only equality flips this word
    prints = {"ours": "abc", "theirs": "def"}
    assert flips(lambda r: {"w": str(r["ours"] == r["theirs"])}, prints, (None, None, "ours"))
    # a value moved to its neighbour's: only the neighbour's exact value flips this word
    rows = {"rows": [{"v": 0.5}, {"v": 0.123456}]}
    assert flips(lambda r: {"w": str(r["rows"][0]["v"] == 0.123456)}, rows, ("rows", 0, "v"))
    assert not flips(lambda r: {"w": str(r["name"])}, results, (None, None, "same"))
    # a verdict moved to another verdict: a words function that refuses non-verdicts still flips
    verdicts = {"v": VERDICTS[0]}

    def strict(r):
        if r["v"] not in VERDICTS:
            raise ValueError(r["v"])
        return {"w": r["v"]}

    assert flips(strict, verdicts, (None, None, "v"))
    assert not flips(lambda r: {"w": "fixed"}, verdicts, (None, None, "v"))


def test_flip_detects_a_word_that_ignores_its_number():
    """The test itself can fail: a words function that does not read a listed value."""
    results = {"x": {"v": 0.3}}

    def constant(_):
        return {"w": "rises"}

    def reads(r):
        return {"w": "rises" if r["x"]["v"] > 0 else "falls"}

    assert not flips(constant, results, ("x", None, "v"))
    assert flips(reads, results, ("x", None, "v"))


@pytest.mark.parametrize("stem", sorted(PAGE_WORDS))
def test_page_words_are_on_the_page_and_flip(smoke_book, stem):
    assert stem not in smoke_book.failures, smoke_book.failures.get(stem)
    results = json.loads((smoke_book.paths.results / f"{stem}.json").read_text())
    words = PAGE_WORDS[stem](results)
    glued = glued_values(json.loads((smoke_book.paths.executed / f"{stem}.ipynb").read_text()))
    for key, text in words.items():
        assert glued.get(key) == repr(text), (
            f"{stem}: {key!r} glued {glued.get(key)!r}, not {text!r}"
        )
    depends = DEPENDS[stem](results) if callable(DEPENDS[stem]) else DEPENDS[stem]
    assert depends, f"{stem}: no value listed for its words"
    for path in depends:
        assert flips(PAGE_WORDS[stem], results, path), f"{stem}: no word depends on {path}"


#: a glued string that needs no words module: one token (letters, digits, ``_ . -``, no space)
#: that is itself a string value of the results file, e.g. a model or preset name.
_IDENTIFIER = re.compile(r"[A-Za-z0-9_.\-]+")


def _strings(value) -> set[str]:
    """Every string leaf of a results value (keys are names, not values: not included)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def glued_strings(glued: dict[str, str]) -> dict[str, str]:
    """The glued values that are Python strings (their ``text/plain`` is a str literal)."""
    out = {}
    for name, text in glued.items():
        try:
            value = ast.literal_eval(text) if text is not None else None
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, str):
            out[name] = value
    return out


def stray_words(glued: dict[str, str], words: dict[str, str], results: dict) -> list[str]:
    """Glued strings that do not come from the chapter's words function: a glued str must be
    glued under a name of ``page_words(stem, results)``, unless it is a plain identifier (one
    token, :data:`_IDENTIFIER`) that is itself a string value of the results file."""
    known = _strings(results)
    return sorted(
        f"{name}={value!r}"
        for name, value in glued_strings(glued).items()
        if name not in words and not (_IDENTIFIER.fullmatch(value) and value in known)
    )


def test_stray_words_are_found():
    """The rule can fail: a hand-glued sentence, and a token that is not a results value."""
    glued = {"best": "'bpr'", "verdict": "'does not hold'", "n": "3", "odd": "'knn'", "w": "'all'"}
    results = {"metrics": [{"model": "bpr"}]}
    assert stray_words(glued, {"w": "all"}, results) == ["odd='knn'", "verdict='does not hold'"]


@pytest.mark.parametrize("stem", CHAPTERS)
def test_every_glued_string_comes_from_page_words(smoke_book, stem):
    """Every str value a chapter glues is one of its page words (or a results identifier)."""
    assert stem not in smoke_book.failures, smoke_book.failures.get(stem)
    results = json.loads((smoke_book.paths.results / f"{stem}.json").read_text())
    words = PAGE_WORDS[stem](results) if stem in PAGE_WORDS else {}
    glued = glued_values(json.loads((smoke_book.paths.executed / f"{stem}.ipynb").read_text()))
    stray = stray_words(glued, words, results)
    assert not stray, f"{stem}: glued strings not from page_words: {stray}"
