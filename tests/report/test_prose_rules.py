"""Each word of rankbook.report.prose_rules flips when its value crosses its threshold."""

from __future__ import annotations

import pytest

from rankbook.report.prose import flag_word, list_phrase
from rankbook.report.prose_rules import threshold_word


def test_threshold_word_flips_at_the_threshold():
    assert threshold_word(1.9, 2.0) == "below"
    assert threshold_word(2.1, 2.0) == "not below"
    assert threshold_word(2.0, 2.0) == "not below"
    assert threshold_word(2.0, 2.0, inclusive=True) == "below"
    words = ("holds", "does not hold")
    assert threshold_word(1e-16, 1e-12, words=words, inclusive=True) == "holds"
    assert threshold_word(1e-3, 1e-12, words=words, inclusive=True) == "does not hold"


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_threshold_word_refuses_non_finite(bad):
    with pytest.raises(ValueError, match="finite"):
        threshold_word(bad, 1.0)
    with pytest.raises(ValueError, match="finite"):
        threshold_word(1.0, bad)


def test_flag_word_flips_with_the_flag():
    assert flag_word(True) == "yes"
    assert flag_word(False) == "no"
    assert flag_word(1) == "yes" and flag_word(0.0) == "no"
    assert flag_word(False, words=("within", "not within")) == "not within"


@pytest.mark.parametrize("bad", [0.5, 2, "yes", None, -1.0])
def test_flag_word_refuses_what_is_not_a_flag(bad):
    with pytest.raises(ValueError, match="flag"):
        flag_word(bad)


def test_list_phrase_joins_and_says_when_empty():
    assert list_phrase([], empty="none") == "none"
    with pytest.raises(ValueError):
        list_phrase([])
    assert list_phrase([], empty="no rule") == "no rule"
    assert list_phrase(["hash"]) == "hash"
    assert list_phrase(["hash", "expected"]) == "hash and expected"
    assert list_phrase(["a", "b", "c"]) == "a, b and c"
