"""Closed-form expectation and variance == brute force == kernel; paper case; scikit-learn."""

import math

import numpy as np
import pytest

from rankaudit import evaluate
from rankaudit.measures.row_reference import expected_metrics_reference
from rankaudit.ties.bruteforce import all_tie_orders, brute_force_moments

TOL = 1e-12


def test_all_tie_orders_counts_orderings():
    orders = all_tie_orders(np.array([1.0, 2.0, 1.0, 1.0, 2.0]))
    assert orders.shape == (2 * 6, 5)
    assert set(map(tuple, orders[:, :2])) == {(1, 4), (4, 1)}


@pytest.mark.parametrize("k", [1, 2, 3, 5, 10])
def test_expected_and_variance_equal_brute_force(rows_factory, k):
    rng = np.random.default_rng(k)
    scores, labels, _ = rows_factory(rng, 60, max_len=8)
    scores.append(np.zeros(8))  # one fully tied row of 8 (40,320 orders)
    labels.append(np.array([0, 2, 0, 1, 0, 3, 0, 0.0]))
    got = evaluate(scores, labels, k=k, return_variance=True)
    for i, (s, y) in enumerate(zip(scores, labels, strict=True)):
        mean, var = brute_force_moments(s, y, k)
        ref_mean, ref_var = expected_metrics_reference(s, y, k)
        for name in mean:
            assert abs(ref_mean[name] - mean[name]) < TOL, (i, name)
            assert abs(ref_var[name] - var[name]) < TOL, (i, name)
            assert abs(got[name].iloc[i] - mean[name]) < TOL, (i, name)
            assert abs(got[f"{name}_var"].iloc[i] - var[name]) < TOL, (i, name)


def test_paper_worked_case():
    """1 relevant + 30 tied negatives, relevant first, k = 10 (Guo et al., §3.2)."""
    scores = np.zeros((1, 31), dtype=np.float32)
    labels = np.zeros((1, 31), dtype=np.int8)
    labels[0, 0] = 1
    first = evaluate(scores, labels, k=10, ties="input_order")
    assert first["Success@10"].item() == 1.0 and first["nDCG@10"].item() == 1.0
    exp = evaluate(scores, labels, k=10, ties="expected")
    assert exp["Success@10"].item() == pytest.approx(10 / 31, abs=1e-15)
    assert round(exp["Success@10"].item(), 4) == 0.3226
    assert round(exp["nDCG@10"].item(), 4) == 0.1466
    assert exp["nDCG@10"].item() == pytest.approx(
        sum(1 / math.log2(r + 1) for r in range(1, 11)) / 31, abs=1e-15
    )


def test_one_relevant_fast_path_matches_general_formula(rows_factory):
    rng = np.random.default_rng(7)
    s = rng.integers(0, 4, (200, 31)).astype(np.float32)
    y = np.zeros((200, 31))
    y[np.arange(200), rng.integers(0, 31, 200)] = rng.integers(1, 4, 200)
    got = evaluate(s, y, k=10, return_variance=True)
    for i in range(0, 200, 17):
        ref_mean, ref_var = expected_metrics_reference(s[i], y[i], 10)
        for name in ref_mean:
            assert abs(got[name].iloc[i] - ref_mean[name]) < TOL
            assert abs(got[f"{name}_var"].iloc[i] - ref_var[name]) < TOL


@pytest.mark.parametrize("k", [1, 3, 10])
def test_ndcg_equals_sklearn_tie_averaged_row_by_row(k):
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(100 + k)
    s = rng.integers(0, 3, (150, 12)).astype(np.float64)
    s[:50] += rng.random((50, 12))  # some rows without ties
    y = rng.integers(0, 4, (150, 12)) * (rng.random((150, 12)) < 0.3)
    y[:, 0] = np.maximum(y[:, 0], 1)
    got = evaluate(s, y, k=k)[f"nDCG@{k}"].to_numpy()
    want = [ndcg_score(y[i : i + 1], s[i : i + 1], k=k, ignore_ties=False) for i in range(150)]
    np.testing.assert_allclose(got, want, rtol=0, atol=TOL)


def test_untied_rows_have_zero_variance_and_match_input_order():
    rng = np.random.default_rng(3)
    s = rng.random((40, 9))
    y = (rng.random((40, 9)) < 0.3) * rng.integers(1, 3, (40, 9))
    y[:, 4] = 2
    exp = evaluate(s, y, k=3, return_variance=True)
    inp = evaluate(s, y, k=3, ties="input_order")
    for name in ("Success@3", "nDCG@3", "RR"):
        np.testing.assert_allclose(exp[name], inp[name], atol=TOL)
        np.testing.assert_allclose(exp[f"{name}_var"], 0.0, atol=TOL)


def test_expected_lies_between_pessimistic_and_optimistic(rows_factory):
    rng = np.random.default_rng(11)
    scores, labels, _ = rows_factory(rng, 2000, max_len=10)
    exp = evaluate(scores, labels, k=4)
    lo = evaluate(scores, labels, k=4, ties="pessimistic")
    hi = evaluate(scores, labels, k=4, ties="optimistic")
    for name in ("Success@4", "nDCG@4", "RR"):
        assert np.all(lo[name] <= exp[name]) and np.all(exp[name] <= hi[name])  # exactly


@pytest.mark.parametrize(
    ("n_rows", "width", "k", "relevant"),
    [
        (40, 9, 3, "several"),  # the general path
        (40, 9, 3, "one"),  # the one-relevant formulas
        (200, 9, 5, "one"),  # the one-relevant (g, t) table (n_rows >= (width + 1)**2)
        (30, 120, 10, "one"),  # rows too long for the table
        (30, 120, 10, "several"),
    ],
)
def test_rows_no_tie_moves_have_the_ordered_bits(n_rows, width, k, relevant):
    """Where no relevant item is tied, expected, pessimistic, optimistic and every ordered rule
    are the same bits (not equal up to a tolerance), and the variances are exactly 0."""
    rng = np.random.default_rng(width + k)
    s = rng.permuted(np.tile(np.arange(width, dtype=np.float64), (n_rows, 1)), axis=1)
    s[:, 1] = s[:, 0]  # a tie between two candidates that are never relevant: it moves nothing
    items = np.tile(np.arange(width), (n_rows, 1))
    y = np.zeros((n_rows, width), dtype=np.int64)
    if relevant == "one":
        y[np.arange(n_rows), rng.integers(2, width, n_rows)] = rng.integers(1, 4, n_rows)
    else:
        y[:, 2:] = (rng.random((n_rows, width - 2)) < 0.3) * rng.integers(1, 4, (n_rows, width - 2))
    exp = evaluate(s, y, k=k, return_variance=True, empty="zero")
    for rule in ("pessimistic", "optimistic", "input_order", "hash"):
        other = evaluate(s, y, k=k, ties=rule, item_ids=items, empty="zero")
        for name in (f"Success@{k}", f"nDCG@{k}", "RR"):
            assert np.array_equal(exp[name].to_numpy(), other[name].to_numpy()), (rule, name)
    for name in (f"Success@{k}", f"nDCG@{k}", "RR"):
        assert np.all(exp[f"{name}_var"].to_numpy() == 0.0), name
