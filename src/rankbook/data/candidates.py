"""Sampled candidate rows: one held-out relevant item first, followed by sampled negatives.

This is the row design of the tie audit (Guo et al., 2026, "Tie Handling Is Part of the
Evaluation Protocol", arXiv:2609.26977, §4.1), itself the common "1 positive + n sampled
negatives" protocol (Koren, KDD 2008; He et al., WWW 2017):

1. **Deduplication.** Repeated ``(user, item)`` interactions are collapsed to the latest one
   before anything else (their number is recorded in ``policy``), so a held-out item can never
   also sit in the training history.
2. **Hold-out.** For every user with at least one positive interaction (``rating >= min_rating``)
   and at least ``min_train`` other interactions, the latest positive (by timestamp, then by item
   id for equal timestamps) is held out; all the user's other interactions form the training
   history. The other users give no row, and ``policy`` counts them by reason:
   ``n_users_no_positive`` (no interaction with ``rating >= min_rating``) and
   ``n_users_short_history`` (a positive, but fewer than ``min_train`` other interactions), so
   ``n_users = n_users_no_positive + n_users_short_history + n_eligible``.
3. **Rows.** ``n_rows`` held-out users are drawn uniformly without replacement (or all of them),
   kept in user-id order.
4. **Negatives.** ``n_negatives`` items per row, a uniform sample without replacement from the
   items of ``item_pool`` the user never interacted with (in training or test). Sampling is
   vectorised rejection sampling: i.i.d. uniform draws from the pool, discarding rated items and
   repeats, keeping the first ``n_negatives`` survivors; that is exactly a uniform random subset.
5. **Order.** The relevant item is stored *first* (column 0), the negatives after it in draw
   order; rows are not shuffled. This is the layout that lets a stable sort hand the relevant
   item every tie.

One ``numpy.random.default_rng(seed)`` drives steps 3 and 4, so the rows are a function of
``(ratings, n_negatives, seed, n_rows, min_rating, min_train, item_pool)``. Rows are saved with
their ids (:meth:`CandidateRows.to_frame`) so readers can reconstruct them exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rankaudit._checks import check_positive_int
from rankaudit.scalars import plain

__all__ = ["CandidateRows", "build_candidate_rows", "holdout_latest_positive", "sample_negatives"]

_REQUIRED = ("user_id", "item_id", "rating", "timestamp")


@dataclass(frozen=True)
class CandidateRows:
    """Candidate rows: ``item_ids[r, 0]`` is row ``r``'s held-out relevant item.

    ``user_ids`` has shape ``(n,)``; ``item_ids`` and ``labels`` ``(n, 1 + n_negatives)``;
    ``labels`` is 1 in column 0 and 0 elsewhere. ``policy`` records how the rows were built.
    """

    user_ids: np.ndarray
    item_ids: np.ndarray
    labels: np.ndarray
    seed: int
    policy: dict[str, Any] = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        return int(self.item_ids.shape[0])

    @property
    def n_candidates(self) -> int:
        return int(self.item_ids.shape[1])

    def to_frame(self, scores: dict[str, np.ndarray] | None = None) -> pd.DataFrame:
        """Long format, one line per candidate: ``row, user_id, position, item_id, label`` and
        one ``score_<name>`` column per score array (shape ``(n, m)``, float64)."""
        n, m = self.item_ids.shape
        frame = pd.DataFrame(
            {
                "row": np.repeat(np.arange(n, dtype=np.int64), m),
                "user_id": np.repeat(self.user_ids, m),
                "position": np.tile(np.arange(m, dtype=np.int64), n),
                "item_id": self.item_ids.ravel(),
                "label": self.labels.ravel().astype(np.int8),
            }
        )
        for name, values in (scores or {}).items():
            values = np.asarray(values, dtype=np.float64)
            if values.shape != (n, m):
                raise ValueError(f"scores[{name!r}] has shape {values.shape}, expected {(n, m)}")
            frame[f"score_{name}"] = values.ravel()
        return frame

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, seed: int, policy: dict | None = None):
        """Rebuild rows (and the score arrays) from :meth:`to_frame` output.

        Returns ``(rows, scores)``. Raises ``ValueError`` if the frame is not complete and
        rectangular (every row has positions ``0..m-1`` in order).
        """
        for column in ("row", "user_id", "position", "item_id", "label"):
            if column not in frame.columns:
                raise ValueError(f"frame lacks column {column!r}")
        frame = frame.sort_values(["row", "position"], kind="stable")
        rows = frame["row"].to_numpy()
        n = int(rows.max()) + 1 if len(rows) else 0
        if n == 0 or len(frame) % n:
            raise ValueError(f"frame with {len(frame)} lines cannot hold {n} rectangular rows")
        m = len(frame) // n
        expected_pos = np.tile(np.arange(m), n)
        expected_row = np.repeat(np.arange(n), m)
        bad = np.flatnonzero(
            (frame["position"].to_numpy() != expected_pos) | (rows != expected_row)
        )
        if bad.size:
            raise ValueError(f"frame is not rectangular: first bad line has row {rows[bad[0]]}")
        user = frame["user_id"].to_numpy().reshape(n, m)
        if (user != user[:, :1]).any():
            raise ValueError("frame has a row whose user_id changes between positions")
        out = cls(
            user_ids=user[:, 0].copy(),
            item_ids=frame["item_id"].to_numpy().reshape(n, m),
            labels=frame["label"].to_numpy().reshape(n, m).astype(np.int8),
            seed=seed,
            policy=dict(policy or {}),
        )
        scores = {
            c.removeprefix("score_"): frame[c].to_numpy(np.float64).reshape(n, m)
            for c in frame.columns
            if c.startswith("score_")
        }
        return out, scores


def _check_ratings(ratings: pd.DataFrame) -> None:
    missing = [c for c in _REQUIRED if c not in ratings.columns]
    if missing:
        raise ValueError(f"ratings lacks column(s) {missing}; has {list(ratings.columns)}")
    if len(ratings) == 0:
        raise ValueError("ratings has no rows")
    bad = ratings["rating"].isna() | ratings["timestamp"].isna()
    if bad.any():
        raise ValueError(
            f"ratings row {int(np.flatnonzero(bad.to_numpy())[0])} has a missing rating or "
            f"timestamp"
        )


def holdout_latest_positive(
    ratings: pd.DataFrame, *, min_rating: float = 4.0, min_train: int = 1
) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Split ``ratings[user_id, item_id, rating, timestamp]`` into ``(train, heldout, n_dupes)``.

    ``heldout`` has one line per eligible user (latest positive, ties in timestamp broken by the
    largest item id), sorted by user id; ``train`` is every other interaction of *all* users
    (it is also the popularity source). ``n_dupes`` counts collapsed repeated (user, item) pairs.
    """
    _check_ratings(ratings)
    if min_train < 0:
        raise ValueError(f"min_train must be >= 0, got {min_train}")
    data = ratings[list(_REQUIRED)].sort_values(["user_id", "timestamp", "item_id"], kind="stable")
    dup = data.duplicated(["user_id", "item_id"], keep="last")
    n_dupes = int(dup.sum())
    data = data.loc[~dup].reset_index(drop=True)
    positive = data["rating"].to_numpy() >= min_rating
    last_pos = data.loc[positive].groupby("user_id", sort=True).tail(1)
    history = data.groupby("user_id", sort=True).size()
    eligible = last_pos["user_id"].map(history).to_numpy() - 1 >= min_train
    heldout = last_pos.loc[eligible]
    train = data.drop(index=heldout.index).reset_index(drop=True)
    return train, heldout.reset_index(drop=True), n_dupes


