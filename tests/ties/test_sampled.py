"""The seeded random rule: determinism, convergence to the exact expectation and variance."""

import numpy as np
import pytest

from rankaudit import evaluate


@pytest.fixture
def batch(rows_factory):
    rng = np.random.default_rng(21)
    return rows_factory(rng, 40, max_len=10)


def test_random_converges_to_expected(batch):
    scores, labels, _ = batch
    n = 20_000
    rnd = evaluate(scores, labels, k=3, ties="random", n_repeats=n, seed=4)
    exp = evaluate(scores, labels, k=3, return_variance=True)
    for name in ("Success@3", "nDCG@3", "RR"):
        se = np.sqrt(exp[f"{name}_var"] / n)
        assert np.all(np.abs(rnd[name] - exp[name]) <= 6 * se + 1e-12), name
        # the per-row sample std estimates the exact tie-order standard deviation
        np.testing.assert_allclose(rnd[f"{name}_std"], np.sqrt(exp[f"{name}_var"]), atol=0.02)


def test_random_is_deterministic_given_seed(batch):
    scores, labels, _ = batch
    a = evaluate(scores, labels, ties="random", n_repeats=7, seed=3)
    b = evaluate(scores, labels, ties="random", n_repeats=7, seed=3)
    c = evaluate(scores, labels, ties="random", n_repeats=7, seed=4)
    assert a.equals(b)
    assert not a.equals(c)


def test_single_draw_is_a_possible_ranking(batch):
    """One repeat gives the metrics of one tie order: between the bounds, no *_std columns."""
    scores, labels, _ = batch
    one = evaluate(scores, labels, k=2, ties="random", seed=9)
    assert "RR_std" not in one
    assert set(np.unique(one["Success@2"])) <= {0.0, 1.0}
    lo = evaluate(scores, labels, k=2, ties="pessimistic")
    hi = evaluate(scores, labels, k=2, ties="optimistic")
    for name in ("Success@2", "nDCG@2", "RR"):
        assert np.all(lo[name] <= one[name] + 1e-12) and np.all(one[name] <= hi[name] + 1e-12)


def test_random_depends_on_user_id_not_row_position():
    s = np.zeros((2, 20))
    y = np.zeros((2, 20))
    y[:, 3] = 1
    users = np.array([17, 4])
    a = evaluate(s, y, ties="random", seed=1, user_ids=users, n_repeats=3)
    b = evaluate(s[::-1], y[::-1], ties="random", seed=1, user_ids=users[::-1], n_repeats=3)
    np.testing.assert_array_equal(a["RR"].to_numpy(), b["RR"].to_numpy()[::-1])
