"""Tests of the Part I reference formulas, Monte Carlo helpers and synthetic rows
(rankaudit.measures.row_reference, rankbook.ties.montecarlo, rankbook.data.synthetic_rows)."""

from __future__ import annotations

import numpy as np
import pytest

from rankaudit.measures import row_reference as reference
from rankaudit.runs.decision import interval_z
from rankaudit.ties.bruteforce import brute_force_moments
from rankaudit.ties.evaluate import evaluate
from rankbook.data import synthetic_rows
from rankbook.ties import montecarlo


@pytest.mark.parametrize(
    ("g", "t", "k"), [(0, 31, 10), (0, 1, 10), (3, 9, 10), (12, 4, 10), (2, 7, 1)]
)
def test_single_relevant_closed_form_equals_enumeration(g, t, k):
    scores = np.r_[np.full(g, 2.0), np.ones(t), np.zeros(2)]
    labels = np.zeros_like(scores)
    labels[g] = 1.0
    if g + t <= 8:
        means, variances = brute_force_moments(scores, labels, k)
    else:  # rank is uniform on g+1..g+t: enumerate ranks directly
        ranks = np.arange(g + 1, g + t + 1)
        d = np.where(ranks <= k, 1 / np.log2(ranks + 1), 0.0)
        hr, rr = (ranks <= k).astype(float), 1 / ranks
        means = {f"Success@{k}": hr.mean(), f"nDCG@{k}": d.mean(), "RR": rr.mean()}
        variances = {f"Success@{k}": hr.var(), f"nDCG@{k}": d.var(), "RR": rr.var()}
    got = reference.single_relevant_moments(g, t, k)
    for metric in means:
        assert got.loc[metric, "mean"] == pytest.approx(means[metric], abs=1e-12)
        assert got.loc[metric, "variance"] == pytest.approx(variances[metric], abs=1e-12)


def test_paper_worked_case():
    got = reference.single_relevant_moments(0, 31, 10)
    assert got.loc["Success@10", "mean"] == pytest.approx(10 / 31, abs=1e-15)
    assert round(got.loc["nDCG@10", "mean"], 4) == 0.1466


def test_single_relevant_rejects_bad_input():
    with pytest.raises(ValueError, match="t must be"):
        reference.single_relevant_moments(0, 0, 10)
    with pytest.raises(ValueError, match="k must be"):
        reference.single_relevant_moments(0, 3, 0)


def test_tie_block_rows_layout():
    scores, labels = synthetic_rows.tie_block_rows([1, 5, 31], n_candidates=31)
    assert scores.shape == labels.shape == (3, 31)
    assert (labels[:, 0] == 1).all() and labels[:, 1:].sum() == 0
    assert [(row == row[0]).sum() for row in scores] == [1, 5, 31]
    above, _ = synthetic_rows.tie_block_rows([4], n_candidates=10, above=3)
    assert (above[0] > above[0, 0]).sum() == 3
    with pytest.raises(ValueError, match="block_sizes"):
        synthetic_rows.tie_block_rows([32], n_candidates=31)


def test_tie_block_rows_match_closed_form_under_expected():
    sizes = list(range(1, 32))
    scores, labels = synthetic_rows.tie_block_rows(sizes)
    got = evaluate(scores, labels, k=10, ties="expected")
    want = [reference.single_relevant_moments(0, t, 10).loc["nDCG@10", "mean"] for t in sizes]
    np.testing.assert_allclose(got["nDCG@10"], want, atol=1e-12)
    assert (evaluate(scores, labels, k=10, ties="input_order")["nDCG@10"] == 1).all()


def test_simulated_sample_is_deterministic_and_well_formed():
    a = synthetic_rows.simulate_tie_heavy_rows(50, seed=3)
    b = synthetic_rows.simulate_tie_heavy_rows(50, seed=3)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.item_ids, b.item_ids)
    assert a.scores.shape == (50, 31)
    assert all(len(set(row)) == 31 for row in a.item_ids)
    assert a.item_ids.min() >= 1 and a.item_ids.max() <= 1682
    assert set(np.unique(a.scores)) <= {0.0, 1.0, 2.0, 3.0}
    assert a.source.kind == "simulated"
    with pytest.raises(ValueError, match="p_relevant"):
        synthetic_rows.simulate_tie_heavy_rows(5, p_relevant=1.5)


