"""What rows offer a tie rule that orders every measure alike: the
:class:`~rankaudit.measures.rules.TieContext` of a checked :class:`~rankaudit.ties.validation.Batch`
(the rules carry their keys: one registry, :mod:`rankaudit.measures.rules`).

Per candidate, flat in the batch's order: its position (input order inside the row), the rank
of its item id (ascending integer value or string order, as
:func:`rankaudit.measures.hashing.normalize_ids` orders ids) and its place in the seeded hash
order (:func:`rankaudit.measures.hashing.hash_order_ranks`, keyed by
``tie_hash(seed, user id, item id)``; the row position is the user id without user ids).
"""

from __future__ import annotations

import numpy as np

from rankaudit.measures.hashing import hash_order_ranks, normalize_ids
from rankaudit.measures.rules import rule
from rankaudit.ties.validation import Batch, row_keys

__all__ = ["RowTieContext", "row_tie_keys"]


class RowTieContext:
    """The tie context of ``batch``'s candidates: the flat arrays from the first row's first
    candidate (``batch.row_start(0)``) over every row, in order."""

    def __init__(self, batch: Batch, seed: int = 0) -> None:
        self.batch = batch
        self.seed = seed
        self.start = batch.row_start(0) if batch.n_rows else 0
        self.size = int(batch.row_lengths().sum())

    def position(self) -> np.ndarray:
        """Input order (a stable sort)."""
        return np.arange(self.size, dtype=np.int64)

    def _ids(self) -> tuple[np.ndarray, np.ndarray]:
        batch = self.batch
        if batch.item_ids is None:
            raise ValueError(
                "this tie rule needs item_ids (one id per candidate, distinct within a row)"
            )
        keys, codes = normalize_ids(
            batch.item_ids, batch.item_id_name, locate=batch.describe_position
        )
        end = self.start + self.size
        return (
            np.asarray(keys).reshape(-1)[self.start : end].astype(np.uint64),
            np.asarray(codes).reshape(-1)[self.start : end],
        )

    def item_rank(self) -> np.ndarray:
        """The item id's rank (ascending)."""
        return np.asarray(self._ids()[1], dtype=np.int64)

    def hash_rank(self) -> np.ndarray:
        """Rank in the hash order of ``(user id, item id)`` under the seed."""
        item_keys, item_codes = self._ids()
        rows = np.repeat(np.arange(self.batch.n_rows), self.batch.row_lengths())
        return hash_order_ranks(row_keys(self.batch, self.seed)[rows], item_keys, item_codes)


def row_tie_keys(batch: Batch, ties: str, seed: int = 0) -> np.ndarray:
    """The int64 key rule ``ties`` (``order="key"``) sorts each tie block of the rows by, one
    per candidate of :class:`RowTieContext` (from ``batch.row_start(0)``, every row)."""
    declared = rule(ties)
    if declared.key is None:
        raise ValueError(f"tie rule {ties!r} has no common sort key (order={declared.order!r})")
    keys = declared.key(RowTieContext(batch, seed))
    return np.ascontiguousarray(keys, dtype=np.int64)
