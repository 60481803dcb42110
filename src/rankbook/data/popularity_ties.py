"""Popularity ties at the top-k boundary: the quickstart's first look at exact ties.

For each user, the candidates are the items the user has not rated and the score is item
popularity (number of ratings in the data). With scores sorted in descending order,
``s_(k)`` is the k-th largest; the *boundary tie block* is the set of candidates whose score
equals ``s_(k)`` (Guo et al. 2026, §3.1: a tie block crossing the top-k boundary decides
top-k membership by tie-breaking alone). Its size is 1 when the boundary is untied.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["largest_cutoff", "popularity_tie_profile"]


def largest_cutoff(ratings: pd.DataFrame) -> int:
    """The largest ``k`` :func:`popularity_tie_profile` accepts for every user: the fewest
    unrated items any user has (so a chapter can check ``k`` before it computes anything)."""
    n_items = ratings["item_id"].nunique()
    rated = ratings.drop_duplicates(["user_id", "item_id"]).groupby("user_id").size()
    return int(n_items - rated.max()) if len(rated) else 0


def popularity_tie_profile(
    ratings: pd.DataFrame, *, n_users: int | str = "all", k: int = 10, seed: int = 0
) -> pd.DataFrame:
    """Per sampled user: the k-th largest popularity among unrated items and its tie block size.

    Returns columns ``user_id, n_candidates, boundary_score, boundary_block_size,
    crosses_boundary``. ``crosses_boundary`` is true when the block also holds a candidate
    ranked below ``k`` (``#{s_i > s_(k)} + |B_k| > k``), so that tie-breaking alone decides
    which candidates make the top k; a block of size > 1 lying entirely inside the top k
    does not.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1; got {k}.")
    users, user_idx = np.unique(ratings["user_id"].to_numpy(), return_inverse=True)
    items, item_idx = np.unique(ratings["item_id"].to_numpy(), return_inverse=True)
    popularity = np.bincount(item_idx, minlength=items.size).astype(np.int64)
    rated = np.zeros((users.size, items.size), dtype=bool)
    rated[user_idx, item_idx] = True
    rng = np.random.default_rng(seed)
    if n_users == "all" or int(n_users) >= users.size:
        chosen = np.arange(users.size)
    else:
        chosen = np.sort(rng.choice(users.size, size=int(n_users), replace=False))
    unrated = ~rated[chosen]
    n_candidates = unrated.sum(axis=1)
    if (n_candidates < k).any():
        bad = int(users[chosen][np.argmax(n_candidates < k)])
        raise ValueError(f"user {bad} has fewer than k={k} unrated items.")
    scores = np.where(unrated, popularity[None, :], -1)
    kth = -np.partition(-scores, k - 1, axis=1)[:, k - 1]
    block = ((scores == kth[:, None]) & unrated).sum(axis=1)
    above = ((scores > kth[:, None]) & unrated).sum(axis=1)
    return pd.DataFrame(
        {
            "user_id": users[chosen],
            "n_candidates": n_candidates,
            "boundary_score": kth,
            "boundary_block_size": block,
            "crosses_boundary": above + block > k,
        }
    )