def test_random_tie_draws_respect_scores_and_converge():
    scores, labels = synthetic_rows.tie_block_rows([31])
    draws = montecarlo.random_tie_draws(scores, labels, 10, 4000, seed=1)
    assert draws["Success@10"].shape == (4000, 1)
    se = draws["Success@10"].std() / np.sqrt(4000)
    assert abs(draws["Success@10"].mean() - 10 / 31) < 5 * se
    # a strictly better relevant item is never displaced
    s = np.array([[2.0, 1.0, 1.0, 1.0]])
    y = np.array([[1.0, 0.0, 0.0, 0.0]])
    assert (montecarlo.random_tie_draws(s, y, 1, 50)["RR"] == 1).all()


def test_running_mean_bands():
    bands = montecarlo.running_mean_bands(np.array([1.0, 0.0, 1.0, 0.0]))
    np.testing.assert_allclose(bands["mean"], [1.0, 0.5, 2 / 3, 0.5])
    assert bands.loc[0, "lower"] == bands.loc[0, "upper"] == 1.0
    assert (bands["lower"] <= bands["mean"]).all() and (bands["mean"] <= bands["upper"]).all()
    half = interval_z() * np.sqrt(np.var([1, 0, 1, 0], ddof=1) / 4)  # 1.96: 95%, ALPHA = 0.05
    assert bands.loc[3, "upper"] - bands.loc[3, "mean"] == pytest.approx(half)
    with pytest.raises(ValueError, match="empty"):
        montecarlo.running_mean_bands(np.array([]))


def test_three_way_check_agrees():
    rows = synthetic_rows.random_small_rows(25, max_candidates=6, seed=4)
    check = montecarlo.three_way_check(rows, 3, evaluate, n_draws=3000, seed=0)
    assert set(check["metric"]) == {"Success@3", "nDCG@3", "RR"}
    assert (check["expected"] - check["enumeration"]).abs().max() < 1e-12
    assert (check["variance"] - check["enumeration_variance"]).abs().max() < 1e-12
    ndcg = check[check["metric"] == "nDCG@3"]
    assert (ndcg["expected"] - ndcg["sklearn"]).abs().max() < 1e-12
    assert check["mc_z"].abs().max() < 5.5


def test_seed_spread_one_row_per_seed():
    smp = synthetic_rows.simulate_tie_heavy_rows(100, seed=0)
    spread = montecarlo.seed_spread(
        lambda s: evaluate(
            smp.scores,
            smp.labels,
            ties="hash",
            seed=s,
            user_ids=smp.user_ids,
            item_ids=smp.item_ids,
        ),
        range(5),
    )
    assert list(spread["seed"]) == [0, 1, 2, 3, 4]
    assert {"Success@10", "nDCG@10", "RR"} <= set(spread.columns)
    assert "row" not in spread.columns
    assert spread["nDCG@10"].std() > 0


def test_collision_bound():
    assert reference.collision_bound(2) == 1 / 2.0**64
    assert reference.collision_bound(31, bits=8) == 465 / 256


def test_ndcg_moments_by_blocks_equal_enumeration():
    for scores, labels in synthetic_rows.random_small_rows(60, max_candidates=7, seed=11):
        means, variances = brute_force_moments(scores, labels, 3)
        mean, var = reference.ndcg_moments_by_blocks(scores, labels, 3)
        assert mean == pytest.approx(means["nDCG@3"], abs=1e-12)
        assert var == pytest.approx(variances["nDCG@3"], abs=1e-12)
    with pytest.raises(ValueError, match="no relevant"):
        reference.ndcg_moments_by_blocks(np.ones(3), np.zeros(3), 3)


def test_three_way_check_with_a_cutoff_per_row_exercises_the_cutoff():
    rows = synthetic_rows.random_small_rows(40, max_candidates=6, seed=5)
    rng = np.random.default_rng(1)
    ks = [int(rng.integers(1, len(s) + 1)) for s, _ in rows]
    check = montecarlo.three_way_check(rows, ks, evaluate, n_draws=2000, seed=0)
    assert set(check["metric"]) == {"Success@k", "nDCG@k", "RR"}
    assert (check.groupby("row")["k"].first().to_numpy() == np.array(ks)).all()
    assert (check["expected"] - check["enumeration"]).abs().max() < 1e-12
    assert (check["variance"] - check["enumeration_variance"]).abs().max() < 1e-12
    hr = check[check["metric"] == "Success@k"]
    assert (hr["expected"] < 1).any()  # the cutoff bites: HR@k is not trivially 1
    ndcg = check[check["metric"] == "nDCG@k"]
    assert (ndcg["expected"] - ndcg["sklearn"]).abs().max() < 1e-12
    with pytest.raises(ValueError, match="cutoffs"):
        montecarlo.three_way_check(rows, ks[:-1], evaluate, n_draws=10)
    with pytest.raises(ValueError, match=r"k\[0\]"):
        montecarlo.three_way_check(rows, [0] + ks[1:], evaluate, n_draws=10)
