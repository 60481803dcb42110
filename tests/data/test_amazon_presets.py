"""Amazon simulator presets and the tie-regime model that calibrates them."""

from __future__ import annotations

import numpy as np
import pytest

from rankaudit import evaluate
from rankbook.data.amazon import attribute_tokens
from rankbook.data.amazon_presets import (
    PRESETS,
    calibrate_tie_regime,
    measured_tie_regime,
    preset_args,
    tie_regime_metrics,
)
from rankbook.data.amazon_sim import MAX_STORES, simulate_amazon_beauty

SMALL = dict(n_users=3000, n_items=800, n_stores=120, seed=3)


def test_all_tied_row_gives_the_paper_closed_forms() -> None:
    m = tie_regime_metrics(1.0, 0.0, n_negatives=30, k=10)
    assert m["hr_expected"] == pytest.approx(10 / 31, abs=1e-15)
    assert m["ndcg_expected"] == pytest.approx(
        sum(1 / np.log2(r + 1) for r in range(1, 11)) / 31, abs=1e-15
    )
    assert m["ndcg_input_order"] == 1.0 and m["hr_input_order"] == 1.0


def test_model_equals_the_evaluator_on_rows_drawn_from_the_model() -> None:
    """Rows built exactly as the model says (relevant first, G negatives above, the rest tied at
    0): the evaluator's input-order and expected metrics, averaged with the binomial weights of
    G, equal the closed form."""
    n, k, q, p = 12, 5, 0.7, 0.2
    from scipy.stats import binom

    io_ndcg = exp_ndcg = io_hr = exp_hr = 0.0
    for g in range(n + 1):
        scores = np.zeros((1, n + 1))
        scores[0, 1 : 1 + g] = 1.0
        labels = np.zeros((1, n + 1))
        labels[0, 0] = 1
        w = binom.pmf(g, n, p)
        io = evaluate(scores, labels, k=k, ties="input_order")
        ex = evaluate(scores, labels, k=k, ties="expected")
        io_ndcg += w * io[f"nDCG@{k}"].iloc[0]
        io_hr += w * io[f"Success@{k}"].iloc[0]
        exp_ndcg += w * ex[f"nDCG@{k}"].iloc[0]
        exp_hr += w * ex[f"Success@{k}"].iloc[0]
    m = tie_regime_metrics(q, p, n_negatives=n, k=k)
    assert m["ndcg_input_order"] == pytest.approx(1 - q + q * io_ndcg, abs=1e-12)
    assert m["hr_input_order"] == pytest.approx(1 - q + q * io_hr, abs=1e-12)
    assert m["ndcg_expected"] == pytest.approx(1 - q + q * exp_ndcg, abs=1e-12)
    assert m["hr_expected"] == pytest.approx(1 - q + q * exp_hr, abs=1e-12)


def test_calibration_round_trip() -> None:
    target = tie_regime_metrics(0.9, 0.03)
    q, p = calibrate_tie_regime(target["ndcg_input_order"], target["hr_expected"])
    assert q == pytest.approx(0.9, abs=1e-9) and p == pytest.approx(0.03, abs=1e-9)


def test_bad_model_arguments() -> None:
    with pytest.raises(ValueError, match="q and p"):
        tie_regime_metrics(1.5, 0.1)
    with pytest.raises(ValueError, match="preset"):
        preset_args("nope")
    with pytest.raises(ValueError, match="column 0"):
        measured_tie_regime(np.zeros((2, 3)), np.zeros((2, 3)))


def test_measured_regime_counts_zero_relevant_rows() -> None:
    scores = np.array([[0.0, 0.0, 1.0, 0.0], [2.0, 0.0, 0.0, 0.0]])
    labels = np.array([[1, 0, 0, 0], [1, 0, 0, 0]])
    m = measured_tie_regime(scores, labels)
    assert m == {"q": 0.5, "p": pytest.approx(1 / 3), "p_all": pytest.approx(1 / 6)}
    assert measured_tie_regime(np.ones((1, 3)), np.array([[1, 0, 0]]))["p"] is None


def test_sparse_switches_change_only_the_metadata_text() -> None:
    dense_r, dense_m = simulate_amazon_beauty(**SMALL)
    sparse_r, sparse_m = simulate_amazon_beauty(**SMALL, title_vocabulary=50, extra_tokens=False)
    # same reviews (users, items, ratings, times): only the lexical metadata differs
    assert dense_r.equals(sparse_r)
    assert (dense_m["store"] == sparse_m["store"]).all()
    assert all(f == [] for f in sparse_m["features"])
    assert all(c == ["Beauty & Personal Care"] for c in sparse_m["categories"])
    stores = {s.lower() for s in sparse_m["store"]}
    words = {t for title in sparse_m["title"] for t in attribute_tokens(title)} - stores
    assert words and all(len(w) == 8 for w in words)  # four-syllable pseudo-words, never a store
    assert len(words) <= 8 * 50


def test_bad_simulator_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="title_vocabulary"):
        simulate_amazon_beauty(**SMALL, title_vocabulary=-1)
    with pytest.raises(ValueError, match="extra_tokens"):
        simulate_amazon_beauty(**SMALL, extra_tokens="no")
    with pytest.raises(ValueError, match="n_stores"):  # used to loop forever
        simulate_amazon_beauty(**{**SMALL, "n_stores": MAX_STORES + 1})


@pytest.mark.slow
def test_paper_regime_preset_ties_the_relevant_item_far_more_than_dense() -> None:
    """The preset's purpose: most weighted-overlap scores exactly 0, the relevant item tied in
    most rows (the paper's regime), far more than under the dense default."""
    from rankaudit import tie_prevalence
    from rankbook.audit import prepare_audit

    shares = {}
    for name in PRESETS:
        run = prepare_audit(
            "amazon", n_rows=1500, seed=42, families=["weighted"], simulate=preset_args(name)
        )
        s = run.scores["weighted"]
        shares[name] = float(tie_prevalence(s, run.rows.labels, k=10).summary["frac_relevant_tied"])
        if name == "paper_regime":
            assert (s == 0).mean() > 0.9
            m = measured_tie_regime(s, run.rows.labels)
            q_star, p_star = calibrate_tie_regime(0.8474, 0.3526)
            assert abs(m["q"] - q_star) < 0.03 and abs(m["p"] - p_star) < 0.01
    assert shares["paper_regime"] > 0.9 > 0.7 > shares["dense"]
