"""Every computed word of a page flips when a results value it depends on moves.

For each chapter with words cells (``tests/words_cells.py``), the chapter is executed at its
smoke parameters (the ``smoke_book`` fixture), its words are recomputed by running its words
cells again on the results the page was computed from and must be what the executed page glued
under the same names (so the page shows these words, not hand-typed ones); then every results
value the words cells read (:func:`tests.words_cells.read_paths`) is moved in turn, and some
word must change.

The moves do not depend on where a run's numbers fell: besides generic steps (sign, scale,
complement, shifts of the value itself), every number is moved to values that span every
threshold of the book's words, read from the decision module and the chapter's words cells
(p-values to 0, 1, ``alpha`` and just beside it; shares into each band of ``share_word``; a
power around ``min_power``; a z around ``z_agree``; the grid ``±10**k``), a count also to 0, 1
and the other numbers of its record (the "all" it is a count of), an interval to intervals
wholly above zero, wholly below it and straddling it. A value read jointly with others (the
largest gap of several rows) is also moved in states where the others sit at one value
(:func:`contexts`). A move the words function refuses as invalid input is skipped. Flags are
negated, names (str) and missing values (None) replaced. A listed value that no word reads
never flips a word, so the test fails on it (``test_a_wrong_depends_entry_fails``).

Under the ±5% switch (``RANKBOOK_PERTURB_RESULTS``, ``tests/perturbed_results.py``) the page
checks read the unmoved results kept beside the moved file, and the flips read the moved ones.

Every str value a chapter glues (read from the executed page's scrapbook records) must be one of
its page words, unless it is a plain identifier (one token without spaces) that is itself a
string value of its results file, such as a model or preset name.
"""

from __future__ import annotations

import ast
import copy
import itertools
import json
import re
import sys

import pytest

from rankaudit.runs.decision import (
    CONTRADICTS,
    DEPARTS_EXPECTATION,
    MATCHES_EXPECTATION,
    NOT_RESOLVED,
    RESOLVED_ABOVE,
    RESOLVED_BELOW,
    VERDICTS,
    claim_verdict,
    direction_verdict,
    expectation_verdict,
)
from rankbook.report.decision import decision_constants, verdict_with_power
from rankbook.report.pipeline import chapter_names
from rankbook.report.prose import (
    count_phrase,
    direction_word,
    interval_phrase,
    same_word,
    share_word,
    size_word,
)
from rankbook.report.prose_limits import covers_word
from rankbook.report.prose_rules import threshold_word
from tests.conftest import ROOT
from tests.perturbed_results import unperturbed_path
from tests.words_cells import read_paths, words_chapters, words_function

CHAPTERS = chapter_names(ROOT / "notebooks")

#: chapter stem -> its words function: the chapter's own words cells (``tests/words_cells.py``).
WORDS = {stem: words_function(stem) for stem in words_chapters()}


def depends_of(stem: str, results) -> list:
    """The results values chapter ``stem``'s words depend on: those its words cells read
    (:func:`tests.words_cells.read_paths`), less the names they only use to find a record."""
    paths = read_paths(WORDS[stem], results)
    return [p for p in paths if not lookup_key(WORDS[stem], results, p)]


def _node(results, path):
    """The dict holding the value at ``path``; ``key`` None is the results dict itself (a
    top-level value: ``(None, None, "n_sensitive")``); ``index`` a tuple walks further down
    (``("checklist", ("permutation_test", "facts"), "is_invariant")``)."""
    key, index, _ = path
    node = results if key is None else results[key]
    for step in index if isinstance(index, tuple) else () if index is None else (index,):
        node = node[step]
    return node


#: the thresholds of the book's words, read from the decision module (never typed here):
#: ``alpha``, ``min_power``, ``z_agree``, ``few_below``, ``most_above``, ``small_ratio``.
THRESHOLDS: dict[str, float] = decision_constants()
#: a relative step just beside a threshold (on either side of it, never on it).
_BESIDE = 1e-6
#: magnitudes ``10**k`` of the grid every number is also moved to: a threshold anywhere in
#: ``[1e-15, 1e15]``, stated or not, has grid points on both sides of it.
_DECADES = range(-15, 16)


