"""Kernels of the deterministic rules == sort-based reference ranking + metric definitions."""

import numpy as np
import pytest

from rankaudit import evaluate
from rankaudit.measures.row_metrics import metrics_of_ranking
from rankaudit.ties.ranking import DETERMINISTIC_RULES, TIE_RULES, check_rule, rank_candidates


def _batch(seed, n_rows=200, n=9):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 3, (n_rows, n)).astype(np.float64)
    y = rng.integers(0, 4, (n_rows, n)) * (rng.random((n_rows, n)) < 0.35)
    y[np.arange(n_rows), rng.integers(0, n, n_rows)] = rng.integers(1, 4, n_rows)
    items = np.stack([rng.choice(np.arange(-500, 500), n, replace=False) for _ in range(n_rows)])
    users = rng.choice(np.arange(10_000), n_rows, replace=False)
    return s, y, items, users


@pytest.mark.parametrize("rule", DETERMINISTIC_RULES)
@pytest.mark.parametrize("k", [1, 4, 20])
def test_kernel_equals_reference(rule, k):
    s, y, items, users = _batch(k)
    order = rank_candidates(s, y, ties=rule, seed=5, user_ids=users, item_ids=items)
    want = metrics_of_ranking(y, order, k)
    got = evaluate(s, y, k=k, ties=rule, seed=5, user_ids=users, item_ids=items)
    for name, values in want.items():
        np.testing.assert_allclose(got[name], values, rtol=0, atol=1e-12, err_msg=name)


def test_hash_with_string_ids_equals_reference():
    s, y, items, users = _batch(9, n_rows=60)
    str_items = np.char.add("item-", items.astype(str))
    str_users = np.char.add("user-", users.astype(str))
    order = rank_candidates(s, y, ties="hash", seed=1, user_ids=str_users, item_ids=str_items)
    want = metrics_of_ranking(y, order, 5)
    got = evaluate(s, y, k=5, ties="hash", seed=1, user_ids=str_users, item_ids=str_items)
    for name, values in want.items():
        np.testing.assert_allclose(got[name], values, atol=1e-12)


def test_input_order_is_a_stable_sort():
    s = np.array([[1.0, 2.0, 1.0, 2.0]])
    np.testing.assert_array_equal(rank_candidates(s, ties="input_order"), [[1, 3, 0, 2]])


def test_optimistic_and_pessimistic_order_graded_labels():
    s = np.zeros((1, 4))
    y = np.array([[0, 1, 3, 2]])
    np.testing.assert_array_equal(rank_candidates(s, y, ties="optimistic"), [[2, 3, 1, 0]])
    np.testing.assert_array_equal(rank_candidates(s, y, ties="pessimistic"), [[0, 1, 3, 2]])


def test_hash_changes_with_seed_but_not_with_call():
    s, y, items, _ = _batch(2, n_rows=30)
    a = rank_candidates(s, ties="hash", seed=0, item_ids=items)
    assert np.array_equal(a, rank_candidates(s, ties="hash", seed=0, item_ids=items))
    assert not np.array_equal(a, rank_candidates(s, ties="hash", seed=1, item_ids=items))


def test_rule_names():
    assert set(TIE_RULES) == {
        "input_order",
        "hash",
        "random",
        "expected",
        "pessimistic",
        "optimistic",
    }
    with pytest.raises(ValueError, match="valid rules are: input_order, hash, random"):
        check_rule("stable")
    with pytest.raises(ValueError, match="does not define one ranking"):
        rank_candidates(np.zeros((1, 2)), ties="expected")
