"""Row-bootstrap intervals of chapter 06 and the verdicts on its uncalibrated outcomes."""

import numpy as np
import pytest
from scipy.stats import norm

from rankaudit.runs.decision import ALPHA, NOT_RESOLVED, RESOLVED_BELOW, effect_verdict
from rankaudit.ties.evaluate import evaluate
from rankbook.audit.bootstrap import row_bootstrap, rule_intervals
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


def _boot(hash_lo, hash_hi, move_lo, move_hi, res_lo, res_hi):
    def rec(score, rule, value, lo, hi, dlo=0.0, dhi=0.0):
        return {
            "score": score,
            "tie_rule": rule,
            "metric": "ndcg10",
            "value": value,
            "ci_low": lo,
            "ci_high": hi,
            "delta": (dlo + dhi) / 2,
            "delta_ci_low": dlo,
            "delta_ci_high": dhi,
        }

    return [
        rec("weighted", "hash", (hash_lo + hash_hi) / 2, hash_lo, hash_hi),
        rec("residualized", "hash", 0.1, 0.09, 0.11, move_lo, move_hi),
        rec("residualized", "expected", (res_lo + res_hi) / 2, res_lo, res_hi),
    ]


PAPER = {"ndcg_hash": 0.17, "residualized_change": 0.0004}


@pytest.mark.parametrize(
    ("boot", "relations"),
    [
        (_boot(0.175, 0.183, -0.005, -0.004, 0.095, 0.102), ["above", "above", "below"]),
        (_boot(0.165, 0.175, -0.0005, 0.0001, 0.14, 0.15), ["includes", "includes", "includes"]),
        (_boot(0.15, 0.16, 0.0001, 0.0003, 0.16, 0.17), ["below", "below", "above"]),
    ],
)
def test_uncalibrated_relations_flip_with_the_interval(boot, relations):
    out = uncalibrated_outcomes(boot, paper=PAPER, chance_ndcg=0.1466)
    assert [o["relation"] for o in out] == relations


def test_uncalibrated_outcomes_are_holm_adjusted_within_the_outcomes():
    """Each outcome's z comes from its CI's width, its p is two-sided and the p-values are
    Holm-adjusted over the outcomes returned (one more outcome, a larger adjustment)."""
    boot = _boot(0.175, 0.183, -0.005, -0.004, 0.095, 0.102)
    out = uncalibrated_outcomes(boot, paper=PAPER, chance_ndcg=0.1466)
    h = out[0]
    se = (h["ci_high"] - h["ci_low"]) / 2 / norm.ppf(0.975)
    assert h["z"] == pytest.approx((h["value"] - PAPER["ndcg_hash"]) / se)
    assert h["p_value"] == pytest.approx(2 * norm.sf(abs(h["z"])))
    ps = sorted(o["p_value"] for o in out)
    assert min(o["p_holm"] for o in out) == pytest.approx(len(out) * ps[0])
    assert all(o["p_holm"] >= o["p_value"] for o in out)
    more = uncalibrated_outcomes(boot, paper=PAPER, chance_ndcg=0.1466, model_ndcg=0.2)
    assert more[0]["p_holm"] >= h["p_holm"]


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
