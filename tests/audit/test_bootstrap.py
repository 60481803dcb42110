"""Row-bootstrap intervals of chapter 06 and the verdicts on its uncalibrated outcomes."""

import numpy as np
import pytest

from rankaudit.runs.decision import ALPHA, NOT_RESOLVED, RESOLVED_BELOW, effect_verdict
from rankaudit.runs.significance import dual_interval_test
from rankaudit.ties.evaluate import evaluate
from rankbook.audit.bootstrap import row_bootstrap, row_bootstrap_draws, rule_intervals
from rankbook.audit.uncalibrated import abs_interval, uncalibrated_outcomes
from rankbook.data.candidates import CandidateRows


def test_row_bootstrap_matches_the_normal_interval_of_a_mean_and_is_seeded():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 2))
    lo, hi = row_bootstrap(x, n_boot=2000, seed=1)
    se = x.std(axis=0, ddof=1) / np.sqrt(len(x))
    np.testing.assert_allclose(hi - lo, 2 * 1.96 * se, rtol=0.1)
    assert ((lo < x.mean(0)) & (x.mean(0) < hi)).all()
    lo2, hi2 = row_bootstrap(x, n_boot=2000, seed=1)
    np.testing.assert_array_equal(lo, lo2)
    assert not np.array_equal(lo, row_bootstrap(x, n_boot=2000, seed=2)[0])


def test_row_bootstrap_refuses_bad_input_naming_the_row():
    x = np.ones((5, 2))
    x[3, 1] = np.nan
    with pytest.raises(ValueError, match="row 3"):
        row_bootstrap(x, n_boot=100, seed=0)
    with pytest.raises(ValueError, match="n_boot"):
        row_bootstrap(np.ones((5, 1)), n_boot=1, seed=0)


def _rows(n=400, m=6, seed=0):
    rng = np.random.default_rng(seed)
    labels = np.zeros((n, m), dtype=np.int64)
    labels[:, 0] = 1
    scores = rng.integers(0, 2, size=(n, m)).astype(float)  # heavy ties
    rows = CandidateRows(
        user_ids=np.arange(n),
        item_ids=np.arange(n * m).reshape(n, m),
        labels=labels,
        seed=0,
        policy={},
    )
    return rows, {"tied": scores, "untied": rng.random((n, m))}


def test_rule_intervals_pair_the_rules_on_the_same_rows():
    rows, scores = _rows()
    recs = rule_intervals(rows, scores, k=3, seed=0, n_boot=300)
    by = {(r["score"], r["tie_rule"], r["metric"]): r for r in recs}
    h = by[("tied", "hash", "ndcg10")]
    io = by[("tied", "input_order", "ndcg10")]
    assert h["delta"] == pytest.approx(h["value"] - io["value"])
    assert h["delta_ci_low"] <= h["delta"] <= h["delta_ci_high"] < 0  # relevant-first wins ties
    # the paired interval of the change is narrower than the level's interval
    assert h["delta_ci_high"] - h["delta_ci_low"] < h["ci_high"] - h["ci_low"]
    # without ties every rule gives the same metric: a zero change with a zero-width interval
    u = by[("untied", "hash", "ndcg10")]
    assert u["delta"] == 0 and u["delta_ci_low"] == 0 == u["delta_ci_high"]
    assert u["delta_p"] == 1.0  # no change: nothing to resolve


def test_rule_intervals_give_each_change_a_p_value_dual_to_its_interval():
    """The CI of a change excludes 0 exactly when its p-value is at most the level (one set of
    draws), so the decision module's effect verdict accepts every record."""
    rows, scores = _rows()
    for n_boot in (100, 300):
        for r in rule_intervals(rows, scores, k=3, seed=0, n_boot=n_boot):
            excludes = r["delta_ci_low"] > 0 or r["delta_ci_high"] < 0
            assert excludes == (r["delta_p"] <= ALPHA)
            v = effect_verdict(
                r["delta"], r["delta_ci_low"], r["delta_ci_high"], r["delta_p"], r["delta_p"]
            )
            if (r["score"], r["tie_rule"]) == ("tied", "hash"):
                assert v == RESOLVED_BELOW  # relevant-first input order wins every tie
            if r["score"] == "untied" or r["tie_rule"] == "input_order":
                assert v == NOT_RESOLVED