def lookup_key(words, results, path) -> bool:
    """True when the value at ``path`` is a name (a str, not a verdict) that the words only use
    to find a record, as a table's ``statistic`` column read into a dict: no other name there
    changes the words, or the words then fail to find it (``KeyError``; ``TypeError`` for a
    name moved to None). Such a name is not a value the words depend on; a verdict string
    always is."""
    value = _leaf(results, path)
    if not isinstance(value, str) or value in VERDICTS:
        return False
    base = words(results)
    for state in _perturbed(results, path):
        try:
            if words(state) != base:
                return False
        except (KeyError, TypeError):
            continue
    return True


def module_thresholds(words) -> dict[str, float]:
    """The numeric constants of the module that defines ``words`` (``BUDGET_SECONDS``,
    ``ATOL``, ...), or the numbers its words cells state (``words.thresholds``): a threshold a
    chapter's words read besides the decision module's."""
    if hasattr(words, "thresholds"):
        return dict(words.thresholds)
    module = sys.modules[words.__module__]
    return {
        name: float(v)
        for name, v in vars(module).items()
        if name.isupper() and isinstance(v, (int, float)) and not isinstance(v, bool)
    }


def _around(t: float) -> list[float]:
    """``t`` and values just below and just above it, and the same on the negative side."""
    near = [t, t * (1 - _BESIDE), t * (1 + _BESIDE), t - _BESIDE, t + _BESIDE]
    return near + [-x for x in near]


def threshold_moves(thresholds: dict[str, float] | None = None) -> list[float]:
    """Values that span every threshold whatever the run gave: 0 and 1 (a p-value's, a share's
    and a power's ends), each threshold and just beside it (p just around ``alpha``, a power
    around ``min_power``, a z around ``z_agree``), a share in each band of ``share_word``
    (none, a few, a minority, most, all: the bands' midpoints), and the grid ``±10**k``."""
    t = THRESHOLDS if thresholds is None else thresholds
    few, most = THRESHOLDS["few_below"], THRESHOLDS["most_above"]
    out = [0.0, 1.0, -1.0, few / 2, (few + most) / 2, (most + 1) / 2]
    for value in t.values():
        out += _around(value)
    out += [s * 10.0**k for k in _DECADES for s in (1.0, -1.0)]
    return out


def _candidates(v, thresholds: dict[str, float] | None = None):
    """Moves of a value: a number by sign, scale, complement, shifts and relative steps of 5%
    and 1%, and to every :func:`threshold_moves` value (a count also to its neighbours 0, 1,
    ``v - 1``, ``v + 1``; in a record also to the other numbers of its record, such as the
    total a count is "all" of, and to its neighbours' values, see :func:`_neighbours`); a flag
    is negated; a name (str) or a missing value (None) is replaced by another one (a name also
    by the other names of its record, see :func:`_perturbed`); a verdict of
    :data:`rankaudit.runs.decision.VERDICTS` also by each other verdict (a words function may
    refuse anything else as not a verdict)."""
    if isinstance(v, bool):
        return [not v]
    if v in VERDICTS:  # a verdict of the decision standard moves to each other verdict
        return [w for w in VERDICTS if w != v] + [v + "-moved", None]
    if v is None or isinstance(v, str):
        return ["another" if v is None else v + "-moved", None]
    counts = [0, 1, v - 1, v + 1, 2 * v] if isinstance(v, int) else []
    v = float(v)
    steps = [-v, 10 * v, v / 10, 0.0, 1.0 - v, v + 1, v - 1, v + 0.5, v - 0.5, v + 0.05, v - 0.05]
    relative = [v * 0.95, v * 1.05, v * 0.99, v * 1.01]  # relative moves of 5% and 1%
    return counts + steps + relative + threshold_moves(thresholds)


