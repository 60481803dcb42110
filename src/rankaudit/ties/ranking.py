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
from rankaudit.measures.hashing import (
    hash_order_ranks,
    ids_to_keys,
    normalize_ids,
    splitmix64,
    splitmix64_array,
)
from rankaudit.measures.rules import DETERMINISTIC_RULES, TIE_RULES, check_rule, rule

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
    declared = rule(ties)
    if not declared.deterministic:
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
    if declared.order == "bound":
        if labels is None:
            raise ValueError(f"labels are required for ties={ties!r}")
        y = np.asarray(labels, dtype=np.float64)
        keys: tuple[np.ndarray, ...] = (position, -declared.bound * y, -s)
    elif declared.order == "key":
        if declared.needs_items and item_ids is None:
            raise ValueError(f"item_ids are required for ties={ties!r}")
        context = _ArrayTieContext(s.shape, seed, user_ids, item_ids)
        keys = (position, declared.key(context).reshape(s.shape), -s)  # type: ignore[misc]
    else:  # a deterministic order this function does not know: never another rule's order
        raise ValueError(f"ties={ties!r}: rank_candidates does not know order={declared.order!r}")
    return np.lexsort(keys, axis=-1)


class _ArrayTieContext:
    """The :class:`~rankaudit.measures.rules.TieContext` of a rectangular batch, flat in
    row-major order."""

    def __init__(self, shape: tuple[int, ...], seed: int, user_ids: object, item_ids: object):
        self.shape = shape
        self.seed = seed
        self.user_ids = user_ids
        self.item_ids = item_ids

    def position(self) -> np.ndarray:
        return np.tile(np.arange(self.shape[1]), self.shape[0])

    def _ids(self) -> tuple[np.ndarray, np.ndarray]:
        if self.item_ids is None:
            raise ValueError("item_ids are required for this tie rule")
        keys, codes = normalize_ids(self.item_ids, "item_ids")  # type: ignore[arg-type]
        return ids_to_keys(self.item_ids, "item_ids").reshape(-1), np.asarray(codes).reshape(-1)

    def item_rank(self) -> np.ndarray:
        return self._ids()[1]

    def hash_rank(self) -> np.ndarray:
        item_keys, codes = self._ids()
        n_rows = self.shape[0]
        users = np.arange(n_rows) if self.user_ids is None else np.asarray(self.user_ids)
        seed_key = np.uint64(splitmix64(self.seed & ((1 << 64) - 1)))
        with np.errstate(over="ignore"):
            row_keys = splitmix64_array(ids_to_keys(users, "user_ids") ^ seed_key)
        return hash_order_ranks(np.repeat(row_keys, self.shape[1]), item_keys, codes)
