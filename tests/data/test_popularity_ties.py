from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rankbook.data.popularity_ties import popularity_tie_profile


def _brute(ratings, k):
    pop = ratings.groupby("item_id").size()
    rows = []
    for user, seen in ratings.groupby("user_id")["item_id"]:
        cand = sorted((pop[i] for i in pop.index if i not in set(seen)), reverse=True)
        rows.append((user, cand[k - 1], sum(c == cand[k - 1] for c in cand)))
    return rows


@pytest.mark.parametrize("k", [1, 2, 3])
def test_matches_brute_force(k):
    rng = np.random.default_rng(k)
    ratings = pd.DataFrame(
        {"user_id": rng.integers(0, 6, 60), "item_id": rng.integers(0, 25, 60)}
    ).drop_duplicates()
    profile = popularity_tie_profile(ratings, k=k)
    got = list(
        zip(profile.user_id, profile.boundary_score, profile.boundary_block_size, strict=True)
    )
    assert got == _brute(ratings, k)


def test_too_few_candidates_is_an_error():
    ratings = pd.DataFrame({"user_id": [1, 1], "item_id": [1, 2]})
    with pytest.raises(ValueError, match="fewer than k=5"):
        popularity_tie_profile(ratings, k=5)


def test_crosses_boundary_against_brute_force():
    rng = np.random.default_rng(3)
    ratings = pd.DataFrame(
        {
            "user_id": rng.integers(0, 12, 400),
            "item_id": rng.integers(0, 60, 400),
        }
    ).drop_duplicates()
    k = 5
    profile = popularity_tie_profile(ratings, n_users="all", k=k)
    pop = ratings["item_id"].value_counts()
    for row in profile.itertuples():
        rated = set(ratings.loc[ratings.user_id == row.user_id, "item_id"])
        cand = np.sort([pop[i] for i in pop.index if i not in rated])[::-1]
        kth = cand[k - 1]
        assert row.crosses_boundary == bool((cand[k:] == kth).any())