def interval_moves(lo: float, hi: float, thresholds: dict[str, float] | None = None):
    """Moves of an interval ``(lo, hi)``, each with ``lo <= hi``: its midpoint to each
    :func:`_candidates` value (same width), and, whatever the run gave, intervals wholly above
    zero, wholly below it, straddling it, touching it from either side, and points
    (``lo == hi``) at every :func:`threshold_moves` value (so an interval lies above and below
    any reference a words function compares it with)."""
    mid, half = (lo + hi) / 2, (hi - lo) / 2
    out = [(c - half, c + half) for c in _candidates(mid, thresholds)]
    for g in (10.0**k for k in _DECADES):
        out += [(g, 2 * g), (-2 * g, -g), (-g, g), (0.0, g), (-g, 0.0), (-g, 2 * g), (-2 * g, g)]
    out += [(x, x) for x in threshold_moves(thresholds)]
    return out


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _numbers(value) -> list[float]:
    """Every number (not a flag) in a results value, in file order."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return [x for v in items for x in _numbers(v)]


def file_numbers(results) -> list[float]:
    """Every number of the chapter's results (provenance left out), each once: a value compared
    for equality or closeness with another computed value (a calibrated constant, a row of
    another rule) flips when moved onto it."""
    skip = {"software", "checks", "data_source", "rankaudit_version"}
    return list(dict.fromkeys(_numbers({k: v for k, v in results.items() if k not in skip})))


def _entries(node) -> list:
    """``(key, value)`` pairs of a record, or ``(index, value)`` of a list of values."""
    return list(node.items()) if isinstance(node, dict) else list(enumerate(node))


def _leaf(results, path):
    """The value at ``path`` (None for an interval or a missing field)."""
    node, field = _node(results, path), path[2]
    if isinstance(field, tuple):
        return None
    return dict(_entries(node)).get(field)


def _siblings(node, field) -> list[float]:
    """The other numbers of the record holding the value (a count's total, say)."""
    return [
        float(v)
        for k, v in _entries(node)
        if k != field and isinstance(v, (int, float)) and not isinstance(v, bool)
    ]


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


def _perturbed(results, path, thresholds: dict[str, float] | None = None, *, broad: bool = True):
    """Copies of ``results`` with the value at ``path`` moved to each candidate (one copy,
    moved and put back in turn). A field pair ``(low, high)`` is an interval: it moves as a
    whole (:func:`interval_moves`). ``broad=False`` leaves out the moves to every other number
    of the file (the largest set), for a first, quicker pass of :func:`flips`."""
    out = copy.deepcopy(results)
    node = _node(out, path)
    field = path[2]
    if isinstance(field, tuple):
        lo, hi = (float(node[f]) for f in field)
        values = [{field[0]: a, field[1]: b} for a, b in interval_moves(lo, hi, thresholds)]
    else:
        v = node[field]
        moves = _candidates(v, thresholds) + _neighbours(results, path)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            moves += _siblings(node, field) + (file_numbers(results) if broad else [])
        values = [{field: c} for c in dict.fromkeys(moves)]
        if isinstance(v, str):  # a name moved to another name of the same record
            values += [{field: w} for k, w in _entries(node) if k != field and isinstance(w, str)]
    keep = {f: node[f] for f in values[0]} if values else {}
    for update in values:
        for f, w in update.items():
            node[f] = w
        yield out
        for f, w in keep.items():
            node[f] = w


def glued_values(notebook: dict) -> dict[str, str]:
    """``{name: text/plain repr}`` of every value a notebook glued (MyST-NB's scrapbook records)."""
    out = {}
    for cell in notebook["cells"]:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:
                out[name] = o["data"].get(o["metadata"]["scrapbook"]["mime_prefix"] + "text/plain")
    return out


def _words_moved(words, states):
    """The words of each state a words function accepts (``ValueError``: refused as invalid
    input; ``ArithmeticError``: a division by a value moved to 0; ``TypeError``: a name moved
    to None that a words cell sorts or compares; ``LookupError``: a table made inconsistent,
    such as a run moved to a cluster size no other layout has), lazily."""
    for state in states:
        try:
            yield words(state)
        except (ValueError, ArithmeticError, TypeError, LookupError):
            continue


def _with_verdicts(node, verdict: str):
    """A copy of ``node`` with every verdict string of the decision standard in it set to
    ``verdict`` (names and other strings kept)."""
    if isinstance(node, dict):
        return {k: _with_verdicts(v, verdict) for k, v in node.items()}
    if isinstance(node, list):
        return [_with_verdicts(v, verdict) for v in node]
    return verdict if isinstance(node, str) and node in VERDICTS else node


def contexts(results, path, thresholds: dict[str, float] | None = None):
    """States of ``results`` in which a value read jointly with others can flip a word alone:
    the numbers of its record, the same field of every record of its list, or every number of
    those records, all set to one value ``c`` (the value as it stands, 0, 1 or a threshold). A
    word such as "identical" over the largest gap of several rows, or "a perfect score" over
    the smaller of two scores, flips with one of them only when the others sit at the same
    place; :func:`flips` then compares each such state with the same state in which only
    ``path``'s value moved. Last, every verdict of the file set to one verdict in turn: a
    power printed only beside a verdict that is not resolved (another record's) flips then. A
    flag: the same field of every record of its list set to True, then to False
    (:func:`flag_contexts`)."""
    field = path[2]
    v = _leaf(results, path)
    if isinstance(v, bool):
        yield from flag_contexts(results, path)
        return
    if not isinstance(v, (int, float)):
        return
    key, index, _ = path
    steps = index if isinstance(index, tuple) else () if index is None else (index,)
    values = [float(v), 0.0, 1.0, *(THRESHOLDS if thresholds is None else thresholds).values()]
    for c in dict.fromkeys(values):
        record = copy.deepcopy(results)
        node = _node(record, path)
        for k, w in _entries(node):
            if _is_number(w):
                node[k] = c
        yield record
        if steps and isinstance(steps[-1], int):
            for only in (field, None):  # this field of every record, then all their numbers
                table = copy.deepcopy(results)
                for row in _node(table, (key, steps[:-1] or None, field)):
                    for k, w in row.items() if isinstance(row, dict) else ():
                        if (only in (None, k)) and _is_number(w):
                            row[k] = c
                yield table
    for verdict in VERDICTS:
        yield _with_verdicts(results, verdict)


def flag_contexts(results, path):
    """States in which a flag read jointly with the same flag of other records can flip a word
    alone: that field of every record of its list set to True, then to False. A model counted
    as unsettled when its place is not settled at some precision of a sweep stays so when one
    of its several unsettled flags moves; with every other flag settled, that one decides."""
    key, index, field = path
    steps = index if isinstance(index, tuple) else () if index is None else (index,)
    if not steps or not isinstance(steps[-1], int):
        return
    for c in (True, False):
        table = copy.deepcopy(results)
        for row in _node(table, (key, steps[:-1] or None, field)):
            if isinstance(row, dict) and isinstance(row.get(field), bool):
                row[field] = c
        yield table


def joint_contexts(results, path, others, thresholds: dict[str, float] | None = None):
    """States in which the other values the words read (``others``, depends paths, wherever
    they sit in the results) are all set to one value ``c`` (0, 1 or a threshold), the value at
    ``path`` kept: a count of draws moves a p-value's words only when the p-value sits at its
    floor ``1 / (P + 1)``, which a p-value of 0 reaches whatever ``P`` is."""
    values = [0.0, 1.0, *(THRESHOLDS if thresholds is None else thresholds).values()]
    for c in dict.fromkeys(values):
        record = copy.deepcopy(results)
        for other in others:
            if other == path or isinstance(other[2], tuple):
                continue
            node = _node(record, other)
            if _is_number(_leaf(record, other)):
                node[other[2]] = c
        yield record


def flips(
    words, results, path, thresholds: dict[str, float] | None = None, others=()
) -> bool:
    """True when some move of the value at ``path`` alone changes the words: in the results as
    they stand, or in one of the :func:`contexts` or :func:`joint_contexts` (with ``others``,
    the other values the words read) (same state, only this value moved). ``thresholds``: the
    ones the moves span, by default the decision module's; a chapter's test adds its words
    module's own (:func:`module_thresholds`). A move the words function refuses as invalid
    input is skipped."""
    base = words(results)
    # the same search twice: first without the moves to every other number of the file (most
    # flips are found there, quickly), then with them; the answer is the second pass's alone
    for broad in (False, True):
        moved = _words_moved(words, _perturbed(results, path, thresholds, broad=broad))
        if any(w != base for w in moved):
            return True
        states = itertools.chain(
            contexts(results, path, thresholds), joint_contexts(results, path, others, thresholds)
        )
        for state in states:
            for here in _words_moved(words, [state]):
                moved = _words_moved(words, _perturbed(state, path, thresholds, broad=broad))
                if any(w != here for w in moved):
                    return True
    return False


def unflipped(words, results, depends) -> list:
    """The entries of ``depends`` that no move flips a word of ``words`` for (thresholds: the
    decision module's and the numbers the words cells state, :func:`module_thresholds`)."""
    thresholds = THRESHOLDS | module_thresholds(words)
    return [path for path in depends if not flips(words, results, path, thresholds, depends)]


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


def _p_text(r):
    """A p-value's words as printed: its count of draws matters only at the floor."""
    from rankbook.report.prose import p_value_phrase

    return {"w": p_value_phrase(r["p"], r["params"]["n_perm"])}


def test_a_count_that_moves_words_only_with_another_record_s_value_still_flips():
    """``n_perm`` changes the printed p only when the p-value (in another record) sits at its
    floor; with the p-value at 0.55 no move of ``n_perm`` alone reaches it."""
    results = {"p": 0.55, "params": {"n_perm": 500, "seed": 7}}
    depends = [(None, None, "p"), ("params", None, "n_perm")]
    assert not flips(_p_text, results, ("params", None, "n_perm"))
    assert flips(_p_text, results, ("params", None, "n_perm"), others=depends)
    assert unflipped(_p_text, results, depends) == []
    # a value the words never read still never flips, whatever the others sit at
    assert unflipped(_p_text, results, [*depends, ("params", None, "seed")]) == [
        ("params", None, "seed")
    ]


def _unsettled_models(r):
    """How many models are unsettled at some precision: one word over several flags."""
    return {"w": str(len({x["model"] for x in r["places"] if not x["settled"]}))}


def test_a_flag_read_with_the_same_flag_of_other_records_flips():
    """Model "a" is unsettled at two precisions: neither flag alone moves the count as the
    results stand, each does once the other flags are all settled (or all unsettled)."""
    results = {"places": [{"model": "a", "settled": False}, {"model": "a", "settled": False},
                          {"model": "b", "settled": True}]}
    base = _unsettled_models(results)
    for path in (("places", 0, "settled"), ("places", 1, "settled")):
        assert all(_unsettled_models(s) == base for s in _perturbed(results, path))
        assert flips(_unsettled_models, results, path)
    assert unflipped(_unsettled_models, results, [("places", 0, "settled")]) == []
    # a flag no word reads still never flips
    spare = {"places": [{"model": "a", "settled": False, "spare": True}]}
    assert not flips(_unsettled_models, spare, ("places", 0, "spare"))


def page_results(smoke_book, stem: str) -> tuple[dict, dict]:
    """``(page, read)``: the results the executed page was computed from, and the results every
    other check reads. They differ only under the ±5% switch (``RANKBOOK_PERTURB_RESULTS``, see
    ``tests/perturbed_results.py``): the page glued the words of the unmoved numbers, kept
    beside the moved file, while the flip check reads the moved ones."""
    moved = smoke_book.paths.results / f"{stem}.json"
    kept = unperturbed_path(moved)
    read = json.loads(moved.read_text())
    return (json.loads(kept.read_text()) if kept.exists() else read), read


@pytest.mark.parametrize("stem", sorted(WORDS))
def test_page_words_are_on_the_page_and_flip(smoke_book, stem):
    assert stem not in smoke_book.failures, smoke_book.failures.get(stem)
    page, results = page_results(smoke_book, stem)
    words = WORDS[stem](page)
    glued = glued_values(json.loads((smoke_book.paths.executed / f"{stem}.ipynb").read_text()))
    for key, text in words.items():
        assert glued.get(key) == repr(text), (
            f"{stem}: {key!r} glued {glued.get(key)!r}, not {text!r}"
        )
    depends = depends_of(stem, results)
    assert depends, f"{stem}: no value listed for its words"
    stuck = unflipped(WORDS[stem], results, depends)
    assert not stuck, f"{stem}: no word depends on {stuck}"


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
    glued under a name its words cells glue, unless it is a plain identifier (one
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
    results, _ = page_results(smoke_book, stem)  # the page's own words, beside its glue
    words = WORDS[stem](results) if stem in WORDS else {}
    glued = glued_values(json.loads((smoke_book.paths.executed / f"{stem}.ipynb").read_text()))
    stray = stray_words(glued, words, results)
    assert not stray, f"{stem}: glued strings not from page_words: {stray}"


# --- the moves span every threshold, wherever the run put a value ---

#: starting values far from and near every threshold (a run can put a number anywhere).
_STARTS = [0.0, 1e-12, 0.049, 0.05, 0.3, 0.51, 0.99, 1.0, 7.5, -2.63, 4.2e5]


@pytest.mark.parametrize("v", _STARTS)
def test_moves_reach_every_word_of_the_threshold_functions(v):
    """From any start, the moves give every word each prose and decision function can give."""
    moves = _candidates(v)
    unit = [c for c in moves if 0.0 <= c <= 1.0]
    assert {share_word(c) for c in unit} == {"none", "few", "a minority", "most", "all"}
    assert {direction_verdict(0.1, c) for c in unit} == {RESOLVED_ABOVE, NOT_RESOLVED}
    assert {direction_verdict(c, 0.0) for c in moves} == {
        RESOLVED_ABOVE, RESOLVED_BELOW, NOT_RESOLVED,
    }
    assert {claim_verdict(RESOLVED_ABOVE, RESOLVED_BELOW, c) for c in unit} == {
        CONTRADICTS, NOT_RESOLVED,
    }
    assert {expectation_verdict(c) for c in moves} == {MATCHES_EXPECTATION, DEPARTS_EXPECTATION}
    assert {size_word(c, 1.0) for c in moves} == {"small", "not small"}
    assert {direction_word(c) for c in moves} == {"rises", "falls", "does not move"}


@pytest.mark.parametrize("name", sorted(THRESHOLDS))
def test_moves_land_at_each_threshold_and_on_both_sides(name):
    t = THRESHOLDS[name]
    for v in _STARTS:
        moves = _candidates(v)
        assert t in moves
        assert any(t * (1 - 1e-3) < c < t for c in moves)
        assert any(t < c < t * (1 + 1e-3) for c in moves)


def test_moves_cross_a_words_modules_own_threshold():
    """A threshold a chapter's words module states (here a budget of 180 s) is read from it."""
    import types

    module = types.ModuleType("fake_words")
    module.BUDGET_SECONDS = 180.0
    module.VERBOSE = True  # a flag, not a threshold
    source = "def words(r):\n    return {'w': 'in' if r['s'] <= BUDGET_SECONDS else 'out'}\n"
    exec(source, module.__dict__)
    sys.modules["fake_words"] = module
    try:
        assert module_thresholds(module.words) == {"BUDGET_SECONDS": 180.0}
        assert not unflipped(module.words, {"s": 180.0}, [(None, None, "s")])
    finally:
        del sys.modules["fake_words"]


@pytest.mark.parametrize(
    "lo, hi", [(-2.63, 2.33), (0.1, 0.2), (-5.0, -4.0), (0.0, 0.0), (-1e-9, 1e6)]
)
def test_interval_moves_keep_order_and_lie_above_below_and_across_zero(lo, hi):
    moves = interval_moves(lo, hi)
    assert all(a <= b for a, b in moves)
    assert {covers_word(a, b) for a, b in moves} == {"includes zero", "excludes zero"}
    assert any(a > 0 for a, _ in moves) and any(b < 0 for _, b in moves)
    for ref in (-250.0, 0.0, 0.1702, 3e4):  # any reference an interval is compared with
        where = {interval_phrase(a, b, ref).rsplit(" ", 1)[0] for a, b in moves}
        assert where == {"lies above", "lies below", "includes"}


def _straddling_rows() -> dict:
    """Chapter 11's failure on another CPU: row 1's interval [-2.63, 2.33] and both neighbours'
    include zero, so no move of its midpoint by ±5%, ±0.05 or to a neighbour excludes zero."""
    rows = [(-2.9, 2.1), (-2.63, 2.33), (-2.4, 2.6)]
    return {"t": [{"ci_low": a, "ci_high": b, "n": 200} for a, b in rows]}


def _significant_rows(r) -> dict:
    n = sum(covers_word(x["ci_low"], x["ci_high"]) == "excludes zero" for x in r["t"])
    return {"w": count_phrase(n, len(r["t"]), "rows")}


def test_an_interval_straddling_zero_among_neighbours_that_do_still_flips():
    assert flips(_significant_rows, _straddling_rows(), ("t", 1, ("ci_low", "ci_high")))


def test_a_count_moves_to_none_one_and_all_of_its_record():
    seen = set()
    for state in _perturbed({"c": {"k": 3, "n": 8}}, ("c", None, "k")):
        k = state["c"]["k"]
        if float(k).is_integer() and 0 <= k <= 8:
            seen.add(count_phrase(int(k), 8, "rows"))
    assert {"none of the 8 rows", "1 of 8 rows", "all 8 rows"} <= seen


def _two_rows(r) -> dict:
    """Words of two records, reading ``share`` and the interval, never ``spare``."""
    a, b = r["rows"]
    return {
        "share": share_word(a["share"]),
        "sig": covers_word(b["ci_low"], b["ci_high"]),
        "perfect": same_word(min(r["top"]["hr"], r["top"]["ndcg"]), 1.0),
        "same": threshold_word(
            max(abs(x["io"] - x["opt"]) for x in r["rows"]), 1e-9, inclusive=True
        ),
    }


def test_a_wrong_depends_entry_fails():
    """The check can fail: a DEPENDS entry naming a value no word reads is the one reported,
    even in a record (and a list) whose other values the words read, and wherever the run put
    the values around it."""
    results = {
        "rows": [
            {"share": 0.3, "ci_low": -1.0, "ci_high": 1.0, "io": 0.5, "opt": 0.52, "spare": 0.4},
            {"share": 0.7, "ci_low": -2.0, "ci_high": 2.0, "io": 0.6, "opt": 0.63, "spare": 0.9},
        ],
        "top": {"hr": 0.97, "ndcg": 0.96, "spare": 0.5},
    }
    right = [
        ("rows", 0, "share"),
        ("rows", 1, ("ci_low", "ci_high")),
        ("top", None, "hr"),  # "perfect" reads the smaller of two: both below 1 here
        ("rows", 0, "opt"),  # "same" reads the largest of two gaps: both above 1e-9 here
        ("rows", 1, "io"),
    ]
    wrong = [("rows", 0, "spare"), ("rows", 1, "spare"), ("top", None, "spare")]
    assert unflipped(_two_rows, results, right + wrong) == wrong
    assert unflipped(_two_rows, results, [("rows", 0, ("ci_low", "ci_high"))]) == [
        ("rows", 0, ("ci_low", "ci_high"))
    ]


def test_a_name_used_only_to_find_a_record_is_not_a_dependency():
    """A table's ``statistic`` names read into a dict are lookup keys; a verdict string, or a
    name whose value the words print, is a dependency."""
    results = {
        "rows": [{"statistic": "a", "v": 0.2}, {"statistic": "b", "v": 0.7}],
        "verdict": VERDICTS[0],
        "model": "bpr",
    }

    def words(r):
        rows = {row["statistic"]: row for row in r["rows"]}
        return {"w": share_word(rows["b"]["v"]), "v": r["verdict"], "m": r["model"]}

    assert lookup_key(words, results, ("rows", 0, "statistic"))  # read, never flips
    assert lookup_key(words, results, ("rows", 1, "statistic"))  # moved: KeyError
    assert not lookup_key(words, results, (None, None, "verdict"))
    assert not lookup_key(words, results, (None, None, "model"))
    assert not lookup_key(words, results, ("rows", 1, "v"))


def test_a_power_printed_only_beside_an_unresolved_verdict_flips():
    """A power read beside a verdict kept in another record is printed only when that verdict
    is not resolved: it flips once every verdict of the file is set to one verdict."""
    results = {"rows": [{"verdict": RESOLVED_ABOVE}], "power": [{"power": 0.4}]}

    def words(r):
        return {"w": verdict_with_power(r["rows"][0]["verdict"], r["power"][0]["power"])}

    assert flips(words, results, ("power", 0, "power"))