def sample_negatives(
    user_codes: np.ndarray,
    rated_keys: np.ndarray,
    n_pool: int,
    n_negatives: int,
    rng: np.random.Generator,
    *,
    max_rounds: int = 10_000,
) -> np.ndarray:
    """Vectorised uniform sampling without replacement of pool indices a user never rated.

    ``user_codes``: ``(n,)`` integer user codes; ``rated_keys``: sorted unique
    ``user_code * n_pool + item_index`` of rated pairs. Returns ``(n, n_negatives)`` pool
    indices. Every round draws a block of i.i.d. uniform indices per unfinished row and keeps the
    first distinct unrated ones, which is a uniform random ``n_negatives``-subset.
    """
    n = len(user_codes)
    out = np.full((n, n_negatives), -1, dtype=np.int64)
    if n_negatives == 0:
        return out
    active = np.arange(n)
    block = 2 * n_negatives + 8
    for _ in range(max_rounds):
        if active.size == 0:
            return out
        draws = rng.integers(0, n_pool, size=(active.size, block))
        cand = np.concatenate([out[active], draws], axis=1)
        keys = user_codes[active, None] * n_pool + cand
        pos = np.searchsorted(rated_keys, keys).clip(max=max(len(rated_keys) - 1, 0))
        rated = rated_keys[pos] == keys if len(rated_keys) else np.zeros(cand.shape, bool)
        order = np.argsort(cand, axis=1, kind="stable")
        sorted_c = np.take_along_axis(cand, order, axis=1)
        first_sorted = np.ones(cand.shape, dtype=bool)
        first_sorted[:, 1:] = sorted_c[:, 1:] != sorted_c[:, :-1]
        first = np.empty_like(first_sorted)
        np.put_along_axis(first, order, first_sorted, axis=1)
        valid = (cand >= 0) & ~rated & first
        rank = np.cumsum(valid, axis=1)
        take = valid & (rank <= n_negatives)
        r, c = np.nonzero(take)
        filled = np.full((active.size, n_negatives), -1, dtype=np.int64)
        filled[r, rank[r, c] - 1] = cand[r, c]
        out[active] = filled
        active = active[(filled < 0).any(axis=1)]
    raise RuntimeError(f"negative sampling did not finish in {max_rounds} rounds")


