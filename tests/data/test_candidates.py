"""Candidate rows: hold-out, exclusion, dedup, uniform sampling, seeds and reconstruction."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook.data.candidates import (
    CandidateRows,
    build_candidate_rows,
    holdout_latest_positive,
    sample_negatives,
)


def _ratings(seed: int = 0, n_users: int = 40, n_items: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(n_users):
        items = rng.choice(n_items, size=int(rng.integers(3, 15)), replace=False)
        for t, i in enumerate(items):
            rows.append((u, int(i), float(rng.integers(1, 6)), 1000 + t))
    return pd.DataFrame(rows, columns=["user_id", "item_id", "rating", "timestamp"])


def test_holdout_is_latest_positive_with_item_tiebreak() -> None:
    r = pd.DataFrame(
        {
            "user_id": [1, 1, 1, 1, 2, 2],
            "item_id": [10, 11, 12, 13, 10, 11],
            "rating": [5.0, 4.0, 4.0, 2.0, 3.0, 2.0],
            "timestamp": [1, 2, 2, 3, 1, 2],
        }
    )
    train, held, dupes = holdout_latest_positive(r)
    assert held[["user_id", "item_id"]].values.tolist() == [
        [1, 12]
    ]  # 11/12 tie in time -> larger id
    assert dupes == 0 and len(train) == 5  # user 2 has no positive: stays in train, no row


def test_dedup_collapses_repeats_before_split() -> None:
    r = pd.DataFrame(
        {
            "user_id": [1, 1, 1],
            "item_id": [5, 6, 5],
            "rating": [4.0, 3.0, 5.0],
            "timestamp": [1, 2, 3],
        }
    )
    train, held, dupes = holdout_latest_positive(r)
    assert dupes == 1 and held["item_id"].tolist() == [5] and train["item_id"].tolist() == [6]


def test_rows_relevant_first_and_negatives_never_rated() -> None:
    ratings = _ratings()
    rows, train = build_candidate_rows(ratings, n_negatives=10, seed=42)
    assert rows.item_ids.shape == (rows.n_rows, 11)
    assert (rows.labels[:, 0] == 1).all() and (rows.labels[:, 1:] == 0).all()
    rated = set(zip(ratings["user_id"], ratings["item_id"], strict=True))
    for u, items in zip(rows.user_ids, rows.item_ids, strict=True):
        assert (u, items[0]) in rated
        assert not any((u, i) in rated for i in items[1:])
        assert len(set(items)) == len(items)
    assert rows.policy["relevant_position"] == "first" and rows.policy["seed"] == 42


def test_same_seed_same_rows_other_seed_differs() -> None:
    ratings = _ratings()
    a, _ = build_candidate_rows(ratings, n_negatives=8, seed=42, n_rows=20)
    b, _ = build_candidate_rows(ratings, n_negatives=8, seed=42, n_rows=20)
    c, _ = build_candidate_rows(ratings, n_negatives=8, seed=43, n_rows=20)
    np.testing.assert_array_equal(a.item_ids, b.item_ids)
    assert not np.array_equal(a.item_ids, c.item_ids)
    assert a.n_rows == 20 and a.policy["n_eligible"] > 20


def test_n_rows_larger_than_eligible_keeps_all() -> None:
    rows, _ = build_candidate_rows(_ratings(), n_negatives=5, n_rows=10_000)
    assert rows.n_rows == rows.policy["n_eligible"] and rows.policy["n_rows_requested"] == 10_000


def test_policy_counts_the_users_that_give_no_row_by_reason() -> None:
    """Users without a positive and users whose positive leaves too short a history give no row;
    the policy counts each, and with the eligible users they make up every user."""
    lines = [
        (1, 0, 5.0, 1), (1, 1, 4.0, 2),  # eligible: a positive and one other interaction
        (2, 0, 2.0, 1), (2, 1, 3.0, 2),  # no rating >= 4: nothing to hold out
        (3, 2, 5.0, 1),  # a positive and nothing else to train on
        (4, 3, 4.0, 1), (4, 3, 1.0, 2),  # its repeat collapses to the later 1.0: no positive
        (5, 4, 5.0, 1), (5, 5, 1.0, 2), (5, 6, 2.0, 3),  # eligible
    ]
    ratings = pd.DataFrame(lines, columns=["user_id", "item_id", "rating", "timestamp"])
    rows, _ = build_candidate_rows(ratings, n_negatives=2, item_pool=np.arange(20))
    policy = rows.policy
    assert (policy["n_users"], policy["n_eligible"], rows.n_rows) == (5, 2, 2)
    assert policy["n_users_no_positive"] == 2 and policy["n_users_short_history"] == 1
    assert policy["min_rating"] == 4.0
    stricter, _ = build_candidate_rows(ratings, n_negatives=2, item_pool=np.arange(20), min_train=2)
    assert stricter.policy["n_users_short_history"] == 2 and stricter.policy["n_eligible"] == 1


def test_negatives_are_uniform_over_unrated_items() -> None:
    # one user who rated items 0..4; pool 0..19: every unrated item equally likely
    n_pool, rated = 20, np.arange(5)
    keys = np.sort(rated)  # user code 0
    rng = np.random.default_rng(0)
    draws = sample_negatives(np.zeros(4000, np.int64), keys, n_pool, 3, rng)
    assert draws.min() >= 5
    counts = np.bincount(draws.ravel(), minlength=n_pool)[5:]
    expected = draws.size / 15
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 36.1  # chi-square, 14 dof, p = 0.001


def test_too_few_unrated_items_is_an_error() -> None:
    r = pd.DataFrame(
        {
            "user_id": [1, 1, 1, 2],
            "item_id": [1, 2, 3, 4],
            "rating": [5.0] * 4,
            "timestamp": [1, 2, 3, 4],
        }
    )
    with pytest.raises(ValueError, match="user 1 has only 1 unrated items"):
        build_candidate_rows(r, n_negatives=2)


def test_bad_parameters_name_themselves() -> None:
    with pytest.raises(ValueError, match="n_negatives"):
        build_candidate_rows(_ratings(), n_negatives=0)
    with pytest.raises(ValueError, match="n_rows"):
        build_candidate_rows(_ratings(), n_rows=0)
    with pytest.raises(ValueError, match="lacks column"):
        build_candidate_rows(_ratings().drop(columns="timestamp"))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 12))
def test_frame_round_trip_reconstructs_rows(seed: int, n_neg: int) -> None:
    rows, _ = build_candidate_rows(_ratings(seed % 7), n_negatives=n_neg, seed=seed)
    scores = {"x": np.random.default_rng(seed).random(rows.item_ids.shape)}
    back, back_scores = CandidateRows.from_frame(rows.to_frame(scores), seed=seed)
    np.testing.assert_array_equal(back.item_ids, rows.item_ids)
    np.testing.assert_array_equal(back.user_ids, rows.user_ids)
    np.testing.assert_array_equal(back.labels, rows.labels)
    np.testing.assert_array_equal(back_scores["x"], scores["x"])


def test_from_frame_rejects_ragged() -> None:
    rows, _ = build_candidate_rows(_ratings(), n_negatives=3)
    frame = rows.to_frame().iloc[:-1]
    with pytest.raises(ValueError, match="rectangular"):
        CandidateRows.from_frame(frame, seed=0)


def test_string_ids_work() -> None:
    r = _ratings()
    r["user_id"] = "U" + r["user_id"].astype(str)
    r["item_id"] = "I" + r["item_id"].astype(str)
    rows, _ = build_candidate_rows(r, n_negatives=4)
    assert str(rows.item_ids[0, 0]).startswith("I")