def _audit(n=400, m=6, seed=0):
    rows, scores = _rows(n, m, seed)
    rng = np.random.default_rng(seed + 1)
    weighted = rng.integers(0, 3, size=(n, m)).astype(float)  # ties, some of the relevant item
    return rows, {"weighted": weighted, "residualized": scores["tied"]}


def _outcomes(paper, chance=0.1466, model=None, n_boot=200):
    rows, scores = _audit()
    return uncalibrated_outcomes(
        rows,
        scores,
        k=3,
        seed=0,
        n_boot=n_boot,
        paper=paper,
        chance_ndcg=chance,
        model_ndcg=model,
    )


def test_uncalibrated_relations_flip_with_the_interval():
    """A reference below the CI, inside it and above it: "above", "includes", "below"."""
    mid = {o["outcome"]: o for o in _outcomes({"ndcg_hash": 0.5, "residualized_change": 0.0})}
    h, res = mid["hash_ndcg"], mid["residualized_vs_chance"]
    for shift, relation in ((-1.0, "above"), (0.0, "includes"), (1.0, "below")):
        paper = {"ndcg_hash": h["value"] + shift, "residualized_change": 0.0}
        by = {o["outcome"]: o for o in _outcomes(paper, chance=res["value"] + shift)}
        assert by["hash_ndcg"]["relation"] == relation
        assert by["residualized_vs_chance"]["relation"] == relation


def test_uncalibrated_p_values_come_from_the_interval_draws():
    """Each outcome's p-value is the two-sided test of the same row-bootstrap draws as its CI:
    the CI excludes the reference exactly when p <= alpha, and p never goes below the floor
    2 / (B + 1) of B draws (a reference far outside the CI sits at that floor)."""
    rows, scores = _audit()
    for n_boot in (100, 300):
        paper = {"ndcg_hash": 5.0, "residualized_change": 0.0004}
        out = _outcomes(paper, chance=0.1466, model=0.2, n_boot=n_boot)
        floor = 2 / (n_boot + 1)
        for o in out:
            excludes = o["ci_low"] > o["reference"] or o["ci_high"] < o["reference"]
            assert excludes == (o["p_value"] <= ALPHA)
            assert o["p_value"] >= floor
            assert o["n_boot"] == n_boot
        assert out[0]["outcome"] == "hash_ndcg" and out[0]["p_value"] == floor
    # the hash NDCG column resampled as the row bootstrap resamples rows, at the same seed
    hashed = evaluate(
        scores["weighted"],
        rows.labels,
        k=3,
        ties="hash",
        seed=0,
        user_ids=rows.user_ids,
        item_ids=rows.item_ids,
    )["nDCG@3"].to_numpy()
    draws = row_bootstrap_draws(hashed[:, None], n_boot=300, seed=0)[:, 0]
    lo, hi, p = dual_interval_test(draws, null=0.3, alpha=ALPHA)
    h = _outcomes({"ndcg_hash": 0.3, "residualized_change": 0.0}, n_boot=300)[0]
    assert (h["ci_low"], h["ci_high"], h["p_value"]) == pytest.approx((lo, hi, p), rel=1e-12)


def test_uncalibrated_move_size_is_tested_against_both_signs():
    """The paper's move has no sign: the size's CI is the image of the signed CI and its p the
    larger of the tests against +r and -r, so the size CI excludes r exactly when p <= alpha."""
    signed = _outcomes({"ndcg_hash": 0.5, "residualized_change": 0.0})
    move = next(o for o in signed if o["outcome"] == "residualized_move")
    for r in (0.0, move["value"], move["ci_high"] * 2 + 0.01, 1.0):
        o = next(
            o
            for o in _outcomes({"ndcg_hash": 0.5, "residualized_change": r})
            if o["outcome"] == "residualized_move"
        )
        excludes = o["ci_low"] > r or o["ci_high"] < r
        assert excludes == (o["p_value"] <= ALPHA)
        assert o["ci_low"] >= 0


