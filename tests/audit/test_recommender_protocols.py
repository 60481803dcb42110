"""Real recommenders: the sampled rows are the MovieLens audit's, the full-catalog expectation
equals brute-force enumeration, models are reproducible, results carry their keys."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from rankaudit.ties.bruteforce import brute_force_moments
from rankaudit.ties.evaluate import evaluate
from rankbook.audit.precision import at_precision
from rankbook.audit.prepare import prepare_audit
from rankbook.audit.recommender_protocols import (
    PROTOCOL_RULES,
    chapter_results,
    evaluate_models,
    prepare_recommenders,
    protocol_frame,
)
from rankbook.audit.recommenders import (
    DEFAULT_MODELS,
    fit_and_score,
    interaction_matrix,
    with_params,
)

pytest.importorskip("cornac")
pytest.importorskip("implicit")
pytestmark = pytest.mark.real_data

SMALL = with_params(
    tuple(m for m in DEFAULT_MODELS if m.name in ("most_popular", "item_knn", "bpr", "als")),
    "bpr",
    max_iter=5,
)


@pytest.fixture(scope="module")
def run():
    return prepare_recommenders(n_rows=60, n_negatives=30, seed=42, models=SMALL)


@pytest.mark.parametrize("n_negatives", [30, 50])
def test_sampled_rows_are_the_movielens_audit_rows(n_negatives):
    ours = prepare_recommenders(n_rows=40, n_negatives=n_negatives, seed=42, models=SMALL[:1])
    audit = prepare_audit("movielens", n_rows=40, n_negatives=n_negatives, seed=42)
    np.testing.assert_array_equal(ours.rows.user_ids, audit.rows.user_ids)
    np.testing.assert_array_equal(ours.rows.item_ids, audit.rows.item_ids)
    np.testing.assert_array_equal(ours.rows.labels, audit.rows.labels)
    assert ours.rows.policy == audit.rows.policy
    frame = protocol_frame(ours, "sampled", ours.scores["most_popular"])
    stored = frame["item_id"].to_numpy().reshape(ours.rows.item_ids.shape)
    np.testing.assert_array_equal(stored, audit.rows.item_ids)
    assert (frame.groupby("row_id")["label"].first() == 1).all()  # relevant stored first


def test_full_catalog_excludes_training_items_only(run):
    frame = protocol_frame(run, "full", run.scores["bpr"])
    seen = run.train_matrix.toarray() > 0
    n_cand = frame.groupby("row_id").size().to_numpy()
    np.testing.assert_array_equal(n_cand, (~seen).sum(axis=1))
    assert (frame.groupby("row_id")["label"].sum() == 1).all()
    held = frame.loc[frame["label"] == 1, "item_id"].to_numpy()
    np.testing.assert_array_equal(held, run.rows.item_ids[:, 0])
    train = run.audit.train
    pairs = set(zip(train["user_id"], train["item_id"], strict=True))
    assert not any(p in pairs for p in zip(frame["user_id"], frame["item_id"], strict=True))


@pytest.mark.parametrize("precision", ["bfloat16", "round2", "round1"])
def test_full_catalog_expected_equals_brute_force(run, precision):
    """With one relevant item only its rank matters: the items above its tie block come first
    in every tie order and those below after, so enumerating all orders of a row made of the
    items above (distinct scores) and the block itself gives the exact expectation."""
    scores = at_precision(run.scores["als"], precision)
    frame = protocol_frame(run, "full", scores)
    ours = evaluate(frame, k=10, ties="expected").set_index("row_id")
    checked = tied = 0
    for row, group in frame.groupby("row_id"):
        s, y = group["score"].to_numpy(), group["label"].to_numpy()
        rel = s[y == 1][0]
        above, block = int((s > rel).sum()), int((s == rel).sum())
        if block > 6:
            continue
        reduced = np.concatenate([np.arange(above, 0, -1) + rel + 1.0, np.full(block, rel)])
        labels = np.zeros(above + block)
        labels[above] = 1
        means, _ = brute_force_moments(reduced, labels, 10)
        for name, value in means.items():
            assert ours.loc[row, name] == pytest.approx(value, abs=1e-12), (row, name)
        checked += 1
        tied += block > 1
    assert checked >= 5
    if precision == "round1":
        assert tied >= 3


def test_models_are_reproducible_and_seeded(run):
    users = np.union1d(run.audit.train["user_id"], run.rows.user_ids)
    matrix = interaction_matrix(run.audit.train, users, run.catalog)
    rows = pd.Index(users).get_indexer(run.rows.user_ids[:5])
    bpr = SMALL[2]
    a = fit_and_score(bpr, matrix, rows, seed=3)
    b = fit_and_score(bpr, matrix, rows, seed=3)
    c = fit_and_score(bpr, matrix, rows, seed=4)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_item_knn_scores_are_user_items_times_similarity(run):
    from implicit.nearest_neighbours import CosineRecommender

    users = np.union1d(run.audit.train["user_id"], run.rows.user_ids)
    matrix = interaction_matrix(run.audit.train, users, run.catalog)
    rows = pd.Index(users).get_indexer(run.rows.user_ids[:8])
    model = CosineRecommender(K=50, num_threads=1)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Method expects CSR input")
        model.fit(matrix, show_progress=False)
    dense = (matrix[rows] @ model.similarity).toarray()
    np.testing.assert_allclose(fit_and_score(SMALL[1], matrix, rows), dense, rtol=1e-6)


def test_bad_input_is_named(run):
    with pytest.raises(ValueError, match="not in the catalogue"):
        interaction_matrix(
            pd.DataFrame({"user_id": [1], "item_id": [10**9]}), np.array([1]), run.catalog
        )
    with pytest.raises(ValueError, match="protocol must be"):
        protocol_frame(run, "leave_one_out", run.scores["bpr"])
    with pytest.raises(ValueError, match="is not one of"):
        with_params(SMALL, "svd", k=3)


def test_results_have_the_documented_keys(run):
    metrics = evaluate_models(run)
    sweep = evaluate_models(
        run,
        precisions=("float64", "float16"),
        rules=("input_order", "expected", "pessimistic", "optimistic"),
    )
    results = chapter_results(run, metrics, sweep)
    assert {"models", "metrics", "kendall_tau", "precision_sweep"} <= set(results)
    assert set(results["models"][0]) >= {"name", "library", "version", "params"}
    assert set(results["metrics"][0]) >= {
        "model",
        "protocol",
        "precision",
        "ties",
        "hr10",
        "ndcg10",
        "rr",
        "prevalence",
        "relevant_tied_at_cutoff",
    }
    assert {r["ties"] for r in results["metrics"]} == set(PROTOCOL_RULES)
    assert set(results["kendall_tau"][0]) == {"protocol_a", "protocol_b", "ties", "tau"}
    assert set(results["kendall_tau_rules"][0]) == {"protocol", "ties_a", "ties_b", "tau"}
    assert set(results["precision_sweep"][0]) >= {
        "model",
        "precision",
        "prevalence",
        "gap_input_order_vs_expected",
    }
    assert len(results["precision_sweep"]) == 2 * 2 * len(SMALL)


def test_taus_and_settled_places_use_the_leaderboard_definitions():
    """The chapter's taus equal scipy's on distinct values, and a place is settled exactly when
    its NDCG@10 envelope overlaps no other model's (a rank interval one place wide)."""
    import pandas as pd
    from scipy.stats import kendalltau

    from rankbook.audit.recommender_protocols import kendall_taus, place_settled

    rng = np.random.default_rng(4)
    models = ["a", "b", "c", "d", "e"]
    rows = []
    for protocol in ("full", "sampled"):
        base = rng.random(len(models))
        for m, v in zip(models, base, strict=True):
            for rule, shift in (("pessimistic", -0.05), ("expected", 0.0), ("optimistic", 0.05)):
                rows.append(
                    dict(
                        model=m, protocol=protocol, precision="float64", ties=rule, ndcg10=v + shift
                    )
                )
    metrics = pd.DataFrame(rows)
    for t in kendall_taus(metrics):
        by = metrics[metrics["ties"] == t["ties"]].pivot(
            index="model", columns="protocol", values="ndcg10"
        )
        assert t["tau"] == pytest.approx(kendalltau(by["full"], by["sampled"]).statistic)
    settled = place_settled(metrics).set_index(["protocol", "model"])
    for protocol in ("full", "sampled"):
        part = settled.loc[protocol]
        for m in models:
            lo, hi = part.loc[m, "pessimistic"], part.loc[m, "optimistic"]
            overlaps = any(
                lo <= part.loc[o, "optimistic"] and part.loc[o, "pessimistic"] <= hi
                for o in models
                if o != m
            )
            assert bool(part.loc[m, "settled"]) == (not overlaps)
