"""Each word function of the prose modules at its threshold, just below and just above it, and
NaN and the infinities refused with an error naming the argument.

The thresholds are read from the modules (:mod:`rankbook.report.decision`), never typed; "just
below" and "just above" are the neighbouring floats (``math.nextafter``), so a ``<`` that should
be ``<=`` fails here whatever a chapter's run gives.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankaudit.runs.decision import NOT_RESOLVED, RESOLVED_ABOVE, VERDICTS
from rankbook.report.decision import (
    ALPHA,
    FEW_BELOW,
    MOST_ABOVE,
    SMALL_RATIO,
    n_resolved,
    verdict_with_power,
)
from rankbook.report.prose import (
    comparison_word,
    count_phrase,
    difference_phrase,
    direction_word,
    gap_phrase,
    interval_phrase,
    number_text,
    p_value_phrase,
    plural_phrase,
    power_of_ten,
    share_word,
    signed_phrase,
    size_word,
)
from rankbook.report.prose_limits import (
    best_name,
    covers_word,
    first_phrase,
    name_word,
    order_word,
    ratio_list_phrase,
    sample_rows_phrase,
    template_phrase,
    within_word,
)
from rankbook.report.prose_rules import threshold_word
from tests.thresholds import NON_FINITE, above, below

# --- both sides of every threshold, and at it ---


@pytest.mark.parametrize(
    "frac, word",
    [
        (0.0, "none"),
        (above(0.0), "few"),
        (below(FEW_BELOW), "few"),
        (FEW_BELOW, "a minority"),
        (above(FEW_BELOW), "a minority"),
        (below(MOST_ABOVE), "a minority"),
        (MOST_ABOVE, "a minority"),
        (above(MOST_ABOVE), "most"),
        (below(1.0), "most"),
        (1.0, "all"),
    ],
)
def test_share_word_at_and_beside_each_threshold(frac, word):
    assert share_word(frac) == word


@pytest.mark.parametrize(
    "few, most, frac, word",
    [(0.2, 0.8, 0.2, "a minority"), (0.2, 0.8, below(0.2), "few"), (0.2, 0.8, 0.8, "a minority"),
     (0.2, 0.8, above(0.8), "most"), (0.3, 0.3, 0.3, "a minority"), (0.3, 0.3, above(0.3), "most")],
)
def test_share_word_reads_the_callers_thresholds(few, most, frac, word):
    assert share_word(frac, few_below=few, most_above=most) == word


@pytest.mark.parametrize("tol", [0.0, 0.25])
def test_direction_word_at_and_beside_its_tolerance(tol):
    assert direction_word(tol, tol=tol) == direction_word(-tol, tol=tol) == "does not move"
    assert direction_word(above(tol), tol=tol) == "rises"
    assert direction_word(below(-tol), tol=tol) == "falls"
    if tol > 0:  # inside the band, beside its ends
        assert direction_word(below(tol), tol=tol) == "does not move"
        assert direction_word(above(-tol), tol=tol) == "does not move"


@pytest.mark.parametrize(
    "delta, text",
    [(0.005, "does not move"), (-0.005, "does not move"), (above(0.005), "rises by 0.01%"),
     (below(-0.005), "falls by 0.01%"), (0.0, "does not move")],
)
def test_signed_phrase_at_and_beside_its_rounding(delta, text):
    """Half a unit of the last digit is the threshold: a delta that prints as 0.00 does not move."""
    assert signed_phrase(delta) == text


@pytest.mark.parametrize("reference", [1.0, -3.0, 250.0])
@pytest.mark.parametrize(
    "where, word", [(below, "small"), (None, "not small"), (above, "not small")]
)
def test_size_word_at_and_beside_its_ratio(reference, where, word):
    edge = SMALL_RATIO * abs(reference)
    value = edge if where is None else where(edge)
    assert size_word(value, reference) == word
    assert size_word(-value, reference) == word


@pytest.mark.parametrize("n_perm, sides", [(1000, 1), (1000, 2), (199, 2), (5000, 1)])
def test_p_value_phrase_at_and_beside_its_floor(n_perm, sides):
    floor = sides / (n_perm + 1)
    assert p_value_phrase(floor, n_perm, sides=sides).startswith("p ≤ ")
    assert p_value_phrase(below(floor), n_perm, sides=sides).startswith("p ≤ ")
    assert p_value_phrase(floor * 1.01, n_perm, sides=sides).startswith("p = ")


@pytest.mark.parametrize(
    "p, text", [(0.001, "p = 0.001"), (below(0.001), "p = 0.001"), (0.00099, "p = 0.00099"),
                (1.0, "p = 1.000")],
)
def test_p_value_phrase_at_and_beside_three_decimals(p, text):
    assert p_value_phrase(p) == text


@pytest.mark.parametrize(
    "a, b, word",
    [(1.0, 1.0, "equal to"), (below(1.0), 1.0, "smaller than"), (above(1.0), 1.0, "larger than")],
)
def test_comparison_word_at_and_beside_its_reference(a, b, word):
    assert comparison_word(a, b) == word


@pytest.mark.parametrize("ref", [0.0, 0.1702, -2.5])
def test_interval_phrase_at_and_beside_its_reference(ref):
    w = 1.0
    assert interval_phrase(ref, ref + w, ref).startswith("includes")
    assert interval_phrase(above(ref), ref + w, ref).startswith("lies above")
    assert interval_phrase(ref - w, ref, ref).startswith("includes")
    assert interval_phrase(ref - w, below(ref), ref).startswith("lies below")
    assert interval_phrase(ref, ref, ref).startswith("includes")


@pytest.mark.parametrize(
    "gap, equal", [(0.0, True), (5e-324, False), (1e-16, False)]
)
def test_difference_and_gap_phrases_at_zero_and_beside_it(gap, equal):
    assert (difference_phrase(gap) == "are exactly equal") == equal
    assert (gap_phrase(gap) == "no difference at all") == equal


@pytest.mark.parametrize("n", [1, 2, 3, 40])
def test_count_phrase_at_none_one_and_all(n):
    words = {k: count_phrase(k, n, "rows") for k in range(n + 1)}
    assert words[n] in ({1: "the one rows", 2: "both rows"}.get(n, f"all {n} rows"),)
    assert words[0] in ({1: "not the one rows", 2: "neither of the 2 rows"}.get(
        n, f"none of the {n} rows"),)
    assert len(set(words.values())) == n + 1  # every k reads differently
    assert count_phrase(3.0, 4.0) == "3 of 4"  # a JSON count read as a float


@pytest.mark.parametrize("k, n", [(0, 0), (0, 1), (1, 1), (0, 2)])
def test_count_phrase_reads_its_empty_clause_at_n_zero_only(k, n):
    """``empty`` is the clause for nothing to count (n = 0); from n = 1 on the count reads as
    without it, and without it n = 0 is refused."""
    empty = "there is nothing to count"
    if n == 0:
        assert count_phrase(k, n, "rows", verb=("is", "are"), empty=empty) == empty
        with pytest.raises(ValueError, match="n >= 1"):
            count_phrase(k, n, "rows")
    else:
        assert count_phrase(k, n, "rows", empty=empty) == count_phrase(k, n, "rows") != empty
    with pytest.raises(ValueError, match="0 <= k <= n"):
        count_phrase(n + 1, n, empty=empty)  # more counted than there are, empty or not


@pytest.mark.parametrize(
    "k, n, noun, phrase",
    [
        (0, 0, "pairs", "no pair is a resolved swap"),
        (0, 1, "pair", "not the one pair is a resolved swap"),
        (1, 1, "pair", "the one pair is a resolved swap"),
        (0, 2, "pairs", "neither of the 2 pairs is a resolved swap"),
    ],
)
def test_count_phrase_empty_at_nothing_to_count_and_beside_it(k, n, noun, phrase):
    """``empty`` is the clause at ``n == 0`` only; from one thing to count on, the count."""
    verb = ("is a resolved swap", "are resolved swaps")
    assert count_phrase(k, n, noun, verb=verb, empty="no pair is a resolved swap") == phrase
    if n == 0:  # without it, nothing to count is refused
        with pytest.raises(ValueError, match="count_phrase"):
            count_phrase(k, n, noun, verb=verb)


@pytest.mark.parametrize("n, noun", [(0, "rows"), (1, "row"), (2, "rows")])
def test_plural_phrase_at_one_and_beside_it(n, noun):
    assert plural_phrase(n, "row", "rows") == f"{n} {noun}"


@pytest.mark.parametrize("n, phrase", [(0, "no row"), (1, "1 row"), (2, "2 rows")])
def test_plural_phrase_says_its_zero_clause_at_zero_only(n, phrase):
    assert plural_phrase(n, "row", "rows", zero="no row") == phrase


@pytest.mark.parametrize("limit", [0.0, 1e-12, 1.0])
def test_within_word_at_and_beside_its_limit(limit):
    assert within_word(limit, limit) == within_word(-limit, limit) == "yes"
    assert within_word(above(limit), limit) == within_word(-above(limit), limit) == "no"
    assert within_word(below(limit), limit) == "yes" or limit == 0.0


@pytest.mark.parametrize(
    "a, b, word", [(1.0, 1.0, "level with"), (above(1.0), 1.0, "above"), (below(1.0), 1.0, "below")]
)
def test_order_word_at_and_beside(a, b, word):
    assert order_word(a, b) == word


def test_order_word_names_a_missing_value_only_when_asked():
    words = ("more", "fewer", "as many")
    assert order_word(3.0, 2.0, words=words, missing="all") == "more"
    assert order_word(2.0, 3.0, words=words, missing="all") == "fewer"
    assert order_word(2.0, 2.0, words=words, missing="all") == "as many"
    for a, b in ((None, 2.0), (2.0, None), (None, None)):
        assert order_word(a, b, words=words, missing="all") == "all"
    for a, b, name in ((None, 2.0, "a"), (2.0, None, "b")):
        with pytest.raises(ValueError, match=name):
            order_word(a, b, words=words)


@pytest.mark.parametrize("value", [0.0, 0.25, -1.0])
def test_covers_word_at_each_end_and_beside_it(value):
    assert covers_word(value, value + 1.0, value) == "includes zero"
    assert covers_word(value - 1.0, value, value) == "includes zero"
    assert covers_word(above(value), value + 1.0, value) == "excludes zero"
    assert covers_word(value - 1.0, below(value), value) == "excludes zero"


@pytest.mark.parametrize("inclusive", [False, True])
@pytest.mark.parametrize("t", [0.0, 1e-12, 2.0, -5.0])
def test_threshold_word_at_and_beside_its_threshold(t, inclusive):
    assert threshold_word(below(t), t, inclusive=inclusive) == "below"
    assert threshold_word(t, t, inclusive=inclusive) == ("below" if inclusive else "not below")
    assert threshold_word(above(t), t, inclusive=inclusive) == "not below"


def test_ratio_list_phrase_lists_each_ratio_and_says_when_none_was_measured():
    assert ratio_list_phrase({}, empty="not measured") == "not measured"
    assert ratio_list_phrase({"a": 1.5}, empty="-") == "1.50x (a)"
    assert ratio_list_phrase({"a": above(1.0), "b": below(1.0)}, empty="-") == (
        "1.00x (a) and 1.00x (b)"
    )
    assert ratio_list_phrase({"a": 1.523, "b": 0.98, "c": 2.0}, digits=1, empty="-") == (
        "1.5x (a), 1.0x (b) and 2.0x (c)"
    )


def test_best_name_beside_a_tie():
    assert best_name({"a": above(0.3), "b": 0.3}) == "a"
    assert best_name({"a": below(0.3), "b": 0.3}) == "b"
    assert best_name({"a": below(0.3), "b": 0.3}, largest=False) == "a"
    with pytest.raises(ValueError, match="tie"):
        best_name({"a": 0.3, "b": 0.3})


_FIRST = ("from t = {:,} on", "at no block size")


def _first_below_one(hrs: list[float]) -> str:
    points = [{"t": t, "hr": hr} for t, hr in enumerate(hrs, 1)]
    return first_phrase(points, lambda p: p["hr"] < 1, lambda p: p["t"], words=_FIRST)


@pytest.mark.parametrize(
    "hrs, phrase",
    [
        ([1.0, 1.0, 1.0], "at no block size"),  # at the threshold: none below it
        ([1.0, 1.0, below(1.0)], "from t = 3 on"),  # just below it, the last point
        ([1.0, above(1.0), below(1.0)], "from t = 3 on"),  # just above it: not below
        ([below(1.0), 1.0, 0.5], "from t = 1 on"),  # the first point below wins
        ([], "at no block size"),
    ],
)
def test_first_phrase_at_and_beside_its_threshold(hrs, phrase):
    assert _first_below_one(hrs) == phrase


def test_first_phrase_reads_no_item_after_the_first_hit_and_refuses_what_is_no_word():
    read = []

    def where(i):
        read.append(i)
        return i >= 2

    assert first_phrase(range(5), where, lambda i: 1000 * i, words=_FIRST) == "from t = 2,000 on"
    assert read == [0, 1, 2]
    assert first_phrase([0.5], lambda v: np.bool_(v < 1), float, words=_FIRST) == "from t = 0.5 on"
    with pytest.raises(ValueError, match="True or False"):
        first_phrase([1], lambda v: 1, float, words=_FIRST)
    with pytest.raises(ValueError, match="format field"):
        first_phrase([1], lambda v: True, float, words=("from then on", "never"))
    with pytest.raises(ValueError, match="flag"):
        first_phrase([1], lambda v: True, lambda v: True, words=_FIRST)


def test_name_word_names_a_missing_name_only_when_none():
    assert name_word("input order", missing="not audited") == "input order"
    assert name_word("", missing="not audited") == ""  # a recorded empty name is still a name
    assert name_word(None, missing="not audited") == "not audited"
    for bad in (0.0, 1, True):
        with pytest.raises(ValueError, match="name"):
            name_word(bad, missing="not audited")


def test_difference_phrase_names_a_missing_gap_only_when_asked():
    gone = "were not computed"
    assert difference_phrase(None, missing=gone) == gone
    assert difference_phrase(0.0, missing=gone) == "are exactly equal"
    assert difference_phrase(above(0.0), missing=gone).startswith("differ by at most")
    with pytest.raises(ValueError, match="gap"):
        difference_phrase(None)


@pytest.mark.parametrize(
    "rows, text",
    [
        ([], "none"),  # no row: the whole empty clause
        ([None], "none"),  # a record not computed is no row
        ([{"v": "P1", "x": 1.0}], "P1 (+1.00%)"),  # one row: no separator
        ([{"v": "P1", "x": 1.0}, None, {"v": "P2", "x": -0.5}], "P1 (+1.00%); P2 (-0.50%)"),
    ],
)
def test_template_phrase_at_none_one_and_two_rows(rows, text):
    assert template_phrase("{v} ({x:+.2f}%)", rows, empty="none") == text


def test_template_phrase_reads_only_its_fields_and_its_separator():
    rows = [{"a": 2, "b": "y", "unread": float("nan")}, {"a": 12345, "b": "z"}]
    assert template_phrase("{a:,} {b}", rows, sep=", ") == "2 y, 12,345 z"
    assert template_phrase("at commit {c:.3}", [{"c": "9ec7ddf3"}]) == "at commit 9ec"
    with pytest.raises(ValueError, match="at least one row"):
        template_phrase("{a}", [])
    with pytest.raises(ValueError, match="no field 'b'"):
        template_phrase("{a} {b}", [{"a": 1}])
    with pytest.raises(ValueError, match="named format field"):
        template_phrase("no field", [{"a": 1}])
    with pytest.raises(ValueError, match="plain names"):
        template_phrase("{:.2f}", [{"a": 1}])


@pytest.mark.parametrize("verdict", VERDICTS)
@pytest.mark.parametrize("power", [None, 0.0, 0.005, 0.46, 1.0])
def test_verdict_with_power_prints_power_only_beside_a_null(verdict, power):
    text = verdict_with_power(verdict, power)
    if verdict == NOT_RESOLVED and power is not None:
        assert text == f"{NOT_RESOLVED} (power {power:.2f})"
    else:
        assert text == verdict


@pytest.mark.parametrize("power", [0.0035, below(0.005)])
def test_verdict_with_power_never_prints_a_nonzero_power_as_zero(power):
    assert verdict_with_power(NOT_RESOLVED, power) == f"{NOT_RESOLVED} (power < 0.01)"


@pytest.mark.parametrize(
    "p_holm, diff, resolved",
    [
        (below(ALPHA), 0.02, 1),
        (ALPHA, 0.02, 1),  # at the level: resolved
        (above(ALPHA), 0.02, 0),
        (ALPHA, -0.02, 1),  # either side of zero
        (ALPHA, 0.0, 0),  # no difference: never resolved, whatever the p-value
        (ALPHA, above(0.0), 1),
        (ALPHA, below(0.0), 1),
        (None, 0.02, 0),  # not tested
    ],
)
def test_n_resolved_at_and_beside_the_level_and_zero(p_holm, diff, resolved):
    pairs = [dict(measure="nDCG@10", diff=diff, p_holm=p_holm)]
    assert n_resolved(pairs, ALPHA) == resolved
    assert n_resolved(pairs, ALPHA, "nDCG@10") == resolved
    assert n_resolved(pairs, ALPHA, "AP") == 0  # another measure is not counted


def test_n_resolved_counts_each_pair_by_the_direction_verdict():
    pairs = [
        dict(measure="nDCG@10", diff=0.02, p_holm=0.01),  # resolved above zero
        dict(measure="nDCG@10", diff=-0.02, p_holm=0.04),  # resolved below zero
        dict(measure="nDCG@10", diff=0.0, p_holm=0.01),  # no difference: never resolved
        dict(measure="nDCG@10", diff=0.02, p_holm=None),  # not tested
        dict(measure="nDCG@10", diff=0.02, p_holm=0.2),
        dict(measure="AP", diff=0.02, p_holm=0.01),  # another measure
    ]
    assert n_resolved(pairs, 0.05, "nDCG@10") == 2
    assert n_resolved(pairs, 0.03, "nDCG@10") == 1
    assert n_resolved(pairs, 0.05, "AP") == 1
    assert n_resolved(pairs, 0.05) == 3  # every measure
    assert n_resolved([], 0.05) == 0


# --- NaN and the infinities refused, naming the argument ---

#: (call, the argument's name): each call puts its argument ``x`` where that argument goes.
REFUSALS = [
    (lambda x: share_word(x), "frac"),
    (lambda x: share_word(0.3, few_below=x), "few_below"),
    (lambda x: share_word(0.3, most_above=x), "most_above"),
    (lambda x: direction_word(x), "delta"),
    (lambda x: number_text(x), "value"),
    (lambda x: power_of_ten(x), "value"),
    (lambda x: direction_word(0.1, tol=x), "tol"),
    (lambda x: signed_phrase(x), "delta"),
    (lambda x: size_word(x, 1.0), "value"),
    (lambda x: size_word(0.1, x), "reference"),
    (lambda x: size_word(0.1, 1.0, ratio=x), "ratio"),
    (lambda x: p_value_phrase(x, 1000), "p"),
    (lambda x: p_value_phrase(0.5, x), "n_perm"),
    (lambda x: comparison_word(x, 1.0), "value"),
    (lambda x: comparison_word(1.0, x), "reference"),
    (lambda x: interval_phrase(x, 1.0, 0.5), "ci_low"),
    (lambda x: interval_phrase(0.0, x, 0.5), "ci_high"),
    (lambda x: interval_phrase(0.0, 1.0, x), "reference"),
    (lambda x: difference_phrase(x), "gap"),
    (lambda x: gap_phrase(x), "gap"),
    (lambda x: count_phrase(x, 10), "k"),
    (lambda x: count_phrase(1, x), "n"),
    (lambda x: plural_phrase(x, "row", "rows"), "n"),
    (lambda x: within_word(x, 1.0), "value"),
    (lambda x: within_word(0.0, x), "limit"),
    (lambda x: order_word(x, 1.0), "a"),
    (lambda x: order_word(1.0, x), "b"),
    (lambda x: sample_rows_phrase({"n_rows_requested": 5, "n_eligible": x, "n_rows": 5}, "n"),
     "policy['n_eligible']"),
    (lambda x: sample_rows_phrase({"n_rows_requested": x, "n_eligible": 5, "n_rows": 5}, "n"),
     "policy['n_rows_requested']"),
    (lambda x: covers_word(x, 1.0), "ci_low"),
    (lambda x: covers_word(0.0, x), "ci_high"),
    (lambda x: covers_word(0.0, 1.0, x), "value"),
    (lambda x: best_name({"a": x, "b": 0.3}), "values['a']"),
    (lambda x: first_phrase([x], lambda v: True, lambda v: v, words=("{}", "none")), "value"),
    (lambda x: ratio_list_phrase({"a": 1.0, "b": x}, empty="none"), "ratios['b']"),
    (lambda x: template_phrase("{v:.2f}", [{"v": 1.0}, {"v": x}]), "rows[1]['v']"),
    (lambda x: threshold_word(x, 1.0), "value"),
    (lambda x: threshold_word(1.0, x), "threshold"),
    (lambda x: verdict_with_power(NOT_RESOLVED, x), "power"),
    (lambda x: verdict_with_power(RESOLVED_ABOVE, x), "power"),
    (lambda x: n_resolved([dict(diff=0.1, p_holm=x)]), "p_holm"),
    (lambda x: n_resolved([dict(diff=x, p_holm=0.01)]), "estimate"),
    (lambda x: n_resolved([dict(diff=0.1, p_holm=0.01)], x), "alpha"),
]


@pytest.mark.parametrize("bad", NON_FINITE, ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("call, name", REFUSALS, ids=[f"{i}-{n}" for i, (_, n) in
                                                        enumerate(REFUSALS)])
def test_non_finite_input_is_refused_naming_its_argument(call, name, bad):
    with pytest.raises(ValueError) as err:
        call(bad)
    assert name in str(err.value), str(err.value)


def test_every_word_function_has_its_refusal_listed():
    """The table above is complete: each public word function of the modules appears in it."""
    import inspect

    from rankbook.report import prose, prose_limits, prose_rules

    text = inspect.getsource(inspect.getmodule(test_every_word_function_has_its_refusal_listed))
    table = text[text.index("REFUSALS = ["): text.index("\n]\n", text.index("REFUSALS = ["))]
    # words of names and flags, not numbers
    numeric = {"flag_word", "list_phrase", "name_word", "same_word"}
    for module in (prose, prose_limits, prose_rules):
        for name in set(module.__all__) - numeric:
            assert f"{name}(" in table, f"{module.__name__}.{name} has no refusal test"