def build_candidate_rows(
    ratings: pd.DataFrame,
    *,
    n_negatives: int = 30,
    seed: int = 42,
    n_rows: int | None = None,
    min_rating: float = 4.0,
    min_train: int = 1,
    item_pool: np.ndarray | None = None,
) -> tuple[CandidateRows, pd.DataFrame]:
    """Build audit rows from interactions; see the module docstring for every step.

    Returns ``(rows, train)``. ``n_rows=None`` keeps every eligible user; a larger ``n_rows``
    than there are eligible users also keeps them all (``policy["n_rows_requested"]`` and
    ``policy["n_eligible"]`` record both). ``item_pool`` defaults to every item in ``ratings``.
    """
    check_positive_int(n_negatives, "n_negatives")
    if n_rows is not None:
        check_positive_int(n_rows, "n_rows")
    train, heldout, n_dupes = holdout_latest_positive(
        ratings, min_rating=min_rating, min_train=min_train
    )
    if len(heldout) == 0:
        raise ValueError(
            f"no user has a positive (rating >= {min_rating}) and {min_train} other interactions"
        )
    rng = np.random.default_rng(seed)
    n_eligible = len(heldout)
    kept = pd.concat([train, heldout])  # the deduplicated interactions of every user
    n_users = int(kept["user_id"].nunique())
    n_with_positive = int(kept.loc[kept["rating"] >= min_rating, "user_id"].nunique())
    if n_rows is not None and n_rows < n_eligible:
        keep = np.sort(rng.choice(n_eligible, size=int(n_rows), replace=False))
        heldout = heldout.iloc[keep].reset_index(drop=True)

    pool = pd.Index(pd.unique(ratings["item_id"]) if item_pool is None else np.asarray(item_pool))
    pool = pool.sort_values()
    if pool.has_duplicates:
        raise ValueError("item_pool has duplicate item ids")
    users = pd.Index(heldout["user_id"].to_numpy())
    user_codes = np.arange(len(users), dtype=np.int64)
    held_idx = pool.get_indexer(heldout["item_id"].to_numpy())
    if (held_idx < 0).any():
        bad = heldout["item_id"].to_numpy()[held_idx < 0][0]
        raise ValueError(f"held-out item {plain(bad)!r} is not in item_pool")

    seen = pd.concat([train[["user_id", "item_id"]], heldout[["user_id", "item_id"]]])
    seen_u = users.get_indexer(seen["user_id"].to_numpy())
    seen_i = pool.get_indexer(seen["item_id"].to_numpy())
    mask = (seen_u >= 0) & (seen_i >= 0)
    rated_keys = np.unique(seen_u[mask].astype(np.int64) * len(pool) + seen_i[mask])
    n_rated = np.bincount(seen_u[mask], minlength=len(users))
    short = np.flatnonzero(len(pool) - n_rated < n_negatives)
    if short.size:
        raise ValueError(
            f"user {plain(users[short[0]])!r} has only {len(pool) - n_rated[short[0]]} unrated "
            f"items "
            f"in item_pool, fewer than n_negatives={n_negatives}"
        )
    neg = sample_negatives(user_codes, rated_keys, len(pool), int(n_negatives), rng)
    item_index = np.concatenate([held_idx[:, None], neg], axis=1)
    labels = np.zeros(item_index.shape, dtype=np.int8)
    labels[:, 0] = 1
    policy = {
        "evaluation": "sampled",
        "relevant_position": "first",
        "rows_shuffled": False,
        "n_negatives": int(n_negatives),
        "negative_sampling": "uniform without replacement from item_pool items the user never "
        "interacted with",
        "exclusion": "all of the user's training and held-out interactions",
        "dedup": "repeated (user, item) interactions collapsed to the latest before the split",
        "n_duplicate_interactions_collapsed": n_dupes,
        "holdout": f"latest interaction with rating >= {min_rating} (ties: largest item id)",
        "min_rating": float(min_rating),
        "min_train": int(min_train),
        "item_pool_size": int(len(pool)),
        "n_users": n_users,
        "n_users_no_positive": n_users - n_with_positive,
        "n_users_short_history": n_with_positive - int(n_eligible),
        "n_eligible": int(n_eligible),
        "n_rows_requested": None if n_rows is None else int(n_rows),
        "n_rows": int(len(users)),
        "seed": int(seed),
    }
    rows = CandidateRows(
        user_ids=users.to_numpy(),
        item_ids=pool.to_numpy()[item_index],
        labels=labels,
        seed=int(seed),
        policy=policy,
    )
    return rows, train
