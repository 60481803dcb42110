"""Shared plumbing for the score families: id lookups, user attribute profiles and exact
per-pattern evaluation (so that candidates with identical features get bit-identical scores)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import sparse

from rankaudit.scalars import plain

__all__ = ["attribute_matrix", "item_rows", "user_profile_sums", "by_pattern", "check_inputs"]


def check_inputs(
    user_ids: np.ndarray, item_ids: np.ndarray, train: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray]:
    user_ids = np.asarray(user_ids)
    item_ids = np.asarray(item_ids)
    if item_ids.ndim != 2:
        raise ValueError(f"item_ids must be 2-D (rows, candidates), got shape {item_ids.shape}")
    if user_ids.shape != (item_ids.shape[0],):
        raise ValueError(f"user_ids has shape {user_ids.shape}, expected ({item_ids.shape[0]},)")
    missing = [c for c in ("user_id", "item_id", "rating") if c not in train.columns]
    if missing:
        raise ValueError(f"train lacks column(s) {missing}")
    return user_ids, item_ids


def attribute_matrix(attributes: pd.DataFrame) -> np.ndarray:
    """The attribute table as float64, refusing NaN/inf and duplicate item ids."""
    if attributes.index.has_duplicates:
        dup = plain(attributes.index[attributes.index.duplicated()][0])
        raise ValueError(f"attributes index has duplicate item id {dup!r}")
    values = attributes.to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(
            f"attributes[{plain(attributes.index[r])!r}, {plain(attributes.columns[c])!r}] is not "
            f"finite"
        )
    return values


def item_rows(attributes: pd.DataFrame, item_ids: np.ndarray, what: str = "item_ids") -> np.ndarray:
    """Row index of each item id in ``attributes`` (same shape); unknown ids raise ValueError."""
    idx = attributes.index.get_indexer(np.asarray(item_ids).ravel()).reshape(np.shape(item_ids))
    if (idx < 0).any():
        bad = plain(np.asarray(item_ids)[idx < 0].ravel()[0])
        raise ValueError(f"{what}: item {bad!r} has no row in attributes")
    return idx


def user_profile_sums(
    user_ids: np.ndarray, train: pd.DataFrame, attributes: pd.DataFrame, *, weight: str
) -> tuple[np.ndarray, np.ndarray]:
    """``(S, total)`` with ``S[r, a] = sum_{j in H(u_r)} w_j A[j, a]`` and ``total[r] = sum_j w_j``.

    ``weight="count"`` uses ``w_j = 1``, ``weight="rating"`` uses ``w_j = r_{u j}``. ``H(u)`` is the
    user's training history. Sums of integers (or half-stars) are exact in float64.
    """
    users = pd.Index(pd.unique(np.asarray(user_ids)))
    hist = train.loc[train["user_id"].isin(users)]
    u = users.get_indexer(hist["user_id"].to_numpy())
    j = item_rows(attributes, hist["item_id"].to_numpy(), "train.item_id")
    w = np.ones(len(hist)) if weight == "count" else hist["rating"].to_numpy(np.float64)
    if not np.isfinite(w).all():
        raise ValueError("train.rating has a missing or infinite value")
    a = attribute_matrix(attributes)
    m = sparse.csr_matrix((w, (u, j)), shape=(len(users), len(attributes)))
    sums = np.asarray(m @ a)
    total = np.bincount(u, weights=w, minlength=len(users))
    r = users.get_indexer(np.asarray(user_ids))
    return sums[r], total[r]


def by_pattern(
    keys: np.ndarray, compute: Callable[[np.ndarray, np.ndarray], np.ndarray], chunk: int = 200_000
) -> np.ndarray:
    """Evaluate ``compute(row, key)`` once per distinct ``(row, key)`` pair and broadcast it.

    ``keys`` is ``(n, m)``: an integer id of each candidate's feature pattern. Candidates of one
    row with the same pattern thus get bit-identical scores, whatever the floating-point
    summation order of the vectorised kernel.
    """
    n, m = keys.shape
    rows = np.repeat(np.arange(n, dtype=np.int64), m)
    pair = rows * (int(keys.max()) + 1) + keys.ravel()
    uniq, inverse = np.unique(pair, return_inverse=True)
    u_rows, u_keys = np.divmod(uniq, int(keys.max()) + 1)
    values = np.empty(len(uniq), dtype=np.float64)
    for start in range(0, len(uniq), chunk):
        sl = slice(start, start + chunk)
        values[sl] = compute(u_rows[sl], u_keys[sl])
    return values[inverse].reshape(n, m)


def pattern_ids(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(patterns, ids)``: the distinct rows of ``matrix`` and each row's pattern id."""
    patterns, ids = np.unique(matrix, axis=0, return_inverse=True)
    return patterns, ids.ravel()


def candidate_dot(
    a: np.ndarray, idx: np.ndarray, user_vecs: np.ndarray, chunk: int = 4096
) -> np.ndarray:
    """``out[r, c] = a[idx[r, c]] @ user_vecs[r]`` in row chunks (bounded memory)."""
    n, m = idx.shape
    out = np.empty((n, m), dtype=np.float64)
    for start in range(0, n, chunk):
        sl = slice(start, start + chunk)
        out[sl] = np.einsum("nma,na->nm", a[idx[sl]], user_vecs[sl])
    return out
