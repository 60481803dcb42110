"""A plain, sort-based ranking of rectangular rows under a deterministic tie rule.

The rules themselves are declared once, in :mod:`rankaudit.measures.rules`.

What a tie is: two candidates of a row tie when their scores are *exactly equal as
given* -- no rounding, no tolerance.  float32 scores are compared as float32 and
float64 as float64 (``np.float32(0.1)`` and ``0.1`` are different numbers);
``-0.0`` equals ``0.0``; integers are compared exactly at any size (integers
beyond 2**53 and long doubles are replaced by their rank, which keeps every
``>`` and ``==``, never cast lossily to float64).  NaN and infinite scores are
refused.

A rule is *row-order invariant* when permuting a row's candidates (keeping
their ids, labels and scores) leaves the metric unchanged; all rules except
``input_order`` are.

:func:`rank_candidates` is the plain, sort-based reference that materialises
the ranking of every row (``np.lexsort``); the evaluation kernels never sort.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rankaudit._checks import check_not_masked
from rankaudit.measures.hashing import normalize_ids, tie_hash_array
from rankaudit.measures.rules import DETERMINISTIC_RULES, TIE_RULES, check_rule

__all__ = ["DETERMINISTIC_RULES", "TIE_RULES", "check_rule", "rank_candidates"]


def rank_candidates(
    scores: np.ndarray,
    labels: np.ndarray | None = None,
    *,
    ties: str = "hash",
    seed: int = 0,
    user_ids: Sequence[object] | np.ndarray | None = None,
    item_ids: np.ndarray | None = None,
) -> np.ndarray:
    """Rank the candidates of each row of a rectangular batch under a deterministic rule.

    Parameters
    ----------
    scores
        ``(rows, candidates)`` scores; higher is better.
    labels
        ``(rows, candidates)`` labels; needed by ``pessimistic`` / ``optimistic``.
    ties
        One of ``input_order``, ``hash``, ``pessimistic``, ``optimistic``.
    seed, user_ids, item_ids
        Hash inputs (``hash`` only).  Without ``user_ids`` the row position is
        the user id.

    Returns
    -------
    numpy.ndarray
        ``order`` of shape ``(rows, candidates)``: ``order[i, r]`` is the
        candidate at rank ``r + 1`` of row ``i``.
    """
    check_rule(ties)
    if ties not in DETERMINISTIC_RULES:
        raise ValueError(
            f"ties={ties!r} does not define one ranking; rank_candidates accepts "
            f"{', '.join(DETERMINISTIC_RULES)}"
        )
    for name, value in {"scores": scores, "labels": labels}.items():
        check_not_masked(value, name)
    s = np.asarray(scores)
    if s.ndim != 2:
        raise ValueError(f"scores must be 2-D (rows, candidates); got shape {s.shape}")
    if s.dtype not in (np.float32, np.float64):  # ints of any size, long doubles: exact order
        s = np.unique(s, return_inverse=True)[1].reshape(s.shape).astype(np.float64)
    position = np.broadcast_to(np.arange(s.shape[1]), s.shape)
    if ties == "input_order":
        keys: tuple[np.ndarray, ...] = (position, -s)
    elif ties in ("pessimistic", "optimistic"):
        if labels is None:
            raise ValueError(f"labels are required for ties={ties!r}")
        y = np.asarray(labels, dtype=np.float64)
        keys = (position, y if ties == "pessimistic" else -y, -s)
    else:
        if item_ids is None:
            raise ValueError("item_ids are required for ties='hash'")
        users = np.arange(s.shape[0]) if user_ids is None else np.asarray(user_ids)
        _, fallback = normalize_ids(item_ids, "item_ids")
        h = tie_hash_array(seed, users.reshape(-1, 1), np.asarray(item_ids))
        keys = (fallback, h, -s)
    return np.lexsort(keys, axis=-1)
