"""Each word of rankbook.report.prose flips when its number flips."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankbook.report.prose import (
    count_phrase,
    direction_word,
    p_value_phrase,
    share_word,
    signed_phrase,
    size_word,
)


def test_count_phrase_all_none_some():
    assert count_phrase(24, 24, "points") == "all 24 points"
    assert count_phrase(0, 8, "rows") == "none of the 8 rows"
    assert count_phrase(5, 8) == "5 of 8"
    assert count_phrase(2, 2, "rows") == "both rows"
    assert count_phrase(0, 2) == "neither of the 2"
    assert count_phrase(1, 1, "row") == "the one row"
    assert count_phrase(0, 1, "row") == "not the one row"


def test_count_phrase_verb_agrees_on_zero_one_two_and_many():
    verb = ("is a resolved swap", "are resolved swaps")
    pairs = "swapped pairs"
    assert count_phrase(0, 2, pairs, verb=verb) == (
        "neither of the 2 swapped pairs is a resolved swap"
    )
    assert count_phrase(0, 4, pairs, verb=verb) == "none of the 4 swapped pairs are resolved swaps"
    assert count_phrase(1, 4, pairs, verb=verb) == "1 of 4 swapped pairs is a resolved swap"
    one = count_phrase(1, 1, "swapped pair", verb=verb)
    assert one == "the one swapped pair is a resolved swap"
    assert count_phrase(1, 2, pairs, verb=verb) == "1 of 2 swapped pairs is a resolved swap"
    assert count_phrase(2, 2, pairs, verb=verb) == "both swapped pairs are resolved swaps"
    assert count_phrase(3, 4, pairs, verb=verb) == "3 of 4 swapped pairs are resolved swaps"
    assert count_phrase(40, 40, pairs, verb=verb) == "all 40 swapped pairs are resolved swaps"
    assert count_phrase(3, 4, pairs) == "3 of 4 swapped pairs"  # no verb: the phrase alone


@given(st.integers(1, 50), st.data())
def test_count_phrase_never_only_n_of_n(n, data):
    k = data.draw(st.integers(0, n))
    text = count_phrase(k, n)
    assert f"{n} of {n}" not in text and f"{n} of the {n}" not in text
    assert ("all" in text or "both" in text or "the one" == text) == (k == n)


@pytest.mark.parametrize("k, n", [(-1, 3), (4, 3), (0, 0)])
def test_count_phrase_refuses_bad_counts(k, n):
    with pytest.raises(ValueError, match="count_phrase"):
        count_phrase(k, n)


def test_share_word_flips_at_each_threshold():
    assert share_word(0.0) == "none"
    assert share_word(0.05) == "few"
    assert share_word(0.353) == "a minority"
    assert share_word(0.6) == "most"
    assert share_word(1.0) == "all"
    assert share_word(0.05, few_below=0.01) == "a minority"
    with pytest.raises(ValueError, match="frac"):
        share_word(1.5)


def test_direction_flips_with_the_sign():
    assert direction_word(0.3) == "rises"
    assert direction_word(-0.3) == "falls"
    assert direction_word(0.0) == "does not move"
    assert direction_word(0.3, tol=0.5) == "does not move"
    with pytest.raises(ValueError, match="delta"):
        direction_word(float("nan"))


def test_signed_phrase_reads_right_whatever_the_sign():
    assert signed_phrase(1.234) == "rises by 1.23%"
    assert signed_phrase(-1.234) == "falls by 1.23%"
    assert signed_phrase(0.001) == "does not move"
    above = ("above", "below", "level with")
    assert signed_phrase(0.5, " points", words=above, number_first=True) == "0.50 points above"
    assert signed_phrase(-0.5, " points", words=above, number_first=True) == "0.50 points below"


def test_size_word_needs_a_reference():
    assert size_word(0.1, 1.0) == "small"
    assert size_word(0.9, 1.0) == "not small"
    assert size_word(-0.9, 1.0) == "not small"
    with pytest.raises(ValueError, match="reference"):
        size_word(0.1, 0.0)


def test_p_value_is_never_zero():
    assert p_value_phrase(1 / 1001, 1000) == "p ≤ 0.001 (1,000 permutations)"
    assert p_value_phrase(1 / 5001, 5000) == "p ≤ 0.0002 (5,000 permutations)"
    assert p_value_phrase(0.0421, 1000) == "p = 0.042"
    # a two-sided bootstrap p-value's floor is 2 / (B + 1)
    two = p_value_phrase(2 / 1001, 1000, unit="bootstrap resamples", sides=2)
    assert two == "p ≤ 0.002 (1,000 bootstrap resamples)"
    assert p_value_phrase(0.0421, 1000, sides=2) == "p = 0.042"
    assert p_value_phrase(0.0004) == "p = 0.0004"
    assert p_value_phrase(3e-5) == "p = 3.0 × 10⁻⁵"  # not Python's "3e-05"
    assert p_value_phrase(3e-5, 1_000_000) == "p = 3.0 × 10⁻⁵"
    assert p_value_phrase(1 / 100001, 100000) == "p ≤ 0.00001 (100,000 permutations)"
    # an upper bound (an adjusted p computed from floored p-values): rounded up, never down
    floor = 2 / 2001
    assert p_value_phrase(9 * floor, 2000, sides=2, raw=floor) == "p ≤ 0.009"
    assert p_value_phrase(0.01201, 999, raw=1 / 1000) == "p ≤ 0.013"
    assert p_value_phrase(0.00012, 99999, raw=1e-5) == "p ≤ 0.00012"
    assert p_value_phrase(1.0, 999, raw=1 / 1000) == "p = 1.000"
    assert p_value_phrase(0.02, 999, raw=0.002) == "p = 0.020"  # raw above the floor: exact
    with pytest.raises(ValueError, match="raw"):
        p_value_phrase(0.02, 999, raw=float("nan"))
    with pytest.raises(ValueError, match="n_perm"):
        p_value_phrase(0.0)


@given(st.integers(1, 10**6))
def test_p_value_floor_bound_is_not_below_the_floor(b):
    text = p_value_phrase(1 / (b + 1), b)
    bound = float(text.split("≤ ")[1].split(" ")[0])
    assert bound >= 1 / (b + 1)
    assert "p = 0.000" not in text


def test_comparison_flips_with_its_numbers():
    from rankbook.report.prose import comparison_word

    assert comparison_word(1.0, 2.0) == "smaller than"
    assert comparison_word(2.0, 1.0) == "larger than"
    assert comparison_word(1.0, 1.0) == "equal to"


def test_interval_phrase_flips_as_the_interval_crosses_the_reference():
    from rankbook.report.prose import interval_phrase

    assert interval_phrase(0.175, 0.183, 0.1702, name="the paper's") == (
        "lies above the paper's 0.1702"
    )
    assert interval_phrase(0.16, 0.17, 0.1702) == "lies below 0.1702"
    assert interval_phrase(0.16, 0.18, 0.1702).startswith("includes")
    assert interval_phrase(0.1702, 0.18, 0.1702).startswith("includes")  # touching is inside
    with pytest.raises(ValueError):
        interval_phrase(0.2, 0.1, 0.15)
    with pytest.raises(ValueError, match="reference"):
        interval_phrase(0.1, 0.2, float("nan"))


def test_flag_word_flips_with_its_flag_and_refuses_non_bools():
    import numpy as np

    from rankbook.report.prose import flag_word

    words = ("survives", "does not survive")
    assert flag_word(True, words) == "survives"
    assert flag_word(False, words) == "does not survive"
    assert flag_word(np.bool_(False), words) == "does not survive"
    assert flag_word(1, words) == "survives" and flag_word(0.0, words) == "does not survive"
    for bad in (2, 0.5, "yes", None):
        with pytest.raises(ValueError, match="flag must be True/False"):
            flag_word(bad, words)


def test_same_word_compares_and_names_a_missing_value_only_when_asked():
    from rankbook.report.prose import same_word

    words = ("the same", "not the same")
    assert same_word("ab", "ab", words=words) == "the same"
    assert same_word("ab", "cd", words=words) == "not the same"
    assert same_word("ab", None, words=words) == "not the same"  # no missing clause: compared
    for a, b in (("ab", None), (None, "ab"), (None, None)):
        assert same_word(a, b, words=words, missing="not there yet") == "not there yet"
    assert same_word("ab", "ab", words=words, missing="not there yet") == "the same"


def test_list_phrase_lists_names_in_order():
    from rankbook.report.prose import list_phrase

    assert list_phrase(["bm25"]) == "bm25"
    assert list_phrase(["a", "b"]) == "a and b"
    assert list_phrase(["a", "b", "c"]) == "a, b and c"
    assert list_phrase(["a", "b"], conjunction="or") == "a or b"
    with pytest.raises(ValueError, match="at least one"):
        list_phrase([])


def test_plural_phrase_flips_its_noun_with_the_count():
    from rankbook.report.prose import plural_phrase

    assert plural_phrase(1, "false rejection", "false rejections") == "1 false rejection"
    assert plural_phrase(0, "false rejection", "false rejections") == "0 false rejections"
    assert plural_phrase(2.0, "row", "rows") == "2 rows"
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="count"):
            plural_phrase(bad, "row", "rows")


def test_counts_print_with_thousands_separators():
    from rankbook.report.prose import plural_phrase

    assert plural_phrase(22146, "row", "rows") == "22,146 rows"
    assert plural_phrase(999, "row", "rows") == "999 rows"
    assert count_phrase(1200, 22146, "rows") == "1,200 of 22,146 rows"
    assert count_phrase(22146, 22146, "rows") == "all 22,146 rows"
    assert count_phrase(0, 1000, "users") == "none of the 1,000 users"


def test_a_zero_difference_reads_exactly_equal_not_at_most_zero():
    from rankbook.report.prose import difference_phrase, gap_phrase

    assert difference_phrase(0.0) == "are exactly equal"
    assert difference_phrase(0.0, "scikit-learn's value", plural=False) == (
        "is exactly equal to scikit-learn's value"
    )
    assert difference_phrase(2.2e-16) == "differ by at most 2.2 × 10⁻¹⁶"
    assert difference_phrase(2.2e-16, "scikit-learn's value", plural=False) == (
        "differs from scikit-learn's value by at most 2.2 × 10⁻¹⁶"
    )
    assert gap_phrase(0.0) == "no difference at all"
    assert gap_phrase(3e-17, name="largest gap") == "largest gap 3.0 × 10⁻¹⁷"
    for text in (difference_phrase(0.0), gap_phrase(0.0)):
        assert "0.0e+00" not in text and "at most" not in text
    for bad in (-1e-9, float("nan")):
        with pytest.raises(ValueError):
            difference_phrase(bad)


def test_gap_phrase_names_a_zero_in_the_callers_words():
    from rankbook.report.prose import gap_phrase

    assert gap_phrase(0.0, name="by", zero="not at all") == "not at all"
    assert gap_phrase(1e-16, name="by", zero="not at all") == "by 1.0 × 10⁻¹⁶"


def test_power_of_ten_writes_a_small_number_as_a_reader_reads_it():
    from rankbook.report.prose import power_of_ten

    assert power_of_ten(2.2e-16) == "2.2 × 10⁻¹⁶"
    assert power_of_ten(5e-5, 0) == "5 × 10⁻⁵"
    assert power_of_ten(1e-9, 0) == "10⁻⁹"
    assert power_of_ten(-1e-12, 0) == "-10⁻¹²"
    assert power_of_ten(1e-9) == "1.0 × 10⁻⁹"
    assert power_of_ten(3.1e7, 1) == "3.1 × 10⁷"
    assert power_of_ten(4.0, 1) == "4.0"
    assert power_of_ten(0.0) == "0"
    assert power_of_ten(9.96e-5, 1) == "1.0 × 10⁻⁴"  # rounds as Python's :.1e does
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="value"):
            power_of_ten(bad)
    with pytest.raises(ValueError, match="digits"):
        power_of_ten(1e-9, -1)


def test_number_text_shows_counts_with_separators_and_no_e_notation():
    import numpy as np

    from rankbook.report.prose import number_text

    assert number_text(22146) == "22,146"
    assert number_text(np.int64(100000)) == "100,000"
    assert number_text(1234.5) == "1,234.500"
    assert number_text(0.1254, 2) == "0.13"
    assert number_text(5e-5) == "5.0 × 10⁻⁵"  # "0.000" would hide it
    assert number_text(0.0) == "0.000"
    assert number_text(-0.0, 4) == "0.0000"  # a negative zero prints unsigned
    assert number_text(-4e-5, 4) == "-4.0 × 10⁻⁵"  # a small negative keeps its sign
    assert number_text(-0.25, 1) == "-0.2"
    for bad in (True, np.bool_(False), float("nan")):
        with pytest.raises(ValueError, match="value"):
            number_text(bad)
    with pytest.raises(ValueError, match="digits"):
        number_text(1.0, 1.5)
