"""Two systems that are one: the same order of every row's candidates, ties included.

Two score matrices ``a`` and ``b`` (rows x candidates, the same candidates in the same storage
order) rank alike when, in every row, every two candidates compare the same way:
``sign(a_i - a_j) == sign(b_i - b_j)`` for all ``i, j``.  Then every tie rule, trec_eval's
docno tie-break included, puts every candidate at the same place, and every measure, every
per-query value and every paired difference between the two is exactly 0: one system counted
twice in a leaderboard (e.g. Cornac's ``MostPop`` and the popularity family, both the number
of training interactions of an item).

Public API: :func:`same_ranking`, :func:`duplicate_of`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["duplicate_of", "same_ranking"]


def _check(scores: np.ndarray, name: str) -> np.ndarray:
    out = np.asarray(scores, dtype=np.float64)
    if out.ndim != 2:
        raise ValueError(f"{name} must be a rows x candidates matrix, got shape {out.shape}")
    if np.isnan(out).any():
        raise ValueError(f"{name} holds NaN scores (row {int(np.isnan(out).any(axis=1).argmax())})")
    return out


def same_ranking(a: np.ndarray, b: np.ndarray) -> bool:
    """True when every row of ``a`` and ``b`` orders its candidates alike, ties included
    (module docstring); ``O(rows x candidates^2)`` comparisons, done row block by row block."""
    a, b = _check(a, "a"), _check(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same shape, got {a.shape} and {b.shape}")
    step = max(1, 2_000_000 // max(1, a.shape[1] ** 2))
    for lo in range(0, a.shape[0], step):
        sa = np.sign(a[lo : lo + step, :, None] - a[lo : lo + step, None, :])
        sb = np.sign(b[lo : lo + step, :, None] - b[lo : lo + step, None, :])
        if not np.array_equal(sa, sb):
            return False
    return True


def duplicate_of(scores: np.ndarray, others: Mapping[str, np.ndarray]) -> str | None:
    """The first name of ``others`` whose scores rank every row as ``scores`` does, or None."""
    for name, other in others.items():
        if same_ranking(scores, other):
            return str(name)
    return None
