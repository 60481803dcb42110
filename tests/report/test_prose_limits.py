"""Each word of rankbook.report.prose_limits flips when its number crosses the limit."""

from __future__ import annotations

import pytest

from rankbook.report.prose_limits import best_name, covers_word, order_word, within_word


def test_within_word_flips_at_the_limit():
    assert within_word(0.99, 1.0, words=("agrees", "does not agree")) == "agrees"
    assert within_word(-1.0, 1.0, words=("agrees", "does not agree")) == "agrees"
    assert within_word(1.01, 1.0, words=("agrees", "does not agree")) == "does not agree"
    assert within_word(-1.5, 1.0) == "no"
    assert within_word(0.0, 1e-12) == "yes"
    assert within_word(2e-12, 1e-12) == "no"
    with pytest.raises(ValueError, match="limit"):
        within_word(0.0, -1.0)
    with pytest.raises(ValueError, match="value"):
        within_word(float("nan"), 1.0)


def test_order_word_flips_with_the_order():
    assert order_word(0.3, 0.1) == "above"
    assert order_word(0.1, 0.3) == "below"
    assert order_word(0.2, 0.2) == "level with"
    assert order_word(2, 1, words=("more", "fewer", "as many")) == "more"
    with pytest.raises(ValueError, match="b"):
        order_word(1.0, float("inf"))


def test_best_name_follows_the_largest_and_refuses_ties():
    assert best_name({"a": 0.1, "b": 0.3}) == "b"
    assert best_name({"a": 0.4, "b": 0.3}) == "a"
    assert best_name({"a": 0.1, "b": 0.3}, largest=False) == "a"
    with pytest.raises(ValueError, match="tie"):
        best_name({"a": 0.3, "b": 0.3})
    with pytest.raises(ValueError, match="at least one"):
        best_name({})


def test_covers_word_flips_when_the_interval_leaves_the_value():
    assert covers_word(-0.1, 0.2) == "includes zero"
    assert covers_word(0.1, 0.2) == "excludes zero"
    assert covers_word(-0.3, -0.1) == "excludes zero"
    assert covers_word(0.0, 0.2) == "includes zero"
    assert covers_word(1.0, 2.0, 1.5, words=("in", "out")) == "in"
    with pytest.raises(ValueError, match="ci_low"):
        covers_word(0.3, 0.1)


@pytest.mark.parametrize(
    ("requested", "eligible", "n_rows", "clause"),
    [
        (30_000, 22_146, 22_146, "every one of them: 22,146 rows, fewer than the 30,000 that"),
        (5_000, 22_146, 5_000, "draws 5,000 of them at random, as many as parameter n_rows"),
        (22_146, 22_146, 22_146, "22,146 rows, exactly as many as parameter n_rows asks for"),
        (None, 22_146, 22_146, 'every one of them: 22,146 rows (parameter n_rows is "all")'),
    ],
)
def test_sample_rows_phrase_says_what_was_taken_against_what_was_asked(
    requested, eligible, n_rows, clause
):
    from rankbook.report.prose_limits import sample_rows_phrase

    policy = {"n_rows_requested": requested, "n_eligible": eligible, "n_rows": n_rows}
    assert clause in sample_rows_phrase(policy, "n_rows")
    if requested is not None:  # "all" needs no comparison, so a bad count is not read there
        with pytest.raises(ValueError):
            sample_rows_phrase({**policy, "n_eligible": float("nan")}, "n_rows")