def test_uncalibrated_outcomes_are_holm_adjusted_within_the_outcomes():
    """The p-values are Holm-adjusted over the outcomes returned (one more outcome, a larger
    adjustment)."""
    out = _outcomes({"ndcg_hash": 0.17, "residualized_change": 0.0004})
    ps = sorted(o["p_value"] for o in out)
    assert min(o["p_holm"] for o in out) == pytest.approx(min(1.0, len(out) * ps[0]))
    assert all(o["p_holm"] >= o["p_value"] for o in out)
    more = _outcomes({"ndcg_hash": 0.17, "residualized_change": 0.0004}, model=0.2)
    assert more[0]["p_holm"] >= out[0]["p_holm"]


def test_abs_interval():
    assert abs_interval(-0.005, -0.004) == (0.004, 0.005)
    assert abs_interval(0.001, 0.002) == (0.001, 0.002)
    assert abs_interval(-0.001, 0.003) == (0.0, 0.003)
    with pytest.raises(ValueError):
        abs_interval(1, 0)


def test_residual_diagnosis_measures_the_anti_popularity_ranking():
    """Rows where the overlap of the relevant item is 0 and the residual is minus popularity:
    the diagnosis sees the negative correlation, the popular relevant item and a below-chance
    NDCG on those rows; rows with a positive overlap rank the relevant item first."""
    from rankbook.audit.uncalibrated import residual_diagnosis

    rng = np.random.default_rng(0)
    n, m = 300, 8
    labels = np.zeros((n, m), dtype=np.int64)
    labels[:, 0] = 1
    pop = rng.random((n, m))
    pop[:, 0] += 1.0  # the held-out item is the most popular
    overlap = np.zeros((n, m))
    overlap[: n // 3, 0] = 1.0  # a third of rows: the relevant item shares an attribute
    residual = overlap * 10 - pop
    rows = CandidateRows(
        user_ids=np.arange(n),
        item_ids=np.arange(n * m).reshape(n, m),
        labels=labels,
        seed=0,
        policy={},
    )
    d = residual_diagnosis(
        rows, {"residualized": residual, "weighted": overlap, "popularity": pop}, k=3
    )
    assert d["share_overlap_zero"] == pytest.approx(1 - (n // 3) / n)
    assert d["share_relevant_more_popular"] == 1.0
    assert d["spearman_residual_popularity"] == pytest.approx(-1.0)
    assert d["ndcg_zero_rows"] == 0.0 == d["ndcg_reversed_popularity"]
    assert d["ndcg_other_rows"] == 1.0
    with pytest.raises(ValueError, match="with and without"):
        residual_diagnosis(
            rows, {"residualized": residual, "weighted": overlap + 1, "popularity": pop}, k=3
        )


def test_rule_intervals_record_the_spread_of_each_change_for_its_power():
    """``delta_sd`` is the sd (ddof 1) of the per-row change rule minus input order and
    ``n_rows`` the rows, so a page can power the change's test at a stated effect."""
    rows, scores = _rows()
    recs = rule_intervals(rows, scores, k=3, seed=0, n_boot=100)
    by = {(r["score"], r["tie_rule"], r["metric"]): r for r in recs}
    per_row = {
        rule: evaluate(scores["tied"], rows.labels, k=3, ties=rule, seed=0,
                       user_ids=rows.user_ids, item_ids=rows.item_ids)["nDCG@3"].to_numpy()
        for rule in ("input_order", "hash")
    }
    change = per_row["hash"] - per_row["input_order"]
    h = by[("tied", "hash", "ndcg10")]
    assert h["n_rows"] == len(change)
    assert h["delta_sd"] == pytest.approx(float(np.std(change, ddof=1)), rel=1e-12)
    assert h["delta_sd"] > 0
    assert by[("untied", "hash", "ndcg10")]["delta_sd"] == 0.0  # no row moves
