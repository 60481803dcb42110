"""The pre-sort sentence of the run checklist: exact comparison, tolerance disclosed."""

from rankaudit.checklists.from_run import _order_sentence


def test_equal_values_do_not_change_the_result():
    text = _order_sentence({"input_order": 0.4322, "trec_eval": 0.4322}, 1e-3)
    assert "does not change" in text


def test_a_difference_below_the_tolerance_is_a_change_and_says_the_tolerance():
    text = _order_sentence({"input_order": 0.4322, "trec_eval": 0.4315}, 1e-3)
    assert "changes the result by 0.0007" in text
    assert "within this checklist's warning tolerance of 0.001" in text
    assert "does not change" not in text


def test_a_difference_beyond_the_tolerance_says_beyond():
    text = _order_sentence({"input_order": 0.45, "trec_eval": 0.43}, 1e-3)
    assert "beyond this checklist's warning tolerance" in text
